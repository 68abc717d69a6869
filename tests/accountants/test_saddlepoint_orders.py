"""``A.SaddlePoint(order=J)`` for J >= 3 and the saddle-point error estimates.

References are independent of the code under test: the closed-form Gaussian
profile (Dong et al. 2019, Cor. 2.13) via ``M.Gaussian(mu=...).privacy_profile``,
direct numerical integration (SciPy quad) of the kernel against the Edgeworth
density, and the certified brackets of ``A.Numerical``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermeval
from scipy import integrate

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.saddlepoint import orders as O
from symfdp.accountants.saddlepoint.tilted import component_cumulants
from tests._answers import delta_and_error, epsilon_and_error

#: A Gaussian loss has no tilted cumulant beyond the second: every order is
#: delta_hat_2, exact up to float64 evaluation.
RTOL_GAUSS = 1e-12
#: DP-SGD, sigma = 1, p = 0.01, n = 2000, delta = 1e-5 (Numerical's bracket is
#: 2.5836..2.5842): measured relative distance of eps to the bracket's middle is
#: 0.38% (orders 1-3), 0.11% (4, 5), 0.18% (6, 7), 0.15% (8).
RTOL_EPS_DPSGD = 0.01


# Order 1 is the vanilla saddle-point formula delta_hat_1 (CF-S5), which is not
# exact for a Gaussian loss (it is 1.6% high at eps = 0 here); orders >= 2 are.
@pytest.mark.parametrize("order", range(2, 9))
def test_every_order_exact_on_gaussian(order: int) -> None:
    curve = A.SaddlePoint(order=order).compose(M.Gaussian(mu=0.5), n=16)
    eps = np.array([-1.0, 0.0, 0.5, 1.0, 3.0, 6.0])
    exact = np.asarray(M.Gaussian(mu=2.0).privacy_profile(eps))
    np.testing.assert_allclose(curve.delta(eps), exact, rtol=RTOL_GAUSS)
    delta = np.array([1e-3, 1e-6, 1e-10])
    got = curve.delta(curve.epsilon(delta))
    np.testing.assert_allclose(got, delta, rtol=1e-9)


@pytest.mark.parametrize("order", [3, 5, 8])
def test_error_estimate_zero_scale_on_gaussian(order: int) -> None:
    curve = A.SaddlePoint(order=order).compose(M.Gaussian(mu=1.0), n=4)
    pair = curve.pairs[0]
    eps = np.array([0.5, 2.0, 5.0])
    d, err = delta_and_error(pair, eps)
    exact = np.asarray(M.Gaussian(mu=2.0).privacy_profile(eps))
    np.testing.assert_allclose(d, exact, rtol=RTOL_GAUSS)
    assert np.all(err >= 0.0) and np.all(err <= 1e-12 * exact)


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_correction_terms_match_direct_integration(side: str) -> None:
    # The order-J expectation of the kernel against phi(x) (1 + sum_j T_j-terms)
    # equals the direct quadrature of the kernel times the Edgeworth density.
    eps, v = 1.0, 2.0
    t = 1.3 if side == "upper" else -2.5
    m = eps + 1.0 / t + 1.0 / (1.0 + t)
    lam = np.array([0.3, 0.1, 0.05, 0.02, 0.01, 0.005])[:, None]
    from symfdp.symbolic.saddlepoint import tilted_edgeworth_coefficients

    log_pref, terms = O.correction_terms(
        side, np.array([eps]), np.array([t]), np.array([m]), np.array([v]), lam, 8
    )
    rows = tilted_edgeworth_coefficients(8)
    sv = math.sqrt(v)
    c = (eps - m) / sv
    from symfdp.symbolic.symbols import lam as lam_symbol

    lam_vals = {lam_symbol(r): float(lam[r - 3, 0]) for r in range(3, 9)}
    for j, row in enumerate(rows, start=1):
        coef = [float(ck.subs(lam_vals)) for ck in row]

        def integrand(x: float, coef: list[float] = coef) -> float:
            z = m + sv * x
            if side == "upper":
                h = math.exp(t * (eps - z)) - math.exp((t + 1) * (eps - z))
            else:
                h = math.exp((t + 1) * (eps - z)) - math.exp(t * (eps - z))
            return hermeval(x, coef) * math.exp(-x * x / 2) / math.sqrt(2 * math.pi) * h

        lo, hi = (c, c + 40.0) if side == "upper" else (c - 40.0, c)
        ref = integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12, limit=400)[0]
        got = math.exp(log_pref[0] + eps * t) * terms[j - 1, 0]
        # Absolute tolerance: 1e-11 of terms whose sum is ~1e-3 (quad and float64).
        assert got == pytest.approx(ref, rel=1e-8, abs=1e-11)


def test_moment_path_agrees_with_closed_form_at_moderate_b() -> None:
    c = np.array([-0.5])
    w1, w2 = c + 3.0, c + 3.7
    far = O._moment_differences("upper", c, w1, w2, 12)
    from symfdp.numeric.compile import evaluator

    ev = evaluator("saddlepoint_kernel_hermite_upper", 12)
    g1 = ev(hb=3.0, hw=w1, mills=O.mills_ratio(w1))
    g2 = ev(hb=3.7, hw=w2, mills=O.mills_ratio(w2))
    np.testing.assert_allclose(far, (g1 - g2).reshape(13, 1), rtol=1e-8, atol=1e-12)


def _kernel_hermite_mpmath(k: int, b: float, w: float, side: str) -> float:
    """G_k^+- from its defining integral's Appell sum at 50 digits."""
    import mpmath as mp

    with mp.workdps(50):
        b, w = mp.mpf(b), mp.mpf(w)
        sg = 1 if side == "upper" else -1
        mills = mp.erfc(sg * w / mp.sqrt(2)) / 2 / mp.npdf(w)
        total = (-b) ** k * mills
        he_prev, he = mp.mpf(0), mp.mpf(1)  # He_{-1} := 0, He_0
        for i in range(1, k + 1):
            total += sg * mp.binomial(k, i) * (-b) ** (k - i) * he
            he_prev, he = he, w * he - (i - 1) * he_prev
        return float(total)


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_kernel_hermite_moments_match_mpmath_and_compiled(side: str) -> None:
    rng = np.random.default_rng(7)
    b, w = rng.uniform(0.01, 6.0, 12), rng.uniform(-3.0, 2.0, 12)
    kmax = 12
    got = O.kernel_hermite_moments(side, b, w, kmax)
    exact = np.array(
        [
            [
                _kernel_hermite_mpmath(k, bi, wi, side)
                for bi, wi in zip(b, w, strict=True)
            ]
            for k in range(kmax + 1)
        ]
    )
    np.testing.assert_allclose(got, exact, rtol=1e-9)
    from symfdp.numeric.compile import evaluator

    sg = 1.0 if side == "upper" else -1.0
    ev = evaluator(f"saddlepoint_kernel_hermite_{side}", kmax)
    compiled = ev(hb=b, hw=w, mills=O.mills_ratio(sg * w))
    np.testing.assert_allclose(got, compiled, rtol=1e-8)


@pytest.mark.parametrize(
    "mech",
    [
        M.SubsampledGaussian(sigma=1.0, p=0.01).pairs[0],
        M.SubsampledGaussian(sigma=1.0, p=0.01).pairs[1],
        M.Laplace(mu=1.0),
        M.PureDP(eps=1.0),
    ],
    ids=["sg-add", "sg-remove", "laplace", "puredp"],
)
def test_tilted_cumulants_match_derivatives_of_k2(mech) -> None:
    t = np.array([0.5, 3.0, -2.0])
    k = component_cumulants(mech, t, 4)
    h = 1e-3
    k2 = lambda x: np.asarray(mech.cgf_derivatives(x, "Q")[2])  # noqa: E731
    np.testing.assert_allclose(k[0], k2(t), rtol=1e-12)
    np.testing.assert_allclose(k[1], (k2(t + h) - k2(t - h)) / (2 * h), rtol=1e-5)
    fd4 = (k2(t + h) - 2 * k2(t) + k2(t - h)) / h**2
    np.testing.assert_allclose(k[2], fd4, rtol=1e-4, atol=1e-6)


@pytest.fixture(scope="module")
def dpsgd_bracket() -> tuple[float, float]:
    m = M.SubsampledGaussian(sigma=1.0, p=0.01)
    lo, hi = A.Numerical().compose(m, n=2000).epsilon_bounds(1e-5)
    return float(lo), float(hi)


@pytest.mark.parametrize("order", range(1, 9))
def test_orders_against_certified_bracket(order, dpsgd_bracket) -> None:
    lo, hi = dpsgd_bracket
    mid = 0.5 * (lo + hi)
    curve = A.SaddlePoint(order=order).compose(
        M.SubsampledGaussian(sigma=1.0, p=0.01), n=2000
    )
    eps = float(curve.epsilon(1e-5))
    assert abs(eps / mid - 1.0) < RTOL_EPS_DPSGD
    # The error estimate covers the distance to the bracket within a factor 3.
    errs = [epsilon_and_error(p, [1e-5])[1][0] for p in curve.pairs]
    assert max(errs) > 0.0
    assert abs(eps - mid) <= 3.0 * max(errs) + (hi - lo)


def test_skewed_tilted_law_still_warns() -> None:
    curve = A.SaddlePoint(order=4).compose(
        M.SubsampledGaussian(sigma=1.0, p=0.01), n=100
    )
    with pytest.warns(ApproximationWarning, match="estimated relative error"):
        curve.epsilon(1e-5)
    pair = curve.pairs[0]
    d, err = delta_and_error(pair, np.array([1.0, 2.0]))
    lam3 = pair._delta_orders(np.array([1.0, 2.0]), False, 3, None)[3]
    assert np.all(err >= 0.05 * lam3**4 * d * (1 - 1e-12))
    assert np.all(np.abs(lam3) > 1.0)


@pytest.mark.parametrize("order", [0, 17])
def test_order_range(order: int) -> None:
    with pytest.raises(ValueError, match="order"):
        A.SaddlePoint(order=order)
