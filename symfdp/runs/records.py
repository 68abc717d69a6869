"""Typed requests and results of the application layer.

A request says what to compute (:class:`AccountRequest`: the privacy of a
:class:`~symfdp.runs.run.Run` by some methods; :class:`CalibrateRequest`: the
noise multiplier that meets a target); a result says what each method answered
(value, certified bracket or error estimate, guarantee, mu*, time) or why it
did not. The command line, sweeps and ``TrainingAccountant`` build the same
requests and read the same results; ``--json`` prints a result's
:meth:`as_json`. Requests validate when built (:class:`~symfdp.runs.errors.
RequestError`, whose fields each front end spells in its own words).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from symfdp.adjacency import Adjacency
from symfdp.runs.catalog import CALIBRATE_MECHANISMS
from symfdp.runs.errors import RequestError
from symfdp.runs.methods import (
    CALIBRATE_METHODS,
    ORDER_METHODS,
    SIGMA_RANGE,
    MethodSpec,
)
from symfdp.runs.run import Run

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.curve import PrivacyCurve

#: What ``mu_star`` is, for readers of a result.
MU_NOTE: Final = (
    "mu*: GDP parameter of the G_mu meeting the curve on the diagonal "
    "(Zheng et al. 2020, Sec. 4)"
)


def _reals(name: str, values: Sequence[float]) -> tuple[float, ...]:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise RequestError(f"{{{name}}} must be a number. Found {v!r}.")
        if not math.isfinite(v):
            raise RequestError(f"{{{name}}} must be finite. Found {v!r}.")
        out.append(float(v))
    return tuple(out)


def _pair(x: tuple[float, float] | None) -> list[float] | None:
    return None if x is None else [float(x[0]), float(x[1])]


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountRequest:
    """The privacy of a run: epsilon(delta) at each delta, delta(eps) at each
    eps, and mu*, by each method.

    Args:
        run: The composition (with its mechanism's parameter).
        deltas: Target deltas in (0, 1), for epsilon(delta).
        at_eps: Epsilons >= 0, for delta(eps) (``deltas`` and/or ``at_eps``).
        methods: The methods, each with its accountant's options.

    Raises:
        RequestError: the first problem, naming the fields.
    """

    run: Run
    deltas: tuple[float, ...] = ()
    at_eps: tuple[float, ...] = ()
    methods: tuple[MethodSpec, ...] = field(default_factory=lambda: (MethodSpec(),))

    def __post_init__(self) -> None:
        if not isinstance(self.run, Run):
            raise RequestError(f"{{run}} must be a Run. Found {self.run!r}.")
        if self.run.parameter is None:
            wanted = " or ".join(f"{{{k}}}" for k in self.run.family.parameters)
            raise RequestError(f"{self.run.mechanism} needs {wanted}.")
        deltas = _reals("delta", self.deltas)
        at_eps = _reals("at_eps", self.at_eps)
        if not deltas and not at_eps:
            raise RequestError("give {delta} (one or more target deltas) or {at_eps}.")
        for d in deltas:
            if not 0 < d < 1:
                raise RequestError(f"{{delta}} must lie in (0, 1). Found {d:g}.")
        for e in at_eps:
            if e < 0:
                raise RequestError(f"{{at_eps}} must be >= 0. Found {e:g}.")
        methods = tuple(self.methods)
        if not methods or not all(isinstance(m, MethodSpec) for m in methods):
            raise RequestError(
                f"{{method}} must be one or more MethodSpec. Found {self.methods!r}."
            )
        object.__setattr__(self, "deltas", deltas)
        object.__setattr__(self, "at_eps", at_eps)
        object.__setattr__(self, "methods", methods)

    def describe(self) -> str:
        """The run and what is asked of it, in one line."""
        asked = []
        if self.deltas:
            asked.append("delta=" + ", ".join(f"{d:g}" for d in self.deltas))
        if self.at_eps:
            asked.append("at eps=" + ", ".join(f"{e:g}" for e in self.at_eps))
        return f"{self.run.describe()}, {'; '.join(asked)}"

    def as_json(self) -> dict[str, Any]:
        """The request as plain JSON data."""
        run = self.run.as_json()
        derived = run.pop("derived")
        return {
            **run,
            "delta": self.deltas[0] if self.deltas else None,
            "deltas": list(self.deltas),
            "at_eps": list(self.at_eps),
            "derived": derived,
            "methods": [m.as_json() for m in self.methods],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class EpsilonAnswer:
    """epsilon(delta) at one delta.

    Attributes:
        delta: The target delta.
        epsilon: The method's answer.
        epsilon_bounds: The certified bracket (certified methods).
        epsilon_error_estimate: The method's estimate of its error (estimates).
        answered_by: The tier that answered (``auto``).
    """

    delta: float
    epsilon: float
    epsilon_bounds: tuple[float, float] | None = None
    epsilon_error_estimate: float | None = None
    answered_by: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The answer as plain JSON data."""
        return {
            "delta": self.delta,
            "epsilon": self.epsilon,
            "epsilon_bounds": _pair(self.epsilon_bounds),
            "epsilon_error_estimate": self.epsilon_error_estimate,
            "answered_by": self.answered_by,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class DeltaAnswer:
    """delta(eps) at one eps (attributes as :class:`EpsilonAnswer`'s)."""

    eps: float
    delta: float
    delta_bounds: tuple[float, float] | None = None
    delta_error_estimate: float | None = None

    def as_json(self) -> dict[str, Any]:
        """The answer as plain JSON data."""
        return {
            "eps": self.eps,
            "delta": self.delta,
            "delta_bounds": _pair(self.delta_bounds),
            "delta_error_estimate": self.delta_error_estimate,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MethodResult:
    """What one method answered, or why it did not.

    Attributes:
        method: The method's name.
        guarantee: ``"certified"``, ``"bound"`` or ``"estimate"``.
        options: The accountant's options.
        by_delta: epsilon(delta) at each requested delta.
        at_eps: delta(eps) at each requested eps.
        mu_star: The GDP summary mu* (:data:`MU_NOTE`); None where it says
            nothing (``rdp``) or was not reached.
        mu_star_bounds: Certified bounds on mu* (certified methods).
        seconds: Time to compose and answer (imports excluded).
        warnings: The distinct warnings raised meanwhile, one line each.
        error: Why the method gave no answer, or only part of it (then
            ``by_delta``/``at_eps`` are empty); None when it answered.
        curve: The composed curve (for plots; not serialised).
    """

    method: str
    guarantee: str
    options: dict[str, Any] = field(default_factory=dict)
    by_delta: tuple[EpsilonAnswer, ...] = ()
    at_eps: tuple[DeltaAnswer, ...] = ()
    mu_star: float | None = None
    mu_star_bounds: tuple[float, float] | None = None
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()
    error: str | None = None
    curve: PrivacyCurve | None = field(default=None, compare=False, repr=False)

    @property
    def answered(self) -> bool:
        """Whether the method answered every query (``error`` is None)."""
        return self.error is None

    @property
    def first(self) -> EpsilonAnswer | None:
        """The answer at the first delta, if any."""
        return self.by_delta[0] if self.by_delta else None

    @property
    def epsilon(self) -> float | None:
        """epsilon at the first delta."""
        return None if self.first is None else self.first.epsilon

    @property
    def epsilon_bounds(self) -> tuple[float, float] | None:
        """The certified bracket at the first delta."""
        return None if self.first is None else self.first.epsilon_bounds

    @property
    def epsilon_error(self) -> float | None:
        """The error estimate at the first delta."""
        return None if self.first is None else self.first.epsilon_error_estimate

    @property
    def answered_by(self) -> str | None:
        """The tier that answered at the first delta (``auto``)."""
        return None if self.first is None else self.first.answered_by

    def as_json(self) -> dict[str, Any]:
        """The result as plain JSON data (the curve left out)."""
        return {
            "method": self.method,
            "guarantee": self.guarantee,
            "options": dict(self.options),
            "epsilon": self.epsilon,
            "epsilon_error_estimate": self.epsilon_error,
            "answered_by": self.answered_by,
            "epsilon_bounds": _pair(self.epsilon_bounds),
            "mu_star": self.mu_star,
            "mu_star_bounds": _pair(self.mu_star_bounds),
            "seconds": self.seconds,
            "warnings": list(self.warnings),
            "error": self.error,
            "by_delta": [a.as_json() for a in self.by_delta],
            "at_eps": [a.as_json() for a in self.at_eps],
        }


@dataclass(frozen=True, slots=True)
class AccountResult:
    """Every method's answer to an :class:`AccountRequest`, in its order."""

    request: AccountRequest
    results: tuple[MethodResult, ...]

    @property
    def answered(self) -> tuple[MethodResult, ...]:
        """The methods that answered every query."""
        return tuple(r for r in self.results if r.answered)

    @property
    def failed(self) -> tuple[MethodResult, ...]:
        """The methods that did not (each with its ``error``)."""
        return tuple(r for r in self.results if not r.answered)

    def as_json(self) -> dict[str, Any]:
        """The request and the results as plain JSON data."""
        return {
            **self.request.as_json(),
            "mu_star_definition": MU_NOTE,
            "results": [r.as_json() for r in self.results],
        }


#: What a calibration may solve for (``Parameter`` of :mod:`symfdp.calibration`).
SOLVE_FOR: Final = ("sigma", "sample_rate", "steps")
#: The request fields naming a target, and the quantity each sets.
TARGET_FIELDS: Final = ("target_eps", "target_delta", "target_mu")


@dataclass(frozen=True, slots=True, kw_only=True)
class CalibrateRequest:
    """The riskiest value of one run parameter (the smallest noise multiplier,
    the largest sample rate or the largest number of steps) whose run meets a
    target: epsilon(delta) <= ``target_eps``, delta(eps) <= ``target_delta``,
    or mu* <= ``target_mu``, within ``rtol`` (relative) of the target.

    Args:
        run: The run (a family of :data:`~symfdp.runs.catalog.CALIBRATE_MECHANISMS`,
            not under ``replace_one``): without sigma when ``solve_for`` is
            ``"sigma"``, else with it; the solved field's value in ``run`` is a
            placeholder (ignored).
        target_eps: The target epsilon, > 0 (with ``delta``).
        target_delta: The target delta in (0, 1) (with ``eps``).
        target_mu: The target mu*, > 0.
        delta: The delta of ``target_eps`` (optional otherwise: then the
            epsilon achieved at it is reported too).
        eps: The epsilon of ``target_delta``, >= 0.
        solve_for: ``"sigma"`` (default), ``"sample_rate"`` or ``"steps"``.
        method: The accountant whose answer meets the target (``auto``:
            analytic steps, then the certified ``numerical``); its only option
            is ``order``.
        sigma_range: The searched range of sigma ``(lo, hi)`` (default: the
            whole range the search serves; no need to set it).
        rtol: Relative tolerance on the target value, in (0, 0.1].

    Raises:
        RequestError: the first problem, naming the fields.
    """

    run: Run
    target_eps: float | None = None
    target_delta: float | None = None
    target_mu: float | None = None
    delta: float | None = None
    eps: float | None = None
    solve_for: str = "sigma"
    method: MethodSpec = field(default_factory=lambda: MethodSpec("auto"))
    sigma_range: tuple[float, float] = SIGMA_RANGE
    rtol: float = 1e-3

    def __post_init__(self) -> None:
        if not isinstance(self.run, Run):
            raise RequestError(f"{{run}} must be a Run. Found {self.run!r}.")
        if self.run.mechanism not in CALIBRATE_MECHANISMS:
            raise RequestError(
                f"{{mechanism}} must be one of {', '.join(CALIBRATE_MECHANISMS)} "
                f"to calibrate. Found {self.run.mechanism!r}."
            )
        if self.solve_for not in SOLVE_FOR:
            raise RequestError(
                f"{{solve_for}} must be one of {', '.join(SOLVE_FOR)}. "
                f"Found {self.solve_for!r}."
            )
        self._check_run()
        if self.run.adjacency is Adjacency.REPLACE_ONE:
            raise RequestError(
                "calibrate: {adjacency} replace_one is not served; calibrate "
                "for add_or_remove (the sensitivity bound C), or halve the target mu."
            )
        given = [k for k in TARGET_FIELDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise RequestError(
                "give exactly one of {target_eps}, {target_delta} and {target_mu}."
            )
        if self.delta is not None:
            (delta,) = _reals("delta", [self.delta])
            if not 0 < delta < 1:
                raise RequestError(f"{{delta}} must lie in (0, 1). Found {delta:g}.")
            object.__setattr__(self, "delta", delta)
        if self.eps is not None:
            (eps,) = _reals("eps", [self.eps])
            if not 0 <= eps < math.inf:
                raise RequestError(f"{{eps}} must be finite and >= 0. Found {eps:g}.")
            object.__setattr__(self, "eps", eps)
        kind = given[0]
        (target,) = _reals(kind, [getattr(self, kind)])
        if kind == "target_eps" and self.delta is None:
            raise RequestError("{target_eps} needs {delta}.")
        if kind == "target_delta" and self.eps is None:
            raise RequestError("{target_delta} needs {eps}.")
        if kind != "target_delta" and self.eps is not None:
            raise RequestError("{eps} goes with {target_delta} only.")
        if kind == "target_delta" and self.delta is not None:
            raise RequestError("{delta} goes with {target_eps} (or {target_mu}).")
        if target <= 0 or (kind == "target_delta" and target >= 1):
            where = "(0, 1)" if kind == "target_delta" else "> 0"
            raise RequestError(f"{{{kind}}} must be {where}. Found {target:g}.")
        object.__setattr__(self, kind, target)
        self._check_method()
        lo, hi = _reals("sigma_range", list(self.sigma_range))
        if not SIGMA_RANGE[0] <= lo < hi <= SIGMA_RANGE[1]:
            raise RequestError(
                f"{{sigma_range}} must satisfy {SIGMA_RANGE[0]:g} <= lo < hi <= "
                f"{SIGMA_RANGE[1]:g}. Found [{lo:g}, {hi:g}]."
            )
        object.__setattr__(self, "sigma_range", (lo, hi))
        (rtol,) = _reals("rtol", [self.rtol])
        if not 0 < rtol <= 0.1:
            raise RequestError(f"{{rtol}} must lie in (0, 0.1]. Found {rtol:g}.")
        object.__setattr__(self, "rtol", rtol)

    def _check_run(self) -> None:
        run = self.run
        if self.solve_for == "sigma":
            if run.parameter is not None:
                raise RequestError(
                    f"{{{run.parameter[0]}}} is not given to a calibration of "
                    "sigma: sigma is its answer."
                )
            return
        if run.parameter is None or run.parameter[0] != "sigma":
            raise RequestError(
                f"a calibration of {{solve_for}} {self.solve_for} needs {{sigma}}."
            )
        if run.epochs is not None:
            raise RequestError(
                f"{{epochs}} fixes sample_rate and steps: calibrate "
                f"{self.solve_for} from {{sample_rate}} and {{steps}}."
            )
        if self.solve_for == "sample_rate" and run.sample_rate is None:
            raise RequestError(
                f"{{solve_for}} sample_rate needs a subsampled mechanism; "
                f"{run.mechanism} has no sample rate."
            )

    def _check_method(self) -> None:
        spec = self.method
        if not isinstance(spec, MethodSpec):
            raise RequestError(f"{{method}} must be a MethodSpec. Found {spec!r}.")
        if spec.name not in CALIBRATE_METHODS:
            raise RequestError(
                f"{{method}} {spec.name!r} does not calibrate; choose from "
                f"{', '.join(CALIBRATE_METHODS)}."
            )
        extra = sorted(set(spec.options) - {"order"})
        if extra:
            raise RequestError(
                f"method {spec.name}: a calibration takes only the option "
                f"{{order}}. Found {extra[0]!r}."
            )
        if "order" in spec.options and spec.name not in ORDER_METHODS:
            raise RequestError(
                f"{{order}} applies to {' and '.join(ORDER_METHODS)}, not {spec.name}."
            )

    @property
    def kind(self) -> str:
        """``"eps"`` (a target epsilon at ``delta``), ``"delta"`` (a target
        delta at ``eps``) or ``"mu"``."""
        if self.target_eps is not None:
            return "eps"
        return "delta" if self.target_delta is not None else "mu"

    @property
    def target(self) -> float:
        """The target value."""
        value = {"eps": self.target_eps, "delta": self.target_delta}.get(
            self.kind, self.target_mu
        )
        return float(value)  # type: ignore[arg-type]  # one is set (checked)

    def describe(self) -> str:
        """The run and the target, in one line."""
        run = self.run
        solved = self.solve_for
        sampling = ""
        if run.sample_rate is not None:
            rate = "?" if solved == "sample_rate" else f"{run.sample_rate:g}"
            sampling = f"(sample_rate={rate}, pair={run.pair})"
        if solved == "steps":
            steps = " x ? steps"
        else:
            steps = " x 1 step" if run.steps == 1 else f" x {run.steps} steps"
        sigma = "" if run.sigma is None else f", sigma = {run.sigma:g}"
        if self.kind == "eps":
            goal = f"target eps = {self.target:g} at delta = {self.delta:g}"
        elif self.kind == "delta":
            goal = f"target delta = {self.target:g} at eps = {self.eps:g}"
        else:
            goal = f"target mu* = {self.target:g}"
        return f"{run.mechanism}{sampling}{steps}{sigma}; {goal}"

    def as_json(self) -> dict[str, Any]:
        """The request as plain JSON data."""
        run = self.run
        solved = self.solve_for
        return {
            "mechanism": run.mechanism,
            "sigma": run.sigma,
            "sample_rate": None
            if solved == "sample_rate"
            else (1.0 if run.sample_rate is None else run.sample_rate),
            "steps": None if solved == "steps" else run.steps,
            "pair": run.pair,
            "derived": None if run.epochs is None else run.epochs.as_json(),
            "solve_for": solved,
            "target": {
                "kind": self.kind,
                "value": self.target,
                "delta": self.delta,
                "eps": self.eps,
            },
            "method": self.method.name,
            "options": dict(self.method.options),
            "sigma_range": list(self.sigma_range),
            "rtol": self.rtol,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Achieved:
    """What the calibrated run achieves, by the accountant that had the last
    word.

    Attributes:
        method: That accountant (``"numerical, after an auto search"``).
        mu_star: mu* of the run.
        target: The target's measure (``"epsilon(delta=1e-05)"``).
        estimate: Its point estimate.
        bounds: Its certified bracket (certified accountants).
        published: The value meeting the target (the bracket's upper end for a
            certified accountant, the estimate otherwise).
        delta: The delta of ``epsilon`` (None without one).
        epsilon: epsilon(delta).
        epsilon_bounds: Its certified bracket (certified accountants).
    """

    method: str
    mu_star: float
    target: str
    estimate: float
    published: float
    bounds: tuple[float, float] | None = None
    delta: float | None = None
    epsilon: float | None = None
    epsilon_bounds: tuple[float, float] | None = None

    def as_json(self) -> dict[str, Any]:
        """Plain JSON data; the epsilon keys only where there is a delta."""
        out: dict[str, Any] = {
            "method": self.method,
            "mu_star": self.mu_star,
            "target": self.target,
            "estimate": self.estimate,
            "bounds": _pair(self.bounds),
            "published": self.published,
        }
        if self.delta is not None:
            out["delta"] = self.delta
            out["epsilon"] = self.epsilon
            if self.epsilon_bounds is not None:
                out["epsilon_bounds"] = _pair(self.epsilon_bounds)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchCost:
    """What a calibration's search spent.

    Attributes:
        certified_evaluations: Compositions by the final accountant.
        approach_evaluations: Compositions by the analytic accountant.
        approach: That accountant (None: the final one throughout).
        start: The closed-form (GDP) starting value of the solved parameter.
        stop: Why the final search stopped (``"in window"``, ``"bracket
            closed"``: the grid or a flat measure ended it, ``"at upper end"``:
            the sample rate reached 1).
    """

    certified_evaluations: int
    approach_evaluations: int
    approach: str | None
    start: float
    stop: str

    def as_json(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {
            "certified_evaluations": self.certified_evaluations,
            "approach_evaluations": self.approach_evaluations,
            "approach": self.approach,
            "start": self.start,
            "stop": self.stop,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CalibrateResult:
    """The answer to a :class:`CalibrateRequest`.

    Attributes:
        request: The request.
        sigma: The noise multiplier of the calibrated run.
        sample_rate: Its sample rate (1 without subsampling).
        steps: Its number of steps.
        value: The solved parameter's value (one of the three above).
        achieved: What the run achieves.
        cost: What the search spent.
        seconds: Time of the search.
        warnings: The distinct warnings of the final composition.
    """

    request: CalibrateRequest
    sigma: float
    sample_rate: float
    steps: int
    value: float
    achieved: Achieved
    cost: SearchCost
    seconds: float
    warnings: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """The request and the answer as plain JSON data."""
        request = self.request.as_json()
        request.update(sigma=self.sigma, sample_rate=self.sample_rate, steps=self.steps)
        return {
            **request,
            "value": self.value,
            "achieved": self.achieved.as_json(),
            "search": self.cost.as_json(),
            "seconds": self.seconds,
            "warnings": list(self.warnings),
            "mu_star_definition": MU_NOTE,
        }
