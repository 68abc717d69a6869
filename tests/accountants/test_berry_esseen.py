"""``A.BerryEsseen``: parameters, certification against Numerical, the profile.

The closed forms of Dong et al. (2019), Cor. D.6/D.7 (pure DP) are written out
here; the bound is checked to lie below Numerical's certified *upper* bound on
the true trade-off (BE is a lower bound on the truth, Numerical's upper bound is
above the truth), and its profile above Numerical's certified lower bound on
delta.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.accountants.gdp.berry_esseen import BerryEsseenLowerBound
from symfdp.functionals import noisy_sgd_berry_esseen

ALPHA = np.linspace(0.0, 1.0, 401)
#: Closed form vs its grid conjugate (T.privacy_profile(method="grid")).
PROFILE_ATOL = 1e-9


def test_pure_dp_homogeneous_matches_cor_d7() -> None:
    """mu = 2 sqrt(n) sinh(eps/2), gamma = 0.56 cosh(eps)/(sqrt(n) cosh(eps/2))."""
    eps, n = 0.2, 64
    info = A.BerryEsseen().compose(M.PureDP(eps=eps), n).info
    assert info["mu"] == pytest.approx(2 * math.sqrt(n) * math.sinh(eps / 2), rel=1e-12)
    gamma = 0.56 / math.sqrt(n) * math.cosh(eps) / math.cosh(eps / 2)
    assert info["gamma"] == pytest.approx(gamma, rel=1e-12)


def test_pure_dp_heterogeneous_matches_cor_d6() -> None:
    """mu = 2 sum eps_i t_i / sqrt(sum eps_i^2 (1 - t_i^2)) and
    gamma = 0.56 sum eps_i^3 (1 - t_i^4) / (sum eps_i^2 (1 - t_i^2))^{3/2},
    t_i = tanh(eps_i / 2)."""
    eps = [(0.1, 30), (0.3, 10), (0.05, 200)]
    info = A.BerryEsseen().compose([(M.PureDP(eps=e), k) for e, k in eps]).info
    t = {e: math.tanh(e / 2) for e, _ in eps}
    var = sum(k * e * e * (1 - t[e] ** 2) for e, k in eps)
    mu = 2 * sum(k * e * t[e] for e, k in eps) / math.sqrt(var)
    gamma = 0.56 * sum(k * e**3 * (1 - t[e] ** 4) for e, k in eps) / var**1.5
    assert info["mu"] == pytest.approx(mu, rel=1e-12)
    assert info["gamma"] == pytest.approx(gamma, rel=1e-12)


def test_noisy_sgd_uses_symmetrised_functionals_for_every_pair() -> None:
    """Cor. SGDBerryrep with C_p(G_{1/sigma}); the add and remove pairs get the same
    (conservative) parameters as the both pair."""
    p, sigma, n = 0.05, 1.0, 2000
    mu, gamma = noisy_sgd_berry_esseen(p, sigma, n)
    for pair in ("both", "add", "remove"):
        info = (
            A.BerryEsseen()
            .compose(M.SubsampledGaussian(sigma=sigma, p=p).with_pair(pair), n)
            .info
        )
        assert info["mu"] == pytest.approx(mu, rel=1e-12)
        assert info["gamma"] == pytest.approx(gamma, rel=1e-12)


@pytest.mark.parametrize(
    ("mechanism", "n"),
    [
        (M.PureDP(eps=0.1), 100),
        (M.Laplace(mu=0.2), 60),
        (M.Gaussian(mu=0.3), 20),
        (M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.05), "add"), 1000),
        (M.with_adjacency(M.SubsampledLaplace(p=0.1, mu=0.5), "add"), 400),
    ],
)
def test_lower_bound_is_below_the_certified_truth(mechanism, n: int) -> None:
    """BE <= true f <= Numerical's certified upper bound; BE's delta >= true delta
    >= Numerical's certified lower bound (checked on the first pair)."""
    be = A.BerryEsseen().compose(mechanism, n)
    assert not be.info["vacuous"]
    pair = A.Numerical().compose(mechanism, n).pairs[0]
    _, hi = pair.tradeoff_bounds(ALPHA)
    assert np.all(be.tradeoff(ALPHA) <= hi)
    eps = np.linspace(0.0, 5.0, 51)
    lo, _ = pair.delta_bounds(eps)
    assert np.all(be.delta(eps) >= lo)


def test_profile_is_the_conjugate_of_the_bound() -> None:
    """The closed-form 1 + f_lo^*(-e^eps) (three cases, any real eps) against the
    generic grid conjugate of T."""
    eps = np.linspace(-4.0, 8.0, 97)
    for mu, gamma in [(1.0, 0.05), (3.0, 0.2), (0.4, 0.01), (0.0, 0.1), (6.0, 0.05)]:
        bound = BerryEsseenLowerBound(mu, gamma)
        closed = T.privacy_profile(bound, eps)
        grid = T.privacy_profile(bound, eps, method="grid")
        np.testing.assert_allclose(closed, grid, rtol=0, atol=PROFILE_ATOL)


def test_bound_is_a_trade_off_function() -> None:
    bound = BerryEsseenLowerBound(1.3, 0.08)
    f = bound(ALPHA)
    assert np.all(np.diff(f) <= 0) and np.all(f <= 1 - ALPHA) and f.min() == 0.0
    assert np.all(np.diff(np.diff(f)) >= -1e-12)
    expected = np.maximum(T.Gaussian(1.3)(np.minimum(ALPHA + 0.08, 1.0)) - 0.08, 0.0)
    np.testing.assert_allclose(f, expected, atol=1e-15)


def test_epsilon_and_its_floor() -> None:
    """delta never drops below 1 + gamma - G_mu(gamma): no finite epsilon there."""
    curve = A.BerryEsseen().compose(M.PureDP(eps=0.05), 400)
    mu, gamma = curve.info["mu"], curve.info["gamma"]
    floor = 1 + gamma - float(T.Gaussian(mu)(gamma))
    assert curve.info["delta_floor"] == pytest.approx(floor, rel=1e-12)
    assert curve.delta(50.0) == pytest.approx(floor, rel=1e-12)
    d = 0.5 * (floor + curve.delta(0.0))
    e = curve.epsilon(d)
    assert curve.delta(e) == pytest.approx(d, rel=1e-9)
    with pytest.raises(ValueError, match="no finite epsilon"):
        curve.epsilon(floor / 2)


def test_vacuous_bound_warns_and_is_trivial() -> None:
    """gamma >= 1/2 (one pure-DP step with eps = 1: gamma = 0.56 cosh 1/cosh 0.5)."""
    with pytest.warns(ApproximationWarning, match="vacuous"):
        curve = A.BerryEsseen().compose(M.PureDP(eps=1.0), 1)
    assert curve.info["vacuous"] and curve.info["gamma"] >= 0.5
    np.testing.assert_array_equal(curve.tradeoff(ALPHA), 0.0)
    np.testing.assert_array_equal(curve.delta([0.0, 1.0, 10.0]), 1.0)
    with pytest.raises(ValueError, match="vacuous"):
        curve.epsilon(0.5)


def test_asymmetric_component_raises() -> None:
    swapped = M.Swapped(M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.1), "add"))
    with pytest.raises(ValueError, match="symmetric"):
        A.BerryEsseen().compose(swapped, 10)


def test_perfect_privacy() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = A.BerryEsseen().compose(M.Gaussian(mu=0.0), 10)
    np.testing.assert_allclose(curve.tradeoff(ALPHA), 1 - ALPHA, atol=1e-15)
