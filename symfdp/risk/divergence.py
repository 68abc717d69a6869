r"""The Delta-divergence between two trade-off curves (Kaissis et al. 2024).

Kaissis, Kolek, Balle, Hayes and Rueckert, "Beyond the calibration point:
mechanism comparison in differential privacy", arXiv:2406.08918:

.. math::  \Delta(f \,\|\, g) = \inf\{\kappa \ge 0 : f(\alpha + \kappa) - \kappa
           \le g(\alpha) \ \forall \alpha\},

the smallest shift along the diagonal that brings ``f`` below the reference
``g``: 0 when ``f <= g`` (the mechanism of ``f`` is at least as vulnerable as
the reference's), and the excess privacy of ``f`` over ``g`` otherwise. The
regret of reporting :math:`\mu`-GDP (Gomez et al. 2025, arXiv:2503.10945, and
their ``gdpnum.get_worst_case_regret``) is :math:`\Delta(f \,\|\, G_\mu)`.

Computation: on the diagonal coordinate :math:`c = x - y`, the point
:math:`(\alpha, g(\alpha))` reaches ``f`` at :math:`x_f(c)`, the inverse of the
increasing :math:`x \mapsto x - f(x)`; so :math:`\Delta = \sup_\alpha
(x_f(\alpha - g(\alpha)) - \alpha)_+`, vectorised by interpolation. Certified
ends (``f`` convex and non-increasing, brackets at the grid points):

* upper: on :math:`[\alpha_k, \alpha_{k+1}]`, :math:`f(\alpha + \kappa) \le
  f(\alpha_k + \kappa)` and :math:`g(\alpha) \ge g(\alpha_{k+1})`, and the
  chords of :math:`f_{hi}` lie above the convex ``f``: shift the point
  :math:`(\alpha_k, g_{lo}(\alpha_{k+1}))` onto the chords of :math:`f_{hi}`;
* lower: :math:`\kappa(\alpha_k) > \alpha_j - \alpha_k` for the last grid
  point :math:`\alpha_j` with :math:`f_{lo}(\alpha_j) - \alpha_j >
  g_{hi}(\alpha_k) - \alpha_k`.

Accuracy: the estimate is exact for piecewise-linear curves on the grid; the
certified bracket is as wide as the curves' brackets plus one grid step.
"""

from __future__ import annotations

import numpy as np

from symfdp.curve import FloatArray, PrivacyCurve
from symfdp.risk.sampled import Sampled, check_curve, sample
from symfdp.risk.values import RiskMeasure, RiskValue, risk_value
from symfdp.tradeoff import TradeOff


def shift_to_curve(
    alpha: FloatArray, f: FloatArray, start: FloatArray, level: FloatArray
) -> FloatArray:
    r"""Per start point :math:`(s, \ell)`, the smallest :math:`\kappa \ge 0` with
    :math:`f(s + \kappa) - \kappa \le \ell`, for ``f`` piecewise linear through
    ``(alpha, f)`` and non-increasing (``alpha`` from 0 to 1)."""
    diagonal = alpha - f  # increasing: f is non-increasing
    reach = np.interp(start - level, diagonal, alpha)
    return np.maximum(reach - start, 0.0)


def _divergence(alpha: FloatArray, f: FloatArray, g: FloatArray) -> float:
    """:math:`\\Delta(f \\| g)` for curves tabulated on ``alpha``."""
    return float(shift_to_curve(alpha, f, alpha, g).max())


def _divergence_upper(alpha: FloatArray, f_hi: FloatArray, g_lo: FloatArray) -> float:
    """A certified upper end (module docstring)."""
    return float(shift_to_curve(alpha, f_hi, alpha[:-1], g_lo[1:]).max())


def _divergence_lower(alpha: FloatArray, f_lo: FloatArray, g_hi: FloatArray) -> float:
    """A certified lower end (module docstring)."""
    along = alpha - f_lo  # non-decreasing
    target = alpha - g_hi
    last = np.searchsorted(along, target, side="left") - 1
    gain = alpha[np.maximum(last, 0)] - alpha
    return float(np.max(np.where(last >= 0, gain, 0.0), initial=0.0))


def divergence_value(measure: RiskMeasure, f: Sampled, g: Sampled) -> RiskValue:
    r""":math:`\Delta(f \,\|\, g)` of two sampled curves as a :class:`RiskValue`:
    certified when both are, else with the spread over the curves' error
    bands as its error (None when either has no error estimate)."""
    a = f.alpha
    estimate = _divergence(a, f.f, g.f)
    if f.certified and g.certified:
        lower = _divergence_lower(a, f.lower, g.upper)
        upper = _divergence_upper(a, f.upper, g.lower)
        return risk_value(measure, estimate, lower, upper, None, True, (0.0, 1.0))
    if f.error is None or g.error is None:
        return risk_value(
            measure, estimate, estimate, estimate, None, False, (0.0, 1.0)
        )
    ends = (_divergence(a, f.lower, g.upper), _divergence(a, f.upper, g.lower))
    error = max(abs(e - estimate) for e in ends)
    return risk_value(measure, estimate, 0.0, 0.0, error, False, (0.0, 1.0))


def delta_divergence(
    curve: PrivacyCurve, reference: PrivacyCurve | TradeOff
) -> RiskValue:
    r"""The Delta-divergence :math:`\Delta(f \,\|\, g)` of ``curve``'s
    (symmetrised) trade-off ``f`` to the reference ``g`` (Kaissis et al. 2024,
    arXiv:2406.08918; module docstring).

    Args:
        curve: Any accountant's curve.
        reference: Another curve, or a closed-form trade-off (e.g.
            ``tradeoff.Gaussian(mu)``).

    Returns:
        A :class:`~symfdp.risk.RiskValue` in [0, 1], certified when both curves
        are certified (a closed form counts as certified).

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or ``reference`` is neither.
    """
    check_curve(curve)
    if not isinstance(reference, (PrivacyCurve, TradeOff)):
        raise TypeError(
            "reference must be a PrivacyCurve or a tradeoff.TradeOff. Found "
            f"{type(reference).__name__}."
        )
    measure = RiskMeasure.DELTA_DIVERGENCE
    return divergence_value(
        measure, sample(curve, measure.value), sample(reference, measure.value)
    )
