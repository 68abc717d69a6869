"""Operators on trade-off functions: :class:`Mixture`, :class:`Inverse`,
:class:`ScaledByDelta`, :class:`GroupPrivacy` (symmetrisation and sampling:
:mod:`.hull`, :mod:`.sampling`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from symfdp._validation import check_int, check_real
from symfdp.tradeoff._base import FloatArray, TradeOff, check_tradeoff
from symfdp.tradeoff._gaussian_mixture import gaussian_mixture_inverse
from symfdp.tradeoff._numeric import EXP_CAP
from symfdp.tradeoff.primitives import Gaussian, Identity, Laplace


def check_p(p: Any) -> float:
    """Validate a sampling rate / mixing weight p in (0, 1]."""
    return check_real("p", p, 0.0, 1.0, lo_open=True)


@dataclass(frozen=True)
class Mixture(TradeOff):
    r""":math:`f_p = p f + (1-p)\mathrm{Id}`, Dong et al. (2019), Def. 4.1.

    For :math:`f = T(P, Q)` this is :math:`T(P, (1-p)P + pQ)`; with
    :math:`f = G_\mu` it is Zheng et al. (2020), Lemma C.1.

    Args:
        base: The trade-off function :math:`f`.
        p: Mixing weight (sampling rate) in (0, 1].
    """

    base: TradeOff
    p: float

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)
        object.__setattr__(self, "p", check_p(self.p))

    @property
    def is_symmetric(self) -> bool:
        return isinstance(self.base, Identity) or (
            self.p == 1.0 and self.base.is_symmetric
        )

    def _eval(self, a: FloatArray) -> FloatArray:
        return self.p * self.base._eval(a) + (1.0 - self.p) * (1.0 - a)

    def _one_minus(self, a: FloatArray) -> FloatArray:
        return self.p * self.base._one_minus(a) + (1.0 - self.p) * a

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        if self.p == 1.0:
            return self.base._inverse_eval(a)
        if isinstance(self.base, Gaussian):
            return gaussian_mixture_inverse(self.base.mu, self.p, a)
        return super()._inverse_eval(a)

    def _breakpoints(self) -> tuple[float, ...]:
        return self.base._breakpoints()

    def _profile(self, e: FloatArray) -> FloatArray:
        r"""Dong et al. (2019), eq. (48): :math:`1 + f_p^*(y) = p(1 + f^*((1+y)/p-1))`.

        With :math:`y = -e^\varepsilon`: :math:`\delta_{f_p}(\varepsilon) =
        p\,\delta_f(\tilde\varepsilon)`, :math:`\tilde\varepsilon =
        \log(1 + (e^\varepsilon - 1)/p)`, when :math:`(1+y)/p - 1 < 0`;
        otherwise :math:`f^*(z) = z` and :math:`\delta = 1 - e^\varepsilon`.
        """
        p = self.p
        if p == 1.0:
            return self.base._profile(e)
        out = -np.expm1(e)  # the value where (1+y)/p - 1 >= 0
        em1 = np.expm1(e)
        inside = em1 > -p
        if inside.any():
            ei = e[inside]
            with np.errstate(divide="ignore"):
                # e >= 0: e - log p + log1p(-(1-p) e^{-e}) avoids overflow.
                big = ei - math.log(p) + np.log1p(-(1.0 - p) * np.exp(-np.abs(ei)))
                small = np.log1p(em1[inside] / p)
            et = np.where(ei >= 0.0, big, small)
            out[inside] = p * self.base._profile(np.clip(et, -EXP_CAP, EXP_CAP))
        return out

    def _inverse_profile(self, e: FloatArray) -> FloatArray:
        r""":math:`\delta_{f_p^{-1}}(\varepsilon) = E_{e^\varepsilon}(P \| (1-p)P + pQ)
        = k\,\delta_{f^{-1}}(\hat\varepsilon)` with :math:`k = 1 - (1-p)e^\varepsilon`
        and :math:`\hat\varepsilon = \log(p e^\varepsilon / k)` when :math:`k > 0`,
        else 0."""
        p = self.p
        if p == 1.0:
            return self.base._inverse_profile(e)
        k = -np.expm1(e + math.log1p(-p))
        out = np.zeros_like(e)
        pos = k > 0
        if pos.any():
            e_hat = math.log(p) + e[pos] - np.log(k[pos])
            inner = self.base._inverse_profile(np.clip(e_hat, -EXP_CAP, EXP_CAP))
            out[pos] = k[pos] * inner
        return out

    def _auc(self) -> float:
        return self.p * self.base._auc() + 0.5 * (1.0 - self.p)


@dataclass(frozen=True)
class ScaledByDelta(TradeOff):
    r""":math:`f \otimes f_{0,\delta}`, Dong et al. (2019), eq. (13):
    :math:`(1-\delta) f(\alpha/(1-\delta))` on :math:`[0, 1-\delta]` and 0 beyond.

    Args:
        base: The trade-off function :math:`f`.
        delta: :math:`\delta \in [0, 1]`.
    """

    base: TradeOff
    delta: float

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)
        object.__setattr__(self, "delta", check_real("delta", self.delta, 0.0, 1.0))

    @property
    def is_symmetric(self) -> bool:
        return self.base.is_symmetric

    def inverse(self) -> TradeOff:
        # (f x g)^{-1} = f^{-1} x g^{-1} (Dong et al. 2019, Sec. 3.1, property 4) and
        # f_{0,delta} is symmetric.
        return (
            self
            if self.is_symmetric
            else ScaledByDelta(self.base.inverse(), self.delta)
        )

    def _scaled(self, fn: Any, a: FloatArray, beyond: float) -> FloatArray:
        keep = 1.0 - self.delta
        out = np.full_like(a, beyond)
        inside = a <= keep
        if keep > 0.0 and inside.any():
            out[inside] = fn(np.minimum(a[inside] / keep, 1.0))
        return out

    def _eval(self, a: FloatArray) -> FloatArray:
        keep = 1.0 - self.delta
        return self._scaled(lambda u: keep * self.base._eval(u), a, 0.0)

    def _one_minus(self, a: FloatArray) -> FloatArray:
        keep = 1.0 - self.delta
        return self._scaled(
            lambda u: self.delta + keep * self.base._one_minus(u), a, 1.0
        )

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        keep = 1.0 - self.delta
        return self._scaled(lambda u: keep * self.base._inverse_eval(u), a, 0.0)

    def _breakpoints(self) -> tuple[float, ...]:
        keep = 1.0 - self.delta
        return (*(keep * b for b in self.base._breakpoints()), keep)

    def _profile(self, e: FloatArray) -> FloatArray:
        # sup_x 1 - e^e x - (1-d) f(x/(1-d)) = d + (1-d) delta_f(e), for all real e.
        return self.delta + (1.0 - self.delta) * self.base._profile(e)

    def _inverse_profile(self, e: FloatArray) -> FloatArray:
        return self.delta + (1.0 - self.delta) * self.base._inverse_profile(e)

    def _fixed_point(self) -> float:
        return (1.0 - self.delta) * self.base._fixed_point()

    def _auc(self) -> float:
        return (1.0 - self.delta) ** 2 * self.base._auc()


@dataclass(frozen=True)
class GroupPrivacy(TradeOff):
    r""":math:`1 - (1-f)^{\circ k}`, the guarantee for groups of size :math:`k`
    (Dong et al. 2019, Thm `groupthm`; TARGETS ALG-17).

    Iterates :math:`u \mapsto 1 - f(u)` :math:`k` times from :math:`u = \alpha`,
    except for closed families: :math:`G_\mu \to G_{k\mu}` (proof of Thm
    `groupthm`) and Laplace :math:`\mu \to k\mu` (Prop. A.3), exact in the tails.

    Args:
        base: The trade-off function :math:`f`.
        k: Group size, an integer >= 1.
    """

    base: TradeOff
    k: int

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)
        object.__setattr__(self, "k", check_int("k", self.k, lo=1))

    @functools.cached_property
    def closed_form(self) -> TradeOff | None:
        """The same function in closed form, when the family is closed (else None)."""
        base = self.base
        if self.k == 1:
            return base
        if isinstance(base, Gaussian):
            return Gaussian(self.k * base.mu)
        if isinstance(base, Laplace):
            return Laplace(self.k * base.mu)
        if isinstance(base, Identity):
            return base
        return None

    @property
    def is_symmetric(self) -> bool:
        return self.base.is_symmetric

    def inverse(self) -> TradeOff:
        # (f o^ g)^{-1} = g^{-1} o^ f^{-1} (Dong et al. 2019, App. A).
        return self if self.is_symmetric else GroupPrivacy(self.base.inverse(), self.k)

    def _iterate(self, one_minus: Any, a: FloatArray, times: int) -> FloatArray:
        u = a
        for _ in range(times):
            u = np.clip(one_minus(u), 0.0, 1.0)
        return u

    def _eval(self, a: FloatArray) -> FloatArray:
        cf = self.closed_form
        if cf is not None:
            return cf._eval(a)
        # The last step evaluates f itself: no cancellation in 1 - u near u = 1.
        return self.base._eval(self._iterate(self.base._one_minus, a, self.k - 1))

    def _one_minus(self, a: FloatArray) -> FloatArray:
        cf = self.closed_form
        if cf is not None:
            return cf._one_minus(a)
        return self._iterate(self.base._one_minus, a, self.k)

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        if self.is_symmetric:
            return self._eval(a)
        inv = self.base._inverse_eval
        return inv(self._iterate(lambda u: 1.0 - inv(u), a, self.k - 1))

    def _breakpoints(self) -> tuple[float, ...]:
        # Kinks: preimages of the base's kinks under u -> 1 - f(u), j < k times.
        cf = self.closed_form
        if cf is not None:
            return cf._breakpoints()
        b = np.asarray(self.base._breakpoints(), dtype=np.float64)
        out = [b]
        for _ in range(self.k - 1):
            b = self.base._inverse_eval(np.clip(1.0 - b, 0.0, 1.0))
            out.append(b)
        return tuple(float(v) for v in np.unique(np.concatenate(out)))

    def _profile(self, e: FloatArray) -> FloatArray:
        cf = self.closed_form
        return cf._profile(e) if cf is not None else self._grid_profile(e)

    def _fixed_point(self) -> float:
        cf = self.closed_form
        return cf._fixed_point() if cf is not None else super()._fixed_point()

    def _auc(self) -> float:
        cf = self.closed_form
        return cf._auc() if cf is not None else super()._auc()
