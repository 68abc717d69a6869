r"""The GDP summary :math:`\mu^*` of a composed curve.

:math:`G_{\mu^*}` meets the (symmetrised) trade-off curve on the diagonal: the
:math:`\mu^*` of the :math:`(\mu^*, \gamma)` interpreter of Zheng et al. (2020),
Sec. 4, computed from :math:`\delta(0)`, cheap and free of :math:`\delta`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Final

from scipy import special

from symfdp._validation import check_bool
from symfdp._warnings import ApproximationWarning, warn_approximation
from symfdp.curve import PrivacyCurve
from symfdp.curve.mu_star import MU_STAR_ATOL, propagate

#: Smallest ``1 - delta(0)`` from which :func:`mu_star` is resolved (mu* ~ 14.9).
MU_STAR_FLOOR: Final = 1e-13


def mu_star(curve: PrivacyCurve, *, bounds: bool = False) -> Any:
    r"""The GDP summary :math:`\mu^*` of a curve.

    The supporting line of the curve at the diagonal is :math:`\beta = 1 -
    \delta(0) - \alpha` (Dong et al. 2019, Prop. 2.4), and :math:`G_\mu` meets
    the diagonal at :math:`\Phi(-\mu/2)`, so

    .. math::  \mu^* = -2\,\Phi^{-1}\big((1 - \delta(0))/2\big).

    CLT (and ``Exact`` on Gaussian compositions) return their :math:`\mu`.

    An approximation's error is carried from the profile's,
    :math:`\Delta\mu^* = \Delta\delta(0) / \varphi(\mu^*/2)` to first order
    (:math:`\alpha^* = (1 - \delta(0))/2` moves by :math:`\Delta\delta(0)/2`;
    :func:`~symfdp.curve.mu_star.propagate`, the same estimate as
    :meth:`PrivacyCurve.mu_star_error`): one ApproximationWarning per answer,
    :math:`\delta(0)`'s own if it warned, else when this estimate exceeds
    ``warn_rel_error`` (``rel_tol`` for ``Auto``) of the smallest :math:`\mu^*`
    it allows (:math:`\mu^*` minus the estimate).

    Args:
        curve: A :class:`~symfdp.curve.PrivacyCurve`.
        bounds: Return certified ``(lower, upper)`` bounds on :math:`\mu^*` from
            ``curve.delta_bounds(0)`` (certified curves only).

    Returns:
        A float (or a pair with ``bounds=True``); ``inf`` with an
        :class:`~symfdp.ApproximationWarning` beyond :math:`\mu^* = 14.9`.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve.
    """
    if not isinstance(curve, PrivacyCurve):
        raise TypeError(f"curve must be a PrivacyCurve. Found {type(curve).__name__}.")
    if check_bool("bounds", bounds):
        lo, hi = curve.delta_bounds(0.0)
        return _mu_from_tv(float(lo), warn=True), _mu_from_tv(float(hi), warn=True)
    mu = curve.info.get("mu")
    exact_gdp = curve.method == "CLT" and not curve.info.get("delta0")
    tv: float | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ApproximationWarning)
        if mu is not None and (exact_gdp or curve.method == "Exact"):
            value, a_star = float(mu), float(special.ndtr(-0.5 * float(mu)))
        else:
            tv = float(curve.delta(0.0))
            value, a_star = _mu_from_tv(tv), 0.5 * (1.0 - tv)
        message = next(
            (str(w.message) for w in caught if w.category is ApproximationWarning),
            None,
        )
        if tv is not None and math.isinf(value):
            message = _FLOOR_MESSAGE.format(tv=tv)
        elif message is None and not curve.certified and curve.estimates_error:
            message = _error_message(
                curve, value, a_star, float(curve.delta_error(0.0))
            )
    if message is not None:
        warn_approximation(message)
    return value


def _error_message(
    curve: PrivacyCurve, mu: float, a_star: float, tv_error: float
) -> str | None:
    """The warning when the mu* error carried from ``delta_error(0)`` exceeds
    the curve's tolerance (None otherwise)."""
    tol = curve.warn_rel_error
    if tol is None:
        tol = getattr(curve, "rel_tol", None)
    if tol is None:
        return None
    err = propagate(a_star, tv_error, -1.0)
    if not err > MU_STAR_ATOL or err <= tol * (mu - err):
        return None
    size = "unknown" if math.isinf(err) else f"{err:.3g}"
    return (
        f"{curve.label}: the estimated error of mu* = {mu:.6g} is {size} (from "
        f"delta(0)'s estimated error {tv_error:.3g}), above {tol:g} of the answer. "
        "Use accountants.Numerical for certified bounds (mu_star(curve, "
        "bounds=True))."
    )


#: The warning of a delta(0) too close to 1 for mu* to be resolved.
_FLOOR_MESSAGE: Final = (
    "mu*: delta(0) = {tv!r} is within " + f"{MU_STAR_FLOOR:g}" + " of 1, so mu* "
    "(> 14.9) is not resolved in double precision; returned inf. Report "
    "epsilon(delta) for such a run."
)


def _mu_from_tv(tv: float, warn: bool = False) -> float:
    """mu* from delta(0) (``inf`` beyond the floor, warned with ``warn``)."""
    rest = 1.0 - tv
    if rest < MU_STAR_FLOOR:
        if warn:
            warn_approximation(_FLOOR_MESSAGE.format(tv=tv))
        return math.inf
    return max(0.0, -2.0 * float(special.ndtri(rest / 2.0)))
