"""One row of a sweep, answered by the code of ``symfdp account`` /
``symfdp calibrate``.

:func:`answer` never raises for a failure of the computation: the message goes
in the row's ``error`` column, so that one bad configuration never stops a
sweep.
"""

from __future__ import annotations

import time
from typing import Any, Final

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
    text = str(exc).splitlines()[0] if str(exc) else ""
    if isinstance(exc, (ValueError, FloatingPointError)):
        return text
    return f"{type(exc).__name__}: {text}"


def _account(config: dict[str, Any]) -> dict[str, Any]:
    from symfdp.cli.account import Result, Run, account_one

    params = {
        k: float(config[k]) for k in ("sigma", "mu", "eps") if config.get(k) is not None
    }
    replace = config["pair"] == "replace_one"
    subsampled = config["sample_rate"] is not None
    run = Run(
        config["mechanism"],
        params,
        int(config["steps"]),
        config["sample_rate"],
        None if replace else config["pair"],
        effect_factor=2.0 if replace and not subsampled else 1.0,
        replace_one=replace and subsampled,
    )
    start = time.perf_counter()
    try:
        result = account_one(
            config["method"],
            run.build(),
            run.steps,
            float(config["delta"]),
            dict(config["options"]),
        )
    except Exception as exc:  # a failing row is data, not a crash
        result = Result(method=config["method"], error=_message(exc))
        result.seconds = time.perf_counter() - start
    lo, hi = result.epsilon_bounds or (None, None)
    mlo, mhi = result.mu_star_bounds or (None, None)
    return {
        "epsilon": result.epsilon,
        "epsilon_lo": lo,
        "epsilon_hi": hi,
        "epsilon_error": result.epsilon_error,
        "answered_by": result.answered_by,
        "mu_star": result.mu_star,
        "mu_star_lo": mlo,
        "mu_star_hi": mhi,
        "guarantee": result.guarantee,
        "seconds": result.seconds,
        "warnings": list(result.warnings),
        "error": result.error,
    }


def _calibrate(config: dict[str, Any]) -> dict[str, Any]:
    from symfdp.cli.calibrate import calibrate_one

    out: dict[str, Any] = dict.fromkeys(CALIBRATE_OUTPUTS)
    out["warnings"] = []
    kind = "eps" if config.get("target_eps") is not None else "mu"
    target = config["target_eps"] if kind == "eps" else config["target_mu"]
    start = time.perf_counter()
    try:
        answer = calibrate_one(
            kind,
            float(target),
            None if config.get("delta") is None else float(config["delta"]),
            mechanism=config["mechanism"],
            sample_rate=config["sample_rate"],
            steps=int(config["steps"]),
            pair=config["pair"],
            method=config["method"],
            order=config["options"].get("order"),
            sigma_range=tuple(config["sigma_range"]),
            rtol=float(config["rtol"]),
        )
    except Exception as exc:  # a failing row is data, not a crash
        out["error"] = _message(exc).replace("sigma_bracket", "calibrate.sigma_range")
        out["seconds"] = time.perf_counter() - start
        return out
    achieved = answer["achieved"]
    lo, hi = achieved.get("epsilon_bounds") or (None, None)
    out.update(
        sigma=answer["sigma"],
        epsilon=achieved.get("epsilon"),
        epsilon_lo=lo,
        epsilon_hi=hi,
        mu_star=achieved["mu_star"],
        final_method=achieved["method"],
        seconds=time.perf_counter() - start,
        warnings=answer["warnings"],
    )
    return out


def answer(config: dict[str, Any]) -> dict[str, Any]:
    """The output columns of one row (see :data:`ACCOUNT_OUTPUTS` and
    :data:`CALIBRATE_OUTPUTS`); ``config`` is a row of
    :func:`symfdp.sweeps.spec.expand`."""
    import os

    os.environ.setdefault("SYMFDP_PROGRESS", "0")
    if config["task"] == "calibrate":
        return _calibrate(config)
    return _account(config)


def answer_indexed(item: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """``(index, answer(config))``: the task of the process and Dask executors."""
    index, config = item
    return index, answer(config)
