r"""The sampling operator :math:`C_p` (Dong et al. 2019, Def. 4.1, Thm 4.2,
eq. (14), Cor. 4.3)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from symfdp.tradeoff._base import FloatArray, TradeOff, check_tradeoff
from symfdp.tradeoff._numeric import EXP_CAP
from symfdp.tradeoff.hull import Symmetrized
from symfdp.tradeoff.operators import Mixture, check_p
from symfdp.tradeoff.primitives import EpsDelta
from symfdp.tradeoff.tabulated import FromPrivacyProfile


@dataclass(frozen=True)
class Subsampled(TradeOff):
    r"""The sampling operator :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}` with
    :math:`f_p = p f + (1-p)\mathrm{Id}`, Dong et al. (2019), Def. 4.1 / Thm 4.2.

    For symmetric :math:`f` with fixed point :math:`x^*`, eq. (14):

    .. math::
        C_p(f)(x) = \begin{cases} f_p(x), & x \in [0, x^*],\\
        x^* + f_p(x^*) - x, & x \in [x^*, f_p(x^*)],\\
        f_p^{-1}(x), & x \in [f_p(x^*), 1]. \end{cases}

    Otherwise the generic :class:`Symmetrized` hull of :class:`Mixture` is used.

    Args:
        base: The trade-off function :math:`f`.
        p: Sampling rate in (0, 1].
    """

    base: TradeOff
    p: float

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)
        object.__setattr__(self, "p", check_p(self.p))

    @property
    def is_symmetric(self) -> bool:
        return True

    @functools.cached_property
    def _mixture(self) -> Mixture:
        return Mixture(self.base, self.p)

    @functools.cached_property
    def _generic(self) -> Symmetrized | None:
        return None if self.base.is_symmetric else Symmetrized(self._mixture)

    @functools.cached_property
    def _corner(self) -> tuple[float, float]:
        """(x*, f_p(x*)) for eq. (14)."""
        x_star = self.base._fixed_point()
        y_star = float(self._mixture._eval(np.array([x_star]))[0])
        return x_star, max(y_star, x_star)

    def _eval(self, a: FloatArray) -> FloatArray:
        if self._generic is not None:
            return self._generic._eval(a)
        x_star, y_star = self._corner
        out = (x_star + y_star) - a  # the middle segment
        left = a <= x_star
        right = a >= y_star
        if left.any():
            out[left] = self._mixture._eval(a[left])
        if right.any():
            out[right] = self._mixture._inverse_eval(a[right])
        return out

    def _one_minus(self, a: FloatArray) -> FloatArray:
        if self._generic is not None:
            return self._generic._one_minus(a)
        x_star, _ = self._corner
        left = a <= x_star
        out = 1.0 - self._eval(a)
        if left.any():
            out[left] = self._mixture._one_minus(a[left])
        return out

    def _breakpoints(self) -> tuple[float, ...]:
        if self._generic is not None:
            return self._generic._breakpoints()
        return self._corner

    def _profile(self, e: FloatArray) -> FloatArray:
        # C_p(f)^* = max{f_p^*, (f_p^{-1})^*} (see Symmetrized); for symmetric f
        # and e >= 0 this is Dong et al. (2019), eq. (16): 1 + f_p^*(-e^e).
        return np.maximum(self._mixture._profile(e), self._mixture._inverse_profile(e))

    def _fixed_point(self) -> float:
        if self._generic is not None:
            return self._generic._fixed_point()
        x_star, y_star = self._corner
        return 0.5 * (x_star + y_star)


def subsampled_eps_delta(eps: float, delta: float, p: float) -> TradeOff:
    r""":math:`C_p(f_{\varepsilon,\delta})` in closed form (Dong et al. 2019,
    Cor. 4.3, corrected).

    Eq. (14) with :math:`x^* = (1-\delta)/(1+e^\varepsilon)` gives

    .. math::
        C_p(f_{\varepsilon,\delta})(\alpha) = \max\{f_{\varepsilon',\delta'}(\alpha),
        1 - \delta'' - \alpha\},\quad \varepsilon' = \log(1 - p + pe^\varepsilon),
        \ \delta' = p\delta,\ \delta'' = p\,\frac{e^\varepsilon - 1 + 2\delta}
        {e^\varepsilon + 1},

    i.e. :math:`\sup\{f_{\varepsilon',\delta'}, f_{0,\delta''}\}`, where
    :math:`\delta''` is :math:`p` times the total variation of
    :math:`f_{\varepsilon,\delta}`. Eq. (15) as printed has
    :math:`p\delta + p(e^\varepsilon-1)/(e^\varepsilon+1)` in place of
    :math:`\delta''`, which is larger by :math:`p\delta\tanh(\varepsilon/2)`
    unless :math:`\delta = 0` (finding ``dong2019-eq15-middle-line``, checked by
    ``derivations/subsampling_eps_delta.py``).
    """
    base = EpsDelta(eps, delta)
    p = check_p(p)
    w = math.exp(min(base.eps, EXP_CAP))
    eps_prime = math.log1p(p * math.expm1(base.eps)) if base.eps < EXP_CAP else base.eps
    tv = (w - 1.0 + 2.0 * base.delta) / (w + 1.0)  # finding: dong2019-eq15-middle-line
    return FromPrivacyProfile([eps_prime, 0.0], [p * base.delta, p * tv])
