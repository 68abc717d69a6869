r"""The typed answers of the risk measures: what is measured, which way is
riskier, and the value with its bracket.

Every measure returns a :class:`RiskValue`. From a certified curve
(``accountants.Numerical``, ``accountants.Exact``) ``[lower, upper]`` contains
the exact value of the measure and ``certified`` is True; from an analytic
accountant ``[lower, upper]`` is ``estimate -+ error`` (an estimate, not a
guarantee), or the point ``estimate`` when the method gives no error estimate
(``error`` is then None).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Final


class RiskMeasure(str, enum.Enum):
    """A risk measure; its value is the name used in records, JSON and the CLI."""

    #: True-positive rate of the best membership test at a false-positive rate.
    TPR_AT_FPR = "tpr_at_fpr"
    #: Attack advantage :math:`\max_\alpha 1 - \alpha - f(\alpha)`.
    ADVANTAGE = "advantage"
    #: The attacker's minimal Bayes error for a prior (larger is safer).
    BAYES_RISK = "bayes_risk"
    #: ReRo success bound :math:`\gamma = 1 - f(\kappa)`.
    RERO_GAMMA = "rero_gamma"
    #: The tightest :math:`\mu` with :math:`G_\mu \le f`.
    GDP_MU = "gdp_mu"
    #: The regret of reporting that :math:`\mu` (a Delta-divergence).
    GDP_REGRET = "gdp_regret"
    #: The Delta-divergence of the curve to a reference curve.
    DELTA_DIVERGENCE = "delta_divergence"

    def __str__(self) -> str:
        return self.value

    @property
    def larger_is_riskier(self) -> bool:
        """Whether a larger value means less privacy (False only for the Bayes
        risk, the attacker's error)."""
        return self is not RiskMeasure.BAYES_RISK


#: Slack allowed between an estimate and its certified bracket (round-off).
_ORDER_TOL: Final = 1e-12


@dataclass(frozen=True, slots=True)
class RiskValue:
    """One risk measure's value.

    Attributes:
        measure: The measure's name (a :class:`RiskMeasure` value).
        estimate: The point estimate.
        lower, upper: The certified bracket when ``certified``; else
            ``estimate -+ error`` (or ``estimate`` when ``error`` is None).
        error: The estimated absolute error (certified: the bracket's
            half-width); None when the method gives no estimate.
        certified: Whether ``[lower, upper]`` is guaranteed to contain the value.
    """

    measure: str
    estimate: float
    lower: float
    upper: float
    error: float | None
    certified: bool

    def __post_init__(self) -> None:
        RiskMeasure(self.measure)  # raises ValueError for an unknown name
        for name in ("estimate", "lower", "upper"):
            if math.isnan(getattr(self, name)):
                raise ValueError(f"RiskValue.{name} must not be NaN.")
        if not self.lower - _ORDER_TOL <= self.estimate <= self.upper + _ORDER_TOL:
            raise ValueError(
                "RiskValue needs lower <= estimate <= upper. Found "
                f"{self.lower!r} <= {self.estimate!r} <= {self.upper!r}."
            )

    @property
    def larger_is_riskier(self) -> bool:
        """Whether a larger value means less privacy (see :class:`RiskMeasure`)."""
        return RiskMeasure(self.measure).larger_is_riskier

    def as_json(self) -> dict[str, Any]:
        """The value as plain JSON data (with its orientation)."""
        return {
            "measure": self.measure,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "error": self.error,
            "certified": self.certified,
            "larger_is_riskier": self.larger_is_riskier,
        }

    @property
    def riskiest(self) -> float:
        """The publishable end: ``upper`` when larger is riskier, else ``lower``."""
        return self.upper if self.larger_is_riskier else self.lower


def risk_value(
    measure: RiskMeasure,
    estimate: float,
    lower: float,
    upper: float,
    error: float | None,
    certified: bool,
    domain: tuple[float, float] = (0.0, math.inf),
) -> RiskValue:
    """A :class:`RiskValue` with its ends kept in ``domain`` and the estimate
    kept inside its bracket (a certified estimate can leave its bracket by
    round-off). Uncertified values get ``estimate -+ error`` as their ends."""
    lo_dom, hi_dom = domain
    estimate = min(max(float(estimate), lo_dom), hi_dom)
    if certified:
        lower = min(max(float(lower), lo_dom), hi_dom)
        upper = min(max(float(upper), lower), hi_dom)
        estimate = min(max(estimate, lower), upper)
        error = 0.5 * (upper - lower)
    elif error is None:
        lower = upper = estimate
    else:
        error = float(error)
        lower = max(estimate - error, lo_dom)
        upper = min(estimate + error, hi_dom)
    return RiskValue(measure.value, estimate, lower, upper, error, certified)
