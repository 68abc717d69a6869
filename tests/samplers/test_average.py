"""Laws of the average of likelihood ratios: conservation and convex order."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from symfdp import mechanisms as M
from symfdp.pld.grid import component_grid
from symfdp.samplers.average import (
    MergedLaw,
    SpreadLaw,
    averages,
    base_laws,
    combine_merged,
    combine_spread,
    step_for,
)
from tests.samplers import _exact

C = np.exp(np.array([-1.0, 0.0, 0.3, 1.0, 2.0]))


def _laws(
    mu: float, t: int, h: float, budget: float = 1e-17
) -> tuple[SpreadLaw, MergedLaw]:
    m = M.Gaussian(mu=mu)
    grid = component_grid(m, h, 1e-16)
    spread, merged = base_laws(m, h, grid.l_lo, grid.l_hi)
    var_v = float(np.expm1(mu * mu))

    def step(n: int) -> float:
        return step_for(n, h, var_v, 0.1)

    s = averages(spread, (t,), combine_spread, budget, budget, step)[t]
    g = averages(merged, (t,), combine_merged, budget, budget, step)[t]
    return s, g


def _sticks_spread(law: SpreadLaw) -> tuple[np.ndarray, np.ndarray]:
    x = law.values
    rem = np.sum(law.p[:, None] * np.maximum(x[:, None] - C, 0.0), axis=0)
    add = np.sum(law.p[:, None] * np.maximum(1.0 - C * x[:, None], 0.0), axis=0)
    return rem + law.q_inf + law.err_q, add + law.p_zero + law.err_p


def _sticks_merged(law: MergedLaw) -> tuple[np.ndarray, np.ndarray]:
    rem = np.sum(np.maximum(law.q[:, None] - C * law.p[:, None], 0.0), axis=0)
    add = np.sum(np.maximum(law.p[:, None] - C * law.q[:, None], 0.0), axis=0)
    return rem - law.err_q, add - law.err_p


@given(
    mu=st.floats(0.3, 3.0),
    t=st.integers(1, 40),
    h=st.sampled_from([0.05, 0.03]),
    budget=st.sampled_from([1e-17, 1e-6]),
)
def test_masses_and_means_are_kept(mu: float, t: int, h: float, budget: float) -> None:
    # Trimming (large budget) moves mass by splits and merges only.
    spread, merged = _laws(mu, t, h, budget)
    # Spread: P-mass 1 (points and the atom at 0), mean plus Q at infinity 1.
    assert abs(spread.p.sum() + spread.p_zero - 1.0) <= spread.err_p + 1e-15
    mean = float(np.sum(spread.p * spread.values)) + spread.q_inf
    assert abs(mean - 1.0) <= spread.err_q + 1e-15
    # Merged: P-mass and Q-mass 1 (nothing dropped).
    assert abs(merged.p.sum() - 1.0) <= merged.err_p + 1e-15
    assert abs(merged.q.sum() - 1.0) <= merged.err_q + 1e-15


@given(
    mu=st.floats(0.3, 3.0),
    t=st.integers(1, 40),
    h=st.sampled_from([0.05, 0.03]),
    budget=st.sampled_from([1e-17, 1e-6]),
)
def test_merged_below_spread_in_both_directions(
    mu: float, t: int, h: float, budget: float
) -> None:
    spread, merged = _laws(mu, t, h, budget)
    up_rem, up_add = _sticks_spread(spread)
    lo_rem, lo_add = _sticks_merged(merged)
    assert np.all(lo_rem <= up_rem) and np.all(lo_add <= up_add)


def test_one_step_brackets_the_mechanism() -> None:
    mu = 1.3
    spread, merged = _laws(mu, 1, 0.02)
    exact = M.Gaussian(mu=mu).privacy_profile(np.log(C))
    up_rem, up_add = _sticks_spread(spread)
    lo_rem, lo_add = _sticks_merged(merged)
    assert np.all(lo_rem <= exact) and np.all(exact <= up_rem)
    assert np.all(lo_add <= exact) and np.all(exact <= up_add)


def test_refined_laws_are_the_same_laws() -> None:
    spread, merged = _laws(1.0, 8, 0.02)
    fine = spread.refined(0.005)
    np.testing.assert_allclose(_sticks_spread(fine), _sticks_spread(spread), rtol=1e-13)
    # Re-binning keeps every atom: the same hockey sticks.
    fine_m = merged.refined(0.005)
    np.testing.assert_allclose(
        _sticks_merged(fine_m), _sticks_merged(merged), rtol=1e-13
    )


def test_trimmed_laws_still_bracket_one_of_two() -> None:
    # A large trimming budget: every cut is a split (spread) or a merge, so the
    # hockey sticks still bracket the exact values (30-digit quadrature).
    mu = 1.0
    spread, merged = _laws(mu, 2, 0.02, budget=1e-4)
    up_rem, up_add = _sticks_spread(spread)
    lo_rem, lo_add = _sticks_merged(merged)
    eps = np.log(C)
    rem = np.array([float(_exact.gaussian_one_of_two(mu, e, "remove")) for e in eps])
    add = np.array([float(_exact.gaussian_one_of_two(mu, e, "add")) for e in eps])
    assert np.all(lo_rem <= rem) and np.all(rem <= up_rem)
    assert np.all(lo_add <= add) and np.all(add <= up_add)
