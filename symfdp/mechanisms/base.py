r"""Dominating pairs and their privacy-loss random variables (PLRV).

A mechanism in symfdp is described by a *dominating pair* of distributions
:math:`(P, Q)` on its output space, with the privacy-loss random variable

.. math::  L = \log \frac{dQ}{dP}(X),

following Zheng et al. (2020), Sec. 3 (H0 = P, H1 = Q, :math:`T_n = \sum_i L_i`).
Its trade-off function is :math:`f = T(P, Q)` and its privacy profile (the
hockey-stick divergence :math:`E_{e^\varepsilon}(Q \| P)`) is

.. math::  \delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+]
           = P_Q(L > \varepsilon) - e^{\varepsilon} P_P(L > \varepsilon),

Zheng et al. (2020), Lemma 5.1. Because :math:`dQ_L(l) = e^{l}\, dP_L(l)`, the law of
:math:`L` under :math:`P` determines everything; both laws are exposed for
convenience and tail stability.

Subclasses are frozen dataclasses; they *describe* a mechanism and never hold
results of accounting (accountants compute).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

Under = Literal["P", "Q"]
Pair = Literal["add", "remove", "both"]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Param:
    """Declared domain and typical range of a mechanism parameter (SciPy style).

    Attributes:
        doc: Meaning of the parameter.
        domain: ``(lo, hi)`` bounds of the valid domain.
        lo_open, hi_open: Whether the domain bounds are excluded.
        typical: ``(lo, hi)`` range used by property tests and benchmarks.
    """

    doc: str
    domain: tuple[float, float]
    typical: tuple[float, float]
    lo_open: bool = False
    hi_open: bool = False


@dataclass(frozen=True)
class PLRVQuadrature:
    r"""A quadrature rule for expectations of the PLRV under P.

    :math:`E_P[h(L)] \approx \sum_i \exp(\text{log\_weights}_i)\, h(\text{nodes}_i)`,
    and under Q the weights are multiplied by :math:`e^{\text{nodes}_i}`. Atoms of
    the law of L appear as nodes carrying their probability.
    """

    nodes: FloatArray
    log_weights: FloatArray

    def weights(self, under: Under = "P") -> FloatArray:
        logw = self.log_weights if under == "P" else self.log_weights + self.nodes
        return np.exp(logw)


class Mechanism(ABC):
    """Abstract dominating pair (P, Q) with PLRV ``L = log dQ/dP``.

    Concrete mechanisms implement the abstract methods; the generic methods
    (cumulants, CGF, expectations) have quadrature fallbacks that closed forms
    override. ``pair`` is ``"add"`` for the pair as defined, ``"remove"`` for the
    swapped pair and ``"both"`` for add/remove adjacency; symmetric mechanisms
    (``T(P, Q) = T(Q, P)``) ignore it.
    """

    name: ClassVar[str]
    PARAMS: ClassVar[dict[str, Param]]

    # ------------------------------------------------------------------ pairs
    @property
    def is_symmetric(self) -> bool:
        """Whether ``T(P, Q) == T(Q, P)``, i.e. add and remove pairs coincide."""
        return True

    @property
    def pairs(self) -> tuple[Mechanism, ...]:
        """The dominating pairs an accountant must cover.

        ``(self,)`` for a symmetric mechanism or a single pair, and
        ``(add, remove)`` for ``pair="both"``; delta is the maximum over them.
        """
        return (self,)

    def swapped(self) -> Mechanism:
        """The pair ``(Q, P)``: its trade-off is the inverse ``f^{-1}``."""
        from symfdp.mechanisms.swapped import Swapped

        return Swapped(self)

    # ------------------------------------------------------------------ PLRV law
    @abstractmethod
    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        """``L(x) = log q(x) / p(x)`` on the output space."""

    @abstractmethod
    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        """Density (or probability mass) of P or Q on the output space."""

    @abstractmethod
    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        """``P(L <= l)`` (``P(L < l)`` with ``inclusive=False``) under P or Q."""

    @abstractmethod
    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        """``P(L > l)`` (``P(L >= l)`` with ``inclusive=True``), tail-stable."""

    @abstractmethod
    def plrv_quadrature(self) -> PLRVQuadrature:
        """A quadrature rule for ``E_P[h(L)]`` accurate for smooth ``h``."""

    def plrv_support(self) -> tuple[float, float]:
        """Essential support ``(lo, hi)`` of L (may be infinite)."""
        return (-math.inf, math.inf)

    # ------------------------------------------------------------------ derived
    @abstractmethod
    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        """Cumulants ``kappa_1 .. kappa_order`` of L under P or Q."""

    @abstractmethod
    def cgf(self, t: ArrayLike, under: Under = "P") -> FloatArray:
        """Cumulant generating function ``K(t) = log E[exp(t L)]`` (default under P)."""

    @abstractmethod
    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(K(t), K'(t), K''(t))``, vectorised in ``t``."""

    @abstractmethod
    def expect(self, fn, under: Under = "P"):
        """``E[fn(L)]`` under P or Q by the mechanism's quadrature rule."""

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        """The exact trade-off ``T(P, Q)(alpha)``, where a closed form exists."""
        raise NotImplementedError(
            f"{type(self).__name__} has no closed-form trade-off; use an accountant "
            "(e.g. symfdp.accountants.Numerical().compose(m, n=1))."
        )

    @abstractmethod
    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        """``delta(eps) = E_Q[(1 - e^{eps - L})_+]`` of this single pair, eps real."""
