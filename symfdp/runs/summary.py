r"""The GDP summary :math:`\mu^*` of a composed curve.

:math:`G_{\mu^*}` meets the (symmetrised) trade-off curve on the diagonal: the
:math:`\mu^*` of the :math:`(\mu^*, \gamma)` interpreter of Zheng et al. (2020),
Sec. 4, computed from :math:`\delta(0)`, cheap and free of :math:`\delta`.
"""

from __future__ import annotations

import math
from typing import Any, Final

from scipy import special

from symfdp._validation import check_bool
from symfdp._warnings import warn_approximation
from symfdp.curve import PrivacyCurve

#: Smallest ``1 - delta(0)`` from which :func:`mu_star` is resolved (mu* ~ 14.9).
MU_STAR_FLOOR: Final = 1e-13


def mu_star(curve: PrivacyCurve, *, bounds: bool = False) -> Any:
    r"""The GDP summary :math:`\mu^*` of a curve.

    The supporting line of the curve at the diagonal is :math:`\beta = 1 -
    \delta(0) - \alpha` (Dong et al. 2019, Prop. 2.4), and :math:`G_\mu` meets
    the diagonal at :math:`\Phi(-\mu/2)`, so

    .. math::  \mu^* = -2\,\Phi^{-1}\big((1 - \delta(0))/2\big).

    CLT (and ``Exact`` on Gaussian compositions) return their :math:`\mu`.

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
        return _mu_from_tv(float(lo)), _mu_from_tv(float(hi))
    mu = curve.info.get("mu")
    exact_gdp = curve.method == "CLT" and not curve.info.get("delta0")
    if mu is not None and (exact_gdp or curve.method == "Exact"):
        return float(mu)
    return _mu_from_tv(float(curve.delta(0.0)))


def _mu_from_tv(tv: float) -> float:
    rest = 1.0 - tv
    if rest < MU_STAR_FLOOR:
        warn_approximation(
            f"mu*: delta(0) = {tv!r} is within {MU_STAR_FLOOR:g} of 1, so mu* "
            "(> 14.9) is not resolved in double precision; returned inf. Report "
            "epsilon(delta) for such a run."
        )
        return math.inf
    return max(0.0, -2.0 * float(special.ndtri(rest / 2.0)))
