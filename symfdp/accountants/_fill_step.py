r"""The grid step of ``Numerical`` that just fills the target bracket width.

**Width of the bracket.** Per component the dominating (connect-the-dots) measure
inflates the variance of the loss by about :math:`h^2/6` and the dominated
(barycentric) one deflates it by about :math:`h^2/12` (:mod:`symfdp.pld.grid`).
Both keep :math:`E_Q[e^{-L}] = 1`, so a variance change :math:`b` comes with a
mean change :math:`b/2` (the cumulant generating function
:math:`K_Q(\lambda) = \log E_Q e^{\lambda L}` vanishes at :math:`\lambda = -1`).
For :math:`g(t) = (1 - e^{\varepsilon - t})_+` and an independent small kernel
of mean :math:`b/2` and variance :math:`b` added to the composed loss :math:`T`,

.. math::  \Delta\delta(\varepsilon) \approx \tfrac{b}{2} E_Q[g'(T)]
           + \tfrac{b}{2} E_Q[g''(T)] = \tfrac{b}{2} f_Q(\varepsilon),

(:math:`g'' = \delta_\varepsilon - g'` as distributions) and
:math:`d\delta/d\varepsilon = -e^{\varepsilon} S_P(\varepsilon)`, with
:math:`f_Q = e^{\varepsilon} f_P`. The eps bracket of :math:`n` composed
components, :math:`b = n h^2/6 + n h^2/12`, is therefore

.. math::  w(h) \approx \frac{n h^2}{8} H_P(\varepsilon), \qquad
           H_P = \frac{f_P}{S_P} = 1 - \frac{\delta''(\varepsilon)}
           {\delta'(\varepsilon)},

the hazard rate of the composed loss under :math:`P` at the answer.

**Step.** :math:`\varepsilon` and :math:`H_P` come from the saddle-point
accountant (``SaddlePointPairCurve.epsilon_and_hazard``: its eps and
:math:`\log\hat\delta` at three saddle points around it); the step is
:math:`h = \sqrt{8 c\,\mathrm{tol} \max(\varepsilon, 1)/(n H_P)}` with the
fill factor :math:`c` = :data:`FILL`, kept within
:data:`STEP_RANGE` of the rule step of :func:`symfdp.pld.grid.choose_step`
(halved below eps = 1 where the saddle point flags its estimate as outside its
valid range). The accountant
checks the bracket it obtains and refines the step if it is too wide, so a poor
prediction costs time, never validity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from symfdp.accountants.saddlepoint.pair import SaddlePointPairCurve

#: Fraction of ``eps_rel_tol`` the predicted discretisation width aims at (the
#: rest covers the prediction's error and the round-off allowances).
FILL = 0.75
#: The predicted step is kept within these multiples of the rule step.
STEP_RANGE = (0.5, 4.0)
#: Largest number of distinct components for which the step is predicted.
#: Beyond it the rule step is kept: on 10^4 distinct subsampled Gaussians the
#: predicted step gave a bracket 1.7 times wider than predicted (each finer
#: pass then costs more than the prediction saves). The saddle-point estimate
#: itself serves any number of components.
MAX_COMPONENTS = 16
#: The prediction is made while ``n * unit round-off <= ROUNDOFF_SHARE *
#: delta_ref``: the FFT round-off part of the bracket, which the prediction
#: leaves out, grows like ``n u / delta`` and would take the margin ``FILL`` leaves.
ROUNDOFF_SHARE = 1e-4
#: The prediction is made for ``n / eps_rel_tol`` at least this (lattices of
#: about 2**15 points and more); smaller compositions keep the rule step, whose
#: brackets are narrower than asked also at deltas far from ``delta_ref``.
MIN_N_OVER_TOL = 1e7
_UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2


@dataclass(frozen=True)
class Estimate:
    """Saddle-point eps at ``delta_ref`` and the hazard :math:`H_P` there;
    ``trusted`` is False when the saddle-point answer was repaired or lies
    outside its valid range."""

    eps: float
    hazard: float
    trusted: bool = True


def saddle_estimate(components: Any, delta_ref: float) -> Estimate | None:
    """The saddle-point eps of ``components`` at ``delta_ref`` and its hazard
    rate, or None when the saddle-point accountant does not serve them (no
    cumulant generating function, a non-positive eps or a non-finite hazard)."""
    try:
        with np.errstate(all="ignore"):
            symmetric = all(m.is_symmetric for m, _ in components)
            curve = SaddlePointPairCurve(components, 2, symmetric)
            eps, rate, trusted = curve.epsilon_and_hazard(delta_ref)
    except (ValueError, TypeError, ArithmeticError, NotImplementedError):
        return None
    if not (math.isfinite(eps) and eps > 0.0):
        return None
    if not (math.isfinite(rate) and rate > 0.0):
        return None
    return Estimate(eps, rate, trusted)


def fills(components: Any, eps_rel_tol: float, delta_ref: float) -> bool:
    """Whether :func:`fill_step` predicts a step for a composition of this
    length (the saddle-point estimate aside)."""
    n_total = sum(n for _, n in components)
    if n_total < MIN_N_OVER_TOL * eps_rel_tol:
        return False
    return bool(n_total * _UNIT_ROUNDOFF <= ROUNDOFF_SHARE * delta_ref)


def fill_step(
    components: Any,
    eps_rel_tol: float,
    delta_ref: float,
    rule_step: float,
    estimate: Estimate | None = None,
) -> float | None:
    """The step whose predicted eps bracket at ``delta_ref`` is ``FILL *
    eps_rel_tol`` relative (module docstring), or None when :func:`fills` is
    false, the composition has more than :data:`MAX_COMPONENTS` distinct
    components, or :func:`saddle_estimate` gives none (``estimate``, if
    already made)."""
    if len(components) > MAX_COMPONENTS:
        return None
    if not fills(components, eps_rel_tol, delta_ref):
        return None
    n_total = sum(n for _, n in components)
    if estimate is None:
        estimate = saddle_estimate(components, delta_ref)
    if estimate is None:
        return None
    eps, rate = estimate.eps, estimate.hazard
    # Below eps = 1 a flagged saddle-point estimate is poorer: half the fill.
    fill = FILL if eps >= 1.0 or estimate.trusted else 0.5 * FILL
    h = math.sqrt(8.0 * fill * eps_rel_tol * max(eps, 1.0) / (n_total * rate))
    lo, hi = STEP_RANGE
    return min(max(h, lo * rule_step), hi * rule_step)
