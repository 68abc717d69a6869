r"""The GDP summary :math:`\mu^*` of a curve with its error (:class:`MuStarAnswer`).

Zheng et al. (2020), Sec. 4: with :math:`\alpha^*` the fixed point
:math:`f(\alpha^*) = \alpha^*` of the (symmetrised) trade-off,

.. math::  \mu^* = \Phi^{-1}(1 - \alpha^*) - \Phi^{-1}(\alpha^*)
                 = -2\,\Phi^{-1}(\alpha^*)

(:func:`~symfdp.tradeoff.interpret.mu_star_at`), the :math:`\mu` of the
Gaussian curve :math:`G_\mu` that meets :math:`f` on the diagonal.

**Error of an approximation.** Let the computed curve be :math:`\tilde f = f +
e` with :math:`e` about constant near :math:`\alpha^*`. Its fixed point
:math:`\tilde\alpha^* = \alpha^* + \Delta\alpha` solves :math:`f(\alpha^* +
\Delta\alpha) + e = \alpha^* + \Delta\alpha`, so to first order

.. math::  \Delta\alpha = \frac{e}{1 - f'(\alpha^*)}, \qquad
           \Delta\mu^* = \frac{2\,\Delta\alpha}{\varphi(\mu^*/2)}
                       = \frac{2 e}{(1 - f'(\alpha^*))\,\varphi(\mu^*/2)},

using :math:`d\mu^*/d\alpha^* = -2/\varphi(\Phi^{-1}(\alpha^*))` and
:math:`\Phi^{-1}(\alpha^*) = -\mu^*/2`. A symmetric convex curve has
:math:`f'_-(\alpha^*) \le -1 \le f'_+(\alpha^*) \le 0` (:math:`f'(\alpha^*) =
-1` where it is smooth, so :math:`\Delta\mu^* = e/\varphi(\mu^*/2)`); the right
slope :math:`f'_+` gives the larger :math:`|\Delta\alpha|` whatever the sign of
:math:`e`, so :func:`propagate` uses it, clipped to :math:`[-1, 0]`
(:math:`|e|/2 \le |\Delta\alpha| \le |e|`). The map :math:`\alpha \mapsto
\mu^*` is then applied exactly, :math:`\widehat{\Delta\mu^*} =
\max_\pm |\mu^*(\alpha^* \pm \Delta\alpha) - \mu^*|` (``inf`` when
:math:`\Delta\alpha \ge \alpha^*`: the curve may meet the diagonal at 0). The
trade-off error :math:`e` is the curve's own estimate at :math:`\alpha^*`
(:meth:`~symfdp.curve.PrivacyCurve.tradeoff_error`; through the duality it is
the profile's error at :math:`\varepsilon = 0`, where the supporting line of
slope :math:`-1` touches, the same as :math:`\Delta\delta(0)/\varphi(\mu^*/2)`
from :math:`\mu^* = -2\Phi^{-1}((1 - \delta(0))/2)`). Accuracy: first order in
:math:`e`, as good as the trade-off's estimate at :math:`\alpha^*`.

**Certified curves** bracket :math:`\mu^*` by the fixed points of the bounds
on :math:`f` (:math:`\mu^*` decreases in :math:`f`): :math:`[\mu^*(\alpha^*_{hi}),
\mu^*(\alpha^*_{lo})]`; the error is the bracket's half-width.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np

from symfdp.curve.answer import FloatArray, Query, Repair
from symfdp.curve.report import CERTIFIED_ADVICE, repairs_message
from symfdp.tradeoff.interpret import fixed_point, mu_star_at

#: Relative width of the certified mu* bracket beyond which mu* warns.
MU_STAR_RTOL: Final = 1e-2
#: Fixed points below this (mu* > 14.9) are not resolved by an approximation's
#: trade-off (the floor of :func:`symfdp.runs.mu_star`: 1 - delta(0) = 2 alpha*).
MU_STAR_ALPHA_FLOOR: Final = 5e-14
#: Errors of mu* below this are round-off (never warned about).
MU_STAR_ATOL: Final = 1e-9
#: Relative step of the forward difference of the right slope at alpha*.
_SLOPE_STEP: Final = 1e-4
_MIN_STEP: Final = 1e-13

Curve = Callable[[FloatArray], FloatArray]


@dataclass(frozen=True)
class MuStarAnswer:
    r""":math:`\mu^*` of a curve as the curve keeps it.

    Attributes:
        value: :math:`\mu^* = -2\Phi^{-1}(\alpha^*)` (``inf`` at
            :math:`\alpha^* = 0`).
        alpha: The fixed point :math:`\alpha^*`.
        error: Estimated absolute error of ``value`` (the bracket's half-width
            for a certified curve); None when the method estimates none.
        lower, upper: The certified bracket (certified curves), else None.
        message: The answer's one warning, None when there is none.
        method: The label of the curve that answered.
    """

    value: float
    alpha: float
    error: float | None
    lower: float | None = None
    upper: float | None = None
    message: str | None = None
    method: str = ""


def right_slope(tradeoff: Curve, a_star: float) -> float:
    r"""The right slope :math:`f'_+(\alpha^*)` by a forward difference (step
    :data:`_SLOPE_STEP` relative, at least :data:`_MIN_STEP`), clipped to
    :math:`[-1, 0]` (a symmetric convex curve's range at its fixed point)."""
    h = max(_SLOPE_STEP * a_star, _MIN_STEP)
    points = np.array([a_star, min(a_star + h, 1.0)])
    beta = tradeoff(points)
    width = float(points[1] - points[0])
    if width <= 0.0:
        return -1.0
    slope = float(beta[1] - beta[0]) / width
    return -1.0 if math.isnan(slope) else min(max(slope, -1.0), 0.0)


def propagate(a_star: float, beta_error: float, slope: float) -> float:
    r""":math:`\widehat{\Delta\mu^*}` from the trade-off error ``beta_error`` at
    ``a_star`` and the right slope there (module docstring): :math:`\Delta\alpha
    = e / (1 - f'_+)`, then :math:`\max_\pm|\mu^*(\alpha^* \pm \Delta\alpha) -
    \mu^*|`; ``inf`` for an unknown error or :math:`\Delta\alpha \ge
    \alpha^*`."""
    if not beta_error >= 0.0 or math.isinf(beta_error):
        return math.inf
    if beta_error == 0.0:
        return 0.0
    da = beta_error / (1.0 - min(max(slope, -1.0), 0.0))
    if da >= a_star:
        return math.inf
    mu = mu_star_at(a_star)
    return max(mu_star_at(a_star - da) - mu, mu - mu_star_at(min(a_star + da, 0.5)))


def certified_mu_star(
    tradeoff: Curve, lower: Curve, upper: Curve, label: str
) -> MuStarAnswer:
    r""":math:`\mu^*` of a certified curve: the point estimate from ``tradeoff``
    (clipped into the bracket) and the bracket from the fixed points of the
    ``lower`` and ``upper`` bounds on :math:`f`; the message when the bracket
    is wider than :data:`MU_STAR_RTOL` relative."""
    a_star = fixed_point(tradeoff)
    a_lo, a_hi = fixed_point(lower), fixed_point(upper)
    lo, hi = mu_star_at(a_hi), mu_star_at(a_lo)
    value = min(max(mu_star_at(a_star), lo), hi)
    message = None
    if hi - lo > MU_STAR_RTOL * max(lo, 1.0):
        message = (
            f"{label}: mu* is certified only within [{lo:.4g}, {hi:.4g}]: the "
            "trade-off bracket is wide near the fixed point (a composition with "
            f"little privacy left, alpha* = {a_hi:.3g} or less). Tighten the "
            "method (e.g. a smaller eps_rel_tol for accountants.Numerical); "
            "accountants.Exact gives closed forms for Gaussian and pure-DP "
            "compositions."
        )
    half = 0.5 * (hi - lo) if math.isfinite(hi) else math.inf
    return MuStarAnswer(value, a_star, half, lo, hi, message, label)


def estimated_mu_star(
    tradeoff: Curve,
    at_fixed_point: Callable[[float], tuple[float | None, tuple[Repair, ...]]],
    label: str,
    warn_rel_error: float | None,
) -> MuStarAnswer:
    r""":math:`\mu^*` of an approximation with the error :func:`propagate`
    gives from the trade-off's error estimate at :math:`\alpha^*` (None: the
    method estimates none) plus the largest known change of the trade-off's
    repairs there, both from ``at_fixed_point(alpha*)``.

    The message (one per answer): a repair of unknown size at
    :math:`\alpha^*` (the approximation left its valid regime there), else an
    estimate :math:`\widehat{\Delta\mu^*}` above ``warn_rel_error`` of the
    smallest :math:`\mu^*` it allows, :math:`\mu^* - \widehat{\Delta\mu^*}`
    (and above :data:`MU_STAR_ATOL`), else a fixed point in :math:`(0,`
    :data:`MU_STAR_ALPHA_FLOOR`:math:`)` unless the trade-off is exact (error
    estimate 0, e.g. the CLT's :math:`G_\mu` of a Gaussian composition): the
    trade-off's estimate itself is not reliable that deep in the tail (a
    SaddlePoint estimate of 1e-10 at :math:`\mu^* = 15.4` for a true 31.6)."""
    a_star = fixed_point(tradeoff)
    mu = mu_star_at(a_star)
    e, found = at_fixed_point(a_star)
    if e is not None and found:
        e += max(r.size for r in found)
    err = None if e is None else propagate(a_star, e, right_slope(tradeoff, a_star))
    message = None
    if any(math.isinf(r.size) for r in found):
        message = (
            f"mu* = {mu:.6g} (alpha* = {a_star:.3g}) rests on a trade-off outside "
            "its valid regime at the fixed point. "
            + repairs_message(label, Query.TRADEOFF, found)
            + " "
            + CERTIFIED_ADVICE
        )
    elif (
        err is not None
        and warn_rel_error is not None
        and err > MU_STAR_ATOL
        and not err <= warn_rel_error * (mu - err)
    ):
        size = "unknown" if math.isinf(err) else f"{err:.3g}"
        message = (
            f"{label}: the estimated error of mu* = {mu:.6g} is {size} (trade-off "
            f"error {e:.3g} at the fixed point alpha* = {a_star:.3g}), above "
            f"warn_rel_error = {warn_rel_error:g} of mu* (mu* - error). Use "
            "accountants.Numerical for a certified bracket (curve.mu_star_bounds)."
        )
    elif 0.0 < a_star < MU_STAR_ALPHA_FLOOR and err != 0.0:
        message = (
            f"{label}: mu* = {mu:.6g} (> 14.9): the fixed point alpha* = "
            f"{a_star:.3g} is below {MU_STAR_ALPHA_FLOOR:g}, where the "
            "approximation does not resolve the trade-off. Use "
            "accountants.Numerical (curve.mu_star_bounds), or report "
            "epsilon(delta) for such a composition."
        )
    return MuStarAnswer(mu, a_star, err, message=message, method=label)
