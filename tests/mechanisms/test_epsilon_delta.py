"""The (eps, delta)-DP event: trade-off f_{eps,delta}, its loss with atoms at
+-inf, and its compositions against closed forms written here and dp-accounting.

Reference for n-fold composition (Kairouz et al. 2015; the factorisation of
``symfdp.mechanisms.epsilon_delta``): no blatant outcome with probability
c = (1 - delta)^n, and then n steps of randomised response, whose loss is
eps (2K - n) with K ~ Bin(n, e^eps / (1 + e^eps)) under Q.
"""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M

EPS = np.array([0.0, 0.3, 1.0, 2.5])


def f_eps_delta(eps: float, delta: float, alpha: np.ndarray) -> np.ndarray:
    """Dong et al. (2019), eq. (5)."""
    return np.maximum.reduce(
        [
            0 * alpha,
            1 - delta - math.exp(eps) * alpha,
            math.exp(-eps) * (1 - delta - alpha),
        ]
    )


def composed_delta(parts: list[tuple[float, float, int]], e: float) -> float:
    """delta(e) of the composition of (eps_i, delta_i) events, n_i times each, in
    50-digit arithmetic: 1 - c + c E_Q[(1 - e^{e - L})_+] over the finite parts
    (their loss distribution convolved exactly on the atoms)."""
    mp.mp.dps = 50
    law = {mp.mpf(0): mp.mpf(1)}  # loss -> Q-probability
    keep = mp.mpf(1)
    for eps, delta, n in parts:
        keep *= (1 - mp.mpf(delta)) ** n
        q_hi = mp.e ** mp.mpf(eps) / (1 + mp.e ** mp.mpf(eps))
        for _ in range(n):
            new: dict = {}
            for l, w in law.items():
                for step, pr in ((mp.mpf(eps), q_hi), (-mp.mpf(eps), 1 - q_hi)):
                    new[l + step] = new.get(l + step, 0) + w * pr
            law = new
    fin = mp.fsum(w * max(0, 1 - mp.e ** (mp.mpf(e) - l)) for l, w in law.items())
    return float(1 - keep + keep * fin)


def test_tradeoff_and_profile_are_f_eps_delta() -> None:
    m = M.EpsilonDelta(eps=0.7, delta=0.05)
    alpha = np.linspace(0.0, 1.0, 10_001)
    np.testing.assert_allclose(m.tradeoff(alpha), f_eps_delta(0.7, 0.05, alpha))
    # delta(e) = sup_alpha 1 - f(alpha) - e^e alpha (Dong et al. 2019, Prop. 2.4).
    for e in EPS:
        want = np.max(1 - f_eps_delta(0.7, 0.05, alpha) - math.exp(e) * alpha)
        assert m.privacy_profile(e) == pytest.approx(want, abs=1e-4)
    assert m.privacy_profile(0.7) == pytest.approx(0.05, rel=1e-14)


def test_loss_law_has_the_blatant_atoms() -> None:
    m = M.EpsilonDelta(eps=1.0, delta=0.1)
    p, q = m.pdf([0, 1, 2, 3], "P"), m.pdf([0, 1, 2, 3], "Q")
    assert p.sum() == pytest.approx(1) and q.sum() == pytest.approx(1)
    np.testing.assert_array_equal(
        m.log_likelihood_ratio([0, 1, 2, 3]), [-math.inf, -1.0, 1.0, math.inf]
    )
    np.testing.assert_allclose(q[1:3], np.exp([-1.0, 1.0]) * p[1:3])
    inf = math.inf
    assert m.plrv_sf(inf, "Q", inclusive=True) == pytest.approx(0.1)
    assert m.plrv_sf(1.0, "Q") == pytest.approx(0.1)
    assert m.plrv_cdf(-inf, "P") == pytest.approx(0.1)
    assert m.plrv_cdf(-inf, "P", inclusive=False) == 0.0
    l = np.array([-inf, -2.0, -1.0, 0.0, 1.0, 2.0, inf])
    for under in ("P", "Q"):
        total = m.plrv_cdf(l, under) + m.plrv_sf(l, under)
        np.testing.assert_allclose(total, 1.0, rtol=1e-15)
    assert m.plrv_support() == (-inf, inf)
    with pytest.raises(M.BlatantLossError, match="Numerical"):
        m.cumulants(2)
    with pytest.raises(M.BlatantLossError, match="no cumulant generating"):
        m.cgf(0.5)
    # delta = 0 is randomised response.
    pure = M.EpsilonDelta(eps=1.0, delta=0.0)
    np.testing.assert_allclose(pure.cumulants(4), M.PureDP(1.0).cumulants(4))


@pytest.mark.parametrize(
    "parts",
    [
        [(0.5, 1e-6, 10)],
        [(0.1, 1e-4, 60)],
        [(1.0, 1e-3, 3), (0.2, 0.0, 5)],
    ],
    ids=["10x(0.5,1e-6)", "60x(0.1,1e-4)", "mixed"],
)
def test_numerical_bracket_contains_the_closed_form(parts) -> None:
    comp = [
        (M.EpsilonDelta(eps=e, delta=d) if d > 0 else M.PureDP(eps=e), n)
        for e, d, n in parts
    ]
    curve = A.Numerical().compose(comp)
    exact = A.Exact().compose(comp)
    for e in EPS:
        ref = composed_delta(parts, e)
        lo, hi = curve.delta_bounds(e)
        assert lo <= ref * (1 + 1e-12) and ref <= hi * (1 + 1e-12), (e, lo, ref, hi)
        assert exact.delta(e) == pytest.approx(ref, rel=1e-10, abs=1e-15)
    # No epsilon is finite at or below the blatant mass 1 - c.
    keep = math.prod((1 - d) ** n for _, d, n in parts)
    with pytest.raises(ValueError, match="no finite epsilon"):
        curve.epsilon(0.5 * (1 - keep))
    d = 1 - keep + 1e-3
    lo, hi = curve.epsilon_bounds(d)
    assert lo <= float(exact.epsilon(d)) <= hi


def test_tradeoff_of_a_composition() -> None:
    """f of n events is c f_fin(alpha / c): here n = 1 is f_{eps,delta} itself."""
    m = M.EpsilonDelta(eps=0.4, delta=0.02)
    alpha = np.linspace(0.0, 1.0, 201)
    for acc in (A.Numerical(), A.Exact()):
        got = acc.compose(m, 1).tradeoff(alpha)
        np.testing.assert_allclose(got, f_eps_delta(0.4, 0.02, alpha), atol=2e-4)


def test_matches_dp_accounting() -> None:
    dpa = pytest.importorskip("dp_accounting")
    pld = dpa.pld.privacy_loss_distribution.from_privacy_parameters(
        dpa.pld.common.DifferentialPrivacyParameters(0.5, 1e-4),
        value_discretization_interval=1e-4,
    ).self_compose(20)
    curve = A.Numerical().compose(M.EpsilonDelta(eps=0.5, delta=1e-4), 20)
    for e in (0.5, 1.5, 3.0):
        assert float(curve.delta(e)) == pytest.approx(
            pld.get_delta_for_epsilon(e), rel=1e-3, abs=1e-9
        )


def test_smooth_expansions_compose_the_finite_part_and_whole_loss_methods_refuse() -> (
    None
):
    m = M.EpsilonDelta(eps=0.1, delta=1e-5)
    ref = composed_delta([(0.1, 1e-5, 400)], 1.0)
    with warnings.catch_warnings():
        # A lattice loss: the smooth methods report their lattice error floor.
        warnings.simplefilter("ignore", ApproximationWarning)
        for acc in (A.Edgeworth(order=2), A.SaddlePoint()):
            assert float(acc.compose(m, 400).delta(1.0)) == pytest.approx(ref, rel=0.05)
    for acc in (A.CLT(), A.BerryEsseen()):
        with pytest.raises(M.BlatantLossError, match="Numerical"):
            acc.compose(m, 400)
    with pytest.raises(ValueError, match="Numerical"):
        A.RDP().compose(m, 400)
