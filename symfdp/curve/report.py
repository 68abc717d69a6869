"""The messages of a query's repairs and error estimates (the curve warns).

A query of a :class:`~symfdp.curve.PrivacyCurve` emits at most one
:class:`~symfdp.ApproximationWarning`: the repairs its pairs recorded (what
left which range, how it was repaired, where it moved the answer most), or,
without repairs, an error estimate above the curve's ``warn_rel_error``. Each
names the regime and the certified method.

One rule decides which repairs warn for every approximation
(:func:`repairs_within`): a repair of known size within ``warn_rel_error`` of
the answer it moved does not warn by itself, since its move is part of the
answer's error estimate (clips: :func:`~symfdp.curve.bounded.clipped_error`),
which warns when the whole is above ``warn_rel_error``. Repairs of unknown size
(a spliced tail, a regime without a guarantee) always warn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np

from symfdp._warnings import warn_approximation
from symfdp.curve.answer import FloatArray, Query, Repair

#: What an approximate method's warning recommends.
CERTIFIED_ADVICE: Final = (
    "The approximation is outside its valid regime here; accountants.Numerical "
    "gives certified values (curve.epsilon_bounds / delta_bounds)."
)


def repairs_message(label: str, query: Query, repairs: Sequence[Repair]) -> str:
    """One message for the repairs of one query: the method, each distinct
    ``what`` once, then the query and the largest known change and where."""
    whats: list[str] = []
    for r in repairs:
        if r.what not in whats:
            whats.append(r.what)
    sized = [r for r in repairs if math.isfinite(r.size) and math.isfinite(r.at)]
    where = query.value
    if sized:
        top = max(sized, key=lambda r: r.size)
        where += (
            f"; largest change {top.size:.3g} at {top.query.argument} = {top.at:.6g}"
        )
    return f"{label}: " + "; ".join(whats) + f" ({where})."


def warn_repairs(
    label: str, query: Query, repairs: Sequence[Repair], certified: bool
) -> None:
    """One :class:`~symfdp.ApproximationWarning` for the repairs of a query
    (nothing without repairs)."""
    message = query_message(label, query, repairs, certified)
    if message is not None:
        warn_approximation(message)


def query_message(
    label: str, query: Query, repairs: Sequence[Repair], certified: bool
) -> str | None:
    """The message of a query's repairs (approximations add
    :data:`CERTIFIED_ADVICE`), None without repairs."""
    if not repairs:
        return None
    message = repairs_message(label, query, repairs)
    return message if certified else message + " " + CERTIFIED_ADVICE


def repairs_within(
    repairs: Sequence[Repair],
    points: FloatArray,
    values: FloatArray,
    tol: float,
) -> tuple[Repair, ...]:
    """The repairs that warn: ``repairs`` without those of known size at most
    ``tol`` times the answer at their point (``points`` and ``values``, the
    query's points and answers; a repair whose point is not among them warns).
    For answers whose error estimate includes the repairs' moves."""
    out: list[Repair] = []
    for r in repairs:
        if math.isfinite(r.size) and math.isfinite(r.at) and points.size:
            hit = np.flatnonzero(points == r.at)
            if hit.size and r.size <= tol * abs(float(values[hit[0]])):
                continue
        out.append(r)
    return tuple(out)


def worst_relative_error(
    values: FloatArray, errors: FloatArray, atol: float
) -> tuple[int, float]:
    """``(index, ratio)`` of the largest ``errors / |values|`` over the entries
    whose error exceeds ``atol`` (NaN counts as ``inf``; ``(0, 0.0)`` if none)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rel = np.where(errors > atol, errors / np.abs(values), 0.0)
    rel = np.where(np.isnan(rel), np.inf, rel)
    k = int(np.argmax(rel))
    return k, float(rel.flat[k])


def error_message(
    label: str,
    query: Query,
    at: FloatArray,
    values: FloatArray,
    errors: FloatArray,
    atol: float,
    tol: float,
) -> str | None:
    """The message when some ``errors > tol * |values|`` (and above ``atol``),
    naming the worst point; None otherwise."""
    if errors.size == 0:
        return None
    k, worst = worst_relative_error(values, errors, atol)
    if not worst > tol:
        return None
    size = (
        "unknown (the method cannot estimate it here)"
        if math.isinf(worst)
        else (f"{100 * worst:.3g}%")
    )
    return (
        f"{label}: the estimated relative error of {query.value} is {size} at "
        f"{query.argument} = {float(at.flat[k]):.6g} (answer "
        f"{float(values.flat[k]):.6g}, estimated error {float(errors.flat[k]):.3g}), "
        f"above warn_rel_error = {tol:g}. Use accountants.Numerical for a certified "
        f"bracket ({_BOUNDS[query]})."
    )


#: Where a certified curve gives the bracket of each query.
_BOUNDS: Final = {
    Query.DELTA: "curve.epsilon_bounds / delta_bounds",
    Query.EPSILON: "curve.epsilon_bounds / delta_bounds",
    Query.TRADEOFF: "curve.tradeoff_bounds",
}
