"""Trade-off curves on grids: the standard alpha grid, generalised inverse and
convex hull (the grid-level primitives of :mod:`symfdp.tradeoff` and
:class:`symfdp.curve.PrivacyCurve`)."""

from __future__ import annotations

import functools
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import isotonic_regression

FloatArray = NDArray[np.float64]


@functools.cache
def _alpha_grid(n_mid: int, n_tail: int, tail_exp: int) -> FloatArray:
    mid = np.linspace(0.01, 0.99, n_mid)
    tail = np.logspace(-tail_exp, -2, n_tail, endpoint=False)
    grid = np.unique(np.concatenate(([0.0, 1.0], tail, mid, 1.0 - tail)))
    grid.setflags(write=False)
    return grid


def alpha_grid(n_mid: int = 1001, n_tail: int = 200, tail_exp: int = 15) -> FloatArray:
    """The standard grid on [0, 1]: 0, log-spaced tails down to ``10**-tail_exp``,
    a uniform middle, and the mirrored tail towards 1. Read-only and cached."""
    return _alpha_grid(n_mid, n_tail, tail_exp)


def tabulated_inverse(t: ArrayLike, f: ArrayLike, at: ArrayLike) -> FloatArray:
    r"""Generalised inverse of a tabulated non-increasing curve.

    Treats ``(t_k, f_k)`` as a piecewise-linear non-increasing function on
    ``[t_0, t_end]`` and returns :math:`\inf\{t : f(t) \le a\}` for each ``a`` in
    ``at`` (Dong et al. 2019, eq. (4)); values above ``f(t_0)`` map to ``t_0``.

    Args:
        t: Increasing abscissae.
        f: Non-increasing values at ``t``.
        at: Points where the inverse is evaluated.
    """
    t = np.asarray(t, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    # Keep the first point of every flat run: it is the infimum of that level set.
    keep = np.concatenate(([True], np.diff(f) < 0))
    tk, fk = t[keep], f[keep]
    return cast(
        FloatArray, np.interp(np.asarray(at, dtype=np.float64), fk[::-1], tk[::-1])
    )


#: Largest secant slope magnitude used by :func:`lower_convex_hull`.
_SLOPE_CAP = 1e300


def lower_convex_hull(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Vertices of the lower convex hull of points with strictly increasing ``x``
    (Dong et al. 2019, Def. 4.1 and App. F): the weighted isotonic regression
    of the secant slopes, by SciPy's pool-adjacent-violators.

    Returns:
        ``(xv, yv)``, the hull vertices in increasing ``x``, containing the first
        and last points. ``np.interp(x, xv, yv)`` evaluates the convex minorant.
    """
    xv = np.asarray(x, dtype=np.float64)
    yv = np.asarray(y, dtype=np.float64)
    if xv.size <= 2:
        return xv.copy(), yv.copy()
    dx = np.diff(xv)
    if np.any(dx <= 0):
        raise ValueError("lower_convex_hull needs strictly increasing x.")
    # Points closer than ~1e-300 (e.g. reflections of values near 0) would give
    # slopes beyond float64; clipping keeps them the steepest, and finite.
    with np.errstate(over="ignore"):
        secants = np.clip(np.diff(yv) / dx, -_SLOPE_CAP, _SLOPE_CAP)
    slopes = isotonic_regression(secants, weights=dx).x
    # A vertex is where the pooled slope changes (original points and values).
    keep = np.concatenate(([True], np.diff(slopes) != 0, [True]))
    return xv[keep], yv[keep]


def convex_minorant(x: ArrayLike, y: ArrayLike) -> FloatArray:
    """The lower convex hull of ``(x, y)`` evaluated back on ``x``."""
    xv, yv = lower_convex_hull(x, y)
    return np.interp(np.asarray(x, dtype=np.float64), xv, yv)
