r"""The shape of the Edgeworth pair's profile: the tail formula, the check
whether it is non-increasing, and the tabulated majorant where it is not
(module docstring of :mod:`symfdp.accountants.edgeworth`, item 4).

The raw profile is evaluated on a check grid (every 1/8 standard deviation of
either law from -8 to +40 around its mean, :math:`\varepsilon \ge 0`); where it
rises nowhere there it is its own non-increasing majorant. Otherwise its local
maxima are located on a finer table (``_TABLE_POINTS`` per law over
``_TABLE_SPAN`` standard deviations, the valid intervals' ends as nodes) from the
sign changes of the closed-form slope, refined by regula falsi; a wiggle narrower
than the grid could be missed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import NDArray

from symfdp.accountants.edgeworth.law import EdgeworthLaw
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.roots import regula_falsi

#: Half-width, in standard deviations, and points per side of the profile table.
_TABLE_SPAN: Final = 40.0
_TABLE_POINTS: Final = 1201
_ROOT_RTOL: Final = 1e-9
#: Profile values below this are round-off in the far tails, never refined.
NEGLIGIBLE_DELTA: Final = 1e-250
#: Relative size of a positive slope of the raw profile that counts as a rise.
SLOPE_RTOL: Final = 1e-9
#: The monotonicity check's grid: every 1/8 standard deviation of either law from
#: -8 to +40 standard deviations around its mean (eps >= 0 only).
_CHECK_STEPS: Final = np.arange(-64, 321) / 8.0


@dataclass(frozen=True)
class ProfileTable:
    """Local maxima of the raw profile and the repaired profile on a grid."""

    peaks: FloatArray  # sorted locations of local maxima (and grid points)
    suffix_max: FloatArray  # max of the raw profile at peaks[k:], length + 1
    grid: FloatArray  # increasing eps >= 0 for the inverse (starts at 0)
    grid_delta: FloatArray  # repaired profile on ``grid`` (non-increasing)


@dataclass(frozen=True)
class MonotoneCheck:
    """The raw profile on the check grid (see :func:`monotone_check`)."""

    grid: FloatArray  # increasing eps >= 0, starting at 0
    raw: FloatArray  # the raw profile there, clipped at 0
    rises: bool  # it rises somewhere on the grid (where it is positive)
    neg_raw: FloatArray  # -raw (increasing: searchsorted's order)
    slope: FloatArray  # the raw profile's slope there (the start of the inverse)


def tail_formula(
    sf_q: FloatArray, weighted_sf_p: FloatArray
) -> tuple[FloatArray, FloatArray]:
    r"""Tail formula :math:`\tilde S_Q - e^{\varepsilon}\tilde S_P` and the
    larger of its two terms (for tolerances)."""
    return sf_q - weighted_sf_p, np.maximum(sf_q, weighted_sf_p)


def monotone_check(
    law_p: EdgeworthLaw,
    law_q: EdgeworthLaw,
    profile_and_rise: Callable[
        [FloatArray], tuple[FloatArray, FloatArray, NDArray[np.bool_], FloatArray]
    ],
) -> MonotoneCheck:
    """The raw profile on the check grid and whether it rises there
    (``profile_and_rise``: the pair's tail formula, its scale, where it rises and
    its slope at given eps)."""
    p, q = law_p, law_q
    nodes = [law.mean + law.sd * _CHECK_STEPS for law in (p, q)]
    ends = np.array([law.mean + law.sd * np.array(law.interval) for law in (p, q)])
    grid = np.concatenate((*nodes, ends[np.isfinite(ends)], [0.0]))
    grid = grid[grid >= 0.0]
    grid.sort()
    grid = grid[np.concatenate(([True], grid[1:] != grid[:-1]))]  # np.unique
    raw, _, rising, slope = profile_and_rise(grid)
    clipped = np.maximum(raw, 0.0)
    return MonotoneCheck(grid, clipped, bool(rising.any()), -clipped, slope)


def profile_table(
    law_p: EdgeworthLaw,
    law_q: EdgeworthLaw,
    terms: Callable[
        [FloatArray], tuple[FloatArray, FloatArray, FloatArray, FloatArray]
    ],
    slope_value: Callable[[FloatArray], FloatArray],
    raw_delta: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
) -> ProfileTable:
    """The local maxima of the raw profile on a grid of ``_TABLE_POINTS`` per
    side over ``_TABLE_SPAN`` standard deviations of either law (the valid
    intervals' ends as nodes), refined by regula falsi on the closed-form slope
    (``slope_value``), and the smallest non-increasing majorant on them
    (``terms``: the pair's survival functions and densities; ``raw_delta``: its
    tail formula)."""
    p, q = law_p, law_q
    z = np.linspace(-_TABLE_SPAN, _TABLE_SPAN, _TABLE_POINTS)
    # The ends of the valid intervals are kinks of the profile (the density
    # of a law jumps there): local maxima can sit on them, so they are nodes.
    ends = np.array([law.mean + law.sd * np.array(law.interval) for law in (p, q)])
    ends = ends[np.isfinite(ends)]
    grid = np.unique(np.concatenate((p.mean + p.sd * z, q.mean + q.sd * z, ends)))
    sf_q, sf_p, dens_q, dens_p = terms(grid)
    grid_raw, _ = tail_formula(sf_q, sf_p)
    sign = np.sign(dens_p - sf_p - dens_q)
    # Interior maxima (slope + to -); cells below half the largest value to
    # their right, or non-positive, cannot change the majorant: not refined.
    ends = np.maximum(grid_raw[:-1], grid_raw[1:])
    right = np.concatenate((np.maximum.accumulate(grid_raw[::-1])[::-1][2:], [0.0]))
    turn = np.flatnonzero(
        (sign[:-1] > 0)
        & (sign[1:] <= 0)
        & (ends > NEGLIGIBLE_DELTA)
        & (ends > 0.5 * right)
    )
    peaks, raw = grid, grid_raw
    # The raw profile at eps = 0 (first node of the inverse's grid) and at the
    # refined maxima, in one evaluation.
    if turn.size:
        tops = regula_falsi(slope_value, grid[turn], grid[turn + 1], xrtol=_ROOT_RTOL)
        extra_raw, _ = raw_delta(np.concatenate((tops, [0.0])))
        top_raw, zero_raw = extra_raw[:-1], extra_raw[-1:]
        peaks = np.concatenate((grid, tops))
        order = np.argsort(peaks, kind="stable")
        peaks, raw = peaks[order], np.concatenate((grid_raw, top_raw))[order]
    suffix = np.maximum.accumulate(np.maximum(raw, 0.0)[::-1])[::-1]
    suffix = np.concatenate((suffix, [0.0]))
    positive = peaks > 0.0
    if not turn.size:
        zero_raw, _ = raw_delta(np.zeros(1))
    inv_grid = np.concatenate(([0.0], peaks[positive]))
    inv_raw = np.concatenate((zero_raw, raw[positive]))
    after = suffix[np.searchsorted(peaks, inv_grid, side="right")]
    grid_delta = np.clip(np.maximum(inv_raw, after), 0.0, 1.0)
    return ProfileTable(peaks, suffix, inv_grid, grid_delta)
