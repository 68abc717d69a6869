r"""The :math:`(\varepsilon, \delta)`-DP event: the pair whose trade-off is
:math:`f_{\varepsilon,\delta}` (Dong et al. (2019), eq. (5), Prop. 2.5).

A dominating pair on four outcomes (Kairouz et al. 2015; Dong et al. 2019,
Sec. 2.3) is

.. math::  P = (\delta,\ (1-\delta)\tfrac{e^\varepsilon}{1+e^\varepsilon},\
           (1-\delta)\tfrac{1}{1+e^\varepsilon},\ 0), \qquad
           Q = (0,\ (1-\delta)\tfrac{1}{1+e^\varepsilon},\
           (1-\delta)\tfrac{e^\varepsilon}{1+e^\varepsilon},\ \delta):

with probability :math:`\delta` the loss is infinite (*blatant*), otherwise it
is randomised response (:class:`PureDP`). Composed, with :math:`c = \prod_i
(1-\delta_i)^{n_i}`,

.. math::  \delta_{\otimes}(\varepsilon') = 1 - c + c\,\delta_{fin}(\varepsilon'),
           \qquad f_\otimes(\alpha) = c\, f_{fin}(\alpha / c) \ (\alpha \le c),
           \ 0 \ (\alpha > c)

(:mod:`symfdp.accountants._blatant`). The loss has no cumulants and no CGF for
:math:`\delta > 0`: those queries raise :class:`BlatantLossError`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_choice, check_real, scalar_or_array
from symfdp.mechanisms.base import FloatArray, Mechanism, Param, PLRVQuadrature, Under
from symfdp.mechanisms.pure_dp import PureDP


class BlatantLossError(ValueError):
    """The privacy loss is infinite with positive probability (no moments)."""


@dataclass(frozen=True)
class EpsilonDelta(Mechanism):
    r"""An :math:`(\varepsilon, \delta)`-DP event, trade-off
    :math:`f_{\varepsilon,\delta}` (Dong et al. 2019, eq. (5)).

    Args:
        eps: ``eps >= 0``.
        delta: ``0 <= delta < 1``; ``delta = 0`` is :class:`PureDP`.

    Example:
        >>> from symfdp import accountants as A
        >>> curve = A.Exact().compose(EpsilonDelta(eps=0.5, delta=1e-6), n=10)
        >>> round(float(curve.delta(2.0)), 8)
        0.14547499
    """

    eps: float
    delta: float

    name: ClassVar[str] = "epsilon-delta"
    PARAMS: ClassVar[dict[str, Param]] = {
        "eps": Param("privacy parameter epsilon", (0.0, math.inf), (0.05, 5.0)),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_real("eps", self.eps, 0.0))
        object.__setattr__(
            self, "delta", check_real("delta", self.delta, 0.0, 1.0, hi_open=True)
        )

    @property
    def blatant_mass(self) -> float:
        """Probability ``delta`` of the blatant outcome (L = -inf under P, +inf
        under Q); the rest is :meth:`finite_part`."""
        return self.delta

    def finite_part(self) -> PureDP:
        """The pair conditioned on a non-blatant outcome: ``PureDP(eps)``."""
        return PureDP(self.eps)

    def replace_one(self) -> EpsilonDelta:
        """The guarantee under the relation stated: itself."""
        return self

    def loss_lattice(self) -> float | None:
        """The finite part's (the blatant outcome is split off exactly)."""
        return self.finite_part().loss_lattice()

    def plrv_support(self) -> tuple[float, float]:
        if self.delta > 0:
            return (-math.inf, math.inf)
        return self.finite_part().plrv_support()

    def _pmf(self, under: Under) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        d, keep = self.delta, 1.0 - self.delta
        lo, hi = self.finite_part()._masses("P")
        p = np.array([d, keep * lo, keep * hi, 0.0])
        return p if under == "P" else p[::-1].copy()

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        """``L`` on the outcomes 0, 1, 2, 3: ``-inf, -eps, eps, +inf``."""
        xs = check_array("x", x, allow_inf=True)
        values = np.array([-math.inf, -self.eps, self.eps, math.inf])
        inside = np.isin(xs, (0.0, 1.0, 2.0, 3.0))
        idx = np.where(inside, xs, 0).astype(int)
        return scalar_or_array(np.where(inside, values[idx], np.nan))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        """Probability mass of the outcome ``x`` in ``{0, 1, 2, 3}``."""
        pmf = self._pmf(under)
        xs = check_array("x", x, allow_inf=True)
        inside = np.isin(xs, (0.0, 1.0, 2.0, 3.0))
        idx = np.where(inside, xs, 0).astype(int)
        return scalar_or_array(np.where(inside, pmf[idx], 0.0))

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        fin = np.asarray(
            self.finite_part().plrv_cdf(ls, under, inclusive=inclusive), np.float64
        )
        if under == "P":
            atom = ls > -math.inf if not inclusive else np.ones(ls.shape, bool)
        else:
            atom = (ls == math.inf) if inclusive else np.zeros(ls.shape, bool)
        out = (1.0 - self.delta) * fin + self.delta * atom
        return scalar_or_array(np.clip(out, 0.0, 1.0))

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        fin = np.asarray(
            self.finite_part().plrv_sf(ls, under, inclusive=inclusive), np.float64
        )
        if under == "Q":
            atom = ls < math.inf if not inclusive else np.ones(ls.shape, bool)
        else:
            atom = (ls == -math.inf) if inclusive else np.zeros(ls.shape, bool)
        out = (1.0 - self.delta) * fin + self.delta * atom
        return scalar_or_array(np.clip(out, 0.0, 1.0))

    def _refuse(self, what: str) -> NoReturn:
        raise BlatantLossError(
            f"{self!r}: the privacy loss is -inf (under P) or +inf (under Q) with "
            f"probability delta = {self.delta:g}, so it has no {what}. The "
            "accountants that compose pair by pair (Numerical, Exact, Edgeworth, "
            "SaddlePoint, Auto) serve it exactly as its finite part "
            f"PureDP(eps={self.eps:g}) plus the blatant mass; those that need "
            "moments of the whole loss (CLT, BerryEsseen, RDP) cannot. Use "
            "accountants.Numerical (certified) or accountants.Exact."
        )

    def _finite(self, what: str) -> PureDP:
        if self.delta > 0:
            self._refuse(what)
        return self.finite_part()

    def plrv_quadrature(self) -> PLRVQuadrature:
        return self._finite("quadrature rule for expectations").plrv_quadrature()

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        return self._finite("cumulants").cumulants(order, under)

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        return self._finite("cumulant generating function").cgf_derivatives(t, under)

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        return self._finite("tilted moments").tilted_abs_moment3(t, under)

    def expect(self, fn: Any, under: Under = "P") -> Any:
        return self._finite("finite expectations").expect(fn, under)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r""":math:`f_{\varepsilon,\delta}(\alpha) = \max\{0, 1 - \delta -
        e^\varepsilon\alpha, e^{-\varepsilon}(1 - \delta - \alpha)\}`, Dong et al.
        (2019), eq. (5)."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        e, d = self.eps, self.delta
        out = np.maximum.reduce(
            [np.zeros_like(a), 1 - d - math.exp(e) * a, math.exp(-e) * (1 - d - a)]
        )
        return scalar_or_array(out)

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\delta + (1-\delta)\,\delta_{\varepsilon,0}(\varepsilon')`: the
        blatant mass and the randomised-response profile (Zheng et al. 2020,
        Lemma 5.1, for the law above)."""
        ep = check_array("eps", eps, allow_inf=True)
        fin = np.asarray(self.finite_part().privacy_profile(ep), np.float64)
        return scalar_or_array(self.delta + (1.0 - self.delta) * fin)

    def __repr__(self) -> str:
        return f"EpsilonDelta(eps={self.eps!r}, delta={self.delta!r})"
