"""One pair's answers for tests: the pair protocol (:mod:`symfdp.curve.answer`)
at the flattened points, values (and errors, brackets) in the points' shape."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp.curve import Answer, PairCurve, Query

FloatArray = NDArray[np.float64]


def ask(pair: PairCurve, query: Query, points: ArrayLike) -> Answer:
    """``pair.answer(query, points)`` at the flattened float64 ``points``."""
    return pair.answer(query, np.asarray(points, dtype=np.float64).reshape(-1))


def _shaped(values: Any, points: ArrayLike) -> FloatArray:
    return np.asarray(values, dtype=np.float64).reshape(np.shape(points))


def delta_of(pair: PairCurve, eps: ArrayLike) -> FloatArray:
    return _shaped(ask(pair, Query.DELTA, eps).values, eps)


def epsilon_of(pair: PairCurve, delta: ArrayLike) -> FloatArray:
    return _shaped(ask(pair, Query.EPSILON, delta).values, delta)


def tradeoff_of(pair: PairCurve, alpha: ArrayLike) -> FloatArray:
    return _shaped(ask(pair, Query.TRADEOFF, alpha).values, alpha)


def _with(query: Query, pair: PairCurve, points: ArrayLike, part: str) -> Any:
    found = ask(pair, query, points)
    if part == "error":
        return _shaped(found.values, points), _shaped(found.errors, points)
    lo, hi = found.bracket()
    return _shaped(lo, points), _shaped(hi, points)


def delta_and_error(pair: PairCurve, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
    return _with(Query.DELTA, pair, eps, "error")  # type: ignore[no-any-return]


def epsilon_and_error(
    pair: PairCurve, delta: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    return _with(Query.EPSILON, pair, delta, "error")  # type: ignore[no-any-return]


def delta_bounds(pair: PairCurve, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
    return _with(Query.DELTA, pair, eps, "bounds")  # type: ignore[no-any-return]


def epsilon_bounds(pair: PairCurve, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
    return _with(Query.EPSILON, pair, delta, "bounds")  # type: ignore[no-any-return]


def tradeoff_bounds(pair: PairCurve, alpha: ArrayLike) -> tuple[FloatArray, FloatArray]:
    return _with(Query.TRADEOFF, pair, alpha, "bounds")  # type: ignore[no-any-return]


def whats(found: Answer) -> str:
    """The ``what`` of every repair record of an answer, joined."""
    return "; ".join(r.what for r in found.repairs)
