r"""The :class:`TradeOff` contract and its generic (grid) fallbacks.

A trade-off function :math:`f = T(P, Q)` is convex, continuous, non-increasing
and :math:`f(\alpha) \le 1 - \alpha` (Dong et al. 2019, Prop. `tradeoffthm`).
Subclasses implement ``_eval`` and the closed-form hooks they know; the
generic fallbacks are: inverse by bisection of :math:`\inf\{t : f(t) \le a\}`
(eq. (4)); privacy profile :math:`\delta(\varepsilon) = 1 + f^*(-e^\varepsilon)
= \sup_x [1 - f(x) - e^\varepsilon x]` (Dong et al. 2019, Prop. `ftoDPrep`,
App. F; Zheng et al. 2020, Prop. 2.3) over the lower convex hull of :math:`f`
on :func:`~symfdp.numeric.tabulate.alpha_grid`, refined by golden-section
search; fixed point by Brent's method in the cell a grid brackets; area by
Gauss--Legendre quadrature."""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from symfdp._validation import check_array, check_choice, scalar_or_array
from symfdp.numeric.tabulate import alpha_grid
from symfdp.tradeoff._numeric import (
    EXP_CAP,
    bisect_inverse,
    capped_exp,
    integrate_unit,
    sup_affine,
)

FloatArray = NDArray[np.float64]

_METHODS = ("auto", "grid")


def checked_unit(values: FloatArray, what: str) -> FloatArray:
    """Clip to [0, 1] after checking that nothing is NaN or infinite."""
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise FloatingPointError(
            f"{what} produced non-finite values; this is a bug in symfdp.tradeoff, "
            "please report it with the trade-off function and its parameters."
        )
    return np.clip(values, 0.0, 1.0)


def bracketed_fixed_point(fn: Any) -> float:
    r"""The fixed point :math:`\alpha^*` with :math:`f(\alpha^*) = \alpha^*` of a
    non-increasing ``fn`` on [0, 1].

    :math:`g(\alpha) = f(\alpha) - \alpha` decreases strictly from
    :math:`g(0) \ge 0` to :math:`g(1) \le 0`: one vectorised call on a fixed grid
    (geometric from the smallest normal float to 1e-3, linear above) finds the
    cell where it changes sign, and Brent's method (:func:`scipy.optimize.brentq`)
    solves it there, in :math:`\log\alpha` below 1e-3 (relative tolerance
    :math:`4\epsilon` of float64; exact in few steps on the linear pieces of a
    tabulated curve). 0 when :math:`\alpha^*` is below the smallest normal
    float."""

    def gap(a: FloatArray) -> FloatArray:
        return np.asarray(fn(a), dtype=np.float64).reshape(-1) - a

    def at(a: float) -> float:
        return float(gap(np.array([a]))[0])

    grid = _FIXED_POINT_GRID
    g = gap(grid)
    if g[0] <= 0.0:
        return 0.0
    # A curve asked point by point may round unlike the grid call (a fixed
    # point deep in round-off): the cell widens until Brent's own calls at its
    # ends change sign.
    i = int(np.flatnonzero(g > 0.0)[-1])
    lo_i, hi_i = i, i + 1
    g_lo, g_hi = at(grid[lo_i]), at(grid[hi_i])
    while g_lo <= 0.0 and lo_i > 0:
        lo_i -= 1
        g_lo = at(grid[lo_i])
    if g_lo <= 0.0:
        return 0.0
    while g_hi > 0.0 and hi_i < grid.size - 1:
        hi_i += 1
        g_hi = at(grid[hi_i])
    lo, hi = float(grid[lo_i]), float(grid[hi_i])
    if g_hi >= 0.0:
        return hi
    if hi <= _LOG_BELOW:
        u = optimize.brentq(
            lambda u: at(math.exp(u)),
            math.log(lo),
            math.log(hi),
            xtol=1e-15,
            rtol=_RTOL,
        )
        return math.exp(u)
    return float(optimize.brentq(at, lo, hi, xtol=1e-17, rtol=_RTOL))


_SMALLEST_ALPHA = float(np.finfo(np.float64).tiny)
#: The fixed point is solved in log alpha below this (see bracketed_fixed_point).
_LOG_BELOW = 1e-3
_RTOL = 4.0 * float(np.finfo(np.float64).eps)
_FIXED_POINT_GRID: FloatArray = np.concatenate(
    (
        np.geomspace(_SMALLEST_ALPHA, _LOG_BELOW, 96),
        np.linspace(_LOG_BELOW, 1.0, 65)[1:],
    )
)


class TradeOff(ABC):
    r"""A trade-off function :math:`f:[0,1]\to[0,1]`, evaluated on arrays.

    Subclasses are frozen dataclasses that describe the function (their
    parameters); evaluation is vectorised. Calling ``f(alpha)`` validates
    ``alpha`` in [0, 1] and returns a float for scalar input.
    """

    #: The curve is exactly piecewise linear on the nodes of ``_nodes()``; the
    #: conjugate is then exact at the nodes and needs no refinement.
    _piecewise_linear: ClassVar[bool] = False

    def __call__(self, alpha: ArrayLike) -> Any:
        r"""Type II error :math:`f(\alpha)` of the most powerful level-alpha test.

        Args:
            alpha: Type I errors in [0, 1].

        Raises:
            ValueError: an ``alpha`` lies outside [0, 1] or is NaN.
        """
        a = check_array("alpha", alpha, 0.0, 1.0)
        return scalar_or_array(self._eval(a.ravel()).reshape(a.shape))

    @abstractmethod
    def _eval(self, a: FloatArray) -> FloatArray:
        """Unvalidated vectorised evaluation on an array in [0, 1]."""

    def _one_minus(self, a: FloatArray) -> FloatArray:
        """:math:`1 - f(\\alpha)`; overridden where a tail-stable form exists."""
        return 1.0 - self._eval(a)

    @property
    def is_symmetric(self) -> bool:
        r"""True when :math:`f = f^{-1}` (Dong et al. 2019, Sec. 2.1)."""
        return False

    def _breakpoints(self) -> tuple[float, ...]:
        """Abscissae of the kinks of the curve (used by quadrature and tables)."""
        return ()

    def _nodes(self) -> FloatArray:
        """Abscissae at which the curve is tabulated for grid methods."""
        return np.union1d(alpha_grid(), np.asarray(self._breakpoints(), np.float64))

    @functools.cached_property
    def _table(self) -> tuple[FloatArray, FloatArray]:
        x = self._nodes()
        return x, np.asarray(self._eval(x), dtype=np.float64)

    def inverse(self) -> TradeOff:
        r""":math:`f^{-1}(\alpha) = \inf\{t\in[0,1] : f(t) \le \alpha\}`
        (Dong et al. 2019, eq. (4)); :math:`f^{-1} = T(Q, P)` if :math:`f = T(P, Q)`.
        """
        if self.is_symmetric:
            return self
        return Inverse(self)

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        if self.is_symmetric:
            return self._eval(a)
        return bisect_inverse(self._eval, a, self._table)

    def fixed_point(self) -> float:
        r"""The fixed point :math:`\alpha^*` with :math:`f(\alpha^*) = \alpha^*`."""
        return float(self._fixed_point())

    def _fixed_point(self) -> float:
        return bracketed_fixed_point(self._eval)

    def auc(self) -> float:
        r"""Area under the curve :math:`\int_0^1 f(\alpha)\,d\alpha` (the
        :math:`\gamma` of Zheng et al. 2020, Sec. 4)."""
        return float(self._auc())

    def _auc(self) -> float:
        return integrate_unit(self._eval, self._breakpoints())

    def privacy_profile(self, eps: ArrayLike, *, method: str = "auto") -> Any:
        r""":math:`\delta(\varepsilon) = 1 + f^*(-e^\varepsilon)
        = \sup_{0\le x\le 1} [1 - f(x) - e^\varepsilon x]`.

        Dong et al. (2019), Prop. `ftoDPrep`; Zheng et al. (2020), Prop. 2.3. For an
        asymmetric :math:`f = T(P, Q)` this is the hockey-stick divergence
        :math:`E_{e^\varepsilon}(Q \| P)`, defined for every real
        :math:`\varepsilon` (negative values give the slopes in (-1, 0)).

        Args:
            eps: Real numbers (``+-inf`` allowed; beyond ``|eps| = 700`` the
                value at ``+-700`` is returned).
            method: ``"auto"`` (closed form where known) or ``"grid"`` (the
                generic conjugate on the alpha grid, for cross-checks).
        """
        e = check_array("eps", eps, allow_inf=True)
        check_choice("method", method, _METHODS)
        ec = np.clip(e, -EXP_CAP, EXP_CAP).ravel()
        d = self._profile(ec) if method == "auto" else self._grid_profile(ec)
        return scalar_or_array(checked_unit(d, "privacy_profile").reshape(e.shape))

    def _profile(self, e: FloatArray) -> FloatArray:
        return self._grid_profile(e)

    def _grid_profile(self, e: FloatArray) -> FloatArray:
        x, fx = self._table
        y = -capped_exp(e)
        return sup_affine(
            x,
            fx,
            lambda t, s: self._one_minus(t) + s * t,
            y,
            refine=not self._piecewise_linear,
        )

    def _inverse_profile(self, e: FloatArray) -> FloatArray:
        r"""Privacy profile of :math:`f^{-1}`, i.e. :math:`E_{e^\varepsilon}(P\|Q)`:
        for :math:`\varepsilon < 0`, :math:`1 - e^{\varepsilon} +
        e^{\varepsilon}\delta_f(-\varepsilon)` (complement of the rejection region),
        else the grid sup over the reflected graph."""
        if self.is_symmetric:
            return self._profile(e)
        out = np.empty_like(e)
        neg = e < 0
        if neg.any():
            en = e[neg]
            out[neg] = -np.expm1(en) + np.exp(en) * self._profile(-en)
        if (~neg).any():
            out[~neg] = self._grid_inverse_profile(e[~neg])
        return out

    def _grid_inverse_profile(self, e: FloatArray) -> FloatArray:
        r""":math:`\delta_{f^{-1}}(\varepsilon) = \sup_t [1 - t - e^\varepsilon f(t)]`
        (the graph of :math:`f^{-1}` reflected; no inversion)."""
        x, fx = self._table
        scale = capped_exp(e)
        return sup_affine(
            x,
            fx,
            lambda t, s: (1.0 - t) - scale * self._eval(t),
            -capped_exp(-e),
            refine=not self._piecewise_linear,
        )

    def conjugate(self, y: ArrayLike, *, method: str = "auto") -> Any:
        r"""Convex conjugate :math:`f^*(y) = \sup_{0\le x\le 1} [y x - f(x)]`
        (Dong et al. 2019, eq. (8)): :math:`\delta(\log(-y)) - 1` for :math:`y < 0`,
        :math:`y` for :math:`y \ge 0`.

        Args:
            y: Finite real numbers.
            method: ``"auto"`` or ``"grid"``.
        """
        y_in = check_array("y", y)
        check_choice("method", method, _METHODS)
        ys = y_in.ravel()
        if method == "grid":
            x, fx = self._table
            out = sup_affine(
                x,
                fx,
                lambda t, s: s * t - self._eval(t),
                ys,
                refine=not self._piecewise_linear,
            )
        else:
            out = ys.copy()
            neg = ys < 0
            if neg.any():
                e = np.clip(np.log(-ys[neg]), -EXP_CAP, EXP_CAP)
                out[neg] = checked_unit(self._profile(e), "conjugate") - 1.0
        if not np.all(np.isfinite(out)):
            raise FloatingPointError("conjugate produced non-finite values.")
        return scalar_or_array(out.reshape(y_in.shape))


def check_tradeoff(name: str, value: Any) -> TradeOff:
    """Raise TypeError unless ``value`` is a :class:`TradeOff`."""
    if not isinstance(value, TradeOff):
        raise TypeError(f"{name} must be a TradeOff. Found {type(value).__name__}.")
    return value


@dataclass(frozen=True)
class Inverse(TradeOff):
    r""":math:`f^{-1}(\alpha) = \inf\{t \in [0,1] : f(t) \le \alpha\}`, Dong et al.
    (2019), eq. (4); :math:`T(Q, P)` when :math:`f = T(P, Q)`.

    Args:
        base: The trade-off function :math:`f`.
    """

    base: TradeOff

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)

    @property
    def is_symmetric(self) -> bool:
        return self.base.is_symmetric

    def inverse(self) -> TradeOff:
        return self.base

    def _eval(self, a: FloatArray) -> FloatArray:
        return self.base._inverse_eval(a)

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        return self.base._eval(a)

    def _breakpoints(self) -> tuple[float, ...]:
        b = np.asarray(self.base._breakpoints(), dtype=np.float64)
        return tuple(float(v) for v in self.base._eval(b)) if b.size else ()

    def _profile(self, e: FloatArray) -> FloatArray:
        return self.base._inverse_profile(e)

    def _grid_profile(self, e: FloatArray) -> FloatArray:
        return self.base._grid_inverse_profile(e)

    def _inverse_profile(self, e: FloatArray) -> FloatArray:
        return self.base._profile(e)

    def _fixed_point(self) -> float:
        # f(a) = a iff f^{-1}(a) = a for a trade-off function.
        return self.base._fixed_point()

    def _auc(self) -> float:
        # The region under the graph of f^{-1} is the mirror image of that of f.
        return self.base._auc()
