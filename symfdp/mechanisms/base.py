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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._validation import (
    check_array,
    check_callable,
    check_choice,
    check_int,
    scalar_or_array,
)
from symfdp.mechanisms._panels import Rule, split_rule

if TYPE_CHECKING:
    from symfdp.mechanisms._complex_mgf import LogMGF

Under = Literal["P", "Q"]
Pair = Literal["add", "remove", "both"]
FloatArray = NDArray[np.float64]


#: Largest cumulant order served: Edgeworth of the largest order J = 64
#: (:func:`symfdp._validation.check_order`) needs kappa_1..kappa_{J+2}.
MAX_CUMULANT_ORDER: Final = 66


class QuadratureLimitError(ValueError):
    """A quadrature rule would need more nodes than its memory guard allows (a
    CGF tilt far out in the tail)."""


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
            ValueError: the mechanism cannot say what replace-one neighbours
                are (the default: a pair given by its densities or PMFs).
        """
        raise ValueError(
            f"adjacency='replace_one' is not defined for {self!r}: a pair given "
            "by its densities, PMFs or privacy loss does not say how replacing a "
            "record moves it. Build the replace-one dominating pair itself (e.g. "
            "with M.from_pmfs or M.from_densities) and compose it with "
            "adjacency='add_or_remove'."
        )

    def swapped(self) -> Mechanism:
        """The pair ``(Q, P)``: its trade-off is the inverse ``f^{-1}``."""
        from symfdp.mechanisms.swapped import Swapped

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
        from symfdp.numeric.moments import weighted_cumulants

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


def tilted_cgf(
    nodes: ArrayLike, log_weights: ArrayLike, t: ArrayLike, *, chunk: int = 4_000_000
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""``(K, K', K'')`` of a discrete law at each ``t``, in log space:
    :math:`K(t) = \log \sum_i e^{\log w_i + t l_i}`, :math:`K'` and :math:`K''` the
    mean and variance under the tilted weights (no cancellation); chunked over ``t``."""
    l = np.asarray(nodes, dtype=np.float64)
    logw = np.asarray(log_weights, dtype=np.float64)
    ts = np.asarray(t, dtype=np.float64)
    flat = ts.reshape(-1)
    k0 = np.empty(flat.size)
    k1 = np.empty(flat.size)
    k2 = np.empty(flat.size)
    step = max(1, chunk // max(l.size, 1))
    for start in range(0, flat.size, step):
        tt = flat[start : start + step, None]
        with np.errstate(invalid="ignore"):
            a = logw[None, :] + tt * l[None, :]
        a = np.where(np.isnan(a), -np.inf, a)
        amax = a.max(axis=1, keepdims=True)
        e = np.exp(a - amax)
        s = e.sum(axis=1)
        wt = e / s[:, None]
        m1 = wt @ l
        k0[start : start + step] = amax[:, 0] + np.log(s)
        k1[start : start + step] = m1
        k2[start : start + step] = (wt * (l[None, :] - m1[:, None]) ** 2).sum(axis=1)
    shape = ts.shape
    return k0.reshape(shape), k1.reshape(shape), k2.reshape(shape)


def tilted_abs_moment3(
    nodes: ArrayLike, log_weights: ArrayLike, t: ArrayLike, *, chunk: int = 4_000_000
) -> tuple[FloatArray, FloatArray]:
    r"""Mean and :math:`E|l - \text{mean}|^3` of a discrete law tilted by
    :math:`e^{tl}`, at each ``t``, with weights normalised in log space;
    non-finite nodes (atoms at infinity) are left out. Chunked like
    :func:`tilted_cgf`."""
    l = np.asarray(nodes, dtype=np.float64)
    logw = np.asarray(log_weights, dtype=np.float64)
    keep = np.isfinite(l)
    l, logw = l[keep], logw[keep]
    ts = np.asarray(t, dtype=np.float64)
    flat = ts.reshape(-1)
    mean = np.empty(flat.size)
    m3 = np.empty(flat.size)
    for block, w in tilted_weight_blocks(l, logw, flat, chunk):
        mu = w @ l
        mean[block] = mu
        m3[block] = (w * np.abs(l[None, :] - mu[:, None]) ** 3).sum(1)
    return mean.reshape(ts.shape), m3.reshape(ts.shape)


def tilted_weight_blocks(
    nodes: FloatArray, log_weights: FloatArray, t: FloatArray, chunk: int
) -> Iterator[tuple[slice, FloatArray]]:
    r"""The normalised tilted weights :math:`\tilde w_{ij} \propto e^{\log w_j +
    t_i l_j}` of finite ``nodes`` for the 1-d ``t``, in blocks of at most
    ``chunk`` entries (tilts x nodes): ``(slice of t, weights)`` per block, each
    row shifted by its maximum before the exponential (no overflow)."""
    step = max(1, chunk // max(nodes.size, 1))
    for start in range(0, t.size, step):
        a = log_weights[None, :] + t[start : start + step, None] * nodes[None, :]
        a = a - a.max(axis=1, keepdims=True)
        w = np.exp(a)
        w /= w.sum(axis=1, keepdims=True)
        yield slice(start, start + step), w
