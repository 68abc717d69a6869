"""Primitive trade-off functions with closed forms: :class:`Gaussian`,
:class:`EpsDelta` (also Zheng et al. 2020, Prop. 2.4), :class:`Laplace`
(also Kaissis et al. 2023, Cor. 1) and :class:`Identity`; all symmetric."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
from scipy import special

from symfdp._validation import check_real
from symfdp.mechanisms.gaussian import gaussian_privacy_profile, gaussian_tradeoff
from symfdp.tradeoff._base import FloatArray, TradeOff
from symfdp.tradeoff._numeric import EXP_CAP, capped_exp


@dataclass(frozen=True)
class Gaussian(TradeOff):
    r""":math:`G_\mu = T(N(0,1), N(\mu,1))`, Dong et al. (2019), eq. (6).

    Args:
        mu: Effect size :math:`\mu \ge 0` (sensitivity / noise std).
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, 0.0))

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval(self, a: FloatArray) -> FloatArray:
        return gaussian_tradeoff(self.mu, a)

    def _one_minus(self, a: FloatArray) -> FloatArray:
        # 1 - G_mu(a) = Phi(Phi^{-1}(a) + mu): tail-stable for small a (STYLE.md).
        return cast(FloatArray, special.ndtr(special.ndtri(a) + self.mu))

    def _profile(self, e: FloatArray) -> FloatArray:
        # Dong et al. (2019), Cor. `GDPtoDPrep`, valid for every real e.
        return gaussian_privacy_profile(self.mu, e)

    def _fixed_point(self) -> float:
        # Dong et al. (2019), Sec. 2.2: G_mu(Phi(-mu/2)) = Phi(-mu/2).
        return float(special.ndtr(-self.mu / 2))

    def _auc(self) -> float:
        # int_0^1 Phi(Phi^{-1}(1-a) - mu) da = P(Z' <= Z - mu) = Phi(-mu/sqrt(2)).
        return float(special.ndtr(-self.mu / math.sqrt(2.0)))


@dataclass(frozen=True)
class EpsDelta(TradeOff):
    r""":math:`f_{\varepsilon,\delta}`, the trade-off of (eps, delta)-DP.

    Dong et al. (2019), eq. (5): :math:`f_{\varepsilon,\delta}(\alpha) = \max\{0,
    1 - \delta - e^\varepsilon \alpha, e^{-\varepsilon}(1 - \delta - \alpha)\}`.

    Args:
        eps: :math:`\varepsilon \ge 0`.
        delta: :math:`\delta \in [0, 1]`.
    """

    eps: float
    delta: float = 0.0

    _piecewise_linear = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_real("eps", self.eps, 0.0))
        object.__setattr__(self, "delta", check_real("delta", self.delta, 0.0, 1.0))

    @property
    def is_symmetric(self) -> bool:
        return True

    @property
    def _x_star(self) -> float:
        # Fixed point (1 - delta) / (1 + e^eps).
        return (1.0 - self.delta) / (1.0 + math.exp(min(self.eps, EXP_CAP)))

    def _eval(self, a: FloatArray) -> FloatArray:
        e = math.exp(min(self.eps, EXP_CAP))
        top = 1.0 - self.delta - e * a
        low = (1.0 - self.delta - a) / e
        return np.maximum(np.maximum(top, low), 0.0)

    def _one_minus(self, a: FloatArray) -> FloatArray:
        e = math.exp(min(self.eps, EXP_CAP))
        return np.minimum(
            np.minimum(self.delta + e * a, 1.0 - (1.0 - self.delta - a) / e), 1.0
        )

    def _breakpoints(self) -> tuple[float, ...]:
        return (self._x_star, 1.0 - self.delta)

    def _profile(self, e: FloatArray) -> FloatArray:
        # sup of 1 - f(x) - e^e x over the polygon's vertices.
        w = capped_exp(e)
        xs = self._x_star
        cand = (
            np.full_like(w, self.delta),
            1.0 - xs * (1.0 + w),
            1.0 - w * (1.0 - self.delta),
            -np.expm1(e),
        )
        return cast(FloatArray, np.maximum.reduce(cand))

    def _fixed_point(self) -> float:
        return self._x_star

    def _auc(self) -> float:
        # Two triangles/trapezoids under the polygon: (1 - delta) * x*.
        return (1.0 - self.delta) * self._x_star


@dataclass(frozen=True)
class Laplace(TradeOff):
    r""":math:`T(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`.

    Dong et al. (2019), Lemma A.6 (= Kaissis et al. 2023, Cor. 1 with
    :math:`\mu_1 = D_1/b`):

    .. math::
        f(\alpha) = \begin{cases} 1 - e^\mu\alpha, & \alpha < e^{-\mu}/2,\\
        e^{-\mu}/(4\alpha), & e^{-\mu}/2 \le \alpha \le 1/2,\\
        e^{-\mu}(1-\alpha), & \alpha > 1/2. \end{cases}

    Args:
        mu: Shift in units of the scale, :math:`\mu \ge 0`.
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, 0.0))

    @property
    def is_symmetric(self) -> bool:
        return True

    @property
    def _c(self) -> float:
        return 0.5 * math.exp(-min(self.mu, EXP_CAP))

    def _pieces(self, a: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Returns (f, 1 - f), each computed in its stable form."""
        c = self._c
        first = a < c
        third = a > 0.5
        safe = np.where(first, 1.0, a)
        # Piece 1: 1 - f = a e^mu = a / (2c). Piece 2: f = e^{-mu}/(4a) = c/(2a).
        one_minus_1 = a / (2.0 * c)
        f2 = c / (2.0 * safe)
        f3 = 2.0 * c * (1.0 - a)
        f = np.where(first, 1.0 - one_minus_1, np.where(third, f3, f2))
        om = np.where(first, one_minus_1, 1.0 - np.where(third, f3, f2))
        return f, om

    def _eval(self, a: FloatArray) -> FloatArray:
        return self._pieces(a)[0]

    def _one_minus(self, a: FloatArray) -> FloatArray:
        return self._pieces(a)[1]

    def _breakpoints(self) -> tuple[float, ...]:
        return (self._c, 0.5)

    def _profile(self, e: FloatArray) -> FloatArray:
        # sup_x 1 - e^e x - f(x): 1 - e^{(e - mu)/2} for |e| <= mu.
        mid = -np.expm1((e - self.mu) / 2.0)
        low = -np.expm1(e)
        return np.where(e >= self.mu, 0.0, np.where(e <= -self.mu, low, mid))

    def _fixed_point(self) -> float:
        # e^{-mu}/(4a) = a  =>  a = e^{-mu/2}/2.
        return 0.5 * math.exp(-self.mu / 2.0)

    def _auc(self) -> float:
        # 3c/4 + (e^{-mu}/4) mu + e^{-mu}/8 = e^{-mu} (1/2 + mu/4).
        return math.exp(-min(self.mu, EXP_CAP)) * (0.5 + self.mu / 4.0)


@dataclass(frozen=True)
class Identity(TradeOff):
    r""":math:`\mathrm{Id}(\alpha) = 1 - \alpha = T(P, P)`, perfect privacy."""

    @property
    def is_symmetric(self) -> bool:
        return True

    def _eval(self, a: FloatArray) -> FloatArray:
        return 1.0 - a

    def _one_minus(self, a: FloatArray) -> FloatArray:
        return cast(FloatArray, a.copy())

    def _profile(self, e: FloatArray) -> FloatArray:
        return np.maximum(-np.expm1(e), 0.0)

    def _fixed_point(self) -> float:
        return 0.5

    def _auc(self) -> float:
        return 0.5
