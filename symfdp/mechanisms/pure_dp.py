r"""Pure :math:`\varepsilon`-DP: randomised response, trade-off
:math:`f_{\varepsilon,0}`.

:math:`P(1) = 1/(1+e^\varepsilon)`, :math:`Q(1) = e^\varepsilon/(1+e^\varepsilon)`
on :math:`\{0, 1\}`, so :math:`L = \pm\varepsilon` and :math:`T(P, Q) =
f_{\varepsilon,0}` (Dong et al. 2019, eq. (5) and the KOV representation of
Thm 3.4). Cumulants :math:`\varepsilon^r (\log\cosh)^{(r)}(-\varepsilon/2)` as
polynomials in :math:`\tanh` and :math:`\operatorname{sech}^2`, each monomial to
full relative precision (:mod:`symfdp.symbolic.plrv`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from symfdp._validation import (
    check_array,
    check_choice,
    check_int,
    check_real,
    scalar_or_array,
)
from symfdp.mechanisms._rdp import rdp_pure_dp
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    Under,
)


@functools.cache
def logcosh_derivative_monomials(order: int) -> tuple[dict[tuple[int, int], int], ...]:
    r""":math:`(\log\cosh)^{(r)}`, :math:`r = 1..order`, as :math:`\sum c_{ab} T^a S^b`,
    :math:`T = \tanh u`, :math:`S = \operatorname{sech}^2 u`
    (from :math:`T' = S`, :math:`S' = -2TS`)."""
    out: list[dict[tuple[int, int], int]] = []
    poly: dict[tuple[int, int], int] = {(1, 0): 1}
    for _ in range(order):
        out.append(poly)
        new: dict[tuple[int, int], int] = {}
        for (a, b), c in poly.items():
            if a:
                new[(a - 1, b + 1)] = new.get((a - 1, b + 1), 0) + a * c
            if b:
                new[(a + 1, b)] = new.get((a + 1, b), 0) - 2 * b * c
        poly = {k: v for k, v in new.items() if v != 0}
    return tuple(out)


def _sech2(u: FloatArray) -> FloatArray:
    e = np.exp(-2 * np.abs(u))
    return cast(FloatArray, 4 * e / (1 + e) ** 2)


def _logcosh(u: FloatArray) -> FloatArray:
    """``log cosh u`` as ``log1p(2 sinh^2(u/2))`` near 0 and as
    ``|u| + log1p(e^{-2|u|}) - log 2`` beyond (no cancellation in either range)."""
    a = np.abs(np.asarray(u, dtype=np.float64))
    small = np.minimum(a, 1.0)
    near = np.log1p(2 * np.sinh(small / 2) ** 2)
    far = a + np.log1p(np.exp(-2 * a)) - math.log(2)
    return cast(FloatArray, np.where(a < 1.0, near, far))


@dataclass(frozen=True)
class PureDP(Mechanism):
    """Randomised response with trade-off ``f_{eps,0}``.

    Args:
        eps: Privacy parameter, ``eps >= 0``.
    """

    eps: float

    name: ClassVar[str] = "pure-dp"
    PARAMS: ClassVar[dict[str, Param]] = {
        "eps": Param("privacy parameter epsilon", (0.0, math.inf), (0.05, 5.0)),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_real("eps", self.eps, 0.0))

    def _masses(self, under: Under) -> tuple[float, float]:
        """(mass at -eps, mass at +eps) under P or Q."""
        check_choice("under", under, ("P", "Q"))
        lo, hi = float(special.expit(self.eps)), float(special.expit(-self.eps))
        return (lo, hi) if under == "P" else (hi, lo)

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        """``L(1) = eps`` and ``L(0) = -eps`` (outputs are 0 or 1)."""
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(np.where(xs == 1, self.eps, -self.eps))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        """Probability mass of ``x`` in ``{0, 1}`` (0 elsewhere)."""
        m0, m1 = self._masses(under)
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(np.where(xs == 1, m1, np.where(xs == 0, m0, 0.0)))

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        m0, _ = self._masses(under)
        ls = check_array("l", l, allow_inf=True)
        e = self.eps
        if inclusive:
            out = np.where(ls < -e, 0.0, np.where(ls < e, m0, 1.0))
        else:
            out = np.where(ls <= -e, 0.0, np.where(ls <= e, m0, 1.0))
        return scalar_or_array(out)

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        _, m1 = self._masses(under)
        ls = check_array("l", l, allow_inf=True)
        e = self.eps
        if inclusive:
            out = np.where(ls <= -e, 1.0, np.where(ls <= e, m1, 0.0))
        else:
            out = np.where(ls < -e, 1.0, np.where(ls < e, m1, 0.0))
        return scalar_or_array(out)

    def plrv_quadrature(self) -> PLRVQuadrature:
        e = self.eps
        nodes = np.array([-e, e])
        log_w = -np.logaddexp(0.0, np.array([-e, e]))
        return PLRVQuadrature(nodes, log_w)

    def plrv_support(self) -> tuple[float, float]:
        return (-self.eps, self.eps)

    def finite_loss_law(self) -> tuple[FloatArray, FloatArray]:
        """``L = -eps, eps`` with P-masses ``e^eps/(1+e^eps), 1/(1+e^eps)``."""
        rule = self.plrv_quadrature()
        return rule.nodes, rule.log_weights

    def rdp(self, orders: FloatArray) -> FloatArray:
        """:func:`~symfdp.mechanisms._rdp.rdp_pure_dp` (Dong et al. 2019,
        Prop. B.7)."""
        return rdp_pure_dp(float(self.eps), orders)

    def replace_one(self) -> PureDP:
        """The guarantee under the relation stated: itself."""
        return self

    def loss_lattice(self) -> float | None:
        """L takes the values +-eps: a lattice of span 2 eps (None at eps = 0)."""
        return 2.0 * self.eps if self.eps > 0 else None

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        r""":math:`\kappa_r = \varepsilon^r(\log\cosh)^{(r)}(-\varepsilon/2)` under P,
        :math:`(-1)^r` times that under Q (symbolic.plrv.pure_dp_cumulant_exprs)."""
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        u = -self.eps / 2
        tt = math.tanh(u)
        s2 = float(_sech2(np.array(u)))
        out = np.empty(order)
        for r, poly in enumerate(logcosh_derivative_monomials(order), start=1):
            val = math.fsum(c * tt**a * s2**b for (a, b), c in poly.items())
            out[r - 1] = self.eps**r * val * (1 if under == "P" else (-1) ** r)
        return out

    def cumulant_exprs(self, order: int, under: Under = "P") -> list[Any]:
        """Exact cumulants as SymPy expressions in the symbol ``eps``
        (:func:`symfdp.symbolic.plrv.pure_dp_cumulant_exprs`; imports SymPy)."""
        from symfdp.symbolic.plrv import pure_dp_cumulant_exprs

        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        under = check_choice("under", under, ("P", "Q"))
        return list(pure_dp_cumulant_exprs(order, under))

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""Closed form, with :math:`K_Q(t) = K_P(t+1)`:
        :math:`K_P(t) = \log\cosh(\varepsilon(t-\frac12)) - \log\cosh(\varepsilon/2)`,
        :math:`K' = \varepsilon\tanh(\cdot)`, :math:`K'' = \varepsilon^2
        \operatorname{sech}^2(\cdot)`."""
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t) + (0.0 if under == "P" else 1.0)
        e = self.eps
        u = e * (ts - 0.5)
        k0 = _logcosh(u) - _logcosh(np.array(e / 2))
        return (
            scalar_or_array(k0),
            scalar_or_array(e * np.tanh(u)),
            scalar_or_array(e * e * _sech2(u)),
        )

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r""":math:`f_{\varepsilon,0}(\alpha) = \max\{0, 1 - e^\varepsilon\alpha,
        e^{-\varepsilon}(1-\alpha)\}`, Dong et al. (2019), eq. (5)."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        e = self.eps
        out = np.maximum.reduce(
            [np.zeros_like(a), 1 - math.exp(e) * a, math.exp(-e) * (1 - a)]
        )
        return scalar_or_array(out)

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\delta(\varepsilon') = -\mathrm{expm1}(\varepsilon' - \varepsilon)
        \cdot e^{\varepsilon}/(1+e^{\varepsilon})` on
        :math:`[-\varepsilon, \varepsilon)`, :math:`1 - e^{\varepsilon'}` below and 0
        above (Zheng et al. 2020, Lemma 5.1 for the two-point law)."""
        ep = check_array("eps", eps, allow_inf=True)
        e = self.eps
        with np.errstate(over="ignore", invalid="ignore"):
            mid = -np.expm1(ep - e) * special.expit(e)
            low = -np.expm1(ep)
        out = np.where(ep >= e, 0.0, np.where(ep < -e, low, mid))
        return scalar_or_array(np.clip(out, 0.0, 1.0))

    def __repr__(self) -> str:
        return f"PureDP(eps={self.eps!r})"
