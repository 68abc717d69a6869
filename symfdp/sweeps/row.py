"""One row of a sweep, answered by :func:`symfdp.runs.account` or
:func:`symfdp.runs.calibrate` (the code of ``symfdp account`` /
``symfdp calibrate``).

:func:`answer` never raises for a failure of the computation: the message goes
in the row's ``error`` column, so that one bad configuration never stops a
sweep.
"""

from __future__ import annotations

import os
import time
from typing import Any, Final

from symfdp.runs.accounting import account
from symfdp.runs.calibration import calibrate
from symfdp.runs.errors import RequestError
from symfdp.runs.records import AccountRequest, CalibrateRequest

#: Output columns of an account row.
ACCOUNT_OUTPUTS: Final = (
    "epsilon",
    "epsilon_lo",
    "epsilon_hi",
    "epsilon_error",
    "answered_by",
    "mu_star",
    "mu_star_lo",
    "mu_star_hi",
    "guarantee",
    "seconds",
    "warnings",
    "error",
)
#: Output columns of a calibrate row (``final_method``: the accountant of the
#: reported epsilon and mu*).
CALIBRATE_OUTPUTS: Final = (
    "sigma",
    "epsilon",
    "epsilon_lo",
    "epsilon_hi",
    "mu_star",
    "final_method",
    "seconds",
    "warnings",
    "error",
)


def _message(exc: BaseException) -> str:
    if isinstance(exc, RequestError):
        # Fields in the spec's words.
        return exc.render(lambda f: {"sigma_range": "calibrate.sigma_range"}.get(f, f))
    text = str(exc).splitlines()[0] if str(exc) else ""
    if isinstance(exc, (ValueError, FloatingPointError)):
        return text
    return f"{type(exc).__name__}: {text}"


def _account(request: AccountRequest) -> dict[str, Any]:
    out: dict[str, Any] = dict.fromkeys(ACCOUNT_OUTPUTS)
    out["warnings"] = []
    (spec,) = request.methods
    out["guarantee"] = spec.guarantee
    start = time.perf_counter()
    try:
        (result,) = account(request).results
    except Exception as exc:  # a failing row is data, not a crash
        out["error"] = _message(exc)
        out["seconds"] = time.perf_counter() - start
        return out
    lo, hi = result.epsilon_bounds or (None, None)
    mlo, mhi = result.mu_star_bounds or (None, None)
    out.update(
        epsilon=result.epsilon,
        epsilon_lo=lo,
        epsilon_hi=hi,
        epsilon_error=result.epsilon_error,
        answered_by=result.answered_by,
        mu_star=result.mu_star,
        mu_star_lo=mlo,
        mu_star_hi=mhi,
        seconds=result.seconds,
        warnings=list(result.warnings),
        error=result.error,
    )
    return out


def _calibrate(request: CalibrateRequest) -> dict[str, Any]:
    out: dict[str, Any] = dict.fromkeys(CALIBRATE_OUTPUTS)
    out["warnings"] = []
    start = time.perf_counter()
    try:
        result = calibrate(request)
    except Exception as exc:  # a failing row is data, not a crash
        out["error"] = _message(exc)
        out["seconds"] = time.perf_counter() - start
        return out
    achieved = result.achieved
    lo, hi = achieved.epsilon_bounds or (None, None)
    out.update(
        sigma=result.sigma,
        epsilon=achieved.epsilon,
        epsilon_lo=lo,
        epsilon_hi=hi,
        mu_star=achieved.mu_star,
        final_method=achieved.method,
        seconds=time.perf_counter() - start,
        warnings=list(result.warnings),
    )
    return out


def answer(request: AccountRequest | CalibrateRequest) -> dict[str, Any]:
    """The output columns of one row (see :data:`ACCOUNT_OUTPUTS` and
    :data:`CALIBRATE_OUTPUTS`); ``request`` is a row's request of
    :func:`symfdp.sweeps.spec.expand`."""
    os.environ.setdefault("SYMFDP_PROGRESS", "0")
    if isinstance(request, CalibrateRequest):
        return _calibrate(request)
    return _account(request)


def answer_indexed(
    item: tuple[int, AccountRequest | CalibrateRequest],
) -> tuple[int, dict[str, Any]]:
    """``(index, answer(request))``: the task of the process and Dask executors."""
    index, request = item
    return index, answer(request)
