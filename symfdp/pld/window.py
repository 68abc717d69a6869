r"""The FFT window: where the composed Q-mass lives, by Chernoff bounds.

For a finite positive measure :math:`\nu_i` with Q-masses :math:`q_{ik}` on
points :math:`l_{ik}` and :math:`K_i(\lambda) = \log \sum_k q_{ik} e^{\lambda
l_{ik}}`, Markov's inequality applied to :math:`e^{\pm\lambda S}` gives, for the
composed sum :math:`S` and every :math:`\lambda > 0`,

.. math::  \nu(S \ge u) \le \exp\Bigl(-\lambda u + \sum_i n_i K_i(\lambda)\Bigr),
           \qquad
           \nu(S \le u) \le \exp\Bigl(\lambda u + \sum_i n_i K_i(-\lambda)\Bigr).

The window ends are the best of these over :math:`\lambda` (a bounded
Brent search in :math:`\log\lambda`), clipped to the trivial range
:math:`[\sum_i n_i \min l_{ik}, \sum_i n_i \max l_{ik}]`; the mass outside is then
at most ``tail`` on each side that was cut (zero on a side that was not). This
mass is what circular convolution folds back into the window, so it enters the
certified bounds as an additive term.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from symfdp.pld.discretise import DiscretePLD

#: Range of lambda * sd searched, and the tolerance on log lambda of the search
#: (the end is stationary at the optimum, so it moves by the square of this).
_LAM_RANGE = (1e-2, 1e3)
#: Families with more points than this search the Chernoff parameter on blocks
#: of _SEARCH_BLOCK merged points.
_SEARCH_POINTS = 2**16
_SEARCH_BLOCK = 16
_LOG_LAM_TOL = 3e-3


@dataclass(frozen=True)
class Window:
    """Composed range ``[lo, hi]`` and the Q-mass bound outside it."""

    lo: float
    hi: float
    outside: float


@dataclass(frozen=True)
class _Family:
    """The parts of one composition, concatenated: lattice points carrying mass,
    their log Q-masses, the start of each part and its number of compositions."""

    points: np.ndarray
    logq: np.ndarray
    starts: np.ndarray
    n: np.ndarray

    def log_mgf(self, lam: float) -> float:
        """``sum_i n_i log sum_k q_ik e^{lam l_ik}`` (log-sum-exp per part)."""
        a = lam * self.points + self.logq
        top = np.maximum.reduceat(a, self.starts)
        sizes = np.diff(np.append(self.starts, a.size))
        # Terms below e^-700 raised to it: K over-estimated, the window valid.
        rel = np.maximum(a - np.repeat(top, sizes), -700.0)
        sums = np.add.reduceat(np.exp(rel), self.starts)
        return float(np.sum(self.n * (top + np.log(sums))))

    @property
    def empty(self) -> bool:
        """Whether some part carries no mass."""
        return bool(np.any(np.diff(np.append(self.starts, self.points.size)) == 0))


def _family(parts: Sequence[tuple[DiscretePLD, int]], block: int = 1) -> _Family:
    """The parts concatenated; with ``block > 1``, each run of ``block`` points
    merged into one (total mass at the barycentre): a cheaper stand-in for the
    search of the Chernoff parameter only."""
    points, logq, starts, counts = [], [], [], []
    at = 0
    for d, n in parts:
        pos = d.support
        q = d.q[pos]
        pts = d.points_at(pos)
        if block > 1:
            bins = pos // block
            _, first = np.unique(bins, return_index=True)
            mass = np.add.reduceat(q, first)
            pts = np.add.reduceat(q * pts, first) / mass
            q = mass
        points.append(pts)
        logq.append(np.log(q))
        starts.append(at)
        counts.append(float(n))
        at += q.size
    return _Family(
        np.concatenate(points),
        np.concatenate(logq),
        np.asarray(starts, dtype=np.int64),
        np.asarray(counts),
    )


def _end(fam: _Family, log_tail: float, sign: float, lam: float) -> float:
    """Chernoff end: ``sign * u`` with mass beyond ``u`` at most ``e^log_tail``."""
    return sign * (fam.log_mgf(sign * lam) - log_tail) / lam


def _best_lambda(parts: _Family, log_tail: float, sign: float, sd: float) -> float:
    """Brent's bounded search (parabolic steps with golden-section safeguards)
    of the quasi-convex ``lam -> (K(lam) - log tail)/lam`` over ``log lam``."""
    a, b = math.log(_LAM_RANGE[0] / sd), math.log(_LAM_RANGE[1] / sd)

    def f(x: float) -> float:
        value = sign * _end(parts, log_tail, sign, math.exp(x))
        return value if math.isfinite(value) else 1e300

    found = optimize.minimize_scalar(
        f, bounds=(a, b), method="bounded", options={"xatol": _LOG_LAM_TOL}
    )
    return math.exp(float(found.x))


def _part_log_mgf(parts: Sequence[tuple[DiscretePLD, int]], lam: float) -> float:
    r"""``sum_i n_i log sum_k q_ik e^{lam l_ik}`` of the parts, an upper bound:
    each sum (over the :math:`m` points with mass) is taken relative to the
    largest exponent of the lattice (no overflow), inflated by its round-off
    :math:`2(m + 4)u` and by :math:`m\,Q_i 10^{-300}` for the terms that
    underflow."""
    u = float(np.finfo(np.float64).eps) / 2
    total = 0.0
    for d, n in parts:
        at = d.support
        q = d.q[at]
        step = lam * d.h
        top = d.q.size - 1 if step > 0 else 0
        e = np.exp(step * (at - top))
        mass = float(np.sum(q))
        s = float(np.sum(q * e)) * (1 + 2 * (q.size + 4) * u) + q.size * mass * 1e-300
        total += n * (lam * (d.origin + (d.k_lo + top) * d.h) + math.log(s))
    return total


def _part_end(
    parts: Sequence[tuple[DiscretePLD, int]], log_tail: float, sign: float, lam: float
) -> float:
    """:func:`_end` of the exact parts."""
    return sign * (_part_log_mgf(parts, sign * lam) - log_tail) / lam


def _trivial_ends(parts: Sequence[tuple[DiscretePLD, int]]) -> tuple[float, float]:
    """``sum_i n_i min l_ik`` and ``sum_i n_i max l_ik`` over points with mass."""
    lo = hi = 0.0
    for d, n in parts:
        first, last = d.points_at(d.support[[0, -1]])
        lo += n * float(first)
        hi += n * float(last)
    return lo, hi


def chernoff_window(
    families: Sequence[Sequence[tuple[DiscretePLD, int]]], tail: float
) -> Window:
    """One window for several compositions (e.g. dominated and dominating).

    The Chernoff parameters are optimised for the first family and reused for
    the others (each family's own bound is evaluated at them); the union of the
    ends is returned. Any parameter gives a valid window, so large families
    search on merged blocks of points.
    """
    if any(not d.q.any() for f in families for d, _ in f):
        return Window(0.0, 0.0, 0.0)
    ends = [_trivial_ends(f) for f in families]
    triv_lo = min(e[0] for e in ends)
    triv_hi = max(e[1] for e in ends)
    var = 0.0
    for d, n in families[0]:
        at = d.support
        w = d.q[at] / float(np.sum(d.q[at]))
        pts = d.points_at(at)
        mean = float(np.sum(w * pts))
        var += n * float(np.sum(w * (pts - mean) ** 2))
    if var <= 0.0 or triv_hi <= triv_lo:
        return Window(triv_lo, triv_hi, 0.0)
    sd = math.sqrt(var)
    log_tail = math.log(tail)
    size = sum(d.q.size for d, _ in families[0])
    block = _SEARCH_BLOCK if size > _SEARCH_POINTS else 1
    proxy = _family(families[0], block)
    lam_up = _best_lambda(proxy, log_tail, 1.0, sd)
    lam_dn = _best_lambda(proxy, log_tail, -1.0, sd)
    hi = max(_part_end(f, log_tail, 1.0, lam_up) for f in families)
    lo = min(_part_end(f, log_tail, -1.0, lam_dn) for f in families)
    outside = 0.0
    if hi < triv_hi:
        outside += tail
    else:
        hi = triv_hi
    if lo > triv_lo:
        outside += tail
    else:
        lo = triv_lo
    return Window(lo, max(hi, lo), outside)
