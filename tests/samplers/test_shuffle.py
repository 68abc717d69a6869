"""The shuffling lower bound against Chua et al.'s formula, computed here.

Chua et al. (ICML 2024, arXiv 2403.17673): for one epoch of T batches with
Gaussian noise sigma, delta(eps) >= sup_C [1 - F_2(C)] - e^eps [1 - F_1(C)],
F_m(C) = Phi((C - m)/sigma) Phi(C/sigma)^(T-1). The sup is found here by a
dense scan refined with a bounded scalar search; two epochs by a 2-d
midpoint sum of the max statistic's densities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from symfdp import mechanisms as M
from symfdp import samplers as S
from tests.samplers._exact import laplace_one_of_two


def _chua_one_epoch(sigma: float, steps: int, eps: float) -> float:
    def gap(c: np.ndarray) -> np.ndarray:
        def out(m: float) -> np.ndarray:
            return -np.expm1(
                stats.norm.logcdf((c - m) / sigma)
                + (steps - 1) * stats.norm.logcdf(c / sigma)
            )

        return np.asarray(out(2.0) - math.exp(eps) * out(1.0))

    grid = np.linspace(-5 * sigma, 2 + 10 * sigma, 3001)
    vals = gap(grid)
    i = int(np.argmax(vals))
    res = optimize.minimize_scalar(
        lambda c: -float(gap(np.array([c]))[0]),
        bounds=(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return max(float(vals[i]), -float(res.fun))


@pytest.mark.parametrize(("sigma", "steps"), [(1.0, 10), (0.7, 3), (2.0, 50)])
def test_one_epoch_matches_chua_formula(sigma: float, steps: int) -> None:
    got = S.account_sampler(
        M.Gaussian(sigma=sigma), S.Shuffle(4, 4 * steps), steps=steps
    )
    eps = np.array([0.25, 1.0, 2.0])
    lo, _ = got.delta_bounds(eps)
    pair_lo, pair_hi = got.curve.curve.delta_bounds(eps)
    ref = np.array([_chua_one_epoch(sigma, steps, e) for e in eps])
    np.testing.assert_array_equal(lo, pair_lo)
    assert np.all(pair_lo <= ref + 1e-12) and np.all(ref <= pair_hi + 1e-12)
    assert np.all(ref - lo <= 2e-3 * ref + 1e-10)  # a tight lower bound


def _max_density(c: np.ndarray, m: float, steps: int) -> np.ndarray:
    """Density of max_t y_t, y ~ N(m e_1, I_T) (unit noise)."""
    phi, big = stats.norm.pdf, stats.norm.cdf
    return np.asarray(
        phi(c - m) * big(c) ** (steps - 1)
        + (steps - 1) * big(c - m) * phi(c) * big(c) ** (steps - 2)
    )


@pytest.mark.slow
def test_two_epochs_against_a_two_dimensional_sum() -> None:
    """Midpoint rule on [-7, 11]^2 with step 0.003: the kink of the positive
    part costs O(h^2) ~ 1e-5; the cut tails less than 1e-10."""
    steps, eps = 4, 1.0
    got = S.account_sampler(M.Gaussian(mu=1.0), S.Shuffle(2, 2 * steps), steps=8)
    lo, hi = got.curve.curve.delta_bounds(np.array([eps]))
    h = 0.003
    c = np.arange(-7.0, 11.0, h) + h / 2
    q, p = _max_density(c, 2.0, steps) * h, _max_density(c, 1.0, steps) * h
    ref = float(np.maximum(np.outer(q, q) - math.exp(eps) * np.outer(p, p), 0).sum())
    assert lo[0] - 2e-5 <= ref <= hi[0] + 2e-5
    assert float(got.delta_bounds(eps)[1]) == 1.0  # nothing above is certified


def test_other_noise_uses_the_allocation_instance() -> None:
    got = S.account_sampler(M.Laplace(mu=1.0), S.Shuffle(3, 6), steps=2)
    assert got.curve.instance == "random-allocation"
    lo, hi = got.delta_bounds(np.array([0.3]))
    ref = max(float(laplace_one_of_two(1.0, 0.3, d)) for d in ("add", "remove"))
    assert lo[0] <= ref + 1e-12
    assert hi[0] == 1.0


def test_shuffle_lower_bound_exceeds_poisson_upper_bound() -> None:
    """Chua et al.'s point: for shuffled batches the Poisson number is wrong."""
    g = M.Gaussian(sigma=0.8)
    sh = S.account_sampler(g, S.Shuffle(10, 100), steps=10)
    po = S.account_sampler(g, S.Poisson(0.1), steps=10)
    assert sh.epsilon_bounds(1e-5)[0] > po.epsilon_bounds(1e-5)[1]
