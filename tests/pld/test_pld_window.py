"""The Chernoff window of :mod:`symfdp.pld.window`: its log moment generating
functions bound the exact ones (mpmath, 40 digits) from above, and the mass
its window leaves outside is within the bound it states (exact convolutions)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from symfdp.pld import window
from symfdp.pld.discretise import DiscretePLD

H = 0.05


def _parts(seed: int) -> list[tuple[DiscretePLD, int]]:
    """Three lattice laws on one step, at different origins and first indices,
    with zero masses inside and at the ends."""
    rng = np.random.default_rng(seed)
    out = []
    for size, origin, k_lo, n in (
        (40, 0.013, -12, 3),
        (25, -0.021, 5, 2),
        (9, 0.0, 0, 4),
    ):
        q = rng.random(size) * np.exp(-rng.uniform(0, 30, size))
        q[rng.random(size) < 0.2] = 0.0
        q[0] = 0.0
        q[1] = max(q[1], 1e-3)
        q /= 1.2 * q.sum()  # sub-probability, as dominated measures are
        out.append((DiscretePLD(H, origin, k_lo, q, 0.0, 0.0, False), n))
    return out


def _exact_log_mgf(parts: list[tuple[DiscretePLD, int]], lam: float) -> mp.mpf:
    with mp.workdps(40):
        total = mp.mpf(0)
        for d, n in parts:
            s = mp.fsum(
                mp.mpf(float(d.q[j])) * mp.exp(lam * mp.mpf(float(d.points[j])))
                for j in np.flatnonzero(d.q)
            )
            total += n * mp.log(s)
        return total


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [-40.0, -3.0, -0.2, 0.2, 3.0, 40.0])
def test_part_log_mgf_bounds_the_exact_sum_from_above(seed: int, lam: float) -> None:
    parts = _parts(seed)
    bound = window._part_log_mgf(window._Parts.of(parts), lam)
    exact = _exact_log_mgf(parts, lam)
    assert bound >= exact
    assert bound - exact <= 1e-11 * (1 + abs(float(exact)))


def _composed(parts: list[tuple[DiscretePLD, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Points and masses of the composition (exact up to round-off)."""
    q = np.ones(1)
    first = 0.0
    for d, n in parts:
        for _ in range(n):
            q = np.convolve(q, d.q)
            first += d.points[0]
    return first + H * np.arange(q.size), q


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scale", [None, 0.3, 3.0])
@pytest.mark.parametrize("tail", [1e-3, 1e-9])
def test_window_leaves_outside_at_most_the_mass_it_states(
    seed: int, scale: float | None, tail: float
) -> None:
    """Whatever the scale of the search, each side holds at most ``tail``."""
    parts = _parts(seed)
    w = window.chernoff_window([parts], tail, scale)
    points, q = _composed(parts)
    eps = 1e-9 * H
    below = float(q[points < w.lo - eps].sum())
    above = float(q[points > w.hi + eps].sum())
    assert below <= tail * (1 + 1e-9) and above <= tail * (1 + 1e-9)
    assert below + above <= w.outside * (1 + 1e-9) + 1e-300
    # The window is a proper part of the trivial range, and holds the rest.
    assert w.lo > points[0] or w.hi < points[-1]
    assert math.isclose(
        float(q.sum()),
        below + above + float(q[(points >= w.lo - eps) & (points <= w.hi + eps)].sum()),
        rel_tol=1e-12,
    )
