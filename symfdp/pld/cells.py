r"""Masses of the PLRV in grid cells, from the mechanism's CDFs.

For edges :math:`x_0 < \dots < x_K` the cells are the half-open intervals
:math:`(x_j, x_{j+1}]`, matching the default conventions of the contract
(``plrv_cdf`` inclusive, ``plrv_sf`` exclusive), so that an atom on an edge is
counted exactly once. Each cell mass is a difference of two values of one
non-decreasing function :math:`G`: the CDF in the lower half of the law and one
minus the survival function in the upper half. The error of :math:`G` at an
edge is then a few ulps of the *smaller* tail (STYLE.md, anti-pattern 5), and
only moves mass between its two cells, as the round-off analysis of
:mod:`symfdp.pld.compose` uses.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from symfdp.mechanisms.base import FloatArray, Mechanism


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


def _split(cdf: FloatArray, sf: FloatArray, sizes: Sequence[int]) -> list[CellMasses]:
    """Cell masses of consecutive edge sets of ``sizes`` from their values, in
    one pass over all sets: each cell is the difference of :math:`G` at its
    edges, :math:`G` the CDF below the median and one minus the survival
    function above it, switching inside the first upper cell of a set."""
    bounds = np.concatenate(([0], np.cumsum(sizes, dtype=np.intp)))
    upper = sf[:-1] <= 0.5
    cells = np.where(upper, sf[:-1] - sf[1:], cdf[1:] - cdf[:-1])
    upper_cells = upper.copy()
    upper_cells[bounds[1:-1] - 1] = False  # pairs of edges of two sets: no cells
    hits = np.flatnonzero(upper_cells)
    owner = np.searchsorted(bounds, hits, side="right") - 1
    first = np.ones(hits.size, dtype=bool)
    first[1:] = owner[1:] != owner[:-1]
    switch = hits[first][hits[first] > bounds[owner[first]]]
    cells[switch] = (1.0 - cdf[switch]) - sf[switch + 1]
    cells = np.maximum(cells, 0.0)
    return [
        CellMasses(cells[start : stop - 1], float(cdf[start]), float(sf[stop - 1]))
        for start, stop in itertools.pairwise(bounds.tolist())
    ]


def cell_masses_pq(
    m: Mechanism, edge_sets: Sequence[FloatArray]
) -> tuple[list[CellMasses], list[CellMasses]]:
    """Cell masses of the PLRV of ``m`` under P and under Q, for each of the
    increasing ``edge_sets`` (tail-stable, see the module docstring)."""
    return cell_masses_pq_many([m], [edge_sets])[0]


def cell_masses_pq_many(
    mechanisms: Sequence[Mechanism], edge_sets: Sequence[Sequence[FloatArray]]
) -> list[tuple[list[CellMasses], list[CellMasses]]]:
    """:func:`cell_masses_pq` of every ``(mechanisms[i], edge_sets[i])``, read
    in blocks of about :data:`_READ_BLOCK` edges (:func:`_read_block`)."""
    sizes = [sum(e.size for e in sets) for sets in edge_sets]
    return [
        cells
        for run in consecutive_runs(sizes, _READ_BLOCK)
        for cells in _read_block(mechanisms[run], edge_sets[run])
    ]


def consecutive_runs(sizes: Sequence[int], at_least: int) -> list[slice]:
    """Consecutive runs of items whose ``sizes`` add up to at least
    ``at_least`` each (the last may fall short; a larger item is a run of its
    own)."""
    out = []
    start = 0
    while start < len(sizes):
        stop, total = start, 0
        while stop < len(sizes) and (stop == start or total < at_least):
            total += sizes[stop]
            stop += 1
        out.append(slice(start, stop))
        start = stop
    return out


#: Survival function values probed per mechanism to tell whether most of its
#: edges lie in the upper half of the law.
_PROBES = 16
#: Edges per block of :func:`cell_masses_pq_many`.
_READ_BLOCK = 1 << 16
#: Blocks of fewer edges are read by both functions everywhere.
_SPLIT_MIN = 4096
#: Edges whose CDF is below 1/2 by more than this have a survival function
#: above 1/2 (the two add up to 1, each accurate to far better than this).
_BAND = 1e-9


def _read_block(
    mechanisms: Sequence[Mechanism], edge_sets: Sequence[Sequence[FloatArray]]
) -> list[tuple[list[CellMasses], list[CellMasses]]]:
    """Cell masses of one block from the CDF and survival function values
    that :func:`_split` reads. Fewer than :data:`_SPLIT_MIN` edges: both
    everywhere. Otherwise, per mechanism, the function that covers most
    of its edges (probed at :data:`_PROBES` of them) is read at every edge,
    the other only where it is used: with the survival function first, the
    CDF at each set's first edge and the right edge of every cell below the
    median (the cell where the two meet included); with the CDF first, the
    survival function from :data:`_BAND` below the median up and at each
    set's last edge. A family's members are read together (:func:`pq_rows`);
    P and Q in the same calls."""
    sets = [e for group in edge_sets for e in group]
    flat = np.concatenate(sets)
    per = np.array([sum(e.size for e in group) for group in edge_sets])
    sizes = [e.size for e in sets]
    if flat.size < _SPLIT_MIN:  # both everywhere: the probes would cost more
        cdf = pq_rows(mechanisms, flat, per, sf=False, inclusive=True)
        sf = pq_rows(mechanisms, flat, per, sf=True, inclusive=False)
        return _grouped(
            edge_sets, _split(cdf[0], sf[0], sizes), _split(cdf[1], sf[1], sizes)
        )
    owner = np.repeat(np.arange(per.size), per)
    first_of = np.concatenate(([0], np.cumsum(per)[:-1]))
    # Probes: _PROBES edges evenly through each mechanism's.
    count = np.minimum(per, _PROBES)
    row = np.repeat(np.arange(per.size), count)
    k = np.arange(row.size) - np.repeat(np.cumsum(count) - count, count)
    probe = first_of[row] + k * np.maximum(per // _PROBES, 1)[row]
    probe_p, probe_q = pq_rows(mechanisms, flat[probe], count, sf=True, inclusive=False)
    upper = (probe_p <= 0.5).astype(np.float64) + (probe_q <= 0.5)
    sf_first = np.bincount(row, upper, per.size) >= count
    sfs = sf_first[owner]
    main = pq_rows(mechanisms, flat, per, sf=sf_first, inclusive=~sf_first)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    need = np.zeros(flat.size, dtype=bool)
    need[bounds[:-1]] |= sfs[bounds[:-1]]  # the first edges (mass below)
    need[bounds[1:] - 1] |= ~sfs[bounds[1:] - 1]  # the last edges (mass above)
    inside = np.ones(flat.size - 1, dtype=bool)
    inside[bounds[1:-1] - 1] = False  # pairs of edges of two sets are no cells
    for values in main:
        # The right edges of the cells below the median (the left ones are
        # the right edges of the cells before them or the first edges) ...
        need[1:] |= ~(values[:-1] <= 0.5) & inside & sfs[:-1]
        # ... and, CDF first, the edges from the band up (G is monotone).
        need |= (values >= 0.5 - _BAND) & ~sfs
    at = np.flatnonzero(need)
    extra = pq_rows(
        mechanisms,
        flat[at],
        np.bincount(owner[at], minlength=per.size),
        sf=~sf_first,
        inclusive=sf_first,
    )
    cdf_p, cdf_q, sf_p, sf_q = (np.full(flat.size, np.nan) for _ in range(4))
    later_sf = ~sfs[at]
    for law, cdf, sf in ((0, cdf_p, sf_p), (1, cdf_q, sf_q)):
        sf[sfs] = main[law][sfs]
        cdf[~sfs] = main[law][~sfs]
        sf[at[later_sf]] = extra[law][later_sf]
        cdf[at[~later_sf]] = extra[law][~later_sf]
    return _grouped(edge_sets, _split(cdf_p, sf_p, sizes), _split(cdf_q, sf_q, sizes))


def _grouped(
    edge_sets: Sequence[Sequence[FloatArray]],
    cps: list[CellMasses],
    cqs: list[CellMasses],
) -> list[tuple[list[CellMasses], list[CellMasses]]]:
    """The cell masses of consecutive sets, by mechanism."""
    out, at = [], 0
    for group in edge_sets:
        out.append((cps[at : at + len(group)], cqs[at : at + len(group)]))
        at += len(group)
    return out


def pq_rows(
    mechanisms: Sequence[Mechanism],
    l: FloatArray,
    sizes: NDArray[np.intp],
    *,
    sf: bool | NDArray[np.bool_],
    inclusive: bool | NDArray[np.bool_],
) -> tuple[FloatArray, FloatArray]:
    """``plrv_cdf_pq`` (``sf``: ``plrv_sf_pq``) of ``mechanisms[i]`` at its
    ``sizes[i]`` consecutive entries of ``l`` (``sf`` and ``inclusive`` for
    all or per mechanism). The members of a family with a classmethod
    ``_plrv_pq_many`` (e.g. :class:`~symfdp.mechanisms.SubsampledGaussian`)
    are read in one call, the other mechanisms one by one."""
    n = len(mechanisms)
    if n == 1:
        both = mechanisms[0].plrv_sf_pq if np.all(sf) else mechanisms[0].plrv_cdf_pq
        p, q = both(l, inclusive=bool(np.all(inclusive)))
        return p.reshape(-1), q.reshape(-1)
    sf_of = np.broadcast_to(np.asarray(sf, dtype=bool), (n,))
    inclusive_of = np.broadcast_to(np.asarray(inclusive, dtype=bool), (n,))
    out_p, out_q = np.empty(l.size), np.empty(l.size)
    owner = np.repeat(np.arange(n), sizes)
    done = np.zeros(n, dtype=bool)
    by_type: dict[type, list[int]] = {}
    for i, m in enumerate(mechanisms):
        by_type.setdefault(type(m), []).append(i)
    for kind, members in by_type.items():
        many = getattr(kind, "_plrv_pq_many", None)
        if many is None or len(members) < 2:
            continue
        idx = np.array(members)
        local = np.full(n, -1)
        local[idx] = np.arange(idx.size)
        at = np.flatnonzero(local[owner] >= 0)
        rows = owner[at]
        p, q, served = many(
            [mechanisms[i] for i in members],
            l[at],
            local[rows],
            sf=sf_of[rows],
            inclusive=inclusive_of[rows],
        )
        out_p[at], out_q[at] = p, q
        done[idx[served]] = True
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    for i in np.flatnonzero(~done).tolist():
        m, part = mechanisms[i], slice(bounds[i], bounds[i + 1])
        both = m.plrv_sf_pq if sf_of[i] else m.plrv_cdf_pq
        p, q = both(l[part], inclusive=bool(inclusive_of[i]))
        out_p[part], out_q[part] = p.reshape(-1), q.reshape(-1)
    return out_p, out_q


def has_atom(m: Mechanism, x: float) -> bool:
    """Whether the PLRV of ``m`` has an atom at the finite point ``x``."""
    if not math.isfinite(x) or m.continuous_loss:
        return False
    pt = np.array([x])
    for under in ("P", "Q"):
        incl = float(np.asarray(m.plrv_cdf(pt, under, inclusive=True)).reshape(-1)[0])
        excl = float(np.asarray(m.plrv_cdf(pt, under, inclusive=False)).reshape(-1)[0])
        if incl - excl > 0.0:
            return True
    return False
