r"""PrivacyCurve: the privacy of a composition, as every accountant reports it.

A curve holds one :class:`PairCurve` per dominating pair to cover (two for
add/remove adjacency), each with composed loss :math:`T_n = \sum_i L_i`:

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

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._validation import check_array, check_bool, scalar_or_array
from symfdp._warnings import emitted, warn_approximation
from symfdp.numeric.roots import expand_bracket_up, monotone_bisect
from symfdp.numeric.tabulate import alpha_grid, lower_convex_hull
from symfdp.pld.profile import loss_range_profile_limits, loss_range_tradeoff_floor

FloatArray = NDArray[np.float64]

#: Largest epsilon searched by :meth:`PrivacyCurve.epsilon`.
EPS_SEARCH_LIMIT = 1e4
#: Errors below these are round-off, never warned about (delta, epsilon).
_DELTA_ATOL = 1e-300
_EPS_ATOL = 1e-9
#: Relative width of the certified mu* bracket beyond which mu_star_gamma warns.
MU_STAR_RTOL = 1e-2


@runtime_checkable
class PairCurve(Protocol):
    """Privacy of one composed dominating pair ``(P^n, Q^n)``: ``delta`` at any
    real ``eps``, the (possibly asymmetric) ``tradeoff``. Optional, used when
    present: ``epsilon``, ``delta_bounds``, ``epsilon_bounds``, ``tradeoff_bounds``
    (certified methods) and :class:`ErrorEstimating`'s methods."""

    def delta(self, eps: FloatArray) -> FloatArray: ...

    def tradeoff(self, alpha: FloatArray) -> FloatArray: ...


@runtime_checkable
class ErrorEstimating(Protocol):
    """A pair curve whose answers carry an estimate (>= 0, ``inf`` when unknown,
    not a bound) of their absolute error, from the method's own mathematics.
    Inputs are validated float64 arrays (finite ``eps``; ``delta`` in (0, 1))."""

    def delta_and_error(self, eps: FloatArray) -> tuple[FloatArray, FloatArray]: ...

    def epsilon_and_error(self, delta: FloatArray) -> tuple[FloatArray, FloatArray]: ...


class _Certified(Protocol):
    """A pair curve with certified bounds (the optional ``delta_bounds``)."""

    def delta_bounds(self, eps: FloatArray) -> tuple[FloatArray, FloatArray]: ...


def _bound(pair: _Certified, side: int) -> Callable[[FloatArray], FloatArray]:
    """``eps -> pair.delta_bounds(eps)[side]`` (0: lower, 1: upper)."""
    return lambda e: pair.delta_bounds(e)[side]


#: The methods of :class:`ErrorEstimating`.
_ESTIMATE_METHODS: tuple[str, ...] = ("delta_and_error", "epsilon_and_error")


def max_with_error(
    values: list[FloatArray], errors: list[FloatArray]
) -> tuple[FloatArray, FloatArray]:
    r"""The maximum :math:`M = \max_k v_k` over pairs and its error: the larger
    distance of :math:`M` to :math:`[\max_k(v_k - e_k), \max_k(v_k + e_k)]`."""
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


#: A one-point query's point and its pairs' values and errors.
_PointAnswers = tuple[float, tuple[float, ...], tuple[float, ...]]


def _max_with_error_point(
    values: list[float], errors: list[float]
) -> tuple[float, float]:
    """:func:`max_with_error` at one point in Python floats (the same
    arithmetic; a NaN propagates as in NumPy's maximum)."""
    if len(values) == 1:
        top, err = values[0], errors[0]
        err = max((top + err) - top, top - (top - err))
    else:
        top = _max_nan(values)
        up = _max_nan([v + r for v, r in zip(values, errors, strict=True)]) - top
        down = top - _max_nan([v - r for v, r in zip(values, errors, strict=True)])
        err = _max_nan([up, down])
    return top, (math.inf if math.isnan(err) else err)


def _max_nan(values: list[float]) -> float:
    """``max`` that returns NaN when an entry is NaN (as ``np.max``)."""
    top = max(values)
    return math.nan if any(math.isnan(v) for v in values) else top


def scalar_method(pair: Any, name: str) -> Callable[[float], Any] | None:
    """The pair's one-point method ``name`` (``delta_and_error_scalar(eps)`` or
    ``epsilon_and_error_scalar(delta)``, each ``-> (value, error) | None``)
    when its class defines one (looked up on the class, so that wrappers that
    forward other attributes to a wrapped pair never expose the wrapped
    pair's; a :class:`BoundedLossPair` only when its wrapped pair has one),
    else None."""
    if getattr(type(pair), name, None) is None:
        return None
    if isinstance(pair, BoundedLossPair) and scalar_method(pair._pair, name) is None:
        return None
    return cast(Callable[[float], Any], getattr(pair, name))


def _finite_or_raise(values: FloatArray, what: str, method: str) -> FloatArray:
    if not np.all(np.isfinite(values)):
        raise FloatingPointError(
            f"{method} produced a non-finite {what}; this is a bug in symfdp, "
            "please report it with the mechanism and parameters."
        )
    return values


def _clip_unit(values: FloatArray, what: str, method: str) -> FloatArray:
    values = _finite_or_raise(values, what, method)
    if values.size and (values.min() < -1e-12 or values.max() > 1 + 1e-12):
        lo, hi = values.min(initial=0.0), values.max(initial=0.0)
        warn_approximation(
            f"{method}: {what} left [0, 1] (range [{lo:.3g}, {hi:.3g}]); clipped to "
            "[0, 1]. The approximation is outside its valid regime here; "
            "accountants.Numerical gives certified values."
        )
    return np.minimum(np.maximum(values, 0.0), 1.0)


def _profile_floor(
    eps: FloatArray, values: FloatArray, method: str, certified: bool
) -> FloatArray:
    r"""Raise a profile to :math:`\max\{\delta(\varepsilon), 1 - e^\varepsilon\}`
    (:math:`\delta \ge 1 - e^\varepsilon E_Q[e^{-L}]` for every pair); warns for
    approximations, silent for certified estimates."""
    floor = -np.expm1(np.minimum(eps, 0.0))
    short = float(np.max(floor - values, initial=0.0))
    if short > 1e-12 and not certified:
        warn_approximation(
            f"{method}: delta(eps) fell below 1 - e^eps (by up to {short:.3g}), "
            "which no dominating pair allows; raised to it. The approximation is "
            "outside its valid regime here; accountants.Numerical gives certified "
            "values."
        )
    return np.maximum(values, floor)


class BoundedLossPair:
    r"""A pair curve repaired into the range its composed loss allows.

    When the composed privacy loss :math:`T` lies in :math:`[a, b]` under Q (the
    sums of the components' supports), then for every real :math:`\varepsilon`

    .. math::  (1 - e^{\varepsilon - a})_+ \le \delta(\varepsilon)
               = E_Q[(1 - e^{\varepsilon - T})_+] \le (1 - e^{\varepsilon - b})_+,

    so :math:`\varepsilon(\delta) \le b` and :math:`f(\alpha) \ge \max\{1 -
    e^{b}\alpha, e^{a}(1 - \alpha)\}` (Dong et al. 2019, Prop. 2.4 at
    :math:`\varepsilon = b`). Values outside are clipped, with an
    :class:`~symfdp.ApproximationWarning` when ``warn`` (approximations; bounds
    stay valid). Every other attribute is the wrapped pair's.
    """

    def __init__(
        self,
        pair: Any,
        lo: float,
        hi: float,
        method: str,
        warn: bool = True,
        *,
        lattice_span: float | None = None,
    ) -> None:
        self._pair = pair
        self.loss_range = (float(lo), float(hi))
        self._method = method
        self._warn = warn
        self.lattice_span = lattice_span

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pair, name)

    def __repr__(self) -> str:
        return f"BoundedLossPair({self._pair!r}, loss_range={self.loss_range})"

    def _report(self, what: str) -> None:
        if self._warn:
            a, b = self.loss_range
            warn_approximation(
                f"{self._method}: {what} left the range allowed by the composed "
                f"privacy loss, which lies in [{a:.6g}, {b:.6g}]; clipped into it. "
                "The approximation is outside its valid regime here (too few "
                "compositions for a loss of bounded support); accountants.Numerical "
                "gives certified values."
            )

    def delta(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=np.float64)
        return self._clip_delta(e, np.asarray(self._pair.delta(e), dtype=np.float64))

    def delta_and_error(self, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The clipped profile and the wrapped pair's error estimate."""
        d, err = self._pair.delta_and_error(eps)
        d = self._clip_delta(eps, np.asarray(d, dtype=np.float64))
        if self.lattice_span is not None:
            # The profile moved by the lattice floor of epsilon (see below).
            shift = self._lattice_floor()
            up = np.asarray(self._pair.delta(eps - shift), dtype=np.float64)
            down = np.asarray(self._pair.delta(eps + shift), dtype=np.float64)
            err = np.maximum(err, 0.5 * np.abs(up - down))
        return d, err

    def delta_and_error_scalar(self, e: float) -> tuple[float, float] | None:
        """:meth:`delta_and_error` at one finite ``eps`` in Python floats, when
        the wrapped pair has a one-point path (:func:`scalar_method`) and the
        loss is not on a lattice; else None."""
        if self.lattice_span is not None:
            return None
        fn = scalar_method(self._pair, "delta_and_error_scalar")
        found = None if fn is None else fn(e)
        if found is None:
            return None
        return self._clip_delta_point(e, found[0]), found[1]

    def epsilon_and_error_scalar(self, d: float) -> tuple[float, float] | None:
        """:meth:`epsilon_and_error` at one ``delta`` in Python floats, when the
        wrapped pair has a one-point path; else None."""
        fn = scalar_method(self._pair, "epsilon_and_error_scalar")
        found = None if fn is None else fn(d)
        if found is None:
            return None
        eps, err = found
        if self.lattice_span is not None:
            err = max(err, self._lattice_floor())
        return self._clip_epsilon_point(d, eps), err

    def _lattice_floor(self) -> float:
        r""":math:`h^2/8` for a loss on a lattice of span :math:`h`: about the most
        a smooth approximation of the piecewise-smooth profile misses
        :math:`\varepsilon(\delta)` by, whatever the number of compositions."""
        h = float(self.lattice_span or 0.0)
        return h * h / 8.0

    def _clip_delta(self, e: FloatArray, d: FloatArray) -> FloatArray:
        if d.size == 1 and e.size == 1:
            return np.full(
                d.shape, self._clip_delta_point(float(e.flat[0]), float(d.flat[0]))
            )
        floor, top = loss_range_profile_limits(e, self.loss_range)
        if (d > top + 1e-12).any() or (d < floor - 1e-12).any():
            self._report("delta(eps)")
        return np.minimum(np.maximum(d, floor), top)

    def _clip_delta_point(self, e: float, d: float) -> float:
        """:meth:`_clip_delta` at one point (Python floats)."""
        a, b = self.loss_range
        top = -math.expm1(min(e - b, 0.0))
        floor = 0.0 if e - a > 700.0 else max(-math.expm1(e - a), 0.0)
        if d > top + 1e-12 or d < floor - 1e-12:
            self._report("delta(eps)")
        return min(max(d, floor), top)

    def epsilon(self, delta: ArrayLike) -> FloatArray:
        d = np.asarray(delta, dtype=np.float64)
        fast = getattr(self._pair, "epsilon", None)
        if fast is None:
            eps = invert_profile(lambda e: np.asarray(self._pair.delta(e)), d)
        else:
            eps = np.asarray(fast(d), dtype=np.float64)
        return self._clip_epsilon(d, eps)

    def epsilon_and_error(self, delta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The clipped inverse and the wrapped pair's error estimate."""
        eps, err = self._pair.epsilon_and_error(delta)
        if self.lattice_span is not None:
            err = np.maximum(err, self._lattice_floor())
        return self._clip_epsilon(delta, np.asarray(eps, dtype=np.float64)), err

    def _clip_epsilon(self, d: FloatArray, eps: FloatArray) -> FloatArray:
        # The clipped profile's inverse lies in [a, b] + log(1 - d).
        a, b = self.loss_range
        cap = b + np.log1p(-d)
        # eps >= 0 by definition: a cap below 0 is no violation at eps = 0.
        top = np.maximum(cap, 0.0)
        if np.any(eps > top + 1e-12 * np.maximum(np.abs(top), 1.0)):
            self._report("epsilon(delta)")
        return np.maximum(np.minimum(eps, cap), np.maximum(a + np.log1p(-d), 0.0))

    def _clip_epsilon_point(self, d: float, eps: float) -> float:
        """:meth:`_clip_epsilon` at one point (Python floats)."""
        a, b = self.loss_range
        log_keep = float(np.log1p(-d))
        cap = b + log_keep
        top = max(cap, 0.0)
        if eps > top + 1e-12 * max(abs(top), 1.0):
            self._report("epsilon(delta)")
        return max(min(eps, cap), max(a + log_keep, 0.0))

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        x = np.asarray(alpha, dtype=np.float64)
        beta = np.asarray(self._pair.tradeoff(x), dtype=np.float64)
        floor = np.minimum(loss_range_tradeoff_floor(x, self.loss_range), 1.0 - x)
        if np.any(beta < floor - 1e-12):
            self._report("the trade-off")
        return np.maximum(beta, floor)


@dataclass(frozen=True)
class PrivacyCurve:
    """Privacy of an n-fold (possibly heterogeneous) composition.

    Attributes:
        pairs: One :class:`PairCurve` per dominating pair to cover.
        method: Name of the accountant that produced the curve.
        symmetric: True when the first pair's trade-off needs no symmetrisation.
        certified: True when the pairs provide certified lower/upper bounds.
        info: Method-specific diagnostics, read-only.
        warn_rel_error: ``delta`` and ``epsilon`` warn once per query when the
            estimated error exceeds this fraction of an answer (``None``: never).
    """

    pairs: tuple[PairCurve, ...]
    method: str
    symmetric: bool = True
    certified: bool = False
    info: Mapping[str, Any] = field(default_factory=dict, compare=False)
    warn_rel_error: float | None = None

    def __post_init__(self) -> None:
        self._check()
        _freeze_info(self)

    def _check(self) -> None:
        if not self.pairs:
            raise ValueError("a PrivacyCurve needs at least one pair.")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle (and copy) by the constructor's fields (``info`` as a dict)."""
        values = (getattr(self, f.name) for f in fields(self) if f.init)
        args = tuple(dict(v) if isinstance(v, MappingProxyType) else v for v in values)
        return (type(self), args)

    # ------------------------------------------------------------- profile
    def delta(self, eps: ArrayLike) -> Any:
        r"""Privacy profile :math:`\delta(\varepsilon)`, the max over the pairs.

        Clipped to :math:`[\max(0, 1 - e^\varepsilon), 1]`; an ApproximationWarning
        when an approximation leaves that range or its :meth:`delta_error` exceeds
        ``warn_rel_error`` of the answer.

        Args:
            eps: One or more real :math:`\varepsilon` (negative values are
                meaningful for asymmetric pairs; :math:`\delta(-\infty) = 1`).

        Returns:
            A float for scalar input, else an array of the input's shape.
        """
        if isinstance(eps, float) and math.isfinite(eps) and self._warns_on_error():
            return cast(Any, self._delta_point(eps))
        e = check_array("eps", eps, allow_inf=True)
        if self._warns_on_error():
            before = emitted()
            vals, err = self._delta_and_error(e)
            if emitted() == before:  # the approximation reported nothing itself
                self._warn_error("delta(eps)", "eps", e, vals, err, _DELTA_ATOL)
            return scalar_or_array(vals)
        return scalar_or_array(self._delta(e))

    @functools.cached_property
    def _scalar_paths(self) -> dict[str, tuple[Any, ...]]:
        """Per query kind, each pair's one-point method (:func:`scalar_method`)
        or None (the pair answers one point through its array method)."""
        return {
            name: tuple(scalar_method(p, name) for p in self.pairs)
            for name in ("delta_and_error_scalar", "epsilon_and_error_scalar")
        }

    def _pair_points(
        self, name: str, at: float, at0: FloatArray
    ) -> tuple[list[float], list[float]]:
        """Every pair's ``(value, error)`` at one point: its one-point method
        ``name`` at the float ``at``, else (or where that does not serve) its
        array method at ``at0``; then :func:`_refuse_unresolved`."""
        memo = self._last_points.get(name)
        if memo is not None and memo[0] == at:
            return list(memo[1]), list(memo[2])
        array_name = name.removesuffix("_scalar")
        vals: list[float] = []
        errs: list[float] = []
        for pair, fn in zip(self.pairs, self._scalar_paths[name], strict=True):
            found = None if fn is None else fn(at)
            if found is None:
                v, r = getattr(pair, array_name)(at0)
                found = (float(np.reshape(v, -1)[0]), float(np.reshape(r, -1)[0]))
            vals.append(found[0])
            errs.append(found[1])
        for pair, err_k in zip(self.pairs, errs, strict=True):
            if getattr(pair, "refuses_unresolved", False) and not math.isfinite(err_k):
                # The plain query raises the pair's refusal (_refuse_unresolved).
                plain = "delta" if array_name == "delta_and_error" else "epsilon"
                getattr(pair, plain)(at0)
        self._last_points[name] = (at, tuple(vals), tuple(errs))
        return vals, errs

    @functools.cached_property
    def _last_points(self) -> dict[str, _PointAnswers]:
        """Per one-point query kind, the last point :meth:`_pair_points`
        answered and the pairs' values and errors there: an error asked after
        its value (``epsilon(d)`` then ``epsilon_error(d)``) is not computed
        twice."""
        return {}

    def _error_exceeds(self, value: float, err: float, atol: float) -> bool:
        """:meth:`_warn_error`'s test at one point (Python floats)."""
        worst = 0.0
        if err > atol:
            worst = err / abs(value) if value != 0.0 else math.inf
            if math.isnan(worst):
                worst = math.inf
        return worst > float(self.warn_rel_error or 0.0)

    def _delta_point(self, ev: float) -> float:
        """:meth:`delta` (with its error check) at one finite ``eps`` in Python
        floats: the operations of :meth:`_delta_and_error`,
        :func:`max_with_error`, :meth:`_repaired_profile` and
        :meth:`_warn_error` on floats, each pair through its one-point method
        where it has one (the same values and warnings as the array path)."""
        before = emitted()
        e0 = np.asarray(ev, dtype=np.float64)
        vals, errs = self._pair_points("delta_and_error_scalar", ev, e0.reshape(1))
        top, err = _max_with_error_point(vals, errs)
        floor = -math.expm1(min(ev, 0.0))
        if not (math.isfinite(top) and 0.0 <= top <= 1.0 and top >= floor):
            # A repair to report: the array path (same values).
            top = float(self._repaired_profile(e0, np.array([top]), np.asarray(True)))
        if emitted() == before and self._error_exceeds(top, err, _DELTA_ATOL):
            self._warn_error(
                "delta(eps)", "eps", e0, np.asarray(top), np.asarray(err), _DELTA_ATOL
            )
        return top

    def _epsilon_point(self, dv: float) -> float:
        """:meth:`epsilon` (with its error check) at one ``delta`` in (0, 1) in
        Python floats (see :meth:`_delta_point`)."""
        before = emitted()
        d0 = np.asarray(dv, dtype=np.float64)
        vals, errs = self._pair_points("epsilon_and_error_scalar", dv, d0)
        top, err = _max_with_error_point(vals, errs)
        if not math.isfinite(top):
            _finite_or_raise(np.asarray(top), "epsilon(delta)", self.method)
        if emitted() == before and self._error_exceeds(top, err, _EPS_ATOL):
            self._warn_error(
                "epsilon(delta)",
                "delta",
                d0,
                np.asarray(top),
                np.asarray(err),
                _EPS_ATOL,
            )
        return top

    def _delta(self, e: FloatArray) -> FloatArray:
        finite = np.isfinite(e)
        ef = e[finite]
        per_pair = [np.asarray(p.delta(ef), dtype=np.float64) for p in self.pairs]
        return self._repaired_profile(e, np.max(per_pair, 0))

    def _delta_and_error(self, e: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Profile and error estimate (exactly 0 at eps = +-inf)."""
        finite = np.isfinite(e)
        every = bool(finite.all())
        ef = e.flatten() if every else e[finite]  # 1-d copies, as the pairs expect
        parts = [cast(ErrorEstimating, p).delta_and_error(ef) for p in self.pairs]
        _refuse_unresolved(self.pairs, parts, lambda p: p.delta(ef))
        top, err_f = max_with_error([v for v, _ in parts], [r for _, r in parts])
        if every:
            return self._repaired_profile(e, top, finite), err_f.reshape(e.shape)
        err = np.zeros(e.shape)
        err[finite] = err_f
        return self._repaired_profile(e, top, finite), err

    def _repaired_profile(
        self, e: FloatArray, top: FloatArray, finite: FloatArray | None = None
    ) -> FloatArray:
        """The profile at ``e`` from the pairs' maximum ``top`` at its finite
        entries, clipped to its valid range (see :meth:`delta`)."""
        # delta(+inf) = 0, delta(-inf) = 1 (finite losses); pairs see finite eps.
        if finite is None:
            finite = np.isfinite(e)
        if e.size == 1 and finite.all():
            # One point in Python floats; a repair goes to the array path.
            v, ev = float(np.reshape(top, -1)[0]), float(e.flat[0])
            floor = -math.expm1(min(ev, 0.0))
            if math.isfinite(v) and 0.0 <= v <= 1.0 and v >= floor:
                return np.full(e.shape, v)
        if finite.all():
            return _profile_floor(
                e,
                _clip_unit(np.reshape(top, e.shape), "delta(eps)", self.method),
                self.method,
                self.certified,
            )
        vals = np.where(e < 0, 1.0, 0.0)
        if finite.any():
            vals[finite] = _profile_floor(
                e[finite],
                _clip_unit(top, "delta(eps)", self.method),
                self.method,
                self.certified,
            )
        return vals

    def epsilon(self, delta: ArrayLike) -> Any:
        r""":math:`\varepsilon(\delta) = \inf\{\varepsilon\ge 0: \delta(\varepsilon)
        \le \delta\}`, the max over the pairs.

        Warns as :meth:`delta` does (:meth:`epsilon_error`).

        Args:
            delta: One or more targets in (0, 1).
        """
        if isinstance(delta, float) and 0.0 < delta < 1.0 and self._warns_on_error():
            return cast(Any, self._epsilon_point(delta))
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        if d.size == 0:  # nothing to answer (a curve that cannot would raise)
            return np.empty(d.shape)
        if self._warns_on_error():
            before = emitted()
            eps, err = self._epsilon_and_error(d)
            if emitted() == before:  # the approximation reported nothing itself
                self._warn_error("epsilon(delta)", "delta", d, eps, err, _EPS_ATOL)
            return scalar_or_array(eps)
        eps = np.max([self._pair_epsilon(p, d) for p in self.pairs], axis=0)
        return scalar_or_array(_finite_or_raise(eps, "epsilon(delta)", self.method))

    def _epsilon_and_error(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        parts = [cast(ErrorEstimating, p).epsilon_and_error(d) for p in self.pairs]
        _refuse_unresolved(self.pairs, parts, lambda p: p.epsilon(d))
        eps, err = max_with_error([v for v, _ in parts], [r for _, r in parts])
        return _finite_or_raise(eps, "epsilon(delta)", self.method), err

    def _pair_epsilon(self, pair: PairCurve, d: FloatArray) -> FloatArray:
        fast = getattr(pair, "epsilon", None)
        if fast is not None:
            return np.asarray(fast(d), dtype=np.float64)
        return invert_profile(lambda e: np.asarray(pair.delta(e), np.float64), d)

    # ------------------------------------------------------------- errors
    @functools.cached_property
    def estimates_error(self) -> bool:
        """Whether :meth:`delta_error` / :meth:`epsilon_error` are available: every
        pair of an approximation estimates its error, or the curve is certified."""
        return self.certified or all(_pair_estimates_error(p) for p in self.pairs)

    def delta_error(self, eps: ArrayLike) -> Any:
        r"""Estimated absolute error of :meth:`delta` at ``eps``.

        The method's own estimate (CLT, Edgeworth, SaddlePoint, Contour) or the
        half-width of :meth:`delta_bounds` (certified); over pairs as in
        :func:`max_with_error`.

        Raises:
            NotImplementedError: the method gives a bound or an approximation
                without an error estimate (BerryEsseen, RDP, recursion).
        """
        e = check_array("eps", eps, allow_inf=True)
        if self.certified:
            lo, hi = self.delta_bounds(e)
            return scalar_or_array(0.5 * (np.asarray(hi) - np.asarray(lo)))
        self._require_estimates("delta_error")
        if isinstance(eps, float) and math.isfinite(eps):
            vals, errs = self._pair_points("delta_and_error_scalar", eps, e.reshape(1))
            return _max_with_error_point(vals, errs)[1]
        return scalar_or_array(self._delta_and_error(e)[1])

    def epsilon_error(self, delta: ArrayLike) -> Any:
        r"""Estimated absolute error of :meth:`epsilon` at ``delta`` (the bracket
        half-width for certified curves; see :meth:`delta_error`)."""
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        if d.size == 0:
            return np.empty(d.shape)
        if self.certified:
            lo, hi = self.epsilon_bounds(d)
            return scalar_or_array(0.5 * (np.asarray(hi) - np.asarray(lo)))
        self._require_estimates("epsilon_error")
        if isinstance(delta, float):
            vals, errs = self._pair_points("epsilon_and_error_scalar", delta, d)
            top, err = _max_with_error_point(vals, errs)
            if not math.isfinite(top):
                _finite_or_raise(np.asarray(top), "epsilon(delta)", self.method)
            return err
        return scalar_or_array(self._epsilon_and_error(d)[1])

    def _require_estimates(self, what: str) -> None:
        if not self.estimates_error:
            raise NotImplementedError(
                f"{what}: {self.method} gives a bound or an approximation without an "
                "error estimate. Methods with one: CLT, Edgeworth, SaddlePoint, "
                "Contour; certified brackets: Numerical, Exact."
            )

    def _warns_on_error(self) -> bool:
        return (
            self.warn_rel_error is not None
            and not self.certified
            and self.estimates_error
        )

    def _warn_error(
        self,
        query: str,
        arg: str,
        at: FloatArray,
        values: FloatArray,
        errors: FloatArray,
        atol: float,
    ) -> None:
        """One warning when some ``errors > warn_rel_error * |values|`` (and above
        ``atol``), naming the worst point."""
        tol = float(self.warn_rel_error or 0.0)
        if errors.size == 1:  # in Python floats, the same comparison
            err, val = float(errors.flat[0]), float(values.flat[0])
            worst = 0.0
            if err > atol:
                worst = err / abs(val) if val != 0.0 else math.inf
                if math.isnan(worst):
                    worst = math.inf
            if not worst > tol:
                return
            k = 0
        else:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                rel = np.where(errors > atol, errors / np.abs(values), 0.0)
            rel[np.isnan(rel)] = np.inf
            if not (rel > tol).any():
                return
            k = int(np.argmax(rel))
            worst = float(rel.flat[k])
        size = (
            "unknown (the method cannot estimate it here)"
            if math.isinf(worst)
            else (f"{100 * worst:.3g}%")
        )
        warn_approximation(
            f"{self.label}: the estimated relative error of {query} is {size} at "
            f"{arg} = {float(at.flat[k]):.6g} (answer {float(values.flat[k]):.6g}, "
            f"estimated error {float(errors.flat[k]):.3g}), above warn_rel_error = "
            f"{tol:g}. Use accountants.Numerical for a certified bracket "
            "(curve.epsilon_bounds / delta_bounds)."
        )

    @property
    def label(self) -> str:
        """The method with its order, e.g. ``Edgeworth(order=4)``."""
        order = self.info.get("order")
        return self.method if order is None else f"{self.method}(order={order})"

    # ------------------------------------------------------------- bounds
    def delta_bounds(self, eps: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on ``delta(eps)``, eps real."""
        self._require_certified("delta_bounds")
        e = check_array("eps", eps, allow_inf=True)
        # delta(+-inf) is exact (see _delta); the pairs see finite eps only
        # (Numerical formed inf - inf = NaN at eps = +-inf for an unbounded loss).
        lo = np.where(e < 0, 1.0, 0.0)
        hi = lo.copy()
        finite = np.isfinite(e)
        if finite.any():
            ef = e[finite]
            lows, highs = zip(
                *(cast(_Certified, p).delta_bounds(ef) for p in self.pairs), strict=True
            )
            lo[finite] = np.clip(np.max(np.asarray(lows, np.float64), 0), 0.0, 1.0)
            hi[finite] = np.clip(np.max(np.asarray(highs, np.float64), 0), 0.0, 1.0)
        return scalar_or_array(lo), scalar_or_array(hi)

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on ``epsilon(delta)``."""
        self._require_certified("epsilon_bounds")
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        if d.size == 0:
            return np.empty(d.shape), np.empty(d.shape)
        lows, highs = [], []
        for p in self.pairs:
            fast = getattr(p, "epsilon_bounds", None)
            if fast is not None:
                lo, hi = fast(d)
                lows.append(np.asarray(lo, np.float64))
                highs.append(np.asarray(hi, np.float64))
                continue
            pair = cast(_Certified, p)
            lows.append(invert_profile(_bound(pair, 0), d))
            highs.append(invert_profile(_bound(pair, 1), d))
        return (
            scalar_or_array(np.max(lows, axis=0)),
            scalar_or_array(np.max(highs, axis=0)),
        )

    def tradeoff_bounds(self, alpha: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on the (symmetrised) trade-off
        (min{f, f^{-1}}** is monotone in f: lower bound from the certified step
        function, upper from chords)."""
        self._require_certified("tradeoff_bounds")
        a = check_array("alpha", alpha, 0.0, 1.0)
        if self.symmetric:
            lo, hi = self.pairs[0].tradeoff_bounds(a)  # type: ignore[attr-defined]
            lo = np.clip(np.asarray(lo, np.float64), 0.0, 1.0 - a)
            hi = np.clip(np.asarray(hi, np.float64), 0.0, 1.0 - a)
            return scalar_or_array(lo), scalar_or_array(hi)
        grid = alpha_grid()
        lows, highs = [], []
        for pair in self.pairs:
            lo, hi = pair.tradeoff_bounds(grid)  # type: ignore[attr-defined]
            lows.append(self._tabulate(grid, lo))
            highs.append(self._tabulate(grid, hi))
        lower_points = [
            convex_lower_bound_points(grid, lo, hi)
            for lo, hi in zip(lows, highs, strict=True)
        ]
        upper_points = [(grid, hi) for hi in highs]
        return (
            scalar_or_array(_symmetric_hull(a, lower_points)),
            scalar_or_array(_symmetric_hull(a, upper_points)),
        )

    def raw(self) -> PrivacyCurve:
        """The same curve without the loss-range repair of
        :class:`BoundedLossPair` (certified curves as they are)."""
        pairs = tuple(getattr(p, "_pair", p) for p in self.pairs)
        return PrivacyCurve(
            pairs,
            self.method,
            self.symmetric,
            self.certified,
            dict(self.info),
            self.warn_rel_error,
        )

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
        symmetric = check_bool("symmetric", symmetric)
        if self.symmetric or not symmetric:
            beta = np.asarray(self.pairs[0].tradeoff(a), dtype=np.float64)
            beta = _finite_or_raise(beta, "trade-off", self.method)
            return scalar_or_array(np.clip(beta, 0.0, 1.0 - a))
        return scalar_or_array(self._symmetrised(a, lambda p, x: p.tradeoff(x)))

    def _tabulate(self, grid: FloatArray, beta: Any) -> FloatArray:
        beta = _finite_or_raise(np.asarray(beta, np.float64), "trade-off", self.method)
        return np.minimum.accumulate(np.clip(beta, 0.0, 1.0 - grid))

    def _symmetrised(self, a: FloatArray, evaluate: Any) -> FloatArray:
        r"""Evaluate :math:`\min\{f_1, f_1^{-1}, f_2, f_2^{-1}\}^{**}` at ``a``,
        each pair's curve tabulated on :func:`alpha_grid` (see
        :func:`_symmetric_hull`)."""
        grid = alpha_grid()
        points = [(grid, self._tabulate(grid, evaluate(p, grid))) for p in self.pairs]
        return cast(FloatArray, _symmetric_hull(a, points))

    def mu_star_gamma(self) -> tuple[float, float]:
        r"""The (mu*, gamma) interpreter of Zheng et al. (2020), Sec. 4.

        :math:`\alpha^*` is the fixed point of the (symmetrised) trade-off,
        :math:`\mu^* = \Phi^{-1}(1-\alpha^*) - \Phi^{-1}(\alpha^*)` and
        :math:`\gamma = \int_0^1 f`.

        Certified curves warn when the bracket of :math:`\mu^*` from the bounds'
        fixed points is wider than ``MU_STAR_RTOL`` relative.
        """
        from symfdp import tradeoff as T

        out = T.mu_star_gamma(lambda x: np.asarray(self.tradeoff(x), np.float64))
        if self.certified:
            self._check_mu_star(T)
        return out

    def _check_mu_star(self, T: Any) -> None:
        from symfdp.tradeoff.interpret import mu_star_at

        lows, highs = (
            T.fixed_point(lambda x, k=k: np.asarray(self.tradeoff_bounds(x)[k]))
            for k in (0, 1)
        )
        mu_lo, mu_hi = mu_star_at(highs), mu_star_at(lows)
        if mu_hi - mu_lo > MU_STAR_RTOL * max(mu_lo, 1.0):
            warn_approximation(
                f"{self.method}: mu* is certified only within [{mu_lo:.4g}, "
                f"{mu_hi:.4g}]: the trade-off bracket is wide near the fixed "
                "point (a composition with little privacy left, alpha* = "
                f"{highs:.3g} or less). Tighten the method (e.g. a smaller "
                "eps_rel_tol for accountants.Numerical); accountants.Exact gives "
                "closed forms for Gaussian and pure-DP compositions."
            )

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the trade-off curve on ``ax`` (a new figure if None); returns ax."""
        from symfdp import plotting

        return plotting.plot_tradeoff(self, ax=ax, **kwargs)

    def _repr_markdown_(self) -> str:
        """Notebook display: method, guarantee, composition
        (:func:`symfdp.export.markdown`)."""
        from symfdp.export import markdown

        return markdown(self)

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.info.items() if k == "mu")
        if "n" in self.info:
            extra = f", n={self.info['n']!r}{extra}"
        return (
            f"PrivacyCurve(method={self.method!r}, pairs={len(self.pairs)}, "
            f"certified={self.certified}{extra})"
        )


def _freeze_info(curve: PrivacyCurve) -> None:
    """Store ``curve.info`` as a read-only copy."""
    object.__setattr__(curve, "info", MappingProxyType(dict(curve.info)))


def _refuse_unresolved(
    pairs: tuple[PairCurve, ...],
    parts: list[tuple[FloatArray, FloatArray]],
    plain: Any,
) -> None:
    """For pairs with ``refuses_unresolved`` (Contour): an infinite estimate
    makes the plain query raise."""
    for pair, (_, err) in zip(pairs, parts, strict=True):
        if getattr(pair, "refuses_unresolved", False) and not np.all(np.isfinite(err)):
            plain(pair)


def _pair_estimates_error(pair: Any) -> bool:
    """Whether a pair (unwrapped from :class:`BoundedLossPair`) estimates its
    error."""
    inner = getattr(pair, "_pair", pair)
    # The protocol's runtime check, without typing's per-call overhead.
    return all(getattr(inner, name, None) is not None for name in _ESTIMATE_METHODS)


def invert_profile(
    delta_fn: Callable[[FloatArray], FloatArray], target: FloatArray
) -> FloatArray:
    r"""Vectorised :math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le d\}`
    for a non-increasing ``delta_fn``.

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


def _symmetric_hull(a: FloatArray, points: list[tuple[FloatArray, FloatArray]]) -> Any:
    r""":math:`\min\{f, f^{-1}\}^{**}` over a family of curves at ``a`` (Dong et
    al. 2019, Def. 4.1 and App. F): the lower hull of all vertices and their
    reflections in the diagonal."""
    xs = [np.concatenate([x, y]) for x, y in points]
    ys = [np.concatenate([y, x]) for x, y in points]
    x = np.concatenate([*xs, [0.0, 1.0]])
    y = np.concatenate([*ys, [1.0, 0.0]])
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    first = np.concatenate(([True], np.diff(x) > 0))  # lowest y per abscissa
    xv, yv = lower_convex_hull(x[first], y[first])
    return np.clip(np.interp(a, xv, yv), 0.0, 1.0 - a)


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
