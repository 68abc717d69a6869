r"""``Auto``: each query answered by the fastest method whose error estimate meets a
tolerance.

The tiers are tried in order of cost, by default

    CLT  ->  Edgeworth(order=4)  ->  SaddlePoint(order=3)  ->  Contour  ->  Numerical.

A tier answers the points of a query where its own error estimate
(``epsilon_error`` / ``delta_error``) is at most ``rel_tol`` times its answer and its
answer needed no repair (:class:`~symfdp.curve.Repair`); the rest go to the next
tier, the certified :class:`~symfdp.accountants.Numerical` answering whatever is
left. A tier whose estimate missed ``rel_tol`` for a kind of query is not asked
that kind of query again on the same composition. Tiers that cannot serve the
composition are skipped, and so are the approximate tiers whose guessed cost
does not fit a share of the certified tier's predicted cost
(:func:`_fft_seconds`, the blatant mass of
:class:`~symfdp.mechanisms.EpsilonDelta` events split off as the certified tier
does): where the certified tier is cheap, it answers after the first tier.
:attr:`AutoCurve.last_answer` says who answered. Estimates are not bounds: to
publish, use ``Numerical``'s bracket.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_bool, check_real, scalar_or_array
from symfdp._warnings import ApproximationWarning
from symfdp.accountants._blatant import split_blatant
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants.base import Accountant, Components
from symfdp.curve import Answer, FloatArray, MuStarAnswer, PrivacyCurve, Query
from symfdp.curve.report import warn_repairs
from symfdp.pld.grid import choose_step

#: Errors below this (absolute) always meet the tolerance (round-off).
_ABS_FLOOR = 1e-12
#: Cost model of the certified FFT tier, measured on this package's DP-SGD,
#: Laplace, randomized-response and sampling-without-replacement compositions
#: (1 core): about ``_FFT_OVERHEAD`` seconds plus ``_FFT_SECONDS_PER_POINT`` per
#: lattice point, the lattice spanning ``_WINDOW_STEPS`` standard deviations of the
#: composed loss per default grid step, per direction.
_FFT_OVERHEAD: Final = 0.008
_FFT_SECONDS_PER_POINT: Final = 7e-7
_WINDOW_STEPS: Final = 21.0
#: The approximate tiers may spend this share of the certified tier's predicted
#: cost; the next tier is guessed to cost ``_NEXT_TIER_FACTOR`` times the last one
#: (tiers come in increasing cost), at least ``_MIN_TIER_SECONDS`` for the first
#: and ``_MIN_LATER_TIER_SECONDS`` for a later one (Edgeworth(4), SaddlePoint(3)
#: and Contour took 2-230 ms to compose and answer eps(delta) on the DP-SGD,
#: Laplace, randomized-response and subsampled compositions of the matrix, the
#: CLT under 1 ms): so a certified tier predicted under
#: ``_MIN_LATER_TIER_SECONDS / _APPROXIMATION_SHARE`` answers after the first
#: tier, whatever the machine's speed.
_APPROXIMATION_SHARE: Final = 0.25
_NEXT_TIER_FACTOR: Final = 10.0
_MIN_TIER_SECONDS: Final = 1e-3
_MIN_LATER_TIER_SECONDS: Final = 8e-3
_T = TypeVar("_T")


def default_tiers() -> tuple[Accountant, ...]:
    """CLT, Edgeworth(4), SaddlePoint(3), Contour, Numerical: increasing cost."""
    from symfdp import accountants as A

    return (
        A.CLT(),
        A.Edgeworth(order=4),
        A.SaddlePoint(order=3),
        A.Contour(),
        A.Numerical(),
    )


@dataclass(frozen=True)
class AutoAnswer:
    """Who answered the last query of an :class:`AutoCurve`, point by point.

    Attributes:
        query: ``"epsilon(delta)"``, ``"delta(eps)"``, ``"tradeoff(alpha)"`` or
            ``"mu*"`` (at the fixed point alpha*).
        at: The query points (flattened, as the next two).
        value: The answers.
        error: Each answer's error estimate (bracket half-width for a certified
            tier).
        method: The label of the tier that answered each point.
    """

    query: str
    at: FloatArray
    value: FloatArray
    error: FloatArray
    method: tuple[str, ...]

    def summary(self) -> str:
        """``"Edgeworth(order=4) x3, Numerical x1"``: tiers and point counts."""
        counts: dict[str, int] = {}
        for m in self.method:
            counts[m] = counts.get(m, 0) + 1
        return ", ".join(f"{m} x{k}" for m, k in counts.items())


@dataclass
class _AutoState:
    """What an :class:`AutoCurve` learns while it answers: the tiers' curves
    (None where a tier cannot serve), why tiers were skipped, the last answer."""

    curves: dict[int, PrivacyCurve | None] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    last_answer: AutoAnswer | None = None
    #: ``(tier, query)`` pairs where the tier's estimate missed ``rel_tol``.
    missed: set[tuple[int, str]] = field(default_factory=set)
    #: Seconds spent in the approximate tiers, and in the last one tried.
    spent: float = 0.0
    last_tier: float = 0.0
    certified_seconds: float | None = None


@dataclass(frozen=True, repr=False)
class AutoCurve(PrivacyCurve):
    """The curve of :class:`Auto`: every query answered tier by tier (module
    docstring), the tiers' curves composed at their first use.

    Attributes:
        components: The normalised composition.
        tiers: The accountants, in increasing cost (the last certified).
        rel_tol: Largest estimated relative error accepted from a tier.
    """

    components: Components = ()
    tiers: tuple[Accountant, ...] = ()
    rel_tol: float = 1e-2
    _state: _AutoState = field(
        default_factory=_AutoState, repr=False, compare=False, hash=False
    )

    def _check(self) -> None:
        """An AutoCurve answers from its tiers' curves, not from pairs."""

    @property
    def label(self) -> str:
        return f"Auto(rel_tol={self.rel_tol:g})"

    @property
    def estimates_error(self) -> bool:
        return True

    @property
    def last_answer(self) -> AutoAnswer | None:
        """Who answered each point of the last query (None before the first)."""
        return self._state.last_answer

    @property
    def skipped(self) -> dict[str, str]:
        """Tiers that could not serve this composition, with the reason."""
        return dict(self._state.skipped)

    def tier_curve(self, k: int) -> PrivacyCurve | None:
        """The composed curve of tier ``k`` (None if it cannot serve)."""
        curves = self._state.curves
        if k not in curves:
            tier = self.tiers[k]
            last = k == len(self.tiers) - 1
            if not last and not self._affordable(first=not curves):
                self._state.skipped[repr(tier)] = (
                    "the certified tier is cheaper here (predicted "
                    f"{1e3 * self._certified_seconds():.0f} ms)"
                )
                curves[k] = None
                return None
            self._state.last_tier = 0.0
            try:
                curve = self._timed(last, lambda: tier.compose(list(self.components)))
            except (ValueError, NotImplementedError) as exc:
                if last:
                    raise
                self._state.skipped[repr(tier)] = str(exc).splitlines()[0]
                curve = None
            if curve is not None and not curve.estimates_error:
                self._state.skipped[repr(tier)] = "no error estimate"
                curve = None
            curves[k] = curve
        return curves[k]

    def _timed(self, certified: bool, fn: Callable[[], _T]) -> _T:
        """``fn()``, its wall time added to the approximate tiers' account
        (unless ``certified``)."""
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            if not certified:
                dt = time.perf_counter() - t0
                self._state.spent += dt
                self._state.last_tier += dt

    def _affordable(self, first: bool) -> bool:
        """Whether another approximate tier fits the budget: what the tiers
        spent plus the next one's guessed cost (the module constants; ``first``:
        no tier tried yet) within ``_APPROXIMATION_SHARE`` of the certified
        tier's predicted cost (so that falling back costs at most that share
        more than answering with the certified tier directly)."""
        state = self._state
        floor = _MIN_TIER_SECONDS if first else _MIN_LATER_TIER_SECONDS
        guess = max(_NEXT_TIER_FACTOR * state.last_tier, floor)
        return state.spent + guess <= _APPROXIMATION_SHARE * self._certified_seconds()

    def _certified_seconds(self) -> float:
        """Predicted seconds of the certified tier (the FFT cost model above;
        ``inf`` when the tier has no grid tolerance or the composition no
        finite variance)."""
        state = self._state
        if state.certified_seconds is None:
            state.certified_seconds = _fft_seconds(self.components, self.tiers[-1])
        return state.certified_seconds

    def _asks(self, k: int, kind: str) -> PrivacyCurve | None:
        """Tier ``k``'s curve for a query of ``kind``; None where it cannot
        serve, or where it is approximate and its estimate already missed
        ``rel_tol`` for this kind of query on this composition (asking again
        would most likely cost its time and fall through to the next tier)."""
        if k < len(self.tiers) - 1 and (k, kind) in self._state.missed:
            return None
        return self.tier_curve(k)

    # ------------------------------------------------------------- queries
    def _answer_by_tier(self, query: Query, points: FloatArray) -> AutoAnswer:
        """Each point from the first tier whose answer needed no repair and
        whose error estimate meets ``rel_tol`` (the last tier answers the rest,
        its repairs warned); a tier that misses is remembered
        (:meth:`_asks`)."""
        flat = points.ravel()
        value = np.full(flat.shape, np.nan)
        error = np.full(flat.shape, np.inf)
        method = np.empty(flat.shape, dtype=object)
        todo = np.arange(flat.size)
        last = len(self.tiers) - 1
        for k in range(len(self.tiers)):
            if todo.size == 0:
                break
            curve = self._asks(k, query.value)
            if curve is None:
                continue
            try:
                v, e, found = self._timed(
                    k == last, functools.partial(_ask, curve, query, flat[todo])
                )
            except (ValueError, FloatingPointError):
                if k == last:
                    raise
                self._state.missed.add((k, query.value))
                continue
            if k == last:
                accept = np.ones(todo.size, dtype=bool)
                # The certified tier's own records stand.
                warn_repairs(curve.label, query, found.repairs, curve.certified)
            elif found.repairs:
                self._state.missed.add((k, query.value))
                continue
            else:
                with np.errstate(invalid="ignore"):
                    accept = np.isfinite(v) & (
                        (e <= self.rel_tol * np.abs(v)) | (e <= _ABS_FLOOR)
                    )
                if not accept.all():
                    self._state.missed.add((k, query.value))
            idx = todo[accept]
            value[idx], error[idx] = v[accept], e[accept]
            method[idx] = curve.label
            todo = todo[~accept]
        answer = AutoAnswer(
            query.value if query is not Query.TRADEOFF else "tradeoff(alpha)",
            flat.copy(),
            value,
            error,
            tuple(str(m) for m in method),
        )
        self._state.last_answer = answer
        return answer

    def _epsilon_and_error(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        answer = self._answer_by_tier(Query.EPSILON, d)
        return answer.value.reshape(d.shape), answer.error.reshape(d.shape)

    def _delta_and_error(self, e: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Profile and error at real ``e`` (exact, error 0, at ``eps = +-inf``)."""
        finite = np.isfinite(e)
        if finite.all():
            answer = self._answer_by_tier(Query.DELTA, e)
            return answer.value.reshape(e.shape), answer.error.reshape(e.shape)
        value = np.where(e < 0, 1.0, 0.0)
        error = np.zeros(e.shape)
        if finite.any():
            answer = self._answer_by_tier(Query.DELTA, e[finite])
            value[finite], error[finite] = answer.value, answer.error
        return value, error

    def epsilon(self, delta: ArrayLike) -> Any:
        r""":math:`\varepsilon(\delta)` from the fastest tier meeting ``rel_tol``."""
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        return scalar_or_array(self._epsilon_and_error(d)[0])

    def epsilon_error(self, delta: ArrayLike) -> Any:
        """The error estimate of each answer of :meth:`epsilon`."""
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        return scalar_or_array(self._epsilon_and_error(d)[1])

    def delta(self, eps: ArrayLike) -> Any:
        r""":math:`\delta(\varepsilon)` from the fastest tier meeting ``rel_tol``."""
        e = check_array("eps", eps, allow_inf=True)
        return scalar_or_array(self._delta_and_error(e)[0])

    def delta_error(self, eps: ArrayLike) -> Any:
        """The error estimate of each answer of :meth:`delta`."""
        e = check_array("eps", eps, allow_inf=True)
        return scalar_or_array(self._delta_and_error(e)[1])

    def tradeoff(self, alpha: ArrayLike, symmetric: bool = True) -> Any:
        r"""The trade-off of the first tier whose estimate of its trade-off error
        (:meth:`PrivacyCurve.tradeoff_error`) meets ``rel_tol`` at every
        ``alpha`` without a repair; the certified tier otherwise."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        symmetric = check_bool("symmetric", symmetric)
        beta, _ = self._tradeoff_and_error(a.reshape(-1), symmetric)
        return scalar_or_array(beta.reshape(a.shape))

    def tradeoff_error(self, alpha: ArrayLike) -> Any:
        """The error estimate of each answer of :meth:`tradeoff` (the bracket's
        half-width where the certified tier answered)."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        _, err = self._tradeoff_and_error(a.reshape(-1), True)
        return scalar_or_array(err.reshape(a.shape))

    def _tradeoff_and_error(
        self, flat: FloatArray, symmetric: bool
    ) -> tuple[FloatArray, FloatArray]:
        last = len(self.tiers) - 1
        for k in range(len(self.tiers)):
            curve = self._asks(k, "tradeoff")
            if curve is None:
                continue
            if k == last:
                beta = np.asarray(curve.tradeoff(flat, symmetric=symmetric), np.float64)
                if curve.certified:
                    lo, hi = curve.tradeoff_bounds(flat)
                    err = 0.5 * (np.asarray(hi) - np.asarray(lo))
                else:  # pragma: no cover - the last tier is certified
                    err = np.full(beta.shape, np.nan)
            else:
                try:
                    found = self._timed(
                        False,
                        functools.partial(_tradeoff_answer, curve, flat, symmetric),
                    )
                except (ValueError, FloatingPointError):
                    found = None
                if found is None or not _meets(*found, self.rel_tol):
                    self._state.missed.add((k, "tradeoff"))
                    continue
                beta, err = found
            self._state.last_answer = AutoAnswer(
                "tradeoff(alpha)", flat.copy(), beta, err, (curve.label,) * flat.size
            )
            return beta, err
        raise AssertionError("the certified tier always answers")  # pragma: no cover

    def pair_answers(
        self, query: Query, points: ArrayLike, first_only: bool = False
    ) -> tuple[Answer, ...]:
        r"""Each pair's own answer (:meth:`PrivacyCurve.pair_answers`) from the
        first tier whose pairs' estimates meet ``rel_tol`` at every point
        without a repair (for the trade-off, relative to both :math:`\beta`
        and :math:`1 - \beta`, as ReRo's :math:`\gamma = 1 - f(\kappa)`
        needs); the certified tier otherwise."""
        last = len(self.tiers) - 1
        kind = f"pairs {query.value}"
        for k in range(len(self.tiers)):
            curve = self._asks(k, kind)
            if curve is None:
                continue
            if k == last:
                return curve.pair_answers(query, points, first_only)
            try:
                answers = self._timed(
                    False,
                    functools.partial(
                        _silent_pair_answers, curve, query, points, first_only
                    ),
                )
            except (ValueError, FloatingPointError):
                answers = ()
            if answers and all(_answer_meets(query, a, self.rel_tol) for a in answers):
                return answers
            self._state.missed.add((k, kind))
        raise AssertionError("the certified tier always answers")  # pragma: no cover

    @functools.cached_property
    def _mu_star(self) -> MuStarAnswer:
        r""":math:`\mu^*` from the first tier whose estimate
        (:meth:`PrivacyCurve.mu_star_error`) meets ``rel_tol`` of its answer
        without a warning; the certified tier's (its message standing)
        otherwise."""
        last = len(self.tiers) - 1
        for k in range(len(self.tiers)):
            curve = self._asks(k, "mu*")
            if curve is None:
                continue
            try:
                found = self._timed(k == last, functools.partial(_tier_mu_star, curve))
            except (ValueError, FloatingPointError):
                if k == last:
                    raise
                continue
            err = found.error
            if k == last or (
                err is not None
                and found.message is None
                and (err <= self.rel_tol * found.value or err <= _ABS_FLOOR)
            ):
                self._state.last_answer = AutoAnswer(
                    "mu*",
                    np.array([found.alpha]),
                    np.array([found.value]),
                    np.array([math.inf if err is None else err]),
                    (curve.label,),
                )
                return found
            self._state.missed.add((k, "mu*"))
        raise AssertionError("the certified tier always answers")  # pragma: no cover

    def delta_bounds(self, eps: ArrayLike) -> Any:
        """Not available: use ``accountants.Numerical`` for certified bounds."""
        raise NotImplementedError(self._uncertified("delta_bounds"))

    def epsilon_bounds(self, delta: ArrayLike) -> Any:
        """Not available (see :meth:`delta_bounds`)."""
        raise NotImplementedError(self._uncertified("epsilon_bounds"))

    def tradeoff_bounds(self, alpha: ArrayLike) -> Any:
        """Not available (see :meth:`delta_bounds`)."""
        raise NotImplementedError(self._uncertified("tradeoff_bounds"))

    def _uncertified(self, what: str) -> str:
        return (
            f"{what} needs a certified method; Auto answers each query from the "
            "fastest method whose error estimate meets rel_tol. Use "
            "accountants.Numerical() for certified bounds."
        )

    def raw(self) -> PrivacyCurve:
        """Not available: compose with one tier's accountant for its raw curve."""
        raise NotImplementedError(
            "raw: Auto answers each query from its tiers' curves; compose with a "
            "tier's accountant (e.g. accountants.Edgeworth) and call raw() on it."
        )

    def __repr__(self) -> str:
        n = sum(k for _, k in self.components)
        return f"AutoCurve(rel_tol={self.rel_tol:g}, n={n}, tiers={len(self.tiers)})"


def _ask(
    curve: PrivacyCurve, query: Query, points: FloatArray
) -> tuple[FloatArray, FloatArray, Answer]:
    """A tier's ``(values, errors, answer)`` at the flat ``points`` (finite eps
    for the profile), without warning: the errors are the bracket's half-width
    for a certified tier, the tier's estimate otherwise."""
    found, _ = curve._answer(query, points)
    if curve.certified:
        lo, hi = found.bracket()
        if query is Query.DELTA:
            lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
        return found.values, 0.5 * (hi - lo), found
    if found.errors is None:  # pragma: no cover - tiers estimate their errors
        raise ValueError(f"{curve.label} gives no error estimate.")
    return found.values, found.errors, found


def _meets(values: FloatArray, errors: FloatArray | None, rel_tol: float) -> bool:
    """Whether every error estimate is within ``rel_tol`` of its value (or
    round-off)."""
    if errors is None:
        return False
    with np.errstate(invalid="ignore"):
        ok = (errors <= rel_tol * np.abs(values)) | (errors <= _ABS_FLOOR)
    return bool(np.all(ok & np.isfinite(values)))


def _answer_meets(query: Query, found: Answer, rel_tol: float) -> bool:
    """:func:`_meets` for a pair's answer without repairs (a trade-off both
    relative to beta and to 1 - beta)."""
    if found.repairs:
        return False
    if query is Query.TRADEOFF:
        small = np.minimum(found.values, 1.0 - found.values)
        return _meets(small, found.errors, rel_tol)
    return _meets(found.values, found.errors, rel_tol)


def _silent_pair_answers(
    curve: PrivacyCurve, query: Query, points: ArrayLike, first_only: bool
) -> tuple[Answer, ...]:
    """A tier's pair answers without warning (Auto decides what to report)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return curve.pair_answers(query, points, first_only)


def _tradeoff_answer(
    curve: PrivacyCurve, flat: FloatArray, symmetric: bool
) -> tuple[FloatArray, FloatArray] | None:
    """A tier's trade-off and its error estimate at ``flat`` without warning
    (None after a repair or without an estimate)."""
    if curve.symmetric or not symmetric:
        found, _ = curve._answer(Query.TRADEOFF, flat)
        if found.repairs or found.errors is None:
            return None
        return np.clip(found.values, 0.0, 1.0 - flat), found.errors
    if curve._grid_tradeoffs.answer.repairs:
        return None
    errors = curve._symmetrised_errors(flat)
    if errors is None:
        return None
    return curve._symmetrised(flat), errors


def _tier_mu_star(curve: PrivacyCurve) -> MuStarAnswer:
    """A tier's mu* answer (computed once by the tier's curve, unwarned)."""
    return curve._mu_star


def _fft_seconds(components: Components, tier: Accountant) -> float:
    """Predicted seconds of the certified FFT tier on ``components`` (the cost
    model of the module constants; ``inf`` when it does not apply).

    The lattice is that of the finite parts: the blatant mass of (eps, delta)
    events is composed exactly around it (:func:`split_blatant`), as the
    certified tier does, and costs nothing."""
    tol = getattr(tier, "eps_rel_tol", None)
    if not isinstance(tol, float):
        return math.inf
    components, _ = split_blatant(components)
    first = [(m.pairs[0], k) for m, k in components]  # one direction's
    try:
        h = choose_step(first, tol)
        var = float(summed_cumulants(first, 2, "Q")[1])
    except (ValueError, TypeError, NotImplementedError, ArithmeticError):
        return math.inf
    if not (h > 0 and math.isfinite(var) and var > 0):
        return math.inf
    directions = 1 if all(m.is_symmetric for m, _ in components) else 2
    points = _WINDOW_STEPS * math.sqrt(var) / h * directions
    return _FFT_OVERHEAD + _FFT_SECONDS_PER_POINT * points


class Auto(Accountant):
    r"""Answer each query from the fastest method whose error estimate meets
    ``rel_tol``, falling back to the certified ``Numerical``.

    Args:
        rel_tol: Largest estimated relative error accepted from an approximate
            tier, in (0, 1).
        tiers: Accountants in increasing cost; the last must be certified
            (default :func:`default_tiers`).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = Auto().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=1000)
        >>> eps = curve.epsilon(1e-5)
        >>> curve.last_answer.method[0] in ("CLT", "Edgeworth(order=4)",
        ...     "SaddlePoint(order=3)", "Contour", "Numerical")
        True
    """

    method = "Auto"

    def __init__(
        self, rel_tol: float = 1e-2, *, tiers: Sequence[Accountant] | None = None
    ) -> None:
        super().__init__(warn_rel_error=None)
        self.rel_tol = check_real("rel_tol", rel_tol, 0.0, 1.0, lo_open=True)
        if tiers is None:
            chosen = default_tiers()
        elif isinstance(tiers, (str, bytes)) or not isinstance(tiers, Sequence):
            chosen = ()
        else:
            chosen = tuple(tiers)
        if not chosen or not all(isinstance(t, Accountant) for t in chosen):
            raise TypeError(
                "tiers must be a non-empty sequence of Accountant instances. "
                f"Found {tiers!r}."
            )
        if not chosen[-1].certified:
            raise ValueError(
                "tiers: the last tier must be certified (e.g. accountants."
                f"Numerical()), so that every query is answered. Found {chosen[-1]!r}."
            )
        self.tiers = chosen

    def _curve(self, components: Components) -> AutoCurve:
        """An :class:`AutoCurve`: the tiers compose at their first use."""
        return AutoCurve(
            pairs=(),
            method=self.method,
            symmetric=all(m.is_symmetric for m, _ in components),
            info={**self.describe(components), "rel_tol": self.rel_tol},
            components=components,
            tiers=self.tiers,
            rel_tol=self.rel_tol,
        )

    def compose_pair(self, components: Components) -> Any:  # pragma: no cover
        raise NotImplementedError("Auto answers from its tiers' curves.")

    def __repr__(self) -> str:
        return f"Auto(rel_tol={self.rel_tol:g})"


__all__ = ["Auto", "AutoAnswer", "AutoCurve", "default_tiers"]
