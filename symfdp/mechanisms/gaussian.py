r"""The Gaussian mechanism: :math:`P = N(0, 1)`, :math:`Q = N(\mu, 1)`,
:math:`\mu = \Delta / \sigma` (Dong et al. 2019, Thm 2.5; ``Gaussian(sigma=s)``
means unit sensitivity). :math:`L(x) = \mu x - \mu^2/2 \sim N(\mp\mu^2/2, \mu^2)`
under P and Q."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import (
    check_array,
    check_callable,
    check_choice,
    check_int,
    check_real,
)
from symfdp.mechanisms._complex_mgf import GaussianLogMGF
from symfdp.mechanisms._panels import Rule, fixed_panels, split_rule
from symfdp.mechanisms._rdp import rdp_gaussian
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    Under,
)

#: Half-width, in standard deviations, of the trapezoid quadrature rule.
_QUAD_HALF_WIDTH = 14.0
#: Step of the trapezoid rule in standard deviations (error ~ exp(-2 pi^2 / h^2)).
_QUAD_STEP = 0.05


def gaussian_privacy_profile(mu: float, eps: ArrayLike) -> FloatArray:
    r""":math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon
    \Phi(-\varepsilon/\mu - \mu/2)`, Dong et al. (2019), Cor. 2.13 (GDP to DP), in
    log space (full relative precision for tiny deltas)."""
    e = np.asarray(eps, dtype=np.float64)
    if mu == 0.0:
        return np.where(e < 0, -np.expm1(e), 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # For tiny mu, e/mu overflows; log_a = -inf then means A = 0, so delta = 0.
        log_a = special.log_ndtr(-e / mu + mu / 2)
        log_b = e + special.log_ndtr(-e / mu - mu / 2)
        out = np.exp(log_a) * -np.expm1(np.minimum(log_b - log_a, 0.0))
    return np.where(np.isneginf(log_a), 0.0, out)


def gaussian_tradeoff(mu: float, alpha: ArrayLike) -> FloatArray:
    r""":math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`, Dong et al. (2019),
    eq. (6), evaluated as :math:`\Phi(-\Phi^{-1}(\alpha) - \mu)` (tail-stable
    for small :math:`\alpha`)."""
    a = np.asarray(alpha, dtype=np.float64)
    return cast(FloatArray, special.ndtr(-special.ndtri(a) - mu))


#: Half-width (standard deviations) of the output space of ``plrv_pieces``.
PIECES_HALF_WIDTH = 16.0


@dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian mechanism ``N(0,1)`` vs ``N(mu,1)``; give ``mu`` or ``sigma``.

    Args:
        mu: Effect size (sensitivity / noise standard deviation), ``mu >= 0``.
        sigma: Noise multiplier at unit sensitivity, ``sigma > 0`` (``mu = 1/sigma``).
    """

    # None only until __post_init__ derives it from sigma.
    mu: float = field(default=None)  # type: ignore[assignment]
    sigma: float | None = field(default=None, compare=False)

    name: ClassVar[str] = "gaussian"
    PARAMS: ClassVar[dict[str, Param]] = {
        "mu": Param("effect size Delta/sigma", (0.0, math.inf), (0.05, 5.0)),
    }

    def __post_init__(self) -> None:
        if self.mu is None and self.sigma is None:
            raise ValueError("Gaussian needs mu or sigma.")
        if self.mu is not None and self.sigma is not None:
            raise ValueError("give Gaussian either mu or sigma, not both.")
        if self.sigma is not None:
            sigma = check_real("sigma", self.sigma, 0.0, math.inf, lo_open=True)
            object.__setattr__(self, "mu", 1.0 / sigma)
        else:
            object.__setattr__(self, "mu", check_real("mu", self.mu, 0.0))

    @property
    def continuous_loss(self) -> bool:
        """L is normal for ``mu > 0`` (an atom at 0 for ``mu = 0``)."""
        return self.mu > 0

    def gaussian_mu(self) -> float:
        return self.mu

    def rdp(self, orders: FloatArray) -> FloatArray:
        """:func:`~symfdp.mechanisms._rdp.rdp_gaussian`."""
        return rdp_gaussian(float(self.mu), orders)

    def plrv_pieces(self, cuts: Sequence[float]) -> list[Rule]:
        r"""Panels in :math:`x` (:math:`L = \mu x - \mu^2/2`, :math:`x \sim N(0,1)`
        under P) over :math:`\pm(16 + \mu)` with an edge at every cut."""
        cuts = sorted(cuts)
        mu = self.mu
        if mu == 0.0:
            return split_rule((np.zeros(1), np.ones(1)), cuts)
        lo_x, hi_x = -PIECES_HALF_WIDTH - mu, mu + PIECES_HALF_WIDTH
        xs = [min(max((c + mu * mu / 2) / mu, lo_x), hi_x) for c in cuts]
        edges = [lo_x, *xs, hi_x]
        out = []
        for a, b in itertools.pairwise(edges):
            x, w = fixed_panels(a, b)
            dens = w * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)
            out.append((mu * x - mu * mu / 2, dens))
        return out

    def complex_log_mgf(self) -> GaussianLogMGF | None:
        r""":math:`\mu^2 z(1+z)/2` (None at ``mu = 0``: an atom at 0)."""
        return GaussianLogMGF(float(self.mu)) if self.mu > 0 else None

    def replace_one(self) -> Gaussian:
        """Replacing a record moves the mean by twice the sensitivity:
        ``Gaussian(2 mu)`` (dp-accounting's ``REPLACE_ONE``)."""
        return Gaussian(mu=2.0 * self.mu)

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        return self.mu * check_array("x", x, allow_inf=True) - self.mu**2 / 2

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        shift = 0.0 if under == "P" else self.mu
        xs = check_array("x", x, allow_inf=True)
        return np.exp(-0.5 * (xs - shift) ** 2) / math.sqrt(2 * math.pi)

    def _standardise(self, l: ArrayLike, under: Under) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        return self._z(check_array("l", l, allow_inf=True), under)

    def _z(self, ls: FloatArray, under: Under) -> FloatArray:
        r""":math:`(l \pm \mu^2/2)/\mu`, ``+`` under P and ``-`` under Q: the
        validated ``ls`` standardised by the law's mean and deviation."""
        mean = -(self.mu**2) / 2 if under == "P" else self.mu**2 / 2
        return (ls - mean) / self.mu

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        if self.mu == 0.0:
            ls = check_array("l", l, allow_inf=True)
            return (ls >= 0).astype(float) if inclusive else (ls > 0).astype(float)
        return cast(FloatArray, special.ndtr(self._standardise(l, under)))

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        if self.mu == 0.0:
            ls = check_array("l", l, allow_inf=True)
            return (ls <= 0).astype(float) if inclusive else (ls < 0).astype(float)
        return cast(FloatArray, special.ndtr(-self._standardise(l, under)))

    def plrv_cdf_pq(
        self, l: ArrayLike, *, inclusive: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        """Both CDFs from one validation (the same values as :meth:`plrv_cdf`)."""
        return self._pq(l, inclusive, sf=False)

    def plrv_sf_pq(
        self, l: ArrayLike, *, inclusive: bool = False
    ) -> tuple[FloatArray, FloatArray]:
        """Both survival functions from one validation (as :meth:`plrv_sf`)."""
        return self._pq(l, inclusive, sf=True)

    def _pq(
        self, l: ArrayLike, inclusive: bool, *, sf: bool
    ) -> tuple[FloatArray, FloatArray]:
        """CDFs (``sf``: survival functions) under P and Q, standardised once
        each (:meth:`_z`)."""
        if self.mu == 0.0:
            both = super().plrv_sf_pq if sf else super().plrv_cdf_pq
            return both(l, inclusive=inclusive)
        ls = check_array("l", l, allow_inf=True)
        sign = -1.0 if sf else 1.0
        return (
            special.ndtr(sign * self._z(ls, "P")),
            special.ndtr(sign * self._z(ls, "Q")),
        )

    def plrv_quadrature(self) -> PLRVQuadrature:
        # Trapezoid rule in z = (L - kappa_1)/mu over a range that also covers the
        # Q-law N(mu^2/2, mu^2), i.e. z in [-W, mu + W].
        z = np.arange(-_QUAD_HALF_WIDTH, self.mu + _QUAD_HALF_WIDTH, _QUAD_STEP)
        log_w = -0.5 * z**2 - 0.5 * math.log(2 * math.pi) + math.log(_QUAD_STEP)
        return PLRVQuadrature(self.mu * z - self.mu**2 / 2, log_w)

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        out = np.zeros(order)
        out[0] = -(self.mu**2) / 2 if under == "P" else self.mu**2 / 2
        if order > 1:
            out[1] = self.mu**2
        return out

    def cumulant_exprs(self, order: int, under: Under = "P") -> list[Any]:
        """Exact cumulants as SymPy expressions in the symbol ``mu``
        (:func:`symfdp.symbolic.plrv.gaussian_cumulant_exprs`; imports SymPy)."""
        from symfdp.symbolic.plrv import gaussian_cumulant_exprs

        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        return gaussian_cumulant_exprs(order, check_choice("under", under, ("P", "Q")))

    def cgf(self, t: ArrayLike, under: Under = "P") -> FloatArray:
        return self.cgf_derivatives(t, under)[0]

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r""":math:`K_P(t) = \mu^2 t(t-1)/2` and :math:`K_Q(t) = K_P(t+1)`."""
        check_choice("under", under, ("P", "Q"))
        s = check_array("t", t) + (0.0 if under == "P" else 1.0)
        m2 = self.mu**2
        return m2 * s * (s - 1) / 2, m2 * (2 * s - 1) / 2, np.full_like(s, m2)

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        r"""Closed form: the tilted law is :math:`N(K'(t), \mu^2)`, so
        :math:`E|L - K'|^3 = 2\sqrt{2/\pi}\,\mu^3`."""
        k1 = np.asarray(self.cgf_derivatives(t, under)[1], dtype=np.float64)
        return k1, np.full(k1.shape, 2.0 * math.sqrt(2.0 / math.pi) * self.mu**3)

    def expect(self, fn: Callable[[FloatArray], ArrayLike], under: Under = "P") -> Any:
        check_callable("fn", fn)
        check_choice("under", under, ("P", "Q"))
        rule = self.plrv_quadrature()
        return np.tensordot(
            rule.weights(under), cast(NDArray[Any], fn(rule.nodes)), axes=(0, 0)
        )

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        return gaussian_tradeoff(self.mu, check_array("alpha", alpha, 0.0, 1.0))

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        return gaussian_privacy_profile(
            self.mu, check_array("eps", eps, allow_inf=True)
        )

    def __repr__(self) -> str:
        return f"Gaussian(mu={self.mu!r})"
