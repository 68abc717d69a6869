"""Vectorised root finding on explicit brackets.

Every function iterates a small number of times over whole arrays; failure to
converge raises instead of returning an unconverged value."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
ArrayFn = Callable[[FloatArray], FloatArray]

#: Default relative tolerance on ``|f - target|`` in :func:`bracketed_newton`:
#: four units of double-precision round-off.
ROUNDOFF_RTOL: Final = 4.0 * float(np.finfo(np.float64).eps)


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
            return cast(FloatArray, hi)
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
            return cast(FloatArray, hi)
        mid = lo + 0.5 * width
        good = ok(mid)
        hi = np.where(active & good, mid, hi)
        lo = np.where(active & ~good, mid, lo)
    raise RuntimeError(f"bisection did not converge in {max_iter} iterations.")


def bracketed_newton(
    fn_and_derivative: Callable[..., tuple[FloatArray, FloatArray]],
    target: ArrayLike,
    lo: ArrayLike,
    hi: ArrayLike,
    *,
    increasing: bool = True,
    xtol: float = 1e-12,
    xatol: float = 0.0,
    ftol: ArrayLike = 0.0,
    frtol: float = ROUNDOFF_RTOL,
    x0: ArrayLike | None = None,
    geometric: bool = False,
    check_bracket: bool = True,
    compact: bool = False,
    max_iter: int = 100,
) -> FloatArray:
    r"""Safeguarded Newton iteration for a monotone function on explicit brackets.

    Solves ``f(x) = target`` per entry, for ``f`` non-decreasing (``increasing``)
    or non-increasing on ``[lo, hi]``; ``fn_and_derivative(x)`` returns
    ``(f(x), f'(x))`` for a whole array (``f'`` may be approximate). With
    :math:`g = f - \text{target}`, an entry stops at the first of:
    :math:`|g| \le` ``ftol`` or :math:`|g| \le` ``frtol``
    :math:`\cdot\max(|f|, |\text{target}|)`; a Newton step of at most
    ``xtol * |x| + xatol`` (``x`` is returned, within about one step of the root);
    a bracket at most that wide.

    Safeguard (Press et al., *Numerical Recipes*, 3rd ed., Sec. 9.4, ``rtsafe``):
    Newton steps only strictly inside the bracket and at most half the step two
    iterations earlier, else bisection (geometric when ``geometric`` and
    ``0 < lo``, ``hi > 4 lo``); this converges for any monotone ``f``.

    Args:
        fn_and_derivative: ``x -> (f(x), f'(x))``, elementwise over an array.
        target: Values to solve for; ``lo``, ``hi`` (and ``x0``) broadcast to it.
        lo, hi: The brackets: ``g(lo) <= 0 <= g(hi)`` for increasing ``f``.
        increasing: Whether ``f`` is non-decreasing (else non-increasing).
        xtol: Relative step / bracket tolerance in ``x``.
        xatol: Absolute step / bracket tolerance in ``x``.
        ftol: Absolute tolerance on ``|g|``.
        frtol: Relative tolerance on ``|g|`` (default four units of round-off).
        x0: Starting points (the bracket's midpoint where missing or outside).
        geometric: Bisect wide positive brackets geometrically.
        check_bracket: Evaluate ``f`` at both ends first and raise if ``target``
            is not bracketed.
        compact: Drop converged entries from the arrays passed to
            ``fn_and_derivative`` once at least half of them have converged (the
            values returned are the same); ``fn_and_derivative`` is then called
            as ``fn(x, idx)``, ``idx`` the flat indices of the entries in ``x``.
        max_iter: Iteration limit.

    Raises:
        ValueError: the target is not bracketed by ``[lo, hi]``.
        RuntimeError: an entry did not converge in ``max_iter`` steps.
    """
    target = np.asarray(target, dtype=np.float64)
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), target.shape).copy()
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), target.shape).copy()
    atol = np.broadcast_to(np.asarray(ftol, dtype=np.float64), target.shape)
    sign = 1.0 if increasing else -1.0
    abs_target = np.abs(target)

    def tolerance(f: FloatArray) -> FloatArray:
        scale = np.where(np.isfinite(f), np.maximum(np.abs(f), abs_target), 0.0)
        return np.maximum(atol, frtol * scale)

    def ends(x: FloatArray) -> FloatArray:
        if compact:
            return fn_and_derivative(x.ravel(), np.arange(x.size))[0].reshape(x.shape)
        return fn_and_derivative(x)[0]

    if check_bracket:
        f_lo = ends(lo)
        f_hi = ends(hi)
        bad = (sign * (f_lo - target) > tolerance(f_lo)) | (
            sign * (f_hi - target) < -tolerance(f_hi)
        )
        if np.any(bad):
            raise ValueError(
                "bracketed_newton: the target is not bracketed by [lo, hi] "
                f"({int(bad.sum())} of {bad.size} entries)."
            )

    def bisect(a: FloatArray, b: FloatArray) -> FloatArray:
        if not geometric:
            return 0.5 * (a + b)
        wide = (a > 0) & (b > 4 * a)
        gmean = np.sqrt(np.where(wide, a, 1.0)) * np.sqrt(np.where(wide, b, 1.0))
        return np.where(wide, gmean, 0.5 * (a + b))

    x = bisect(lo, hi)
    if x0 is not None:
        start = np.broadcast_to(np.asarray(x0, dtype=np.float64), target.shape)
        x = np.where((start >= lo) & (start <= hi), start, x)
    shape = target.shape
    out = np.empty(target.size)
    where = np.arange(target.size)
    if compact:
        x, lo, hi, target = x.ravel(), lo.ravel(), hi.ravel(), target.ravel()
        atol, abs_target = atol.ravel(), abs_target.ravel()
    # |step| of the last two iterations (rtsafe's dx and dxold).
    step_last = np.abs(hi - lo)
    step_before = step_last.copy()
    active = np.ones(target.shape, dtype=bool)
    for _ in range(max_iter):
        f, df = fn_and_derivative(x, where) if compact else fn_and_derivative(x)
        f = np.asarray(f, dtype=np.float64)
        g = sign * (f - target)
        lo = np.where(active & (g < 0), x, lo)
        hi = np.where(active & (g > 0), x, hi)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = (f - target) / np.asarray(df, dtype=np.float64)
        newton = x - step
        xscale = xtol * np.abs(x) + xatol
        in_bracket = np.isfinite(newton) & (newton >= lo) & (newton <= hi)
        done = np.abs(g) <= tolerance(f)
        done |= in_bracket & (np.abs(step) <= xscale)
        done |= hi - lo <= xscale
        if compact:
            fresh = active & done
            out[where[fresh]] = x[fresh]
        active &= ~done
        if not active.any():
            return out.reshape(shape) if compact else x
        take = in_bracket & (newton > lo) & (newton < hi)
        take &= np.abs(step) <= 0.5 * step_before
        new = np.where(take, newton, bisect(lo, hi))
        step_before = np.where(active, step_last, step_before)
        step_last = np.where(active, np.abs(new - x), step_last)
        x = np.where(active, new, x)
        if compact and 2 * np.count_nonzero(active) <= active.size:
            keep = active
            where, x, lo, hi, target = (
                where[keep],
                x[keep],
                lo[keep],
                hi[keep],
                target[keep],
            )
            atol, abs_target = atol[keep], abs_target[keep]
            step_last, step_before = step_last[keep], step_before[keep]
            active = active[keep]
    raise RuntimeError(
        f"bracketed Newton did not converge in {max_iter} iterations "
        f"({int(active.sum())} of {active.size} entries; widest remaining bracket "
        f"{float(np.max(np.where(active, hi - lo, 0.0))):.3g})."
    )


def positive_root(
    fn_and_derivative: Callable[
        [FloatArray, NDArray[np.intp]], tuple[FloatArray, FloatArray]
    ],
    size: int,
    *,
    x_start: float = 1.0,
    x_max: float = np.inf,
    xtol: float = 1e-10,
    factor: float = 4.0,
    max_expand: int = 60,
    max_iter: int = 100,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Roots on :math:`(0, x_{max}]` of ``size`` increasing functions.

    ``fn_and_derivative(x, idx)`` returns ``(g(x), g'(x))`` elementwise, entry
    ``k`` evaluating function ``idx[k]`` at ``x[k]``; each ``g`` is increasing
    with ``g(0+) < 0``. Brackets by dividing or multiplying ``x_start`` by
    ``factor`` (never beyond ``x_max``), then :func:`bracketed_newton` with
    geometric bisection to relative step ``xtol``.

    Returns:
        ``(root, capped)``: entries with ``g(x_max) < 0`` are ``capped`` and
        returned as ``x_max``.

    Raises:
        RuntimeError: no sign change within ``factor ** max_expand`` of
            ``x_start``, or the Newton iteration did not converge.
    """
    lo = np.zeros(size)
    hi = np.full(size, np.inf)
    capped = np.zeros(size, dtype=bool)
    x = np.full(size, min(x_start, x_max))
    todo = np.arange(size)
    for _ in range(max_expand + 1):
        if todo.size == 0:
            break
        xt = x[todo]
        g, _ = fn_and_derivative(xt, todo)
        lo[todo] = np.where(g <= 0, np.maximum(lo[todo], xt), lo[todo])
        hi[todo] = np.where(g >= 0, np.minimum(hi[todo], xt), hi[todo])
        capped[todo] |= (g < 0) & (xt >= x_max)
        open_lo = lo == 0
        open_hi = np.isinf(hi) & ~capped
        x = np.where(
            open_lo, x / factor, np.where(open_hi, np.minimum(x * factor, x_max), x)
        )
        todo = np.flatnonzero(open_lo | open_hi)
    else:
        raise RuntimeError(
            "positive_root: no sign change found within "
            f"{factor:g}**{max_expand} of the starting point."
        )
    out = np.full(size, float(x_max))
    sub = np.flatnonzero(~capped)
    if sub.size:
        out[sub] = bracketed_newton(
            lambda y: fn_and_derivative(y, sub),
            np.zeros(sub.size),
            lo[sub],
            hi[sub],
            xtol=xtol,
            geometric=True,
            check_bracket=False,
            max_iter=max_iter,
        )
    return out, capped


def regula_falsi(
    fn: ArrayFn,
    lo: ArrayLike,
    hi: ArrayLike,
    *,
    xrtol: float = 1e-9,
    max_iter: int = 100,
) -> FloatArray:
    """Vectorised Illinois regula falsi for brackets with ``fn(lo) > 0 >= fn(hi)``.

    Each bracket shrinks to at most ``xrtol`` times its initial width (or a few
    ulps); the midpoint of the final bracket is returned. Illinois modification
    (Dowell & Jarratt, BIT 11 (1971) 168), with bisection where the false-position
    point is not strictly inside: superlinear for smooth ``fn``, at least as
    fast as bisection otherwise.

    Raises:
        RuntimeError: some bracket is still wider than the tolerance after
            ``max_iter`` iterations.
    """
    a = np.array(lo, dtype=np.float64, copy=True)
    b = np.broadcast_to(np.asarray(hi, dtype=np.float64), a.shape).copy()
    fab = fn(np.concatenate((a.ravel(), b.ravel())))
    fa, fb = fab[: a.size].reshape(a.shape), fab[a.size :].reshape(a.shape)
    side = np.zeros(a.shape)
    width = b - a

    def converged() -> bool:
        # A bracket of a few ulps cannot shrink further.
        ulps = 4.0 * np.finfo(np.float64).eps * np.maximum(np.abs(a), np.abs(b))
        return bool(np.all((b - a <= xrtol * width) | (b - a <= ulps)))

    for _ in range(max_iter):
        if converged():
            return cast(FloatArray, 0.5 * (a + b))
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            x = (a * fb - b * fa) / (fb - fa)
        x = np.where(np.isfinite(x) & (x > a) & (x < b), x, 0.5 * (a + b))
        fx = fn(x)
        right = fx > 0  # the root lies in [x, b]
        a, fa = np.where(right, x, a), np.where(right, fx, fa)
        b, fb = np.where(right, b, x), np.where(right, fb, fx)
        fb = np.where(right & (side > 0), 0.5 * fb, fb)
        fa = np.where(~right & (side < 0), 0.5 * fa, fa)
        side = np.where(right, 1.0, -1.0)
    if converged():
        return cast(FloatArray, 0.5 * (a + b))
    raise RuntimeError(
        f"regula falsi did not converge in {max_iter} iterations "
        f"(widest remaining bracket {float(np.max(b - a)):.3g})."
    )


def newton_on_bracket(
    fn_and_derivative: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    target: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    x0: FloatArray,
    *,
    decreasing: bool = False,
    xtol: float = 1e-12,
    xatol: float = 0.0,
    ftol: float = 1e-10,
    max_iter: int = 100,
) -> tuple[FloatArray, FloatArray]:
    """Newton's method kept inside brackets: ``(x, f'(x))`` with
    ``f(x) = target`` per entry, for one-shot queries.

    ``f`` is monotone on each ``[lo, hi]`` (non-increasing if ``decreasing``)
    with the target between its end values (not checked). Steps that leave the
    bracket are replaced by bisection (converges for any monotone ``f``,
    quadratically near a simple root). Stops when every entry has
    ``|f - target| <= ftol``, a step of at most ``xtol * |x| + xatol`` or a
    bracket that narrow. Unlike :func:`bracketed_newton`: no per-entry freezing,
    no rtsafe history, no bracket check.

    Returns:
        The roots and ``f'`` at the last evaluated points.

    Raises:
        RuntimeError: no convergence in ``max_iter`` steps.
    """
    sign = -1.0 if decreasing else 1.0
    x = np.asarray(x0, dtype=np.float64)
    x = np.where((x > lo) & (x < hi), x, 0.5 * (lo + hi))
    # One floating-point context for the whole iteration (fn included): a
    # non-finite value or step is handled by the bisection below.
    with np.errstate(all="ignore"):
        return _newton_steps(
            fn_and_derivative, target, lo, hi, x, sign, xtol, xatol, ftol, max_iter
        )


def _newton_steps(
    fn_and_derivative: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    target: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    x: FloatArray,
    sign: float,
    xtol: float,
    xatol: float,
    ftol: float,
    max_iter: int,
) -> tuple[FloatArray, FloatArray]:
    for _ in range(max_iter):
        f, df = fn_and_derivative(x)
        g = f - target
        step = g / df
        new = x - step
        xscale = np.abs(x)
        xscale *= xtol
        xscale += xatol
        small = np.abs(g) <= ftol
        if (small | (np.abs(step) <= xscale) | (hi - lo <= xscale)).all():
            done = small | ~np.isfinite(new)
            return np.where(done, x, np.minimum(np.maximum(new, lo), hi)), df
        right = sign * g < 0  # the root lies above x
        lo = np.where(right, x, lo)
        hi = np.where(right, hi, x)
        x = np.where((new > lo) & (new < hi), new, 0.5 * (lo + hi))
    raise RuntimeError(f"Newton on brackets did not converge in {max_iter} steps.")


class WindowStop(enum.Enum):
    """Why :func:`secant_into_window` stopped."""

    #: ``g(x)`` lies in the window ``[-window, 0]``.
    IN_WINDOW = "in window"
    #: The bracket ``[a, b]`` (``g(a) <= 0 < g(b)``) holds no further point.
    BRACKET_CLOSED = "bracket closed"
    #: ``g(hi) <= 0``: the upper end of the domain meets the condition.
    AT_UPPER_END = "at upper end"
    #: ``g(lo) > 0``: no point of the domain meets the condition.
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class WindowRoot:
    """The answer of :func:`secant_into_window`.

    Attributes:
        x: The largest point found with ``g(x) <= 0`` (``lo`` when unreachable).
        value: ``g(x)``.
        stop: Why the search stopped.
        evaluations: How many times ``g`` was evaluated.
        slope: The last secant slope of ``g`` (the first guess where none).
        infeasible: The smallest point found with ``g > 0`` (``inf`` if none).
    """

    x: float
    value: float
    stop: WindowStop
    evaluations: int
    slope: float
    infeasible: float


def secant_into_window(
    fn: Callable[[float], float],
    x0: float,
    *,
    window: float,
    slope: float,
    lo: float = -math.inf,
    hi: float = math.inf,
    snap: Callable[[float], float] | None = None,
    xtol: float = 1e-12,
    max_step: float = 2.0,
    max_evals: int = 60,
) -> WindowRoot:
    r"""The largest ``x`` in ``[lo, hi]`` with ``g(x) <= 0`` for a non-decreasing
    scalar ``g`` (``fn``), accepting any ``x`` with ``-window <= g(x) <= 0``.

    For functions whose every evaluation is expensive (a whole composition), so
    scalar: each step aims at :math:`-w/2` (the window's middle) by a secant
    through the last two points (``slope`` before the second), Newton's step
    :math:`x - (g + w/2)/g'` (Press et al., *Numerical Recipes*, 3rd ed.,
    Sec. 9.2). Safeguards: a step is at most ``max_step``; a non-positive or
    non-finite slope gives a step of ``max_step`` towards the root; once the root
    is bracketed, a point outside or at the bracket's ends is replaced by the
    midpoint (bisection, so at most :math:`\log_2` (width/``xtol``) further
    evaluations). ``snap`` rounds every point onto a grid (e.g. logs of
    integers); the search then ends when no grid point is left strictly inside
    the bracket.

    Args:
        fn: ``x -> g(x)``, non-decreasing; NaN is not allowed.
        x0: The first point (clipped into ``[lo, hi]``).
        window: Width ``w > 0`` of the accepted band ``[-w, 0]``.
        slope: Estimate of ``g'(x0)``.
        lo, hi: The domain.
        snap: Rounds a point onto the grid (identity when ``None``).
        xtol: A bracket at most this wide is closed.
        max_step: Largest step before the root is bracketed.
        max_evals: Evaluation limit.

    Raises:
        RuntimeError: no answer within ``max_evals`` evaluations.
    """
    grid = snap if snap is not None else (lambda x: x)
    a, g_a = -math.inf, -math.inf  # largest point with g <= 0
    b = math.inf  # smallest point with g > 0
    last: tuple[float, float] | None = None
    x = grid(min(max(x0, lo), hi))
    for count in range(1, max_evals + 1):
        g = fn(x)
        if g <= 0:
            a, g_a = x, g
        else:
            b = x
        if last is not None and x != last[0] and g != last[1]:
            slope = (g - last[1]) / (x - last[0])
        last = (x, g)
        if -window <= g <= 0:
            return WindowRoot(x, g, WindowStop.IN_WINDOW, count, slope, b)
        if g <= 0 and x >= hi:
            return WindowRoot(x, g, WindowStop.AT_UPPER_END, count, slope, b)
        if g > 0 and x <= lo:
            return WindowRoot(x, g, WindowStop.UNREACHABLE, count, slope, b)
        bracketed = math.isfinite(a) and math.isfinite(b)
        if bracketed and b - a <= xtol:
            return WindowRoot(a, g_a, WindowStop.BRACKET_CLOSED, count, slope, b)
        if slope > 0 and math.isfinite(slope):
            step = -(g + 0.5 * window) / slope
        else:
            step = max_step if g <= 0 else -max_step
        step = min(max(step, -max_step), max_step)
        new = grid(min(max(x + step, lo), hi))
        while new == x and abs(step) < max_step:  # a step within one grid cell
            step *= 2.0
            new = grid(min(max(x + step, lo), hi))
        if bracketed and not a < new < b:
            new = grid(0.5 * (a + b))
            if not a < new < b:
                return WindowRoot(a, g_a, WindowStop.BRACKET_CLOSED, count, slope, b)
        x = new
    raise RuntimeError(
        f"secant_into_window: no point in the window after {max_evals} evaluations "
        f"(bracket [{a:g}, {b:g}])."
    )


def predicted_bisect(
    fn: ArrayFn,
    lo: float,
    hi: float,
    *,
    decreasing: bool,
    xtol: float = 1e-13,
    rtol: float = 4e-16,
    max_iter: int = 200,
    table: int = 33,
) -> float:
    """The end of a bisection for the sign change of a monotone ``fn`` on ``[lo, hi]``.

    The smallest ``x`` (to ``max(xtol, rtol |x|)``) with ``fn(x) <= 0`` for a
    non-increasing ``fn`` (``>= 0`` for a non-decreasing one): bit for bit the
    result of :func:`monotone_bisect` with target 0, for one bracket whose ``fn``
    is costly per call but cheap per point. A table of ``table`` points locates
    the sign change; the path of midpoints is then predicted from a secant
    estimate and evaluated in one vectorised call, every step still decided by
    ``fn`` (a wrong prediction starts a new path from the current bracket).

    Raises:
        RuntimeError: no convergence within ``max_iter`` halvings.
    """

    def ok(values: FloatArray) -> NDArray[np.bool_]:
        return values <= 0.0 if decreasing else values >= 0.0

    grid = np.linspace(lo, hi, table)
    values = fn(grid)
    signs = ok(values)
    if signs[0]:
        return lo
    i = int(np.argmax(signs)) if signs.any() else len(grid) - 1
    a, b = float(grid[i - 1]), float(grid[i])
    f_a, f_b, f_lo, f_hi = (float(v) for v in values[[i - 1, i, 0, -1]])
    mids: list[float] = []
    mid_values: list[float] = []
    mid_good: list[bool] = []
    guesses: list[bool] = []
    k = 0  # next unused prediction
    steps = 0
    while True:
        if steps == max_iter:
            raise RuntimeError(f"bisection did not converge in {max_iter} iterations.")
        if not hi - lo > max(xtol, rtol * abs(hi)):
            return hi
        if k == len(mids):
            # Secant estimate of the sign change through (a, f_a), (b, f_b).
            r = a - f_a * (b - a) / (f_b - f_a) if f_b != f_a else lo
            if not lo < r < hi:
                r = 0.5 * (lo + hi)
            mids, p_lo, p_hi = [], lo, hi
            while p_hi - p_lo > max(xtol, rtol * abs(p_hi)):
                mid = p_lo + 0.5 * (p_hi - p_lo)
                mids.append(mid)
                if mid >= r:
                    p_hi = mid
                else:
                    p_lo = mid
            evaluated = fn(np.array(mids))
            mid_values = evaluated.tolist()
            mid_good = ok(evaluated).tolist()
            guesses = [m >= r for m in mids]
            k = 0
        mid, good = mids[k], mid_good[k]
        if good:
            hi, f_hi = mid, mid_values[k]
        else:
            lo, f_lo = mid, mid_values[k]
        steps += 1
        if good != guesses[k]:
            mids, k = [], 0
            a, b, f_a, f_b = lo, hi, f_lo, f_hi
        else:
            k += 1


def series_newton(
    expand: Callable[[FloatArray], FloatArray],
    shift: Callable[[FloatArray, FloatArray], FloatArray],
    objective: Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray]],
    target: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    x0: FloatArray,
    *,
    rtol: float,
    ftol: float,
    reach: float,
    rounds: int,
    steps: int,
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], FloatArray, FloatArray]:
    r"""Newton on local Taylor series for a decreasing ``f`` on positive brackets.

    Solves ``f(x) = target`` per entry, ``f`` non-increasing on ``[lo, hi]``
    (``0 < lo``), where ``f`` is costly to evaluate from scratch but cheap from a
    Taylor series: ``expand(x)`` returns the rows of derivatives at ``x`` (one
    column per entry), ``shift(rows, h)`` those rows at ``x + h`` (the series),
    and ``objective(x, rows)`` returns ``(f(x), f'(x))`` from the rows at ``x``.
    Up to ``steps`` Newton steps run on one expansion while a step stays within
    ``reach * x`` of the expansion point, else a new expansion is made at the
    step (up to ``rounds``). Safeguards as in :func:`bracketed_newton`: Newton
    steps strictly inside the bracket, else geometric bisection. An entry stops
    at :math:`|f - target| \le \max(ftol, 4\,\epsilon_{mach} \max(|f|,
    |target|))` or a relative step or bracket of ``rtol``; a stopped entry takes
    its last step when it lies inside the bracket and the reach.

    Returns:
        ``(x, rows, rest, lo, hi)``: the points, the rows there, the entries not
        resolved (their ``x`` is their last point, to be finished by
        :func:`bracketed_newton` within the returned brackets) and the brackets.
    """
    size = target.size
    x_out = x0.copy()
    rows_out = np.zeros((0, size))
    rest = np.ones(size, dtype=bool)
    lo, hi = lo.copy(), hi.copy()
    idx = np.arange(size)
    x = x0
    for _ in range(rounds):
        d0 = expand(x)
        if rows_out.shape[0] != d0.shape[0]:
            rows_out = np.zeros((d0.shape[0], size))
        tgt, l_i, h_i = target[idx], lo[idx], hi[idx]
        s, d = x, d0
        done = np.zeros(idx.size, dtype=bool)
        leave = np.zeros(idx.size, dtype=bool)
        nxt = x
        for _ in range(steps):
            f, slope = objective(s, d)
            g = f - tgt
            act = ~done & ~leave
            l_i = np.where(act & (g > 0), s, l_i)
            h_i = np.where(act & (g < 0), s, h_i)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = g / slope
                tol = np.maximum(ftol, ROUNDOFF_RTOL * np.maximum(abs(f), abs(tgt)))
                new = s - step
                inside = np.isfinite(new) & (new > l_i) & (new < h_i)
                stop = (np.abs(g) <= tol) | (inside & (np.abs(step) <= rtol * s))
                stop |= h_i - l_i <= rtol * s
                done |= act & stop
                new = np.where(inside, new, np.sqrt(l_i * h_i))
                near = np.abs(new - x) <= reach * x
                out = act & ~stop & ~near
                # A stopped entry takes its last Newton step (inside the
                # bracket and the reach): |f - target| <= ftol shrinks to
                # about ftol^2.
                finish = act & stop & inside & near
            leave |= out
            nxt = np.where(out, new, nxt)
            cont = act & ~stop & ~out
            move = cont | finish
            if not move.any():
                break
            s = np.where(move, new, s)
            d = shift(d0, s - x)
            if not cont.any():
                break
        keep = done
        x_out[idx[keep]] = s[keep]
        rows_out[:, idx[keep]] = d[:, keep]
        rest[idx[keep]] = False
        lo[idx], hi[idx] = l_i, h_i
        # Entries that neither stopped nor left go on from their last point.
        nxt = np.where(leave, nxt, s)
        x_out[idx[~keep]] = nxt[~keep]
        idx, x = idx[~keep], nxt[~keep]
        if idx.size == 0:
            break
    return x_out, rows_out, rest, lo, hi


#: Largest epsilon searched by :func:`invert_profile`.
EPS_SEARCH_LIMIT: Final = 1e4


def invert_profile(
    delta_fn: Callable[[FloatArray], FloatArray], target: FloatArray
) -> FloatArray:
    r"""Profile inversion, vectorised: :math:`\inf\{\varepsilon \ge 0 :
    \delta(\varepsilon) \le d\}` for a non-increasing ``delta_fn``: the bracket
    :math:`[0, \varepsilon_{hi}]` grown geometrically up to ``EPS_SEARCH_LIMIT``,
    then bisection to an absolute 1e-12 / relative 1e-13.

    Raises:
        ValueError: the profile stays above a target up to ``EPS_SEARCH_LIMIT``.
    """
    target = np.asarray(target, dtype=np.float64)
    zeros = np.zeros_like(target)
    try:
        hi = expand_bracket_up(
            delta_fn, target, zeros, np.ones_like(target), limit=EPS_SEARCH_LIMIT
        )
    except RuntimeError:
        raise ValueError(
            f"epsilon(delta) lies above the search limit {EPS_SEARCH_LIMIT:g} for "
            f"delta = {float(np.min(target)):g}: the profile is still above it "
            "there. Such an epsilon carries no privacy; compare a larger delta."
        ) from None
    return monotone_bisect(delta_fn, target, zeros, hi, xtol=1e-12, rtol=1e-13)
