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
from symfdp.accountants.saddlepoint.rules import StackedRule


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
        RuleCache,
        has_rules,
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
    assert all(has_rules(m) for m in mechs)
    slow = stack_rules(rules_many([RuleCache(m) for m in mechs], lo, hi), counts)
    assert fast is not None
    for name in ("nodes", "log_w", "counts", "sizes"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))


def test_one_pass_rules_leave_other_families_to_the_caches() -> None:
    from symfdp.accountants.saddlepoint.rules import stack_subsampled_gaussians

    keys = np.array([[0.0, 1.0]])
    laplace = M.SubsampledLaplace(mu=1.0, p=0.1).pairs[0]
    assert stack_subsampled_gaussians([laplace], np.ones(1), keys) is None


def _random_rule(seed: int) -> tuple[StackedRule, list[int]]:
    """Rows of 3..40 nodes, padded as stacked rules are (node 0, weight -inf):
    smooth rows, rows with every node negative (the padding then lies above
    them), a two-atom row whose tilted mean crosses many standard deviations
    at t = 1 and a row whose largest weight lies e^-600 below the bound at
    t = 2.5 (both are declined); and the rows where these two end up."""
    rng = np.random.default_rng(seed)
    rows: list[tuple[np.ndarray, np.ndarray]] = []
    for k in range(24):
        size = int(rng.integers(3, 41))
        nodes = np.sort(rng.normal(0.0, 0.3 + k / 10, size))
        if k % 4 == 1:
            nodes -= nodes.max() + 0.5
        rows.append((nodes, rng.normal(0.0, 2.0, size) - 0.5 * nodes**2))
    rows.append((np.array([-3.0, 3.0]), np.array([0.0, -6.0])))
    rows.append((np.array([-400.0, 0.0, 400.0]), np.array([-600.0, 0.0, -600.0])))
    sizes = np.array([r[0].size for r in rows])
    order = np.argsort(sizes, kind="stable")
    width = int(sizes.max())
    nodes = np.zeros((len(rows), width))
    log_w = np.full((len(rows), width), -np.inf)
    for row, i in enumerate(order):
        nodes[row, : sizes[i]], log_w[row, : sizes[i]] = rows[i]
    counts = rng.integers(1, 1000, len(rows)).astype(float)
    last = (len(rows) - 2, len(rows) - 1)
    special = [int(np.flatnonzero(order == i)[0]) for i in last]
    return StackedRule(nodes, log_w, counts, sizes[order]), special


def _exact_derivatives(rule: StackedRule, t: np.ndarray, order: int) -> np.ndarray:
    """sum_c n_c K_c^(r)(t) at 40 digits: log-sum-exp, mean, central moments
    and the moment-cumulant recursion, term by term."""
    import math

    import mpmath

    mpmath.mp.dps = 40
    out = np.zeros((order + 1, t.size))
    for c in range(rule.nodes.shape[0]):
        size = int(rule.sizes[c])
        l = [mpmath.mpf(float(x)) for x in rule.nodes[c, :size]]
        lw = [mpmath.mpf(float(x)) for x in rule.log_w[c, :size]]
        for j, tau in enumerate(t):
            w = [
                mpmath.exp(a + mpmath.mpf(float(tau)) * x)
                for a, x in zip(lw, l, strict=True)
            ]
            total = mpmath.fsum(w)
            mean = mpmath.fsum(wi * x for wi, x in zip(w, l, strict=True)) / total
            mu = [
                mpmath.fsum(wi * (x - mean) ** r for wi, x in zip(w, l, strict=True))
                / total
                for r in range(order + 1)
            ]
            kappa = [mpmath.mpf(0)] * (order + 1)
            for r in range(2, order + 1):
                kappa[r] = mu[r] - mpmath.fsum(
                    math.comb(r - 1, k - 1) * kappa[k] * mu[r - k]
                    for k in range(2, r - 1)
                )
            row = [mpmath.log(total), mean, *kappa[2:]]
            out[:, j] += float(rule.counts[c]) * np.array([float(v) for v in row])
    return out


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("order", [3, 6])
def test_moments_about_one_point_match_the_exact_sums(seed: int, order: int) -> None:
    """The one-point (shifted) sums, with the rows they decline summed about
    their means, against 40-digit sums: tilts of both signs, unsorted."""
    from symfdp.accountants.saddlepoint import rules

    rule, special = _random_rule(seed)
    t = np.array([0.7, -1.0, 1e-3, 2.5, -0.5, 0.05, -2.0])
    got = rules.stacked_derivatives(rule, t, order)
    want = _exact_derivatives(rule, t, order)
    # Per order r, a few ulps of the sum of |n_c K_c^(r)|-sized terms: the
    # central sums' scale sigma^r (times (1 + SHIFT_SD)^r at most).
    scale = np.abs(want).max(axis=1, keepdims=True) + rule.counts.sum() * 1e-3
    assert np.all(np.abs(got - want) <= 1e-12 * scale)
    _, declined = rules._shifted_derivatives(rule, t, order)
    assert set(special) <= set(declined.tolist())
    assert declined.size < rule.nodes.shape[0] // 2


def test_few_tilts_are_summed_about_the_means() -> None:
    from symfdp.accountants.saddlepoint import rules

    rule, _ = _random_rule(2)
    t = np.array([0.3, 1.5])
    assert t.size < rules.SHIFTED_MIN_TILTS
    np.testing.assert_array_equal(
        rules.stacked_derivatives(rule, t, 3), rules._central_derivatives(rule, t, 3)
    )
