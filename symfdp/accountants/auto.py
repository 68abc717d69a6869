r"""``Auto``: each query answered by the fastest method whose error estimate meets a
tolerance.

The tiers are tried in order of cost, by default

    CLT  ->  Edgeworth(order=4)  ->  SaddlePoint(order=3)  ->  Contour  ->  Numerical.

A tier answers the points of a query where its own error estimate
(``epsilon_error`` / ``delta_error``) is at most ``rel_tol`` times its answer and its
answer needed no repair (:class:`~symfdp.curve.Repair`); the rest go to the next
tier, the certified :class:`~symfdp.accountants.Numerical` answering whatever is
left. Tiers that cannot serve the composition are skipped;
:attr:`AutoCurve.last_answer` says who answered. Estimates are not bounds: to
publish, use ``Numerical``'s bracket.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_real, scalar_or_array
from symfdp.accountants.base import Accountant, Components
from symfdp.curve import Answer, FloatArray, PrivacyCurve, Query
from symfdp.curve.report import warn_repairs

#: Errors below this (absolute) always meet the tolerance (round-off).
_ABS_FLOOR = 1e-12


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
        query: ``"epsilon(delta)"``, ``"delta(eps)"`` or ``"tradeoff(alpha)"``.
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
            try:
                curve = tier.compose(list(self.components))
            except (ValueError, NotImplementedError) as exc:
                if k == len(self.tiers) - 1:
                    raise
                self._state.skipped[repr(tier)] = str(exc).splitlines()[0]
                curve = None
            if curve is not None and not curve.estimates_error:
                self._state.skipped[repr(tier)] = "no error estimate"
                curve = None
            curves[k] = curve
        return curves[k]

    # ------------------------------------------------------------- queries
    def _answer_by_tier(self, query: Query, points: FloatArray) -> AutoAnswer:
        """Each point from the first tier whose answer needed no repair and
        whose error estimate meets ``rel_tol`` (the last tier answers the rest,
        its repairs warned)."""
        flat = points.ravel()
        value = np.full(flat.shape, np.nan)
        error = np.full(flat.shape, np.inf)
        method = np.empty(flat.shape, dtype=object)
        todo = np.arange(flat.size)
        last = len(self.tiers) - 1
        for k in range(len(self.tiers)):
            if todo.size == 0:
                break
            curve = self.tier_curve(k)
            if curve is None:
                continue
            try:
                v, e, found = _ask(curve, query, flat[todo])
            except (ValueError, FloatingPointError):
                if k == last:
                    raise
                continue
            if k == last:
                accept = np.ones(todo.size, dtype=bool)
                # The certified tier's own records stand.
                warn_repairs(curve.label, query, found.repairs, curve.certified)
            elif found.repairs:
                continue
            else:
                with np.errstate(invalid="ignore"):
                    accept = np.isfinite(v) & (
                        (e <= self.rel_tol * np.abs(v)) | (e <= _ABS_FLOOR)
                    )
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
        r"""The trade-off of the first tier whose privacy profile meets
        ``rel_tol`` at :math:`\varepsilon \in \{0, \varepsilon(10^{-3}),
        \varepsilon(10^{-6})\}` (relative error of :math:`\delta`) without a
        repair; the trade-off has no pointwise estimate of its own."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        probe = np.array([1e-3, 1e-6])
        for k in range(len(self.tiers)):
            curve = self.tier_curve(k)
            if curve is None:
                continue
            if k < len(self.tiers) - 1:
                try:
                    eps, _, at_eps = _ask(curve, Query.EPSILON, probe)
                    pts = np.concatenate(([0.0], eps))
                    d, err, at_d = _ask(curve, Query.DELTA, pts)
                except (ValueError, FloatingPointError):
                    continue
                if at_eps.repairs or at_d.repairs:
                    continue
                if not np.all(err <= self.rel_tol * d):
                    continue
            beta = np.asarray(curve.tradeoff(a, symmetric=symmetric), np.float64)
            self._state.last_answer = AutoAnswer(
                "tradeoff(alpha)",
                a.ravel().copy(),
                beta,
                np.full(beta.shape, np.nan),
                (curve.label,) * a.size,
            )
            return scalar_or_array(beta)
        raise AssertionError("the certified tier always answers")  # pragma: no cover

    def tradeoff_error(self, alpha: ArrayLike) -> Any:
        """Not available: the trade-off has no pointwise estimate of its own
        (see :meth:`tradeoff`); ``accountants.Numerical`` gives a bracket."""
        check_array("alpha", alpha, 0.0, 1.0)
        raise NotImplementedError(
            "tradeoff_error: Auto picks a tier for the whole trade-off curve and "
            "gives no estimate of its error; accountants.Numerical gives a "
            "certified bracket (curve.tradeoff_bounds)."
        )

    def pair_answers(
        self, query: Query, points: ArrayLike, first_only: bool = False
    ) -> tuple[Answer, ...]:
        """Not available: Auto answers from its tiers' curves (compose with a
        tier's accountant for its pairs)."""
        raise NotImplementedError(
            "pair_answers: Auto answers each query from its tiers' curves; compose "
            "with a tier's accountant (e.g. accountants.Numerical) for its pairs."
        )

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
