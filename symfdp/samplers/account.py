r"""A mechanism inside a sampler, accounted; and every sampler side by side.

:func:`account_sampler` wraps any mechanism symfdp can describe (built-ins,
``M.from_densities``, ``M.from_pmfs``) in a :class:`~symfdp.samplers.records.
Sampler` and accounts a run of ``steps`` steps: by the certified accountant
(``A.Numerical``) by default, or by any accountant where the sampler's privacy
is a composition of one-step pairs (the analytic answers then carry their error
estimates). The answer, :class:`SampledPrivacy`, states its reach
(:class:`~symfdp.samplers.records.Guarantee`): its ``epsilon_bounds`` are
bounds on the *run*, so an upper-bound sampler reports ``(0, upper)`` and the
shuffling lower bound ``(lower, inf)``.

:func:`compare_samplers` answers the same run under each sampler
(:class:`ComparisonRow`), for the ``--sampler all`` table.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_instance, check_int, scalar_or_array
from symfdp.accountants.base import Accountant
from symfdp.accountants.numerical import Numerical
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.samplers.records import (
    Guarantee,
    RunShape,
    Sampler,
    sampler_for,
    sampler_names,
)
from symfdp.samplers.sensitivity import Scale

#: Errors that make a comparison row a named refusal rather than a crash.
REFUSALS = (ValueError, NotImplementedError, FloatingPointError)


@dataclass(frozen=True)
class SampledPrivacy:
    """The privacy of a run under a sampler.

    Attributes:
        sampler: The sampler.
        method: The accountant's name (``numerical`` for the samplers' own
            certified curves).
        curve: The composed curve (a ``PrivacyCurve``, a random-allocation or
            shuffling curve).
        certified: Whether the numbers are certified (else error estimates).
    """

    sampler: Sampler
    method: str
    curve: Any
    certified: bool

    @property
    def guarantee(self) -> Guarantee:
        """How far the numbers go."""
        return self.sampler.guarantee

    @property
    def statement(self) -> str:
        """What a reader may conclude from the numbers."""
        text = self.guarantee.statement
        return text if self.certified else f"estimate of the {text}"

    def _bounds(self, lo: FloatArray, hi: FloatArray, top: float) -> tuple[Any, Any]:
        g = self.guarantee
        if g is Guarantee.UPPER:
            lo = np.zeros_like(np.asarray(hi, dtype=np.float64))
        elif g is Guarantee.LOWER:
            hi = np.full_like(np.asarray(lo, dtype=np.float64), top)
        return scalar_or_array(np.asarray(lo)), scalar_or_array(np.asarray(hi))

    def _raw_delta(self, e: FloatArray) -> tuple[FloatArray, FloatArray]:
        if hasattr(self.curve, "delta_lower"):
            return self.curve.curve.delta_bounds(e)  # type: ignore[no-any-return]
        return self.curve.delta_bounds(e)  # type: ignore[no-any-return]

    def _raw_epsilon(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        if hasattr(self.curve, "epsilon_lower"):
            return self.curve.curve.epsilon_bounds(d)  # type: ignore[no-any-return]
        return self.curve.epsilon_bounds(d)  # type: ignore[no-any-return]

    def _need_certified(self) -> None:
        if not self.certified:
            raise ValueError(
                f"{self.method} gives estimates, not bounds: ask epsilon(delta) "
                "and epsilon_error(delta), or account with A.Numerical()."
            )

    def delta_bounds(self, eps: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` on the run's delta(eps): ``(0, upper)``
        for an upper-bound sampler, ``(lower, 1)`` for a lower bound."""
        self._need_certified()
        e = check_array("eps", eps)
        lo, hi = self._raw_delta(e)
        return self._bounds(lo, hi, 1.0)

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[Any, Any]:
        """Certified ``(lower, upper)`` on the run's eps(delta): ``(0, upper)``
        for an upper-bound sampler, ``(lower, inf)`` for a lower bound."""
        self._need_certified()
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        lo, hi = self._raw_epsilon(d)
        return self._bounds(lo, hi, math.inf)

    def pair_bounds(self, delta: ArrayLike) -> tuple[Any, Any]:
        """The certified bracket of the accounted pair itself (for an upper- or
        lower-bound sampler only one end bounds the run)."""
        self._need_certified()
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        return self._raw_epsilon(d)

    def pair_delta_bounds(self, eps: ArrayLike) -> tuple[Any, Any]:
        """The certified bracket on delta(eps) of the accounted pair itself."""
        self._need_certified()
        return self._raw_delta(check_array("eps", eps))

    def epsilon(self, delta: ArrayLike) -> Any:
        """The accountant's eps(delta) of the accounted pair (the reported end
        of the bracket for certified answers: upper, or lower for a lower
        bound)."""
        if self.certified:
            lo, hi = self.pair_bounds(delta)
            return lo if self.guarantee is Guarantee.LOWER else hi
        return self.curve.epsilon(delta)

    def epsilon_error(self, delta: ArrayLike) -> Any:
        """The estimate's error (half the bracket for certified answers)."""
        if self.certified:
            lo, hi = self.pair_bounds(delta)
            return scalar_or_array((np.asarray(hi) - np.asarray(lo)) / 2)
        return self.curve.epsilon_error(delta)


def account_sampler(
    mechanism: Mechanism,
    sampler: Sampler,
    *,
    steps: int,
    accountant: Accountant | None = None,
    at_sensitivity: Scale | None = None,
) -> SampledPrivacy:
    """The privacy of ``steps`` steps of ``mechanism`` inside ``sampler``.

    Args:
        mechanism: The pair of adding one record to a batch (any symfdp
            mechanism).
        sampler: The batch sampler.
        steps: Total number of steps (a multiple of the epoch length for
            random allocation and shuffling).
        accountant: The accountant (default ``A.Numerical()``, certified);
            random allocation and shuffling take the certified one only.
        at_sensitivity: The pair at sensitivity ``s``, for samplers that
            replace records (fixed batches, truncated Poisson), when the
            mechanism does not declare it
            (:func:`~symfdp.samplers.sensitivity.at_sensitivity`).

    Raises:
        ValueError: a bad parameter (named), or an accountant that cannot serve
            the sampler.
    """
    check_instance("mechanism", mechanism, Mechanism)
    check_instance("sampler", sampler, Sampler)
    steps = check_int("steps", steps, lo=1)
    if accountant is not None:
        check_instance("accountant", accountant, Accountant)
    sampler.epochs(steps)
    plan = sampler.composition(mechanism, steps, at_sensitivity)
    if plan is None:
        if accountant is not None and not isinstance(accountant, Numerical):
            raise ValueError(
                f"accountant {type(accountant).__name__} cannot serve {sampler.name}: "
                "its privacy is no composition of one-step pairs; it is served by "
                "its own certified curve (accountant=None or A.Numerical())."
            )
        curve = sampler.certified_curve(mechanism, steps, at_sensitivity)
        return SampledPrivacy(sampler, "numerical", curve, True)
    acc = Numerical() if accountant is None else accountant
    components, adjacency = plan
    curve = acc.compose(list(components), adjacency=adjacency)
    return SampledPrivacy(
        sampler, str(getattr(acc, "name", "")), curve, bool(curve.certified)
    )


@dataclass(frozen=True)
class ComparisonRow:
    """One sampler's answer to a run (or why it gave none).

    Attributes:
        sampler: The sampler's command-line name.
        guarantee: How far the numbers go (None when refused).
        epsilon_bounds: Certified bounds on the run's eps(delta) at each delta
            (``(0, upper)`` for an upper bound, ``(lower, inf)`` for a lower
            bound).
        epsilon: The reported end at each delta.
        seconds: Time to account.
        error: Why the sampler gave no answer; None when it answered.
    """

    sampler: str
    guarantee: Guarantee | None
    deltas: tuple[float, ...]
    epsilon_bounds: tuple[tuple[float, float], ...] = ()
    epsilon: tuple[float, ...] = ()
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    error: str | None = None

    @property
    def statement(self) -> str:
        """What the row lets a reader conclude."""
        if self.guarantee is None:
            return f"not served: {self.error}"
        return self.guarantee.statement

    def as_json(self) -> dict[str, Any]:
        """The row as plain JSON data."""
        return {
            "sampler": self.sampler,
            "guarantee": None if self.guarantee is None else self.guarantee.value,
            "deltas": list(self.deltas),
            "epsilon": list(self.epsilon),
            "epsilon_bounds": [list(b) for b in self.epsilon_bounds],
            "statement": self.statement,
            "seconds": self.seconds,
            "warnings": list(self.warnings),
            "error": self.error,
        }


def compare_samplers(
    mechanism: Mechanism,
    shape: RunShape,
    *,
    deltas: Sequence[float],
    samplers: Sequence[str] | None = None,
    at_sensitivity: Scale | None = None,
) -> tuple[ComparisonRow, ...]:
    """What the same run may report under each sampler, certified.

    Args:
        mechanism: The mechanism of one step (pair of adding one record).
        shape: The run's steps and batch description.
        deltas: Target deltas in (0, 1).
        samplers: Command-line names (default: every sampler).
        at_sensitivity: As for :func:`account_sampler`.

    Returns:
        One :class:`ComparisonRow` per sampler; a sampler that cannot serve
        the run (a missing field, an epoch that does not divide the steps) is
        a row with its reason.
    """
    check_instance("shape", shape, RunShape)
    ds = tuple(
        float(d)
        for d in np.atleast_1d(
            check_array("deltas", deltas, 0.0, 1.0, lo_open=True, hi_open=True)
        )
    )
    names = sampler_names() if samplers is None else tuple(samplers)
    rows = []
    for name in names:
        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sampler = sampler_for(name, shape)
                answer = account_sampler(
                    mechanism, sampler, steps=shape.steps, at_sensitivity=at_sensitivity
                )
                lo, hi = answer.epsilon_bounds(np.array(ds))
                eps = answer.epsilon(np.array(ds))
        except REFUSALS as exc:
            rows.append(ComparisonRow(name, None, ds, error=str(exc).splitlines()[0]))
            continue
        rows.append(
            ComparisonRow(
                name,
                answer.guarantee,
                ds,
                tuple(
                    (float(a), float(b))
                    for a, b in zip(np.atleast_1d(lo), np.atleast_1d(hi), strict=True)
                ),
                tuple(float(e) for e in np.atleast_1d(eps)),
                time.perf_counter() - start,
                tuple(dict.fromkeys(str(w.message).splitlines()[0] for w in caught)),
            )
        )
    return tuple(rows)


__all__ = ["ComparisonRow", "SampledPrivacy", "account_sampler", "compare_samplers"]
