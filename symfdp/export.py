"""Curves as tables, CSV, JSON and notebook summaries::

    from symfdp import export
    export.to_csv(curve, "profile.csv")                     # eps, delta[, bracket]
    export.to_csv(curve, "tradeoff.csv", kind="tradeoff")   # alpha, beta[, bracket]
    text = export.to_json(curve, deltas=[1e-5, 1e-6])       # summary + tables
    pandas.DataFrame(export.table(curve))                   # no pandas needed here

Numbers are written with ``repr`` (shortest round-tripping form)."""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_choice
from symfdp.curve import PrivacyCurve
from symfdp.curve import summary as curve_summary

KINDS: Final = ("profile", "tradeoff")
#: Default grids: eps in [0, 10] (201 points) and alpha in [0, 1] (201 points).
DEFAULT_EPS: Final = np.linspace(0.0, 10.0, 201)
DEFAULT_ALPHA: Final = np.linspace(0.0, 1.0, 201)


def _check_curve(curve: Any) -> Any:
    if not isinstance(curve, PrivacyCurve):
        raise TypeError(f"curve must be a PrivacyCurve. Found {type(curve).__name__}.")
    return curve


def composition_text(curve: Any) -> str:
    """The composition recorded in ``curve.info`` as text, e.g.
    ``SubsampledGaussian(p=0.01, sigma=1.1, pair='both') x 1000``; ``n = 1000``
    when only the count is known (:func:`symfdp.curve.summary.composition_text`)."""
    return curve_summary.composition_text(_check_curve(curve).info)


def table(
    curve: Any, kind: str = "profile", grid: ArrayLike | None = None
) -> dict[str, np.ndarray]:
    """The curve tabulated on ``grid``: a dict of equal-length float columns.

    Args:
        curve: A :class:`~symfdp.curve.PrivacyCurve`.
        kind: ``"profile"`` (columns ``eps, delta``; default grid
            :data:`DEFAULT_EPS`) or ``"tradeoff"`` (``alpha, beta``; default
            :data:`DEFAULT_ALPHA`).
        grid: The eps (real) or alpha (in [0, 1]) values.

    Returns:
        Columns as 1-d arrays, plus the certified bracket for certified curves
        and ``delta_error`` for approximations that estimate their error.
    """
    curve = _check_curve(curve)
    kind = check_choice("kind", kind, KINDS)
    if kind == "profile":
        x = DEFAULT_EPS if grid is None else check_array("grid", grid, allow_inf=True)
        x = np.ravel(x)
        out = {"eps": x, "delta": np.asarray(curve.delta(x), np.float64)}
        if curve.certified:
            lo, hi = curve.delta_bounds(x)
            out["delta_lower"], out["delta_upper"] = np.asarray(lo), np.asarray(hi)
        elif getattr(curve, "estimates_error", False):
            out["delta_error"] = np.asarray(curve.delta_error(x), np.float64)
        return out
    a = DEFAULT_ALPHA if grid is None else check_array("grid", grid, 0.0, 1.0)
    a = np.ravel(a)
    out = {"alpha": a, "beta": np.asarray(curve.tradeoff(a), np.float64)}
    if curve.certified:
        lo, hi = curve.tradeoff_bounds(a)
        out["beta_lower"], out["beta_upper"] = np.asarray(lo), np.asarray(hi)
    return out


def to_csv(
    curve: Any,
    path: str | os.PathLike[str],
    kind: str = "profile",
    grid: ArrayLike | None = None,
) -> str:
    """Write :func:`table` as CSV (a header row, then one row per grid point).

    Returns:
        The path written, as a string.
    """
    columns = table(curve, kind, grid)
    names = list(columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(names)
        for row in zip(*(columns[k] for k in names), strict=True):
            writer.writerow([repr(float(v)) for v in row])
    return os.fspath(path)


def _num(x: float) -> float | str:
    """JSON has no inf/NaN: those become the strings "inf", "-inf", "nan"."""
    return x if math.isfinite(x) else str(x)


def summary(curve: Any, deltas: Sequence[float] = ()) -> dict[str, Any]:
    """Method, guarantee, composition, and epsilon at each of ``deltas``
    (with the certified bracket, or the error estimate, when the curve has one)."""
    curve = _check_curve(curve)
    d = np.ravel(check_array("deltas", deltas, 0.0, 1.0, lo_open=True, hi_open=True))
    out: dict[str, Any] = {
        "method": curve.label,
        "certified": bool(curve.certified),
        "composition": composition_text(curve),
        "n": curve.info.get("n"),
    }
    answers = []
    for delta in d:
        row: dict[str, Any] = {
            "delta": float(delta),
            "eps": _num(float(curve.epsilon(delta))),
        }
        if curve.certified:
            lo, hi = curve.epsilon_bounds(delta)
            row["eps_lower"], row["eps_upper"] = _num(float(lo)), _num(float(hi))
        elif getattr(curve, "estimates_error", False):
            row["eps_error"] = _num(float(curve.epsilon_error(delta)))
        answers.append(row)
    if answers:
        out["epsilon"] = answers
    return out


def to_json(
    curve: Any,
    deltas: Sequence[float] = (1e-5,),
    kind: str | None = "profile",
    grid: ArrayLike | None = None,
    indent: int | None = 2,
) -> str:
    """The curve as JSON text: :func:`summary` (at ``deltas``) plus, unless
    ``kind`` is None, the :func:`table` of that kind as lists under ``"table"``.
    Infinite values are written as the strings ``"inf"``/``"-inf"``."""
    out = summary(curve, deltas)
    if kind is not None:
        columns = table(curve, kind, grid)
        out["table"] = {k: [_num(float(v)) for v in col] for k, col in columns.items()}
    return json.dumps(out, indent=indent)


def markdown(curve: Any) -> str:
    """A short Markdown summary of a curve for notebooks (no curve evaluation:
    method, guarantee and composition only; :func:`symfdp.curve.summary.markdown`)."""
    curve = _check_curve(curve)
    return curve_summary.markdown(
        curve.label, curve.certified, curve.symmetric, curve.info
    )
