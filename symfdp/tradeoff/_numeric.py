"""Vectorised numerical kernels behind the trade-off calculus.

Every kernel takes plain callables ``x -> y`` on float64 arrays and iterates a
small fixed number of times over whole arrays (no per-point Python loop)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp.numeric.roots import monotone_bisect
from symfdp.numeric.tabulate import lower_convex_hull

FloatArray = NDArray[np.float64]
ArrayFn = Callable[[FloatArray], FloatArray]

#: Largest exponent used for e^eps; e^700 ~ 1e304 is still finite, and a
#: trade-off line with that slope only matters for alpha < 1e-304.
EXP_CAP: float = 700.0
#: Golden-section iterations: the bracket shrinks by 0.618^64 ~ 4e-14.
GOLDEN_ITERATIONS: int = 64
_INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0


def capped_exp(x: ArrayLike) -> FloatArray:
    """``exp(x)`` with the argument clipped to ``[-EXP_CAP, EXP_CAP]`` (no overflow)."""
    return np.exp(np.clip(np.asarray(x, dtype=np.float64), -EXP_CAP, EXP_CAP))


def golden_max(
    objective: ArrayFn,
    lo: ArrayLike,
    hi: ArrayLike,
    iterations: int = GOLDEN_ITERATIONS,
) -> tuple[FloatArray, FloatArray]:
    """Maximise a unimodal ``objective`` on ``[lo_i, hi_i]`` for every ``i`` at once.

    ``objective`` maps an array of abscissae (one per bracket) to the objective
    values of the same brackets. Returns ``(x, objective(x))`` of the best point
    seen, including both ends of the bracket.
    """
    a = np.array(lo, dtype=np.float64)
    b = np.array(hi, dtype=np.float64)
    c = b - _INV_PHI * (b - a)
    d = a + _INV_PHI * (b - a)
    fc, fd = objective(c), objective(d)
    for _ in range(iterations):
        left = fc >= fd  # the maximum lies in [a, d]
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        new = np.where(left, b - _INV_PHI * (b - a), a + _INV_PHI * (b - a))
        fnew = objective(new)
        c, d, fc, fd = (
            np.where(left, new, d),
            np.where(left, c, new),
            np.where(left, fnew, fd),
            np.where(left, fc, fnew),
        )
    x = np.where(fc >= fd, c, d)
    fx = np.maximum(fc, fd)
    # The ends of the bracket are candidates too (monotone objectives).
    for end in (np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)):
        fe = objective(np.broadcast_to(end, x.shape).copy())
        better = fe > fx
        x = np.where(better, end, x)
        fx = np.where(better, fe, fx)
    return x, fx


def bisect_inverse(
    fn: ArrayFn, a: ArrayLike, table: tuple[FloatArray, FloatArray] | None = None
) -> FloatArray:
    r"""Generalised inverse :math:`\inf\{t \in [0,1] : f(t) \le a\}` of a
    non-increasing ``fn`` with ``fn(1) = 0`` (Dong et al. 2019, eq. (4)), by
    vectorised bisection to 1e-17 absolute (4e-16 relative), started from the cell
    of ``table = (x, fn(x))`` that brackets the answer."""
    target = np.asarray(a, dtype=np.float64)
    if table is None:
        lo = np.zeros_like(target)
        hi = np.ones_like(target)
    else:
        x, fx = table
        k = np.searchsorted(-fx, -target, side="left")  # first node with f <= a
        k = np.minimum(k, x.size - 1)
        hi = x[k]
        lo = x[np.maximum(k - 1, 0)]
    return monotone_bisect(fn, target, lo, hi, xtol=1e-17, rtol=4e-16, max_iter=200)


def hull_vertex_argmax(
    x: FloatArray, fx: FloatArray, slopes: FloatArray
) -> NDArray[np.intp]:
    """Index into ``x`` of the maximiser of :math:`y x_i - f(x_i)` for each ``y``:
    the lower-hull vertex where the slope passes ``y`` (:math:`f^* = (f^{**})^*`,
    Dong et al. 2019, eq. (8))."""
    xv, fv = lower_convex_hull(x, fx)
    idx = np.searchsorted(x, xv)
    if xv.size == 1:
        return cast(NDArray[np.intp], np.zeros(slopes.shape, dtype=np.intp) + idx[0])
    seg = np.diff(fv) / np.diff(xv)
    k = np.searchsorted(seg, slopes, side="left")
    return idx[k]


def sup_affine(
    x: FloatArray,
    fx: FloatArray,
    value: Callable[[FloatArray, FloatArray], FloatArray],
    slopes: FloatArray,
    *,
    refine: bool,
) -> FloatArray:
    r""":math:`\sup_{0 \le t \le 1} \mathrm{value}(t, y)` for each slope ``y``
    (``value(t, y) = y t - f(t) + const``, concave in ``t``): the hull vertex of
    :func:`hull_vertex_argmax`, with ``refine`` a golden-section search between
    its grid neighbours."""
    i = hull_vertex_argmax(x, fx, slopes)
    best = value(x[i], slopes)
    if not refine:
        return best
    lo = x[np.maximum(i - 1, 0)]
    hi = x[np.minimum(i + 1, x.size - 1)]
    _, refined = golden_max(lambda t: value(t, slopes), lo, hi)
    return np.maximum(best, refined)


@functools.cache
def _gauss_legendre(order: int) -> tuple[FloatArray, FloatArray]:
    nodes, weights = np.polynomial.legendre.leggauss(order)
    return nodes, weights


def unit_panels(breakpoints: ArrayLike = ()) -> FloatArray:
    """Panel edges on [0, 1]: uniform in the middle, geometric towards both ends
    (where trade-off curves have unbounded slopes), plus ``breakpoints``."""
    tail = np.logspace(-16, -2, 29)
    edges = np.concatenate(
        (
            [0.0, 1.0],
            np.linspace(0.0, 1.0, 129),
            tail,
            1.0 - tail,
            np.clip(np.asarray(breakpoints, dtype=np.float64).ravel(), 0.0, 1.0),
        )
    )
    return np.unique(edges)


def integrate_unit(fn: ArrayFn, breakpoints: ArrayLike = (), order: int = 10) -> float:
    r""":math:`\int_0^1 \mathrm{fn}(x)\,dx` by composite Gauss--Legendre quadrature
    on :func:`unit_panels` (one vectorised call of ``fn``).

    Exact for piecewise polynomials of degree < 20 whose kinks are listed in
    ``breakpoints``; for a smooth integrand the error is far below 1e-12.
    """
    edges = unit_panels(breakpoints)
    nodes, weights = _gauss_legendre(order)
    left, width = edges[:-1, None], np.diff(edges)[:, None]
    x = left + 0.5 * width * (nodes[None, :] + 1.0)
    vals = np.asarray(fn(x.ravel()), dtype=np.float64).reshape(x.shape)
    return float(np.sum(0.5 * width * weights[None, :] * vals))


def upper_envelope(
    intercepts: ArrayLike, slopes: ArrayLike
) -> tuple[FloatArray, NDArray[np.intp]]:
    r"""Upper envelope of the lines :math:`b_j + s_j \alpha` on :math:`[0, 1]`
    (Dong et al. 2019, Prop. 2.8: :math:`\sup_i f_{\varepsilon_i, \delta_i}`), from
    the lower convex hull of the points :math:`(s_j, -b_j)`.

    Returns:
        ``(breaks, lines)``: the switch points (increasing) and the indices of
        the envelope lines; ``lines[np.searchsorted(breaks, alpha)]`` is the
        best line at ``alpha``.
    """
    b = np.asarray(intercepts, dtype=np.float64).ravel()
    s = np.asarray(slopes, dtype=np.float64).ravel()
    # Sort by slope, keep the largest intercept among equal slopes.
    order = np.lexsort((-b, s))
    s_sorted, b_sorted = s[order], b[order]
    first = np.concatenate(([True], np.diff(s_sorted) > 0))
    order, s_sorted, b_sorted = order[first], s_sorted[first], b_sorted[first]
    if s_sorted.size == 1:
        return np.empty(0), order
    sv, cv = lower_convex_hull(s_sorted, -b_sorted)
    pos = np.searchsorted(s_sorted, sv)
    breaks = np.diff(cv) / np.diff(sv)
    return breaks, order[pos]
