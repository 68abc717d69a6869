r"""Symmetrisation: :math:`\min\{f, f^{-1}\}^{**}` (Dong et al. 2019, Def. 4.1 and
App. F; Zheng et al. 2020, Sec. 4, footnote 3)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from symfdp.numeric.tabulate import alpha_grid, lower_convex_hull
from symfdp.tradeoff._base import FloatArray, Inverse, TradeOff, check_tradeoff
from symfdp.tradeoff._numeric import golden_max

#: Alternating tangent refinements of each off-diagonal bridge of a convex hull.
_BRIDGE_REFINEMENTS = 4


@dataclass(frozen=True)
class Symmetrized(TradeOff):
    r""":math:`\min\{f, f^{-1}\}^{**}`, the largest convex minorant of
    :math:`\min\{f, f^{-1}\}` (Dong et al. 2019, Def. 4.1 and App. F; Zheng et al.
    2020, Sec. 4, footnote 3).

    The hull of :func:`~symfdp.numeric.tabulate.lower_convex_hull` on
    :func:`~symfdp.numeric.tabulate.alpha_grid`, with each bridge refined to the
    common tangent (accurate far below the grid's resolution).

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

        # The diagonal bridge has slope exactly -1 (the hull is symmetric) and
        # intercept 1 - TV (CF-D23); found directly, also when narrower than the grid.
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
        # Bridges over linear stretches of h are exact chords already.
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

            def tangent(t: FloatArray, s: FloatArray = s) -> FloatArray:
                return s * t - self._lower(t)

            a, neg_a = golden_max(tangent, a_lo, a_hi, 48)
            b, neg_b = golden_max(tangent, b_lo, b_hi, 48)
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
        # (min{f, g}^{**})^* = max{f^*, g^*}: the larger of the two profiles.
        return np.maximum(self.base._profile(e), self.base._inverse_profile(e))


def _sorted_bridges(
    left: FloatArray, right: FloatArray, intercept: FloatArray, slope: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    order = np.argsort(left)
    return left[order], right[order], intercept[order], slope[order]
