r"""Answers over several pairs: the maximum with its error, the symmetric hull of
trade-off curves and certified lower-bound vertices of a convex function."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symfdp.curve.answer import Answer, FloatArray
from symfdp.numeric.tabulate import lower_convex_hull


def max_with_error(
    values: Sequence[FloatArray], errors: Sequence[FloatArray]
) -> tuple[FloatArray, FloatArray]:
    r"""The maximum :math:`M = \max_k v_k` over pairs and its error: the larger
    distance of :math:`M` to :math:`[\max_k(v_k - e_k), \max_k(v_k + e_k)]`
    (NaN, from ``inf - inf``, is ``inf``)."""
    if len(values) == 1:
        top = np.array(values[0], dtype=np.float64)  # a copy, as np.max gives
        err = np.asarray(errors[0], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            # The same arithmetic as below: (v + e) - v and v - (v - e).
            err = np.maximum((top + err) - top, top - (top - err))
    elif len(values) == 2:
        # np.max over two rows, as np.maximum (the same values, no stacking).
        v0, v1 = (np.asarray(v, dtype=np.float64) for v in values)
        e0, e1 = (np.asarray(r, dtype=np.float64) for r in errors)
        top = np.maximum(v0, v1)
        with np.errstate(invalid="ignore"):
            up = np.maximum(v0 + e0, v1 + e1) - top
            down = top - np.maximum(v0 - e0, v1 - e1)
        err = np.maximum(up, down)
    else:
        v = np.asarray(values, dtype=np.float64)
        e = np.asarray(errors, dtype=np.float64)
        top = np.max(v, axis=0)
        with np.errstate(invalid="ignore"):
            up = np.max(v + e, axis=0) - top
            down = top - np.max(v - e, axis=0)
        err = np.maximum(up, down)
    return top, np.where(np.isnan(err), np.inf, err)


def max_over_pairs(answers: Sequence[Answer]) -> Answer:
    r"""The answer of :math:`\max_k` over the pairs' answers (profile and its
    inverse): values and errors by :func:`max_with_error` (errors only when
    every pair estimates them), each side of the bracket as the maximum of the
    pairs' (when every pair gives it), all repairs."""
    if len(answers) == 1 and answers[0].errors is None:
        return answers[0]
    values = [a.values for a in answers]
    errors = [a.errors for a in answers]
    if all(e is not None for e in errors):
        top, err = max_with_error(values, errors)  # type: ignore[arg-type]
    else:
        top, err = np.max(values, axis=0), None
    lower = _max_side([a.lower for a in answers])
    upper = _max_side([a.upper for a in answers])
    repairs = tuple(r for a in answers for r in a.repairs)
    return Answer(top, err, lower, upper, repairs)


def _max_side(sides: Sequence[FloatArray | None]) -> FloatArray | None:
    """The maximum of one side of the pairs' brackets (None unless all give it)."""
    given = [x for x in sides if x is not None]
    if len(given) < len(sides):
        return None
    return given[0] if len(given) == 1 else np.max(given, axis=0)


def symmetric_hull(
    a: FloatArray, points: Sequence[tuple[FloatArray, FloatArray]]
) -> FloatArray:
    r""":math:`\min\{f, f^{-1}\}^{**}` over a family of curves at ``a`` (Dong et
    al. 2019, Def. 4.1 and App. F): the lower hull of all vertices and their
    reflections in the diagonal, clipped to :math:`[0, 1 - \alpha]`."""
    xs = [np.concatenate([x, y]) for x, y in points]
    ys = [np.concatenate([y, x]) for x, y in points]
    x = np.concatenate([*xs, [0.0, 1.0]])
    y = np.concatenate([*ys, [1.0, 0.0]])
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    first = np.concatenate(([True], np.diff(x) > 0))  # lowest y per abscissa
    xv, yv = lower_convex_hull(x[first], y[first])
    out: FloatArray = np.clip(np.interp(a, xv, yv), 0.0, 1.0 - a)
    return out


def convex_lower_bound_points(
    x: FloatArray, lo: FloatArray, hi: FloatArray
) -> tuple[FloatArray, FloatArray]:
    r"""Vertices of a certified lower bound of a convex non-increasing function.

    From ``lo_k <= f(x_k) <= hi_k``: on :math:`[x_k, x_{k+1}]`, the larger of
    :math:`lo_{k+1}` and the secant line of slope :math:`(lo_k - hi_{k-1}) /
    (x_k - x_{k-1})` (second order in the step when the bounds are tight).

    Returns:
        ``(xv, yv)``: the vertices, a valid lower bound when joined linearly.
    """
    x = np.asarray(x, np.float64)
    lo = np.asarray(lo, np.float64)
    hi = np.asarray(hi, np.float64)
    dx_prev = np.diff(x)[:-1]
    slope = np.minimum((lo[1:-1] - hi[:-2]) / dx_prev, 0.0)  # s_k for k = 1..m-2
    slope = np.concatenate(([-np.inf], slope))  # no secant before the first point
    xk, xk1 = x[:-1], x[1:]
    lok, lok1 = lo[:-1], lo[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        run = np.where(slope < 0, (lok - lok1) / -slope, np.inf)
    x_kink = np.minimum(xk + run, xk1)
    finite = np.isfinite(slope)
    secant = lok + np.where(finite, slope, 0.0) * (x_kink - xk)
    y_kink = np.maximum(lok1, np.where(finite, secant, lok1))
    xv = np.concatenate([xk, x_kink, x[-1:]])
    yv = np.concatenate([lok, y_kink, lo[-1:]])
    order = np.argsort(xv, kind="stable")
    return xv[order], yv[order]
