r"""Certified bracket on the privacy of one composed pair, from two discretised
compositions (:class:`CertifiedPairCurve`).

For each component, the PLRV is discretised twice on a lattice of step :math:`h`
(:mod:`symfdp.pld.discretise`): a **dominating** measure :math:`Z_i` (connect the
dots, Doroshenko et al. 2022; a mean-preserving spread of :math:`V = e^{L}` under
:math:`P`, Q-mass beyond the range moved to :math:`+\infty`) and a **dominated**
measure :math:`Y_i` (barycentric rounding; a contraction of :math:`V` in the
increasing convex order, Q-mass beyond the range dropped). Since
:math:`\delta(\varepsilon) = E_P[(V - e^{\varepsilon})_+]` and
:math:`(\prod_i v_i - t)_+` is convex and non-decreasing in each factor,
:math:`\delta_{\otimes Y} \le \delta \le \delta_{\otimes Z}` for every real
:math:`\varepsilon`, and the certified bracket is

.. math::  \delta_{lo} = \hat\delta_Y - W_Y - C_Y - R_Y(N), \qquad
           \delta_{hi} = \hat\delta_Z + m_\infty + W_Z + C_Z + R_Z(c),

clipped to [0, 1]: :math:`m_\infty = 1 - \prod_i (1 - m_{\infty,i})^{n_i}` the
Q-mass at :math:`+\infty`, :math:`W` the Chernoff bound on the mass outside the FFT
window (:mod:`symfdp.pld.window`), :math:`R(c) = E_2\sqrt{c} + E_\infty c` the
FFT round-off of a sum over :math:`c = \#\{t_j > \varepsilon\}` lattice points
and :math:`C` the other round-off allowances (:mod:`symfdp.pld.compose`). Where
the bracket is wide in the upper tail it is intersected with the brackets of
exponentially tilted compositions (:mod:`symfdp.pld.tilt`). Trade-off bounds follow
through :math:`f(\alpha) = \sup_\varepsilon 1 - \delta(\varepsilon) -
e^{\varepsilon}\alpha` (Dong et al. 2019, Prop. 2.4), exact for the discrete
measures (:mod:`symfdp.pld.profile`). Point estimates are the average of the two
measures, so their error is at most the half-width of the bracket.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp.curve.answer import Answer, PairCurve, Query, Repair
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.roots import monotone_bisect
from symfdp.pld.compose import UNIT_ROUNDOFF, ComposedPLD, FFTSizeError
from symfdp.pld.discretise import DiscretePLD
from symfdp.pld.profile import (
    DiscreteProfile,
    loss_range_profile_limits,
    loss_range_tradeoff_floor,
)
from symfdp.pld.tilt import TiltedProfile, compose_tilted, tilt_for, tilt_for_delta
from symfdp.pld.window import Window

#: Levels of the nested discretisation round-off bound (CertifiedPairCurve.
#: tail_allowance); each multiplies the remainder by about tail_rate.
_NEST = 3
#: Largest number of tilted compositions per query (each costs two FFTs).
_MAX_TILTS = 4
_ADVICE = (
    "Smaller deltas need a smaller tail_mass (truncation) and, for long "
    "compositions, accept a wider bracket (FFT round-off); accountants.RDP gives "
    "a (looser) upper bound at any delta."
)


def _worst(lo: FloatArray, hi: FloatArray, flagged: Any) -> str:
    """The relatively widest flagged bracket, formatted."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(np.isfinite(hi), (hi - lo) / np.abs(hi), np.inf)
    rel = np.where(flagged, np.nan_to_num(rel, nan=np.inf), -np.inf)
    i = int(np.argmax(rel))
    return f"{float(lo.flat[i]):.4g}, {float(hi.flat[i]):.4g}"


def _wide(query: Query, what: str) -> Repair:
    """The record of a bracket too wide for its point estimate (its size, the
    error of the estimate, is unknown beyond the bracket)."""
    return Repair(query, what.rstrip(". "))


#: Trade-off brackets narrower than twice this are never recorded as wide.
_TRADEOFF_ATOL = 1e-6

#: Tilts are rounded to the grid 2**(k / _TILT_GRID), so nearby queries reuse
#: a cached tilted composition.
_TILT_GRID = 8


def _tilt_key(lam: float) -> float:
    """``lam`` rounded to the grid of :data:`_TILT_GRID` (cache key and tilt)."""
    return float(2.0 ** (round(_TILT_GRID * math.log2(lam)) / _TILT_GRID))


#: Queries up to this many deltas evaluate the allowance cell range by cell
#: range; larger ones on the union of the ranges, in one pass over the lattice.
_LOCAL_QUERIES = 8

#: Cap on Newton steps of the eps inverse (it converges in a few).
_NEWTON_STEPS = 60


@dataclass(frozen=True)
class _TiltGrids:
    """One side of a tilted composition, prepared for :meth:`CertifiedPairCurve.
    _local_bound`: its profile, the allowance without the round-off part
    (``base``, per cell) and the negated monotone envelopes of the lattice
    values with the round-off allowance at 0 (``neg_acc0``) and at its cap
    ``tail_rate`` (``neg_acc1``)."""

    profile: DiscreteProfile
    base: FloatArray
    neg_acc0: FloatArray
    neg_acc1: FloatArray


@dataclass(frozen=True)
class CompositionParts:
    """What a tilted composition is rebuilt from: the discretised components of
    the dominating (``ups``) and dominated (``lows``) measures with their counts,
    the FFT window of the plain composition and the largest FFT length allowed.

    A large composition keeps ``rebuild`` instead (``ups``, ``lows`` empty until
    :meth:`loaded`; one such composition holds its rebuilt parts at a time)."""

    ups: list[tuple[DiscretePLD, int]]
    lows: list[tuple[DiscretePLD, int]]
    window: Window
    max_fft_size: int
    rebuild: Callable[[], tuple[list[Any], list[Any]]] | None = field(
        default=None, compare=False
    )

    def loaded(self) -> CompositionParts:
        """These parts, with ``ups`` and ``lows`` rebuilt if dropped."""
        if self.rebuild is not None and not self.ups:
            held = _REBUILT[0] if _REBUILT else None
            if held is not None and held is not self:
                held.ups.clear()
                held.lows.clear()
            _REBUILT[:] = [self]
            ups, lows = self.rebuild()
            self.ups.extend(ups)
            self.lows.extend(lows)
        return self


#: The one recipe-kept composition whose parts are currently rebuilt.
_REBUILT: list[CompositionParts] = []


#: Largest number of queried delta arrays whose eps brackets a curve keeps.
_BRACKETS_KEPT = 32


@dataclass
class _TiltCache:
    """Per-curve caches of the tilted compositions (keyed by the rounded tilt),
    of the tilt chosen for a queried delta, of the tilts' search grids, and of
    the eps brackets (plain and refined) per queried delta array: the bracket
    the accountant checks at ``delta_ref`` while composing and the one a query
    there reads are computed once."""

    tilts: dict[float, tuple[TiltedProfile, TiltedProfile]] = field(
        default_factory=dict
    )
    for_delta: dict[float, float] = field(default_factory=dict)
    grids: dict[float, tuple[_TiltGrids, _TiltGrids]] = field(default_factory=dict)
    plain_eps: dict[bytes, tuple[FloatArray, FloatArray]] = field(default_factory=dict)
    refined_eps: dict[bytes, tuple[FloatArray, FloatArray, list[tuple[float, Any]]]] = (
        field(default_factory=dict)
    )


def _keep(cache: dict[bytes, Any], key: bytes, value: Any) -> None:
    """``cache[key] = value``, emptying ``cache`` first when it holds
    :data:`_BRACKETS_KEPT` entries."""
    if len(cache) >= _BRACKETS_KEPT:
        cache.clear()
    cache[key] = value


@dataclass(frozen=True)
class CertifiedPairCurve(PairCurve):
    r"""Certified bracket on the privacy of one composed pair (a
    :class:`~symfdp.curve.PairCurve`: every answer carries its bracket, its
    half-width as the error, and a record where the bracket is too wide for
    the point estimate to be accurate).

    Attributes:
        lower: Profile of the composed dominated measure :math:`Y`.
        upper: Profile of the composed dominating measure :math:`Z`.
        lower_slack: Constant subtracted from :math:`\hat\delta_Y`.
        upper_extra: Allowance added to :math:`\hat\delta_Z` on each cell of
            ``upper`` (length ``N + 1``, non-increasing).
        inf_mass: Q-mass of :math:`Z` at :math:`+\infty`.
        tail_rate: Discretisation round-off per unit of
            :math:`Q(T > \varepsilon - h)` (:mod:`symfdp.pld.compose`), applied
            to both bounds through :meth:`tail_allowance`.
        tail_shift: The shift :math:`s` of the tail bound of
            :meth:`tail_allowance`.
        parts: The discretised components, for tilted compositions.
        eps_rel_tol: Relative width above which a bracket counts as wide.
        loss_range: Range of the composed loss under Q.
        info: Diagnostics (grid step, FFT sizes, allowances), read-only.
    """

    lower: DiscreteProfile
    upper: DiscreteProfile
    lower_slack: float
    upper_extra: FloatArray
    inf_mass: float
    tail_rate: float
    parts: CompositionParts = field(compare=False, repr=False)
    eps_rel_tol: float
    loss_range: tuple[float, float]
    tail_shift: float
    info: Mapping[str, Any] = field(compare=False)
    _cache: _TiltCache = field(
        default_factory=_TiltCache, init=False, compare=False, repr=False
    )

    @classmethod
    def from_composed(
        cls,
        low: ComposedPLD,
        up: ComposedPLD,
        parts: CompositionParts,
        *,
        eps_rel_tol: float,
        loss_range: tuple[float, float],
        tail_shift: float,
        info: Mapping[str, Any],
    ) -> CertifiedPairCurve:
        """The bracket of the two compositions ``low`` (of ``parts.lows``) and
        ``up`` (of ``parts.ups``) with their allowances; ``info`` is stored
        read-only."""
        lower = DiscreteProfile.from_masses(low.t0, low.h, low.q)
        upper = DiscreteProfile.from_masses(up.t0, up.h, up.q)
        slack = low.outside + low.fp_const
        slack += low.fft_l2 * math.sqrt(low.size) + low.fft_linf * low.size
        above = up.size - np.arange(up.size + 1)
        extra = up.inf_mass + up.outside + up.fp_const
        extra = extra + up.fft_l2 * np.sqrt(above) + up.fft_linf * above
        extra.setflags(write=False)
        return cls(
            lower=lower,
            upper=upper,
            lower_slack=slack,
            upper_extra=extra,
            inf_mass=up.inf_mass,
            tail_rate=max(low.tail_rate, up.tail_rate),
            parts=parts,
            eps_rel_tol=eps_rel_tol,
            loss_range=loss_range,
            tail_shift=tail_shift,
            info=MappingProxyType(dict(info)),
        )

    # ------------------------------------------------------------ profile
    def _upper_delta(self, e: FloatArray) -> FloatArray:
        k = self.upper.cell(e)
        return cast(FloatArray, self.upper.delta(e) + self.upper_extra[k])

    def tail_allowance(self, eps: ArrayLike) -> FloatArray:
        r"""Bound on the discretisation round-off at ``eps``.

        ``tail_rate`` :math:`\times` a bound on the Q-tail above
        :math:`\varepsilon - h` of any composition of true, dominated and
        dominating components (:mod:`symfdp.pld.compose`). All of them are below
        the all-dominating composition :math:`Z` in the increasing convex order,
        and :math:`(1 - e^{x - s - t})_+ \ge (1 - e^{-s}) 1\{t > x\}` for any
        :math:`s > 0`, so the tail is at most :math:`\min\{1, \delta_Z(x -
        s)/(1 - e^{-s})\}` with :math:`\delta_Z \le` the upper profile plus its
        allowances plus this allowance at :math:`x - s` (``tail_shift``
        :math:`s`: half the composed standard deviation, at most 1, so that
        :math:`x - s` stays in the tail): the recursion is unrolled ``_NEST``
        levels deep and closed with ``tail_rate``.
        """
        e = np.asarray(eps, dtype=np.float64)
        return self._allowance(e, self.upper, self.upper_extra, _NEST)

    def _allowance(
        self, e: FloatArray, up: DiscreteProfile, extra: FloatArray, depth: int
    ) -> FloatArray:
        """The nested allowance of :meth:`tail_allowance` with the dominating
        profile ``up`` and its allowances ``extra`` (per cell)."""
        r = self.tail_rate
        if depth == 0 or r == 0.0:
            return np.full(np.shape(e), r)
        x = e - up.h - self.tail_shift
        inner = self._allowance(x, up, extra, depth - 1)
        base = up.delta(x) + extra[up.cell(x)] + inner
        return cast(
            FloatArray, r * np.minimum(base / -math.expm1(-self.tail_shift), 1.0)
        )

    def _tilted_tail_allowance(
        self, e: FloatArray, z: TiltedProfile, up_extra: FloatArray
    ) -> FloatArray:
        """:meth:`tail_allowance` with the tail bounded by a tilted dominating
        profile (``inf`` where it is not usable, giving the cap ``tail_rate``)."""
        return self._allowance(e, z.profile, up_extra, _NEST)

    def delta_bounds(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Certified ``(lower, upper)`` bounds on ``delta(eps)``, any real eps.

        Where the bracket of the plain FFT is wider than ``10 eps_rel_tol``
        (relative) in the upper tail, it is intersected with the brackets of
        tilted compositions (:meth:`_refine_delta`); both are certified, so
        their intersection is.
        """
        return self._delta_bounds_and_core(np.asarray(eps, dtype=np.float64))[:2]

    def _plain_delta_bounds(self, e: FloatArray) -> tuple[FloatArray, FloatArray]:
        fp = self.tail_allowance(e)
        lo = np.clip(self.lower.delta(e) - self.lower_slack - fp, 0.0, 1.0)
        hi = np.clip(self._upper_delta(e) + fp, 0.0, 1.0)
        return lo, hi

    def _delta_bounds_and_core(
        self, e: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        lo, hi = self._plain_delta_bounds(e)
        # Exact limits from the loss range (curve.BoundedLossPair).
        floor, top = loss_range_profile_limits(e, self.loss_range)
        hi = np.minimum(hi, top)
        lo = np.maximum(lo, floor)
        lo = np.minimum(lo, hi)
        core = self._core(e)
        # Tilted estimate exactly where epsilon() uses one, so the two estimates
        # are inverses; bounds refined wherever either bracket is wide.
        tilted_estimate = self._epsilon_refines(np.clip(core, 0.0, 1.0))
        wide = self._delta_wide(lo, hi, 10.0) | tilted_estimate
        if wide.any():
            lo, hi, core = self._refine_delta(e, lo, hi, core, wide, tilted_estimate)
        return lo, hi, core

    def _epsilon_refines(self, d: FloatArray) -> Any:
        """Where :meth:`_epsilon_bounds_refined` tilts: the plain eps bracket at
        ``d`` is wider than ``eps_rel_tol`` and ``d`` is above the truncation
        floor."""
        lo, hi = self._plain_eps_bracket(d)
        return self._epsilon_wide(lo, hi) & (d > self._truncation_floor())

    def _plain_eps_bracket(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The plain eps bounds, clipped to the loss range."""
        lo, hi = self._plain_epsilon_bounds(d)
        with np.errstate(divide="ignore"):
            top = np.maximum(self.loss_range[1] + np.log1p(-d), 0.0)
        hi = np.minimum(hi, top)
        return np.minimum(lo, hi), hi

    def _truncation_floor(self) -> float:
        """The additive part of the bracket no FFT can remove: the mass at
        +infinity and outside the window (set by ``tail_mass``)."""
        return self.inf_mass + self.parts.window.outside

    def _delta_wide(self, lo: FloatArray, hi: FloatArray, factor: float) -> Any:
        """Entries whose bracket is wider than ``factor * eps_rel_tol`` relative,
        above ``factor`` times the truncation floor (below it the width is
        mostly that floor, which ``tail_mass`` sets)."""
        floor = factor * self._truncation_floor()
        return (hi - lo > factor * self.eps_rel_tol * hi) & (hi > floor)

    @property
    def estimates_error(self) -> bool:
        return True

    def with_tolerance(self, eps_rel_tol: float) -> CertifiedPairCurve:
        """This curve with another ``eps_rel_tol`` (what counts as wide), keeping
        the tilted compositions and the plain brackets already computed (they
        do not depend on it)."""
        out = dataclasses.replace(self, eps_rel_tol=eps_rel_tol)
        out._cache.tilts.update(self._cache.tilts)
        out._cache.for_delta.update(self._cache.for_delta)
        out._cache.grids.update(self._cache.grids)
        out._cache.plain_eps.update(self._cache.plain_eps)
        return out

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """The point estimate in its certified bracket (:meth:`_delta_answer`,
        :meth:`_epsilon_answer`, :meth:`_tradeoff_answer`)."""
        if query is Query.DELTA:
            return self._delta_answer(points)
        if query is Query.EPSILON:
            return self._epsilon_answer(points)
        return self._tradeoff_answer(points)

    def _delta_answer(self, e: FloatArray) -> Answer:
        """Point estimate: the average of the dominated and dominating profiles
        (of the tilted compositions where they refine the bracket), clipped into
        the bracket; a record where the bracket is wider than ``100
        eps_rel_tol`` relative."""
        lo, hi, core = self._delta_bounds_and_core(e)
        flagged = self._delta_wide(lo, hi, 100.0)
        repairs: tuple[Repair, ...] = ()
        if np.any(flagged):
            repairs = (
                _wide(
                    Query.DELTA,
                    "the certified bracket on delta(eps) is wider than "
                    f"{100 * self.eps_rel_tol:g} relative at some eps (e.g. "
                    f"[{_worst(lo, hi, flagged)}]); the point estimate is not "
                    "accurate there. " + _ADVICE,
                ),
            )
        return Answer(np.clip(core, lo, hi), 0.5 * (hi - lo), lo, hi, repairs)

    # ------------------------------------------------------------ tilting
    def _tilted(self, lam: float) -> tuple[TiltedProfile, TiltedProfile]:
        """``(Z, Y)`` tilted profiles at ``lam`` (cached by :func:`_tilt_key`)."""
        key = _tilt_key(lam)
        hit = self._cache.tilts.get(key)
        if hit is None:
            p = self.parts.loaded()
            hit = compose_tilted(p.ups, p.lows, p.window, key, p.max_fft_size)
            self._cache.tilts[key] = hit
        return hit

    def _tilt_for_delta(self, d: float) -> float:
        """:func:`~symfdp.pld.tilt.tilt_for_delta` of the dominating parts at
        ``log d``, cached per delta."""
        hit = self._cache.for_delta.get(d)
        if hit is None:
            hit = tilt_for_delta(self.parts.loaded().ups, math.log(d))
            self._cache.for_delta[d] = hit
        return hit

    def _tilt_grids(
        self, lam: float, z: TiltedProfile, y: TiltedProfile, base: FloatArray
    ) -> tuple[_TiltGrids, _TiltGrids]:
        """The profiles' grids of one tilt with the allowance at 0 and at its cap
        (cached with the tilt): where :meth:`_local_bound` looks."""
        key = _tilt_key(lam)
        hit = self._cache.grids.get(key)
        if hit is None:
            cap = self.tail_rate
            g0 = z.profile.grid_delta(base)
            up = _TiltGrids(
                z.profile,
                base,
                -np.minimum.accumulate(g0),
                -np.minimum.accumulate(g0 + cap),
            )
            low_base = y.lower_extra(0.0)
            g0 = y.profile.grid_delta(low_base)
            low = _TiltGrids(
                y.profile,
                low_base,
                -np.maximum.accumulate(g0[::-1])[::-1],
                -np.maximum.accumulate((g0 - cap)[::-1])[::-1],
            )
            hit = (up, low)
            self._cache.grids[key] = hit
        return hit

    def _tilted_core(self, e: FloatArray, lam: float) -> FloatArray:
        """The estimate of a tilt at ``e``: the average of its two profiles (NaN
        where either misses masses)."""
        z, y = self._tilted(lam)
        ok = (z.profile.cell(e) > z.start) & (y.profile.cell(e) > y.start)
        core = 0.5 * (z.profile.delta(e) + y.profile.delta(e) + self.inf_mass)
        return np.where(ok, core, np.nan)

    def _tilted_delta(self, e: FloatArray, lam: float) -> tuple[Any, Any, Any]:
        """Certified bounds and the estimate at ``e`` from the tilt ``lam``
        (bounds are ``0, 1`` and the estimate NaN where it is not usable)."""
        z, y = self._tilted(lam)
        window = self.parts.window
        kz = z.profile.cell(e)
        up_extra = z.upper_extra(self.inf_mass + window.outside)
        fp = np.minimum(
            self.tail_allowance(e), self._tilted_tail_allowance(e, z, up_extra)
        )
        hi = np.clip(z.profile.delta(e) + up_extra[kz] + fp, 0.0, 1.0)
        ky = y.profile.cell(e)
        lo = np.clip(y.profile.delta(e) + y.lower_extra(0.0)[ky] - fp, 0.0, 1.0)
        est = self._tilted_core(e, lam)
        return lo, hi, est

    def _refine_delta(
        self,
        e: FloatArray,
        lo: FloatArray,
        hi: FloatArray,
        core: FloatArray,
        wide: Any,
        estimate: Any,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Intersect the wide brackets with tilted ones, at most
        ``_MAX_TILTS`` tilts per call (each tilt serves the eps near its mean);
        the estimate is the tilted one where ``estimate`` is set."""
        lo, hi, core = lo.copy(), hi.copy(), core.copy()
        todo = wide.copy()
        tilts = 0
        while todo.any() and tilts < _MAX_TILTS:
            target = float(np.min(e[todo]))
            lam = tilt_for(self.parts.loaded().ups, target)
            if lam <= 0.0:  # at or below the mean: no tilt helps
                todo &= e > target
                continue
            tilts += 1
            try:
                t_lo, t_hi, t_est = self._tilted_delta(e, lam)
            except FFTSizeError:
                break  # larger eps need larger tilts: keep the plain bracket
            lo = np.maximum(lo, t_lo)
            hi = np.minimum(hi, t_hi)
            better = np.isfinite(t_est) & todo & estimate
            core = np.where(better, t_est, core)
            todo &= self._delta_wide(lo, hi, 10.0) & (e > target)
        return lo, hi, core

    def _epsilon_answer(self, d: FloatArray) -> Answer:
        r"""Point estimate of :math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon)
        \le d\}` for the estimated profile, in the bracket of
        :meth:`epsilon_bounds`.

        The estimate is convex and decreasing in :math:`x = e^{\varepsilon}` and
        piecewise affine, so Newton's method in :math:`x`, started left of the root
        (at the smaller of the two measures' exact inverses, or at 0), increases
        monotonically to it and is exact once it reaches the root's piece.

        Where the bracket is refined by tilted compositions, it is the inverse of
        their average profile, clipped into the bracket. A record where the
        certified bracket is wider than ``10 eps_rel_tol`` relative.

        Raises:
            ValueError: ``delta`` is not above half the Q-mass at infinity, or
                no finite epsilon is certified for it (FFT round-off and
                truncated tails hide such small deltas).
        """
        if np.any(d <= 0.5 * self.inf_mass):
            raise ValueError(
                f"delta must exceed the resolution {0.5 * self.inf_mass:.3g} of this "
                "Numerical curve: the Q-mass its lattices put at +infinity (the "
                "tails cut at tail_mass, or at 2^15 standard deviations of a "
                "heavy-tailed loss). " + _ADVICE
            )
        lo, hi, refined = self._epsilon_bounds_refined(d)
        if not np.all(np.isfinite(hi)):
            bad = float(np.min(d[~np.isfinite(hi)]))
            raise ValueError(
                f"Numerical certifies no finite epsilon for delta = {bad:g}: the "
                "profile's upper bound (FFT round-off, truncated tails) stays above "
                "it even after tilting. " + _ADVICE
            )
        eps = self._plain_epsilon(d)
        for lam, sel in refined:
            # The tilted average profile is non-increasing where both measures
            # keep their masses: bisect it inside the certified bracket.
            def core(x: FloatArray, lam: float = lam) -> FloatArray:
                return np.nan_to_num(self._tilted_core(x, lam), nan=np.inf)

            eps[sel] = monotone_bisect(core, d[sel], lo[sel], hi[sel], xtol=1e-12)
        eps = np.clip(eps, lo, hi)
        flagged = hi - lo > 10.0 * self.eps_rel_tol * np.maximum(lo, 1.0)
        repairs: tuple[Repair, ...] = ()
        if np.any(flagged):
            repairs = (
                _wide(
                    Query.EPSILON,
                    "the certified bracket on epsilon(delta) is wider than "
                    f"{10 * self.eps_rel_tol:g} relative at some delta (e.g. "
                    f"[{_worst(lo, hi, flagged)}]). " + _ADVICE,
                ),
            )
        return Answer(eps, 0.5 * (hi - lo), lo, hi, repairs)

    def _plain_epsilon(self, d: FloatArray) -> FloatArray:
        """The Newton inverse of the plain (untilted) estimate."""
        e_lo = self.lower.inverse(d, *self._lower_plain)
        e_hi = self.upper.inverse(d, *self._upper_plain)
        eps = np.maximum(np.minimum(e_lo, e_hi), 0.0)
        for _ in range(_NEWTON_STEPS):
            gap = self._core(eps) - d
            slope = 0.5 * (self.lower.p_mass_above(eps) + self.upper.p_mass_above(eps))
            move = (gap > 0) & (slope > 0)
            if not move.any():
                break
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                # The step log(e^eps + gap/slope) - eps, in log space: e^eps
                # itself overflows beyond eps ~ 709 (epsilon was inf there).
                log_ratio = np.log(gap) - np.log(slope) - eps
                step = np.where(move, np.logaddexp(0.0, log_ratio), 0.0)
            eps = eps + np.maximum(step, 0.0)
            if np.all(np.abs(step) <= 1e-13 * np.maximum(1.0, np.abs(eps))):
                break
        return self._past_crossing(eps, d)

    def _past_crossing(self, eps: FloatArray, d: FloatArray) -> FloatArray:
        """Move each ``eps`` (left of the crossing, as Newton leaves it) to just
        past it, so that the estimate at the answer is at most ``d``: steps of
        ``2^k`` ulps of ``max(1, eps)`` until ``_core(eps) <= d``."""
        unit = np.spacing(np.maximum(1.0, np.abs(eps)))
        for k in range(64):
            over = self._core(eps) > d
            if not over.any():
                break
            eps = np.where(over, eps + unit * 2.0**k, eps)
        return eps

    def _cell_allowance(
        self,
        profile: DiscreteProfile,
        upper: DiscreteProfile | None = None,
        upper_extra: FloatArray | None = None,
        cells: Any = None,
    ) -> FloatArray:
        r""":meth:`tail_allowance` bounded on each cell of ``profile`` (on the
        cells of index ``cells`` only, when given).

        On cell ``k`` (left end :math:`t_{k-1}`) the allowance is at most its
        value at :math:`t_{k-1}`, which needs :math:`\delta_{hi}` at
        :math:`t_{k-1} - h - s`; the upper profile at the nearest lattice point
        below that is larger (non-increasing). ``upper`` and ``upper_extra``
        replace the dominating profile and its allowances (a tilted one's).
        """
        up = self.upper if upper is None else upper
        extra = self.upper_extra if upper_extra is None else upper_extra
        if cells is None:
            left = profile.points - profile.h - up.h - self.tail_shift
        else:  # the left ends of the cells asked for (cell 0: -inf, value 1)
            k = np.asarray(cells, dtype=np.int64)
            left = profile.t0 + (k - 1) * profile.h - profile.h - up.h
            left = cast(FloatArray, left - self.tail_shift)
        inner = self._allowance(left - up.h, up, extra, _NEST - 1)
        j = np.floor((left - up.t0) / up.h + 1e-9).astype(np.int64)
        jc = np.clip(j, 0, up.size - 1) + 1
        grid_hi = np.maximum(up.suffix[jc] - math.exp(-up.h) * up.tilted[jc], 0.0)
        grid_hi = grid_hi + extra[jc]
        top = float(extra[-1]) + inner
        vals = np.where(j < 0, 1.0, grid_hi + inner)
        vals = np.where(j >= up.size, top, vals)
        if cells is not None:
            vals = np.where(k <= 0, 1.0, vals)
            return self.tail_rate * np.minimum(
                vals / -math.expm1(-self.tail_shift), 1.0
            )
        vals = np.concatenate(([1.0], vals))
        tails = np.minimum(vals / -math.expm1(-self.tail_shift), 1.0)
        return self.tail_rate * tails

    def _local_bound(
        self,
        grids: _TiltGrids,
        d: FloatArray,
        allowance: Any,
        upper: bool,
        sign: float | None = None,
    ) -> FloatArray:
        r"""A certified eps bound at ``d`` from one side of a composition,
        with the per-cell allowance computed only where the answer can lie.

        The allowance lies in ``[0, tail_rate]``, so the crossing of
        :math:`\delta + \text{extra}` with ``d`` lies between its crossings
        with the allowance at 0 and at ``tail_rate`` (cached per tilt in
        ``grids``), so evaluating on the sub-lattice between the two crossings
        gives the whole lattice's answer. ``upper``: first-crossing rule
        (:meth:`DiscreteProfile.inverse`), else last point above ``d``; ``sign``
        (default ``+1`` / ``-1`` by rule) is how the allowance enters.
        """
        shape = np.shape(d)
        d = np.asarray(d, dtype=np.float64).reshape(-1)
        profile, base = grids.profile, grids.base
        if sign is None:
            sign = 1.0 if upper else -1.0
        n_cells = profile.size + 1
        out = np.empty(d.shape)
        if upper:
            j_a = np.searchsorted(grids.neg_acc0, -d, side="left")
            j_b = np.searchsorted(grids.neg_acc1, -d, side="left")
        else:
            j_a = np.searchsorted(grids.neg_acc1, -d, side="left") - 1
            j_b = np.searchsorted(grids.neg_acc0, -d, side="left") - 1
        if d.size > _LOCAL_QUERIES:
            return self._hybrid_bound(grids, d, j_a, j_b, allowance, upper, sign)
        for i in range(d.size):
            k0 = int(min(max(min(j_a[i], j_b[i]) - 1, 0), n_cells - 1))
            k1 = int(min(max(j_a[i], j_b[i]) + 3, n_cells))
            cells = np.arange(k0, k1)
            extra = base[k0:k1] + sign * allowance(cells)
            sub = DiscreteProfile(
                profile.t0 + k0 * profile.h,
                profile.h,
                profile.suffix[k0:k1],
                profile.tilted[k0:k1],
            )
            if upper:
                out[i] = sub.inverse(d[i : i + 1], extra)[0]
            else:
                above = np.flatnonzero(sub.grid_delta(extra) > d[i])
                last = k0 + int(above[-1]) if above.size else -1
                out[i] = profile.t0 + last * profile.h if last >= 0 else -np.inf
        return out.reshape(shape)

    def _hybrid_bound(
        self,
        grids: _TiltGrids,
        d: FloatArray,
        j_a: Any,
        j_b: Any,
        allowance: Any,
        upper: bool,
        sign: float,
    ) -> FloatArray:
        """:meth:`_local_bound` for many deltas at once: the allowance on the
        union of their cell ranges, its cap elsewhere (a valid, larger
        allowance that gives the same answers), then one pass over the lattice."""
        profile, base = grids.profile, grids.base
        n_cells = profile.size + 1
        start = np.clip(np.minimum(j_a, j_b) - 1, 0, n_cells)
        stop = np.clip(np.maximum(j_a, j_b) + 3, 0, n_cells)
        mark = np.zeros(n_cells + 1, dtype=np.int64)
        np.add.at(mark, start, 1)
        np.add.at(mark, stop, -1)
        cells = np.flatnonzero(np.cumsum(mark[:-1]) > 0)
        extra = base + sign * self.tail_rate
        extra[cells] = base[cells] + sign * allowance(cells)
        if upper:
            return profile.inverse(d, extra)
        grid = profile.grid_delta(extra)
        best = np.maximum.accumulate(grid[::-1])[::-1]
        count = np.searchsorted(-best, -d, side="left")
        pts = profile.t0 + np.maximum(count - 1, 0) * profile.h
        return np.where(count > 0, pts, -np.inf)

    @functools.cached_property
    def _lower_plain(self) -> tuple[FloatArray, FloatArray]:
        """The dominated measure alone, and its inverse's envelope."""
        extra = np.zeros(self.lower.size + 1)
        return extra, self.lower.shifted_envelope(0.0)

    @functools.cached_property
    def _upper_plain(self) -> tuple[FloatArray, FloatArray]:
        """The dominating measure with its mass at infinity, and the envelope."""
        extra = np.full(self.upper.size + 1, self.inf_mass)
        return extra, self.upper.shifted_envelope(self.inf_mass)

    @functools.cached_property
    def _upper_bound_grid(self) -> tuple[FloatArray, FloatArray]:
        """The upper bound's allowances and its inverse's envelope."""
        return self._upper_cell_extra, self.upper.envelope(self._upper_cell_extra)

    @functools.cached_property
    def _lower_bound_grid(self) -> tuple[FloatArray, FloatArray]:
        """The lower bound's allowances and its inverse's envelope."""
        return self._lower_cell_extra, self.lower.envelope(self._lower_cell_extra)

    @functools.cached_property
    def _upper_cell_extra(self) -> FloatArray:
        """All allowances of the upper bound, at their maximum on each cell."""
        return self.upper_extra + self._cell_allowance(self.upper)

    @functools.cached_property
    def _lower_cell_extra(self) -> FloatArray:
        """All allowances of the lower bound (negative), maximal on each cell."""
        return -(self.lower_slack + self._cell_allowance(self.lower))

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        r"""Certified bounds on :math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon)
        \le d\}`, in closed form on the lattices.

        Upper: the first :math:`\varepsilon` where :math:`\delta_{hi}` (with the
        round-off allowance at its maximum on each cell) is :math:`\le d`; there
        :math:`\delta \le d`. Lower: the first :math:`\varepsilon` where
        :math:`\delta_{lo}` (allowance likewise) is :math:`\le d`; before it
        :math:`\delta > d`. Returns ``inf`` for the upper end when no eps
        reaches ``d``.
        """
        d = np.asarray(delta, dtype=np.float64)
        lo, hi, _ = self._epsilon_bounds_refined(d.reshape(-1))
        return lo.reshape(d.shape), hi.reshape(d.shape)

    def _plain_epsilon_bounds(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The bounds of the plain (untilted) composition alone: the inverses of
        the upper and lower profiles with their per-cell allowances, evaluated
        only where the answer can lie (:meth:`_local_bound`); kept per ``d``."""
        key = d.tobytes()
        hit = self._cache.plain_eps.get(key)
        if hit is None:
            up, low = self._plain_grids
            hi = self._local_bound(up, d, self._plain_upper_allowance, True)
            lo = self._local_bound(low, d, self._plain_lower_allowance, True, -1.0)
            hit = (np.maximum(lo, 0.0), np.maximum(hi, 0.0))
            _keep(self._cache.plain_eps, key, hit)
        return hit[0].copy(), hit[1].copy()

    def _plain_upper_allowance(self, cells: Any) -> FloatArray:
        return self._cell_allowance(self.upper, cells=cells)

    def _plain_lower_allowance(self, cells: Any) -> FloatArray:
        return self._cell_allowance(self.lower, cells=cells)

    @functools.cached_property
    def _plain_grids(self) -> tuple[_TiltGrids, _TiltGrids]:
        """:class:`_TiltGrids` of the plain bounds (first crossings of the
        running minima, allowance at 0 and at its cap). A constant added to
        every entry is added to the running minimum instead (rounding is
        monotone: the same values bit for bit)."""
        cap = self.tail_rate
        acc0 = np.minimum.accumulate(self.upper.grid_delta(self.upper_extra))
        up = _TiltGrids(self.upper, self.upper_extra, -acc0, -(acc0 + cap))
        base = np.full(self.lower.size + 1, -self.lower_slack)
        acc0 = self.lower.shifted_envelope(-self.lower_slack)
        low = _TiltGrids(self.lower, base, -acc0, -(acc0 - cap))
        return up, low

    def _epsilon_wide(self, lo: FloatArray, hi: FloatArray) -> Any:
        return ~np.isfinite(hi) | (hi - lo > self.eps_rel_tol * np.maximum(lo, 1.0))

    def _epsilon_bounds_refined(
        self, d: FloatArray
    ) -> tuple[FloatArray, FloatArray, list[tuple[float, Any]]]:
        """Plain bounds, intersected with tilted ones where they are wider than
        ``eps_rel_tol`` (up to ``_MAX_TILTS`` tilts, the first from the Chernoff
        exponent of the target, the next from the midpoint of the bracket so
        far). Returns the tilts used and the entries they served (``d`` and the
        masses are flat arrays); kept per ``d``."""
        key = d.tobytes()
        hit = self._cache.refined_eps.get(key)
        if hit is None:
            hit = self._refine_epsilon_bounds(d)
            _keep(self._cache.refined_eps, key, hit)
        lo, hi, refined = hit
        return lo.copy(), hi.copy(), [(lam, sel.copy()) for lam, sel in refined]

    def _refine_epsilon_bounds(
        self, d: FloatArray
    ) -> tuple[FloatArray, FloatArray, list[tuple[float, Any]]]:
        """:meth:`_epsilon_bounds_refined`, computed."""
        lo, hi = self._plain_eps_bracket(d)
        refined: list[tuple[float, Any]] = []
        todo = self._epsilon_wide(lo, hi) & (d > self._truncation_floor())
        for attempt in range(_MAX_TILTS):
            if not todo.any():
                break
            i = int(np.flatnonzero(todo)[np.argmin(d[todo])])
            if attempt == 0 or not np.isfinite(hi[i]):
                # The plain bracket can be vacuous: tilt for the delta itself.
                lam = self._tilt_for_delta(float(d[i]))
            else:
                lam = tilt_for(self.parts.loaded().ups, 0.5 * (lo[i] + hi[i]))
            if lam <= 0.0:
                break
            try:
                z, y = self._tilted(lam)
            except FFTSizeError:
                # Keep the plain bracket; epsilon() reports it if too wide.
                break
            window = self.parts.window
            base = z.upper_extra(self.inf_mass + window.outside)

            def up_allow(k: Any, z: Any = z, base: FloatArray = base) -> FloatArray:
                return np.minimum(
                    self._cell_allowance(z.profile, cells=k),
                    self._cell_allowance(z.profile, z.profile, base, cells=k),
                )

            def low_allow(
                k: Any, z: Any = z, y: Any = y, base: FloatArray = base
            ) -> FloatArray:
                return np.minimum(
                    self._cell_allowance(y.profile, cells=k),
                    self._cell_allowance(y.profile, z.profile, base, cells=k),
                )

            z_grids, y_grids = self._tilt_grids(lam, z, y, base)
            t_hi = np.maximum(self._local_bound(z_grids, d, up_allow, True), 0.0)
            t_lo = np.maximum(self._local_bound(y_grids, d, low_allow, False), 0.0)
            served = todo & (t_hi < hi)
            hi = np.minimum(hi, t_hi)
            lo = np.maximum(lo, t_lo)
            refined.append((_tilt_key(lam), served))
            still = self._epsilon_wide(lo, hi) & todo
            if still[i]:
                todo = still  # retry from the new midpoint
            else:
                todo = still & ~served
        return lo, hi, refined

    def core_epsilon_width(self, delta: ArrayLike) -> FloatArray:
        """Width of the eps bracket of the two discrete measures alone (no
        round-off allowances): the discretisation part of the bracket."""
        d = np.asarray(delta, dtype=np.float64)
        e_lo = self.lower.inverse(d, *self._lower_plain)
        e_hi = self.upper.inverse(d, *self._upper_plain)
        return np.maximum(e_hi, 0.0) - np.maximum(e_lo, 0.0)

    def _core(self, e: FloatArray) -> FloatArray:
        return 0.5 * (self.lower.delta(e) + self.upper.delta(e) + self.inf_mass)

    # ------------------------------------------------------------ trade-off
    def tradeoff_bounds(self, alpha: ArrayLike) -> tuple[FloatArray, FloatArray]:
        r"""Certified ``(lower, upper)`` bounds on :math:`T(P^n, Q^n)(\alpha)`.

        Lower: :math:`\sup_\varepsilon 1 - \delta_{hi}(\varepsilon) -
        e^\varepsilon\alpha` at the maximising lattice point of :math:`Z`.
        Upper: the exact :math:`\sup` for :math:`Y` plus its slack (and
        :math:`8Nu` for the rounding of the maximiser's location).
        """
        a = np.asarray(alpha, dtype=np.float64)
        cap = 1.0 - a
        # The allowance is non-increasing in eps: its value at each cell's left
        # end bounds it on the cell.
        lo = self.upper.tradeoff(a, self._upper_cell_extra)
        zeros = np.zeros(self.lower.size + 1)
        slack = self.lower_slack + self.tail_rate + 8 * self.lower.size * UNIT_ROUNDOFF
        hi = self.lower.tradeoff(a, zeros) + slack
        lo = np.maximum(lo, loss_range_tradeoff_floor(a, self.loss_range))
        return np.clip(lo, 0.0, cap), np.clip(hi, 0.0, cap)

    def _core_tradeoff(self, a: FloatArray) -> FloatArray:
        """The average of the two measures' exact trade-offs."""
        inf_extra = np.full(self.upper.size + 1, self.inf_mass)
        return 0.5 * (
            self.lower.tradeoff(a, np.zeros(self.lower.size + 1))
            + self.upper.tradeoff(a, inf_extra)
        )

    def _tradeoff_answer(self, a: FloatArray) -> Answer:
        r"""Point estimate: :math:`\max\{g(\alpha) - \alpha\, g(1),
        f_{lo}(\alpha)\}` with :math:`g` the average of the two measures' exact
        trade-offs and :math:`f_{lo}` the certified lower bound.

        The dominated measure drops Q-mass, so its curve (and :math:`g`) ends at
        :math:`g(1) > 0`, while every trade-off function has :math:`f(1) = 0`.
        Subtracting the linear term keeps :math:`g` convex and non-increasing,
        and the maximum with the convex lower bound stays convex: a trade-off
        function inside the bracket (:math:`g \le f_Y \le` the upper bound).
        A record where the certified bracket is wider than ``10 eps_rel_tol``
        (absolute) or than ``100 eps_rel_tol`` of the estimate plus
        :data:`_TRADEOFF_ATOL` (relative, as :meth:`_delta_answer`'s; with the
        default ``eps_rel_tol = 1e-3`` a half-width above 5% of the answer).
        """
        lo, hi = self.tradeoff_bounds(a)
        end = float(self._core_tradeoff(np.ones(1))[0])
        beta = np.maximum(self._core_tradeoff(a) - a * end, lo)
        width = hi - lo
        flagged = (width > 10.0 * self.eps_rel_tol) | (
            width > 100.0 * self.eps_rel_tol * beta + 2.0 * _TRADEOFF_ATOL
        )
        repairs: tuple[Repair, ...] = ()
        if np.any(flagged):
            repairs = (
                _wide(
                    Query.TRADEOFF,
                    "the certified bracket on the trade-off is wider than "
                    f"{10 * self.eps_rel_tol:g}, or than {100 * self.eps_rel_tol:g} "
                    f"relative (+ {2 * _TRADEOFF_ATOL:g}), at some alpha (e.g. "
                    f"[{_worst(lo, hi, flagged)}]); the point estimate is not "
                    "accurate there (typically a composition with little privacy "
                    "left, whose curve is close to 0). A smaller eps_rel_tol "
                    "narrows the bracket; accountants.Exact gives closed forms for "
                    "Gaussian and pure-DP compositions",
                ),
            )
        return Answer(beta, 0.5 * width, lo, hi, repairs)
