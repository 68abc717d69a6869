r"""``BerryEsseen``: the certified lower bound of Dong et al. (2019), ``berryrep``.

For symmetric trade-off functions :math:`f_1, \dots, f_n` (Dong et al. 2019,
Thm ``berryrep``; TARGETS CF-D8)

.. math::  \mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1 - \|\mathrm{kl}\|_2^2}},
           \qquad \gamma = \frac{0.56\,\|\bar\kappa_3\|_1}
           {(\|\kappa_2\|_1 - \|\mathrm{kl}\|_2^2)^{3/2}},

and, if :math:`\gamma < 1/2`,
:math:`f_1\otimes\cdots\otimes f_n(\alpha) \ge \max\{G_\mu(\alpha+\gamma) - \gamma, 0\}`
for every :math:`\alpha` (:math:`G_\mu = 0` beyond 1; 0.56 is Shevtsova's
constant, as in the paper). Functionals from :mod:`symfdp.functionals` (Lemma D.8 /
Cor. D.6 for pure DP, Lemma ``functionalGmurep`` for the subsampled Gaussian with
the flat-segment term of :math:`\bar\kappa_3` the printed lemma omits: finding
``dong2019-kappa3bar-flat-segment``; quadrature otherwise).

Components must be symmetric; a Poisson-subsampled mechanism contributes
:math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}`, below both directions, so the bound
holds for every ``pair`` (Dong et al. 2019, Sec. 3.1; Cor. ``SGDBerryrep``).

The trade-off is the certified lower bound, its profile the exact conjugate
:math:`1 + f_{lo}^*(-e^\varepsilon) \ge \delta_{true}(\varepsilon)`
(:class:`BerryEsseenLowerBound`), never below :math:`1 + \gamma - G_\mu(\gamma)`
(``epsilon`` raises ``ValueError`` there). For :math:`\gamma \ge 1/2` an
ApproximationWarning and the trivial bound :math:`f \ge 0`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

import numpy as np
from scipy import special

from symfdp._validation import check_real
from symfdp._warnings import warn_approximation
from symfdp.accountants.base import Components
from symfdp.accountants.gdp.base import GDPAccountant
from symfdp.curve import Answer, PairCurve, Query, invert_profile
from symfdp.functionals import (
    BERRY_ESSEEN_CONSTANT,
    MomentFunctionals,
    berry_esseen_mu_gamma,
    moment_functionals,
)
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.gaussian import gaussian_privacy_profile, gaussian_tradeoff
from symfdp.tradeoff import TradeOff


def _g_mu(mu: float, a: FloatArray) -> FloatArray:
    """G_mu extended by 1 below 0 and 0 above 1 (Dong et al. 2019, footnote 16)."""
    inside = np.clip(a, 0.0, 1.0)
    return np.where(a < 0, 1.0, np.where(a > 1, 0.0, gaussian_tradeoff(mu, inside)))


@dataclass(frozen=True)
class BerryEsseenLowerBound(TradeOff):
    r""":math:`f_{lo}(\alpha) = \max\{G_\mu(\alpha + \gamma) - \gamma, 0\}`.

    A trade-off function (convex, non-increasing, :math:`\le 1 - \alpha`) with the
    closed-form profile, for :math:`\beta^* = \Phi(-\varepsilon/\mu - \mu/2)` (the
    point where :math:`G_\mu' = -e^\varepsilon`) and
    :math:`\alpha_0 = G_\mu(\gamma) - \gamma` (where :math:`f_{lo}` reaches 0):

    .. math::
        1 + f_{lo}^*(-e^\varepsilon) = \begin{cases}
        \gamma(1 + e^\varepsilon) + \delta_{G_\mu}(\varepsilon)
            & \gamma \le \beta^* \le \alpha_0 + \gamma, \\
        1 + \gamma - G_\mu(\gamma) & \beta^* < \gamma, \\
        1 - e^\varepsilon \alpha_0 & \beta^* > \alpha_0 + \gamma,
        \end{cases}

    capped at 1 (:math:`\beta^*` clipped to :math:`[\gamma, \alpha_0 + \gamma]`).

    Attributes:
        mu: :math:`\mu \ge 0`.
        gamma: :math:`\gamma \in [0, 1/2)`.
    """

    mu: float
    gamma: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, 0.0))
        object.__setattr__(
            self, "gamma", check_real("gamma", self.gamma, 0.0, 0.5, hi_open=True)
        )

    def _eval(self, a: FloatArray) -> FloatArray:
        return np.maximum(_g_mu(self.mu, a + self.gamma) - self.gamma, 0.0)

    def _breakpoints(self) -> tuple[float, ...]:
        a0 = self.zero_at
        return (a0,) if 0.0 < a0 < 1.0 else ()

    @property
    def zero_at(self) -> float:
        r""":math:`\alpha_0 = G_\mu(\gamma) - \gamma` (clipped to [0, 1])."""
        g = float(_g_mu(self.mu, np.array(self.gamma)))
        return min(max(g - self.gamma, 0.0), 1.0)

    @property
    def floor(self) -> float:
        r""":math:`\lim_{\varepsilon\to\infty}\delta(\varepsilon) = \min\{1, 1 +
        \gamma - G_\mu(\gamma)\}`."""
        g = float(_g_mu(self.mu, np.array(self.gamma)))
        return min(1.0, 1.0 + self.gamma - g)

    def _profile(self, e: FloatArray) -> FloatArray:
        mu, gamma = self.mu, self.gamma
        a0 = self.zero_at
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if mu == 0.0:
                beta = np.where(e < 0, 1.0, np.where(e > 0, 0.0, gamma))
            else:
                beta = special.ndtr(-e / mu - mu / 2)
            inner = gamma * (1.0 + np.exp(e)) + gaussian_privacy_profile(mu, e)
            right = 1.0 - np.exp(e) * a0
        out = np.where(
            beta < gamma, self.floor, np.where(beta > a0 + gamma, right, inner)
        )
        return cast(
            FloatArray, np.clip(np.nan_to_num(out, nan=1.0, posinf=1.0), 0.0, 1.0)
        )


@dataclass(frozen=True)
class BerryEsseenPairCurve(PairCurve):
    """The Berry–Esseen lower bound as a :class:`~symfdp.curve.PairCurve`: the
    trade-off is a certified lower bound (``lower``), its profile and the
    profile's inverse certified upper bounds (``upper``)."""

    bound: BerryEsseenLowerBound
    info: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.TRADEOFF:
            beta = self.bound._eval(points)
            return Answer(beta, lower=beta)
        if query is Query.DELTA:
            values = self.bound._profile(points)
        else:
            values = self._epsilon(points)
        return Answer(values, upper=values)

    def _epsilon(self, d: FloatArray) -> FloatArray:
        r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le d`
        (vectorised bisection on the closed-form profile).

        Raises:
            ValueError: some ``delta`` is at or below the profile's floor.
        """
        floor = self.bound.floor
        if np.any(d <= floor):
            raise ValueError(
                "BerryEsseen certifies no finite epsilon for delta <= "
                f"{floor:.6g} = 1 + gamma - G_mu(gamma) (mu = {self.bound.mu:.6g}, "
                f"gamma = {self.bound.gamma:.6g}). Found delta = "
                f"{float(np.min(d)):g}; use accountants.Numerical."
            )
        return invert_profile(self.bound._profile, d)


@dataclass(frozen=True)
class TrivialPairCurve(PairCurve):
    r"""The trivial bound :math:`f \ge 0` (:math:`\delta \equiv 1`), returned when
    the Berry–Esseen bound is vacuous (:math:`\gamma \ge 1/2`)."""

    gamma: float
    info: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.EPSILON:
            raise ValueError(
                f"BerryEsseen is vacuous here (gamma = {self.gamma:.4g} >= 1/2): no "
                "finite epsilon is certified. Use accountants.Numerical."
            )
        if query is Query.DELTA:
            ones = np.ones(points.shape)
            return Answer(ones, upper=ones)
        zeros = np.zeros(points.shape)
        return Answer(zeros, lower=zeros)


def _symmetric_component(mechanism: Mechanism) -> Mechanism:
    """The mechanism whose (symmetric) trade-off lower-bounds this component's
    (:meth:`~symfdp.mechanisms.Mechanism.symmetric_minorant`)."""
    found = mechanism.symmetric_minorant()
    if found is None:
        raise ValueError(
            "BerryEsseen needs components with symmetric trade-off functions "
            f"(Dong et al. 2019, Thm berryrep). Found {mechanism!r}. "
            "accountants.Numerical (certified) serves every mechanism."
        )
    return found


@functools.lru_cache(maxsize=64)
def _functionals(components: Components) -> tuple[MomentFunctionals, ...]:
    """The functionals of each component's symmetric trade-off (cached: the
    identity check and the bound share them)."""
    return tuple(moment_functionals(_symmetric_component(m)) for m, _ in components)


class BerryEsseen(GDPAccountant):
    r"""Certified lower bound :math:`\max\{G_\mu(\alpha+\gamma)-\gamma, 0\}` on the
    trade-off of a composition (Dong et al. 2019, Sec. 3.2 ``berryrep``; Cor.
    ``SGDBerryrep``).

    ``curve.info`` holds ``mu``, ``gamma`` and ``vacuous`` (``gamma >= 1/2``).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = BerryEsseen().compose(M.PureDP(eps=0.1), n=100)
        >>> round(curve.info["mu"], 6), round(curve.info["gamma"], 6)
        (1.000417, 0.05621)
    """

    method = "BerryEsseen"
    name = "berry-esseen"
    guarantee = "bound"
    clips_to_loss_bound = False
    identity_summary = MappingProxyType({"mu": 0.0, "gamma": 0.0, "vacuous": False})

    def _is_identity(self, components: Components) -> bool:
        r"""No variance: :math:`\sum_i n_i(\kappa_2 - \mathrm{kl}^2) = 0`, from
        the functionals the bound uses (no cumulants needed)."""
        funcs = _functionals(components)
        counts = [k for _, k in components]
        var = sum(k * (f.kappa2 - f.kl**2) for f, k in zip(funcs, counts, strict=True))
        return not var > 0.0

    def compose_pair(self, components: Components) -> PairCurve:
        """The bound for the whole composition (its summary as ``info``)."""
        funcs = _functionals(components)
        counts = [k for _, k in components]
        mu, gamma = berry_esseen_mu_gamma(
            [f.kl for f in funcs],
            [f.kappa2 for f in funcs],
            [f.kappa3_bar for f in funcs],
            counts,
        )
        info: dict[str, Any] = {
            "mu": mu,
            "gamma": gamma,
            "constant": BERRY_ESSEEN_CONSTANT,
            "vacuous": gamma >= 0.5,
        }
        if gamma >= 0.5:
            warn_approximation(
                f"BerryEsseen: gamma = {gamma:.4g} >= 1/2, so the Berry-Esseen "
                "bound of Dong et al. (2019), Sec. 3.2, is vacuous here; the trivial "
                "lower bound f >= 0 (delta = 1) is returned. Use "
                "accountants.Numerical."
            )
            return TrivialPairCurve(gamma, info)
        bound = BerryEsseenLowerBound(mu, gamma)
        info["delta_floor"] = bound.floor
        return BerryEsseenPairCurve(bound, info)

    def __repr__(self) -> str:
        return "BerryEsseen()"
