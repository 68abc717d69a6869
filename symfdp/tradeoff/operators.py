r"""Operators on trade-off functions.

* :class:`Mixture` -- :math:`f_p = p f + (1-p)\mathrm{Id}` (Dong et al. 2019,
  Def. 4.1; the "add" pair of Poisson subsampling, Zheng et al. 2020, Lemma C.1);
* :class:`Inverse` -- :math:`f^{-1}` (Dong et al. 2019, eq. (4));
* :class:`Symmetrized` -- :math:`\min\{f, f^{-1}\}^{**}`;
* :class:`Subsampled` -- :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}` (Def. 4.1),
  with eq. (14) for symmetric :math:`f`;
* :class:`ScaledByDelta` -- :math:`f \otimes f_{0,\delta}` (eq. (13));
* :class:`GroupPrivacy` -- :math:`1 - (1-f)^{\circ k}` (Dong et al. 2019,
  Thm `groupthm`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from symfdp._validation import check_int, check_real
from symfdp.numeric.tabulate import alpha_grid, lower_convex_hull
from symfdp.tradeoff._base import FloatArray, TradeOff
from symfdp.tradeoff._gaussian_mixture import gaussian_mixture_inverse
from symfdp.tradeoff._numeric import EXP_CAP, golden_max
from symfdp.tradeoff.primitives import Gaussian, Identity, Laplace

#: Alternating tangent refinements of each bridge of a convex hull.
_BRIDGE_REFINEMENTS = 4


def check_tradeoff(name: str, value: Any) -> TradeOff:
    """Raise TypeError unless ``value`` is a :class:`TradeOff`."""
    if not isinstance(value, TradeOff):
        raise TypeError(f"{name} must be a TradeOff. Found {type(value).__name__}.")
    return value


def _check_p(p: Any) -> float:
    return check_real("p", p, 0.0, 1.0, lo_open=True)


# --------------------------------------------------------------------- Mixture
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
        object.__setattr__(self, "p", _check_p(self.p))

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
        and 0 otherwise (the sets :math:`A` in :math:`\sup_A P(A) - e^\varepsilon
        Q_p(A)` regroup as :math:`k P(A) - p e^\varepsilon Q(A)`)."""
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


# --------------------------------------------------------------------- Inverse
@dataclass(frozen=True)
class Inverse(TradeOff):
    r""":math:`f^{-1}(\alpha) = \inf\{t \in [0,1] : f(t) \le \alpha\}`, Dong et al.
    (2019), eq. (4); :math:`T(Q, P)` when :math:`f = T(P, Q)`.

    Args:
        base: The trade-off function :math:`f`.
    """

    base: TradeOff

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)

    @property
    def is_symmetric(self) -> bool:
        return self.base.is_symmetric

    def inverse(self) -> TradeOff:
        return self.base

    def _eval(self, a: FloatArray) -> FloatArray:
        return self.base._inverse_eval(a)

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        return self.base._eval(a)

    def _breakpoints(self) -> tuple[float, ...]:
        b = np.asarray(self.base._breakpoints(), dtype=np.float64)
        return tuple(float(v) for v in self.base._eval(b)) if b.size else ()

    def _profile(self, e: FloatArray) -> FloatArray:
        return self.base._inverse_profile(e)

    def _grid_profile(self, e: FloatArray) -> FloatArray:
        return self.base._grid_inverse_profile(e)

    def _inverse_profile(self, e: FloatArray) -> FloatArray:
        return self.base._profile(e)

    def _fixed_point(self) -> float:
        # f(a) = a iff f^{-1}(a) = a for a trade-off function (no flat part at a
        # positive level).
        return self.base._fixed_point()

    def _auc(self) -> float:
        # The region under the graph of f^{-1} is the mirror image of that of f.
        return self.base._auc()


# --------------------------------------------------------------------- Symmetrized
@dataclass(frozen=True)
class Symmetrized(TradeOff):
    r""":math:`\min\{f, f^{-1}\}^{**}`, the largest convex minorant of
    :math:`\min\{f, f^{-1}\}` (Dong et al. 2019, Def. 4.1 and App. F; Zheng et al.
    2020, Sec. 4, footnote 3).

    The hull is found on :func:`~symfdp.numeric.tabulate.alpha_grid` (plus the
    fixed point and the kinks of :math:`f`) with
    :func:`~symfdp.numeric.tabulate.lower_convex_hull`. Where the hull follows the
    curve, :math:`\min\{f, f^{-1}\}` is evaluated exactly; each bridge (a segment
    of the hull above which the curve lies) is refined to the common tangent by
    alternating golden-section searches for the tangent points, so the result is
    accurate far below the grid's resolution.

    Args:
        base: The trade-off function :math:`f` (usually asymmetric).
    """

    base: TradeOff

    def __post_init__(self) -> None:
        check_tradeoff("base", self.base)

    @property
    def is_symmetric(self) -> bool:
        return True

    def _lower(self, a: FloatArray) -> FloatArray:
        return np.minimum(self.base._eval(a), self.base._inverse_eval(a))

    @functools.cached_property
    def _bridges(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(left ends, right ends, intercepts, slopes) of the hull's bridges."""
        x_cross = float(self.base._fixed_point())  # where f and f^{-1} cross
        extra = [x_cross, *self.base._breakpoints()]
        extra += list(Inverse(self.base)._breakpoints())
        x = np.union1d(alpha_grid(), np.clip(np.asarray(extra, np.float64), 0.0, 1.0))
        h = self._lower(x)
        last = x.size - 1

        # The diagonal bridge. min{f, f^{-1}} is symmetric about the diagonal, hence
        # so is its hull: the bridge across the diagonal has slope exactly -1 and
        # touches at the minimisers of t + h(t) on either side of the crossing
        # (its intercept is 1 - TV, CF-D23). Found directly, it is resolved even
        # when narrower than the grid (p -> 1 in C_p).
        left = x <= x_cross
        k_l = int(np.argmin(np.where(left, x + h, np.inf)))
        k_r = int(np.argmin(np.where(~left, x + h, np.inf))) if (~left).any() else last
        minus_one = np.array([-1.0])
        a0, na0 = golden_max(
            lambda t: -t - self._lower(t),
            np.array([x[max(k_l - 1, 0)]]),
            np.array([min(x[min(k_l + 1, last)], x_cross)]),
            48,
        )
        b0, nb0 = golden_max(
            lambda t: -t - self._lower(t),
            np.array([max(x[max(k_r - 1, 0)], x_cross)]),
            np.array([x[min(k_r + 1, last)]]),
            48,
        )
        diag = (a0, b0, np.minimum(-na0, -nb0), minus_one)

        # Off-diagonal bridges of the grid hull: alternate between the chord
        # slope and the tangent points of that slope.
        xv, _ = lower_convex_hull(x, h)
        idx = np.searchsorted(x, xv)
        gap = np.diff(idx) > 1
        i, j = idx[:-1][gap], idx[1:][gap]
        off = (x[j] < a0[0]) | (x[i] > b0[0])
        i, j = i[off], j[off]
        # Bridges over stretches where h is itself linear (e.g. from f_{eps,delta})
        # are exact chords already and need no refinement.
        curved = np.array(
            [
                np.max(
                    h[ii + 1 : jj]
                    - (
                        h[ii]
                        + (h[jj] - h[ii]) / (x[jj] - x[ii]) * (x[ii + 1 : jj] - x[ii])
                    )
                )
                > 1e-14
                for ii, jj in zip(i, j, strict=True)
            ],
            dtype=bool,
        )
        lin_i, lin_j = i[~curved], j[~curved]
        lin_s = (h[lin_j] - h[lin_i]) / (x[lin_j] - x[lin_i])
        linear = (x[lin_i], x[lin_j], h[lin_i] - lin_s * x[lin_i], lin_s)
        diag = tuple(np.concatenate(q) for q in zip(diag, linear, strict=True))
        i, j = i[curved], j[curved]
        if i.size == 0:
            return _sorted_bridges(*diag)
        a_lo, a_hi = x[np.maximum(i - 1, 0)], x[np.minimum(i + 1, last)]
        b_lo, b_hi = x[np.maximum(j - 1, 0)], x[np.minimum(j + 1, last)]
        s = (h[j] - h[i]) / (x[j] - x[i])
        for r in range(_BRIDGE_REFINEMENTS):
            # Tangent point of slope s near each end: argmax of s t - h(t).
            a, neg_a = golden_max(lambda t, s=s: s * t - self._lower(t), a_lo, a_hi, 48)
            b, neg_b = golden_max(lambda t, s=s: s * t - self._lower(t), b_lo, b_hi, 48)
            if r < _BRIDGE_REFINEMENTS - 1:
                s = ((s * b - neg_b) - (s * a - neg_a)) / (b - a)
        # The supporting line of slope s lies below h at both tangent points.
        intercept = np.minimum(-neg_a, -neg_b)
        parts = zip(diag, (a, b, intercept, s), strict=True)
        return _sorted_bridges(*(np.concatenate(q) for q in parts))

    def _eval(self, a: FloatArray) -> FloatArray:
        left, right, intercept, slope = self._bridges
        out = np.empty_like(a)
        k = np.searchsorted(left, a, side="right") - 1
        kc = np.maximum(k, 0)
        on_bridge = (
            (k >= 0) & (a <= right[kc]) if left.size else np.zeros(a.shape, bool)
        )
        if on_bridge.any():
            kb = kc[on_bridge]
            out[on_bridge] = intercept[kb] + slope[kb] * a[on_bridge]
        rest = ~on_bridge
        if rest.any():
            out[rest] = self._lower(a[rest])
        return np.clip(out, 0.0, 1.0 - a)

    def _breakpoints(self) -> tuple[float, ...]:
        left, right, _, _ = self._bridges
        return tuple(float(v) for v in np.concatenate((left, right)))

    def _profile(self, e: FloatArray) -> FloatArray:
        # (min{f, g}^{**})^* = (min{f, g})^* = max{f^*, g^*}: delta is the larger
        # of the profiles of f and f^{-1} (the "add" and "remove" directions).
        return np.maximum(self.base._profile(e), self.base._inverse_profile(e))


def _sorted_bridges(
    left: FloatArray, right: FloatArray, intercept: FloatArray, slope: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    order = np.argsort(left)
    return left[order], right[order], intercept[order], slope[order]


# --------------------------------------------------------------------- Subsampled
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
        object.__setattr__(self, "p", _check_p(self.p))

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


# --------------------------------------------------------------------- ScaledByDelta
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


# --------------------------------------------------------------------- GroupPrivacy
@dataclass(frozen=True)
class GroupPrivacy(TradeOff):
    r""":math:`1 - (1-f)^{\circ k}`, the guarantee for groups of size :math:`k`
    (Dong et al. 2019, Thm `groupthm`; TARGETS ALG-17).

    Evaluated by iterating :math:`u \mapsto 1 - f(u)` :math:`k` times from
    :math:`u = \alpha`. For location families the family is closed:
    :math:`G_\mu \to G_{k\mu}` (Dong et al. 2019, proof of Thm `groupthm`) and likewise
    :math:`T(\mathrm{Lap}(0,1),\mathrm{Lap}(\mu,1)) \to` Laplace with :math:`k\mu`
    (Prop. A.3); these closed forms are used when the base is one of them (they
    are exact in the tails, where the iteration rounds ``1 - u`` to 0).

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
        # 1 - (1-f)^{o k}(a) = f((1-f)^{o (k-1)}(a)): the last step evaluates f
        # itself, which avoids the cancellation in 1 - u for u near 1.
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
        # Kinks of f come back as the preimages of the base's kinks under the
        # increasing maps u -> 1 - f(u) iterated j < k times; the preimage of b
        # under one step is f^{-1}(1 - b).
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
    unless :math:`\delta = 0` (see ``derivations/subsampling_eps_delta.py``).
    """
    from symfdp.tradeoff.primitives import EpsDelta
    from symfdp.tradeoff.tabulated import FromPrivacyProfile

    base = EpsDelta(eps, delta)
    p = _check_p(p)
    w = math.exp(min(base.eps, EXP_CAP))
    eps_prime = math.log1p(p * math.expm1(base.eps)) if base.eps < EXP_CAP else base.eps
    tv = (w - 1.0 + 2.0 * base.delta) / (w + 1.0)
    return FromPrivacyProfile([eps_prime, 0.0], [p * base.delta, p * tv])
