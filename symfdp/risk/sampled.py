r"""A curve's (symmetrised) trade-off sampled on a grid, with its bracket.

Every trade-off measure of this package (:mod:`~symfdp.risk.gdp`,
:mod:`~symfdp.risk.divergence`) reads a curve through :func:`sample`: the point
estimate :math:`f(\alpha_k)`, and either the certified bracket
:math:`[f_{lo}, f_{hi}]` (``curve.tradeoff_bounds``) or the method's error
estimate (``curve.tradeoff_error``), on one fixed grid.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from symfdp._warnings import warn_approximation
from symfdp.curve import FloatArray, PrivacyCurve
from symfdp.tradeoff import TradeOff

#: Points per part of the grid (log-spaced tails, uniform middle).
GRID_POINTS: Final = 2**14
#: Smallest tail probability on the grid (10**-15, as numeric.tabulate).
GRID_TAIL: Final = 1e-15


@functools.cache
def risk_grid() -> FloatArray:
    """0, log-spaced tails down to ``GRID_TAIL`` at both ends, a uniform middle,
    and 1: increasing, read-only, cached."""
    tail = np.geomspace(GRID_TAIL, 0.5, GRID_POINTS)
    mid = np.linspace(0.0, 1.0, GRID_POINTS)
    grid = np.unique(np.concatenate([[0.0, 1.0], tail, mid, 1.0 - tail]))
    grid.setflags(write=False)
    return grid


@dataclass(frozen=True, slots=True)
class Sampled:
    r"""A trade-off on :func:`risk_grid`.

    Attributes:
        alpha: The grid.
        f: The point estimate, non-increasing, in :math:`[0, 1 - \alpha]`.
        lower, upper: A certified bracket (``certified``); else ``f -+ error``
            (``f`` itself when ``error`` is None).
        error: The estimated absolute error per point, or None.
        certified: Whether ``[lower, upper]`` is certified.
    """

    alpha: FloatArray
    f: FloatArray
    lower: FloatArray
    upper: FloatArray
    error: FloatArray | None
    certified: bool


def _monotone(alpha: FloatArray, beta: Any) -> FloatArray:
    """``beta`` clipped to :math:`[0, 1 - \\alpha]` and made non-increasing
    from the left (a smaller valid lower bound, or an estimate's repair of
    round-off)."""
    out = np.clip(np.asarray(beta, np.float64), 0.0, 1.0 - alpha)
    return np.minimum.accumulate(out)


def _upper_monotone(alpha: FloatArray, beta: Any) -> FloatArray:
    """``beta`` clipped and made non-increasing from the right (a larger valid
    upper bound)."""
    out = np.clip(np.asarray(beta, np.float64), 0.0, 1.0)
    return np.maximum.accumulate(out[::-1])[::-1]


def check_curve(curve: object, name: str = "curve") -> None:
    """Raise ``TypeError`` unless ``curve`` is a PrivacyCurve."""
    if not isinstance(curve, PrivacyCurve):
        raise TypeError(f"{name} must be a PrivacyCurve. Found {type(curve).__name__}.")


def sample(source: PrivacyCurve | TradeOff, measure: str) -> Sampled:
    r"""``source`` on :func:`risk_grid`.

    A certified curve gives its certified bracket; an analytic one its error
    estimate where the method has one, else None and an
    :class:`~symfdp.ApproximationWarning` naming ``accountants.Numerical``; a
    :class:`~symfdp.tradeoff.TradeOff` (a closed form) is exact.

    Args:
        source: A curve, or a trade-off function such as ``T.Gaussian(mu)``.
        measure: The measure asking (named in the warning).
    """
    alpha = risk_grid()
    if isinstance(source, TradeOff):
        f = _monotone(alpha, source(alpha))
        return Sampled(alpha, f, f, f, np.zeros_like(f), True)
    f = _monotone(alpha, source.tradeoff(alpha))
    if source.certified:
        lo, hi = source.tradeoff_bounds(alpha)
        lower = _monotone(alpha, lo)
        upper = _upper_monotone(alpha, hi)
        return Sampled(alpha, f, lower, upper, 0.5 * (upper - lower), True)
    try:
        error = np.asarray(source.tradeoff_error(alpha), np.float64)
    except NotImplementedError:
        warn_approximation(
            f"{measure}: {source.label} gives no error estimate of its trade-off "
            "curve, so this value comes without one; accountants.Numerical gives "
            "a certified bracket."
        )
        return Sampled(alpha, f, f, f, None, False)
    lower = _monotone(alpha, f - error)
    upper = _upper_monotone(alpha, np.minimum(f + error, 1.0 - alpha))
    return Sampled(alpha, f, lower, upper, error, False)
