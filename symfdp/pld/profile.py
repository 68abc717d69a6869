r"""Privacy profile, inverse and trade-off of a discrete composed PLD.

For Q-masses :math:`q_j` on :math:`t_j = t_0 + j h` (:math:`j < N`), with the
suffix sums

.. math::  S_k = \sum_{j \ge k} q_j, \qquad A_k = \sum_{j \ge k} q_j e^{t_k - t_j},

the profile :math:`\delta(\varepsilon) = \sum_j q_j (1 - e^{\varepsilon - t_j})_+`
(Zheng et al. 2020, Lemma 5.1) is, for :math:`t_{k-1} \le \varepsilon < t_k`,

.. math::  \delta(\varepsilon) = S_k - e^{\varepsilon - t_k} A_k,

a difference of non-negative terms with :math:`e^{\varepsilon - t_k} \in
(e^{-h}, 1]`: no overflow for any real :math:`\varepsilon`. :math:`A` follows
:math:`A_k = q_k + e^{-h} A_{k+1}` (:func:`discounted_suffix_sums`).

Inside a cell :math:`\delta` is affine in :math:`e^{\varepsilon}`, so
:math:`1 - \delta(\varepsilon) - e^{\varepsilon}\alpha` is monotone there and its
supremum over :math:`\varepsilon \in \mathbb{R}` (the trade-off, Dong et al. 2019,
Prop. 2.4) is attained at a lattice point or at :math:`\varepsilon \to -\infty`; the
maximising point is where the P-mass above it,
:math:`\sigma_j = e^{-t_{j+1}} A_{j+1}`, crosses :math:`\alpha`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp.mechanisms.base import FloatArray

#: Largest ``h * block length`` of the blockwise discounted sums (no subnormal
#: products of masses >= 1e-300).
_BLOCK_SPAN = 10.0
#: Blocks up to this length keep their discount factors cached.
_CACHED_BLOCK = 2**20


def discounted_suffix_sums(q: FloatArray, h: float) -> FloatArray:
    r""":math:`A_k = \sum_{j \ge k} q_j e^{-(j-k)h}` for non-negative ``q``.

    Within a block of :math:`B` points starting at :math:`b`,
    :math:`A_k = e^{(k-b)h} \sum_{k \le j < b+B} q_j e^{-(j-b)h} + e^{-(b+B-k)h}
    A_{b+B}`: a reverse cumulative sum of non-negative terms (relative error
    :math:`O(Bu)`), with :math:`Bh \le 10` so that no term
    underflows. The blocks are chained from the top.
    """
    n = q.size
    out = np.empty(n)
    block = max(1, int(_BLOCK_SPAN / h))
    m = min(block, n)
    if m <= _CACHED_BLOCK:
        down, up = _discounts(h, m)
    else:
        down, up = _discounts.__wrapped__(h, m)
    carry = 0.0
    for start in range(((n - 1) // block) * block, -1, -block):
        stop = min(start + block, n)
        part = np.cumsum((q[start:stop] * down[: stop - start])[::-1])[::-1]
        out[start:stop] = part * up[: stop - start]
        if carry:
            if block <= _CACHED_BLOCK:
                tail = _carry_discounts(h, block)
            else:
                tail = _carry_discounts.__wrapped__(h, block)
            out[start:stop] += carry * tail[: stop - start]
        carry = out[start]
    return out


@functools.lru_cache(maxsize=1)
def _discounts(h: float, m: int) -> tuple[FloatArray, FloatArray]:
    """``exp(-j h)`` and ``exp(j h)``, ``j < m`` (read-only, cached)."""
    j = np.arange(m) * h
    down, up = np.exp(-j), np.exp(j)
    down.setflags(write=False)
    up.setflags(write=False)
    return down, up


@functools.lru_cache(maxsize=1)
def _carry_discounts(h: float, block: int) -> FloatArray:
    """``exp(j h - block h)``, ``j < block`` (read-only, cached)."""
    val: FloatArray = np.exp(np.arange(block) * h - block * h)
    val.setflags(write=False)
    return val


@dataclass(frozen=True)
class DiscreteProfile:
    """Suffix-sum representation of a discrete composed PLD.

    ``extra`` (length ``N + 1``, non-increasing) is an additive allowance that
    holds on cell ``k`` (``t_{k-1} <= eps < t_k``); the profile evaluated is
    ``delta(eps) + extra[k]``.
    """

    t0: float
    h: float
    suffix: FloatArray  # S_k, length N + 1 (S_N = 0)
    tilted: FloatArray  # A_k, length N + 1 (A_N = 0)

    @classmethod
    def from_masses(cls, t0: float, h: float, q: FloatArray) -> DiscreteProfile:
        """Build the suffix sums of the non-negative masses ``q``."""
        q = np.maximum(np.asarray(q, dtype=np.float64), 0.0)
        rev = q[::-1]
        suffix = np.concatenate((np.cumsum(rev)[::-1], [0.0]))
        tilted = np.concatenate((discounted_suffix_sums(q, h), [0.0]))
        suffix.setflags(write=False)
        tilted.setflags(write=False)
        return cls(float(t0), float(h), suffix, tilted)

    @property
    def size(self) -> int:
        """Number of lattice points ``N``."""
        return self.suffix.size - 1

    @property
    def points(self) -> FloatArray:
        """The lattice points ``t_j``."""
        return cast(FloatArray, self.t0 + np.arange(self.size) * self.h)

    @property
    def total(self) -> float:
        """Total Q-mass ``S_0``."""
        return float(self.suffix[0])

    def cell(self, eps: FloatArray) -> np.ndarray:
        """Index ``k`` of the first point with ``t_k > eps`` (``N`` if none)."""
        pos = np.floor((eps - self.t0) / self.h) + 1.0
        return np.clip(pos, 0.0, float(self.size)).astype(np.int64)

    def delta(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\delta(\varepsilon)` of the masses (no allowance), any real eps."""
        e = np.asarray(eps, dtype=np.float64)
        k = self.cell(e)
        tk = self.t0 + k * self.h
        with np.errstate(under="ignore", invalid="ignore"):
            factor = np.where(k < self.size, np.exp(np.minimum(e - tk, 0.0)), 0.0)
        return cast(
            FloatArray, np.maximum(self.suffix[k] - factor * self.tilted[k], 0.0)
        )

    def p_mass_above(self, eps: ArrayLike) -> FloatArray:
        r"""P-mass strictly above ``eps``, :math:`-d\delta/d(e^\varepsilon)`."""
        e = np.asarray(eps, dtype=np.float64)
        k = self.cell(e)
        tk = self.t0 + k * self.h
        with np.errstate(under="ignore", over="ignore"):
            return np.where(k < self.size, np.exp(-tk) * self.tilted[k], 0.0)

    @functools.cached_property
    def _grid(self) -> FloatArray:
        r""":math:`\delta(t_j)` at every lattice point (computed once)."""
        val = self.suffix[1:] - math.exp(-self.h) * self.tilted[1:]
        val = np.maximum(val, 0.0)
        val.setflags(write=False)
        return cast(FloatArray, val)

    def grid_delta(self, extra: FloatArray | None = None) -> FloatArray:
        r""":math:`\delta(t_j) (+ \text{extra})` at every lattice point (a
        read-only array without ``extra``)."""
        return self._grid if extra is None else self._grid + extra[1:]

    def envelope(self, extra: FloatArray) -> FloatArray:
        """Running minimum of :meth:`grid_delta` ``(extra)``: what
        :meth:`inverse` searches (pass it as ``envelope`` to reuse it)."""
        return np.minimum.accumulate(self.grid_delta(extra))

    @functools.cached_property
    def _running_min(self) -> FloatArray:
        """Running minimum of :meth:`grid_delta` (computed once)."""
        val = np.minimum.accumulate(self._grid)
        val.setflags(write=False)
        return cast(FloatArray, val)

    def shifted_envelope(self, c: float) -> FloatArray:
        """:meth:`envelope` of the constant allowance ``c``, bit for bit
        (rounding is monotone: ``min fl(g_j + c) = fl(min g_j + c)``)."""
        return self._running_min + c

    def inverse(
        self,
        target: ArrayLike,
        extra: FloatArray,
        envelope: FloatArray | None = None,
    ) -> FloatArray:
        r""":math:`\inf\{\varepsilon : \delta(\varepsilon) + \text{extra} \le d\}`.

        Returns ``-inf`` when every eps qualifies and ``+inf`` when none does.
        ``envelope`` is :meth:`envelope` ``(extra)``, when already computed.
        """
        d = np.asarray(target, dtype=np.float64)
        n = self.size
        grid = self.envelope(extra) if envelope is None else envelope
        j = np.searchsorted(-grid, -d, side="left")  # first j with grid_j <= d
        jj = np.minimum(j, n - 1)
        tj = self.t0 + jj * self.h
        a = self.suffix[jj] + extra[jj] - d
        b = self.tilted[jj]
        with np.errstate(divide="ignore", invalid="ignore"):
            sol = tj + np.log(a / b)
        sol = np.where((b > 0) & (a > 0), sol, tj)
        sol = np.minimum(sol, tj)
        sol = np.where(jj > 0, np.maximum(sol, tj - self.h), sol)
        start = self.suffix[0] + extra[0]
        sol = np.where((j == 0) & (start <= d), -np.inf, sol)
        return np.where(j >= n, np.inf, sol)

    def tradeoff(self, alpha: ArrayLike, extra: FloatArray) -> FloatArray:
        r""":math:`\sup_\varepsilon 1 - \delta(\varepsilon) - \text{extra} -
        e^{\varepsilon}\alpha` (unclipped), vectorised in ``alpha``."""
        a = np.asarray(alpha, dtype=np.float64)
        n = self.size
        t = self.points
        grid = self.grid_delta(extra)
        with np.errstate(divide="ignore"):
            log_sigma = np.log(self.tilted[1:]) - (t + self.h)
        log_sigma = np.minimum.accumulate(log_sigma)
        with np.errstate(divide="ignore"):
            log_a = np.log(a)
        j = np.searchsorted(-log_sigma, -log_a, side="left")
        best = np.full(a.shape, 1.0 - self.suffix[0] - extra[0])
        for jj in (j - 1, j, j + 1, np.full_like(j, n - 1)):
            jj = np.clip(jj, 0, n - 1)
            # exp(t + log alpha): e^t overflows, and inf * 0 loses alpha = 0.
            with np.errstate(over="ignore", invalid="ignore"):
                val = 1.0 - grid[jj] - np.exp(t[jj] + log_a)
            val = np.where(np.isnan(val), -np.inf, val)
            best = np.maximum(best, val)
        return best


def loss_range_profile_limits(
    eps: FloatArray, loss_range: tuple[float, float]
) -> tuple[FloatArray, FloatArray]:
    r"""``(floor, top)``: :math:`(1 - e^{\varepsilon - a})_+ \le \delta(\varepsilon)
    \le (1 - e^{\varepsilon - b})_+` for a composed loss in :math:`[a, b]` under Q
    (see :class:`symfdp.curve.BoundedLossPair`)."""
    a, b = loss_range
    top = -np.expm1(np.minimum(eps - b, 0.0)) if b < math.inf else np.ones_like(eps)
    if a == -math.inf:
        return np.zeros_like(eps), top
    with np.errstate(over="ignore"):
        floor = np.maximum(-np.expm1(eps - a), 0.0)
    return floor, top


def loss_range_tradeoff_floor(
    alpha: FloatArray, loss_range: tuple[float, float]
) -> FloatArray:
    r""":math:`f(\alpha) \ge \max\{1 - e^{b}\alpha, e^{a}(1 - \alpha)\}` for a
    composed loss in :math:`[a, b]` under Q (see
    :class:`symfdp.curve.BoundedLossPair`)."""
    a, b = loss_range
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        upper = 1.0 - np.exp(b + np.log(alpha)) if b < math.inf else -np.inf
        return cast(FloatArray, np.maximum(upper, np.exp(a) * (1.0 - alpha)))
