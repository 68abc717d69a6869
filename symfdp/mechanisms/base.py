r"""Dominating pairs and their privacy-loss random variables (PLRV).

A mechanism is a *dominating pair* :math:`(P, Q)` on its output space with
PLRV :math:`L = \log \frac{dQ}{dP}(X)` (Zheng et al. (2020), Sec. 3: H0 = P,
H1 = Q, :math:`T_n = \sum_i L_i`), trade-off :math:`f = T(P, Q)` and privacy
profile (the hockey-stick divergence :math:`E_{e^\varepsilon}(Q \| P)`)

.. math::  \delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+]
           = P_Q(L > \varepsilon) - e^{\varepsilon} P_P(L > \varepsilon),

Zheng et al. (2020), Lemma 5.1. As :math:`dQ_L(l) = e^{l}\, dP_L(l)`, the law of
:math:`L` under :math:`P` determines everything. Subclasses are frozen
dataclasses that describe a mechanism and hold no accounting results."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import (
    check_array,
    check_callable,
    check_choice,
    check_int,
    scalar_or_array,
)
from symfdp.mechanisms._complex_mgf import LogMGF, ReflectedLogMGF
from symfdp.mechanisms._errors import QuadratureLimitError as QuadratureLimitError
from symfdp.mechanisms._errors import UndefinedRelationError
from symfdp.mechanisms._panels import Rule, split_rule
from symfdp.mechanisms._tilted import tilted_abs_moment3 as tilted_abs_moment3
from symfdp.mechanisms._tilted import tilted_cgf as tilted_cgf
from symfdp.mechanisms._tilted import tilted_weight_blocks as tilted_weight_blocks
from symfdp.numeric.moments import weighted_cumulants
from symfdp.numeric.tabulate import alpha_grid, tabulated_inverse

Under = Literal["P", "Q"]
Pair = Literal["add", "remove", "both"]
FloatArray = NDArray[np.float64]


#: Largest cumulant order served: Edgeworth of the largest order J = 64
#: (:func:`symfdp._validation.check_order`) needs kappa_1..kappa_{J+2}.
MAX_CUMULANT_ORDER: Final = 66


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
    """Abstract dominating pair (P, Q) with PLRV ``L = log dQ/dP``; the generic
    methods are quadrature fallbacks that closed forms override. ``pair``:
    ``"add"`` (as defined), ``"remove"`` (swapped) or ``"both"``; symmetric
    mechanisms ignore it."""

    name: ClassVar[str]
    PARAMS: ClassVar[dict[str, Param]]

    @property
    def is_symmetric(self) -> bool:
        """Whether ``T(P, Q) == T(Q, P)``, i.e. add and remove pairs coincide."""
        return True

    @property
    def pairs(self) -> tuple[Mechanism, ...]:
        """The dominating pairs an accountant must cover: ``(self,)``, or ``(add,
        remove)`` for ``pair="both"`` (delta is the maximum over them)."""
        return (self,)

    @property
    def continuous_loss(self) -> bool:
        """Whether the law of L has a density (no atoms, no lattice): the
        condition of :class:`~symfdp.accountants.contour.Contour`."""
        return False

    def replace_one(self) -> Mechanism:
        """The mechanism under replace-one neighbours: a mechanism whose
        ``pairs`` cover the relation (:func:`~symfdp.mechanisms.with_adjacency`).

        A family defined by a sensitivity bound (a record moves the output by
        at most that much when added or removed) moves it by twice as much when
        replaced: its shift doubles (dp-accounting's ``REPLACE_ONE``). A family
        whose parameter is the guarantee itself (pure DP, randomized response,
        an (eps, delta) event) is that guarantee under the relation stated.

        Raises:
            UndefinedRelationError: the mechanism cannot say what replace-one
                neighbours are (the default: a pair given by its densities or
                PMFs).
        """
        raise UndefinedRelationError(
            f"adjacency='replace_one' is not defined for {self!r}: a pair given "
            "by its densities, PMFs or privacy loss does not say how replacing a "
            "record moves it. Build the replace-one dominating pair itself (e.g. "
            "with M.from_pmfs or M.from_densities) and compose it with "
            "adjacency='add_or_remove'."
        )

    def symmetric_minorant(self) -> Mechanism | None:
        """The symmetric-trade-off capability: a mechanism with a symmetric
        trade-off that lower-bounds this one's (itself when symmetric), or
        None (the default for an asymmetric pair)."""
        return self if self.is_symmetric else None

    def swapped(self) -> Mechanism:
        """The pair ``(Q, P)``: its trade-off is the inverse ``f^{-1}``."""
        return Swapped(self)

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

    def plrv_cdf_pq(
        self, l: ArrayLike, *, inclusive: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        """:meth:`plrv_cdf` under P and under Q, ``(P(L <= l), Q(L <= l))``
        (families that share work between the two override this)."""
        return (
            np.asarray(self.plrv_cdf(l, "P", inclusive=inclusive), dtype=np.float64),
            np.asarray(self.plrv_cdf(l, "Q", inclusive=inclusive), dtype=np.float64),
        )

    def plrv_sf_pq(
        self, l: ArrayLike, *, inclusive: bool = False
    ) -> tuple[FloatArray, FloatArray]:
        """:meth:`plrv_sf` under P and under Q, ``(P(L > l), Q(L > l))``."""
        return (
            np.asarray(self.plrv_sf(l, "P", inclusive=inclusive), dtype=np.float64),
            np.asarray(self.plrv_sf(l, "Q", inclusive=inclusive), dtype=np.float64),
        )

    @abstractmethod
    def plrv_quadrature(self) -> PLRVQuadrature:
        """A quadrature rule for ``E_P[h(L)]`` accurate for smooth ``h``."""

    def plrv_pieces(self, cuts: Sequence[float]) -> list[Rule]:
        """Quadrature rules ``(loss values, P-weights)`` of L under P on each of
        ``(-inf, c_1], (c_1, c_2], ..., (c_k, inf)`` for the sorted ``cuts``,
        accurate for functions smooth on each interval (the capability behind
        kinked expectations: functionals, the symmetrised pair's moments).
        Default: :meth:`plrv_quadrature` split at the cuts (exact for atoms;
        families with a density put panel edges at the cuts instead)."""
        rule = self.plrv_quadrature()
        return split_rule((rule.nodes, rule.weights("P")), sorted(cuts))

    def plrv_support(self) -> tuple[float, float]:
        """Essential support ``(lo, hi)`` of L (may be infinite)."""
        return (-math.inf, math.inf)

    def complex_log_mgf(self) -> LogMGF | None:
        r"""The complex log-MGF capability: :math:`z \mapsto \operatorname{Log}
        E_Q[e^{zL}]` on vertical lines (:mod:`symfdp.mechanisms._complex_mgf`),
        for the contour integral; None where none is implemented (the
        default)."""
        return None

    def rdp(self, orders: FloatArray) -> FloatArray | None:
        r"""The RDP capability: :math:`D_\alpha(Q \| P) = \frac{1}{\alpha - 1}
        \log E_P[e^{\alpha L}]` at the validated ``orders`` :math:`\alpha > 1`
        (Mironov 2017), or None. Default: the exact sum over the atoms of a
        finite law (:meth:`finite_loss_law`), else None; closed forms
        override."""
        law = self.finite_loss_law()
        if law is None:
            return None
        l, log_p = law
        a = np.asarray(orders, dtype=np.float64)
        log_m = special.logsumexp(
            log_p[None, :] + a.reshape(-1, 1) * l[None, :], axis=1
        )
        return np.asarray(log_m, dtype=np.float64).reshape(a.shape) / (a - 1.0)

    def gaussian_mu(self) -> float | None:
        r"""The closed-form law capability: :math:`\mu` when the privacy loss
        is that of :math:`G_\mu` (:math:`L \sim N(-\mu^2/2, \mu^2)` under P,
        Dong et al. 2019, Cor. 2.13), else None (the default)."""
        return None

    def finite_loss_law(self) -> tuple[FloatArray, FloatArray] | None:
        """The finite-law capability: ``(losses, log_p)``, the sorted distinct
        values of L and their log P-masses when L takes finitely many values
        (exactly), else None (the default)."""
        return None

    def loss_lattice(self) -> float | None:
        r"""The lattice capability of the privacy-loss law, asked by every
        accountant's error model and by the certified grid.

        The span :math:`h` of the coarsest lattice :math:`a + h\mathbb{Z}`
        carrying all of L; for a law of finitely many atoms off any lattice, the
        widest gap between neighbouring atoms (the scale a smooth approximation
        cannot resolve); None for a law with a density part (the default).

        A composed loss on such a lattice has masses :math:`q_j \approx h
        f_Q(l_j)`, :math:`f_Q` a smooth density (what CLT, Edgeworth and the
        saddle point approximate), and its profile
        :math:`\delta(\varepsilon) = \sum_j q_j (1 - e^{\varepsilon - l_j})_+`
        sums a function whose slope jumps by :math:`f_Q(\varepsilon)` at
        :math:`l = \varepsilon`. Euler--Maclaurin summation puts the sum and the
        integral :math:`h^2 f_Q(\varepsilon) \tilde B_2(\theta)/2` apart,
        :math:`\tilde B_2(\theta) = \theta^2 - \theta + 1/6` the periodic
        Bernoulli polynomial at the offset :math:`\theta` of
        :math:`\varepsilon` in its lattice cell: up to
        :math:`\tfrac{h^2}{12} f_Q(\varepsilon)`, whatever the number of
        compositions (Esseen's lattice expansion, Esseen (1945), Ch. IV).
        """
        return None

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        """Cumulants ``kappa_1 .. kappa_order`` of L under P or Q (fallback: central
        moments of the quadrature rule, :mod:`symfdp.numeric.moments`)."""
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        rule = self.plrv_quadrature()
        kappa, _ = weighted_cumulants(rule.nodes, rule.weights(under), order)
        return kappa

    def cgf(self, t: ArrayLike, under: Under = "P") -> FloatArray:
        """Cumulant generating function ``K(t) = log E[exp(t L)]`` (default under P)."""
        return self.cgf_derivatives(t, under)[0]

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(K(t), K'(t), K''(t))``, vectorised in ``t`` (fallback: the quadrature
        rule tilted in log space, :func:`tilted_cgf`)."""
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t)
        rule = self.plrv_quadrature()
        logw = rule.log_weights + (rule.nodes if under == "Q" else 0.0)
        k0, k1, k2 = tilted_cgf(rule.nodes, logw, ts)
        return scalar_or_array(k0), scalar_or_array(k1), scalar_or_array(k2)

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        r"""Mean and third absolute central moment of L under the tilted law
        :math:`\propto e^{tl}\,d\mathrm{Law}_{under}(l)`, vectorised in ``t``, for the
        saddle-point error bound (Alghamdi et al., CF-S7). The mean equals
        :math:`K'(t)` when the rule resolves the tilted law (callers compare them).
        Generic fallback: :meth:`plrv_quadrature` with weights tilted in log space.

        Returns:
            ``(mean, m3)``, each of the shape of ``t``.
        """
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t)
        rule = self.plrv_quadrature()
        logw = rule.log_weights + (rule.nodes if under == "Q" else 0.0)
        return tilted_abs_moment3(rule.nodes, logw, ts)

    def expect(self, fn: Callable[[FloatArray], ArrayLike], under: Under = "P") -> Any:
        """``E[fn(L)]`` under P or Q by the quadrature rule (``fn`` maps the array of
        nodes, leading axis, to values)."""
        check_callable("fn", fn)
        check_choice("under", under, ("P", "Q"))
        rule = self.plrv_quadrature()
        vals = np.asarray(fn(rule.nodes), dtype=np.float64)
        return np.tensordot(rule.weights(under), vals, axes=(0, 0))

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        """The exact trade-off ``T(P, Q)(alpha)``, where a closed form exists."""
        raise NotImplementedError(
            f"{type(self).__name__} has no closed-form trade-off; use an accountant "
            "(e.g. symfdp.accountants.Numerical().compose(m, n=1))."
        )

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r"""``delta(eps) = E_Q[(1 - e^{eps - L})_+]`` of this single pair, eps real
        (fallback: :math:`P_Q(L > \varepsilon) - e^{\varepsilon} P_P(L > \varepsilon)`,
        Zheng et al. 2020, Lemma 5.1, clipped to [0, 1])."""
        e = check_array("eps", eps, allow_inf=True)
        sf_q = np.asarray(self.plrv_sf(e, "Q"), dtype=np.float64)
        sf_p = np.asarray(self.plrv_sf(e, "P"), dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            log_second = np.where(sf_p > 0, e + np.log(sf_p), -np.inf)
            second = np.exp(log_second)
        return scalar_or_array(np.clip(sf_q - second, 0.0, 1.0))


def _other_measure(under: Under) -> Under:
    check_choice("under", under, ("P", "Q"))
    return "Q" if under == "P" else "P"


@dataclass(frozen=True)
class Swapped(Mechanism):
    r"""The pair ``(Q, P)`` of ``base = (P, Q)`` (here, beside
    :meth:`Mechanism.swapped` that builds it).

    Its PLRV is :math:`L' = \log dP/dQ = -L`, with :math:`L'` under :math:`P' = Q`
    distributed as :math:`-L` under Q, so :math:`P_{P'}(L' \le l) = P_Q(L \ge
    -l)`; :math:`\kappa_r(L' \mid P') = (-1)^r \kappa_r(L \mid Q)`;
    :math:`K_{P'}(t) = K_P(1 - t)` and :math:`K_{Q'}(t) = K_P(-t)`;
    :math:`T(Q, P) = T(P, Q)^{-1}` (Dong et al. 2019, Sec. 2.1)."""

    base: Mechanism

    name: ClassVar[str] = "swapped"
    PARAMS: ClassVar[dict[str, Param]] = {}

    def __post_init__(self) -> None:
        if not isinstance(self.base, Mechanism):
            raise TypeError(
                f"base must be a Mechanism. Found {type(self.base).__name__}."
            )

    @property
    def is_symmetric(self) -> bool:
        return self.base.is_symmetric

    @property
    def continuous_loss(self) -> bool:
        return self.base.continuous_loss

    def swapped(self) -> Mechanism:
        return self.base

    def plrv_pieces(self, cuts: Sequence[float]) -> list[Rule]:
        """``L' = -L`` under ``P' = Q``: the base's pieces at the mirrored cuts,
        values negated, weights ``w e^L``, in reverse order."""
        rules = self.base.plrv_pieces([-c for c in reversed(sorted(cuts))])
        return [(-v, w * np.exp(v)) for v, w in reversed(rules)]

    def complex_log_mgf(self) -> LogMGF | None:
        """:math:`M'(z) = M(-1-z)` of the base's."""
        inner = self.base.complex_log_mgf()
        return None if inner is None else ReflectedLogMGF(inner)

    def symmetric_minorant(self) -> Mechanism | None:
        """The base for a symmetric base (the same trade-off), else None."""
        return self.base if self.base.is_symmetric else None

    def rdp(self, orders: FloatArray) -> FloatArray | None:
        """The base's for a symmetric base (its swap has the same law), else
        the finite-law sum (:meth:`Mechanism.rdp`)."""
        return self.base.rdp(orders) if self.base.is_symmetric else super().rdp(orders)

    def gaussian_mu(self) -> float | None:
        r"""The base's: the law of :math:`G_\mu` is its own swap."""
        return self.base.gaussian_mu()

    def finite_loss_law(self) -> tuple[FloatArray, FloatArray] | None:
        """The base law reflected: values ``-l``, P-masses ``p e^l``."""
        law = self.base.finite_loss_law()
        if law is None:
            return None
        l, log_p = law
        return -l[::-1], (log_p + l)[::-1]

    def replace_one(self) -> Mechanism:
        """The base's (replace-one covers both directions)."""
        return self.base.replace_one()

    def loss_lattice(self) -> float | None:
        """``L' = -L``: the base lattice, reflected."""
        return self.base.loss_lattice()

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        return -self.base.log_likelihood_ratio(x)

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        return self.base.pdf(x, _other_measure(under))

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        neg = -check_array("l", l, allow_inf=True)
        return self.base.plrv_sf(neg, _other_measure(under), inclusive=inclusive)

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        neg = -check_array("l", l, allow_inf=True)
        return self.base.plrv_cdf(neg, _other_measure(under), inclusive=inclusive)

    def plrv_quadrature(self) -> PLRVQuadrature:
        rule = self.base.plrv_quadrature()
        # E_{P'}[h(L')] = E_Q[h(-L)] = sum_i w_i e^{l_i} h(-l_i).
        return PLRVQuadrature(-rule.nodes[::-1], (rule.log_weights + rule.nodes)[::-1])

    def plrv_support(self) -> tuple[float, float]:
        lo, hi = self.base.plrv_support()
        return (-hi, -lo)

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        kappa = np.asarray(
            self.base.cumulants(order, _other_measure(under)), dtype=np.float64
        )
        signs = (-1.0) ** np.arange(1, kappa.size + 1)
        return signs * kappa

    def cgf(self, t: ArrayLike, under: Under = "P") -> FloatArray:
        return self.cgf_derivatives(t, under)[0]

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        check_choice("under", under, ("P", "Q"))
        # K_{P'}(t) = K_P(1 - t); K_{Q'}(t) = K_{P'}(t + 1) = K_P(-t).
        shift = 1.0 if under == "P" else 0.0
        k, k1, k2 = self.base.cgf_derivatives(shift - check_array("t", t), "P")
        return k, -k1, k2

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        """``L' = -L`` and ``P' = Q``: the law under ``under`` tilted by ``t`` is
        the base law under the other measure tilted by ``-t``, reflected."""
        mean, m3 = self.base.tilted_abs_moment3(
            -check_array("t", t), _other_measure(under)
        )
        return -np.asarray(mean), m3

    def expect(self, fn: Callable[[FloatArray], ArrayLike], under: Under = "P") -> Any:
        check_callable("fn", fn)
        return self.base.expect(lambda l: fn(-l), _other_measure(under))

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        grid = alpha_grid()
        a = check_array("alpha", alpha, 0.0, 1.0)
        return tabulated_inverse(grid, self.base.tradeoff(grid), a)

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        # E_P[(1 - e^{eps + L})_+] = P_P(L < -eps) - e^eps P_Q(L < -eps).
        e = check_array("eps", eps, allow_inf=True)
        a = self.base.plrv_cdf(-e, "P", inclusive=False)
        b = self.base.plrv_cdf(-e, "Q", inclusive=False)
        return np.clip(a - np.exp(e) * b, 0.0, 1.0)

    def __repr__(self) -> str:
        return f"Swapped({self.base!r})"
