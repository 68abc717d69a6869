r"""mu-GDP of a curve: the tightest dominating :math:`\mu` and the regret of
reporting it.

The tightest :math:`\mu` with :math:`G_\mu \le f` (Dong et al. 2019, Def. 2.6;
:math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1 - \alpha) - \mu)`) is

.. math::  \mu(f) = \sup_\alpha\ \Phi^{-1}(1 - \alpha) + \Phi^{-1}(1 - f(\alpha)),

taken, as Gomez et al. (2025, arXiv:2503.10945) and their ``gdpnum`` do, on
:math:`\alpha, \beta \ge \tau` (``TAIL``, gdpnum's default ``err``): below
:math:`10^{-10}` no accountant resolves a trade-off curve. A curve value below
:math:`\tau` counts as :math:`\tau`, so a curve that is below :math:`\tau`
wherever :math:`\alpha \ge \tau` gets the largest value the restriction can
state, :math:`2\Phi^{-1}(1 - \tau)` (not 0). The
symmetrised curve is its own inverse, so the points with :math:`\alpha \le 1/2`
cover every point. The regret of the report is the Delta-divergence
:math:`\Delta(f \,\|\, G_{\mu(f)})` (Gomez et al. 2025, Sec. 4;
:mod:`~symfdp.risk.divergence`).

Certified ends from the bracket :math:`f_{lo} \le f \le f_{hi}` on a grid
:math:`\alpha_k`: the lower end is the supremum over grid points of
:math:`\Phi^{-1}(1-\alpha_k) + \Phi^{-1}(1 - f_{hi}(\alpha_k))`; the upper end
bounds each interval :math:`[\alpha_k, \alpha_{k+1}]` by
:math:`\Phi^{-1}(1 - \max(\alpha_k, \tau)) + \Phi^{-1}(1 - \max(f_{lo}(\alpha_{k+1}),
\tau))` (both terms decrease in their argument). Accuracy: one grid step
(:func:`~symfdp.risk.sampled.risk_grid`, ~1e-3 in the middle) beyond the
curve's bracket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray
from scipy import special

from symfdp._validation import check_real
from symfdp.curve import FloatArray, PrivacyCurve
from symfdp.risk.divergence import divergence_value
from symfdp.risk.sampled import GRID_TAIL, Sampled, check_curve, sample
from symfdp.risk.values import RiskMeasure, RiskValue, risk_value
from symfdp.tradeoff import Gaussian

BoolArray = NDArray[np.bool_]

#: Smallest alpha and beta the GDP fit looks at (gdpnum's ``err``).
TAIL: Final = 1e-10


def _isf(x: FloatArray) -> FloatArray:
    r""":math:`\Phi^{-1}(1 - x)`, tail-stable (``-ndtri(x)``)."""
    out: FloatArray = -special.ndtri(x)
    return out


def _mu_at_points(
    alpha: FloatArray, f: FloatArray, inside: BoolArray, tail: float
) -> float:
    """The supremum of ``isf(alpha) + isf(f)`` over the points ``inside``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(inside, _isf(alpha) + _isf(np.maximum(f, tail)), -np.inf)
    return float(max(np.max(values, initial=-np.inf), 0.0))


def _half(alpha: FloatArray, tail: float) -> BoolArray:
    return (alpha >= tail) & (alpha <= 0.5)


def _mu_estimate(alpha: FloatArray, f: FloatArray, tail: float) -> float:
    return _mu_at_points(alpha, f, _half(alpha, tail), tail)


#: Float64 spacings by which certified ends are widened: a trade-off near 1 is
#: only resolved to its spacing, which the steep quantile amplifies.
_ULPS: Final = 16.0


def _mu_lower(
    alpha: FloatArray, f_lo: FloatArray, f_hi: FloatArray, tail: float
) -> float:
    wider = np.minimum(f_hi + _ULPS * np.spacing(f_hi), 1.0)
    return _mu_at_points(alpha, wider, _half(alpha, tail), tail)


def _mu_upper(
    alpha: FloatArray, f_lo: FloatArray, f_hi: FloatArray, tail: float
) -> float:
    left, right = alpha[:-1], alpha[1:]
    meets = (right >= tail) & (left <= 0.5)
    lower = f_lo[1:] - _ULPS * np.spacing(f_lo[1:])
    return _mu_at_points(np.maximum(left, tail), lower, meets, tail)


def mu_value(s: Sampled, tail: float = TAIL) -> RiskValue:
    r"""The tightest dominating mu of a sampled symmetric curve on
    :math:`\alpha, \beta \ge` ``tail`` (module docstring)."""
    measure = RiskMeasure.GDP_MU
    estimate = _mu_estimate(s.alpha, s.f, tail)
    if s.certified:
        lower = _mu_lower(s.alpha, s.lower, s.upper, tail)
        upper = _mu_upper(s.alpha, s.lower, s.upper, tail)
        return risk_value(measure, estimate, lower, upper, None, True)
    if s.error is None:
        return risk_value(measure, estimate, estimate, estimate, None, False)
    ends = (_mu_estimate(s.alpha, s.lower, tail), _mu_estimate(s.alpha, s.upper, tail))
    error = max(abs(e - estimate) for e in ends)
    return risk_value(measure, estimate, 0.0, 0.0, error, False)


def gdp_mu(curve: PrivacyCurve, *, tail: float = TAIL) -> RiskValue:
    r"""The tightest :math:`\mu` whose :math:`G_\mu` lies below the curve's
    (symmetrised) trade-off on :math:`\alpha, \beta \ge` ``tail`` (module
    docstring).

    For a certified curve ``upper`` is certified: :math:`G_{upper}` lies below
    the certified lower trade-off, so the composition is ``upper``-GDP there.

    Args:
        curve: Any accountant's curve.
        tail: The smallest error rates looked at, in [1e-15, 0.5) (default
            :data:`TAIL` = 1e-10, gdpnum's).

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or ``tail`` not a real.
        ValueError: ``tail`` outside [1e-15, 0.5).
    """
    check_curve(curve)
    tail = _check_tail(tail)
    return mu_value(sample(curve, RiskMeasure.GDP_MU.value), tail)


@dataclass(frozen=True, slots=True)
class GdpFit:
    r"""The GDP report of a curve and how much it gives away.

    Attributes:
        mu: The tightest dominating :math:`\mu` (:func:`gdp_mu`).
        regret: :math:`\Delta(f \,\|\, G_\mu)` at the reported :math:`\mu`
            (``mu.upper`` for a certified curve, else ``mu.estimate``): 0 when
            the curve is exactly :math:`\mu`-GDP.
    """

    mu: RiskValue
    regret: RiskValue

    def as_json(self) -> dict[str, Any]:
        """The fit as plain JSON data."""
        return {
            "mu": self.mu.as_json(),
            "reported_mu": self.reported_mu,
            "regret": self.regret.as_json(),
        }

    @property
    def reported_mu(self) -> float:
        """The :math:`\\mu` the regret refers to."""
        return self.mu.upper if self.mu.certified else self.mu.estimate


def gdp_fit(curve: PrivacyCurve, *, tail: float = TAIL) -> GdpFit:
    r"""The :math:`\mu`-GDP report of ``curve`` and its regret (Gomez et al.
    2025, arXiv:2503.10945, Sec. 4: report the tightest dominating :math:`\mu`
    together with :math:`\Delta(f \,\|\, G_\mu)`, as ``gdpnum`` does).

    Args:
        curve: Any accountant's curve.
        tail: As in :func:`gdp_mu`.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve, or ``tail`` not a real.
        ValueError: ``tail`` outside [1e-15, 0.5).
    """
    check_curve(curve)
    tail = _check_tail(tail)
    s = sample(curve, RiskMeasure.GDP_MU.value)
    mu = mu_value(s, tail)
    reported = mu.upper if mu.certified else mu.estimate
    reference = sample(Gaussian(reported), RiskMeasure.GDP_REGRET.value)
    if not s.certified:  # the regret of an estimate is an estimate
        reference = Sampled(
            reference.alpha,
            reference.f,
            reference.f,
            reference.f,
            reference.error,
            False,
        )
    return GdpFit(mu, divergence_value(RiskMeasure.GDP_REGRET, s, reference))


def _check_tail(tail: float) -> float:
    return check_real("tail", tail, GRID_TAIL, 0.5, hi_open=True)
