r"""Exact answers, computed independently of the accountants, for the matrix.

Two kinds of composition have exact answers that need no accountant:

* Gaussian compositions: :math:`n` steps of :math:`G_\mu` compose to
  :math:`G_{\mu\sqrt n}` (Dong et al. 2019, Cor. 3.3), with
  :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon
  \Phi(-\varepsilon/\mu - \mu/2)` (Dong et al. 2019, Cor. 2.13) and
  :math:`f(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`.
* Finite privacy-loss laws (randomized response, discrete Laplace/Gaussian,
  pure DP, (eps, delta) events, user PMFs): the n-fold law of the loss is an
  exact sum over the composed atoms (convolution of the P- and Q-masses);
  :math:`\delta(\varepsilon) = q_{+\infty} + \sum_{l_j > \varepsilon} (q_j -
  e^\varepsilon p_j)` and the trade-off is the Neyman-Pearson polygon through
  :math:`(\sum_{l \ge l_k} p, 1 - \sum_{l \ge l_k} q)` (Dong et al. 2019, Def. 2.1).

Accuracy: float64 sums (relative round-off ~1e-14 on the profile);
:math:`\varepsilon(\delta)` by ``brentq`` to 1e-13.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

FloatArray = NDArray[np.float64]
#: Losses closer than this (relative) are one atom of the composed law.
_MERGE_RTOL = 1e-10


@dataclass(frozen=True)
class FiniteLaw:
    """A privacy-loss law with finitely many atoms (sorted ``l``, masses ``p``
    under P and ``q`` under Q) plus blatant masses: ``p_minus`` at ``L = -inf``
    (Q-null) and ``q_plus`` at ``L = +inf`` (P-null)."""

    l: FloatArray
    p: FloatArray
    q: FloatArray
    p_minus: float = 0.0
    q_plus: float = 0.0

    def swapped(self) -> FiniteLaw:
        """The law of the swapped pair (Q, P): loss -L."""
        return FiniteLaw(
            -self.l[::-1], self.q[::-1], self.p[::-1], self.q_plus, self.p_minus
        )

    def compose(self, n: int) -> FiniteLaw:
        """The law of the sum of ``n`` independent copies (exact sums)."""
        out = self
        for _ in range(n - 1):
            out = out._times(self)
        return out

    def _times(self, other: FiniteLaw) -> FiniteLaw:
        l = (self.l[:, None] + other.l[None, :]).ravel()
        p = (self.p[:, None] * other.p[None, :]).ravel()
        q = (self.q[:, None] * other.q[None, :]).ravel()
        order = np.argsort(l, kind="stable")
        l, p, q = l[order], p[order], q[order]
        scale = np.maximum(np.abs(l), 1.0)
        new = np.concatenate(([True], np.diff(l) > _MERGE_RTOL * scale[1:]))
        starts = np.flatnonzero(new)
        p_minus = 1.0 - (1.0 - self.p_minus) * (1.0 - other.p_minus)
        q_plus = 1.0 - (1.0 - self.q_plus) * (1.0 - other.q_plus)
        return FiniteLaw(
            l[starts],
            np.add.reduceat(p, starts),
            np.add.reduceat(q, starts),
            p_minus,
            q_plus,
        )

    def delta(self, eps: FloatArray) -> FloatArray:
        """:math:`\\delta(\\varepsilon)` of the pair (P, Q) at each ``eps``."""
        e = np.asarray(eps, np.float64)[:, None]
        with np.errstate(over="ignore"):
            gain = np.where(self.l[None, :] > e, self.q - np.exp(e) * self.p, 0.0)
        return np.asarray(self.q_plus + gain.sum(axis=1), np.float64)

    def tradeoff_vertices(self) -> tuple[FloatArray, FloatArray]:
        """The vertices ``(alpha_k, beta_k)`` of the Neyman-Pearson polygon,
        rejecting the largest losses first."""
        p = np.concatenate(([0.0], self.p[::-1], [self.p_minus]))
        q = np.concatenate(([self.q_plus], self.q[::-1], [0.0]))
        alpha = np.minimum(np.cumsum(p), 1.0)
        beta = np.maximum(1.0 - np.cumsum(q), 0.0)
        return np.concatenate(([0.0], alpha)), np.concatenate(([1.0], beta))


def lower_hull(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The lower convex hull of the points (monotone chain)."""
    order = np.lexsort((y, x))
    hx: list[float] = []
    hy: list[float] = []
    for a, b in zip(x[order], y[order], strict=True):
        while (
            len(hx) >= 2
            and (hx[-1] - hx[-2]) * (b - hy[-2]) - (hy[-1] - hy[-2]) * (a - hx[-2]) <= 0
        ):
            hx.pop()
            hy.pop()
        hx.append(float(a))
        hy.append(float(b))
    return np.array(hx), np.array(hy)


@dataclass(frozen=True)
class ExactTruth:
    """Exact answers of one composition under a neighbouring relation.

    ``laws`` are the composed laws of the pairs to cover (the first is the
    'add' pair that ReRo's gamma uses); ``gaussian_mu`` replaces them for a
    Gaussian composition."""

    laws: tuple[FiniteLaw, ...] = ()
    gaussian_mu: float | None = None

    def delta(self, eps: FloatArray) -> FloatArray:
        if self.gaussian_mu is not None:
            mu = self.gaussian_mu
            e = np.asarray(eps, np.float64)
            return np.asarray(
                special.ndtr(-e / mu + mu / 2)
                - np.exp(e + special.log_ndtr(-e / mu - mu / 2)),
                np.float64,
            )
        return np.max([law.delta(eps) for law in self.laws], axis=0)

    def epsilon(self, delta: FloatArray) -> FloatArray:
        out = []
        for d in np.asarray(delta, np.float64):
            if self.delta(np.array([0.0]))[0] <= d:
                out.append(0.0)
                continue
            hi = 1.0
            while self.delta(np.array([hi]))[0] > d:
                hi *= 2.0
                if hi > 1e6:
                    break
            out.append(optimize.brentq(self._excess, 0.0, hi, args=(d,), xtol=1e-13))
        return np.array(out)

    def _excess(self, eps: float, target: float) -> float:
        return float(self.delta(np.array([eps]))[0] - target)

    def _polygon(self) -> tuple[FloatArray, FloatArray]:
        xs, ys = [], []
        for law in self.laws:
            a, b = law.tradeoff_vertices()
            xs += [a, b]
            ys += [b, a]
        return lower_hull(np.concatenate(xs), np.concatenate(ys))

    def tradeoff(self, alpha: FloatArray) -> FloatArray:
        """The symmetrised trade-off ``min{f_i, f_i^{-1}}**``."""
        a = np.asarray(alpha, np.float64)
        if self.gaussian_mu is not None:
            return np.asarray(special.ndtr(special.ndtri(1 - a) - self.gaussian_mu))
        hx, hy = self._polygon()
        return np.asarray(np.interp(a, hx, hy), np.float64)

    def gamma(self, kappa: FloatArray) -> FloatArray:
        """ReRo gamma = 1 - f(kappa) of the first ('add') pair's raw trade-off
        (Kaissis et al. 2023, Thm 1)."""
        k = np.asarray(kappa, np.float64)
        if self.gaussian_mu is not None:
            return np.asarray(special.ndtr(special.ndtri(k) + self.gaussian_mu))
        a, b = self.laws[0].tradeoff_vertices()
        return np.asarray(1.0 - np.interp(k, a, b), np.float64)

    def mu_star(self) -> float:
        r""":math:`\mu^* = \Phi^{-1}(1-\alpha^*) - \Phi^{-1}(\alpha^*)` at the fixed
        point :math:`f(\alpha^*) = \alpha^*` (Zheng et al. 2020, Sec. 4)."""
        if self.gaussian_mu is not None:
            return self.gaussian_mu
        a_star = optimize.brentq(
            lambda a: self.tradeoff(np.array([a]))[0] - a, 0.0, 0.5, xtol=1e-15
        )
        return float(special.ndtri(1 - a_star) - special.ndtri(a_star))
