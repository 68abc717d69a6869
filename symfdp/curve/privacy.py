r"""PrivacyCurve: the privacy of a composition, as every accountant reports it.

A curve holds one :class:`~symfdp.curve.answer.PairCurve` per dominating pair to
cover (two for add/remove adjacency), each with composed loss :math:`T_n =
\sum_i L_i`:

* the privacy profile is :math:`\delta(\varepsilon) = E_{Q}[(1 - e^{\varepsilon -
  T_n})_+]` (Zheng et al. 2020, Lemma 5.1), maximised over the pairs;
* :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le
  \delta\}`;
* the trade-off is :math:`T(P^n, Q^n)` for a symmetric composition and the
  symmetrised, convexified :math:`\min\{f_1, f_1^{-1}, f_2, f_2^{-1}\}^{**}`
  otherwise (Dong et al. 2019, Def. 4.1 / App. F; Zheng et al. 2020, Sec. 5.3).
  For exact pairs :math:`f_2 = f_1^{-1}` and this is :math:`\min\{g, g^{-1}\}^{**}`.

Every query validates its points once, asks each pair through the protocol of
:mod:`symfdp.curve.answer`, combines the pairs' answers (:mod:`symfdp.curve.combine`)
and warns once (:mod:`symfdp.curve.report`). The last answer per query is kept, so
``epsilon(d)`` followed by ``epsilon_error(d)`` or ``epsilon_bounds(d)`` computes
once. Certified methods (``Numerical``, ``Exact``) also supply lower and upper
bounds.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_bool, scalar_or_array
from symfdp._warnings import ApproximationWarning, warn_approximation
from symfdp.curve.answer import Answer, FloatArray, PairCurve, Query, Repair
from symfdp.curve.bounded import BoundedLossPair, clipped_error
from symfdp.curve.combine import (
    convex_lower_bound_points,
    max_over_pairs,
    symmetric_hull,
)
from symfdp.curve.mu_star import (
    MuStarAnswer,
    certified_mu_star,
    estimated_mu_star,
)
from symfdp.curve.report import error_message, query_message, repairs_within
from symfdp.curve.summary import markdown
from symfdp.curve.tradeoff_error import tradeoff_errors
from symfdp.numeric.tabulate import alpha_grid
from symfdp.tradeoff.interpret import auc

#: Errors below these are round-off, never warned about (delta, epsilon, beta).
_DELTA_ATOL: Final = 1e-300
_EPS_ATOL: Final = 1e-9
_BETA_ATOL: Final = 1e-9
#: Departures of a profile from [0, 1] below this are round-off.
_UNIT_TOL: Final = 1e-12


def _finite_or_raise(values: FloatArray, what: str, method: str) -> FloatArray:
    if not np.isfinite(values).all():
        raise FloatingPointError(
            f"{method} produced a non-finite {what}; this is a bug in symfdp, "
            "please report it with the mechanism and parameters."
        )
    return values


def _repaired_profile(
    e: FloatArray, found: Answer, certified: bool
) -> tuple[FloatArray, tuple[Repair, ...]]:
    r"""The pairs' maximum clipped to :math:`[\max\{0, 1 - e^\varepsilon\}, 1]`
    (:math:`\delta \ge 1 - e^\varepsilon E_Q[e^{-L}]` for every pair), with the
    repairs (leaving :math:`[0, 1]`; the floor for approximations only)."""
    values = found.values
    repairs: tuple[Repair, ...] = ()
    lo, hi = float(values.min(initial=0.0)), float(values.max(initial=0.0))
    if lo < -_UNIT_TOL or hi > 1 + _UNIT_TOL:
        clipped = np.minimum(np.maximum(values, 0.0), 1.0)
        k = int(np.argmax(np.abs(clipped - values)))
        repairs += (
            Repair(
                Query.DELTA,
                f"delta(eps) left [0, 1] (range [{lo:.3g}, {hi:.3g}]); clipped to "
                "[0, 1]",
                float(e[k]),
                float(abs(clipped[k] - values[k])),
            ),
        )
        values = clipped
    elif lo < 0.0 or hi > 1.0:
        values = np.minimum(np.maximum(values, 0.0), 1.0)
    floor = -np.expm1(np.minimum(e, 0.0))
    short = floor - values
    k = int(np.argmax(short))
    if short[k] > 0.0:
        if short[k] > _UNIT_TOL and not certified:
            repairs += (
                Repair(
                    Query.DELTA,
                    f"delta(eps) fell below 1 - e^eps (by up to {short[k]:.3g}), "
                    "which no dominating pair allows; raised to it",
                    float(e[k]),
                    float(short[k]),
                ),
            )
        values = np.maximum(values, floor)
    return values, repairs


@dataclass(frozen=True)
class PrivacyCurve:
    """Privacy of an n-fold (possibly heterogeneous) composition.

    Attributes:
        pairs: One :class:`~symfdp.curve.answer.PairCurve` per dominating pair.
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
        object.__setattr__(self, "info", MappingProxyType(dict(self.info)))

    def _check(self) -> None:
        if not self.pairs:
            raise ValueError("a PrivacyCurve needs at least one pair.")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle (and copy) by the constructor's fields (``info`` as a dict)."""
        values = (getattr(self, f.name) for f in fields(self) if f.init)
        args = tuple(dict(v) if isinstance(v, MappingProxyType) else v for v in values)
        return (type(self), args)

    @property
    def label(self) -> str:
        """The method with its order, e.g. ``Edgeworth(order=4)``."""
        order = self.info.get("order")
        return self.method if order is None else f"{self.method}(order={order})"

    @functools.cached_property
    def estimates_error(self) -> bool:
        """Whether :meth:`delta_error` / :meth:`epsilon_error` are available: every
        pair of an approximation estimates its error, or the curve is certified."""
        return self.certified or all(p.estimates_error for p in self.pairs)

    # ------------------------------------------------------------- answers
    @functools.cached_property
    def _last(self) -> dict[Query, _Kept]:
        """Per query, the last points asked, the combined, repaired answer and
        its warning messages (each computed once)."""
        return {}

    def _kept(self, query: Query, points: FloatArray) -> tuple[_Kept, bool]:
        """The answer at the validated 1-d ``points`` and whether it was
        computed now (False: the last answer of this query, at the same
        points)."""
        last = self._last.get(query)
        if (
            last is not None
            and last.points.shape == points.shape
            and np.array_equal(last.points, points)
        ):
            return last, False
        kept = _Kept(query, points.copy(), self._compute(query, points))
        self._last[query] = kept
        return kept, True

    def _answer(self, query: Query, points: FloatArray) -> tuple[Answer, bool]:
        """:meth:`_kept`'s answer, without warning (for callers that decide
        themselves what to report, e.g. ``Auto``)."""
        kept, new = self._kept(query, points)
        return kept.answer, new

    def _compute(self, query: Query, points: FloatArray) -> Answer:
        """The pairs' answers combined: the maximum over the pairs (the
        profile clipped to its valid range) or the first pair's trade-off."""
        if points.size == 0:  # e.g. only infinite eps: no pair is asked
            return Answer(points, points, points, points)
        if query is Query.TRADEOFF:
            found = self._pair_tradeoff(self.pairs[0], points)
            _finite_or_raise(found.values, "trade-off", self.method)
            return found
        found = max_over_pairs([p.answer(query, points) for p in self.pairs])
        if query is Query.EPSILON:
            _finite_or_raise(found.values, "epsilon(delta)", self.method)
            return found
        _finite_or_raise(found.values, "delta(eps)", self.method)
        values, repairs = _repaired_profile(points, found, self.certified)
        errors = found.errors
        if errors is not None and not self.certified:
            floor = -np.expm1(np.minimum(points, 0.0))
            errors = clipped_error(found.values, values, errors, floor, None)
        return Answer(values, errors, found.lower, found.upper, found.repairs + repairs)

    def _pair_tradeoff(self, pair: PairCurve, points: FloatArray) -> Answer:
        """``pair``'s trade-off answer, with the error estimate that its profile
        gives through the duality (:mod:`~symfdp.curve.tradeoff_error`) when the
        pair estimates its profile's error but not the trade-off's."""
        found = pair.answer(Query.TRADEOFF, points)
        if found.errors is not None or self.certified or not pair.estimates_error:
            return found
        errors = tradeoff_errors(
            points,
            lambda a: pair.answer(Query.TRADEOFF, a).values,
            lambda e: pair.answer(Query.DELTA, e).errors,
            symmetric=False,
        )
        return Answer(found.values, errors, found.lower, found.upper, found.repairs)

    def _symmetrised_errors(self, flat: FloatArray) -> FloatArray | None:
        """Error estimates of the symmetrised trade-off at ``flat`` from the
        maximum profile's (:mod:`~symfdp.curve.tradeoff_error`); None for
        certified curves and methods without estimates."""
        if self.certified or not self.estimates_error:
            return None
        return tradeoff_errors(
            flat,
            self._symmetrised,
            lambda e: self._compute(Query.DELTA, e).errors,
            symmetric=True,
        )

    def _warning_repairs(self, found: Answer, points: FloatArray) -> tuple[Repair, ...]:
        """The repairs of ``found`` (at ``points``) that warn: for an
        approximation whose estimate includes their moves, those beyond
        ``warn_rel_error`` (:func:`~symfdp.curve.report.repairs_within`)."""
        if (
            found.errors is None
            or self.warn_rel_error is None
            or self.certified
            or found.values.shape != points.shape
        ):
            return found.repairs
        return repairs_within(found.repairs, points, found.values, self.warn_rel_error)

    def _message(self, kept: _Kept, atol: float | None) -> str | None:
        """The one warning of a query: its repairs, else (with ``atol``, for
        approximations with ``warn_rel_error``) an error above that."""
        if atol in kept.messages:
            return kept.messages[atol]
        found = kept.answer
        repairs = self._warning_repairs(found, kept.points)
        message = query_message(self.label, kept.query, repairs, self.certified)
        if (
            message is None
            and atol is not None
            and found.errors is not None
            and self.warn_rel_error is not None
            and not self.certified
        ):
            message = error_message(
                self.label,
                kept.query,
                kept.points,
                found.values,
                found.errors,
                atol,
                self.warn_rel_error,
            )
        kept.messages[atol] = message
        return message

    def _warn(self, kept: _Kept, atol: float | None = None) -> None:
        message = self._message(kept, atol)
        if message is not None:
            warn_approximation(message)

    # ------------------------------------------------------------- profile
    def _profile(self, eps: ArrayLike) -> tuple[FloatArray, _Kept, bool]:
        """``(eps, the kept answer at its finite entries, computed now)``."""
        e = check_array("eps", eps, allow_inf=True)
        finite = np.isfinite(e)
        ef = e.reshape(-1) if finite.all() else e[finite]
        kept, new = self._kept(Query.DELTA, ef)
        return e, kept, new

    @staticmethod
    def _spread(e: FloatArray, part: FloatArray, at_inf: FloatArray) -> FloatArray:
        """``part`` at the finite entries of ``e``, ``at_inf`` (values at
        ``eps = -inf, +inf``) elsewhere, in ``e``'s shape."""
        if part.size == e.size:
            return part.reshape(e.shape)
        out: FloatArray = np.where(e < 0, at_inf[0], at_inf[1])
        out[np.isfinite(e)] = part
        return out

    def delta(self, eps: ArrayLike) -> Any:
        r"""Privacy profile :math:`\delta(\varepsilon)`, the max over the pairs.

        Clipped to :math:`[\max(0, 1 - e^\varepsilon), 1]`; an ApproximationWarning
        when an approximation leaves that range or its :meth:`delta_error` exceeds
        ``warn_rel_error`` of the answer.

        Args:
            eps: One or more real :math:`\varepsilon` (negative values are
                meaningful for asymmetric pairs; :math:`\delta(-\infty) = 1`,
                :math:`\delta(\infty) = 0`).

        Returns:
            A float for scalar input, else an array of the input's shape.
        """
        e, kept, _ = self._profile(eps)
        self._warn(kept, _DELTA_ATOL)
        values = kept.answer.values
        return scalar_or_array(self._spread(e, values, np.array([1.0, 0.0])))

    def delta_error(self, eps: ArrayLike) -> Any:
        r"""Estimated absolute error of :meth:`delta` at ``eps``.

        The method's own estimate (CLT, Edgeworth, SaddlePoint, Contour) or the
        half-width of :meth:`delta_bounds` (certified); over pairs as in
        :func:`~symfdp.curve.combine.max_with_error`; 0 at infinite eps.

        Raises:
            NotImplementedError: the method gives a bound or an approximation
                without an error estimate (BerryEsseen, RDP, recursion).
        """
        if self.certified:
            lo, hi = self.delta_bounds(eps)
            return scalar_or_array(0.5 * (np.asarray(hi) - np.asarray(lo)))
        self._require_estimates("delta_error")
        e, kept, new = self._profile(eps)
        if new:
            self._warn(kept)
        errors = kept.answer.errors
        assert errors is not None  # every pair estimates its error
        return scalar_or_array(self._spread(e, errors, np.zeros(2)))

    def delta_bounds(self, eps: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on ``delta(eps)``, eps real."""
        self._require_certified("delta_bounds")
        e, kept, _ = self._profile(eps)
        exact = np.array([1.0, 0.0])
        lo, hi = kept.answer.bracket()
        return (
            scalar_or_array(self._spread(e, np.clip(lo, 0.0, 1.0), exact)),
            scalar_or_array(self._spread(e, np.clip(hi, 0.0, 1.0), exact)),
        )

    # ------------------------------------------------------------- inverse
    def _inverse(self, delta: ArrayLike) -> tuple[FloatArray, _Kept | None, bool]:
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        if d.size == 0:  # nothing to answer (a curve that cannot would raise)
            return d, None, False
        kept, new = self._kept(Query.EPSILON, d.reshape(-1))
        return d, kept, new

    def epsilon(self, delta: ArrayLike) -> Any:
        r""":math:`\varepsilon(\delta) = \inf\{\varepsilon\ge 0: \delta(\varepsilon)
        \le \delta\}`, the max over the pairs.

        Warns as :meth:`delta` does (:meth:`epsilon_error`).

        Args:
            delta: One or more targets in (0, 1).
        """
        d, kept, _ = self._inverse(delta)
        if kept is None:
            return np.empty(d.shape)
        self._warn(kept, _EPS_ATOL)
        return scalar_or_array(kept.answer.values.reshape(d.shape))

    def epsilon_error(self, delta: ArrayLike) -> Any:
        r"""Estimated absolute error of :meth:`epsilon` at ``delta`` (the bracket
        half-width for certified curves; see :meth:`delta_error`)."""
        if self.certified:
            lo, hi = self.epsilon_bounds(delta)
            return scalar_or_array(0.5 * (np.asarray(hi) - np.asarray(lo)))
        self._require_estimates("epsilon_error")
        d, kept, new = self._inverse(delta)
        if kept is None:
            return np.empty(d.shape)
        if new:
            self._warn(kept)
        errors = kept.answer.errors
        assert errors is not None
        return scalar_or_array(errors.reshape(d.shape))

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on ``epsilon(delta)``."""
        self._require_certified("epsilon_bounds")
        d, kept, _ = self._inverse(delta)
        if kept is None:
            return np.empty(d.shape), np.empty(d.shape)
        lo, hi = kept.answer.bracket()
        return (
            scalar_or_array(lo.reshape(d.shape)),
            scalar_or_array(hi.reshape(d.shape)),
        )

    def _require_estimates(self, what: str) -> None:
        if not self.estimates_error:
            raise NotImplementedError(
                f"{what}: {self.method} gives a bound or an approximation without an "
                "error estimate. Methods with one: CLT, Edgeworth, SaddlePoint, "
                "Contour; certified brackets: Numerical, Exact."
            )

    def _require_certified(self, what: str) -> None:
        if not self.certified:
            raise NotImplementedError(
                f"{what} needs a certified method; {self.method} gives an "
                "approximation. Use accountants.Numerical() or accountants.Exact()."
            )

    # ------------------------------------------------------------- trade-off
    @functools.cached_property
    def _grid_tradeoffs(self) -> _Kept:
        """Every pair's answer on :func:`~symfdp.numeric.tabulate.alpha_grid`
        (kept with the curve), with their repairs."""
        grid = alpha_grid()
        answers = tuple(p.answer(Query.TRADEOFF, grid) for p in self.pairs)
        for found in answers:
            _finite_or_raise(found.values, "trade-off", self.method)
        return _Kept(Query.TRADEOFF, grid, _repairs_of(answers), answers)

    def _tabulate(self, beta: FloatArray) -> FloatArray:
        grid = alpha_grid()
        return np.minimum.accumulate(np.clip(beta, 0.0, 1.0 - grid))

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
        flat = a.reshape(-1)
        if self.symmetric or not symmetric:
            kept, _ = self._kept(Query.TRADEOFF, flat)
            self._warn(kept, _BETA_ATOL)
            beta = np.clip(kept.answer.values, 0.0, 1.0 - flat)
            return scalar_or_array(beta.reshape(a.shape))
        beta = self._symmetrised(flat)
        self._warn(self._grid_tradeoffs)
        if not self._grid_tradeoffs.answer.repairs:
            errors = self._symmetrised_errors(flat)
            if errors is not None:
                self._warn(
                    _Kept(Query.TRADEOFF, flat, Answer(beta, errors)), _BETA_ATOL
                )
        return scalar_or_array(beta.reshape(a.shape))

    def _symmetrised(self, flat: FloatArray) -> FloatArray:
        r""":math:`\min\{f_1, f_1^{-1}, f_2, f_2^{-1}\}^{**}` at ``flat`` (from
        the pairs' tabulated curves, no warning)."""
        grid = alpha_grid()
        points = [
            (grid, self._tabulate(f.values)) for f in self._grid_tradeoffs.answers
        ]
        return symmetric_hull(flat, points)

    def tradeoff_bounds(self, alpha: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` bounds on the (symmetrised) trade-off
        (min{f, f^{-1}}** is monotone in f: lower bound from the certified step
        function, upper from chords)."""
        self._require_certified("tradeoff_bounds")
        a = check_array("alpha", alpha, 0.0, 1.0)
        flat = a.reshape(-1)
        if self.symmetric:
            kept, _ = self._kept(Query.TRADEOFF, flat)
            lo, hi = kept.answer.bracket()
            cap = 1.0 - flat
            return (
                scalar_or_array(np.clip(lo, 0.0, cap).reshape(a.shape)),
                scalar_or_array(np.clip(hi, 0.0, cap).reshape(a.shape)),
            )
        grid = alpha_grid()
        sides = [f.bracket() for f in self._grid_tradeoffs.answers]
        lows = [self._tabulate(lo) for lo, _ in sides]
        highs = [self._tabulate(hi) for _, hi in sides]
        lower_points = [
            convex_lower_bound_points(grid, lo, hi)
            for lo, hi in zip(lows, highs, strict=True)
        ]
        upper_points = [(grid, hi) for hi in highs]
        return (
            scalar_or_array(symmetric_hull(flat, lower_points).reshape(a.shape)),
            scalar_or_array(symmetric_hull(flat, upper_points).reshape(a.shape)),
        )

    def pair_answers(
        self, query: Query, points: ArrayLike, first_only: bool = False
    ) -> tuple[Answer, ...]:
        r"""Each pair's own answer at the flattened ``points`` (finite eps,
        delta in (0, 1) or alpha in [0, 1] as ``query`` asks; the first pair's
        only with ``first_only``): no maximum over the pairs, no symmetrisation,
        no clip; errors and brackets where the method gives them; their repairs
        warned once.

        For what needs every direction's own answer, e.g. ReRo's :math:`\gamma
        = 1 - f(\kappa)` maximised over the pairs' raw trade-offs, or a figure
        of one direction's profile."""
        if query is Query.DELTA:
            flat = check_array("eps", points).reshape(-1)
        elif query is Query.EPSILON:
            flat = check_array(
                "delta", points, 0.0, 1.0, lo_open=True, hi_open=True
            ).reshape(-1)
        else:
            flat = check_array("alpha", points, 0.0, 1.0).reshape(-1)
        pairs = self.pairs[:1] if first_only else self.pairs
        if flat.size == 0:
            return tuple(Answer(flat, flat, flat, flat) for _ in pairs)
        if query is Query.TRADEOFF:
            answers = tuple(self._pair_tradeoff(p, flat) for p in pairs)
        else:
            answers = tuple(p.answer(query, flat) for p in pairs)
        for found in answers:
            _finite_or_raise(found.values, query.value, self.method)
        self._warn(_Kept(query, flat, _repairs_of(answers), answers))
        return answers

    def tradeoff_error(self, alpha: ArrayLike) -> Any:
        r"""Estimated absolute error of :meth:`tradeoff` at ``alpha``: the
        half-width of :meth:`tradeoff_bounds` for certified curves, else the
        method's own estimate where it gives one (exact closed forms: 0), else
        the profile's estimate carried through the duality
        :math:`f(\alpha) = \sup_\varepsilon [1 - \delta(\varepsilon) -
        e^\varepsilon \alpha]` (:mod:`~symfdp.curve.tradeoff_error`; for an
        asymmetric composition, of the maximum profile of the symmetrised curve).

        Raises:
            NotImplementedError: the method gives no estimate of its profile's
                error either (BerryEsseen, RDP, recursion).
        """
        if self.certified:
            lo, hi = self.tradeoff_bounds(alpha)
            return scalar_or_array(0.5 * (np.asarray(hi) - np.asarray(lo)))
        a = check_array("alpha", alpha, 0.0, 1.0)
        if self.symmetric:
            kept, new = self._kept(Query.TRADEOFF, a.reshape(-1))
            if new:
                self._warn(kept)
            errors = kept.answer.errors
        else:
            errors = self._symmetrised_errors(a.reshape(-1))
        if errors is None:
            raise NotImplementedError(
                f"tradeoff_error: {self.label} gives no error estimate of this "
                "trade-off curve. accountants.Numerical gives a certified bracket "
                "(curve.tradeoff_bounds)."
            )
        return scalar_or_array(errors.reshape(a.shape))

    def raw(self) -> PrivacyCurve:
        """The same curve without the loss-range repair of
        :class:`~symfdp.curve.bounded.BoundedLossPair` (certified curves as they
        are)."""
        pairs = tuple(
            p.inner if isinstance(p, BoundedLossPair) else p for p in self.pairs
        )
        return PrivacyCurve(
            pairs,
            self.method,
            self.symmetric,
            self.certified,
            dict(self.info),
            self.warn_rel_error,
        )

    def mu_star_gamma(self) -> tuple[float, float]:
        r"""The (mu*, gamma) interpreter of Zheng et al. (2020), Sec. 4:
        :meth:`mu_star` (with its warning) and :math:`\gamma = \int_0^1 f`
        of the (symmetrised) trade-off."""
        return self.mu_star(), float(
            auc(lambda x: np.asarray(self.tradeoff(x), np.float64))
        )

    def mu_star(self) -> float:
        r"""The GDP summary :math:`\mu^* = -2\Phi^{-1}(\alpha^*)` of Zheng et
        al. (2020), Sec. 4, :math:`\alpha^*` the fixed point of the
        (symmetrised) trade-off (:mod:`~symfdp.curve.mu_star`); ``inf`` when
        :math:`\alpha^* = 0`.

        One ApproximationWarning per call when :meth:`mu_star_error` exceeds
        ``warn_rel_error`` of the answer minus that error, when the trade-off
        was repaired at :math:`\alpha^*`, or when :math:`\alpha^*` is below
        :data:`~symfdp.curve.mu_star.MU_STAR_ALPHA_FLOOR` (:math:`\mu^* >
        14.9`) for an inexact approximation; for certified curves when the
        bracket (:meth:`mu_star_bounds`) is wider than ``MU_STAR_RTOL``
        relative.
        """
        found = self._mu_star
        if found.message is not None:
            warn_approximation(found.message)
        return found.value

    def mu_star_error(self) -> float:
        r"""Estimated absolute error of :meth:`mu_star`: :math:`2e / ((1 -
        f'_+(\alpha^*))\,\varphi(\mu^*/2))` to first order, :math:`e` the
        trade-off's error estimate at :math:`\alpha^*`
        (:meth:`tradeoff_error`; :mod:`~symfdp.curve.mu_star` for the
        derivation); the half-width of :meth:`mu_star_bounds` for certified
        curves.

        Raises:
            NotImplementedError: the method gives no estimate of its trade-off
                error (BerryEsseen, RDP, recursion).
        """
        error = self._mu_star.error
        if error is None:
            raise NotImplementedError(
                f"mu_star_error: {self.label} gives no error estimate of its "
                "trade-off curve. accountants.Numerical gives a certified bracket "
                "(curve.mu_star_bounds)."
            )
        return error

    def mu_star_bounds(self) -> tuple[float, float]:
        r"""Certified ``(lower, upper)`` bounds on :math:`\mu^*`: the values at
        the fixed points of the upper and lower bounds on the trade-off
        (:meth:`tradeoff_bounds`; :math:`\mu^*` decreases in :math:`f`)."""
        self._require_certified("mu_star_bounds")
        found = self._mu_star
        assert found.lower is not None and found.upper is not None
        return found.lower, found.upper

    @functools.cached_property
    def _mu_star(self) -> MuStarAnswer:
        """mu* with its error or bracket and its message, computed once
        without the trade-off's own warnings (one warning per mu* answer)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            if self.certified:
                return certified_mu_star(
                    self._tradeoff_values,
                    lambda x: np.asarray(self.tradeoff_bounds(x)[0], np.float64),
                    lambda x: np.asarray(self.tradeoff_bounds(x)[1], np.float64),
                    self.label,
                )
            return estimated_mu_star(
                self._tradeoff_values,
                self._tradeoff_error_and_repairs_at,
                self.label,
                self.warn_rel_error,
            )

    def _tradeoff_values(self, flat: FloatArray) -> FloatArray:
        """:meth:`tradeoff` at validated 1-d ``flat`` (the symmetrised curve),
        without its error estimate or warning (the fixed point's bisection)."""
        if not self.symmetric:
            return self._symmetrised(flat)
        found = self.pairs[0].answer(Query.TRADEOFF, flat)
        _finite_or_raise(found.values, "trade-off", self.method)
        return np.clip(found.values, 0.0, 1.0 - flat)

    def _tradeoff_error_and_repairs_at(
        self, a: float
    ) -> tuple[float | None, tuple[Repair, ...]]:
        """The trade-off's error estimate at one alpha (None: none) and the
        repairs of the pairs' trade-off answers there, from one answer per
        pair."""
        flat = np.array([a])
        if self.symmetric:
            found = self._compute(Query.TRADEOFF, flat)
            errors, repairs = found.errors, found.repairs
        else:
            errors = self._symmetrised_errors(flat)
            repairs = tuple(
                r for p in self.pairs for r in p.answer(Query.TRADEOFF, flat).repairs
            )
        return (None if errors is None else float(errors[0])), repairs

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the trade-off curve on ``ax`` (a new figure if None); returns ax.
        A thin delegation to :func:`symfdp.plotting.plot_tradeoff`, imported
        here because it loads Matplotlib."""
        from symfdp import plotting

        return plotting.plot_tradeoff(self, ax=ax, **kwargs)

    def _repr_markdown_(self) -> str:
        """Notebook display: method, guarantee, composition
        (:func:`~symfdp.curve.summary.markdown`)."""
        return markdown(self.label, self.certified, self.symmetric, self.info)

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.info.items() if k == "mu")
        if "n" in self.info:
            extra = f", n={self.info['n']!r}{extra}"
        return (
            f"PrivacyCurve(method={self.method!r}, pairs={len(self.pairs)}, "
            f"certified={self.certified}{extra})"
        )


def _repairs_of(answers: tuple[Answer, ...]) -> Answer:
    """An answer carrying only the repairs of ``answers`` (for the warning)."""
    return Answer(np.zeros(0), repairs=tuple(r for a in answers for r in a.repairs))


@dataclass
class _Kept:
    """A query's points and answer as the curve keeps them, with the warning
    messages computed for it (by ``atol``; None: no warning)."""

    query: Query
    points: FloatArray
    answer: Answer
    answers: tuple[Answer, ...] = ()
    messages: dict[float | None, str | None] = field(default_factory=dict)
