"""ReRo bounds: closed forms vs direct numerical integration, the gamma dispatch
over curves / trade-offs / mechanisms, certified bounds, the (eps, delta) route,
Edgeworth vs ground truth at the paper's settings, and calibration.

Kaissis et al. (2023), Thm 1 and Cor. 1-3.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import rero
from symfdp import tradeoff as T
from symfdp._warnings import ApproximationWarning
from tests._tolerances import ATOL_FLOAT, MP_DPS, RTOL_EVAL

#: Closed forms vs 30-digit direct integration (issue 5: "to 1e-10"); relative
#: for the tiny priors where gamma itself is small, absolute otherwise.
TOL_CLOSED = 1e-10
#: Edgeworth vs the certified Numerical bracket where the paper says Edgeworth
#: matches the ground truth (issue 5: "<= 1e-3 absolute").
ATOL_EW_VS_GT = 1e-3
#: A "deviation" of the CLT that is visible on the paper's Fig. 1 (gamma in [0, 1]).
CLT_DEVIATION = 0.02


# ----------------------------------------------------------------- references
def _threshold(sf, kappa: mp.mpf, start: float) -> mp.mpf:
    """t with sf(t) = kappa at MP_DPS digits (mpmath's secant method from a float
    start; findroot raises if it does not converge)."""
    return mp.findroot(lambda t: sf(t) - kappa, mp.mpf(start))


def mp_gamma_laplace(kappa: float, mu: float) -> float:
    """Power of {x > t} for Lap(0,1) vs Lap(mu,1) at level kappa, integrating the
    densities numerically (the likelihood ratio is non-decreasing in x, so
    {x > t} is a Neyman-Pearson region at every level)."""
    with mp.workdps(MP_DPS):
        k, m = mp.mpf(kappa), mp.mpf(mu)

        def tail(t, shift):
            pts = [t, *[b for b in (shift,) if b > t], mp.inf]
            return mp.quad(lambda x: mp.exp(-abs(x - shift)) / 2, pts)

        start = -math.log(2 * kappa) if kappa < 0.5 else math.log(2 * (1 - kappa))
        t = _threshold(lambda t: tail(t, 0), k, start)
        return float(tail(t, m))


def mp_gamma_gaussian(kappa: float, mus: list[float]) -> float:
    """Power of the Neyman-Pearson test of N(0, I) vs N(mus, I) at level kappa.

    One component: the densities integrated beyond t. Two: the region
    {mu_a x + mu_b y > c}, integrating over x with the y-probability inside.
    """
    z = float(-special.ndtri(kappa))
    with mp.workdps(MP_DPS):
        k = mp.mpf(kappa)
        if len(mus) == 1:
            m = mp.mpf(mus[0])

            def tail(t, shift):
                return mp.quad(lambda x: mp.npdf(x - shift), [t, shift + 40])

            t = _threshold(lambda t: tail(t, 0), k, z)
            return float(tail(t, m))
        a, b = (mp.mpf(v) for v in mus)

        def region(c, under_q):
            sa, sb = (a, b) if under_q else (0, 0)
            return mp.quad(
                lambda x: mp.npdf(x - sa) * mp.ncdf(sb - (c - a * x) / b),
                [-40, sa, 40 + sa],
            )

        c = _threshold(lambda c: region(c, False), k, z * math.hypot(*mus))
        return float(region(c, True))


def _close(ours: float, ref: float) -> bool:
    """Relative error <= TOL_CLOSED (gamma <= 1, so also absolute)."""
    return abs(ours - ref) <= TOL_CLOSED * ref


# ----------------------------------------------------------------- closed forms
@pytest.mark.parametrize("mu", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("kappa", [1e-7, 0.01, 0.3, 0.8])
def test_laplace_closed_form_matches_integration(kappa: float, mu: float) -> None:
    ref = mp_gamma_laplace(kappa, mu)
    assert _close(rero.gamma_laplace(kappa, mu), ref), (
        rero.gamma_laplace(kappa, mu),
        ref,
    )


@pytest.mark.parametrize("mu", [0.3, 4.0])
@pytest.mark.parametrize("kappa", [1e-7, 0.1, 0.6])
def test_gaussian_closed_form_matches_integration(kappa: float, mu: float) -> None:
    ref = mp_gamma_gaussian(kappa, [mu])
    assert _close(rero.gamma_gaussian(kappa, mu), ref)


@pytest.mark.parametrize(("kappa", "mu_a", "mu_b"), [(1e-5, 0.5, 0.5), (0.1, 0.3, 1.2)])
def test_gaussian_composition_matches_integration(
    kappa: float, mu_a: float, mu_b: float
) -> None:
    ref = mp_gamma_gaussian(kappa, [mu_a, mu_b])
    assert _close(rero.gamma_gaussian_composed(kappa, [mu_a, mu_b]), ref)
    if mu_a == mu_b:  # homogeneous: sqrt(N) mu with N = 2 (Cor. 2)
        assert _close(rero.gamma_gaussian(kappa, mu_a, n=2), ref)


def test_laplace_pieces_are_continuous() -> None:
    mu = 1.3
    edges = np.array([math.exp(-mu) / 2, 0.5])
    left = rero.gamma_laplace(edges * (1 - 1e-13), mu)
    right = rero.gamma_laplace(edges * (1 + 1e-13), mu)
    np.testing.assert_allclose(left, right, atol=1e-12)
    np.testing.assert_allclose(
        rero.gamma_laplace(edges, mu), [0.5, 1 - np.exp(-mu) / 2]
    )


def test_closed_forms_agree_with_tradeoff_calculus() -> None:
    kappa = np.logspace(-9, -0.01, 40)
    for mu in (0.0, 0.4, 2.5):
        np.testing.assert_allclose(
            rero.gamma_laplace(kappa, mu),
            rero.gamma(T.Laplace(mu), kappa),
            rtol=RTOL_EVAL,
        )
        np.testing.assert_allclose(
            rero.gamma_gaussian(kappa, mu, n=9),
            rero.gamma(T.Gaussian(3 * mu), kappa),
            rtol=RTOL_EVAL,
        )


def test_broadcasting_and_scalars() -> None:
    assert isinstance(rero.gamma_gaussian(0.1, 1.0), float)
    out = rero.gamma_laplace(
        np.array([0.1, 0.2])[None, :], np.array([0.5, 1, 2])[:, None]
    )
    assert out.shape == (3, 2)
    assert isinstance(rero.gamma(T.Gaussian(1.0), 0.1), float)
    assert rero.gamma(T.Gaussian(1.0), [[0.1, 0.2]]).shape == (1, 2)


@given(
    kappa=st.floats(1e-9, 0.999),
    mu=st.floats(0.0, 8.0),
    dmu=st.floats(0.01, 2.0),
)
def test_monotone_and_in_range(kappa: float, mu: float, dmu: float) -> None:
    for fn in (rero.gamma_laplace, rero.gamma_gaussian):
        g = fn(kappa, mu)
        assert kappa * (1 - 1e-12) <= g <= 1.0
        assert fn(kappa, mu + dmu) >= g - 1e-15
        assert fn(min(kappa * 1.5, 0.9999), mu) >= g - 1e-15


# ----------------------------------------------------------------- dispatch
def test_exact_curve_of_composed_gaussian() -> None:
    kappa = np.array([1e-7, 1e-3, 0.1, 0.5])
    curve = A.Exact().compose(M.Gaussian(mu=0.3), n=25)
    np.testing.assert_allclose(
        rero.gamma(curve, kappa), rero.gamma_gaussian(kappa, 0.3, n=25), rtol=1e-9
    )
    lo, hi = rero.gamma_bounds(curve, kappa)
    np.testing.assert_allclose(lo, hi, rtol=1e-9)


def test_single_step_sgm_is_lemma_c1() -> None:
    """CF-X2: one SGM step has T = p G_mu + (1-p) Id, hence
    gamma = p gamma_G + (1-p) kappa."""
    kappa = np.array([1e-6, 0.01, 0.1, 0.7])
    p, mu = 0.3, 1.7
    expected = p * rero.gamma_gaussian(kappa, mu) + (1 - p) * kappa
    for pair in ("add", "both"):
        m = M.SubsampledGaussian(mu=mu, p=p).with_pair(pair)
        np.testing.assert_allclose(rero.gamma(m, kappa), expected, rtol=1e-9)
    curve = A.Numerical(eps_rel_tol=1e-5).compose(M.SubsampledGaussian(mu=mu, p=p), 1)
    lo, hi = rero.gamma_bounds(curve, kappa)
    assert np.all(lo <= expected * (1 + 1e-12)) and np.all(expected <= hi * (1 + 1e-12))


def test_add_pair_is_used_and_symmetric_is_never_smaller() -> None:
    kappa = np.array([1e-4, 0.01, 0.1, 0.5])
    m = M.SubsampledGaussian(sigma=1.0, p=0.05)
    both = A.Numerical().compose(m, 200)
    add = rero.add_pair_curve(m, 200)
    remove = A.Numerical().compose(m.with_pair("remove"), 200)
    np.testing.assert_allclose(
        rero.gamma(both, kappa), rero.gamma(add, kappa), rtol=1e-12
    )
    g_add, g_rem = rero.gamma(add, kappa), rero.gamma(remove, kappa)
    assert np.max(np.abs(g_add - g_rem)) > 1e-3  # the two relations differ (Fig. 1f)
    g_sym = rero.gamma(both, kappa, symmetric=True)
    assert np.all(g_sym >= np.maximum(g_add, g_rem) - 1e-15)


def test_callable_source_and_clipping() -> None:
    assert rero.gamma(lambda a: 1 - a, 0.2) == pytest.approx(0.2)
    # Values above 1 - alpha (an invalid curve) are clipped: gamma >= kappa.
    assert rero.gamma(lambda a: np.ones_like(a), 0.2) == pytest.approx(0.2)


def test_gamma_from_eps_delta() -> None:
    assert rero.gamma_from_eps_delta(1.0, 1e-5, 0.1) == pytest.approx(
        math.e * 0.1 + 1e-5, rel=1e-15
    )
    assert rero.gamma_from_eps_delta(50.0, 0.0, 0.1) == 1.0
    assert rero.gamma_from_eps_delta(math.inf, 0.0, 0.1) == 1.0
    out = rero.gamma_from_eps_delta([0.0, 1.0, 2.0], 1e-6, [[1e-3], [0.1]])
    assert out.shape == (2, 3)


def test_eps_delta_route_bounds_and_is_tight_at_the_infimum() -> None:
    """Thm 1: 1 - f(kappa) <= e^eps kappa + delta(eps) for every eps, with equality
    in the infimum over eps (the conjugate duality, Dong et al. 2019, Prop. 2.4)."""
    from symfdp.mechanisms.gaussian import gaussian_privacy_profile

    f = T.Gaussian(1.5)
    eps = np.linspace(-5, 12, 40001)
    # The hockey-stick profile of G_mu, valid for every real eps.
    delta = gaussian_privacy_profile(1.5, eps)
    for kappa in (1e-4, 0.05, 0.3):
        bound = np.minimum(np.exp(eps) * kappa + delta, 1.0)
        g = rero.gamma(f, kappa)
        assert np.all(bound >= g - ATOL_FLOAT)
        assert bound.min() == pytest.approx(g, abs=1e-7)


# ----------------------------------------------------------------- paper settings
@pytest.mark.parametrize("mu", [0.5, 1.0, 1.5, 3.0])
def test_edgeworth_matches_ground_truth_sgm(mu: float) -> None:
    """Fig. 1 (SGM, kappa = 0.1, N = 100, p = 0.1; the paper gives no N, p):
    4th-order Edgeworth within 1e-3 of the certified bracket; the CLT of the
    footnote (mu~ = p sqrt(N (e^{mu^2} - 1))) deviates for the large effects."""
    kappa, n, p = 0.1, 100, 0.1
    m = M.SubsampledGaussian(mu=mu, p=p)
    gt = rero.add_pair_curve(m, n, A.Numerical(eps_rel_tol=1e-5))
    lo, hi = rero.gamma_bounds(gt, kappa)
    assert hi - lo < ATOL_EW_VS_GT
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        ew = rero.gamma(rero.add_pair_curve(m, n, A.Edgeworth(order=4)), kappa)
    assert lo - ATOL_EW_VS_GT <= ew <= hi + ATOL_EW_VS_GT
    clt_curve = rero.add_pair_curve(m, n, A.CLT(form="exp"))
    if mu in (1.0, 1.5):  # the CLT's error estimate of gamma exceeds 5% of it
        with pytest.warns(ApproximationWarning, match="CLT: .* ReRo gamma"):
            clt = rero.gamma(clt_curve, kappa)
    else:  # within 0.3% (mu = 0.5) or saturated (mu = 3): no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error", ApproximationWarning)
            clt = rero.gamma(clt_curve, kappa)
    if mu in (1.0, 1.5):
        assert min(abs(clt - lo), abs(clt - hi)) > CLT_DEVIATION
    elif mu == 0.5:
        assert abs(clt - lo) < CLT_DEVIATION
    # mu = 3: both saturate near 1 (gamma > 0.99), no visible deviation.


#: SaddlePoint's trade-off is the conjugate of its approximate profile; at these
#: settings its gamma is within a few 1e-3 of the ground truth (measured 7e-3).
ATOL_SADDLEPOINT = 0.01


def test_saddlepoint_curve() -> None:
    kappa = np.array([0.1, 0.01])
    m = M.SubsampledGaussian(mu=1.0, p=0.1)
    lo, hi = rero.gamma_bounds(rero.add_pair_curve(m, 100), kappa)
    sp = rero.gamma(rero.add_pair_curve(m, 100, A.SaddlePoint()), kappa)
    assert np.all(sp >= lo - ATOL_SADDLEPOINT) and np.all(sp <= hi + ATOL_SADDLEPOINT)


def test_imagenet_scale_is_finite_and_ordered() -> None:
    """kappa down to 1e-7, p = 1e-4, N = 1e5 (benchmarks/bench_rero.py times it)."""
    kappa = np.logspace(-7, -1, 13)
    m = M.SubsampledGaussian(sigma=1.0, p=1e-4)
    g = rero.gamma(rero.add_pair_curve(m, 100_000, A.Edgeworth(order=4)), kappa)
    assert np.all(np.isfinite(g)) and np.all(np.diff(g) > 0) and np.all(g >= kappa)


# ----------------------------------------------------------------- calibration
def test_sigma_for_gamma_gaussian_closed_form() -> None:
    sigma = rero.sigma_for_gamma(0.4, 0.01, n=16, mechanism="gaussian")
    assert rero.gamma_gaussian(0.01, 1 / sigma, n=16) == pytest.approx(0.4, rel=1e-12)


def test_sigma_for_gamma_subsampled() -> None:
    kappa, target, p, n = 0.1, 0.3, 0.05, 50
    sigma = rero.sigma_for_gamma(target, kappa, p=p, n=n, rtol=1e-8)
    m = M.SubsampledGaussian(sigma=sigma, p=p)
    g = rero.gamma(rero.add_pair_curve(m, n), kappa)
    assert g == pytest.approx(target, abs=1e-6)
    # Low sigma values probed by the search make the expansion repair (and warn).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        ew = rero.sigma_for_gamma(
            target, kappa, p=p, n=n, accountant=A.Edgeworth(order=4)
        )
    assert ew == pytest.approx(sigma, rel=1e-2)


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("kappa", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_bad_kappa(kappa: float) -> None:
    with pytest.raises(ValueError, match="kappa"):
        rero.gamma_gaussian(kappa, 1.0)
    with pytest.raises(ValueError, match="kappa"):
        rero.gamma_laplace(kappa, 1.0)
    with pytest.raises(ValueError, match="kappa"):
        rero.gamma(T.Gaussian(1.0), kappa)
    with pytest.raises(ValueError, match="kappa"):
        rero.gamma_from_eps_delta(1.0, 1e-5, kappa)


def test_bad_other_inputs() -> None:
    with pytest.raises(ValueError, match="mu1"):
        rero.gamma_laplace(0.1, -1.0)
    with pytest.raises(ValueError, match="n"):
        rero.gamma_gaussian(0.1, 1.0, n=0)
    with pytest.raises(ValueError, match="mus"):
        rero.gamma_gaussian_composed(0.1, [])
    with pytest.raises(ValueError, match="delta"):
        rero.gamma_from_eps_delta(1.0, 1.5, 0.1)
    with pytest.raises(TypeError, match="source"):
        rero.gamma("G_1", 0.1)
    with pytest.raises(ValueError, match="non-finite"):
        rero.gamma(lambda a: np.full_like(a, np.nan), 0.1)
    with pytest.raises(ValueError, match="symmetric"):
        rero.gamma(lambda a: 1 - a, 0.1, symmetric=True)
    with pytest.raises(ValueError, match="target_gamma"):
        rero.sigma_for_gamma(0.05, 0.1)
    with pytest.raises(NotImplementedError, match="certified"):
        rero.gamma_bounds(A.CLT().compose(M.Gaussian(mu=1.0), 1), 0.1)
