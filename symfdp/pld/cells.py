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
from typing import cast

import numpy as np
from numpy.typing import NDArray

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
    """:func:`cell_masses` for several edge arrays, with one evaluation of the
    mechanism's survival function and one of its CDF in all, each only at the
    edges where it is read (:func:`_values`)."""
    sizes = [e.size for e in edge_sets]
    flat = np.concatenate(edge_sets)
    return _split(*_values(m, flat, sizes, under), sizes)


def _split(cdf: FloatArray, sf: FloatArray, sizes: Sequence[int]) -> list[CellMasses]:
    """Cell masses of consecutive edge sets of ``sizes`` from their values, in
    one pass over all sets: each cell is the difference of :math:`G` at its
    edges, :math:`G` the CDF below the median and one minus the survival
    function above it, switching inside the first upper cell of a set."""
    bounds = np.concatenate(([0], np.cumsum(sizes, dtype=np.intp)))
    upper = sf[:-1] <= 0.5
    cells = np.where(upper, sf[:-1] - sf[1:], cdf[1:] - cdf[:-1])
    starts = upper.copy()
    starts[bounds[1:-1] - 1] = False  # pairs of edges of two sets are no cells
    hits = np.flatnonzero(starts)
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
    """:func:`cell_masses_batch` under P and under Q. Fewer than
    :data:`_SPLIT_MIN` edges in all are read by one call of each of
    :meth:`~symfdp.mechanisms.Mechanism.plrv_cdf_pq` and ``plrv_sf_pq`` (the
    mechanism may share work between P and Q); more, under each law apart,
    each function only where it is read."""
    sizes = [e.size for e in edge_sets]
    flat = np.concatenate(edge_sets)
    if flat.size >= _SPLIT_MIN:
        return cell_masses_batch(m, edge_sets, "P"), cell_masses_batch(
            m, edge_sets, "Q"
        )
    (cdf_p, cdf_q), (sf_p, sf_q) = m.plrv_cdf_pq(flat), m.plrv_sf_pq(flat)
    return (
        _split(cdf_p.reshape(-1), sf_p.reshape(-1), sizes),
        _split(cdf_q.reshape(-1), sf_q.reshape(-1), sizes),
    )


def cell_masses_pq_many(
    mechanisms: Sequence[Mechanism], edge_sets: Sequence[Sequence[FloatArray]]
) -> list[tuple[list[CellMasses], list[CellMasses]]]:
    """:func:`cell_masses_pq` of every ``(mechanisms[i], edge_sets[i])``. A
    mechanism with :data:`_SPLIT_MIN` edges or more is read alone; the others
    in blocks of about :data:`_READ_BLOCK` edges (:func:`pq_rows`: a family's
    members together), with the same values as one by one."""
    out: list[tuple[list[CellMasses], list[CellMasses]] | None] = []
    small: list[int] = []
    for i, (m, sets) in enumerate(zip(mechanisms, edge_sets, strict=True)):
        if sum(e.size for e in sets) >= _SPLIT_MIN:
            out.append(cell_masses_pq(m, sets))
        else:
            out.append(None)
            small.append(i)
    start = 0
    while start < len(small):
        stop, edges = start, 0
        while stop < len(small) and (stop == start or edges < _READ_BLOCK):
            edges += sum(e.size for e in edge_sets[small[stop]])
            stop += 1
        block = small[start:stop]
        sets = [e for i in block for e in edge_sets[i]]
        flat = np.concatenate(sets)
        ms = [mechanisms[i] for i in block]
        per = np.array([sum(e.size for e in edge_sets[i]) for i in block])
        cdf_p, cdf_q = pq_rows(ms, flat, per, sf=False, inclusive=True)
        sf_p, sf_q = pq_rows(ms, flat, per, sf=True, inclusive=False)
        sizes = [e.size for e in sets]
        cps, cqs = _split(cdf_p, sf_p, sizes), _split(cdf_q, sf_q, sizes)
        at = 0
        for i in block:
            k = len(edge_sets[i])
            out[i] = (cps[at : at + k], cqs[at : at + k])
            at += k
        start = stop
    return cast(list[tuple[list[CellMasses], list[CellMasses]]], out)


def pq_rows(
    mechanisms: Sequence[Mechanism],
    l: FloatArray,
    sizes: NDArray[np.intp],
    *,
    sf: bool,
    inclusive: bool,
) -> tuple[FloatArray, FloatArray]:
    """``plrv_cdf_pq`` (``sf``: ``plrv_sf_pq``) of ``mechanisms[i]`` at its
    ``sizes[i]`` consecutive entries of ``l``. The members of a family with a
    classmethod ``_plrv_pq_many`` (e.g.
    :class:`~symfdp.mechanisms.SubsampledGaussian`) are read in one call,
    the other mechanisms one by one."""
    out_p, out_q = np.empty(l.size), np.empty(l.size)
    owner = np.repeat(np.arange(len(mechanisms)), sizes)
    done = np.zeros(len(mechanisms), dtype=bool)
    by_type: dict[type, list[int]] = {}
    for i, m in enumerate(mechanisms):
        by_type.setdefault(type(m), []).append(i)
    for kind, members in by_type.items():
        many = getattr(kind, "_plrv_pq_many", None)
        if many is None or len(members) < 2:
            continue
        idx = np.array(members)
        local = np.full(len(mechanisms), -1)
        local[idx] = np.arange(idx.size)
        at = np.flatnonzero(local[owner] >= 0)
        p, q, served = many(
            [mechanisms[i] for i in members],
            l[at],
            local[owner[at]],
            sf=sf,
            inclusive=inclusive,
        )
        out_p[at], out_q[at] = p, q
        done[idx[served]] = True
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    for i in np.flatnonzero(~done).tolist():
        m, part = mechanisms[i], slice(bounds[i], bounds[i + 1])
        both = m.plrv_sf_pq if sf else m.plrv_cdf_pq
        p, q = both(l[part], inclusive=inclusive)
        out_p[part], out_q[part] = p.reshape(-1), q.reshape(-1)
    return out_p, out_q


#: Every this many edges one survival function value is probed, to tell
#: whether most cells lie in the upper half of the law.
_PROBE = 64
#: Fewer edges than this are evaluated by both functions.
_SPLIT_MIN = 4096
#: Edges per block of :func:`cell_masses_pq_many`.
_READ_BLOCK = 1 << 16
#: Edges whose CDF is below 1/2 by more than this have a survival function
#: above 1/2 (the two add up to 1, each accurate to far better than this).
_BAND = 1e-9


def _values(
    m: Mechanism, flat: FloatArray, sizes: Sequence[int], under: Under
) -> tuple[FloatArray, FloatArray]:
    """CDF and survival function values at the edges :func:`_from_values` reads
    (NaN elsewhere). The function that covers most edges (probed every
    ``_PROBE`` edges) is evaluated everywhere; the other only where it is read.
    """
    if flat.size < _SPLIT_MIN:  # both everywhere: the probe would cost more
        cdf = np.asarray(m.plrv_cdf(flat, under), dtype=np.float64).reshape(-1)
        return cdf, np.asarray(m.plrv_sf(flat, under), dtype=np.float64).reshape(-1)
    probe = np.asarray(m.plrv_sf(flat[::_PROBE], under), dtype=np.float64)
    bounds = np.cumsum([0, *sizes])
    if np.mean(probe.reshape(-1) <= 0.5) >= 0.5:
        sf = np.asarray(m.plrv_sf(flat, under), dtype=np.float64).reshape(-1)
        need = np.zeros(flat.size, dtype=bool)
        for start, stop in itertools.pairwise(bounds):
            lower = ~(sf[start : stop - 1] <= 0.5)
            need[start : stop - 1] |= lower
            need[start + 1 : stop] |= lower
            need[start] = True
            if not lower.all():
                need[start + int(np.argmin(lower))] = True  # the switching cell
        cdf = np.full(flat.size, np.nan)
        if need.any():
            part = m.plrv_cdf(flat[need], under)
            cdf[need] = np.asarray(part, dtype=np.float64).reshape(-1)
        return cdf, sf
    cdf = np.asarray(m.plrv_cdf(flat, under), dtype=np.float64).reshape(-1)
    band = cdf >= 0.5 - _BAND
    need = band.copy()
    need[1:] |= band[:-1]
    need[2:] |= band[:-2]
    need[bounds[1:] - 1] = True  # the last edge of each set
    sf = np.full(flat.size, np.nan)
    if need.any():
        part = m.plrv_sf(flat[need], under)
        sf[need] = np.asarray(part, dtype=np.float64).reshape(-1)
    return cdf, sf


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
