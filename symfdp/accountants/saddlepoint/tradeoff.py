r"""The trade-off side of the SaddlePoint pair: the profile tabulated at the
saddle points of both sides (:func:`profile_points`) and the trade-off from its
supporting lines, :math:`f(\alpha) = \max\{0, \max_k 1 - \hat\delta(\varepsilon_k)
- e^{\varepsilon_k}\alpha\}` (Dong et al. 2019, Prop. 2.8)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Final

import numpy as np

from symfdp.accountants.saddlepoint import branches as B
from symfdp.accountants.saddlepoint.answers import query_repairs
from symfdp.accountants.saddlepoint.equation import SIDES
from symfdp.curve import Answer, Query
from symfdp.mechanisms.base import FloatArray
from symfdp.tradeoff._numeric import capped_exp
from symfdp.tradeoff.duality import supporting_lines

#: Rounds of :func:`profile_points` adding the table's hidden points as nodes.
REFINE_ROUNDS = 2

if TYPE_CHECKING:
    from symfdp.accountants.saddlepoint.pair import SaddlePointPairCurve


def profile_points(pair: SaddlePointPairCurve) -> tuple[FloatArray, FloatArray]:
    r"""``(eps, delta)`` at :math:`\varepsilon(s)` of 240 log-spaced saddle
    points per side, 0, the split point and the support's ends, then
    ``REFINE_ROUNDS`` times at the table's :func:`hidden_points` (their repairs
    and validity are read by the trade-off's error estimate, not noted)."""
    saddles = pair._saddles
    eps_parts, delta_parts = [], []
    sides = ("upper",) if pair.symmetric else SIDES
    # Tilts beyond ~32 standard deviations of the loss add nothing visible.
    sd0 = math.sqrt(max(float(saddles.grid("upper").v[0]), 1e-300))
    limit = 32.0 * max(1.0, 1.0 / sd0)
    for side in sides:
        while saddles.extend(side, small_s=False, limit=limit):
            pass
        s_end = float(saddles.grid(side).s[-1])
        vals = saddles.at(np.geomspace(1e-3, max(s_end, 1.0), 240), side)
        # K''' along the table by differences of K'' (no CGF call).
        vals = replace(vals, k3=np.gradient(vals.v, vals.t))
        e = vals.eps
        keep = (e >= pair.eps_split) if side == "upper" else (e < pair.eps_split)
        lo, hi = pair.support
        keep &= (e > lo) & (e < hi)
        vals = vals.take(keep)
        logs, *_ = pair._log_integrals(
            vals, side, np.zeros(int(keep.sum()), bool), (pair.order,), None
        )
        log_i = logs[pair.order]
        d = B.from_integral(log_i, e[keep], side, pair.log_p_mass)
        d = B.repair(d, e[keep], pair.log_p_mass)[0]
        if side == "lower":
            d = pair._join_split(d, None)
        eps_parts.append(e[keep])
        delta_parts.append(d)
    extra = [
        0.0,
        pair.eps_split,
        *(b for b in pair.support if math.isfinite(b)),
    ]
    extra_e = np.array(extra)
    eps_parts.append(extra_e)
    delta_parts.append(pair._delta(extra_e, False, None)[0])
    eps = np.concatenate(eps_parts)
    delta = np.concatenate(delta_parts)
    eps, idx = np.unique(eps, return_index=True)
    delta = delta[idx]
    # Nodes where the profile between the points may dip lowest: each round
    # cuts the trade-off's table gap about fourfold where the profile is smooth.
    for _ in range(REFINE_ROUNDS):
        he, _ = hidden_points(eps, delta, pair.log_p_mass, pair.symmetric)
        he = he[(he > pair.support[0]) & (he < pair.support[1])]
        eps = np.concatenate((eps, he))
        delta = np.concatenate((delta, pair._delta(he, False, None)[0]))
        eps, idx = np.unique(eps, return_index=True)
        delta = delta[idx]
    if pair.symmetric:
        delta, eps = delta[eps >= 0.0], eps[eps >= 0.0]
    return eps, delta


def hidden_points(
    eps: FloatArray, delta: FloatArray, log_p_mass: float, symmetric: bool
) -> tuple[FloatArray, FloatArray]:
    r"""Where the profile between the table's points may dip lowest, as points
    ``(eps, delta)`` whose supporting lines bound the trade-off from above.

    In :math:`u = e^\varepsilon` the profile :math:`h(u) = \delta(\log u) =
    E_Q[(1 - u e^{-L})_+]` is convex, at least 0 and at least :math:`1 -
    u e^{K(-1)}`. Between two nodes :math:`u_k < u_{k+1}` it therefore lies
    above a left line (the extension of the secant of
    :math:`[u_{k-1}, u_k]`; on the first interval :math:`1 - u e^{K(-1)}`, or
    for a ``symmetric`` table from :math:`\varepsilon = 0` the secant of the
    mirrored interval, :math:`\delta(-\varepsilon) = 1 - e^{-\varepsilon}
    (1 - \delta(\varepsilon))`)
    and a right line (the extension of the secant of :math:`[u_{k+1},
    u_{k+2}]`; 0 on the last interval and beyond the last node), and
    :math:`\min_u h(u) + u\alpha` there is at a node or at the lines'
    crossing. The supporting lines at the nodes and at these crossings give
    :math:`\underline f \le f \le \bar f` for a profile exact at the nodes
    (Dong et al. 2019, Prop. 2.12); data that are not convex give no crossing
    there."""
    u = capped_exp(eps)
    size = u.size
    if size < 2:
        return np.zeros(0), np.zeros(0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        b = np.diff(delta) / np.diff(u)
        # Lines s u + i: left and right of the intervals [u_k, u_k+1], k < size,
        # the last one [u_end, inf).
        first_s, first_i = -math.exp(log_p_mass), 1.0
        if symmetric and eps[0] == 0.0:
            # The secant of [1/u_1, 1], through (1, delta_0).
            mirrored = 1.0 - (1.0 - delta[1]) / u[1]
            first_s = (delta[0] - mirrored) / (1.0 - 1.0 / u[1])
            first_i = delta[0] - first_s
        left_s = np.concatenate(([first_s], b))
        left_i = np.concatenate(([first_i], delta[1:] - b * u[1:]))
        right_s = np.concatenate((b[1:], [0.0, 0.0]))
        right_i = np.concatenate((delta[1:-1] - b[1:] * u[1:-1], [0.0, 0.0]))
        cu = (right_i - left_i) / (left_s - right_s)
        ch = np.maximum(left_i + left_s * cu, 0.0)
        hi = np.concatenate((u[1:], [np.inf]))
        ok = (left_s < right_s) & (cu > u) & (cu < hi) & np.isfinite(ch)
        return np.log(cu[ok]), ch[ok]


#: Round-off of a supporting line's value (4 ulp of 1).
_ROUND_OFF: Final = 4.0 * float(np.finfo(np.float64).eps)


def tradeoff_answer(pair: SaddlePointPairCurve, a: FloatArray) -> Answer:
    r""":math:`f(\alpha) = \max\{0, \max_k 1 - \hat\delta(\varepsilon_k)
    - e^{\varepsilon_k}\alpha\}` over the pair's ``profile_table`` (Dong et al.
    2019, Prop. 2.8; mirrored lines for symmetric compositions), with its error
    estimate: the larger move of :math:`f` when the table's values take the
    ends of their error estimates :math:`\hat\delta_k \pm \Delta_k`
    (:meth:`~.pair.SaddlePointPairCurve.table_errors`; the lower end at least
    the pair's ``delta_floor``), the upper curve also through the
    :func:`hidden_points` of the lowered table (the gap between its
    points)."""
    eps, delta = pair.profile_table()
    err = pair.table_errors()

    def curve(e: FloatArray, d: FloatArray, x: FloatArray) -> FloatArray:
        def lookup(y: FloatArray) -> FloatArray:
            # Interpolation can fall below 1 - e^{eps + K(-1)}: floor it.
            floor = B.below_support(y, pair.log_p_mass)
            return np.maximum(np.interp(y, e, d), floor)

        return supporting_lines(lookup, x, e, pair.symmetric, False)

    raw = curve(eps, delta, a)
    out = np.minimum(raw, 1.0 - a)
    with np.errstate(invalid="ignore"):
        low = np.maximum(np.nan_to_num(delta - err, nan=0.0), pair.delta_floor(eps))
        high = np.minimum(delta + np.nan_to_num(err, nan=np.inf), 1.0)
    he, hd = hidden_points(eps, low, pair.log_p_mass, pair.symmetric)
    grid, idx = np.unique(np.concatenate((eps, he)), return_index=True)
    above = curve(grid, np.concatenate((low, hd))[idx], a) - raw
    below = raw - curve(eps, high, a)
    # The lines 1 - delta_k - e^{eps_k} alpha are formed in double precision: a
    # few ulp of 1 is what the table resolves (deep in the tail, where f is far
    # below that, the answer is round-off and its estimate says so).
    errors = np.maximum(np.maximum(above, below), _ROUND_OFF)
    notes = []
    if np.any(raw - out > 1e-12):
        notes.append(
            "the curve from the profile's supporting lines exceeds 1 - alpha "
            "(the estimated profile is below that of any trade-off function "
            "there); clipped to 1 - alpha"
        )
    return Answer(out, errors, repairs=query_repairs(Query.TRADEOFF, notes))
