"""The risk report of a run: :class:`RiskRequest` -> :func:`assess` ->
:class:`RiskResult`.

The run is accounted as :func:`~symfdp.runs.accounting.account` does (its
:class:`~symfdp.runs.records.AccountResult` is kept whole), then each method's
curve is read by :func:`symfdp.risk.report`: TPR at each false-positive rate per
direction, advantage, Bayes risk at a prior, ReRo at a prior, mu-GDP and its
regret. This module sits at layer 8 (it reads :mod:`symfdp.risk`); the rest of
:mod:`symfdp.runs` does not import it.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from symfdp.risk import DEFAULT_FPRS, DEFAULT_KAPPA, DEFAULT_PRIOR, RiskReport, report
from symfdp.runs.accounting import REFUSALS, account
from symfdp.runs.errors import RequestError
from symfdp.runs.methods import MethodSpec
from symfdp.runs.records import AccountRequest, AccountResult, MethodResult


def _rate(name: str, value: object, *, open_ends: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RequestError(f"{{{name}}} must be a number. Found {value!r}.")
    x = float(value)
    inside = 0 < x < 1 if open_ends else 0 <= x <= 1
    if math.isnan(x) or not inside:
        interval = "(0, 1)" if open_ends else "[0, 1]"
        raise RequestError(f"{{{name}}} must lie in {interval}. Found {value!r}.")
    return x


@dataclass(frozen=True, slots=True, kw_only=True)
class RiskRequest:
    """The risk measures of a run, by each method of ``account``.

    Args:
        account: The run, the epsilon/delta queries and the methods.
        fpr: False-positive rates in [0, 1] for the TPR (one or more).
        prior: The Bayes-risk prior in (0, 1).
        kappa: The ReRo prior in (0, 1).

    Raises:
        RequestError: the first problem, naming the field.
    """

    account: AccountRequest
    fpr: tuple[float, ...] = DEFAULT_FPRS
    prior: float = DEFAULT_PRIOR
    kappa: float = DEFAULT_KAPPA

    def __post_init__(self) -> None:
        if not isinstance(self.account, AccountRequest):
            raise RequestError(
                f"{{account}} must be an AccountRequest. Found {self.account!r}."
            )
        rates = tuple(self.fpr) if isinstance(self.fpr, Sequence) else (self.fpr,)
        if not rates:
            raise RequestError("{fpr} needs at least one false-positive rate.")
        fpr = tuple(_rate("fpr", v, open_ends=False) for v in rates)
        object.__setattr__(self, "fpr", fpr)
        object.__setattr__(self, "prior", _rate("prior", self.prior, open_ends=True))
        object.__setattr__(self, "kappa", _rate("kappa", self.kappa, open_ends=True))

    def as_json(self) -> dict[str, Any]:
        """What is asked beyond the account request, as plain JSON data."""
        return {"fpr": list(self.fpr), "prior": self.prior, "kappa": self.kappa}


@dataclass(frozen=True, slots=True)
class MethodRisk:
    """One method's risk report, or why it has none.

    Attributes:
        method: The method's name.
        report: The report (None when the method has no curve to read).
        seconds: Time to compute the report (the composition excluded).
        warnings: The distinct warnings raised meanwhile, one line each.
        error: Why there is no report; None when there is.
    """

    method: str
    report: RiskReport | None
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The method's report as plain JSON data."""
        return {
            "method": self.method,
            "report": None if self.report is None else self.report.as_json(),
            "seconds": self.seconds,
            "warnings": list(self.warnings),
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class RiskResult:
    """The account of the run and each method's risk report, in its order."""

    request: RiskRequest
    accounted: AccountResult
    risks: tuple[MethodRisk, ...] = field(default=())

    def as_json(self) -> dict[str, Any]:
        """The account result with ``risk`` (the request's rates and priors)
        and ``risk_reports`` (one per method) added."""
        return {
            **self.accounted.as_json(),
            "risk": self.request.as_json(),
            "risk_reports": [r.as_json() for r in self.risks],
        }


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def method_risk(result: MethodResult, request: RiskRequest) -> MethodRisk:
    """The risk report of one method's curve; a refusal is its ``error``."""
    if result.curve is None:
        return MethodRisk(result.method, None, error=result.error or "no curve")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            found: RiskReport | None = report(
                result.curve, fpr=request.fpr, prior=request.prior, kappa=request.kappa
            )
            error = None
        except (*REFUSALS, NotImplementedError) as exc:  # e.g. Auto: no pairs
            found, error = None, _first_line(exc)
        seconds = time.perf_counter() - start
    seen = dict.fromkeys(
        f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught
    )
    return MethodRisk(result.method, found, seconds, tuple(seen), error)


def assess(
    request: RiskRequest,
    *,
    on_start: Callable[[MethodSpec], None] | None = None,
    on_result: Callable[[MethodResult], None] | None = None,
) -> RiskResult:
    """Account ``request.account`` and read each method's risk report.

    Args:
        request: The run, its queries and methods, and the risk parameters.
        on_start, on_result: As in :func:`~symfdp.runs.accounting.account`.

    Raises:
        As :func:`~symfdp.runs.accounting.account`.
    """
    accounted = account(request.account, on_start=on_start, on_result=on_result)
    risks = tuple(method_risk(r, request) for r in accounted.results)
    return RiskResult(request, accounted, risks)
