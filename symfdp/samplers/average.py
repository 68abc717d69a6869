r"""Two-sided certified laws of the average of independent likelihood ratios.

Random allocation of one step out of :math:`t` (balls in bins) applied to a
dominating pair :math:`(P, Q)` with likelihood ratio :math:`V = dQ/dP` gives the
pair :math:`(P^{\otimes t}, \frac1t \sum_i P^{\otimes i-1} \otimes Q \otimes
P^{\otimes t-i})` (Feldman & Shenfeld 2025, arXiv 2502.08202; the
remove and add directions are this pair and its swap, arXiv 2602.17284,
App. C, Algorithms 1-2), whose likelihood ratio is the average

.. math::  W_t = \frac1t \sum_{i=1}^t V_i, \qquad V_i \text{ i.i.d. under } P.

Both of its hockey sticks are convex functions of :math:`W_t`:
:math:`\delta_{rem}(\varepsilon) = E_P[(W_t - e^\varepsilon)_+]` and
:math:`\delta_{add}(\varepsilon) = E_P[(1 - e^\varepsilon W_t)_+]`. So any
measure above the law of :math:`W_t` in the *convex* order bounds both from
above and any measure below it bounds both from below; the convex order is
kept by sums of independent variables. This module brackets the P-law of
:math:`W_t` on the log-lattice :math:`\{e^{kh}\}` in both orders at once:

* :class:`SpreadLaw` (dominating): P-masses on lattice points, an atom at 0
  and Q-mass at :math:`+\infty`. Each value off the lattice is split between
  its two neighbouring points keeping its P-mass and its mean (a
  mean-preserving spread, Doroshenko et al. 2022's connect-the-dots applied to
  the average); a value below the lattice between 0 and the first point; Q-mass
  cut off the top is split into P-mass at 0 and Q-mass at :math:`+\infty`
  (post-processing reversed: a pair that dominates).
* :class:`MergedLaw` (dominated): P- and Q-masses of the dual cells
  :math:`(e^{(k-1/2)h}, e^{(k+1/2)h}]`, i.e. the outcomes of each cell merged
  into one atom at their barycentre (post-processing: a pair that is
  dominated, in both directions); the end cells are unbounded and keep only
  what lies at or beyond their points (:func:`_cells`).

The average of :math:`t` copies is built by binary powering,
:math:`W_{m+m'} = \frac{m}{m+m'} W_m + \frac{m'}{m+m'} W'_{m'}`, each step a
pairwise sum over the two lattices (:math:`O(N^2)`) followed by the same spread or
merge, so a bracket for :math:`t` steps costs :math:`O(N^2 \log t)` (the
polylogarithmic cost of arXiv 2602.17284, whose Algorithm 4 sums on a geometric
grid with first-order rounding; these spreads and merges are second order).
Each combination is a Blackwell-monotone map of the two pairs (a garbling
applied coordinatewise carries over), so replacing the inputs by dominating
(dominated) ones gives a dominating (dominated) output. As :math:`W_m`
concentrates the step is halved (:func:`step_for`; the coarse lattice is part of
the fine one, so the laws carry over unchanged), and the tails holding less than
a budget are cut by dominating moves (spread) or merges (merged).

**Round-off.** Every law carries bounds ``err_p`` :math:`\ge \|\Delta p\|_1` and
``err_q`` :math:`\ge \sum_k x_k |\Delta p_k|` on the difference between the
computed masses and the exact masses of the construction. A sum of :math:`n`
terms carries at most :math:`(n - 1) u` times their sum (Higham 2002, eq.
(4.4)); a product of a few factors a few :math:`u`; the bounds of the inputs
propagate bilinearly (:func:`_propagate`). Since :math:`(w - c)_+ \le w` and
:math:`(1 - c w)_+ \le 1`, :math:`|\Delta\delta_{rem}| \le` ``err_q`` and
:math:`|\Delta\delta_{add}| \le` ``err_p``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.pld.cells import cell_masses_pq
from symfdp.pld.compose import UNIT_ROUNDOFF

#: Largest number of halvings of the base step (:func:`step_for`).
MAX_HALVINGS = 8
#: Pairs of lattice points handled per block of a combination (memory bound).
PAIR_BLOCK = 1 << 21
_U = UNIT_ROUNDOFF
#: Floor of a value before its logarithm (an atom at 0 joins the bottom cell).
_TINY = 1e-300
#: Distance (in steps) within which a value counts as on an end point.
_END_TOL = 1e-9


@dataclass(frozen=True)
class SpreadLaw:
    r"""A law above the P-law of :math:`W` in the convex order.

    Attributes:
        h: Lattice step of :math:`\log W`.
        k_lo: Index of the first point :math:`e^{k_{lo} h}`.
        p: P-masses of the points :math:`e^{(k_{lo} + j) h}`.
        p_zero: P-mass at :math:`W = 0`.
        q_inf: Q-mass at :math:`W = +\infty` (no P-mass).
        err_p: Round-off bound on :math:`\|\Delta p\|_1`.
        err_q: Round-off bound on :math:`\sum_j e^{(k_{lo}+j)h} |\Delta p_j|`.
    """

    h: float
    k_lo: int
    p: FloatArray
    p_zero: float
    q_inf: float
    err_p: float
    err_q: float

    @property
    def values(self) -> FloatArray:
        """The lattice values :math:`e^{(k_{lo} + j) h}`."""
        return np.exp((self.k_lo + np.arange(self.p.size, dtype=np.float64)) * self.h)

    def refined(self, h: float) -> SpreadLaw:
        """This law on the lattice of step ``h = self.h / 2^j`` (its points
        are points of the finer lattice: the same law)."""
        ratio = round(self.h / h)
        if ratio <= 1:
            return self
        p = np.zeros((self.p.size - 1) * ratio + 1)
        p[::ratio] = self.p
        return SpreadLaw(
            h, self.k_lo * ratio, p, self.p_zero, self.q_inf, self.err_p, self.err_q
        )


@dataclass(frozen=True)
class MergedLaw:
    r"""A law below the P-law of :math:`W` in the convex order: one atom per
    dual cell around :math:`e^{(k_{lo} + j) h}` at its barycentre.

    Attributes:
        h: Lattice step of :math:`\log W`.
        k_lo: Index of the first cell.
        p: P-masses of the cells.
        q: Q-masses of the cells (P-mass times barycentre).
        err_p: Round-off bound on :math:`\|\Delta p\|_1`.
        err_q: Round-off bound on :math:`\|\Delta q\|_1`.
    """

    h: float
    k_lo: int
    p: FloatArray
    q: FloatArray
    err_p: float
    err_q: float

    def refined(self, h: float) -> MergedLaw:
        """This law's atoms re-binned by their barycentres into the dual cells
        of the lattice of step ``h = self.h / 2^j`` (no new merging: still
        below the law in the convex order)."""
        ratio = round(self.h / h)
        if ratio <= 1:
            return self
        pos = self.p > 0
        x = self.q[pos] / self.p[pos]
        lo = self.k_lo * ratio
        n = (self.p.size - 1) * ratio + 1
        k = _cells(np.log(np.maximum(x, _TINY)), h, lo, n)
        p_out = np.bincount(k, self.p[pos], n).astype(np.float64)
        q_out = np.bincount(k, self.q[pos], n).astype(np.float64)
        return MergedLaw(h, lo, p_out, q_out, self.err_p, self.err_q)


Law = TypeVar("Law", SpreadLaw, MergedLaw)


def _cells(log_v: FloatArray, h: float, lo: int, n: int) -> NDArray[np.int64]:
    r"""Dual cell (index from ``lo``) of each :math:`\log v`; the end cells
    keep only what lies at or beyond their points (so an atom at an end point
    keeps a cell of its own and the end barycentres lie beyond their points,
    as the barycentric rounding needs), the rest joins the next cell in."""
    u = log_v / h - lo
    k = np.clip(np.floor(u + 0.5).astype(np.int64), 0, n - 1)
    if n > 2:
        k = np.where((k == n - 1) & (u < n - 1 - _END_TOL), n - 2, k)
        k = np.where((k == 0) & (u > _END_TOL), 1, k)
    return k


# ------------------------------------------------------------------ base laws
def base_laws(
    m: Mechanism, h: float, l_lo: float, l_hi: float
) -> tuple[SpreadLaw, MergedLaw]:
    r"""The two laws of :math:`V = e^L` of one pair on the lattice :math:`kh`
    covering :math:`[l_{lo}, l_{hi}]`, from one batch of CDF values.

    Spread: each cell :math:`(l_j, l_{j+1}]` with masses :math:`P_j, Q_j` puts
    P-mass :math:`(Q_j - \gamma_j P_j)/(\gamma_{j+1} - \gamma_j)` on
    :math:`\gamma_{j+1} = e^{l_{j+1}}` and the rest on :math:`\gamma_j`
    (Doroshenko et al. 2022, connect the dots; the mean is kept); the part below
    :math:`l_0` puts :math:`Q_b / \gamma_0` on :math:`\gamma_0` and the rest at 0;
    the part above the last point goes to 0 (P) and :math:`+\infty` (Q).
    Merged: the dual cells, the end cells unbounded.
    """
    k_lo = math.floor(l_lo / h + 1e-9)
    k_hi = max(math.ceil(l_hi / h - 1e-9), k_lo + 2)
    pts: FloatArray = (k_lo + np.arange(k_hi - k_lo + 1, dtype=np.float64)) * h
    dual: FloatArray = pts[:-1] + 0.5 * h
    # End cells keep only what lies at or beyond their points (see _cells).
    margin = _END_TOL * h
    dual[0], dual[-1] = pts[0] + margin, pts[-1] - margin
    (cp, cd), (cq, cdq) = cell_masses_pq(m, [pts, dual])
    gam = np.exp(pts)
    span = gam[1:] - gam[:-1]
    r = np.clip(cq.cells - gam[:-1] * cp.cells, 0.0, span * cp.cells)
    up = r / span
    p = np.zeros(pts.size)
    p[1:] += up
    p[:-1] += np.maximum(cp.cells - up, 0.0)
    to_first = min(cq.below / gam[0], cp.below)
    p[0] += to_first
    p_zero = max(cp.below - to_first, 0.0) + cp.above
    # Relative round-off of each split is a few u of the cell over its span.
    rel = 8 * _U / -math.expm1(-h)
    err_p = rel * float(np.sum(cp.cells + cq.cells / gam[:-1])) + 4 * _U
    err_q = rel * float(cq.cells.sum() * math.exp(h)) + 4 * _U
    spread = SpreadLaw(h, k_lo, p, p_zero, cq.above, err_p, err_q)
    mp = np.concatenate(([cd.below], cd.cells, [cd.above]))
    mq = np.concatenate(([cdq.below], cdq.cells, [cdq.above]))
    merged = MergedLaw(h, k_lo, mp, mq, 4 * _U, 4 * _U)
    return spread, merged


# ---------------------------------------------------------------- combination
def _propagate(
    a: float, ep_a: float, eq_a: float, ep_b: float, eq_b: float
) -> tuple[float, float]:
    r"""Round-off of the inputs carried into :math:`aW_A + (1-a)W_B`:
    :math:`\|\Delta(p_A \otimes p_B)\|_1 \le (1 + e_A)(1 + e_B) - 1` and the
    value-weighted norm splits by linearity of :math:`a x + b y`, each side's
    mean at most 1 plus its bound."""
    b = 1.0 - a
    ep = ep_a + ep_b + ep_a * ep_b
    eq = (
        a * eq_a * (1 + ep_b)
        + b * ep_a * (1 + eq_b)
        + a * ep_b * (1 + eq_a)
        + b * eq_b * (1 + ep_a)
    )
    return ep, eq


def _pair_blocks(n_a: int, n_b: int) -> list[slice]:
    rows = max(1, PAIR_BLOCK // max(n_b, 1))
    return [slice(i, min(i + rows, n_a)) for i in range(0, n_a, rows)]


def combine_spread(
    la: SpreadLaw, lb: SpreadLaw, a: float, budget_q: float, budget_p: float
) -> SpreadLaw:
    r"""A spread of :math:`aW_A + (1 - a)W_B` (independent), trimmed.

    Every pair of points :math:`(e^{ih}, e^{jh})` gives the value
    :math:`v = a e^{ih} + b e^{jh}` with P-mass :math:`p_i p_j`; with
    :math:`s = j - i`, :math:`\log v / h = i + g(s)`,
    :math:`g(s) = \log(a + b e^{sh})/h`, so the neighbouring points and the
    mean-preserving weights :math:`(e^{(g - \lfloor g\rfloor)h} - 1)/(e^h - 1)`
    are tabulated over :math:`s`. The atoms at 0 combine with the points as
    :math:`a e^{ih}` and :math:`b e^{jh}`. Then :func:`trim_spread`.
    """
    h = la.h
    b = 1.0 - a
    lo = min(la.k_lo, lb.k_lo)
    hi = max(la.k_lo + la.p.size, lb.k_lo + lb.p.size) - 1
    n = hi - lo + 1
    s = np.arange(-(la.p.size - 1), lb.p.size) + (lb.k_lo - la.k_lo)
    with np.errstate(over="ignore"):
        g = np.where(
            s >= 0,
            s + np.log(b + a * np.exp(-s * h)) / h,
            np.log(a + b * np.exp(s * h)) / h,
        )
    f = np.floor(g).astype(np.int64)
    w = np.clip(np.expm1((g - f) * h) / math.expm1(h), 0.0, 1.0)
    # Rounding of g moves each value by a few u (|g| + 2) h of itself.
    move = 8 * _U * (float(np.max(np.abs(g))) + 2.0) * h
    out = np.zeros(n + 1)
    count = np.zeros(n + 1)
    shift = la.k_lo - lo
    s_off = la.p.size - 1
    zero_out = 0.0
    for rows in _pair_blocks(la.p.size, lb.p.size):
        i = np.arange(rows.start, rows.stop)[:, None]
        j = np.arange(lb.p.size)[None, :]
        si = j - i + s_off
        k = (i + shift + f[si]).ravel()
        mass = (la.p[rows, None] * lb.p[None, :]).ravel()
        wk = w[si].ravel()
        out += np.bincount(k, mass * (1.0 - wk), n + 1)
        out += np.bincount(k + 1, mass * wk, n + 1)
        count += np.bincount(k, None, n + 1) + np.bincount(k + 1, None, n + 1)
    # Atoms at 0 against points: values a x_i and b y_j (may fall below lo).
    for coef, law, other_zero in ((a, la, lb.p_zero), (b, lb, la.p_zero)):
        if other_zero <= 0.0 or coef <= 0.0:
            continue
        u = law.k_lo + np.arange(law.p.size) + math.log(coef) / h - lo
        mass = other_zero * law.p
        below = u < 0.0
        first = mass * np.where(below, np.exp(np.minimum(u, 0.0) * h), 0.0)
        zero_out += float(np.sum(mass[below]) - np.sum(first[below]))
        k = np.clip(np.floor(u).astype(np.int64), 0, n - 1)
        wk = np.clip(np.expm1((u - k) * h) / math.expm1(h), 0.0, 1.0)
        wk = np.where(below, 0.0, wk)
        lo_mass = np.where(below, first, mass * (1.0 - wk))
        out += np.bincount(k, lo_mass, n + 1)
        out += np.bincount(k + 1, mass * wk, n + 1)
        count += 2.0
    p = out[:n]
    p[-1] += out[n]  # a weight of exactly 1 on the top point
    vals = np.exp((lo + np.arange(n)) * h)
    sum_err = _U * float(np.sum((count[:n] + 2.0) * p)) + 6 * _U * float(p.sum())
    sum_err_q = _U * float(np.sum((count[:n] + 2.0) * p * vals))
    sum_err_q += (6 * _U + move) * float(np.sum(p * vals))
    ep, eq = _propagate(a, la.err_p, la.err_q, lb.err_p, lb.err_q)
    law = SpreadLaw(
        h,
        lo,
        p,
        la.p_zero * lb.p_zero + zero_out,
        a * la.q_inf + b * lb.q_inf,
        ep + sum_err,
        eq + sum_err_q,
    )
    return trim_spread(law, budget_q, budget_p)


def combine_merged(
    la: MergedLaw, lb: MergedLaw, a: float, budget_q: float, budget_p: float
) -> MergedLaw:
    r"""The merged law of :math:`aW_A + (1 - a)W_B` (independent), trimmed.

    Each pair of atoms (barycentres :math:`x_i, y_j`) gives the value
    :math:`v = a x_i + b y_j` with P-mass :math:`p_i p_j`; it is merged into
    the dual cell of :math:`\log v` (the end cells take everything beyond
    them). Then :func:`trim_merged`.
    """
    h = la.h
    b = 1.0 - a
    lo = min(la.k_lo, lb.k_lo)
    hi = max(la.k_lo + la.p.size, lb.k_lo + lb.p.size) - 1
    n = hi - lo + 1
    xa = np.where(la.p > 0, la.q / np.where(la.p > 0, la.p, 1.0), 0.0)
    xb = np.where(lb.p > 0, lb.q / np.where(lb.p > 0, lb.p, 1.0), 0.0)
    out_p = np.zeros(n)
    out_q = np.zeros(n)
    count = np.zeros(n)
    keep_a = np.flatnonzero(la.p > 0)
    keep_b = np.flatnonzero(lb.p > 0)
    pa, xa = la.p[keep_a], a * xa[keep_a]
    pb, xb = lb.p[keep_b], b * xb[keep_b]
    for rows in _pair_blocks(pa.size, pb.size):
        v = (xa[rows, None] + xb[None, :]).ravel()
        mass = (pa[rows, None] * pb[None, :]).ravel()
        # Atoms without Q-mass (v = 0) join the bottom cell.
        k = _cells(np.log(np.maximum(v, _TINY)), h, lo, n)
        out_p += np.bincount(k, mass, n)
        out_q += np.bincount(k, mass * v, n)
        count += np.bincount(k, None, n)
    ep, eq = _propagate(a, la.err_p, la.err_q, lb.err_p, lb.err_q)
    ep += _U * float(np.sum((count + 2.0) * out_p)) + 4 * _U * float(out_p.sum())
    eq += _U * float(np.sum((count + 2.0) * out_q)) + 6 * _U * float(out_q.sum())
    law = MergedLaw(h, lo, out_p, out_q, ep, eq)
    return trim_merged(law, budget_q, budget_p)


# -------------------------------------------------------------------- trimming
def trim_spread(law: SpreadLaw, budget_q: float, budget_p: float) -> SpreadLaw:
    r"""Cut the ends of a spread law (dominating moves only), sending what is
    cut to the median point :math:`\gamma_J` of the law (so that no mass piles
    up at the new ends).

    Top: the points whose Q-mass from the top adds up to at most ``budget_q``;
    each atom :math:`(p, px)` is split into :math:`(p, p\gamma_J)` at the
    median and Q-mass :math:`p(x - \gamma_J)` at :math:`+\infty`. Bottom: the
    points whose P-mass from the bottom adds up to at most ``budget_p``; each
    is spread between 0 and the median (mass :math:`p\,x/\gamma_J` to
    :math:`\gamma_J`), which keeps its mean. Both are splits of the pair.
    """
    p = law.p
    vals = law.values
    q = p * vals
    mid = int(np.searchsorted(np.cumsum(p), 0.5 * float(p.sum())))
    mid = min(max(mid, 1), p.size - 2)
    n_top = int(np.searchsorted(np.cumsum(q[::-1]), budget_q, side="right"))
    n_top = min(n_top, p.size - 1 - mid)
    n_bot = int(np.searchsorted(np.cumsum(p), budget_p, side="right"))
    n_bot = min(n_bot, mid)
    if n_top <= 0 and n_bot <= 0:
        return law
    stop = p.size - n_top
    kept = p[n_bot:stop].copy()
    at = mid - n_bot
    kept[at] += float(p[stop:].sum())
    q_inf = law.q_inf + float(np.sum(p[stop:] * (vals[stop:] - vals[mid])))
    share = vals[:n_bot] / vals[mid]
    kept[at] += float(np.sum(p[:n_bot] * share))
    p_zero = law.p_zero + float(np.sum(p[:n_bot] * (1.0 - share)))
    return SpreadLaw(
        law.h,
        law.k_lo + n_bot,
        kept,
        p_zero,
        q_inf,
        law.err_p + 4 * _U,
        law.err_q + 4 * _U,
    )


def trim_merged(law: MergedLaw, budget_q: float, budget_p: float) -> MergedLaw:
    """Merge the end cells of a merged law into their neighbours (merging is
    always dominated): the top cells holding at most ``budget_q`` of Q-mass,
    the bottom cells holding at most ``budget_p`` of P-mass."""
    p, q = law.p, law.q
    n_top = int(np.searchsorted(np.cumsum(q[::-1]), budget_q, side="right"))
    n_top = min(n_top, p.size - 3)
    n_bot = int(np.searchsorted(np.cumsum(p), budget_p, side="right"))
    n_bot = min(n_bot, p.size - 3 - n_top)
    if n_top <= 0 and n_bot <= 0:
        return law
    stop = p.size - max(n_top, 0)
    start = max(n_bot, 0)
    kp = p[start:stop].copy()
    kq = q[start:stop].copy()
    kp[-1] += float(p[stop:].sum())
    kq[-1] += float(q[stop:].sum())
    kp[0] += float(p[:start].sum())
    kq[0] += float(q[:start].sum())
    return MergedLaw(
        law.h, law.k_lo + start, kp, kq, law.err_p + 4 * _U, law.err_q + 4 * _U
    )


# -------------------------------------------------------------------- powering
def step_for(m: int, h0: float, var_v: float, resolution: float) -> float:
    r"""Lattice step for the average of ``m`` ratios: ``h0`` halved until it is
    at most ``resolution`` times :math:`\sqrt{\log(1 + \mathrm{Var}(V)/m)}`,
    the standard deviation of :math:`\log W_m` of a lognormal with the same
    variance (at most :data:`MAX_HALVINGS` halvings)."""
    sd = math.sqrt(math.log1p(var_v / m))
    if sd <= 0.0:
        return float(h0 / 2**MAX_HALVINGS)
    j = math.ceil(math.log2(h0 / (resolution * sd))) if h0 > resolution * sd else 0
    return float(h0 / 2 ** min(j, MAX_HALVINGS))


def averages(
    base: Law,
    counts: tuple[int, ...],
    combine: Callable[[Law, Law, float, float, float], Law],
    budget_q: float,
    budget_p: float,
    step: Callable[[int], float],
) -> dict[int, Law]:
    r"""The laws of :math:`W_t` for each ``t`` in ``counts`` by binary powering.

    :math:`W_{2m} = (W_m + W'_m)/2` for the powers of two up to the largest
    count, then each count from its binary digits, low to high,
    :math:`W_{m + 2^j} = \frac{m}{m + 2^j} W_m + \frac{2^j}{m + 2^j}
    W_{2^j}`. A count :math:`t` takes :math:`\lfloor\log_2 t\rfloor` doublings
    (shared by all counts) and one combination per further binary digit;
    ``budget_q`` / ``budget_p`` are the trimming budgets of each combination
    and ``step(m)`` the lattice step of the average of ``m`` (non-increasing
    in ``m``; inputs are refined to it first).
    """

    def join(x: Law, y: Law, a: float, m: int) -> Law:
        h = min(step(m), x.h, y.h)
        return combine(x.refined(h), y.refined(h), a, budget_q, budget_p)

    top = max(counts)
    powers: dict[int, Law] = {1: base}
    m = 1
    while 2 * m <= top:
        powers[2 * m] = join(powers[m], powers[m], 0.5, 2 * m)
        m *= 2
    out: dict[int, Law] = {}
    for t in counts:
        acc: Law | None = None
        have = 0
        for j in range(t.bit_length()):
            if not t >> j & 1:
                continue
            part = powers[1 << j]
            if acc is None:
                acc, have = part, 1 << j
                continue
            a = have / (have + (1 << j))
            acc = join(acc, part, a, have + (1 << j))
            have += 1 << j
        assert acc is not None
        out[t] = acc
    return out


def combinations(t: int) -> int:
    """Combinations :func:`averages` makes for ``t`` (doublings plus digits)."""
    return max(t.bit_length() - 1, 0) + max(t.bit_count() - 1, 0)
