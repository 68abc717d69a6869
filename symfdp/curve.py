r"""PrivacyCurve: the privacy of a composition, as every accountant reports it.

A curve holds one :class:`PairCurve` per dominating pair that the composition must
cover: one for symmetric mechanisms (or a single ``pair="add"``/``"remove"``), two
for add/remove adjacency (``pair="both"``). For each pair the composed privacy-loss
variable is :math:`T_n = \sum_i L_i`, and

* the privacy profile is :math:`\delta(\varepsilon) = E_{Q}[(1 - e^{\varepsilon -
  T_n})_+]` (Zheng et al. 2020, Lemma 5.1), maximised over the pairs;
* :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le
  \delta\}`;
* the trade-off is :math:`T(P^n, Q^n)` for a symmetric composition and the
  symmetrised, convexified :math:`\min\{f_1, f_1^{-1}, f_2, f_2^{-1}\}^{**}`
  otherwise (Dong et al. 2019, Def. 4.1 / App. F; Zheng et al. 2020, Sec. 5.3).
  For exact pairs :math:`f_2 = f_1^{-1}` and this is :math:`\min\{g, g^{-1}\}^{**}`.

Certified methods (``Numerical``, ``Exact``) also supply lower and upper bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._validation import check_array, scalar_or_array
from symfdp._warnings import warn_approximation
from symfdp.numeric.roots import expand_bracket_up, monotone_bisect
from symfdp.numeric.tabulate import alpha_grid, convex_minorant, tabulated_inverse

FloatArray = NDArray[np.float64]

#: Largest epsilon searched by :meth:`PrivacyCurve.epsilon`.
EPS_SEARCH_LIMIT = 1e4


@runtime_checkable
class PairCurve(Protocol):
    """Privacy of one composed dominating pair ``(P^n, Q^n)``.

    ``delta`` accepts any real ``eps`` (negative values matter for asymmetric
    pairs); ``tradeoff`` returns the (possibly asymmetric) ``T(P^n, Q^n)``.
    Optional methods, used when present: ``epsilon(delta)`` (a fast inverse),
    ``delta_bounds(eps)`` and ``tradeoff_bounds(alpha)`` (certified methods), and
    ``epsilon_bounds(delta)`` (a fast certified inverse; otherwise ``delta_bounds``
    is inverted by bisection).
    """

    def delta(self, eps: FloatArray) -> FloatArray: ...

    def tradeoff(self, alpha: FloatArray) -> FloatArray: ...


def _finite_or_raise(values: FloatArray, what: str, method: str) -> FloatArray:
    if not np.all(np.isfinite(values)):
        raise FloatingPointError(
            f"{method} produced a non-finite {what}; this is a bug in symfdp, "
            "please report it with the mechanism and parameters."
        )
    return values


def _clip_unit(values: FloatArray, what: str, method: str) -> FloatArray:
    values = _finite_or_raise(values, what, method)
    lo, hi = values.min(initial=0.0), values.max(initial=0.0)
    if lo < -1e-12 or hi > 1 + 1e-12:
        warn_approximation(
            f"{method}: {what} left [0, 1] (range [{lo:.3g}, {hi:.3g}]); clipped to "
            "[0, 1]. The approximation is outside its valid regime here; "
            "accountants.Numerical gives certified values.",
            stacklevel=4,
        )
    return np.clip(values, 0.0, 1.0)


@dataclass(frozen=True)
class PrivacyCurve:
    """Privacy of an n-fold (possibly heterogeneous) composition.

    Attributes:
        pairs: One :class:`PairCurve` per dominating pair to cover.
        method: Name of the accountant that produced the curve.
        symmetric: True when every composed mechanism is symmetric, so that the
            trade-off of the first pair needs no symmetrisation.
        certified: True when the pairs provide certified lower/upper bounds.
        info: Method-specific diagnostics (e.g. ``mu`` for GDP methods,
            grid sizes for Numerical).
    """

    pairs: tuple[PairCurve, ...]
    method: str
    symmetric: bool = True
    certified: bool = False
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not self.pairs:
            raise ValueError("a PrivacyCurve needs at least one pair.")

    # ------------------------------------------------------------- profile
    def delta(self, eps: ArrayLike) -> Any:
        r"""Privacy profile :math:`\delta(\varepsilon)`, the max over the pairs.

        Args:
            eps: One or more :math:`\varepsilon \ge 0`.

        Returns:
            A float for scalar input, else an array of the input's shape.
        """
        e = check_array("eps", eps, 0.0, math.inf, allow_inf=True)
        return scalar_or_array(self._delta(e))

    def _delta(self, e: FloatArray) -> FloatArray:
        vals = np.max([np.asarray(p.delta(e), dtype=np.float64) for p in self.pairs], 0)
        return _clip_unit(vals, "delta(eps)", self.method)

    def epsilon(self, delta: ArrayLike) -> Any:
        r""":math:`\varepsilon(\delta) = \inf\{\varepsilon\ge 0: \delta(\varepsilon)
        \le \delta\}`, the max over the pairs.

        Args:
            delta: One or more targets in (0, 1).
        """
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        eps = np.max([self._pair_epsilon(p, d) for p in self.pairs], axis=0)
        return scalar_or_array(_finite_or_raise(eps, "epsilon(delta)", self.method))

    def _pair_epsilon(self, pair: PairCurve, d: FloatArray) -> FloatArray:
        fast = getattr(pair, "epsilon", None)
        if fast is not None:
            return np.asarray(fast(d), dtype=np.float64)
        return invert_profile(lambda e: np.asarray(pair.delta(e), np.float64), d)

    # ------------------------------------------------------------- bounds
    def delta_bounds(self, eps: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on ``delta(eps)``."""
        self._require_certified("delta_bounds")
        e = check_array("eps", eps, 0.0, math.inf, allow_inf=True)
        lows, highs = zip(*(p.delta_bounds(e) for p in self.pairs), strict=True)
        lo = np.clip(np.max(np.asarray(lows, np.float64), 0), 0.0, 1.0)
        hi = np.clip(np.max(np.asarray(highs, np.float64), 0), 0.0, 1.0)
        return scalar_or_array(lo), scalar_or_array(hi)

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on ``epsilon(delta)``."""
        self._require_certified("epsilon_bounds")
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        lows, highs = [], []
        for p in self.pairs:
            fast = getattr(p, "epsilon_bounds", None)
            if fast is not None:
                lo, hi = fast(d)
                lows.append(np.asarray(lo, np.float64))
                highs.append(np.asarray(hi, np.float64))
                continue
            lows.append(invert_profile(lambda e, p=p: p.delta_bounds(e)[0], d))
            highs.append(invert_profile(lambda e, p=p: p.delta_bounds(e)[1], d))
        return (
            scalar_or_array(np.max(lows, axis=0)),
            scalar_or_array(np.max(highs, axis=0)),
        )

    def tradeoff_bounds(self, alpha: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on the symmetrised trade-off."""
        self._require_certified("tradeoff_bounds")
        a = check_array("alpha", alpha, 0.0, 1.0)
        lo = self._symmetrised(a, lambda p, x: p.tradeoff_bounds(x)[0])
        hi = self._symmetrised(a, lambda p, x: p.tradeoff_bounds(x)[1])
        return scalar_or_array(lo), scalar_or_array(hi)

    def _require_certified(self, what: str) -> None:
        if not self.certified:
            raise NotImplementedError(
                f"{what} needs a certified method; {self.method} gives an "
                "approximation. Use accountants.Numerical() or accountants.Exact()."
            )

    # ------------------------------------------------------------- trade-off
    def tradeoff(self, alpha: ArrayLike, symmetric: bool = True) -> Any:
        r"""Type II error :math:`\beta(\alpha)` of the composition.

        Args:
            alpha: Type I errors in [0, 1].
            symmetric: For an asymmetric composition, return the symmetrised
                curve :math:`\min\{f_1, f_1^{-1}, f_2, f_2^{-1}\}^{**}`
                (default); with ``False``, the raw curve of the first pair
                (``"add"``). Ignored when the composition is symmetric.
        """
        a = check_array("alpha", alpha, 0.0, 1.0)
        if self.symmetric or not symmetric:
            beta = np.asarray(self.pairs[0].tradeoff(a), dtype=np.float64)
            beta = _finite_or_raise(beta, "trade-off", self.method)
            return scalar_or_array(np.clip(beta, 0.0, 1.0 - a))
        return scalar_or_array(self._symmetrised(a, lambda p, x: p.tradeoff(x)))

    def _symmetrised(self, a: FloatArray, evaluate) -> FloatArray:
        grid = alpha_grid()
        candidates = []
        for pair in self.pairs:
            beta = np.asarray(evaluate(pair, grid), dtype=np.float64)
            beta = _finite_or_raise(beta, "trade-off", self.method)
            beta = np.minimum.accumulate(np.clip(beta, 0.0, 1.0 - grid))
            candidates.append(beta)
            if not self.symmetric:
                candidates.append(tabulated_inverse(grid, beta, grid))
        lower = np.min(candidates, axis=0)
        hull = convex_minorant(grid, lower)
        return np.clip(np.interp(a, grid, hull), 0.0, 1.0 - a)

    def mu_star_gamma(self) -> tuple[float, float]:
        r"""The (mu*, gamma) interpreter of Zheng et al. (2020), Sec. 4.

        :math:`\alpha^*` is the fixed point of the (symmetrised) trade-off,
        :math:`\mu^* = \Phi^{-1}(1-\alpha^*) - \Phi^{-1}(\alpha^*)` and
        :math:`\gamma = \int_0^1 f`.
        """
        from symfdp import tradeoff as T

        return T.mu_star_gamma(lambda x: np.asarray(self.tradeoff(x), np.float64))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the trade-off curve on ``ax`` (a new figure if None); returns ax."""
        from symfdp import plotting

        return plotting.plot_tradeoff(self, ax=ax, **kwargs)

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.info.items() if k == "mu")
        return (
            f"PrivacyCurve(method={self.method!r}, pairs={len(self.pairs)}, "
            f"certified={self.certified}{extra})"
        )


def invert_profile(delta_fn, target: FloatArray) -> FloatArray:
    r"""Vectorised :math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le d\}`.

    Assumes ``delta_fn`` is non-increasing (true for every exact profile and
    enforced by the repairs of the approximations).
    """
    target = np.asarray(target, dtype=np.float64)
    zeros = np.zeros_like(target)
    hi = expand_bracket_up(
        delta_fn, target, zeros, np.ones_like(target), limit=EPS_SEARCH_LIMIT
    )
    return monotone_bisect(delta_fn, target, zeros, hi, xtol=1e-12, rtol=1e-13)
