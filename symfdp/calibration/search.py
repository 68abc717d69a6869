r"""The calibration search: a closed-form start, analytic steps, certified end.

1. **Start.** The target's :math:`G_\mu` (:meth:`Target.gaussian_mu`) and the
   GDP limit of the run inverted for the parameter
   (:meth:`Setting.gdp_value`).
2. **Approach.** Of the analytic accountants :data:`APPROACH`, the one with the
   smallest relative error estimate at the start (at most
   :data:`APPROACH_MAX_ERROR`; else the coarse certified :data:`FALLBACK`)
   moves the parameter by secant steps
   (:func:`~symfdp.numeric.roots.secant_into_window`) to where its estimate
   meets the target.
3. **Certified end.** The final accountant (``Numerical`` by default) continues
   from there with the approach's last slope: usually one or two certified
   compositions. The answer is the riskiest parameter value found whose
   publishable value meets the target (the certified bracket's riskier end for
   a certified accountant), within ``rtol`` of the target value, or, where the
   grid or the flatness of the measure stops the search first, the last point
   meeting it.

Everything is searched in :func:`~symfdp.calibration.parameters.coordinate`
(logs of the parameter), so no range is needed: the domain is
:data:`~symfdp.calibration.parameters.LIMITS`.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from symfdp._warnings import ApproximationWarning
from symfdp.accountants.base import Accountant
from symfdp.accountants.edgeworth import Edgeworth
from symfdp.accountants.numerical import Numerical
from symfdp.accountants.saddlepoint import SaddlePoint
from symfdp.calibration.parameters import (
    Parameter,
    Setting,
    coordinate,
    coordinate_limits,
    snap,
)
from symfdp.calibration.targets import MU_RANGE, Bracket, Target
from symfdp.curve import PrivacyCurve
from symfdp.numeric.roots import WindowStop, secant_into_window

#: Analytic accountants the approach chooses from (by their error estimate).
APPROACH: Final[tuple[Accountant, ...]] = (SaddlePoint(order=2), Edgeworth(order=2))
#: The approach where no analytic accountant is accurate enough (few expected
#: events, p n of order 1 or less): the certified accountant on a grid three
#: to four times coarser (``eps_rel_tol`` 3%), its bracket's half-width its error.
FALLBACK: Final[Accountant] = Numerical(eps_rel_tol=0.03)
#: Largest relative error estimate with which an analytic accountant is used.
APPROACH_MAX_ERROR: Final = 0.05
#: Step of the coordinate for the approach's first slope (a finite difference).
_SLOPE_STEP: Final = 0.02
#: Slope of the excess (the log of the measure over the target) per unit of
#: the coordinate where none is measured (eps grows like sigma^-1 .. sigma^-2,
#: p^1, n^(1/2)).
_DEFAULT_SLOPE: Final = 1.0

#: ``(stage, parameter value, target value)`` after each composition.
OnEvaluation = Callable[[str, float, float], None]


@dataclass(frozen=True)
class Calibration:
    """The answer of :func:`calibrate_parameter`.

    Attributes:
        parameter: What was calibrated.
        value: Its calibrated value (an integer for steps).
        setting: The run at that value.
        target: The target.
        bracket: The target's measure at the answer (final accountant).
        curve: The final composition at the answer (query it again freely: its
            answers are kept).
        certified_evaluations: Compositions by the final accountant.
        approach_evaluations: Compositions by the analytic accountant.
        approach: The analytic accountant used (None: the final one throughout).
        start: The closed-form (GDP) starting value of the parameter.
        stop: Why the final search stopped.
        seconds: Time of the search.
    """

    parameter: Parameter
    value: float
    setting: Setting
    target: Target
    bracket: Bracket
    curve: PrivacyCurve
    certified_evaluations: int
    approach_evaluations: int
    approach: str | None
    start: float
    stop: WindowStop
    seconds: float

    @property
    def published(self) -> float:
        """The publishable value of the target's measure at the answer."""
        return self.target.published(self.bracket)


class _Untrusted(Exception):
    """An analytic accountant's error estimate exceeds
    :data:`APPROACH_MAX_ERROR` at a point of the approach."""


class _Evaluator:
    """Compositions of one accountant along the coordinate, kept by point.

    With ``max_error``, a point whose relative error estimate is larger raises
    :class:`_Untrusted`; :attr:`trusted` is the last point that was not."""

    def __init__(
        self,
        accountant: Accountant,
        target: Target,
        parameter: Parameter,
        setting: Setting,
        stage: str,
        on_evaluation: OnEvaluation | None,
        max_error: float = math.inf,
    ) -> None:
        self.accountant = accountant
        self.target = target
        self.parameter = parameter
        self.setting = setting
        self.stage = stage
        self.on_evaluation = on_evaluation
        self.max_error = max_error
        self.kept: dict[float, tuple[PrivacyCurve, Bracket]] = {}
        self.trusted: float | None = None

    def __call__(self, x: float) -> tuple[PrivacyCurve, Bracket]:
        if x not in self.kept:
            run = self.setting.at(self.parameter, x)
            try:
                curve = self.accountant.compose(run.mechanism(), run.n)
                bracket = self.target.evaluate(curve)
            except (ValueError, ArithmeticError) as exc:
                value = run.value(self.parameter)
                raise ValueError(
                    f"{self.accountant!r} cannot answer {self.target.name} at "
                    f"{self.parameter.value} = {value:.6g}: {exc}"
                ) from exc
            self.kept[x] = (curve, bracket)
            if self.on_evaluation is not None:
                value = run.value(self.parameter)
                self.on_evaluation(self.stage, value, self.target.published(bracket))
        return self.kept[x]

    def excess(self, x: float) -> float:
        bracket = self(x)[1]
        excess = self.target.excess(bracket)
        if math.isnan(excess):
            value = self.setting.at(self.parameter, x).value(self.parameter)
            raise ValueError(
                f"{self.accountant!r} gives NaN for {self.target.name} at "
                f"{self.parameter.value} = {value:g}."
            )
        if _relative_error(bracket) > self.max_error:
            raise _Untrusted
        self.trusted = x
        return excess


def _relative_error(bracket: Bracket) -> float:
    scale = abs(bracket.estimate)
    if bracket.error == 0:
        return 0.0
    return bracket.error / scale if scale > 0 else math.inf


def calibrate_parameter(
    target: Target,
    parameter: Parameter,
    setting: Setting,
    *,
    limits: tuple[float, float],
    accountant: Accountant | None = None,
    approach: Sequence[Accountant] = APPROACH,
    fallback: Accountant | None = FALLBACK,
    rtol: float = 1e-3,
    on_evaluation: OnEvaluation | None = None,
) -> Calibration:
    """Calibrate ``parameter`` of ``setting`` to ``target`` (module docstring).

    Args:
        target: What to reach.
        parameter: What to move; its value in ``setting`` is ignored.
        setting: The run.
        limits: ``(lo, hi)``, the parameter's searched range.
        accountant: The final accountant (default ``Numerical()``).
        approach: Analytic accountants to choose from (empty: none).
        fallback: The approach where none of ``approach`` is accurate enough
            (None: the GDP slope and the final accountant).
        rtol: The answer's publishable value lies within ``rtol * |value|`` of
            the target (where the domain and the grid allow).
        on_evaluation: Called after each composition.

    Raises:
        ValueError: the target is out of reach in ``limits`` (the message names
            the parameter and the end of the range).
    """
    start_time = time.perf_counter()
    final = Numerical() if accountant is None else accountant
    lo, hi = coordinate_limits(parameter, limits)
    grid = snap(parameter)
    mu = target.gaussian_mu()
    if mu <= MU_RANGE[0]:
        raise ValueError(
            f"the target {target.label} is unreachable by any "
            f"{parameter.value}: even a curve without privacy loss (G_mu, mu -> 0) "
            "misses it."
        )
    start = setting.gdp_value(parameter, mu)
    x = min(max(coordinate(parameter, start), lo), hi)
    x = grid(x) if grid is not None else x
    movers: list[_Evaluator] = []
    spent = 0
    moved_slope: float | None = None
    if final.guarantee == "certified" and approach:
        x, moved_slope, movers, spent = _approach(
            approach, fallback, target, parameter, setting, x, (lo, hi), grid, rtol,
            on_evaluation,
        )  # fmt: skip
    slope = (
        moved_slope
        if moved_slope is not None
        else _gdp_slope(target, parameter, setting, x, hi, grid)
    )
    certified = _Evaluator(final, target, parameter, setting, "final", on_evaluation)
    found = secant_into_window(
        certified.excess, x, window=rtol, slope=slope, lo=lo, hi=hi, snap=grid
    )
    _raise_if_out_of_reach(found.stop, target, parameter, limits, certified, found.x)
    curve, bracket = certified(found.x)
    run = setting.at(parameter, found.x)
    return Calibration(
        parameter=parameter,
        value=run.value(parameter),
        setting=run,
        target=target,
        bracket=bracket,
        curve=curve,
        certified_evaluations=len(certified.kept),
        approach_evaluations=spent,
        approach=", then ".join(repr(m.accountant) for m in movers) or None,
        start=start,
        stop=found.stop,
        seconds=time.perf_counter() - start_time,
    )


def _gdp_slope(
    target: Target,
    parameter: Parameter,
    setting: Setting,
    x: float,
    hi: float,
    grid: Callable[[float], float] | None,
) -> float:
    """The slope of the target's excess at ``x`` on the run's GDP limit (a
    finite difference on two exact :math:`G_\\mu` curves); the default slope
    where that fails."""
    x1 = _next_point(x, hi, grid)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            g0, g1 = (
                target.excess(
                    target.on_gaussian_curve(setting.at(parameter, t).gdp_mu())
                )
                for t in (x, x1)
            )
    except (ValueError, ArithmeticError):
        return _DEFAULT_SLOPE
    slope = (g1 - g0) / (x1 - x)
    return slope if math.isfinite(slope) and slope > 0 else _DEFAULT_SLOPE


def _next_point(x: float, hi: float, grid: Callable[[float], float] | None) -> float:
    """A point :data:`_SLOPE_STEP` or more from ``x`` (inside ``hi``, on the
    grid) for a finite-difference slope."""
    step = _SLOPE_STEP if x + _SLOPE_STEP <= hi else -_SLOPE_STEP
    while True:
        new = x + step if grid is None else grid(x + step)
        if new != x:
            return new
        step *= 2.0


def _approach(
    candidates: Sequence[Accountant],
    fallback: Accountant | None,
    target: Target,
    parameter: Parameter,
    setting: Setting,
    x: float,
    domain: tuple[float, float],
    grid: Callable[[float], float] | None,
    rtol: float,
    on_evaluation: OnEvaluation | None,
) -> tuple[float, float | None, list[_Evaluator], int]:
    """Move from ``x`` to where an approach accountant meets the target.

    The analytic candidate with the smallest relative error estimate at ``x``
    (at most :data:`APPROACH_MAX_ERROR`) moves first; where its estimate
    becomes less accurate than that, or where none qualifies, ``fallback``
    continues from the last trusted point.

    Returns:
        ``(x, slope, movers, spent)``: the point reached, the last secant slope
        (None where nothing moved), the accountants that moved, and the
        compositions spent (the candidates' trials included).
    """
    lo, hi = domain
    tried = [
        _Evaluator(acc, target, parameter, setting, "approach", on_evaluation,
                   APPROACH_MAX_ERROR)
        for acc in candidates
    ]  # fmt: skip
    chosen = _choose_approach(tried, x)
    chain = [] if chosen is None else [chosen]
    if fallback is not None:
        chain.append(
            _Evaluator(fallback, target, parameter, setting, "approach", on_evaluation)
        )
    movers: list[_Evaluator] = []
    slope: float | None = None
    for evaluator in chain:
        movers.append(evaluator)
        try:
            with warnings.catch_warnings():
                # The approach only moves the parameter: its warnings are noise.
                warnings.simplefilter("ignore", ApproximationWarning)
                if slope is None:
                    x1 = _next_point(x, hi, grid)
                    slope = (evaluator.excess(x1) - evaluator.excess(x)) / (x1 - x)
                found = secant_into_window(
                    evaluator.excess, x, window=rtol, slope=slope, lo=lo, hi=hi,
                    snap=grid,
                )  # fmt: skip
        except _Untrusted:
            x = evaluator.trusted if evaluator.trusted is not None else x
            slope = None
            continue
        except (ValueError, ArithmeticError, RuntimeError):
            slope = None
            continue
        x = found.x if found.stop is not WindowStop.UNREACHABLE else lo
        slope = found.slope
        break
    spent = sum(len(e.kept) for e in tried) + sum(
        len(e.kept) for e in chain if e not in tried
    )
    return x, slope, movers, spent


def _choose_approach(tried: Sequence[_Evaluator], x: float) -> _Evaluator | None:
    """The candidate with the smallest relative error estimate at ``x`` (at
    most :data:`APPROACH_MAX_ERROR`), or None."""
    best: tuple[float, _Evaluator] | None = None
    for evaluator in tried:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ApproximationWarning)
                bracket = evaluator(x)[1]
        except (ValueError, ArithmeticError, RuntimeError):
            continue
        rel = _relative_error(bracket)
        if rel <= APPROACH_MAX_ERROR and (best is None or rel < best[0]):
            best = (rel, evaluator)
    return None if best is None else best[1]


def _raise_if_out_of_reach(
    stop: WindowStop,
    target: Target,
    parameter: Parameter,
    limits: tuple[float, float],
    evaluator: _Evaluator,
    x: float,
) -> None:
    """The search ended at an end of the domain: say which and why."""
    if stop is WindowStop.UNREACHABLE:
        safest = limits[1] if parameter is Parameter.SIGMA else limits[0]
        value = target.published(evaluator(x)[1])
        raise ValueError(
            f"the target {target.label} is unreachable by "
            f"{parameter.value} in [{limits[0]:g}, {limits[1]:g}]: even "
            f"{parameter.value} = {safest:g} gives {target.name} = {value:.6g}."
        )
    if stop is WindowStop.AT_UPPER_END and parameter is not Parameter.SAMPLE_RATE:
        riskiest = limits[0] if parameter is Parameter.SIGMA else limits[1]
        value = target.published(evaluator(x)[1])
        raise ValueError(
            f"the target {target.label} is met throughout "
            f"{parameter.value} in [{limits[0]:g}, {limits[1]:g}]: even "
            f"{parameter.value} = {riskiest:g} gives {target.name} = {value:.6g}."
        )
