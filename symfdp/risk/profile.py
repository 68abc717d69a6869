r"""Risk measures read off the privacy profile: attack advantage and Bayes risk.

Both are linear functionals of the (symmetrised) trade-off, minimised over
:math:`\alpha`, so they are values of the profile :math:`\delta(\varepsilon) = 1
+ f^*(-e^\varepsilon)` (Dong et al. 2019, Prop. 2.12), maximised over the
pairs, with its certified bracket (``curve.delta_bounds``) or error estimate
(``curve.delta_error``):

* advantage (Kulynych et al. 2024, arXiv:2407.02191, Sec. 2):
  :math:`\max_\alpha 1 - \alpha - f(\alpha) = \delta(0)`;
* Bayes risk for the prior :math:`\pi` weighting the type I error (riskcal's
  ``get_bayes_risk_from_pld``; Kulynych et al. 2025, arXiv:2507.06969,
  Prop. D.1): :math:`R(\pi) = \min_\alpha \pi\alpha + (1 - \pi) f(\alpha)`. Over
  the symmetrised curve, i.e. over each pair's :math:`f` and :math:`f^{-1}`,
  with :math:`\varepsilon = \log(\pi / (1 - \pi))`,

  .. math::  R(\pi) = \min\{(1 - \pi)(1 - \delta(\varepsilon)),\
             \pi (1 - \delta(-\varepsilon))\}.
"""

from __future__ import annotations

import math

import numpy as np

from symfdp._validation import check_real
from symfdp._warnings import warn_approximation
from symfdp.curve import FloatArray, PrivacyCurve
from symfdp.risk.sampled import check_curve
from symfdp.risk.values import RiskMeasure, RiskValue, risk_value


def _profile(
    curve: PrivacyCurve, eps: FloatArray, measure: RiskMeasure
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray | None]:
    """``(delta, lower, upper, error)`` at ``eps``: certified ends, or
    ``delta -+ error`` (``delta`` with error None, and a warning, when the
    method gives no estimate)."""
    delta = np.asarray(curve.delta(eps), np.float64)
    if curve.certified:
        lo, hi = curve.delta_bounds(eps)
        return delta, np.asarray(lo, np.float64), np.asarray(hi, np.float64), None
    if not curve.estimates_error:
        warn_approximation(
            f"{measure.value}: {curve.label} gives no error estimate of its privacy "
            "profile, so this value comes without one; accountants.Numerical gives "
            "a certified bracket."
        )
        return delta, delta, delta, None
    error = np.asarray(curve.delta_error(eps), np.float64)
    return delta, delta - error, delta + error, error


def advantage(curve: PrivacyCurve) -> RiskValue:
    r"""The attack advantage :math:`\max_\alpha 1 - \alpha - f(\alpha) =
    \delta(0)`: the largest excess of the true-positive over the false-positive
    rate of any membership test (module docstring).

    Returns:
        A :class:`~symfdp.risk.RiskValue` in [0, 1] (larger is riskier).

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve.
    """
    check_curve(curve)
    measure = RiskMeasure.ADVANTAGE
    delta, lo, hi, err = _profile(curve, np.zeros(1), measure)
    error = None if err is None else float(err[0])
    return risk_value(
        measure, delta[0], lo[0], hi[0], error, curve.certified, (0.0, 1.0)
    )


def bayes_risk(curve: PrivacyCurve, prior: float) -> RiskValue:
    r"""The attacker's smallest Bayes error :math:`R(\pi) = \min_\alpha
    \pi\alpha + (1 - \pi) f(\alpha)` for the prior ``prior`` :math:`= \pi` of
    the null hypothesis (module docstring).

    Args:
        curve: Any accountant's curve.
        prior: :math:`\pi \in (0, 1)`.

    Returns:
        A :class:`~symfdp.risk.RiskValue` in :math:`[0, \min(\pi, 1 - \pi)]`;
        larger is *safer* (``larger_is_riskier`` is False).

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or ``prior`` not a real.
        ValueError: ``prior`` outside (0, 1) or NaN.
    """
    check_curve(curve)
    pi = check_real("prior", prior, 0.0, 1.0, lo_open=True, hi_open=True)
    measure = RiskMeasure.BAYES_RISK
    eps = math.log(pi) - math.log1p(-pi)
    delta, lo, hi, err = _profile(curve, np.array([eps, -eps]), measure)
    weight = np.array([1.0 - pi, pi])
    estimate = float(np.min(weight * (1.0 - delta)))
    lower = float(np.min(weight * (1.0 - hi)))
    upper = float(np.min(weight * (1.0 - lo)))
    error = None if err is None else float(np.max(weight * err))
    return risk_value(
        measure, estimate, lower, upper, error, curve.certified, (0.0, min(pi, 1 - pi))
    )
