"""Answer an :class:`~symfdp.runs.records.AccountRequest`: compose the run with
each method and read epsilon(delta), delta(eps), the certified brackets or
error estimates, and mu*.

One method's failure is that method's result (its ``error``), never the loss of
the others' answers: a method that refuses (``ValueError``, e.g. no finite
epsilon certified at that delta) or breaks is reported with the reason, and the
next one runs. A request for a single method that breaks raises, as the caller
then has nothing else to keep.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

from symfdp.accountants.base import normalize_composition
from symfdp.accountants.registry import accountant_classes
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms.base import Mechanism
from symfdp.runs.build import build_mechanism
from symfdp.runs.methods import (
    GUARANTEES,
    PARTIAL_METHODS,
    UNIVERSAL_METHODS,
    MethodSpec,
)
from symfdp.runs.records import (
    AccountRequest,
    AccountResult,
    DeltaAnswer,
    EpsilonAnswer,
    MethodResult,
)
from symfdp.runs.run import Run
from symfdp.runs.summary import mu_star

#: Methods whose mu* says nothing (``rdp``: its delta(0) bound is 1).
NO_MU_STAR = ("rdp",)
#: The refusals of a method: reported as its answer's ``error``.
REFUSALS = (ValueError, FloatingPointError)


def methods_serving(run: Run) -> tuple[str, ...]:
    """Every method that answers ``run`` (``--method all``), in registry order:
    the universal ones, then those whose ``serves`` test accepts it (``exact``
    where a closed form exists)."""
    components = normalize_composition(build_mechanism(run), run.steps)
    classes = accountant_classes()
    partial = [n for n in PARTIAL_METHODS if classes[n].serves(components)]  # type: ignore[attr-defined]  # (PARTIAL: they have it)
    return (*UNIVERSAL_METHODS, *partial)


def account(
    request: AccountRequest,
    *,
    on_start: Callable[[MethodSpec], None] | None = None,
    on_result: Callable[[MethodResult], None] | None = None,
) -> AccountResult:
    """Every method's answer to ``request``, in its order.

    Args:
        request: The run, the queries and the methods.
        on_start: Called with each method before it runs (progress lines).
        on_result: Called with each method's result as it is known (so that a
            caller interrupted meanwhile keeps the answers it has).

    Raises:
        RequestError: a method's options are refused by its accountant.
        Exception: what a single requested method raised when it broke (not a
            refusal); with several methods the break is that method's result.
    """
    mechanism = build_mechanism(request.run)
    accountants = [spec.build() for spec in request.methods]  # options first
    results = []
    alone = len(request.methods) == 1
    for spec, accountant in zip(request.methods, accountants, strict=True):
        if on_start is not None:
            on_start(spec)
        try:
            result = account_method(spec, accountant, mechanism, request)
        except REFUSALS as exc:
            result = _failure(spec, _first_line(exc))
        except Exception as exc:
            if alone:
                raise
            result = _failure(
                spec, f"{type(exc).__name__}: {_first_line(exc)} (an internal error)"
            )
        results.append(result)
        if on_result is not None:
            on_result(result)
    return AccountResult(request, tuple(results))


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def _failure(spec: MethodSpec, error: str) -> MethodResult:
    return MethodResult(
        method=spec.name, guarantee=GUARANTEES[spec.name], options=dict(spec.options),
        error=error,
    )  # fmt: skip


def account_method(
    spec: MethodSpec, accountant: Any, mechanism: Mechanism, request: AccountRequest
) -> MethodResult:
    """Compose, then mu*, epsilon at each delta, delta at each eps and the
    certified brackets; timed (the imports excluded), with the warnings kept. A
    refusal after composing (e.g. no finite epsilon certified) is the result's
    ``error``, with what was answered before it (mu*); one while composing is
    raised."""
    found: dict[str, Any] = {"by_delta": (), "at_eps": (), "error": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        curve = accountant.compose(mechanism, request.run.steps)
        try:
            if spec.name not in NO_MU_STAR:
                found["mu_star"] = float(mu_star(curve))
            if curve.certified:
                lo, hi = mu_star(curve, bounds=True)
                found["mu_star_bounds"] = (float(lo), float(hi))
            found["by_delta"] = tuple(_epsilon(curve, d) for d in request.deltas)
            found["at_eps"] = tuple(_delta(curve, e) for e in request.at_eps)
        except REFUSALS as exc:
            found["by_delta"] = found["at_eps"] = ()
            found["error"] = _first_line(exc)
        seconds = time.perf_counter() - start
    seen = dict.fromkeys(
        f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught
    )
    return MethodResult(
        method=spec.name,
        guarantee=GUARANTEES[spec.name],
        options=dict(spec.options),
        seconds=seconds,
        warnings=tuple(seen),
        curve=curve,
        **found,
    )


def _epsilon(curve: PrivacyCurve, delta: float) -> EpsilonAnswer:
    """epsilon(delta) with the certified bracket or the error estimate."""
    eps = float(curve.epsilon(delta))
    if curve.certified:
        lo, hi = curve.epsilon_bounds(delta)
        return EpsilonAnswer(
            delta=delta, epsilon=eps, epsilon_bounds=(float(lo), float(hi))
        )
    last = getattr(curve, "last_answer", None)  # Auto: the tier that answered
    if last is not None:
        return EpsilonAnswer(
            delta=delta,
            epsilon=eps,
            epsilon_error_estimate=float(last.error.flat[0]),
            answered_by=last.method[0],
        )
    error = float(curve.epsilon_error(delta)) if curve.estimates_error else None
    return EpsilonAnswer(delta=delta, epsilon=eps, epsilon_error_estimate=error)


def _delta(curve: PrivacyCurve, eps: float) -> DeltaAnswer:
    """delta(eps) with the certified bracket or the error estimate."""
    delta = float(curve.delta(eps))
    if curve.certified:
        lo, hi = curve.delta_bounds(eps)
        return DeltaAnswer(eps=eps, delta=delta, delta_bounds=(float(lo), float(hi)))
    error = float(curve.delta_error(eps)) if curve.estimates_error else None
    return DeltaAnswer(eps=eps, delta=delta, delta_error_estimate=error)
