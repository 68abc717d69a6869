r"""Calibration targets on the risk measures.

Each function returns a :class:`~symfdp.calibration.targets.Target` for
:func:`symfdp.calibrate.calibrate` (built with
:meth:`~symfdp.calibration.targets.Target.from_measure`): the run is
calibrated until the *certified* end of the measure that a user would publish
meets the value -- the upper end of the TPR at an FPR, the advantage, ReRo's
gamma and mu (larger is riskier), the lower end of the attacker's Bayes risk
(larger is safer).

Example:
    >>> from symfdp import calibrate as C, risk
    >>> out = C.calibrate(risk.advantage_target(0.1), "sigma", p=0.01, n=1000)
    >>> out.bracket.upper <= 0.1
    True
"""

from __future__ import annotations

import functools

from symfdp._validation import check_real
from symfdp.calibration.targets import Target
from symfdp.risk.gdp import gdp_mu
from symfdp.risk.operating import Direction, rero_gamma, tpr_at_fpr
from symfdp.risk.profile import advantage, bayes_risk
from symfdp.risk.values import RiskMeasure


def advantage_target(value: float) -> Target:
    r"""Attack advantage :math:`\delta(0) \le` ``value``, in (0, 1)."""
    return Target.from_measure(
        advantage,
        _in_unit("value", value),
        RiskMeasure.ADVANTAGE.larger_is_riskier,
        "advantage",
    )


def tpr_target(value: float, fpr: float, direction: str = "worst") -> Target:
    r"""TPR of the best membership test at false-positive rate ``fpr`` (in
    (0, 1)) at most ``value`` (in (0, 1)), in ``direction`` (``"add"``,
    ``"remove"`` or ``"worst"``, :func:`~symfdp.risk.tpr_at_fpr`)."""
    at = _in_unit("fpr", fpr)
    way = Direction(direction)
    return Target.from_measure(
        functools.partial(tpr_at_fpr, fpr=at, direction=way),
        _in_unit("value", value),
        RiskMeasure.TPR_AT_FPR.larger_is_riskier,
        f"TPR at FPR {at:g} ({way.value})",
    )


def bayes_risk_target(value: float, prior: float) -> Target:
    r"""The attacker's Bayes error for the prior ``prior`` (in (0, 1)) at least
    ``value`` (in (0, min(prior, 1 - prior)))."""
    pi = _in_unit("prior", prior)
    return Target.from_measure(
        functools.partial(bayes_risk, prior=pi),
        _in_unit("value", value),
        RiskMeasure.BAYES_RISK.larger_is_riskier,
        f"Bayes risk (prior {pi:g})",
    )


def rero_target(value: float, kappa: float) -> Target:
    r"""ReRo's reconstruction success :math:`\gamma \le` ``value`` at the prior
    success ``kappa`` (both in (0, 1))."""
    k = _in_unit("kappa", kappa)
    return Target.from_measure(
        functools.partial(rero_gamma, kappa=k),
        _in_unit("value", value),
        RiskMeasure.RERO_GAMMA.larger_is_riskier,
        f"ReRo gamma (kappa {k:g})",
    )


def gdp_target(value: float, *, tail: float = 1e-5) -> Target:
    r"""The tightest dominating GDP :math:`\mu \le` ``value`` (> 0), read
    on :math:`\alpha, \beta \ge` ``tail`` (:func:`~symfdp.risk.gdp_mu`; the
    default 1e-5 keeps the certified end tight, see its docstring)."""
    value = check_real("value", value, 0.0, lo_open=True)
    return Target.from_measure(
        functools.partial(gdp_mu, tail=tail),
        value,
        RiskMeasure.GDP_MU.larger_is_riskier,
        f"GDP mu (tail {tail:g})",
    )


def _in_unit(name: str, x: float) -> float:
    return check_real(name, x, 0.0, 1.0, lo_open=True, hi_open=True)


__all__ = [
    "advantage_target",
    "bayes_risk_target",
    "gdp_target",
    "rero_target",
    "tpr_target",
]
