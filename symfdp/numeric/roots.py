r"""Vectorised root finding on explicit brackets.

No per-point Python loop and no scalar solver: every function here iterates a
fixed, small number of times over whole arrays. Convergence is checked and a
failure raises instead of returning an unconverged value (STYLE.md, anti-pattern 5).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
ArrayFn = Callable[[FloatArray], FloatArray]


def expand_bracket_up(
    fn: ArrayFn,
    target: ArrayLike,
    lo: ArrayLike,
    hi: ArrayLike,
    *,
    decreasing: bool = True,
    factor: float = 2.0,
    max_steps: int = 64,
    limit: float = np.inf,
) -> FloatArray:
    """Grow ``hi`` (geometrically away from ``lo``) until ``fn(hi)`` passes ``target``.

    For a decreasing ``fn`` this returns ``hi`` with ``fn(hi) <= target``; for an
    increasing one, ``fn(hi) >= target``.

    Raises:
        RuntimeError: the bracket could not be found within ``max_steps``.
    """
    target = np.asarray(target, dtype=np.float64)
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), target.shape)
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), target.shape).copy()
    for _ in range(max_steps):
        val = fn(hi)
        done = val <= target if decreasing else val >= target
        if np.all(done):
            return hi
        step = np.maximum(hi - lo, 1.0)
        hi = np.where(done, hi, np.minimum(lo + factor * step, limit))
    raise RuntimeError(
        "could not bracket the root: the function did not reach the target "
        f"within {max_steps} expansions (last upper end {np.max(hi):g})."
    )


def monotone_bisect(
    fn: ArrayFn,
    target: ArrayLike,
    lo: ArrayLike,
    hi: ArrayLike,
    *,
    decreasing: bool = True,
    xtol: float = 1e-13,
    rtol: float = 4e-16,
    max_iter: int = 200,
) -> FloatArray:
    """Solve ``fn(x) = target`` for a monotone ``fn`` on ``[lo, hi]`` by bisection.

    Returns the smallest ``x`` (to tolerance) with ``fn(x) <= target`` for a
    non-increasing ``fn`` (``fn(x) >= target`` for a non-decreasing one), which is
    the generalised inverse used for ``epsilon(delta)`` and ``f^{-1}``. Ends that
    already satisfy the condition are returned as they are.

    Raises:
        RuntimeError: the iteration did not reach the tolerance.
    """
    target = np.asarray(target, dtype=np.float64)
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), target.shape).copy()
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), target.shape).copy()

    def ok(x: FloatArray) -> NDArray[np.bool_]:
        val = fn(x)
        return val <= target if decreasing else val >= target

    at_lo = ok(lo)
    hi = np.where(at_lo, lo, hi)
    for _ in range(max_iter):
        width = hi - lo
        active = width > np.maximum(xtol, rtol * np.abs(hi))
        if not active.any():
            return hi
        mid = lo + 0.5 * width
        good = ok(mid)
        hi = np.where(active & good, mid, hi)
        lo = np.where(active & ~good, mid, lo)
    raise RuntimeError(f"bisection did not converge in {max_iter} iterations.")


def bracketed_newton(
    fn_and_derivative: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    target: ArrayLike,
    lo: ArrayLike,
    hi: ArrayLike,
    *,
    increasing: bool = True,
    xtol: float = 1e-12,
    ftol: float = 1e-15,
    max_iter: int = 100,
) -> FloatArray:
    """Safeguarded Newton iteration for a monotone function on explicit brackets.

    Each step takes the Newton update when it stays strictly inside the current
    bracket and bisects otherwise; the bracket shrinks every step, so the
    iteration cannot diverge. ``fn_and_derivative(x)`` returns ``(f(x), f'(x))``.

    Raises:
        ValueError: the target is not bracketed by ``[lo, hi]``.
        RuntimeError: the iteration did not converge in ``max_iter`` steps.
    """
    target = np.asarray(target, dtype=np.float64)
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), target.shape).copy()
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), target.shape).copy()
    sign = 1.0 if increasing else -1.0
    f_lo, _ = fn_and_derivative(lo)
    f_hi, _ = fn_and_derivative(hi)
    g_lo = sign * (f_lo - target)
    g_hi = sign * (f_hi - target)
    if np.any(g_lo > ftol) or np.any(g_hi < -ftol):
        raise ValueError("bracketed_newton: the target is not bracketed by [lo, hi].")
    x = 0.5 * (lo + hi)
    for _ in range(max_iter):
        f, df = fn_and_derivative(x)
        g = sign * (f - target)
        lo = np.where(g < 0, x, lo)
        hi = np.where(g > 0, x, hi)
        converged = (np.abs(g) <= ftol) | (hi - lo <= xtol * np.maximum(1.0, np.abs(x)))
        if converged.all():
            return x
        with np.errstate(divide="ignore", invalid="ignore"):
            step = x - (f - target) / df
        inside = np.isfinite(step) & (step > lo) & (step < hi)
        x = np.where(converged, x, np.where(inside, step, 0.5 * (lo + hi)))
    raise RuntimeError(f"bracketed Newton did not converge in {max_iter} iterations.")
