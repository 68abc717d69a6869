"""Answer a :class:`~symfdp.runs.records.CalibrateRequest` with the search of
:mod:`symfdp.calibrate`, and report what the sigma found achieves.

The search's own messages name its Python arguments (``sigma_bracket``,
``target_eps``); they are raised here as a
:class:`~symfdp.runs.errors.RequestError` whose fields each front end spells in
its words (``--sigma-range`` on the command line).
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable
from typing import Any, Final

from symfdp import calibrate as search
from symfdp.accountants.numerical import Numerical
from symfdp.curve import PrivacyCurve
from symfdp.runs.build import build_mechanism
from symfdp.runs.errors import RequestError
from symfdp.runs.records import Achieved, CalibrateRequest, CalibrateResult
from symfdp.runs.summary import mu_star

#: The search's argument names and the request fields they stand for.
_FIELDS: Final = {"sigma_bracket": "sigma_range", "target_eps": "target_eps",
                  "target_mu": "target_mu", "rtol": "rtol"}  # fmt: skip


def final_name(method: str) -> str:
    """The accountant whose numbers a calibration reports."""
    return "numerical, after an auto search" if method == "auto" else method


def calibrate(
    request: CalibrateRequest, *, on_value: Callable[[float], None] | None = None
) -> CalibrateResult:
    """The calibrated sigma of ``request`` and what it achieves.

    Args:
        request: The run (without sigma), the target, the method, the range.
        on_value: Called with the target quantity of each composition the
            search makes (progress lines).

    Raises:
        RequestError: the target is out of reach in ``sigma_range`` (the
            message says which end to move), or the search refuses the request.
    """
    run = request.run
    spec = request.method
    accountant = None if spec.name == "auto" else spec.build()
    p = 1.0 if run.sample_rate is None else run.sample_rate
    pair = run.adjacency.pair  # "both", "add" or "remove" (replace_one refused)

    def target_fn(curve: PrivacyCurve) -> float:
        if request.kind == "eps":
            value = search.epsilon_upper(curve, request.delta)  # type: ignore[arg-type]  # set with target_eps
        else:
            value = search.mu_upper(curve) if curve.certified else mu_star(curve)
        if on_value is not None:
            on_value(value)
        return value

    what = "epsilon (target_eps)" if request.kind == "eps" else "mu* (target_mu)"
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # The search visits extreme sigmas (the range's ends), where the
            # approximations warn; only the answer's own warnings are reported.
            warnings.simplefilter("ignore")
            sigma = search.noise_for(
                target_fn,
                request.target,
                p,
                run.steps,
                accountant,
                run.mechanism,
                pair,
                sigma_bracket=request.sigma_range,
                rtol=request.rtol,
                what=what,
            )
    except ValueError as exc:
        raise RequestError(_fields(str(exc).splitlines()[0])) from None
    seconds = time.perf_counter() - start
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        final = accountant if accountant is not None else Numerical()
        curve = final.compose(build_mechanism(run.with_sigma(sigma)), run.steps)
        achieved: dict[str, Any] = {
            "method": final_name(spec.name),
            "mu_star": float(mu_star(curve)),
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
    return CalibrateResult(
        request=request,
        sigma=float(sigma),
        achieved=Achieved(**achieved),
        seconds=seconds,
        warnings=tuple(notes),
    )


def _fields(message: str) -> str:
    """The search's message as a request template (its argument names made
    fields)."""
    for name, field in _FIELDS.items():
        message = re.sub(rf"(?<![\w.]){name}(?!\w)", f"{{{field}}}", message)
    return message
