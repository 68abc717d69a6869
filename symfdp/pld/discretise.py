r"""Dominating and dominated discretisations of one privacy-loss distribution.

Write :math:`V = e^{L}` for the likelihood ratio and :math:`\psi(t) = E_P[(V -
t)_+]`. For :math:`t = e^{\varepsilon}` this *is* the privacy profile,
:math:`\delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+] = \psi(e^\varepsilon)`
(Zheng et al. 2020, Lemma 5.1), for every real :math:`\varepsilon`.

**Why convex order certifies.** If a measure :math:`\nu` on :math:`[0, \infty)`
satisfies :math:`\psi_\nu \ge \psi` on :math:`[0, \infty)`, then
:math:`E_\nu[\varphi] \ge E_P[\varphi(V)]` for every convex non-decreasing
:math:`\varphi` with :math:`\varphi(0) = 0`, because such a :math:`\varphi` is
:math:`\varphi'(0^+) v + \int (v - t)_+ \, d\varphi'(t)`. The hockey stick of a
composition, :math:`E[(\prod_i V_i - t)_+]`, is of this form in each factor when
the others are held fixed, so replacing the factors one at a time (Fubini,
independence) gives

.. math::  \psi_{\nu_i} \ge \psi_i \;\forall i \implies
           \delta_{\otimes \nu}(\varepsilon) \ge \delta_{\otimes}(\varepsilon)
           \quad \forall \varepsilon \in \mathbb{R},

and the reverse inequalities give a lower bound. The total masses of the
:math:`\nu_i` are irrelevant (only :math:`t \ge 0` enters), so mass may be
dropped from a dominated measure and moved to :math:`+\infty` in a dominating one.
Everything is stored as *Q-masses* :math:`e^{l} \nu(\{e^l\})` on the lattice
:math:`l \in \{o + k h\}`, because tilting by :math:`e^{l}` commutes with
convolution: the FFT of Q-masses composes the Q-law directly.

**Dominating measure: connect the dots** (Doroshenko et al. 2022). Each point of
a cell :math:`(l_k, l_{k+1}]` is split between the two end points
:math:`\gamma_k = e^{l_k}`, :math:`\gamma_{k+1}` with the weights that keep its
value of :math:`V` as the mean: a mean-preserving spread, so :math:`\psi_Z \ge
\psi` (Jensen), with equality at every lattice point. With the cell masses
:math:`P_k, Q_k`, the excess :math:`r_k = Q_k - \gamma_k P_k` and the deficit
:math:`s_k = \gamma_{k+1} P_k - Q_k`, the cell puts Q-mass
:math:`s_k/(e^h - 1)` on :math:`l_k` and :math:`r_k/(1 - e^{-h})` on
:math:`l_{k+1}`. Q-mass below the lattice is moved up to its first point (an
increase of :math:`L`), Q-mass above it goes to :math:`+\infty`.

**Dominated measure: barycentric rounding.** The dual cells
:math:`B_k = (l_k - h/2, l_k + h/2]` are first collapsed to their conditional
means :math:`\bar v_k = Q(B_k)/P(B_k)` (Jensen again, now a contraction). Each
collapsed atom is then sent to lattice points so that the P-mass arriving at every
point :math:`\gamma_k` has its barycentre at :math:`\ge \gamma_k`: with the *pull*
:math:`e_k = Q(B_k) - \gamma_k P(B_k) = P(B_k)(\bar v_k - \gamma_k)`,

* a deficit (:math:`e_k < 0`) borrows :math:`x_k = -e_k / (\bar v_{k+1} - \gamma_k)`
  of P-mass from the next atom down to :math:`\gamma_k` (as much of it as that
  atom has; if it is not enough, the unbalanced share of atom :math:`k` goes down
  to :math:`\gamma_{k-1}`, where it only adds pull);
* an excess (:math:`e_k > 0`) lends itself to lift up to
  :math:`e_k / (\gamma_k - \bar v_{k-1})` of P-mass of the previous atom to
  :math:`\gamma_k`, scaled down by the share of atom :math:`k` that stays.

Then :math:`Y \le E[\bar V \mid Y]`, so :math:`Y` is below :math:`\bar V` (hence
below :math:`V`) in the increasing convex order: :math:`\psi_Y \le \psi`. Each
atom balances only the share it keeps after its own loans, so the loans solve a
chain :math:`x_k = r_k (p_k - x_{k-1})`; fixed-point passes approach it and a
last pass sizes every share from the loans actually used, so the measure is
dominated whatever the number of passes (the Q-mass lost is second order, where
the law turns). A lowest (highest) dual cell whose barycentre lies above
(below) its point is merged with its neighbours into the nearest lattice point
where it balances, unless it holds an atom on the lattice (then given a cell of
its own); at a finite support end without an atom the lattice is shifted so that
the merged end cell is balanced
(:func:`symfdp.pld.grid.barycentric_origins`). Q-mass outside the dual cells is
dropped. Pulls within :data:`PULL_RTOL` of zero (atoms on their points, up to
round-off) count as balanced; :mod:`symfdp.pld.compose` accounts for that.

Both measures are built from the same batch of CDF values
(:func:`discretise`); each may sit on its own lattice origin.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np
from numpy.typing import NDArray

from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.pld.cells import CellMasses, cell_masses_pq_many, consecutive_runs
from symfdp.pld.grid import ComponentGrid, Lattice, fine_origins, lattices

#: Relative size of a pull treated as round-off (see barycentric_masses).
PULL_RTOL = 16 * float(np.finfo(np.float64).eps)
#: Fixed-point passes of the deficit loans of the barycentric rounding.
BORROW_PASSES = 5
#: A dominated measure at one lattice origin that drops more than this many
#: h^2 of Q-mass is tried at RETRY_ORIGINS - 1 further offsets of
#: h / RETRY_ORIGINS and, at a finite support end, at both ends of the end
#: cell's barycentric origin located to about 1e-14 h
#: (symfdp.pld.grid.fine_origins); the measure that drops least is kept.
DROP_RETRY = 0.25
RETRY_ORIGINS = 4
#: Point masses below this are removed (to +infinity in a dominating measure).
TINY_MASS = 1e-300
#: Lattice points per concatenated pass of the barycentric rounding (work
#: arrays of 256 KiB: in cache, and few NumPy calls per component).
ROUNDING_BLOCK = 1 << 15
#: Components discretised together by discretise_many (their cell masses and
#: work arrays held at once).
COMPONENT_CHUNK = 256


@dataclass(frozen=True)
class DiscretePLD:
    """Q-masses of a discrete (dominating or dominated) PLRV on a lattice.

    The finite masses sit on ``origin + (k_lo + j) h``, ``j = 0 .. len(q) - 1``.

    Attributes:
        h: Lattice step.
        origin: Lattice origin.
        k_lo: Index of the first point.
        q: Q-masses of the points.
        inf_mass: Q-mass at :math:`L = +\\infty` (dominating measures only).
        dropped: Q-mass of the true law that the measure does not carry
            (dominated measures: the tails cut off and the rounding slack).
        dominating: True for the connect-the-dots (upper) measure.
        kept: Positions in ``q`` that may carry mass (the points a coarse
            lattice keeps, :meth:`~symfdp.pld.grid.ComponentGrid.lattice`);
            None: any.
        known_support: :attr:`support` and :attr:`support_masses`, when the
            builder has them at hand (else found in ``q`` on first use).
    """

    h: float
    origin: float
    k_lo: int
    q: FloatArray
    inf_mass: float
    dropped: float
    dominating: bool
    kept: NDArray[np.int64] | None = None
    known_support: tuple[NDArray[np.int64], FloatArray] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def points(self) -> FloatArray:
        """The lattice points ``l_j``."""
        return self.points_at(np.arange(self.q.size))

    def points_at(self, at: NDArray[np.int64]) -> FloatArray:
        """The lattice points at positions ``at`` of ``q``."""
        return cast(FloatArray, self.origin + (self.k_lo + at) * self.h)

    @functools.cached_property
    def support(self) -> NDArray[np.int64]:
        """Positions of the points with mass (``q[j] > 0``), ascending."""
        if self.known_support is not None:
            return self.known_support[0]
        if self.kept is None:
            return np.flatnonzero(self.q > 0.0)
        return self.kept[self.q[self.kept] > 0.0]

    @functools.cached_property
    def support_masses(self) -> FloatArray:
        """The Q-masses at :attr:`support`."""
        if self.known_support is not None:
            return self.known_support[1]
        return self.q[self.support]


def _known_support(
    lat: Lattice, masses: FloatArray, positive: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], FloatArray]:
    """``(support, support_masses)`` of the measure with ``masses`` on the kept
    points of ``lat`` (``positive``: where they are > 0)."""
    at = np.flatnonzero(positive) if lat.kept is None else lat.kept[positive]
    return at, masses[positive]


def concatenated_supports(
    measures: Sequence[DiscretePLD],
) -> tuple[NDArray[np.int64], FloatArray, NDArray[np.intp]]:
    """The positions with mass of several measures (:attr:`DiscretePLD.support`)
    and their Q-masses, concatenated, with the number of each measure."""
    at = [d.support for d in measures]
    q = np.concatenate([d.support_masses for d in measures])
    return np.concatenate(at), q, np.array([a.size for a in at], dtype=np.intp)


def _z_edges(grid: ComponentGrid, l: FloatArray) -> FloatArray:
    """Edges at which the dominating measure reads CDFs (points ``l``)."""
    edges: FloatArray = l.copy()
    if grid.atom_hi and l[-1] == grid.support[1]:
        edges[-1] += grid.margin  # the top atom belongs to the last cell
    return edges


def _connect_dots(
    items: list[tuple[ComponentGrid, Lattice, CellMasses, CellMasses]],
) -> list[DiscretePLD]:
    """The dominating measures of ``(grid, lattice, P cells, Q cells)`` items,
    in passes over their concatenated lattices, :data:`ROUNDING_BLOCK` points
    at a time (the same values as one by one)."""
    return _in_blocks(items, _connect_dots_block)


def _in_blocks(
    items: ItemList, measures: Callable[[ItemList], list[DiscretePLD]]
) -> list[DiscretePLD]:
    """``measures`` of consecutive runs of ``items`` of at least
    :data:`ROUNDING_BLOCK` lattice points each (one concatenated pass per run)."""
    sizes = [lat.l.size for _, lat, _, _ in items]
    return [
        d
        for run in consecutive_runs(sizes, ROUNDING_BLOCK)
        for d in measures(items[run])
    ]


def _connect_dots_block(
    items: list[tuple[ComponentGrid, Lattice, CellMasses, CellMasses]],
) -> list[DiscretePLD]:
    """:func:`_connect_dots` of one block (one concatenated pass)."""
    sizes = np.array([lat.l.size for _, lat, _, _ in items])
    ends = np.cumsum(sizes)
    starts = ends - sizes
    l = np.concatenate([lat.l for _, lat, _, _ in items])
    # Cells: every point but the last of each lattice, with its right neighbour.
    left = np.ones(l.size, dtype=bool)
    left[ends - 1] = False
    at = np.flatnonzero(left)
    cp = np.concatenate([c.cells for _, _, c, _ in items])
    cq = np.concatenate([c.cells for _, _, _, c in items])
    width = l[at + 1] - l[at]
    gam = np.exp(l[at])
    span = gam * np.expm1(width) * cp  # (gamma_{k+1} - gamma_k) P_k
    r = np.clip(cq - gam * cp, 0.0, span)
    s = span - r
    down = s / np.expm1(width)
    up = r / -np.expm1(-width)
    # Q-mass that round-off left outside the cell's range of V (e.g. a P-mass
    # rounded to 0) goes to the upper point: pessimistic.
    up += np.maximum(cq - down - up, 0.0)
    z = np.zeros(l.size)
    z[at] += down
    z[at + 1] += up
    z[starts] += [c.below for _, _, _, c in items]
    # Masses below TINY_MASS go to +infinity (pessimistic; avoids subnormals).
    tiny = z < TINY_MASS
    inf_mass = [c.above for _, _, _, c in items]
    _add_sums_where(inf_mass, z, tiny, starts, sizes)
    z[tiny] = 0.0
    positive = z > 0.0
    return [
        DiscretePLD(
            grid.h,
            grid.origin,
            lat.k_lo,
            lat.spread(z[start:end]),
            mass,
            0.0,
            True,
            lat.kept,
            _known_support(lat, z[start:end], positive[start:end]),
        )
        for (grid, lat, _, _), start, end, mass in zip(
            items, starts.tolist(), ends.tolist(), inf_mass, strict=True
        )
    ]


def _add_sums_where(
    totals: list[float],
    values: FloatArray,
    where: NDArray[np.bool_],
    starts: NDArray[np.int64],
    sizes: NDArray[np.int64],
) -> None:
    """``totals[i] += values[run_i][where[run_i]].sum()`` for the concatenated
    runs ``run_i`` (``starts``, ``sizes``) where some such value is nonzero,
    each run summed alone (the others are left as they are)."""
    owner = np.repeat(np.arange(sizes.size), sizes)
    for i in np.unique(owner[where & (values != 0.0)]).tolist():
        run = slice(starts[i], starts[i] + sizes[i])
        totals[i] += float(values[run][where[run]].sum())


def dominating_pld(m: Mechanism, grid: ComponentGrid) -> DiscretePLD:
    """Connect-the-dots discretisation: a dominating pair (upper bound on delta)."""
    return discretise(m, grid)[0]


def dominated_pld(m: Mechanism, grid: ComponentGrid) -> DiscretePLD:
    """Barycentric-rounding discretisation: a dominated pair (lower bound on delta).

    Tries every candidate origin of ``grid.lower_origins`` and keeps the one that
    drops the least Q-mass.
    """
    return discretise(m, grid)[1]


def discretise(m: Mechanism, grid: ComponentGrid) -> tuple[DiscretePLD, DiscretePLD]:
    """``(dominating, dominated)`` discretisations of one component.

    All CDF values are read in one batch
    (:func:`symfdp.pld.cells.cell_masses_pq_many`). The dominated measure is
    the best over the candidate origins of ``grid`` (and over
    :data:`RETRY_ORIGINS` offsets and the finely located barycentric origin
    when a single origin drops more than :data:`DROP_RETRY` :math:`h^2`; any
    origin gives a dominated measure).
    """
    return discretise_many([m], [grid])[0]


def discretise_many(
    mechanisms: list[Mechanism], grids: list[ComponentGrid]
) -> list[tuple[DiscretePLD, DiscretePLD]]:
    """:func:`discretise` of every ``(mechanism, grid)``, :data:`COMPONENT_CHUNK`
    components at a time (their lattices and cell masses freed before the
    next): the CDFs read in blocks (:func:`~symfdp.pld.cells.cell_masses_pq_many`),
    both measures built in passes over concatenated lattices,
    :data:`ROUNDING_BLOCK` points at a time (the same values as one by one)."""
    uppers: list[DiscretePLD] = []
    best: list[DiscretePLD] = []
    for at in range(0, len(grids), COMPONENT_CHUNK):
        ms, gs = mechanisms[at : at + COMPONENT_CHUNK], grids[at : at + COMPONENT_CHUNK]
        tops = lattices(gs, [grid.origin for grid in gs])
        lowers = _lattices_at(gs, [list(grid.lower_origins) for grid in gs])
        edge_sets = [
            [_z_edges(grid, top.l), *(_dual_edges(lat.l, grid) for lat in lats)]
            for grid, top, lats in zip(gs, tops, lowers, strict=True)
        ]
        reads = cell_masses_pq_many(ms, edge_sets)
        uppers += _connect_dots(
            [
                (grid, top, cps[0], cqs[0])
                for grid, top, (cps, cqs) in zip(gs, tops, reads, strict=True)
            ]
        )
        best += _least_dropped(
            [
                [
                    (grid, lat, cp, cq)
                    for lat, cp, cq in zip(lats, cps[1:], cqs[1:], strict=True)
                ]
                for grid, lats, (cps, cqs) in zip(gs, lowers, reads, strict=True)
            ]
        )
    retry = [
        i
        for i, (grid, low) in enumerate(zip(grids, best, strict=True))
        if len(grid.lower_origins) == 1
        and not (grid.atom_lo or grid.atom_hi)
        and low.dropped > DROP_RETRY * grid.h**2
    ]
    for at in range(0, len(retry), COMPONENT_CHUNK):
        chunk = retry[at : at + COMPONENT_CHUNK]
        fine = fine_origins([mechanisms[i] for i in chunk], [grids[i] for i in chunk])
        more = _dominated_items(
            [mechanisms[i] for i in chunk],
            [grids[i] for i in chunk],
            [
                [
                    grids[i].lower_origins[0] + j * grids[i].h / RETRY_ORIGINS
                    for j in range(1, RETRY_ORIGINS)
                ]
                + list(o)
                for i, o in zip(chunk, fine, strict=True)
            ],
        )
        for i, low in zip(chunk, _least_dropped(more), strict=True):
            if low.dropped < best[i].dropped:
                best[i] = low
    return list(zip(uppers, best, strict=True))


ItemList = list[tuple[ComponentGrid, Lattice, CellMasses, CellMasses]]


def _least_dropped(groups: list[ItemList]) -> list[DiscretePLD]:
    """Per group of rounding items (one component's lattice origins), the
    dominated measure that drops the least Q-mass (the first of equals); all
    roundings in one concatenated run."""
    lows = iter(_barycentric_roundings([item for g in groups for item in g]))
    out = []
    for group in groups:
        best: DiscretePLD | None = None
        for _ in group:
            low = next(lows)
            if best is None or low.dropped < best.dropped:
                best = low
        out.append(cast(DiscretePLD, best))
    return out


def _dominated_items(
    mechanisms: list[Mechanism],
    grids: list[ComponentGrid],
    origins: list[list[float]],
) -> list[ItemList]:
    """The rounding items of each ``grids[i]`` at lattice origins
    ``origins[i]`` (their CDFs read in blocks)."""
    lats_of = _lattices_at(grids, origins)
    reads = cell_masses_pq_many(
        mechanisms,
        [
            [_dual_edges(lat.l, grid) for lat in lats]
            for grid, lats in zip(grids, lats_of, strict=True)
        ],
    )
    return [
        [(grid, lat, cp, cq) for lat, cp, cq in zip(lats, cps, cqs, strict=True)]
        for grid, lats, (cps, cqs) in zip(grids, lats_of, reads, strict=True)
    ]


def _lattices_at(
    grids: list[ComponentGrid], origins: list[list[float]]
) -> list[list[Lattice]]:
    """The lattices of each ``grids[i]`` at origins ``origins[i]``."""
    flat = lattices(
        [g for g, os in zip(grids, origins, strict=True) for _ in os],
        [o for os in origins for o in os],
    )
    out, at = [], 0
    for os in origins:
        out.append(flat[at : at + len(os)])
        at += len(os)
    return out


def _dual_edges(l: FloatArray, grid: ComponentGrid) -> FloatArray:
    """Edges ``c_{-1} < c_0 < ... < c_M`` of the dual cells around the points."""
    h = grid.h
    c = np.empty(l.size + 1)
    c[0] = l[0] - h / 2
    c[1:-1] = (l[:-1] + l[1:]) / 2
    c[-1] = l[-1] + h / 2
    lo, hi = grid.support
    # An atom on an end point gets a cell of its own (width: the round-off margin).
    if grid.atom_lo and l[0] == lo and l.size > 1:
        c[1] = lo + grid.margin
    if grid.atom_hi and l[-1] == hi and l.size > 1:
        c[-2] = hi - grid.margin
    return c


def _merge_bottom(pb: FloatArray, qb: FloatArray, gam: FloatArray) -> None:
    """Merge the lowest cells into the first point where their pull is <= 0."""
    cp = np.cumsum(pb)
    cq = np.cumsum(qb)
    hit = np.flatnonzero((cq - gam * cp <= 0.0) & (cp > 0.0))
    if hit.size and hit[0] > 0:
        j = hit[0]
        pb[j], qb[j] = cp[j], cq[j]
        pb[:j] = 0.0
        qb[:j] = 0.0


def _merge_top(pb: FloatArray, qb: FloatArray, gam: FloatArray) -> None:
    """Merge the highest cells into the last point where their pull is >= 0."""
    rp = np.cumsum(pb[::-1])[::-1]
    rq = np.cumsum(qb[::-1])[::-1]
    hit = np.flatnonzero((rq - gam * rp >= 0.0) & (rp > 0.0))
    if hit.size and hit[-1] < pb.size - 1:
        j = hit[-1]
        pb[j], qb[j] = rp[j], rq[j]
        pb[j + 1 :] = 0.0
        qb[j + 1 :] = 0.0


#: Cells searched at each end of a lattice by :func:`_merge_ends` before the
#: whole lattice is (the merges of barycentric roundings end within the first
#: few cells).
_MERGE_WINDOW = 16


def _merge_ends(
    pb: FloatArray,
    qb: FloatArray,
    gam: FloatArray,
    starts: NDArray[np.int64],
    sizes: NDArray[np.int64],
    lows: NDArray[np.bool_],
    highs: NDArray[np.bool_],
) -> None:
    """:func:`_merge_bottom` of the lattices ``lows`` and then
    :func:`_merge_top` of the lattices ``highs``, in place, on concatenated
    lattices (``starts``, ``sizes``): the cumulative sums of the
    :data:`_MERGE_WINDOW` cells at the end of every lattice in one pass (the
    same values as those of the whole lattice there), the whole lattice where
    the merge point lies beyond them."""
    offs = np.arange(_MERGE_WINDOW)
    for top, chosen in ((False, lows), (True, highs)):
        rows = np.flatnonzero(chosen)
        if rows.size == 0:
            continue
        valid = offs < np.minimum(sizes[rows], _MERGE_WINDOW)[:, None]
        first = starts[rows] + sizes[rows] - 1 if top else starts[rows]
        pos = np.where(valid, first[:, None] + (-offs if top else offs), 0)
        cp = np.cumsum(np.where(valid, pb[pos], 0.0), axis=1)
        cq = np.cumsum(np.where(valid, qb[pos], 0.0), axis=1)
        pull = cq - np.where(valid, gam[pos], 0.0) * cp
        hit = ((pull >= 0.0) if top else (pull <= 0.0)) & (cp > 0.0) & valid
        found = hit.any(axis=1)
        j = hit.argmax(axis=1)
        merge = _merge_top if top else _merge_bottom
        for r in rows[~found & (sizes[rows] > _MERGE_WINDOW)].tolist():
            cells = slice(starts[r], starts[r] + sizes[r])
            merge(pb[cells], qb[cells], gam[cells])
        go = np.flatnonzero(found & (j > 0))
        at = pos[go, j[go]]
        pb[at], qb[at] = cp[go, j[go]], cq[go, j[go]]
        gone = pos[go][offs < j[go, None]]
        pb[gone] = 0.0
        qb[gone] = 0.0


def _shift_down(a: FloatArray, first: NDArray[np.bool_] | None = None) -> FloatArray:
    """``out[k] = a[k-1]`` (0 at the start, and at every ``first`` entry)."""
    out = np.concatenate(([0.0], a[:-1]))
    if first is not None:
        out[first] = 0.0
    return out


def _shift_up(
    a: FloatArray, fill: float = 0.0, last: NDArray[np.bool_] | None = None
) -> FloatArray:
    """``out[k] = a[k+1]`` (``fill`` at the end, and at every ``last`` entry)."""
    out = np.concatenate((a[1:], [fill]))
    if last is not None:
        out[last] = fill
    return out


def barycentric_masses(
    pb: FloatArray,
    qb: FloatArray,
    gam: FloatArray,
    first: NDArray[np.bool_] | None = None,
) -> FloatArray:
    r"""P-masses on the points ``gam`` whose barycentres dominate each point.

    ``pb``, ``qb`` are the P- and Q-masses of the collapsed atoms (atom ``k`` sits
    at :math:`\bar v_k = q_k / p_k`, between the midpoints around ``gam[k]``).
    Returns ``pg`` with :math:`\sum` over the pieces sent to ``gam[k]`` of
    (mass x position) :math:`\ge` ``gam[k] * pg[k]`` (see the module docstring).
    ``first`` marks where the next of several concatenated lattices begins
    (no loan crosses it): each lattice gets the masses it gets alone.
    """
    last = None if first is None else np.append(first[1:], True)
    pos = pb > 0.0
    safe = np.where(pos, pb, 1.0)
    vbar = np.where(pos, qb / safe, np.nan)
    pull = qb - gam * pb
    # Pulls within PULL_RTOL are zero (module docstring).
    pull = np.where(np.abs(pull) <= PULL_RTOL * (qb + gam * pb), 0.0, pull)
    # Deficits borrow x_k from atom k+1, moved down to gam[k] (module docstring:
    # any loans in [0, p_next] give a valid measure; better ones lose less).
    gap_up = _shift_up(vbar, np.nan, last) - gam
    p_next = _shift_up(pb, last=last)
    need = np.maximum(-pull, 0.0)  # for the whole atom
    can = (need > 0.0) & (gap_up > 0.0) & (p_next > 0.0) & np.isfinite(gap_up)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_unit = np.where(can, need / (safe * np.where(can, gap_up, 1.0)), 0.0)
    x = np.zeros_like(pb)
    for _ in range(BORROW_PASSES):
        rest = np.maximum(pb - _shift_down(x, first), 0.0)
        x = np.minimum(np.minimum(per_unit * pb, per_unit * rest), p_next)
    rest = np.maximum(pb - _shift_down(x, first), 0.0)
    x_req = np.minimum(per_unit * pb, per_unit * rest)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(
            (need > 0.0) & (x_req > 0.0),
            np.where(can, x / np.where(x_req > 0.0, x_req, 1.0), 0.0),
            np.where(need > 0.0, np.where(can, 1.0, 0.0), 1.0),
        )
    w = np.clip(w, 0.0, 1.0)
    stay = w * rest
    down = rest - stay
    # Excesses lift y_k of atom k-1 up to gam[k].
    gap_dn = gam - _shift_down(np.where(pos, vbar, np.inf), first)
    p_prev = _shift_down(pb, first)
    lend = (pull > 0.0) & pos & (gap_dn > 0.0) & (p_prev > 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = np.where(lend, pull / (safe * np.where(lend, gap_dn, 1.0)), 0.0)
    # y_k <= lift_k (stay_k - y_{k+1}) and y_k <= stay_{k-1}; the last pass makes
    # every y_k allowed by the y_{k+1} used (lowering y_k keeps k-1 balanced).
    stay_prev = _shift_down(stay, first)
    y = np.zeros_like(pb)
    for _ in range(BORROW_PASSES):
        y = np.minimum(
            lift * np.maximum(stay - _shift_up(y, last=last), 0.0), stay_prev
        )
    y = np.minimum(y, lift * np.maximum(stay - _shift_up(y, last=last), 0.0))
    own = stay - _shift_up(y, last=last)
    return cast(FloatArray, np.maximum(own, 0.0) + x + y + _shift_up(down, last=last))


def _barycentric_roundings(
    items: list[tuple[ComponentGrid, Lattice, CellMasses, CellMasses]],
) -> list[DiscretePLD]:
    """The dominated measures of ``(grid, lattice, P cells, Q cells)`` items,
    their barycentric masses in passes over concatenated lattices of up to
    :data:`ROUNDING_BLOCK` points."""
    return _in_blocks(items, _rounding_block)


def _rounding_block(
    items: list[tuple[ComponentGrid, Lattice, CellMasses, CellMasses]],
) -> list[DiscretePLD]:
    """:func:`_barycentric_roundings` of one block (one concatenated pass)."""
    sizes = np.array([lat.l.size for _, lat, _, _ in items], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pb = np.concatenate([cp.cells for _, _, cp, _ in items])
    qb = np.concatenate([cq.cells for _, _, _, cq in items])
    gam = np.exp(np.concatenate([lat.l for _, lat, _, _ in items]))
    lost = [cq.below + cq.above for _, _, _, cq in items]
    empty = pb <= 0.0
    _add_sums_where(lost, qb, empty, starts, sizes)
    qb[empty] = 0.0
    _merge_ends(
        pb,
        qb,
        gam,
        starts,
        sizes,
        np.array([not grid.atom_lo for grid, _, _, _ in items]),
        np.array([not grid.atom_hi for grid, _, _, _ in items]),
    )
    first = np.zeros(pb.size, dtype=bool)
    first[starts] = True
    y_all = gam * barycentric_masses(pb, qb, gam, first if len(items) > 1 else None)
    y_all[y_all < TINY_MASS] = 0.0  # dropped (optimistic; avoids subnormals)
    positive = y_all > 0.0
    out = []
    for (grid, lat, _, _), start, size, gone in zip(
        items, starts.tolist(), sizes.tolist(), lost, strict=True
    ):
        cells = slice(start, start + size)
        y = y_all[cells]
        dropped = gone + max(float(qb[cells].sum() - y.sum()), 0.0)
        out.append(
            DiscretePLD(
                grid.h,
                lat.origin,
                lat.k_lo,
                lat.spread(y),
                0.0,
                dropped,
                False,
                lat.kept,
                _known_support(lat, y, positive[cells]),
            )
        )
    return out


def dominated_from_cells(
    h: float, k_lo: int, pb: FloatArray, qb: FloatArray
) -> DiscretePLD:
    r"""The dominated (barycentric) measure of given dual-cell masses.

    ``pb[j]``, ``qb[j]`` are the P- and Q-masses of a law of :math:`L` merged
    into the dual cells around the points :math:`l_j = (k_{lo} + j) h`
    (origin 0); the end cells may reach beyond their half-steps (to
    :math:`\mp\infty`). Merging outcomes is post-processing, so the merged
    pair is dominated by the law it came from; the end cells are merged as in
    :func:`discretise` and the barycentric masses
    (:func:`barycentric_masses`) give a measure on the lattice below it in
    the increasing convex order (module docstring). Q-mass it does not carry
    is reported as ``dropped``.
    """
    pb = np.array(pb, dtype=np.float64)
    qb = np.array(qb, dtype=np.float64)
    gam = np.exp((k_lo + np.arange(pb.size)) * h)
    empty = pb <= 0.0
    lost = float(qb[empty].sum())
    qb[empty] = 0.0
    _merge_bottom(pb, qb, gam)
    _merge_top(pb, qb, gam)
    y = gam * barycentric_masses(pb, qb, gam)
    y[y < TINY_MASS] = 0.0
    dropped = lost + max(float(qb.sum() - y.sum()), 0.0)
    return DiscretePLD(h, 0.0, k_lo, y, 0.0, dropped, False)
