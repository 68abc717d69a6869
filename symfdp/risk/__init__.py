r"""Privacy risk measures of any curve, each with a certified bracket from the
certified accountants and an estimate with its error from the analytic ones.

* :func:`tpr_at_fpr` -- TPR of the best membership test at an FPR, per direction;
* :func:`advantage` -- :math:`\max_\alpha 1 - \alpha - f(\alpha)`;
* :func:`bayes_risk` -- the attacker's smallest Bayes error for a prior;
* :func:`rero_gamma` -- reconstruction robustness at a prior (:mod:`symfdp.rero`);
* :func:`gdp_mu`, :func:`gdp_fit` -- the tightest dominating :math:`\mu` and the
  regret of reporting it (Gomez et al. 2025);
* :func:`delta_divergence` -- the Delta-divergence to a reference curve
  (Kaissis et al. 2024);
* :func:`report` -- all of them (:class:`RiskReport`);
* :func:`predict_gdp_fit` -- the Edgeworth (order :math:`n^{-1/2}`) prediction of
  the GDP fit from three cumulants, before any FFT.

Each returns a :class:`RiskValue`; :class:`RiskMeasure` says which way is riskier.
:func:`advantage_target`, :func:`tpr_target`, :func:`bayes_risk_target`,
:func:`rero_target` and :func:`gdp_target` are their calibration targets
(:func:`symfdp.calibrate.calibrate`).

Example:
    >>> from symfdp import accountants as A, mechanisms as M, risk
    >>> curve = A.Exact().compose(M.Gaussian(mu=1.0), n=4)   # G_2
    >>> v = risk.gdp_mu(curve)
    >>> v.lower <= 2.0 <= v.upper, v.certified
    (True, True)
"""

from __future__ import annotations

from symfdp.risk.divergence import delta_divergence
from symfdp.risk.edgeworth_fit import EdgeworthGdpFit, predict_gdp_fit
from symfdp.risk.gdp import TAIL, GdpFit, gdp_fit, gdp_mu
from symfdp.risk.operating import Direction, rero_gamma, tpr_at_fpr
from symfdp.risk.profile import advantage, bayes_risk
from symfdp.risk.report import (
    DEFAULT_FPRS,
    DEFAULT_KAPPA,
    DEFAULT_PRIOR,
    OperatingPoint,
    RiskReport,
    report,
)
from symfdp.risk.targets import (
    advantage_target,
    bayes_risk_target,
    gdp_target,
    rero_target,
    tpr_target,
)
from symfdp.risk.values import RiskMeasure, RiskValue

__all__ = [
    "DEFAULT_FPRS",
    "DEFAULT_KAPPA",
    "DEFAULT_PRIOR",
    "TAIL",
    "Direction",
    "EdgeworthGdpFit",
    "GdpFit",
    "OperatingPoint",
    "RiskMeasure",
    "RiskReport",
    "RiskValue",
    "advantage",
    "advantage_target",
    "bayes_risk",
    "bayes_risk_target",
    "delta_divergence",
    "gdp_fit",
    "gdp_mu",
    "gdp_target",
    "predict_gdp_fit",
    "report",
    "rero_gamma",
    "rero_target",
    "tpr_at_fpr",
    "tpr_target",
]
