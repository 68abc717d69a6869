r"""Privacy targets a run is calibrated to.

A :class:`Target` names a quantity of a :class:`~symfdp.curve.PrivacyCurve`
(:math:`\varepsilon(\delta)`, :math:`\delta(\varepsilon)`, the GDP parameter
:math:`\mu^*`, or any measure returning an estimate and a bracket), the value
to reach and the quantity's orientation: for ``larger_is_riskier`` measures
(epsilon, delta, mu, advantage) the target is met when the publishable value is
at most ``value``; for the others (the attacker's Bayes risk) when it is at
least ``value``. The publishable value is the certified bracket's riskier end
for a certified curve, the point estimate otherwise.

Each target also knows its value on the Gaussian trade-off :math:`G_\mu`
(:meth:`Target.gaussian_excess`), which gives the search its closed-form start.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from scipy import optimize, special

from symfdp._validation import check_callable, check_real
from symfdp.accountants.exact import Exact
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms.gaussian import Gaussian, gaussian_privacy_profile
from symfdp.runs.summary import mu_star

#: The excess of a zero value (its log): far below any target.
_LOG_FLOOR = -700.0
#: Range of the GDP parameter searched for the closed-form start.
MU_RANGE = (1e-6, 1e3)


@dataclass(frozen=True, slots=True)
class Bracket:
    """A measure's value on one curve.

    Attributes:
        estimate: The point estimate.
        lower, upper: The certified bracket (both ``estimate`` where the curve
            is not certified).
        error: The estimate's error (``inf`` when unknown).
        certified: Whether ``[lower, upper]`` is guaranteed to hold the truth.
    """

    estimate: float
    lower: float
    upper: float
    error: float = math.inf
    certified: bool = False


class MeasureValue(Protocol):
    """What a risk measure returns (e.g. ``symfdp.risk.RiskValue``)."""

    @property
    def estimate(self) -> float: ...  # pragma: no cover

    @property
    def lower(self) -> float: ...  # pragma: no cover

    @property
    def upper(self) -> float: ...  # pragma: no cover

    @property
    def error(self) -> float | None: ...  # pragma: no cover

    @property
    def certified(self) -> bool: ...  # pragma: no cover


@dataclass(frozen=True)
class Target:
    """A value of a curve measure to reach.

    Attributes:
        name: What is measured, for messages (``"epsilon(delta=1e-05)"``).
        value: The value to reach.
        evaluate: ``curve -> Bracket``.
        larger_is_riskier: Met when the publishable value is ``<= value``
            (else ``>= value``).
        on_gaussian: ``mu -> excess`` on :math:`G_\\mu`, increasing in ``mu``
            and zero where :math:`G_\\mu` meets the target exactly (a closed
            form); ``None``: :meth:`evaluate` on the exact :math:`G_\\mu` curve.
        field_name: The argument that set ``value``, for messages.
    """

    name: str
    value: float
    evaluate: Callable[[PrivacyCurve], Bracket] = field(repr=False)
    larger_is_riskier: bool = True
    on_gaussian: Callable[[float], float] | None = field(default=None, repr=False)
    field_name: str = "value"

    @property
    def label(self) -> str:
        """``"target_eps = 3 (epsilon(delta=1e-05))"``, for messages."""
        return f"{self.field_name} = {self.value:g} ({self.name})"

    def published(self, bracket: Bracket) -> float:
        """The value a user may publish: the riskier end of a certified
        bracket, the estimate otherwise."""
        if not bracket.certified:
            return bracket.estimate
        return bracket.upper if self.larger_is_riskier else bracket.lower

    def excess(self, bracket: Bracket) -> float:
        """How far the publishable value :math:`v` misses the target
        :math:`t`: :math:`\\log(v/t)` for :math:`t > 0` (privacy measures
        are close to powers of the parameters, so this is nearly linear in the
        parameters' logs), :math:`(v - t)/|t|` otherwise; negated for measures
        where larger is safer. At most 0 when met, increasing with the risk;
        ``-rtol <= excess <= 0`` is within ``rtol`` (relative) of the target."""
        v, t = self.published(bracket), self.value
        if t > 0:
            gap = math.log(v / t) if v > 0 else _LOG_FLOOR
        else:
            gap = (v - t) / abs(t)
        return gap if self.larger_is_riskier else -gap

    def gaussian_excess(self, mu: float) -> float:
        r"""An increasing function of :math:`\mu` that is zero where
        :math:`G_\mu` meets the target exactly."""
        if self.on_gaussian is not None:
            return self.on_gaussian(mu)
        return self.excess(self.on_gaussian_curve(mu))

    def on_gaussian_curve(self, mu: float) -> Bracket:
        r"""The measure on the exact :math:`G_\mu` curve."""
        return self.evaluate(Exact().compose(Gaussian(mu=mu), 1))

    def gaussian_mu(self) -> float:
        r"""The :math:`\mu` of the :math:`G_\mu` meeting the target exactly
        (Dong et al. 2019, Def. 2.6), by Brent's method in :math:`\log\mu` on
        :data:`MU_RANGE`; the range's end where the target is met throughout
        (``MU_RANGE[1]``) or nowhere (``MU_RANGE[0]``)."""
        lo, hi = MU_RANGE
        g_lo, g_hi = self.gaussian_excess(lo), self.gaussian_excess(hi)
        if g_lo >= 0:
            return lo
        if g_hi <= 0:
            return hi
        root = optimize.brentq(
            # -inf where G_mu has delta = 0: any finite negative value will do.
            lambda t: max(self.gaussian_excess(math.exp(t)), -1e300),
            math.log(lo),
            math.log(hi),
            xtol=1e-10,
        )
        return math.exp(root)

    @classmethod
    def from_measure(
        cls,
        fn: Callable[[PrivacyCurve], MeasureValue],
        value: float,
        larger_is_riskier: bool,
        name: str | None = None,
    ) -> Target:
        """A target on any measure returning an estimate, a bracket, an error
        and a ``certified`` flag (e.g. the functions of ``symfdp.risk``).

        Args:
            fn: ``curve -> value``, monotone in the privacy of the curve.
            value: The value to reach (finite).
            larger_is_riskier: The measure's orientation (False for the
                attacker's Bayes risk).
            name: For messages (default ``fn.__name__``).
        """
        check_callable("fn", fn)
        value = check_real("value", value)
        if value == 0:
            raise ValueError("value must be nonzero (the search is relative).")
        if not isinstance(larger_is_riskier, bool):
            raise TypeError(
                f"larger_is_riskier must be a bool. Found {larger_is_riskier!r}."
            )

        def evaluate(curve: PrivacyCurve) -> Bracket:
            out = fn(curve)
            error = math.inf if out.error is None else float(out.error)
            return Bracket(
                float(out.estimate),
                float(out.lower),
                float(out.upper),
                error,
                bool(out.certified),
            )

        label = name if name is not None else getattr(fn, "__name__", "measure")
        return cls(label, value, evaluate, larger_is_riskier)


def epsilon_target(eps: float, delta: float) -> Target:
    r""":math:`\varepsilon(\delta) \le` ``eps``.

    On :math:`G_\mu` the target is met exactly where :math:`\delta_{G_\mu}
    (\varepsilon) = \delta` (Dong et al. 2019, Cor. 2.13), so the closed-form
    excess is :math:`\log\delta_{G_\mu}(\varepsilon) - \log\delta`.
    """
    eps = check_real("target_eps", eps, 0.0, math.inf, lo_open=True)
    delta = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)

    def evaluate(curve: PrivacyCurve) -> Bracket:
        return _query_bracket(
            curve.certified,
            delta,
            curve.epsilon,
            curve.epsilon_bounds,
            curve.epsilon_error,
        )

    return Target(
        f"epsilon(delta={delta:g})",
        eps,
        evaluate,
        on_gaussian=lambda mu: _log_profile(mu, eps) - math.log(delta),
        field_name="target_eps",
    )


def delta_target(delta: float, eps: float) -> Target:
    r""":math:`\delta(\varepsilon) \le` ``delta``; on :math:`G_\mu` the excess
    is :math:`\log\delta_{G_\mu}(\varepsilon) - \log\delta` (Dong et al. 2019,
    Cor. 2.13)."""
    delta = check_real("target_delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    eps = check_real("eps", eps, 0.0, math.inf)

    def evaluate(curve: PrivacyCurve) -> Bracket:
        return _query_bracket(
            curve.certified, eps, curve.delta, curve.delta_bounds, curve.delta_error
        )

    return Target(
        f"delta(eps={eps:g})",
        delta,
        evaluate,
        on_gaussian=lambda mu: _log_profile(mu, eps) - math.log(delta),
        field_name="target_delta",
    )


def _query_bracket(
    certified: bool,
    point: float,
    value: Callable[[float], Any],
    bounds: Callable[[float], Any],
    error: Callable[[float], Any],
) -> Bracket:
    """One query of a curve at ``point``: its value with the certified bracket
    (``bounds``) or, for an approximation, its error estimate (``error``)."""
    estimate = float(value(point))
    if certified:
        lo, hi = bounds(point)
        return Bracket(estimate, float(lo), float(hi), (hi - lo) / 2, True)
    return Bracket(estimate, estimate, estimate, _error(error(point)))


def mu_target(mu: float) -> Target:
    r"""The GDP summary :math:`\mu^* \le` ``mu``: :math:`\mu^* = \Phi^{-1}(1 -
    \alpha^*) - \Phi^{-1}(\alpha^*)` at the trade-off's fixed point
    :math:`\alpha^*` (Zheng et al. 2020, Sec. 4), computed as
    :math:`-2\Phi^{-1}((1 - \delta(0))/2)` (:func:`symfdp.runs.mu_star`); a
    certified curve's bracket is that of :math:`\delta(0)`. On :math:`G_\mu`,
    :math:`\mu^* = \mu`."""
    mu = check_real("target_mu", mu, 0.0, math.inf, lo_open=True)
    return Target(
        "mu*",
        mu,
        mu_bracket,
        on_gaussian=lambda m: math.log(m / mu),
        field_name="target_mu",
    )


def mu_bracket(curve: PrivacyCurve) -> Bracket:
    r""":math:`\mu^*` of ``curve`` as in :func:`mu_target`; the estimate's
    error is :math:`\delta(0)`'s over :math:`\varphi(\Phi^{-1}((1 -
    \delta(0))/2))` (the derivative of the map)."""
    estimate = float(mu_star(curve))
    if curve.certified:
        lo, hi = mu_star(curve, bounds=True)
        return Bracket(estimate, lo, hi, (hi - lo) / 2, True)
    if not curve.estimates_error:
        return Bracket(estimate, estimate, estimate)
    tv_error = _error(curve.delta_error(0.0))
    z = special.ndtri((1.0 - float(curve.delta(0.0))) / 2.0)
    density = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    error = tv_error / density if density > 0 else math.inf
    return Bracket(estimate, estimate, estimate, error)


def _log_profile(mu: float, eps: float) -> float:
    """:math:`\\log\\delta_{G_\\mu}(\\varepsilon)` (``-inf`` where zero)."""
    with np.errstate(divide="ignore"):
        return float(np.log(gaussian_privacy_profile(mu, eps)))


def _error(value: object) -> float:
    err = float(value)  # type: ignore[arg-type]
    return err if math.isfinite(err) else math.inf
