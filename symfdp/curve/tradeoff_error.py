r"""Error estimates of a trade-off curve from the error estimates of its profile.

For a dominating pair :math:`(P, Q)` with trade-off :math:`f = T(P, Q)` and
privacy profile :math:`\delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+]`,
the two are convex conjugates (Dong et al. 2019, Prop. 2.12 and eq. (6)):

.. math::  f(\alpha) = \sup_{\varepsilon \in \mathbb{R}}
           \bigl[1 - \delta(\varepsilon) - e^{\varepsilon}\alpha\bigr],

attained on the supporting line of slope :math:`-e^{\varepsilon^*}`, i.e.
:math:`\varepsilon^*(\alpha) = \log(-f'(\alpha))` (the threshold of the
Neyman–Pearson test, :math:`P_P(L > \varepsilon^*) = \alpha`). By the envelope
theorem an error :math:`\Delta\delta` of the profile moves :math:`f(\alpha)` by
:math:`\Delta\delta(\varepsilon^*(\alpha))` to first order, so

.. math::  \widehat{\Delta f}(\alpha) = \widehat{\Delta\delta}(\varepsilon^*(\alpha)).

At negative :math:`\varepsilon` (slopes above :math:`-1`, :math:`\alpha` past
the fixed point) the profile of :math:`(P, Q)` is that of the swapped pair,
:math:`\delta_{P,Q}(\varepsilon) = 1 - e^{\varepsilon} + e^{\varepsilon}
\delta_{Q,P}(-\varepsilon)`, so an error of the latter at :math:`-\varepsilon^*`
moves :math:`f` by :math:`e^{\varepsilon^*}` times it. For a symmetric curve (a
symmetrised composition) the profile is known for :math:`\varepsilon \ge 0`
only and that is the estimate; for one raw pair it is the larger of the
profile's estimate at :math:`\varepsilon^*` and :math:`e^{\varepsilon^*}` times
its estimate at :math:`-\varepsilon^*` (standing in for the swapped pair's,
which approximations of a tilted law tend to miss).

The slope is a central difference of the curve itself (relative step
:data:`SLOPE_STEP`), so the estimate needs two more trade-off evaluations and
one profile evaluation. Accuracy: the first-order envelope term; it tracks the
true error as well as the profile's own estimate does at :math:`\varepsilon^*`
(measured in ``benchmarks/conformance.py``). The ReRo bound :math:`\gamma = 1 -
f(\kappa)` (Kaissis et al. 2023, Thm 1) inherits it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from symfdp.curve.answer import FloatArray

#: Relative step of the central difference of the slope (of min(alpha, 1-alpha)).
SLOPE_STEP: Final = 1e-4
#: Smallest absolute step (round-off of alpha near 0 or 1).
_MIN_STEP: Final = 1e-13

Curve = Callable[[FloatArray], FloatArray]
Profile = Callable[[FloatArray], "FloatArray | None"]


def supporting_eps(alpha: FloatArray, tradeoff: Curve) -> FloatArray:
    r""":math:`\varepsilon^*(\alpha) = \log(-f'(\alpha))` of the supporting line
    at each ``alpha`` (central difference; ``+inf`` at ``alpha = 0``, ``-inf``
    at ``alpha = 1`` and where the curve is flat)."""
    h = np.maximum(SLOPE_STEP * np.minimum(alpha, 1.0 - alpha), _MIN_STEP)
    lo = np.maximum(alpha - h, 0.0)
    hi = np.minimum(alpha + h, 1.0)
    beta = tradeoff(np.concatenate((lo, hi)))
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (beta[alpha.size :] - beta[: alpha.size]) / (hi - lo)
        eps = np.log(np.maximum(-slope, 0.0))
    eps = np.where(np.isnan(eps), -np.inf, eps)
    # The ends: f(0) and f(1) are the profile's limits at eps = +-inf.
    return np.where(alpha <= 0.0, np.inf, np.where(alpha >= 1.0, -np.inf, eps))


def tradeoff_errors(
    alpha: FloatArray, tradeoff: Curve, profile_errors: Profile, symmetric: bool
) -> FloatArray | None:
    r"""The estimate :math:`\widehat{\Delta f}(\alpha)` of the module docstring.

    Args:
        alpha: Validated 1-d points in [0, 1].
        tradeoff: The curve's own trade-off at 1-d points.
        profile_errors: The error estimates of the curve's profile at finite
            1-d eps (None when it gives none).
        symmetric: Whether the curve is symmetric (its profile known for eps >= 0).

    Returns:
        Estimates ``>= 0``, at most the largest move inside the valid range
        :math:`[0, 1 - \alpha]` (``inf`` where the profile's estimate is
        unknown), or None when the profile gives no estimate.
    """
    beta = tradeoff(alpha)
    eps = supporting_eps(alpha, tradeoff)
    finite = np.isfinite(eps)
    out = np.zeros(alpha.shape)
    if not finite.any():
        return out
    e = eps[finite]
    neg = e < 0.0
    at = np.abs(e) if symmetric else np.concatenate((e, -e[neg]))
    found = profile_errors(at)
    if found is None:
        return None
    err = np.asarray(found, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        if symmetric:
            err = np.where(neg, np.exp(e) * err, err)
        else:
            mirrored = np.zeros(e.shape)
            mirrored[neg] = np.exp(e[neg]) * err[e.size :]
            err = np.maximum(err[: e.size], mirrored)
    out[finite] = np.where(np.isnan(err), np.inf, err)
    room = np.maximum(np.maximum(beta, 1.0 - alpha - beta), 0.0)
    return np.asarray(np.where(np.isinf(out), out, np.minimum(out, room)), np.float64)
