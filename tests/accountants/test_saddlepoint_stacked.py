"""SaddlePoint on many distinct subsampled components: the stacked rule matrix
gives the CGF sums and the answers of the per-component rules."""

from __future__ import annotations

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.base import pair_compositions
from symfdp.accountants.saddlepoint import equation
from symfdp.accountants.saddlepoint.equation import SaddleGrid


def _composition() -> list[tuple[M.Mechanism, int]]:
    out: list[tuple[M.Mechanism, int]] = [
        (
            M.SubsampledGaussian(sigma=0.8 + 0.07 * i, p=0.004 * (i % 5 + 1)),
            2000 + 70 * i,
        )
        for i in range(16)
    ]
    out.append((M.Gaussian(mu=0.05), 3))  # a closed-form component alongside
    return out


@pytest.mark.parametrize("direction", [0, 1])
def test_stacked_derivatives_match_per_component_rules(
    monkeypatch: pytest.MonkeyPatch, direction: int
) -> None:
    comps = tuple(pair_compositions(tuple(_composition()))[direction])
    t = np.concatenate(([-1.0, -0.5], np.geomspace(1e-3, 6.0, 25)))
    stacked = SaddleGrid(comps, False).derivatives(t, 5)
    monkeypatch.setattr(equation, "STACK_MIN", 10**9)
    single = SaddleGrid(comps, False).derivatives(t, 5)
    # The sums keep an absolute precision of about n * 1e-16 (n ~ 6e4 here).
    np.testing.assert_allclose(stacked, single, rtol=1e-12, atol=1e-10)


def test_epsilon_matches_per_component_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    comp = _composition()
    stacked = A.SaddlePoint().compose(comp)
    eps = stacked.epsilon(np.array([1e-3, 1e-5, 1e-8]))
    monkeypatch.setattr(equation, "STACK_MIN", 10**9)
    single = A.SaddlePoint().compose(comp)
    np.testing.assert_allclose(
        eps, single.epsilon(np.array([1e-3, 1e-5, 1e-8])), rtol=1e-10
    )


def test_coarse_first_stage_gives_the_same_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 16 components with the coarse first stage forced against the default
    # dense one: the solver finishes each answer to its own tolerance (1e-10).
    comp = _composition()
    eps_grid = np.array([-0.5, 0.0, 0.7, 2.5])
    deltas = np.array([1e-2, 1e-5, 1e-9])
    dense = A.SaddlePoint().compose(comp)
    want = (dense.epsilon(deltas), dense.delta(eps_grid))
    monkeypatch.setattr(equation, "COARSE_FROM", 1)
    coarse = A.SaddlePoint().compose(comp)
    assert coarse.pairs[0]._saddles._first_stage is equation.COARSE_STAGE
    np.testing.assert_allclose(coarse.epsilon(deltas), want[0], rtol=1e-9)
    np.testing.assert_allclose(coarse.delta(eps_grid), want[1], rtol=1e-9)


@pytest.mark.parametrize(("lo", "hi"), [(-0.5, 0.3), (-7.0, 5.0), (2.0, 40.0)])
def test_subsampled_gaussian_rules_in_one_pass_match_the_rule_caches(
    lo: float, hi: float
) -> None:
    """The stacked rules of a subsampled-Gaussian family, built in one pass,
    are those of the per-component rule caches stacked, bit for bit: both
    pairs, steps halved for large mu and for negative tilts, several p."""
    from symfdp.accountants.saddlepoint.rules import (
        fast_cache,
        rule_key,
        rules_many,
        stack_rules,
        stack_subsampled_gaussians,
    )

    comps = [
        (M.SubsampledGaussian(sigma=s, p=q).pairs[k], n)
        for k in (0, 1)
        for s, q, n in [(0.3, 0.2, 4), (0.8, 0.01, 9), (1.7, 1e-4, 1), (4.0, 0.5, 2)]
    ]
    mechs = [m for m, _ in comps]
    counts = np.array([n for _, n in comps], dtype=np.float64)
    keys = np.array([rule_key(m.pair == "remove", lo, hi)[0] for m in mechs])
    fast = stack_subsampled_gaussians(mechs, counts, keys)
    caches = [fast_cache(m) for m in mechs]
    slow = stack_rules(rules_many(caches, lo, hi), counts)  # type: ignore[arg-type]
    assert fast is not None
    for name in ("nodes", "log_w", "counts", "sizes"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))


def test_one_pass_rules_leave_other_families_to_the_caches() -> None:
    from symfdp.accountants.saddlepoint.rules import stack_subsampled_gaussians

    keys = np.array([[0.0, 1.0]])
    laplace = M.SubsampledLaplace(mu=1.0, p=0.1).pairs[0]
    assert stack_subsampled_gaussians([laplace], np.ones(1), keys) is None
