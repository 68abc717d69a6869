r"""The trade-off side of the SaddlePoint pair: the profile tabulated at the
saddle points of both sides (:func:`profile_points`) and the trade-off from its
supporting lines, :math:`f(\alpha) = \max\{0, \max_k 1 - \hat\delta(\varepsilon_k)
- e^{\varepsilon_k}\alpha\}` (Dong et al. 2019, Prop. 2.8)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from symfdp.accountants.saddlepoint import branches as B
from symfdp.accountants.saddlepoint.answers import query_repairs
from symfdp.accountants.saddlepoint.equation import SIDES
from symfdp.curve import Answer, Query
from symfdp.mechanisms.base import FloatArray
from symfdp.tradeoff.duality import supporting_lines

if TYPE_CHECKING:
    from symfdp.accountants.saddlepoint.pair import SaddlePointPairCurve


def profile_points(
    pair: SaddlePointPairCurve,
) -> tuple[FloatArray, FloatArray, float]:
    r"""``(eps, delta)`` at :math:`\varepsilon(s)` of 240 log-spaced saddle
    points per side, 0, the split point and the support's ends, and the largest
    skewness met (the notes of its repairs go to ``pair._table_notes``)."""
    saddles = pair._saddles
    eps_parts, delta_parts = [], []
    skew = 0.0
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
        no_skip = np.zeros(d.shape, bool)
        skew = max(skew, pair._skew(vals, log_i, d, no_skip))
        eps_parts.append(e[keep])
        delta_parts.append(d)
    extra = [
        0.0,
        pair.eps_split,
        *(b for b in pair.support if math.isfinite(b)),
    ]
    extra_e = np.array(extra)
    eps_parts.append(extra_e)
    extra_d, extra_skew = pair._delta(extra_e, True, pair._table_notes)
    delta_parts.append(extra_d)
    skew = max(skew, extra_skew)
    eps = np.concatenate(eps_parts)
    delta = np.concatenate(delta_parts)
    eps, idx = np.unique(eps, return_index=True)
    delta = delta[idx]
    if pair.symmetric:
        delta, eps = delta[eps >= 0.0], eps[eps >= 0.0]
    return eps, delta, skew


def tradeoff_answer(pair: SaddlePointPairCurve, a: FloatArray) -> Answer:
    r""":math:`f(\alpha) = \max\{0, \max_k 1 - \hat\delta(\varepsilon_k)
    - e^{\varepsilon_k}\alpha\}` over the pair's ``profile_table`` (Dong et al.
    2019, Prop. 2.8; mirrored lines for symmetric compositions), with the
    records of the table's repairs and validity."""
    eps, delta = pair.profile_table()

    def lookup(x: FloatArray) -> FloatArray:
        # Interpolation can fall below 1 - e^{eps + K(-1)}: floor it.
        floor = B.below_support(x, pair.log_p_mass)
        return np.maximum(np.interp(x, eps, delta), floor)

    raw = supporting_lines(lookup, a, eps, pair.symmetric, False)
    out = np.minimum(raw, 1.0 - a)
    notes = list(pair._table_notes)
    if np.any(raw - out > 1e-12):
        notes.append(
            "the curve from the profile's supporting lines exceeds 1 - alpha "
            "(the estimated profile is below that of any trade-off function "
            "there); clipped to 1 - alpha"
        )
    repairs = query_repairs(Query.TRADEOFF, notes, pair._table_skew)
    return Answer(out, repairs=repairs)
