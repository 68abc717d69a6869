"""``A.RDP``: Rényi DP of the Poisson-subsampled Gaussian and its conversions.

References: ``dp_accounting``'s ``RdpAccountant`` (test extra) at integer orders,
30-digit mpmath sums/integrals everywhere, and ``A.Numerical``'s certified bracket
(RDP is a valid but looser bound, so its eps can never be below the certified
upper end).

Note on the peer at fractional orders: ``dp_accounting`` 0.6's fractional-order
series sums ``log|binom(alpha, i)|`` without the alternating signs, so it
overestimates D_alpha (by ~13% at alpha = 1.1 for q = 256/60000, sigma = 0.7); the
signed series (as in the 2019 tensorflow/privacy code) equals the defining
integral. We therefore compare fractional orders with mpmath, and only check that
the peer is never below us there.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.accountants import rdp as R
from tests._tolerances import MP_DPS, RTOL_EVAL

dp_accounting = pytest.importorskip("dp_accounting")

#: Agreement with dp_accounting at integer orders: both sum the same positive
#: binomial series in float64 (the peer term by term, we via log(1 + .)), so
#: they differ by accumulated rounding only (measured <= 3e-10 relative).
RTOL_PEER = 1e-9
#: Our quadrature / log1p sums vs 30-digit mpmath (measured <= 4e-13).
RTOL_MP = 1e-11

INT_ORDERS = [float(a) for a in range(2, 65)] + [128.0, 256.0]
FRAC_ORDERS = [1.1, 1.5, 2.5, 3.9, 10.5]
SETTINGS = [(1e-3, 0.5), (256 / 60000, 0.7), (0.01, 1.0), (0.1, 1.3), (0.5, 3.0)]


def _peer_rdp(q: float, sigma: float, n: int, orders: list[float]) -> np.ndarray:
    acc = dp_accounting.rdp.RdpAccountant(orders)
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    acc.compose(dp_accounting.SelfComposedDpEvent(event, n))
    return np.asarray(acc._rdp, dtype=np.float64), acc


def _mp_rdp_integer(q: float, sigma: float, alpha: int) -> mp.mpf:
    with mp.workdps(MP_DPS):
        q, mu = mp.mpf(q), 1 / mp.mpf(sigma)
        total = mp.fsum(
            mp.binomial(alpha, k)
            * q**k
            * (1 - q) ** (alpha - k)
            * mp.exp((k * k - k) * mu**2 / 2)
            for k in range(alpha + 1)
        )
        return mp.log(total) / (alpha - 1)


def _mp_log_moment(q: float, sigma: float, lam: float) -> mp.mpf:
    """log E[(1 - q + q e^{mu X - mu^2/2})^lam], X ~ N(0, 1), by mpmath quad."""
    with mp.workdps(MP_DPS):
        q, mu, lam = mp.mpf(q), 1 / mp.mpf(sigma), mp.mpf(lam)

        def f(x):
            return (1 - q + q * mp.exp(mu * x - mu**2 / 2)) ** lam * mp.npdf(x)

        centre = lam * mu
        pts = sorted({-mp.inf, -10, 0, mu / 2, mu, centre - 10, centre, centre + 10})
        return mp.log(mp.quad(f, [*pts, mp.inf]))


# --------------------------------------------------------------------- peers
@pytest.mark.parametrize(("q", "sigma"), SETTINGS)
@pytest.mark.parametrize("n", [1, 3000])
def test_integer_orders_match_dp_accounting(q: float, sigma: float, n: int) -> None:
    theirs, _ = _peer_rdp(q, sigma, n, INT_ORDERS)
    ours = A.RDP(orders=INT_ORDERS).renyi(M.SubsampledGaussian(p=q, sigma=sigma), n)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL_PEER)


@pytest.mark.parametrize(("q", "sigma"), SETTINGS)
@pytest.mark.parametrize("delta", [1e-5, 1e-3])
def test_epsilon_matches_dp_accounting(q: float, sigma: float, delta: float) -> None:
    n = 2000
    theirs, acc = _peer_rdp(q, sigma, n, INT_ORDERS)
    mech = M.SubsampledGaussian(p=q, sigma=sigma)
    # dp_accounting converts with the improved (CKS 2020) bound.
    improved = A.RDP(orders=INT_ORDERS, conversion="improved").compose(mech, n)
    assert improved.epsilon(delta) == pytest.approx(acc.get_epsilon(delta), RTOL_PEER)
    # The classic (2019) conversion, evaluated here from the peer's RDP values.
    a = np.asarray(INT_ORDERS)
    classic_peer = float(np.min(theirs - math.log(delta) / (a - 1)))
    classic = A.RDP(orders=INT_ORDERS).compose(mech, n)
    assert classic.epsilon(delta) == pytest.approx(classic_peer, RTOL_PEER)
    assert improved.epsilon(delta) <= classic.epsilon(delta)


@pytest.mark.parametrize(("q", "sigma"), SETTINGS[:3])
def test_fractional_orders_peer_is_never_below(q: float, sigma: float) -> None:
    theirs, _ = _peer_rdp(q, sigma, 1, FRAC_ORDERS)
    ours = R.rdp_subsampled_gaussian(q, 1 / sigma, FRAC_ORDERS)
    assert np.all(theirs >= ours * (1 - RTOL_PEER))


# --------------------------------------------------------------------- mpmath
@pytest.mark.parametrize(
    ("q", "sigma"), [*SETTINGS, (1e-5, 5.0), (1e-6, 50.0), (0.99, 1.0)]
)
def test_integer_orders_vs_mpmath(q: float, sigma: float) -> None:
    orders = [2, 3, 8, 17, 63, 256]
    ours = R.rdp_subsampled_gaussian(q, 1 / sigma, orders)
    ref = np.array([float(_mp_rdp_integer(q, sigma, a)) for a in orders])
    np.testing.assert_allclose(ours, ref, rtol=RTOL_MP)


@pytest.mark.parametrize(("q", "sigma"), [*SETTINGS[:3], (1e-4, 0.3), (0.1, 0.1)])
def test_quadrature_vs_mpmath(q: float, sigma: float) -> None:
    lams = [1.1, 3.9, 10.5, -0.1, -2.9]  # add (alpha) and remove (1 - alpha) sides
    ours = R.log_mixture_moment(q, 1 / sigma, lams)
    ref = np.array([float(_mp_log_moment(q, sigma, lam)) for lam in lams])
    np.testing.assert_allclose(ours, ref, rtol=RTOL_MP)


@pytest.mark.parametrize(("q", "sigma"), SETTINGS)
def test_binomial_sum_equals_quadrature(q: float, sigma: float) -> None:
    a = np.arange(2.0, 65.0)
    binomial = R.rdp_subsampled_gaussian(q, 1 / sigma, a)
    quadrature = R.log_mixture_moment(q, 1 / sigma, a) / (a - 1)
    np.testing.assert_allclose(binomial, quadrature, rtol=RTOL_MP)


def test_pure_dp_vs_mpmath() -> None:
    orders = [1.5, 2.0, 7.3, 40.0]
    for eps in (0.05, 1.0, 4.0):
        ours = R.rdp_pure_dp(eps, orders)
        with mp.workdps(MP_DPS):
            e = mp.mpf(eps)
            p1, q1 = 1 / (1 + mp.exp(e)), mp.exp(e) / (1 + mp.exp(e))
            ref = [
                float(mp.log(q1**a * p1 ** (1 - a) + p1**a * q1 ** (1 - a)) / (a - 1))
                for a in map(mp.mpf, orders)
            ]
        np.testing.assert_allclose(ours, ref, rtol=RTOL_MP)


def test_gaussian_and_composition_add() -> None:
    orders = [1.5, 2.0, 10.0]
    curve = A.RDP(orders=orders).compose([(M.Gaussian(mu=0.5), 4), (M.PureDP(0.3), 2)])
    expected = 4 * 0.5 * np.array(orders) * 0.25 + 2 * R.rdp_pure_dp(0.3, orders)
    np.testing.assert_allclose(curve.info["rdp"], expected, rtol=RTOL_EVAL)


# --------------------------------------------------------------------- bounds
@pytest.mark.parametrize(
    ("q", "sigma", "n"), [(256 / 60000, 1.1, 2000), (0.01, 1.0, 1000), (0.1, 2.0, 300)]
)
def test_epsilon_not_below_certified_numerical(q: float, sigma: float, n: int) -> None:
    mech = M.SubsampledGaussian(p=q, sigma=sigma)
    _, upper = A.Numerical().compose(mech, n).epsilon_bounds(1e-5)
    for conversion in R.CONVERSIONS:
        rdp_eps = A.RDP(conversion=conversion).compose(mech, n).epsilon(1e-5)
        assert rdp_eps >= upper


@given(
    q=st.floats(1e-4, 0.9),
    sigma=st.floats(0.4, 20.0),
)
def test_add_dominates_remove_and_orders_monotone(q: float, sigma: float) -> None:
    orders = np.array([1.1, 1.7, 2.0, 3.5, 8.0, 20.0])
    add = R.rdp_subsampled_gaussian(q, 1 / sigma, orders, "add")
    remove = R.rdp_subsampled_gaussian(q, 1 / sigma, orders, "remove")
    assert np.all(remove <= add * (1 + 1e-12))
    assert np.all(add >= 0) and np.all(remove >= 0)
    # Renyi divergences are non-decreasing in the order.
    assert np.all(np.diff(add) >= -1e-12 * add[1:])


@pytest.mark.parametrize("conversion", R.CONVERSIONS)
def test_curve_profile_inverse_and_tradeoff(conversion: str) -> None:
    curve = A.RDP(conversion=conversion).compose(
        M.SubsampledGaussian(p=0.01, sigma=1.0), n=1000
    )
    deltas = np.array([1e-8, 1e-5, 1e-2])
    eps = curve.epsilon(deltas)
    np.testing.assert_allclose(curve.delta(eps), deltas, rtol=1e-9)
    grid = np.linspace(0, 10, 200)
    assert np.all(np.diff(curve.delta(grid)) <= 0)
    alpha = np.linspace(0, 1, 2001)
    f = curve.tradeoff(alpha)
    assert np.all(f <= 1 - alpha + 1e-12)
    assert np.all(np.diff(f) <= 1e-15)
    assert np.all(np.diff(f, 2) >= -1e-12)  # convex
    # Symmetric (Prop. 2.8): f o f = id where f > 0.
    inner = alpha[(f > 0) & (alpha > 0)]
    np.testing.assert_allclose(curve.tradeoff(curve.tradeoff(inner)), inner, atol=1e-12)
    # Above every member of its (eps, delta) family ...
    for e, d in zip(eps, deltas, strict=True):
        assert np.all(f >= T.EpsDelta(float(e), float(d))(alpha) - 1e-12)
    # ... and the limit of the envelope of a finite subfamily (FromPrivacyProfile).
    eps_hi = float(curve.epsilon(1e-300)) + 1.0
    sub = np.unique(
        np.concatenate((np.linspace(0, eps_hi, 4001), np.geomspace(1e-8, eps_hi, 1000)))
    )
    g = curve.pairs[0].family(sub)(alpha)
    assert np.all(f >= g - 1e-12)
    # Grid envelope error: it shrinks like (eps step)^2 (measured 1.4e-4 with
    # these 4001 points, 6e-6 with 20001).
    assert np.max(f - g) < 5e-4


def test_tutorial_orders_constant() -> None:
    assert R.TUTORIAL_2019_ORDERS[0] == 1.1 and R.TUTORIAL_2019_ORDERS[98] == 10.9
    assert R.TUTORIAL_2019_ORDERS[99:] == tuple(float(a) for a in range(12, 64))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"orders": [1.0, 2.0]}, "orders"),
        ({"orders": []}, "orders"),
        ({"conversion": "tight"}, "conversion"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        A.RDP(**kwargs)


def test_unsupported_mechanism() -> None:
    with pytest.raises(ValueError, match="RDP supports"):
        A.RDP().compose(M.Laplace(mu=1.0), n=3)


def test_finite_laws_have_their_exact_renyi_divergence() -> None:
    """The rdp capability of a finite law is the sum over its atoms: against
    mpmath for 4-ary randomized response (losses -eps, 0, eps) and the closed
    form of pure DP for the binary one."""
    eps, k = 0.8, 4
    orders = np.array([1.5, 2.0, 7.0, 64.0])
    got = M.RandomizedResponse(eps=eps, k=k).rdp(orders)
    with mp.workdps(MP_DPS):
        z = mp.exp(eps) + k - 1
        p = [mp.exp(eps) / z, (k - 2) / z, 1 / z]
        l = [-eps, 0, eps]
        ref = [
            float(
                mp.log(
                    mp.fsum(pj * mp.exp(a * lj) for pj, lj in zip(p, l, strict=True))
                )
                / (a - 1)
            )
            for a in orders
        ]
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    np.testing.assert_allclose(
        M.RandomizedResponse(eps=eps, k=2).rdp(orders),
        M.PureDP(eps=eps).rdp(orders),
        rtol=1e-12,
    )
