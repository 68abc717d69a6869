r"""Exponentially tilted FFT composition: small deltas with relative accuracy.

The FFT of :mod:`symfdp.pld.compose` bounds its round-off *absolutely*, relative
to the total mass 1, which swamps small tails :math:`\delta(\varepsilon)`.
Tilting moves the tail of interest into the bulk first. For
:math:`\lambda \ge 0` and discrete Q-masses :math:`q_{ik}` on points
:math:`l_{ik}`, let
:math:`M_i = \sum_k q_{ik} e^{\lambda l_{ik}}` and
:math:`\tilde q_{ik} = q_{ik} e^{\lambda l_{ik}} / M_i` (a probability vector).
Tilting commutes with convolution, so the composed masses are

.. math::  Q_j = \tilde Q_j\, e^{C - \lambda t_j}, \qquad
           C = \sum_i n_i \log M_i,

where :math:`\tilde Q` is the composition of the tilted masses, computed by the
same FFT with the same componentwise error bounds :math:`E_2, E_\infty`
(:mod:`symfdp.pld.compose`). With :math:`\lambda` chosen so that the tilted
composed mean is the :math:`\varepsilon^*` of interest, :math:`\tilde Q` carries
mass of order one there, and for :math:`t_{k-1} \le \varepsilon < t_k` the
error of :math:`\hat\delta(\varepsilon) = \sum_{j \ge k} Q_j (1 -
e^{\varepsilon - t_j})` is at most, with weights :math:`w_j = e^{C - \lambda t_j}`
(:math:`\|w\|_2 \le e^{C - \lambda t_k}/\sqrt{1 - e^{-2\lambda h}}`,
:math:`\|w\|_1 \le e^{C - \lambda t_k}/(1 - e^{-\lambda h})`),

.. math::  R_k = e^{C - \lambda t_k}\Bigl(\frac{E_2}{\sqrt{1 - e^{-2\lambda h}}}
           + \frac{E_\infty}{1 - e^{-\lambda h}} + \tilde W\Bigr)
           + \rho\, S_k,

relative to :math:`\delta` itself near :math:`\varepsilon^*`. Here
:math:`\tilde W` is a Chernoff bound on the *tilted* mass outside the window
(folded in at weight at most :math:`e^{C - \lambda t_k}`; at most
:math:`2 \cdot` :data:`TILTED_TAIL`) and :math:`\rho S_k` covers the rounding of
the tilt itself (:math:`S_k = \sum_{j \ge k} Q_j`). Masses are kept only from the
first point where :math:`R < 1`; below it the tilted sum misses non-negative
terms, so it is still a lower bound, and the upper bound is not used there. The
other allowances of :class:`symfdp.pld.certified.CertifiedPairCurve` are
properties of the discrete measures and are added unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from scipy import special

from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.roots import monotone_bisect
from symfdp.pld.compose import UNIT_ROUNDOFF, compose_fft
from symfdp.pld.discretise import DiscretePLD
from symfdp.pld.profile import DiscreteProfile
from symfdp.pld.window import Window, chernoff_window

#: Tilted mass allowed outside the window of a tilted composition, per side.
TILTED_TAIL = 1e-30


def _log_tilted(d: DiscretePLD, lam: float) -> tuple[Any, FloatArray, float]:
    """Where ``q > 0``, the log tilted masses ``log q_k + lam l_k`` there, and
    their log-sum-exp ``log M = log sum_k q_k e^{lam l_k}``."""
    keep = d.q > 0.0
    a = np.log(d.q[keep]) + lam * d.points[keep]
    return keep, a, float(special.logsumexp(a))


def _log_mgf(parts: Sequence[tuple[DiscretePLD, int]], lam: float) -> float:
    """``sum_i n_i log sum_k q_ik e^{lam l_ik}``."""
    return sum(n * _log_tilted(d, lam)[2] for d, n in parts)


def _mean_at(parts: Sequence[tuple[DiscretePLD, int]], lam: float) -> float:
    """The composed tilted mean ``sum_i n_i K_i'(lam)``."""
    total = 0.0
    for d, n in parts:
        keep, a, log_m = _log_tilted(d, lam)
        total += n * float(np.sum(np.exp(a - log_m) * d.points[keep]))
    return total


def tilt_for(
    parts: Sequence[tuple[DiscretePLD, int]], eps: float, lam_max: float = 1e4
) -> float:
    r"""The :math:`\lambda \in [0, \lambda_{max}]` whose tilted composed mean is
    ``eps`` (bisection on the increasing :math:`\sum_i n_i K_i'(\lambda)`; 0 when
    ``eps`` is at or below the untilted mean)."""
    if _mean_at(parts, 0.0) >= eps:
        return 0.0
    lo, hi = 0.0, 1.0
    while _mean_at(parts, hi) < eps and hi < lam_max:
        lo, hi = hi, min(2.0 * hi, lam_max)
    return _bisect(lambda lam: _mean_at(parts, lam), eps, lo, hi, False, 1e-9)


def tilt_for_delta(parts: Sequence[tuple[DiscretePLD, int]], log_delta: float) -> float:
    r"""A tilt for a target :math:`\delta`: the :math:`\lambda` where the Chernoff
    exponent :math:`C(\lambda) - \lambda C'(\lambda)` (the log of the bound on the
    Q-tail at the tilted mean :math:`C'`) equals ``log_delta`` (bisection; it
    decreases in :math:`\lambda`)."""

    def exponent(lam: float) -> float:
        return _log_mgf(parts, lam) - lam * _mean_at(parts, lam)

    lo, hi = 0.0, 1.0
    while exponent(hi) > log_delta and hi < 1e4:
        lo, hi = hi, 2.0 * hi
    return _bisect(exponent, log_delta, lo, hi, True, 1e-6)


def _bisect(
    fn: Callable[[float], float],
    target: float,
    lo: float,
    hi: float,
    decreasing: bool,
    rtol: float,
) -> float:
    """:func:`~symfdp.numeric.roots.monotone_bisect` of a scalar ``fn``."""
    root = monotone_bisect(
        lambda x: np.array([fn(float(x[0]))]),
        np.array([target]),
        lo,
        hi,
        decreasing=decreasing,
        xtol=0.0,
        rtol=rtol,
        max_iter=100,
    )
    return float(root[0])


@dataclass(frozen=True)
class TiltedProfile:
    r"""The composed Q-masses from a tilted FFT, untilted where usable.

    Attributes:
        lam: The tilt :math:`\lambda`.
        profile: Suffix sums of the untilted masses :math:`Q_j` from the first
            usable point ``start`` on (zero below).
        start: Index of the first lattice point whose masses are kept.
        error: Length ``N + 1``: the bound :math:`R_k` on cell ``k``
            (:math:`t_{k-1} \le \varepsilon < t_k`); ``inf`` below ``start``
            (:meth:`upper_extra`) or its value at ``start`` (:meth:`lower_extra`).
    """

    lam: float
    profile: DiscreteProfile
    start: int
    error: FloatArray

    def upper_extra(self, constant: float) -> FloatArray:
        """Allowance for an upper bound: ``inf`` where masses are missing, i.e.
        below ``start`` and on cell 0 (mass below the tilted window)."""
        out = self.error + constant
        out[: max(self.start, 1)] = np.inf
        return out

    def lower_epsilon(self, target: FloatArray, extra: FloatArray) -> FloatArray:
        r"""A lower bound on :math:`\varepsilon(d)` from the lower-bound profile
        :math:`\delta_{lo} = \hat\delta + \text{extra}` (``extra`` from
        :meth:`lower_extra`): the last lattice point where :math:`\delta_{lo} > d`
        (the true profile is non-increasing). ``-inf`` if none."""
        d = np.asarray(target, dtype=np.float64)
        grid = self.profile.grid_delta(extra)  # delta_lo at every lattice point
        best = np.maximum.accumulate(grid[::-1])[::-1]
        count = np.searchsorted(-best, -d, side="left")  # j with best_j > d
        pts = self.profile.points
        return np.where(count > 0, pts[np.maximum(count - 1, 0)], -np.inf)

    def lower_extra(self, constant: float) -> FloatArray:
        """Allowance for a lower bound (missing masses only lower it)."""
        out = self.error.copy()
        out[: self.start] = out[self.start]
        return cast(FloatArray, -(out + constant))


def _tilt_parts(
    parts: Sequence[tuple[DiscretePLD, int]], lam: float
) -> tuple[list[tuple[DiscretePLD, int]], float, float]:
    """Tilted, normalised component masses, ``C`` and the relative rounding
    ``rho`` of the tilt (each mass: log, exponent, exp; each log M_i; first
    order in the products of the composition)."""
    u = UNIT_ROUNDOFF
    tilted = []
    c_total = 0.0
    rho = 0.0
    for d, n in parts:
        keep, a, log_m = _log_tilted(d, lam)
        q = np.zeros(d.q.shape)
        q[keep] = np.exp(a - log_m)
        tilted.append(
            (DiscretePLD(d.h, d.origin, d.k_lo, q, 0.0, 0.0, False, d.kept), n)
        )
        c_total += n * log_m
        span = float(np.max(np.abs(d.points[keep])))
        rho += n * 8 * u * (2.0 + lam * span + abs(log_m))
    return tilted, c_total, rho


def compose_tilted(
    ups: Sequence[tuple[DiscretePLD, int]],
    lows: Sequence[tuple[DiscretePLD, int]],
    window: Window,
    lam: float,
    max_size: int,
) -> tuple[TiltedProfile, TiltedProfile]:
    """Compose the dominating and dominated ``parts`` tilted by ``lam``.

    The window is the Chernoff window of the *tilted* laws at mass
    :data:`TILTED_TAIL` per side (:func:`symfdp.pld.window.chernoff_window`),
    its upper end raised to ``window.hi`` (the untilted mass above it stays
    within ``window.outside``, added by the caller). Module docstring.

    Raises:
        ValueError: the window needs more than ``max_size`` points.
    """

    t_ups, c_up, rho_up = _tilt_parts(ups, lam)
    t_lows, c_low, rho_low = _tilt_parts(lows, lam)
    w = chernoff_window([t_ups, t_lows], TILTED_TAIL)
    tw = Window(w.lo, max(w.hi, window.hi), w.outside)
    return (
        _finish(t_ups, c_up, rho_up, tw, lam, max_size),
        _finish(t_lows, c_low, rho_low, tw, lam, max_size),
    )


def _finish(
    tilted: Sequence[tuple[DiscretePLD, int]],
    c_total: float,
    rho: float,
    window: Window,
    lam: float,
    max_size: int,
) -> TiltedProfile:
    u = UNIT_ROUNDOFF
    comp = compose_fft(tilted, window, max_size)
    size, h, t0 = comp.size, comp.h, comp.t0
    t = t0 + np.arange(size) * h
    l2 = comp.fft_l2 / math.sqrt(-math.expm1(-2.0 * lam * h))
    l1 = comp.fft_linf / -math.expm1(-lam * h)
    with np.errstate(over="ignore"):
        scale = np.exp(c_total - lam * t)
    raw = (l2 + l1 + window.outside) * scale  # R_k at t_k, without rho S_k
    usable = np.flatnonzero(raw < 1.0)
    start = int(usable[0]) if usable.size else size
    q = np.zeros(size)
    with np.errstate(over="ignore", under="ignore"):
        q[start:] = comp.q[start:] * scale[start:]
    profile = DiscreteProfile.from_masses(t0, h, q)
    position = 8 * u * (abs(t0) + size * h)
    rho += 4 * size * u + (1.0 + lam) * position + 4 * u * (abs(c_total) + 1.0)
    # Cell k (t_{k-1} <= eps < t_k) sums the points j >= k; the top cell none.
    error = np.zeros(size + 1)
    error[:size] = np.where(np.arange(size) >= start, raw, np.inf)
    error[:size] += 1.01 * rho * profile.suffix[:size]
    return TiltedProfile(lam, profile, start, error)
