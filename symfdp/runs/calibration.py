"""Answer a :class:`~symfdp.runs.records.CalibrateRequest` with
:func:`symfdp.calibrate.calibrate`, and report what the calibrated run achieves.

The search's messages name its Python words (``sigma in [lo, hi]``,
``target_eps``); they are raised here as a
:class:`~symfdp.runs.errors.RequestError` whose fields each front end spells in
its words (``--sigma-range`` on the command line). What the run achieves is read
from the search's final composition (its answers are kept): no composition or
certified bracket is computed twice.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any, Final

from symfdp import calibrate as search
from symfdp.calibration.parameters import Parameter
from symfdp.calibration.targets import Target, delta_target, epsilon_target, mu_target
from symfdp.runs.errors import RequestError
from symfdp.runs.records import (
    Achieved,
    CalibrateRequest,
    CalibrateResult,
    SearchCost,
)
from symfdp.runs.summary import mu_star

#: The search's words and the request fields they stand for.
_FIELDS: Final = (
    (r" sigma in \[", " sigma in {sigma_range} ["),
    (r"\bsample_rate(?= in \[| = )", "{sample_rate}"),
    (r"\bsteps(?= in \[| = )", "{steps}"),
    (r"(?<![\w.])target_eps(?!\w)", "{target_eps}"),
    (r"(?<![\w.])target_delta(?!\w)", "{target_delta}"),
    (r"(?<![\w.])target_mu(?!\w)", "{target_mu}"),
    (r"(?<![\w.])rtol(?!\w)", "{rtol}"),
)


def final_name(method: str) -> str:
    """The accountant whose numbers a calibration reports."""
    return "numerical, after an auto search" if method == "auto" else method


def request_target(request: CalibrateRequest) -> Target:
    """The :class:`~symfdp.calibration.targets.Target` of ``request``."""
    if request.kind == "eps":
        return epsilon_target(request.target, request.delta)  # type: ignore[arg-type]  # set with target_eps
    if request.kind == "delta":
        return delta_target(request.target, request.eps)  # type: ignore[arg-type]  # set with target_delta
    return mu_target(request.target)


def calibrate(
    request: CalibrateRequest,
    *,
    on_value: Callable[[float], None] | None = None,
) -> CalibrateResult:
    """The calibrated run of ``request`` and what it achieves.

    Args:
        request: The run, the target, the solved parameter, the method.
        on_value: Called with the target quantity of each composition the
            search makes (progress lines).

    Raises:
        RequestError: the target is out of reach (the message names the
            parameter and the end of its range), or the search refuses the
            request.
    """
    run = request.run
    spec = request.method
    solved = Parameter(request.solve_for)
    target = request_target(request)

    def seen(_stage: str, _value: float, measured: float) -> None:
        if on_value is not None:
            on_value(measured)

    try:
        with warnings.catch_warnings():
            # The search visits extreme parameters, where the approximations
            # warn; only the answer's own warnings are reported.
            warnings.simplefilter("ignore")
            found = search.calibrate(
                target,
                solved.value,
                sigma=None if solved is Parameter.SIGMA else run.sigma,
                p=None if solved is Parameter.SAMPLE_RATE else run.sample_rate,
                n=None if solved is Parameter.STEPS else run.steps,
                mechanism=run.mechanism,
                pair=run.adjacency.pair,  # "both", "add" or "remove"
                accountant=None if spec.name == "auto" else spec.build(),
                limits=request.sigma_range if solved is Parameter.SIGMA else None,
                rtol=request.rtol,
                on_evaluation=seen,
            )
    except ValueError as exc:
        raise RequestError(_fields(str(exc).splitlines()[0])) from None
    curve, bracket = found.curve, found.bracket
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        achieved: dict[str, Any] = {
            "method": final_name(spec.name),
            "mu_star": float(mu_star(curve)),
            "target": target.name,
            "estimate": bracket.estimate,
            "published": found.published,
            "bounds": (bracket.lower, bracket.upper) if bracket.certified else None,
        }
        if request.delta is not None:
            achieved["delta"] = request.delta
            achieved["epsilon"] = float(curve.epsilon(request.delta))
            if curve.certified:
                lo, hi = curve.epsilon_bounds(request.delta)
                achieved["epsilon_bounds"] = (float(lo), float(hi))
    notes = dict.fromkeys(
        f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught
    )
    setting = found.setting
    return CalibrateResult(
        request=request,
        sigma=setting.sigma,
        sample_rate=setting.p,
        steps=setting.n,
        value=found.value,
        achieved=Achieved(**achieved),
        cost=SearchCost(
            certified_evaluations=found.certified_evaluations,
            approach_evaluations=found.approach_evaluations,
            approach=found.approach,
            start=found.start,
            stop=found.stop.value,
        ),
        seconds=found.seconds,
        warnings=tuple(notes),
    )


def _fields(message: str) -> str:
    """The search's message as a request template (its words made fields)."""
    for pattern, field in _FIELDS:
        message = re.sub(pattern, field, message)
    return message
