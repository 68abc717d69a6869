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

from symfdp.pld.discretise import DiscretePLD, concatenated_supports

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
    """The parts of one composition, concatenated: lattice points carrying mass
    (relative to each part's first point), their log Q-masses, the start of
    each part, its number of compositions, and ``shift``, the sum over the parts
    of the number of compositions times the first point."""

    points: np.ndarray
    logq: np.ndarray
    starts: np.ndarray
    n: np.ndarray
    shift: float

    def log_mgf(self, lam: float) -> float:
        """``sum_i n_i log sum_k q_ik e^{lam l_ik}`` (log-sum-exp per part)."""
        a = lam * self.points + self.logq
        top = np.maximum.reduceat(a, self.starts)
        sizes = np.diff(np.append(self.starts, a.size))
        # Terms below e^-700 raised to it: K over-estimated, the window valid.
        rel = np.maximum(a - np.repeat(top, sizes), -700.0)
        sums = np.add.reduceat(np.exp(rel), self.starts)
        return float(np.sum(self.n * (top + np.log(sums))) + lam * self.shift)


@dataclass(frozen=True)
class _Parts:
    """The points with mass of several parts, concatenated.

    Attributes:
        at: Positions of the points in their part's ``q``.
        q: Their Q-masses.
        above: Their distances above their part's first lattice point,
            ``at * h`` (one rounding).
        below: Their distances below their part's last lattice point,
            ``(top - at) * h`` (one rounding).
        starts: Index of each part's first point (every part has one).
        n: Numbers of compositions.
        origin, k_lo, h: Each part's lattice.
        first, last: Each part's first and last lattice point.
        mass: Each part's total Q-mass.
    """

    at: np.ndarray
    q: np.ndarray
    above: np.ndarray
    below: np.ndarray
    starts: np.ndarray
    n: np.ndarray
    origin: np.ndarray
    k_lo: np.ndarray
    h: np.ndarray
    first: np.ndarray
    last: np.ndarray
    mass: np.ndarray

    @classmethod
    def of(cls, parts: Sequence[tuple[DiscretePLD, int]]) -> _Parts:
        at, q, sizes = concatenated_supports([d for d, _ in parts])
        origin = np.array([d.origin for d, _ in parts])
        k_lo = np.array([d.k_lo for d, _ in parts])
        h = np.array([d.h for d, _ in parts])
        top = np.array([d.q.size - 1 for d, _ in parts])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        if np.all(h == h[0]):
            h_at: np.ndarray | float = float(h[0])
        else:
            h_at = np.repeat(h, sizes)
        return cls(
            at,
            q,
            at * h_at,
            (np.repeat(top, sizes) - at) * h_at,
            starts,
            np.array([float(n) for _, n in parts]),
            origin,
            k_lo,
            h,
            origin + k_lo * h,
            origin + (k_lo + top) * h,
            np.add.reduceat(q, starts),
        )

    @property
    def sizes(self) -> np.ndarray:
        """Points with mass per part."""
        return np.diff(np.append(self.starts, self.q.size))


def _family(flat: _Parts, block: int = 1) -> _Family:
    """The parts as a :class:`_Family`; with ``block > 1``, each run of
    ``block`` lattice points merged into one (total mass at the barycentre): a
    cheaper stand-in for the search of the Chernoff parameter only."""
    shift = float(np.sum(flat.n * flat.first))
    if block == 1:
        return _Family(flat.above, np.log(flat.q), flat.starts, flat.n, shift)
    part = np.repeat(np.arange(flat.starts.size), flat.sizes)
    bins = flat.at // block
    first = np.flatnonzero(
        np.concatenate(([True], (bins[1:] != bins[:-1]) | (part[1:] != part[:-1])))
    )
    mass = np.add.reduceat(flat.q, first)
    pts = np.add.reduceat(flat.q * flat.above, first) / mass
    starts = np.searchsorted(first, flat.starts)
    return _Family(pts, np.log(mass), starts.astype(np.int64), flat.n, shift)


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


#: Largest modulus of an exponent whose term is not covered by the underflow
#: allowance of :func:`_part_log_mgf` (:math:`e^{-691} > 10^{-300}`).
_ARG_MAX = 691.0


def _part_log_mgf(flat: _Parts, lam: float) -> float:
    r"""``sum_i n_i log sum_k q_ik e^{lam l_ik}`` of the parts, an upper bound.

    Each sum over the :math:`m` points with mass is taken relative to the
    part's last lattice point for :math:`\lambda > 0` (first for
    :math:`\lambda < 0`), so every exponent :math:`a_k` is :math:`\le 0`. Its
    computed value has rounded the distance, :math:`\lambda` times it, the
    exponential and the product with :math:`q_k` (relative error at most
    :math:`2u|a_k| + 3u` per term) and the sum (:math:`(m - 1)u` of it):
    it is inflated by :math:`(2 \cdot 691 + m + 8)u` for the terms with
    :math:`a_k \ge -691` and by :math:`m\,Q_i 10^{-300}` for those below (each
    under :math:`Q_i e^{-691}`); the sum over the parts by its own round-off."""
    u = float(np.finfo(np.float64).eps) / 2
    if lam > 0:
        e = np.exp(-lam * flat.below)
        ref = flat.last
    else:
        e = np.exp(lam * flat.above)
        ref = flat.first
    sizes = flat.sizes
    sums = np.add.reduceat(flat.q * e, flat.starts)
    s = sums * (1 + (2 * _ARG_MAX + sizes + 8) * u) + sizes * flat.mass * 1e-300
    terms = flat.n * (lam * ref + np.log(s))
    # The sum over the parts rounds at most (parts + 1) u of its magnitude.
    return float(np.sum(terms) + (terms.size + 1) * u * np.sum(np.abs(terms)))


def _part_end(flat: _Parts, log_tail: float, sign: float, lam: float) -> float:
    """:func:`_end` of the exact parts."""
    return sign * (_part_log_mgf(flat, sign * lam) - log_tail) / lam


def _trivial_ends(flat: _Parts) -> tuple[float, float]:
    """``sum_i n_i min l_ik`` and ``sum_i n_i max l_ik`` over points with mass."""
    lowest = flat.origin + (flat.k_lo + flat.at[flat.starts]) * flat.h
    last = flat.at[flat.starts + flat.sizes - 1]
    highest = flat.origin + (flat.k_lo + last) * flat.h
    return float(np.sum(flat.n * lowest)), float(np.sum(flat.n * highest))


def _variance(flat: _Parts) -> float:
    """``sum_i n_i Var(l_i)`` under the normalised Q-masses of each part."""
    sizes = flat.sizes
    w = flat.q / np.repeat(flat.mass, sizes)
    mean = np.add.reduceat(w * flat.above, flat.starts)
    dev = flat.above - np.repeat(mean, sizes)
    return float(np.sum(flat.n * np.add.reduceat(w * dev**2, flat.starts)))


def chernoff_window(
    families: Sequence[Sequence[tuple[DiscretePLD, int]]],
    tail: float,
    scale: float | None = None,
) -> Window:
    """One window for several compositions (e.g. dominated and dominating).

    The Chernoff parameters are optimised for the first family and reused for
    the others (each family's own bound is evaluated at them); the union of the
    ends is returned. Any parameter gives a valid window, so large families
    search on merged blocks of points, over :data:`_LAM_RANGE` divided by
    ``scale``: the standard deviation of the composed loss (or of the law it
    discretises); computed from the first family when None or 0.
    """
    if any(d.support.size == 0 for f in families for d, _ in f):  # no mass
        return Window(0.0, 0.0, 0.0)
    # One family's concatenated points at a time (they are large).
    flat = _Parts.of(families[0])
    var = scale * scale if scale else _variance(flat)
    ends = [_trivial_ends(flat)]
    log_tail = math.log(tail)
    if var > 0.0:
        sd = math.sqrt(var)
        size = sum(d.q.size for d, _ in families[0])
        block = _SEARCH_BLOCK if size > _SEARCH_POINTS else 1
        proxy = _family(flat, block)
        lam_up = _best_lambda(proxy, log_tail, 1.0, sd)
        lam_dn = _best_lambda(proxy, log_tail, -1.0, sd)
        del proxy
    bounds = []
    for i, family in enumerate(families):
        if i > 0:
            flat = _Parts.of(family)
            ends.append(_trivial_ends(flat))
        if var > 0.0:
            bounds.append(
                (
                    _part_end(flat, log_tail, 1.0, lam_up),
                    _part_end(flat, log_tail, -1.0, lam_dn),
                )
            )
    del flat
    triv_lo = min(e[0] for e in ends)
    triv_hi = max(e[1] for e in ends)
    if var <= 0.0 or triv_hi <= triv_lo:
        return Window(triv_lo, triv_hi, 0.0)
    hi = max(b[0] for b in bounds)
    lo = min(b[1] for b in bounds)
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
