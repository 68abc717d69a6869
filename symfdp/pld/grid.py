r"""The discretisation grid: step, per-component range and alignment.

Every component :math:`i` is discretised on its own lattice
:math:`\{o_i + k h\}` with a *common* step :math:`h`, so that one FFT composes
all components on :math:`\{\sum_i n_i o_i + k h\}`.

**Step.** The dominating and dominated discretisations of
:mod:`symfdp.pld.discretise` differ from the true law by second-order terms: per
component, the variance of the loss grows by at most about :math:`h^2/6`
(connect the dots) and shrinks by about :math:`h^2/12` (barycentric rounding).
After composition the variance of :math:`T` is off by :math:`O(n h^2)`, which moves
:math:`\varepsilon(\delta) \approx E[T] + z \sqrt{\mathrm{Var}\,T}` by about
:math:`z\, n h^2 / (8 \sigma_T)`. Since :math:`\varepsilon \ge z \sigma_T` in the
tails, a relative bracket width ``eps_rel_tol`` needs
:math:`h \lesssim \sigma_T \sqrt{8\,\mathrm{tol}/n}`; the default takes a factor
two of margin for losses that are not smooth at the scale :math:`h` (the
subsampled Gaussian) and uses

.. math::  h = \sigma_T \sqrt{2\,\mathrm{tol} / n}, \qquad
           \sigma_T^2 = \sum_i n_i \mathrm{Var}_Q(L_i),

from the mechanisms' cumulants; the accountant checks the bracket it obtains
and refines the step where the loss is rougher at the scale :math:`h`.

**Range.** A component's lattice covers its essential support; an unbounded
side is cut where the Q-tail mass falls below ``tail`` (the cut mass enters the
certified bounds exactly, see :mod:`symfdp.pld.discretise`).

**Coarse tails.** A cell of width :math:`w` holding mass :math:`m` moves the
variance of the loss by :math:`O(m w^2)`, so cells far out in a tail need not be
:math:`h` wide: beyond the point where the tail mass (the larger of its P- and
Q-masses) falls below :data:`COARSE_MASS` :math:`\cdot 4^{1-j}` the lattice keeps
only every :math:`2^j`-th point (cells :math:`2^j h` wide), and each level adds
at most :data:`COARSE_MASS` :math:`h^2` to the second-order error, against
:math:`h^2/12` to :math:`h^2/6` of the fine cells. This holds where the other
components smooth the coarse cells out: a cell's error enters the composed
profile through the density of the rest of the sum over the cell, so cells are
at most :data:`COARSE_SMOOTH` times the composed standard deviation wide
(:func:`coarse_width`; none for short compositions, whose small deltas are set
by single tails). Both discretisations remain dominating and dominated on any
subset of lattice points (their arguments are cell by cell), so the bounds stay
certified whatever the widths; the CDFs are read where the law has its mass
rather than over the whole cut range (a subsampled Gaussian with small ``p``
carries less than 1e-7 of its mass on more than 80% of that range).

**Alignment.** A finite end of the support (``plrv_support``) becomes a lattice
point; when both ends are atoms the step is shrunk so that both are
(:func:`align_step`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import NDArray

from symfdp.mechanisms.base import Mechanism
from symfdp.pld.cells import has_atom, pq_rows

#: Geometric multipliers of the Q standard deviation searched for tail cuts
#: (the centre first).
_SEARCH_STEPS = np.concatenate(([0.0], 2.0 ** (np.arange(0, 60) / 4.0)))
#: Fewer mechanisms (coarse lattices) than this are gridded one by one (_side,
#: barycentric_origin, ComponentGrid.lattice); more in one NumPy pass (_sides,
#: barycentric_origins, lattices).
_GRID_BATCH = 8
#: Lattice points inside the bracket of the second, linear tail search.
_TAIL_REFINE = 33
#: Tail mass (max of P and Q) beyond which cells are 2 h wide; 4 times less
#: mass doubles the width again (module docstring).
COARSE_MASS = 1e-4
#: Widest coarse cell, in composed standard deviations ...
COARSE_SMOOTH = 0.01
#: ... and in units of L.
COARSE_MAX_WIDTH = 0.25


class _LatticeSizeError(ValueError):
    """A component's lattice exceeds the allowed size (``size`` points)."""

    def __init__(self, size: int, message: str) -> None:
        super().__init__(message)
        self.size = size


@dataclass(frozen=True)
class ComponentGrid:
    """Lattice of one component: points ``origin + k h``, ``k_lo <= k <= k_hi``.

    Attributes:
        h: Common grid step.
        origin: Lattice origin of the dominating (connect-the-dots) measure.
        k_lo, k_hi: Index range of the dominating measure's lattice.
        l_lo, l_hi: The range of L kept (the essential support, cut in the tails).
        atom_lo, atom_hi: Whether the support ends are atoms sitting on the lattice.
        support: ``plrv_support()`` of the mechanism.
        lower_origins: Candidate origins of the dominated (barycentric) measure.
        coarse_lo, coarse_hi: Tail levels: at and below ``coarse_lo[j - 1]``
            (at and above ``coarse_hi[j - 1]``) only every ``2**j``-th lattice
            point is kept (:meth:`lattice`); empty: every point.
    """

    h: float
    origin: float
    k_lo: int
    k_hi: int
    l_lo: float
    l_hi: float
    atom_lo: bool
    atom_hi: bool
    support: tuple[float, float]
    lower_origins: tuple[float, ...]
    coarse_lo: tuple[float, ...] = ()
    coarse_hi: tuple[float, ...] = ()

    @property
    def margin(self) -> float:
        """Width allowed for round-off in a mechanism's location of a support atom.

        CDFs are read this far beyond a support end, so that an atom computed an
        ulp off is on the right side of a cell edge.
        """
        scale = max((abs(x) for x in self.support if math.isfinite(x)), default=0.0)
        return max(1e-9 * self.h, 256 * math.ulp(scale) if scale > 0 else 0.0)

    def points(self, origin: float | None = None) -> tuple[int, np.ndarray]:
        """``(k_lo, l)``: the lattice points ``origin + k h`` covering ``[l_lo, l_hi]``.

        The default origin is the dominating measure's; points within ``1e-9 h``
        of a finite support end are snapped onto it.
        """
        o = self.origin if origin is None else origin
        k_lo, k_hi = self._index_range(o)
        return k_lo, self._at(o, np.arange(k_lo, k_hi + 1))

    def _index_range(self, o: float) -> tuple[int, int]:
        """First and last index of the lattice of origin ``o`` on ``[l_lo, l_hi]``."""
        k_lo = math.floor((self.l_lo - o) / self.h + 1e-9)
        return k_lo, max(math.ceil((self.l_hi - o) / self.h - 1e-9), k_lo)

    def _at(self, o: float, k: np.ndarray) -> NDArray[np.float64]:
        """The points ``o + k h``, snapped onto a finite support end within
        ``1e-9 h`` of it."""
        l = (o + k * self.h).astype(np.float64)
        for end in self.support:
            if math.isfinite(end):
                near = np.abs(l - end) <= 1e-9 * self.h
                l[near] = end
        return l

    def lattice(self, origin: float | None = None) -> Lattice:
        """The points of :meth:`points` that the coarse tails keep: every point
        of the core, every ``2**j``-th (by lattice index) beyond level ``j``,
        and both ends (:func:`lattices` builds many at once)."""
        o = self.origin if origin is None else origin
        if not (self.coarse_lo or self.coarse_hi):
            k_lo, l = self.points(o)
            return Lattice(o, k_lo, l.size, None, l)
        k_lo, k_hi, runs = self._segments(o)
        k = np.concatenate([np.arange(-(-a // s) * s, b, s) for a, b, s in runs])
        if k.size == 0 or k[0] != k_lo:
            k = np.concatenate(([k_lo], k))
        if k[-1] != k_hi:
            k = np.concatenate((k, [k_hi]))
        return Lattice(o, k_lo, k_hi - k_lo + 1, k - k_lo, self._at(o, k))

    def _segments(self, o: float) -> tuple[int, int, list[tuple[int, int, int]]]:
        """``(k_lo, k_hi, [(a, b, stride), ...])``: the index range of the
        lattice of origin ``o`` and its runs ``[a, b)`` of one stride, bottom
        to top."""
        h = self.h
        k_lo, k_hi = self._index_range(o)
        if not (self.coarse_lo or self.coarse_hi):
            return k_lo, k_hi, [(k_lo, k_hi + 1, 1)]
        cuts = [math.floor((x - o) / h) + 1 for x in self.coarse_lo[::-1]]
        cuts += [math.ceil((x - o) / h) for x in self.coarse_hi]
        strides = [1 << j for j in range(len(self.coarse_lo), 0, -1)]
        strides += [1, *(1 << j for j in range(1, len(self.coarse_hi) + 1))]
        bounds = [k_lo, *(min(max(c, k_lo), k_hi + 1) for c in cuts), k_hi + 1]
        runs = [
            (a, b, stride)
            for (a, b), stride in zip(itertools.pairwise(bounds), strides, strict=True)
        ]
        return k_lo, k_hi, runs


@dataclass(frozen=True)
class Lattice:
    """The kept points of one lattice (:meth:`ComponentGrid.lattice`).

    Attributes:
        origin: Lattice origin.
        k_lo: Index of the first point.
        size: Number of points from the first to the last.
        kept: Positions of the kept points among them (None: all).
        l: The kept points.
    """

    origin: float
    k_lo: int
    size: int
    kept: NDArray[np.int64] | None
    l: NDArray[np.float64]

    def spread(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """Masses of the kept points on all points (zeros elsewhere)."""
        if self.kept is None:
            return values
        out = np.zeros(self.size)
        out[self.kept] = values
        return out


def lattices(grids: Sequence[ComponentGrid], origins: Sequence[float]) -> list[Lattice]:
    """:meth:`ComponentGrid.lattice` of every ``(grids[i], origins[i])``, the
    coarse ones :data:`_LATTICE_CHUNK` at a time in one NumPy pass: the kept
    indices run by run, the ends added where a stride skips them, and the
    points ``o + k h`` snapped onto a finite support end within ``1e-9 h`` of
    it (as :meth:`ComponentGrid.points`, which gives the others). Fewer than
    :data:`_GRID_BATCH` coarse lattices are built one by one."""
    coarse = [i for i, g in enumerate(grids) if g.coarse_lo or g.coarse_hi]
    if len(coarse) < _GRID_BATCH:
        return [g.lattice(o) for g, o in zip(grids, origins, strict=True)]
    out: list[Lattice | None] = [None] * len(grids)
    for i, (g, o) in enumerate(zip(grids, origins, strict=True)):
        if not (g.coarse_lo or g.coarse_hi):
            out[i] = g.lattice(o)  # every point: no runs to build
    for at in range(0, len(coarse), _LATTICE_CHUNK):
        rows = coarse[at : at + _LATTICE_CHUNK]
        built = _lattices([grids[i] for i in rows], [origins[i] for i in rows])
        for i, lat in zip(rows, built, strict=True):
            out[i] = lat
    return cast(list[Lattice], out)


#: Lattices per pass of :func:`lattices`.
_LATTICE_CHUNK = 256


def _lattices(
    grids: Sequence[ComponentGrid], origins: Sequence[float]
) -> list[Lattice]:
    """:func:`lattices` of one chunk of grids with coarse levels."""
    k_lo, k_hi, (a, b, stride), per = _all_segments(grids, origins)
    first = -(-a // stride) * stride
    count = np.maximum(-(-(b - first) // stride), 0)
    offsets = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    k = np.repeat(first, count) + np.repeat(stride, count) * offsets
    sizes = np.bincount(np.repeat(np.arange(per.size), per), count, per.size)
    sizes = sizes.astype(np.int64)
    # Both ends are kept: k_lo before a lattice's first point, k_hi after its
    # last (an empty one gets k_lo, and k_hi if it differs).
    ends = np.cumsum(sizes)
    starts = ends - sizes
    padded = np.append(k, 0)
    head = (sizes == 0) | (padded[starts] != k_lo)
    tail = np.where(sizes == 0, k_lo != k_hi, padded[np.maximum(ends - 1, 0)] != k_hi)
    at = np.stack((starts, ends), axis=1).ravel()
    values = np.stack((k_lo, k_hi), axis=1).ravel()
    add = np.stack((head, tail), axis=1).ravel()
    k = np.insert(k, at[add], values[add])  # stable: in lattice order
    sizes += head.astype(np.int64) + tail
    h = np.repeat(np.array([g.h for g in grids]), sizes)
    l = np.repeat(np.asarray(origins, dtype=np.float64), sizes) + k * h
    for side in (0, 1):
        end = np.repeat(np.array([g.support[side] for g in grids]), sizes)
        near = np.isfinite(end) & (np.abs(l - end) <= 1e-9 * h)
        l[near] = end[near]
    kept = k - np.repeat(k_lo, sizes)
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    return [
        Lattice(origin, first_k, size, kept[lo:hi], l[lo:hi])
        for origin, first_k, size, lo, hi in zip(
            origins,
            k_lo.tolist(),
            (k_hi - k_lo + 1).tolist(),
            bounds[:-1],
            bounds[1:],
            strict=True,
        )
    ]


def _all_segments(
    grids: Sequence[ComponentGrid], origins: Sequence[float]
) -> tuple[
    NDArray[np.int64],
    NDArray[np.int64],
    tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]],
    NDArray[np.int64],
]:
    """:meth:`ComponentGrid._segments` of every ``(grids[i], origins[i])`` in
    NumPy passes (the same integers): ``k_lo``, ``k_hi``, the runs ``(a, b,
    stride)`` of all lattices, bottom to top, and the number of runs of each."""
    o = np.asarray(origins, dtype=np.float64)
    h = np.array([g.h for g in grids])
    l_lo = np.array([g.l_lo for g in grids])
    l_hi = np.array([g.l_hi for g in grids])
    k_lo = np.floor((l_lo - o) / h + 1e-9).astype(np.int64)
    k_hi = np.maximum(np.ceil((l_hi - o) / h - 1e-9).astype(np.int64), k_lo)
    n_lo = np.array([len(g.coarse_lo) for g in grids], dtype=np.int64)
    n_hi = np.array([len(g.coarse_hi) for g in grids], dtype=np.int64)
    # Cuts bottom to top: the lower levels from the outermost in, then the upper.
    x_lo = np.array([x for g in grids for x in g.coarse_lo[::-1]], dtype=np.float64)
    x_hi = np.array([x for g in grids for x in g.coarse_hi], dtype=np.float64)
    row_lo, row_hi = (
        np.repeat(np.arange(len(grids)), n_lo),
        np.repeat(np.arange(len(grids)), n_hi),
    )
    cut_lo = np.floor((x_lo - o[row_lo]) / h[row_lo]).astype(np.int64) + 1
    cut_hi = np.ceil((x_hi - o[row_hi]) / h[row_hi]).astype(np.int64)
    per = n_lo + n_hi + 1
    # Bounds of each lattice: k_lo, its cuts clipped to [k_lo, k_hi + 1], k_hi + 1.
    first = np.cumsum(per + 1) - (per + 1)
    bounds = np.empty(int((per + 1).sum()), dtype=np.int64)
    bounds[first] = k_lo
    bounds[first + per] = k_hi + 1
    at_lo = (
        first[row_lo]
        + 1
        + (np.arange(row_lo.size) - np.repeat(np.cumsum(n_lo) - n_lo, n_lo))
    )
    at_hi = (
        first[row_hi]
        + 1
        + n_lo[row_hi]
        + (np.arange(row_hi.size) - np.repeat(np.cumsum(n_hi) - n_hi, n_hi))
    )
    bounds[at_lo] = np.minimum(np.maximum(cut_lo, k_lo[row_lo]), k_hi[row_lo] + 1)
    bounds[at_hi] = np.minimum(np.maximum(cut_hi, k_lo[row_hi]), k_hi[row_hi] + 1)
    starts = np.delete(np.arange(bounds.size), first + per)  # a run starts at each
    a, b = bounds[starts], bounds[starts + 1]
    # Strides 2^l .. 2 below, 1 in the core, 2 .. 2^h above.
    j = np.arange(a.size) - np.repeat(np.cumsum(per) - per, per)
    level = np.repeat(n_lo, per) - j  # > 0 below the core, < 0 above it
    stride = np.left_shift(1, np.abs(level)).astype(np.int64)
    return k_lo, k_hi, (a, b, stride), per


def _support(m: Mechanism) -> tuple[float, float]:
    lo, hi = m.plrv_support()
    return float(lo), float(hi)


def _moments_q(m: Mechanism) -> tuple[float, float]:
    kappa = np.asarray(m.cumulants(2, "Q"), dtype=np.float64)
    return float(kappa[0]), float(max(kappa[1], 0.0))


def _first_below_rows(values: NDArray[np.float64], tail: float) -> NDArray[np.intp]:
    """Per row, the first column with a value at most ``tail`` (else the last)."""
    hits = values <= tail
    last = values.shape[1] - 1
    first: NDArray[np.intp] = np.where(hits.any(axis=1), hits.argmax(axis=1), last)
    return first


def _read(
    mechanisms: Sequence[Mechanism],
    x: NDArray[np.float64],
    up: bool,
    inclusive: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """P- and Q-masses beyond each row of ``x`` (row ``i``: ``mechanisms[i]``;
    above for ``up``, else below; the point itself counted if ``inclusive``)."""
    rows, cols = x.shape
    sizes = np.full(rows, cols)
    p, q = pq_rows(mechanisms, x.reshape(-1), sizes, sf=up, inclusive=inclusive)
    return p.reshape(rows, cols), q.reshape(rows, cols)


def _tails(m: Mechanism, x: np.ndarray, under: str, up: bool) -> np.ndarray:
    """Mass of L beyond each ``x`` (above for ``up``, else strictly below)."""
    if up:
        out = m.plrv_sf(x, under)  # type: ignore[arg-type]
    else:
        out = m.plrv_cdf(x, under, inclusive=False)  # type: ignore[arg-type]
    return np.asarray(out, dtype=np.float64).reshape(-1)


def _first_below(values: np.ndarray, tail: float) -> int:
    hits = np.flatnonzero(values <= tail)
    return int(hits[0]) if hits.size else values.size - 1


def _side(
    m: Mechanism,
    centre: float,
    scale: float,
    end: float,
    tail: float,
    h: float,
    widest: float,
    up: bool,
) -> tuple[float, tuple[float, ...]]:
    """The range end and coarse levels of one side of the law (one mechanism;
    :func:`_sides` for many).

    The end is ``end`` when finite, else the first point from ``centre``
    (geometric, then linear search) beyond which the Q-mass of L is at most
    ``tail`` (or the farthest candidate). Level ``j`` is the first point of the
    geometric search, inside the range, beyond which both tail masses are at
    most ``COARSE_MASS * 4**(1 - j)``, while ``2**j h <= widest`` (module
    docstring).
    """
    coarse = 2 * h <= widest
    if math.isfinite(end) and not coarse:
        return end, ()
    sign = 1.0 if up else -1.0
    x = centre + sign * scale * _SEARCH_STEPS
    if not coarse:
        q = _tails(m, x, "Q", up)
    else:
        both = m.plrv_sf_pq(x) if up else m.plrv_cdf_pq(x, inclusive=False)
        p, q = (a.reshape(-1) for a in both)
    if math.isfinite(end):
        cut = end
    else:
        i = _first_below(q, tail)
        cut = float(x[i])
        if i > 0:
            fine = np.linspace(x[i - 1], x[i], _TAIL_REFINE)
            cut = float(fine[_first_below(_tails(m, fine, "Q", up), tail)])
    inside = sign * (cut - x) > 0.0
    inside[0] = False
    if not (coarse and inside.any()):
        return cut, ()
    x = x[inside]
    tails = np.maximum(q[inside], p[inside])
    levels: list[float] = []
    j = 1
    while (1 << j) * h <= widest:
        hits = np.flatnonzero(tails <= COARSE_MASS * 4.0 ** (1 - j))
        if hits.size == 0:
            break
        levels.append(float(x[hits[0]]))
        j += 1
    return cut, tuple(levels)


def _sides(
    mechanisms: Sequence[Mechanism],
    centre: NDArray[np.float64],
    scale: NDArray[np.float64],
    end: NDArray[np.float64],
    tail: float,
    h: float,
    widest: float,
    up: bool,
) -> tuple[list[float], list[tuple[float, ...]]]:
    """:func:`_side` of every ``(mechanisms[i], centre[i], scale[i],
    end[i])``: ``(ends, levels)``, the searches of all in one NumPy pass
    (fewer than :data:`_GRID_BATCH` mechanisms: one by one)."""
    if len(mechanisms) < _GRID_BATCH:
        one = [
            _side(m, c, s, e, tail, h, widest, up)
            for m, c, s, e in zip(
                mechanisms, centre.tolist(), scale.tolist(), end.tolist(), strict=True
            )
        ]
        return [cut for cut, _ in one], [levels for _, levels in one]
    coarse = 2 * h <= widest
    cuts = end.tolist()
    levels: list[tuple[float, ...]] = [()] * len(mechanisms)
    rows = np.flatnonzero(~np.isfinite(end) | coarse)
    if rows.size == 0:
        return cuts, levels
    ms = [mechanisms[i] for i in rows.tolist()]
    sign = 1.0 if up else -1.0
    x = centre[rows, None] + (sign * scale[rows])[:, None] * _SEARCH_STEPS
    p, q = _read(ms, x, up)
    cut = end[rows].copy()
    search = np.flatnonzero(~np.isfinite(cut))
    if search.size:
        i = _first_below_rows(q[search], tail)
        cut[search] = x[search, i]
        inner = np.flatnonzero(i > 0)
        if inner.size:
            at, j = search[inner], i[inner]
            fine = np.linspace(x[at, j - 1], x[at, j], _TAIL_REFINE, axis=1)
            _, q_fine = _read([ms[k] for k in at.tolist()], fine, up)
            cut[at] = fine[np.arange(at.size), _first_below_rows(q_fine, tail)]
    for k, i in enumerate(rows.tolist()):
        cuts[i] = float(cut[k])
    if not coarse:
        return cuts, levels
    inside = sign * (cut[:, None] - x) > 0.0
    inside[:, 0] = False
    tails = np.maximum(q, p)
    found = []
    j = 1
    while (1 << j) * h <= widest:
        hits = inside & (tails <= COARSE_MASS * 4.0 ** (1 - j))
        found.append(np.where(hits.any(axis=1), hits.argmax(axis=1), -1))
        if not hits.any():
            break  # no row reaches this level, nor any higher one
        j += 1
    if not found:
        return cuts, levels
    first = np.stack(found, axis=1)
    reached = np.cumprod(first >= 0, axis=1).sum(axis=1)
    for k, i in enumerate(rows.tolist()):
        levels[i] = tuple(x[k, first[k, : reached[k]]].tolist())
    return cuts, levels


def coarse_width(sd: float) -> float:
    """Widest coarse cell for a composed loss of standard deviation ``sd``
    (module docstring)."""
    return min(COARSE_MAX_WIDTH, COARSE_SMOOTH * sd)


def choose_step(
    components: Sequence[tuple[Mechanism, int]], eps_rel_tol: float
) -> float:
    r"""The default grid step :math:`h = \sqrt{2\,\mathrm{tol} \sum_i n_i s_i^2 / n}`.

    :math:`s_i^2 = \mathrm{Var}_Q(L_i)` (module docstring), aligned by
    :func:`align_step`.
    """
    n_total = sum(k for _, k in components)
    var = sum(k * _moments_q(m)[1] for m, k in components)
    if var > 0.0:
        h = math.sqrt(2.0 * eps_rel_tol * var / n_total)
    else:
        h = 0.1
    return align_step(components, h)


def align_step(components: Sequence[tuple[Mechanism, int]], h: float) -> float:
    """Shrink ``h`` so that the first two-atom support fits the lattice exactly;
    a component whose loss lives on a lattice of span ``d``
    (:meth:`~symfdp.mechanisms.Mechanism.loss_lattice`, with both ends of its
    support on it) takes precedence: ``h = d / k``, so that every atom is a
    lattice point (unless ``d < h / 16``)."""
    for m, _ in components:
        d = m.loss_lattice()
        if d and d >= h / 16 and _ends_on_lattice(m, d):
            return d / max(1, math.ceil(d / h - 1e-9))
    for m, _ in components:
        lo, hi = _support(m)
        if math.isfinite(lo) and math.isfinite(hi) and hi > lo:
            if has_atom(m, lo) and has_atom(m, hi):
                cells = max(1, math.ceil((hi - lo) / h - 1e-9))
                return (hi - lo) / cells
    return h


def _ends_on_lattice(m: Mechanism, d: float) -> bool:
    """Whether the support of ``m``'s loss spans a whole number of steps ``d``
    (a lattice law does; the widest gap of a law off any lattice, in general,
    does not)."""
    lo, hi = _support(m)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return False
    k = (hi - lo) / d
    return abs(k - round(k)) <= 1e-9 * max(1.0, k)


def barycentric_origin(
    m: Mechanism, end: float, h: float, up: bool, passes: int = 2
) -> float:
    r"""Lattice point that is the barycentre of the loss's end cell.

    At a finite end of the support without an atom, the dominated measure
    merges the end cells into one lattice point, which must lie on the near side
    of their P-barycentre of :math:`V = e^L`. This returns, for the lower end,
    the first :math:`x` with :math:`Q(L \le x + h/2) - e^x P(L \le x + h/2) \le
    0` (upper end: the last :math:`x` with :math:`Q(L > x - h/2) - e^x P(L > x -
    h/2) \ge 0`), located by ``passes`` passes of 65 points (to
    :math:`2.5 h / 64^{passes}`). Any origin is valid; this one makes the end
    cell nearly lossless (:func:`barycentric_origins` for many).
    """
    lo_x, hi_x = _barycentric_bracket(m, end, h, up, passes)
    return lo_x if up else hi_x


def _barycentric_bracket(
    m: Mechanism, end: float, h: float, up: bool, passes: int
) -> tuple[float, float]:
    """The last bracket ``(lo_x, hi_x)`` of the search of
    :func:`barycentric_origin`: the end cell's pull changes sign between its
    ends."""
    if up:
        lo_x, hi_x = end - 2.0 * h, end + 0.5 * h
    else:
        lo_x, hi_x = end - 0.5 * h, end + 2.0 * h
    for _ in range(passes):
        x = np.linspace(lo_x, hi_x, 65)
        if up:
            p, q = (a.reshape(-1) for a in m.plrv_sf_pq(x - h / 2))
            ok = np.flatnonzero((q - np.exp(x) * p >= 0.0) & (p > 0.0))
            j = int(ok[-1]) if ok.size else 0
            lo_x, hi_x = x[j], x[min(j + 1, x.size - 1)]
        else:
            p, q = (a.reshape(-1) for a in m.plrv_cdf_pq(x + h / 2))
            ok = np.flatnonzero((q - np.exp(x) * p <= 0.0) & (p > 0.0))
            j = int(ok[0]) if ok.size else x.size - 1
            lo_x, hi_x = x[max(j - 1, 0)], x[j]
    return float(lo_x), float(hi_x)


def barycentric_origins(
    mechanisms: Sequence[Mechanism],
    end: NDArray[np.float64],
    h: float,
    up: bool,
    passes: int = 2,
) -> NDArray[np.float64]:
    """:func:`barycentric_origin` of every ``(mechanisms[i], end[i])``, the
    searches of all in one NumPy pass (fewer than :data:`_GRID_BATCH`
    mechanisms: one by one)."""
    lo_x, hi_x = _barycentric_brackets(mechanisms, end, h, up, passes)
    return lo_x if up else hi_x


def _barycentric_brackets(
    mechanisms: Sequence[Mechanism],
    end: NDArray[np.float64],
    h: float,
    up: bool,
    passes: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`_barycentric_bracket` of every ``(mechanisms[i], end[i])`` (as
    :func:`barycentric_origins` searches them)."""
    if len(mechanisms) < _GRID_BATCH:
        found = [
            _barycentric_bracket(m, e, h, up, passes)
            for m, e in zip(mechanisms, end.tolist(), strict=True)
        ]
        return (
            np.array([f[0] for f in found], dtype=np.float64),
            np.array([f[1] for f in found], dtype=np.float64),
        )
    if up:
        lo_x, hi_x = end - 2.0 * h, end + 0.5 * h
    else:
        lo_x, hi_x = end - 0.5 * h, end + 2.0 * h
    rows = np.arange(end.size)
    for _ in range(passes):
        x = np.linspace(lo_x, hi_x, 65, axis=1)
        if up:
            p, q = _read(mechanisms, x - h / 2, up=True)
            ok = (q - np.exp(x) * p >= 0.0) & (p > 0.0)
            any_ok = ok.any(axis=1)
            j = np.where(any_ok, x.shape[1] - 1 - ok[:, ::-1].argmax(axis=1), 0)
            lo_x, hi_x = x[rows, j], x[rows, np.minimum(j + 1, x.shape[1] - 1)]
        else:
            p, q = _read(mechanisms, x + h / 2, up=False, inclusive=True)
            ok = (q - np.exp(x) * p <= 0.0) & (p > 0.0)
            j = np.where(ok.any(axis=1), ok.argmax(axis=1), x.shape[1] - 1)
            lo_x, hi_x = x[rows, np.maximum(j - 1, 0)], x[rows, j]
    return lo_x, hi_x


def component_grid(
    m: Mechanism,
    h: float,
    tail: float,
    n_lower_origins: int = 1,
    max_points: int = 2**27,
    coarse: float = 0.0,
) -> ComponentGrid:
    """Lattice, range and alignment of one component.

    Args:
        m: A single dominating pair.
        h: The common grid step.
        tail: Q-mass allowed beyond each cut of an unbounded side.
        n_lower_origins: Candidate origins (``base + j h / n``) tried for the
            dominated measure when no atom pins the lattice; ``base`` is
            :func:`barycentric_origins` at a finite end of the support.
        max_points: Largest number of lattice points allowed.
        coarse: Widest coarse cell of the tails (:func:`coarse_width`; 0:
            every lattice point kept).

    Raises:
        ValueError: the lattice would need more than ``max_points`` points.
    """
    return component_grids([m], h, tail, n_lower_origins, max_points, coarse)[0]


def component_grids(
    mechanisms: Sequence[Mechanism],
    h: float,
    tail: float,
    n_lower_origins: int = 1,
    max_points: int = 2**27,
    coarse: float = 0.0,
) -> list[ComponentGrid]:
    """:func:`component_grid` of every mechanism, their tail searches and end
    cells read for all at once (:func:`~symfdp.pld.cells.pq_rows`)."""
    supports = [_support(m) for m in mechanisms]
    lo = np.array([s[0] for s in supports], dtype=np.float64)
    hi = np.array([s[1] for s in supports], dtype=np.float64)
    moments = np.array([_moments_q(m) for m in mechanisms], dtype=np.float64)
    sd = np.sqrt(moments[:, 1])
    scale = np.where(moments[:, 1] > 0, sd, h)
    centre = np.minimum(np.maximum(moments[:, 0], lo), hi)
    l_lo, coarse_lo = _sides(mechanisms, centre, scale, lo, tail, h, coarse, False)
    l_hi, coarse_hi = _sides(mechanisms, centre, scale, hi, tail, h, coarse, True)
    atoms = [
        (has_atom(m, a), has_atom(m, b))
        for m, (a, b) in zip(mechanisms, supports, strict=True)
    ]
    bases = _bases(mechanisms, supports, atoms, h)
    grids = []
    for i, (m, (a, b), (atom_lo, atom_hi)) in enumerate(
        zip(mechanisms, supports, atoms, strict=True)
    ):
        top = max(l_hi[i], l_lo[i])
        origin = a if math.isfinite(a) else b if math.isfinite(b) else 0.0
        k_lo = math.floor((l_lo[i] - origin) / h + 1e-9)
        k_hi = max(math.ceil((top - origin) / h - 1e-9), k_lo)
        if k_hi - k_lo + 2 > max_points:
            raise _LatticeSizeError(
                k_hi - k_lo + 2,
                f"the privacy loss of {m!r} spans [{l_lo[i]:.4g}, {top:.4g}], "
                f"{k_hi - k_lo + 1} lattice points at step {h:.3g}: more than "
                f"max_fft_size={max_points}; use a larger grid_step or "
                "eps_rel_tol.",
            )
        if atom_lo or atom_hi:
            lower: tuple[float, ...] = (origin,)
        else:
            base = bases[i][0] if i in bases else origin
            lower = tuple(
                base + j * h / n_lower_origins for j in range(n_lower_origins)
            )
        grids.append(
            ComponentGrid(
                coarse_lo=coarse_lo[i],
                coarse_hi=coarse_hi[i],
                h=h,
                origin=origin,
                k_lo=k_lo,
                k_hi=k_hi,
                l_lo=l_lo[i],
                l_hi=top,
                atom_lo=atom_lo,
                atom_hi=atom_hi,
                support=(a, b),
                lower_origins=lower,
            )
        )
    return grids


def fine_origins(
    mechanisms: Sequence[Mechanism], grids: Sequence[ComponentGrid]
) -> list[tuple[float, ...]]:
    r"""Lattice origins at which a dominated measure of a law whose mass sits
    close to a support end keeps its Q-mass: both ends of the bracket of
    :func:`barycentric_origin` after :data:`FINE_PASSES` passes (about
    :math:`10^{-14} h` apart), at the end its grid's base origin is taken
    from (none where no finite end without atoms fixes one).

    At the first end the end cell has a deficit, which the next cell's P-mass
    must cover; a law concentrated within a tiny distance of its end (the add
    pair of a subsampled Gaussian with small sigma: within :math:`10^{-8}`),
    or narrower than a step, leaves too little there, and the unbalanced share
    of the end cell goes one step down, losing Q-mass of order :math:`h` per
    component at the two-pass resolution (and still when all the mass is in
    one cell). At the other end the cell has an excess, which loses only
    itself (about :math:`10^{-14} h` of the cell's mass) when nothing lies
    below to lift. :func:`symfdp.pld.discretise.discretise_many` tries both
    where the dominated measure drops much.
    """
    out: list[tuple[float, ...]] = [()] * len(grids)
    for h in sorted({g.h for g in grids}):
        rows = [i for i, g in enumerate(grids) if g.h == h]
        found = _bases(
            [mechanisms[i] for i in rows],
            [grids[i].support for i in rows],
            [(grids[i].atom_lo, grids[i].atom_hi) for i in rows],
            h,
            FINE_PASSES,
        )
        for k, origins in found.items():
            out[rows[k]] = origins
    return out


#: Passes of :func:`fine_origins` (to :math:`2.5 h / 64^8 \approx 10^{-14} h`).
FINE_PASSES = 8


def _bases(
    mechanisms: Sequence[Mechanism],
    supports: list[tuple[float, float]],
    atoms: list[tuple[bool, bool]],
    h: float,
    passes: int = 2,
) -> dict[int, tuple[float, float]]:
    """The :func:`barycentric_origins` of the mechanisms with a finite support
    end and no atom at either end, by index (the lower end when finite), each
    with the other end of its last search bracket."""
    out: dict[int, tuple[float, float]] = {}
    for up in (False, True):
        rows = [
            i
            for i, ((a, b), (atom_a, atom_b)) in enumerate(
                zip(supports, atoms, strict=True)
            )
            if not (atom_a or atom_b)
            and (math.isfinite(b) and not math.isfinite(a) if up else math.isfinite(a))
        ]
        if rows:
            end = np.array([supports[i][1 if up else 0] for i in rows])
            lo_x, hi_x = _barycentric_brackets(
                [mechanisms[i] for i in rows], end, h, up, passes
            )
            first, other = (lo_x, hi_x) if up else (hi_x, lo_x)
            out.update(
                zip(rows, zip(first.tolist(), other.tolist(), strict=True), strict=True)
            )
    return out
