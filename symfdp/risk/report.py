r"""Every risk measure of one curve in one record (:class:`RiskReport`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from symfdp._validation import check_real
from symfdp.curve import PrivacyCurve
from symfdp.risk.gdp import GdpFit, gdp_fit
from symfdp.risk.operating import Direction, rero_gamma, tpr_at_fpr
from symfdp.risk.profile import advantage, bayes_risk
from symfdp.risk.sampled import check_curve
from symfdp.risk.values import RiskValue

#: The false-positive rates a report reads by default (Gomez et al. 2025 report
#: TPR at small FPRs).
DEFAULT_FPRS: Final = (1e-3, 1e-2, 1e-1)
#: The default prior of the Bayes risk (a balanced guess).
DEFAULT_PRIOR: Final = 0.5
#: The default ReRo prior (Kaissis et al. 2023 use kappa in [1e-3, 0.1]).
DEFAULT_KAPPA: Final = 1e-2


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    """The true-positive rates at one false-positive rate, per direction."""

    fpr: float
    add: RiskValue
    remove: RiskValue | None
    worst: RiskValue

    def as_json(self) -> dict[str, Any]:
        """The operating point as plain JSON data."""
        return {
            "fpr": self.fpr,
            "add": self.add.as_json(),
            "remove": None if self.remove is None else self.remove.as_json(),
            "worst": self.worst.as_json(),
        }


@dataclass(frozen=True, slots=True)
class RiskReport:
    """The risk measures of one curve.

    Attributes:
        method: The accountant's label.
        certified: Whether every value is a certified bracket.
        tpr: One :class:`OperatingPoint` per requested false-positive rate.
        advantage: :func:`~symfdp.risk.advantage`.
        prior: The prior of ``bayes_risk``.
        bayes_risk: :func:`~symfdp.risk.bayes_risk`.
        kappa: The prior of ``rero_gamma``.
        rero_gamma: :func:`~symfdp.risk.rero_gamma`.
        gdp: :func:`~symfdp.risk.gdp_fit` (mu and its regret).
    """

    method: str
    certified: bool
    tpr: tuple[OperatingPoint, ...]
    advantage: RiskValue
    prior: float
    bayes_risk: RiskValue
    kappa: float
    rero_gamma: RiskValue
    gdp: GdpFit

    def as_json(self) -> dict[str, Any]:
        """The report as plain JSON data."""
        return {
            "method": self.method,
            "certified": self.certified,
            "tpr_at_fpr": [p.as_json() for p in self.tpr],
            "advantage": self.advantage.as_json(),
            "prior": self.prior,
            "bayes_risk": self.bayes_risk.as_json(),
            "kappa": self.kappa,
            "rero_gamma": self.rero_gamma.as_json(),
            "gdp": self.gdp.as_json(),
        }

    def values(self) -> tuple[RiskValue, ...]:
        """Every value of the report, in a fixed order."""
        points = tuple(p.worst for p in self.tpr)
        return (
            *points,
            self.advantage,
            self.bayes_risk,
            self.rero_gamma,
            self.gdp.mu,
            self.gdp.regret,
        )


def _fprs(fpr: float | Sequence[float]) -> tuple[float, ...]:
    values = np.atleast_1d(np.asarray(fpr, dtype=object))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(
            f"fpr must be one rate or a non-empty list of rates. Found {fpr!r}."
        )
    return tuple(check_real("fpr", v, 0.0, 1.0) for v in values)


def report(
    curve: PrivacyCurve,
    *,
    fpr: float | Sequence[float] = DEFAULT_FPRS,
    prior: float = DEFAULT_PRIOR,
    kappa: float = DEFAULT_KAPPA,
) -> RiskReport:
    """Every risk measure of ``curve`` (each with its bracket or error).

    Args:
        curve: Any accountant's curve.
        fpr: One false-positive rate in [0, 1] or a list of them.
        prior: The Bayes-risk prior in (0, 1).
        kappa: The ReRo prior in (0, 1).

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or a parameter not a real.
        ValueError: a parameter outside its range (the message names it).
    """
    check_curve(curve)
    rates = _fprs(fpr)
    prior = check_real("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    kappa = check_real("kappa", kappa, 0.0, 1.0, lo_open=True, hi_open=True)
    has_remove = len(curve.pairs) > 1 or curve.symmetric
    points = tuple(
        OperatingPoint(
            a,
            tpr_at_fpr(curve, a, direction=Direction.ADD),
            tpr_at_fpr(curve, a, direction=Direction.REMOVE) if has_remove else None,
            tpr_at_fpr(curve, a, direction=Direction.WORST),
        )
        for a in rates
    )
    return RiskReport(
        curve.label,
        curve.certified,
        points,
        advantage(curve),
        prior,
        bayes_risk(curve, prior),
        kappa,
        rero_gamma(curve, kappa),
        gdp_fit(curve),
    )
