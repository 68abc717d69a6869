r"""Masses of the PLRV in grid cells, from the mechanism's CDFs.

For edges :math:`x_0 < \dots < x_K` the cells are the half-open intervals
:math:`(x_j, x_{j+1}]`, matching the default conventions of the contract
(``plrv_cdf`` inclusive, ``plrv_sf`` exclusive), so that an atom on an edge is
counted exactly once. Each cell mass is a difference of two values of one
non-decreasing function :math:`G`: the CDF in the lower half of the law and one
minus the survival function in the upper half (the cell where they meet uses
both, through the exact ``1 - cdf`` of a value above 1/2). The error of :math:`G`
at an edge is then a few ulps of the *smaller* tail, far-tail cells keep their
relative precision (STYLE.md, anti-pattern 5), and an error at an edge only moves
mass between its two cells (total mass is conserved), which is what the
round-off analysis of :mod:`symfdp.pld.compose` uses.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from symfdp.mechanisms.base import FloatArray, Mechanism, Under


@dataclass(frozen=True)
class CellMasses:
    """Masses of ``(x_j, x_{j+1}]`` and of the two outer half-lines.

    Attributes:
        cells: ``P(x_j < L <= x_{j+1})``, length ``K``.
        below: ``P(L <= x_0)``.
        above: ``P(L > x_K)``.
    """

    cells: FloatArray
    below: float
    above: float


def cell_masses(m: Mechanism, edges: FloatArray, under: Under) -> CellMasses:
    """Cell masses of the PLRV of ``m`` under ``under`` (tail-stable).

    Args:
        m: A single dominating pair.
        edges: Increasing cell edges.
        under: ``"P"`` or ``"Q"``.
    """
    return cell_masses_batch(m, [edges], under)[0]


def cell_masses_batch(
    m: Mechanism, edge_sets: Sequence[FloatArray], under: Under
) -> list[CellMasses]:
    """:func:`cell_masses` for several edge arrays, with one survival function
    and one CDF evaluation of the mechanism in all, each only where it is used.

    The survival function is read at every :data:`_STRIDE`-th edge first; since
    it is non-increasing, the edges left of the last sample above 1/2 need only
    the CDF and those right of the first sample at or below 1/2 only the survival
    function (the first edge always needs the CDF, the last the survival
    function). Values not read are NaN and unused by :func:`_from_values`.
    """
    sizes = [e.size for e in edge_sets]
    flat = np.concatenate(edge_sets)
    need_sf = np.zeros(flat.size, dtype=bool)
    need_cdf = np.zeros(flat.size, dtype=bool)
    starts = np.cumsum([0, *sizes])
    probe = np.concatenate(
        [np.arange(a, b, _STRIDE) for a, b in itertools.pairwise(starts)]
    )
    sf_probe = np.asarray(m.plrv_sf(flat[probe], under), dtype=np.float64).reshape(-1)
    for a, b in itertools.pairwise(starts):
        if b == a:
            continue
        at = (probe >= a) & (probe < b)
        idx, vals = probe[at], sf_probe[at]
        low = idx[vals > 0.5]  # the CDF suffices up to the last of these
        split = int(low[-1]) if low.size else a
        need_cdf[a : min(b, split + _STRIDE + 1)] = True
        need_sf[split:b] = True
        need_cdf[a] = True
        need_sf[b - 1] = True
    sf_all = _read(m.plrv_sf, flat, need_sf, under)
    # Cells left of the split read the CDF (sf > 1/2 there); a survival value
    # above 1/2 right of it (round-off) is served too.
    for a, b in itertools.pairwise(starts):
        lower = ~(sf_all[a : b - 1] <= 0.5)
        extra = np.zeros(b - a, dtype=bool)
        extra[:-1] |= lower
        extra[1:] |= lower
        extra &= ~need_cdf[a:b]
        need_cdf[a:b] |= extra
    cdf_all = _read(m.plrv_cdf, flat, need_cdf, under)
    out = []
    for a, b in itertools.pairwise(starts):
        out.append(_from_values(cdf_all[a:b], sf_all[a:b]))
    return out


#: Stride of the first survival-function reads of :func:`cell_masses_batch`.
_STRIDE = 64


def _read(fn: Any, flat: FloatArray, need: Any, under: Under) -> FloatArray:
    """``fn(flat, under)`` where ``need`` holds, NaN elsewhere."""
    out = np.full(flat.size, np.nan)
    if need.any():
        at = np.flatnonzero(need)
        out[at] = np.asarray(fn(flat[at], under), dtype=np.float64).reshape(-1)
    return out


def _from_values(cdf: FloatArray, sf: FloatArray) -> CellMasses:
    upper = sf[:-1] <= 0.5
    cells = np.where(upper, sf[:-1] - sf[1:], cdf[1:] - cdf[:-1])
    first = int(np.argmax(upper)) if upper.any() else -1
    if first > 0:
        # The switch from G = cdf to G = 1 - sf inside one cell.
        cells[first] = (1.0 - cdf[first]) - sf[first + 1]
    return CellMasses(np.maximum(cells, 0.0), float(cdf[0]), float(sf[-1]))


def has_atom(m: Mechanism, x: float) -> bool:
    """Whether the PLRV of ``m`` has an atom at the finite point ``x``."""
    if not math.isfinite(x):
        return False
    pt = np.array([x])
    for under in ("P", "Q"):
        incl = float(np.asarray(m.plrv_cdf(pt, under, inclusive=True)).reshape(-1)[0])
        excl = float(np.asarray(m.plrv_cdf(pt, under, inclusive=False)).reshape(-1)[0])
        if incl - excl > 0.0:
            return True
    return False
