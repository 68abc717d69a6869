r"""Risk at one operating point of the trade-off: TPR at a given FPR per
direction, and reconstruction robustness at a prior.

* True-positive rate of the best membership test at false-positive rate
  :math:`\alpha`: :math:`1 - f(\alpha)` (Dong et al. 2019, Def. 2.1), read from
  each pair's own (raw, not symmetrised) trade-off: for add-or-remove
  neighbours the first pair is the add relation and the second the remove
  relation; ``"worst"`` is the larger of the two.
* ReRo: :math:`\gamma = 1 - f(\kappa)` of the add pair (Kaissis et al. 2023,
  Thm 1), from :func:`symfdp.rero.gamma` / :func:`symfdp.rero.gamma_bounds`.
"""

from __future__ import annotations

import enum

import numpy as np

from symfdp import rero
from symfdp._validation import check_real
from symfdp._warnings import warn_approximation
from symfdp.curve import PrivacyCurve, Query
from symfdp.risk.sampled import check_curve
from symfdp.risk.values import RiskMeasure, RiskValue, risk_value


class Direction(str, enum.Enum):
    """Which neighbouring direction a test attacks."""

    #: The curve's first pair (the add relation for add-or-remove neighbours).
    ADD = "add"
    #: The second pair (the remove relation); a symmetric curve's only pair.
    REMOVE = "remove"
    #: The larger true-positive rate of the two.
    WORST = "worst"

    def __str__(self) -> str:
        return self.value


def _direction(value: Direction | str) -> Direction:
    if isinstance(value, Direction):
        return value
    try:
        return Direction(value)
    except ValueError:
        names = ", ".join(repr(d.value) for d in Direction)
        message = f"direction must be one of {names}. Found {value!r}."
        raise ValueError(message) from None


def _pair_indices(curve: PrivacyCurve, direction: Direction) -> tuple[int, ...]:
    count = len(curve.pairs)
    if direction is Direction.WORST:
        return tuple(range(count))
    if direction is Direction.ADD or (count == 1 and curve.symmetric):
        return (0,)
    if count < 2:
        raise ValueError(
            "direction='remove' needs a curve with a remove pair; this curve has one "
            "asymmetric pair (compose with adjacency='add_or_remove' for both)."
        )
    return (1,)


def tpr_at_fpr(
    curve: PrivacyCurve, fpr: float, *, direction: Direction | str = Direction.WORST
) -> RiskValue:
    r"""The true-positive rate :math:`1 - f(\alpha)` of the best membership test at
    false-positive rate ``fpr`` :math:`= \alpha`, per direction (not
    symmetrised; module docstring).

    Args:
        curve: Any accountant's curve.
        fpr: :math:`\alpha \in [0, 1]`.
        direction: ``"add"``, ``"remove"`` or ``"worst"`` (:class:`Direction`).

    Returns:
        A :class:`~symfdp.risk.RiskValue` in :math:`[\alpha, 1]`.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or ``fpr`` not a real.
        ValueError: ``fpr`` outside [0, 1] or NaN; an unknown ``direction``.
    """
    check_curve(curve)
    alpha = check_real("fpr", fpr, 0.0, 1.0)
    way = _direction(direction)
    measure = RiskMeasure.TPR_AT_FPR
    answers = curve.pair_answers(Query.TRADEOFF, np.array([alpha]))
    chosen = [answers[k] for k in _pair_indices(curve, way)]
    cap = 1.0 - alpha
    estimate = max(1.0 - min(max(float(a.values[0]), 0.0), cap) for a in chosen)
    domain = (alpha, 1.0)
    if curve.certified:
        lower = max(1.0 - float(a.bracket()[1][0]) for a in chosen)
        upper = max(1.0 - float(a.bracket()[0][0]) for a in chosen)
        return risk_value(measure, estimate, lower, upper, None, True, domain)
    if any(a.errors is None for a in chosen):
        warn_approximation(
            f"{measure.value}: {curve.label} gives no error estimate of its "
            "trade-off, so this value comes without one; accountants.Numerical "
            "gives a certified bracket."
        )
        return risk_value(measure, estimate, estimate, estimate, None, False, domain)
    error = max(float(a.errors[0]) for a in chosen)  # type: ignore[index]
    return risk_value(measure, estimate, 0.0, 0.0, error, False, domain)


def rero_gamma(curve: PrivacyCurve, kappa: float) -> RiskValue:
    r"""The ReRo bound :math:`\gamma = 1 - f(\kappa)` of the add pair at the
    prior ``kappa`` (Kaissis et al. 2023, Thm 1; :func:`symfdp.rero.gamma`).

    Args:
        curve: Any accountant's curve (its first pair is the add relation).
        kappa: The prior success probability :math:`\kappa \in (0, 1)`.

    Returns:
        A :class:`~symfdp.risk.RiskValue` in :math:`[\kappa, 1]`.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or ``kappa`` not a real.
        ValueError: ``kappa`` outside (0, 1) or NaN.
    """
    check_curve(curve)
    k = check_real("kappa", kappa, 0.0, 1.0, lo_open=True, hi_open=True)
    measure = RiskMeasure.RERO_GAMMA
    estimate = float(rero.gamma(curve, k))
    domain = (k, 1.0)
    if curve.certified:
        lower, upper = rero.gamma_bounds(curve, k)
        return risk_value(measure, estimate, lower, upper, None, True, domain)
    errors = curve.pair_answers(Query.TRADEOFF, np.array([k]), first_only=True)[
        0
    ].errors
    if errors is None:
        warn_approximation(
            f"{measure.value}: {curve.label} gives no error estimate of its "
            "trade-off, so this value comes without one; accountants.Numerical "
            "gives a certified bracket."
        )
        return risk_value(measure, estimate, estimate, estimate, None, False, domain)
    return risk_value(measure, estimate, 0.0, 0.0, float(errors[0]), False, domain)
