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

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    evaluation of the mechanism in all, and one CDF evaluation at the edges
    where it is used (the first edge and the ends of the cells in the lower
    half of the law; the others are left NaN)."""
    sizes = [e.size for e in edge_sets]
    flat = np.concatenate(edge_sets)
    sf_all = np.asarray(m.plrv_sf(flat, under), dtype=np.float64).reshape(-1)
    need = np.zeros(flat.size, dtype=bool)
    start = 0
    for size in sizes:
        stop = start + size
        lower = ~(sf_all[start : stop - 1] <= 0.5)  # cells read from the CDF
        need[start] = True
        need[start : stop - 1] |= lower
        need[start + 1 : stop] |= lower
        start = stop
    cdf_all = np.full(flat.size, np.nan)
    if need.any():
        at = np.flatnonzero(need)
        vals = np.asarray(m.plrv_cdf(flat[at], under), dtype=np.float64)
        cdf_all[at] = vals.reshape(-1)
    out = []
    start = 0
    for size in sizes:
        stop = start + size
        out.append(_from_values(cdf_all[start:stop], sf_all[start:stop]))
        start = stop
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
