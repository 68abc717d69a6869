r"""``RDP``: the Rényi-DP ("moments") accountant, as DP-SGD libraries used it in 2019.

:math:`D_\alpha(Q \| P) = \frac{1}{\alpha - 1} \log E_P[e^{\alpha L}]`,
:math:`L = \log dQ/dP`, :math:`\alpha > 1`, adds over a composition (Mironov 2017,
Prop. 1); the accountant sums it at fixed orders and converts the total once.

Mechanisms: :func:`rdp_gaussian` (Mironov 2017), :func:`rdp_pure_dp`, and the
Poisson-subsampled Gaussian (rate :math:`q`, :math:`\mu = 1/\sigma`, :math:`m(x) =
1 - q + q e^{\mu x - \mu^2/2}`, :math:`X \sim N(0,1)`): :math:`D_\alpha =
\log A_\alpha/(\alpha-1)`, :math:`A_\alpha = E[m(X)^\alpha]` (add pair; remove:
exponent :math:`1-\alpha`), at integer :math:`\alpha` the binomial sum of Mironov,
Talwar and Zhang (2019), Sec. 3.3, :math:`A_\alpha = \sum_k \binom{\alpha}{k}
(1-q)^{\alpha-k} q^k e^{(k^2-k)\mu^2/2}`, else :func:`log_mixture_moment`.
``pair="both"``: per order, the larger of the two directions' composed totals.

Conversion of a composed curve :math:`R(\alpha_j)` to :math:`(\varepsilon, \delta)`:

``conversion="classic"`` (2019 tensorflow/privacy; Mironov 2017, Prop. 3)
    :math:`\varepsilon(\delta) = \min_j R(\alpha_j) + \log(1/\delta)/(\alpha_j - 1)`,
    :math:`\delta(\varepsilon) = \min_j \exp((\alpha_j - 1)(R(\alpha_j) -
    \varepsilon))`.

``conversion="improved"`` (Canonne, Kamath and Steinke 2020, Prop. 12)
    :math:`\delta(\varepsilon) = \min_j \exp((\alpha_j-1)(R - \varepsilon +
    \log(1 - 1/\alpha_j)) - \log\alpha_j)`.

Both cap :math:`\delta(0) = \mathrm{TV} \le \sqrt{1 - e^{-R(\alpha_j)}}`
(Bretagnolle–Huber) and are valid upper bounds (never tight for the subsampled
Gaussian). The trade-off is that of the family :math:`\{(\varepsilon,
\delta(\varepsilon))\}` (Dong et al. 2019, Prop. 2.8; Zheng et al. 2020, Prop. 2.4),
in closed form per order (:meth:`RDPPairCurve.tradeoff`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_choice
from symfdp.accountants.base import (
    Components,
    OnePairAccountant,
    normalize_composition,
    pair_compositions,
)
from symfdp.curve import Answer, PairCurve, Query
from symfdp.mechanisms._rdp import _check_orders
from symfdp.mechanisms._rdp import log_mixture_moment as log_mixture_moment
from symfdp.mechanisms._rdp import rdp_gaussian as rdp_gaussian
from symfdp.mechanisms._rdp import rdp_pure_dp as rdp_pure_dp
from symfdp.mechanisms._rdp import rdp_subsampled_gaussian as rdp_subsampled_gaussian
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.tradeoff import FromPrivacyProfile

#: The orders of the 2019 tensorflow/privacy MNIST DP-SGD tutorial.
TUTORIAL_2019_ORDERS: Final[tuple[float, ...]] = tuple(
    [1.0 + x / 10.0 for x in range(1, 100)] + [float(a) for a in range(12, 64)]
)
#: Default orders: the tutorial's and a few large ones (for small delta).
DEFAULT_ORDERS: Final[tuple[float, ...]] = (
    *TUTORIAL_2019_ORDERS,
    128.0,
    256.0,
    512.0,
    1024.0,
)
#: Conversions from RDP to (eps, delta).
CONVERSIONS: Final = ("classic", "improved")
#: Points of alpha per (alpha x orders) block of the trade-off evaluation.
_CHUNK: Final = 8192


# ----------------------------------------------------------------- per step
def rdp_of_pair(mechanism: Mechanism, orders: ArrayLike) -> FloatArray:
    """RDP of one dominating pair (one direction) at ``orders``: the
    mechanism's ``rdp`` capability; ``ValueError`` where it has none."""
    a = _check_orders(orders)
    out = mechanism.rdp(a)
    if out is None:
        raise ValueError(
            "RDP supports mechanisms with a closed-form Renyi divergence (Gaussian, "
            "pure DP, Poisson-subsampled Gaussian) or finitely many privacy losses. "
            f"Found {type(mechanism).__name__}. accountants.Numerical (certified) "
            "and accountants.SaddlePoint serve every mechanism."
        )
    return out


# ----------------------------------------------------------------- conversion
def _log_delta_terms(
    orders: FloatArray, rdp: FloatArray, eps: FloatArray, conversion: str
) -> FloatArray:
    """log delta(eps) per (eps, order), shape ``eps.shape + (orders.size,)``."""
    e = eps[..., None]
    am1 = orders - 1.0
    if conversion == "classic":
        return am1 * (rdp - e)
    return am1 * (rdp - e + np.log1p(-1.0 / orders)) - np.log(orders)


def delta_from_rdp(
    orders: ArrayLike, rdp: ArrayLike, eps: ArrayLike, conversion: str = "classic"
) -> FloatArray:
    r""":math:`\delta(\varepsilon)` from an RDP curve (module docstring)."""
    a = _check_orders(orders)
    r = check_array("rdp", rdp, 0.0, math.inf)
    check_choice("conversion", conversion, CONVERSIONS)
    e = np.asarray(eps, dtype=np.float64)
    log_d = np.min(_log_delta_terms(a, r, e, conversion), axis=-1)
    if conversion == "improved":
        # Bretagnolle-Huber cap on delta(0) = TV, valid for eps >= 0.
        with np.errstate(divide="ignore"):
            cap = 0.5 * np.log(-np.expm1(-np.min(r)))
        log_d = np.where(e >= 0.0, np.minimum(log_d, cap), log_d)
    return cast(FloatArray, np.exp(np.minimum(log_d, 0.0)))


def epsilon_from_rdp(
    orders: ArrayLike, rdp: ArrayLike, delta: ArrayLike, conversion: str = "classic"
) -> FloatArray:
    r""":math:`\varepsilon(\delta) \ge 0` from an RDP curve (module docstring)."""
    a = _check_orders(orders)
    r = check_array("rdp", rdp, 0.0, math.inf)
    check_choice("conversion", conversion, CONVERSIONS)
    d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)[..., None]
    if conversion == "classic":
        eps = r - np.log(d) / (a - 1.0)
    else:
        eps = r + np.log1p(-1.0 / a) - (np.log(d) + np.log(a)) / (a - 1.0)
        eps = np.where(d * d + np.expm1(-r) >= 0.0, 0.0, eps)
    return cast(FloatArray, np.maximum(np.min(eps, axis=-1), 0.0))


def optimal_order(
    orders: ArrayLike, rdp: ArrayLike, delta: float, conversion: str = "classic"
) -> float:
    """The order at which :func:`epsilon_from_rdp` attains its minimum."""
    a = _check_orders(orders)
    r = np.asarray(rdp, dtype=np.float64)
    if conversion == "classic":
        eps = r - math.log(delta) / (a - 1.0)
    else:
        eps = r + np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0)
    return float(a[int(np.argmin(eps))])


# ----------------------------------------------------------------- curve
@dataclass(frozen=True, eq=False)
class RDPPairCurve(PairCurve):
    """Profile, inverse and trade-off of a composed RDP curve ``rdp`` at
    ``orders`` under ``conversion``: bounds (the profile and its inverse from
    above, the trade-off from below), no error estimate."""

    orders: FloatArray
    rdp: FloatArray
    conversion: str = "classic"
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.TRADEOFF:
            beta = self.tradeoff(points)
            return Answer(beta, lower=beta)
        if query is Query.DELTA:
            values = self.delta(points)
        else:
            values = self.epsilon(points)
        return Answer(values, upper=values)

    def delta(self, eps: ArrayLike) -> FloatArray:
        return delta_from_rdp(self.orders, self.rdp, eps, self.conversion)

    def epsilon(self, delta: ArrayLike) -> FloatArray:
        return epsilon_from_rdp(self.orders, self.rdp, delta, self.conversion)

    def _log_c(self) -> FloatArray:
        """log C_j of delta_j(eps) = C_j exp(-(alpha_j - 1) eps)."""
        am1 = self.orders - 1.0
        if self.conversion == "classic":
            return am1 * self.rdp
        return am1 * (self.rdp + np.log1p(-1.0 / self.orders)) - np.log(self.orders)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r"""Trade-off of the family :math:`\{(\varepsilon, \delta(\varepsilon))\}`
        (Dong et al. 2019, Prop. 2.8), exactly: per order (:math:`\delta =
        C e^{-(a-1)\varepsilon}`) the best line has :math:`e^{\varepsilon} =
        \max\{1, ((a-1)C/x)^{1/a}\}`, the best mirrored line :math:`e^{-\varepsilon}
        = \min\{1, ((1-x)/(aC))^{1/(a-1)}\}`; the max over orders, clipped at 0."""
        x = np.asarray(alpha, dtype=np.float64)
        flat = x.reshape(-1)
        out = np.empty_like(flat)
        for i in range(0, flat.size, _CHUNK):  # bounded (alpha x orders) memory
            out[i : i + _CHUNK] = self._tradeoff_flat(flat[i : i + _CHUNK])
        return out.reshape(x.shape)

    def _tradeoff_flat(self, flat_alpha: FloatArray) -> FloatArray:
        flat = flat_alpha[:, None]
        a, log_c = self.orders[None, :], self._log_c()[None, :]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_x, log_1mx = np.log(flat), np.log1p(-flat)
            # Lines 1 - C u^{-(a-1)} - u x with u = e^eps >= 1.
            log_u = np.maximum((np.log(a - 1.0) + log_c - log_x) / a, 0.0)
            left = 1.0 - np.exp(log_c - (a - 1.0) * log_u) - np.exp(log_u + log_x)
            left = np.where(flat == 0.0, 1.0, left)
            # Mirrored lines v (1 - x) - C v^a with v = e^{-eps} <= 1.
            log_v = np.minimum((log_1mx - np.log(a) - log_c) / (a - 1.0), 0.0)
            right = np.exp(log_v + log_1mx) - np.exp(log_c + a * log_v)
            right = np.where(flat == 1.0, 0.0, right)
        left = np.where(np.isnan(left), -np.inf, left)
        right = np.where(np.isnan(right), -np.inf, right)
        best = np.maximum(np.max(left, axis=1), np.max(right, axis=1))
        if self.conversion == "improved":
            d0 = float(self.delta(np.array(0.0)))
            best = np.maximum(best, 1.0 - d0 - flat_alpha)
        return cast(FloatArray, np.clip(best, 0.0, 1.0 - flat_alpha))

    def family(self, eps: ArrayLike) -> Any:
        """:class:`~symfdp.tradeoff.FromPrivacyProfile` of ``(eps, delta(eps))``."""

        e = check_array("eps", eps, 0.0, math.inf)
        return FromPrivacyProfile(e, self.delta(e))


class RDP(OnePairAccountant):
    r"""Rényi-DP accountant (the "moments accountant" of Abadi et al. 2016, RDP
    form); a valid bound, looser than ``Numerical``'s.

    Args:
        orders: Orders :math:`\alpha > 1` (default :data:`DEFAULT_ORDERS`;
            :data:`TUTORIAL_2019_ORDERS` reproduces the 2019 tutorial).
        conversion: ``"classic"`` (default, the 2019 conversion) or
            ``"improved"`` (Canonne, Kamath and Steinke 2020).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = RDP().compose(M.Gaussian(mu=1.0), n=4)
        >>> round(float(curve.info["rdp"][9]), 12)  # order 2: 4 * 2 * 1 / 2
        4.0
    """

    method = "rdp"
    guarantee = "bound"
    #: By name, ``rdp`` converts as Opacus and dp-accounting do ("improved").
    name_options: ClassVar[dict[str, Any]] = {"conversion": "improved"}
    warns_out_of_range = False
    identity_without_variance = False
    warn_rel_error = None  # a bound: no error estimate to warn about

    def __init__(
        self, orders: Sequence[float] | None = None, conversion: str = "classic"
    ) -> None:
        self.orders = _check_orders(DEFAULT_ORDERS if orders is None else orders)
        self.orders.setflags(write=False)
        self.conversion = check_choice("conversion", conversion, CONVERSIONS)

    def renyi(
        self,
        mechanism: Mechanism | Sequence[tuple[Mechanism, int]],
        n: int | None = None,
    ) -> FloatArray:
        """Composed RDP at :attr:`orders` (max over the adjacency directions)."""
        return self._renyi(normalize_composition(mechanism, n))

    def _renyi(self, components: Components) -> FloatArray:
        return cast(
            FloatArray,
            np.max(
                [self._direction_rdp(c) for c in pair_compositions(components)], axis=0
            ),
        )

    def _direction_rdp(self, components: Components) -> FloatArray:
        total = np.zeros_like(self.orders)
        for m, k in components:
            total += k * rdp_of_pair(m, self.orders)
        return total

    def compose_pair(self, components: Components) -> RDPPairCurve:
        """The RDP curve of the whole composition (its ``info``: ``orders``,
        ``rdp``, ``conversion``)."""
        rdp = self._renyi(components)
        rdp.setflags(write=False)
        info = {"orders": self.orders, "rdp": rdp, "conversion": self.conversion}
        return RDPPairCurve(self.orders, rdp, self.conversion, info)
