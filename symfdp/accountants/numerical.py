r"""``Numerical``: certified ground truth by FFT composition of discretised PLDs.

For each dominating pair of the composition, the PLRV of every component is
discretised twice on a lattice of step :math:`h` (:mod:`symfdp.pld`):

* a **dominating** measure :math:`Z_i` (connect the dots, Doroshenko et al. 2022):
  a mean-preserving spread of :math:`V = e^{L}` under :math:`P`, exact at every
  lattice point, with the Q-mass beyond the range moved to :math:`+\infty`;
* a **dominated** measure :math:`Y_i` (barycentric rounding): a contraction of
  :math:`V` in the increasing convex order, with the Q-mass beyond the range
  dropped.

Since :math:`\delta(\varepsilon) = E_P[(V - e^{\varepsilon})_+]` and
:math:`(\prod_i v_i - t)_+` is convex and non-decreasing in each factor,
:math:`\delta_{\otimes Y}(\varepsilon) \le \delta(\varepsilon) \le
\delta_{\otimes Z}(\varepsilon)` for every real :math:`\varepsilon` (proof in
:mod:`symfdp.pld.discretise`). Both compositions are computed by one FFT each, and
the certified bracket is

.. math::  \delta_{lo} = \hat\delta_Y - W_Y - C_Y - R_Y(N), \qquad
           \delta_{hi} = \hat\delta_Z + m_\infty + W_Z + C_Z + R_Z(c),

clipped to [0, 1]: :math:`m_\infty = 1 - \prod_i (1 - m_{\infty,i})^{n_i}` is the
Q-mass at :math:`+\infty`, :math:`W` the Chernoff bound on the mass outside the FFT
window (:mod:`symfdp.pld.window`), :math:`R(c) = E_2\sqrt{c} + E_\infty c` the
bound on the FFT round-off of a sum over :math:`c = \#\{t_j > \varepsilon\}`
lattice points and :math:`C` the other round-off allowances
(:mod:`symfdp.pld.compose`). The
discretisation error itself is second order in :math:`h` for smooth losses: per
component the variance of :math:`L` is inflated by about :math:`h^2/6` by
:math:`Z` and deflated by about :math:`h^2/12` by :math:`Y`.

The trade-off bounds follow from the profile bounds through
:math:`f(\alpha) = \sup_\varepsilon 1 - \delta(\varepsilon) - e^{\varepsilon}\alpha`
(Dong et al. 2019, Prop. 2.4), evaluated exactly for the discrete measures
(:mod:`symfdp.pld.profile`). Point estimates (``delta``, ``epsilon``,
``tradeoff``) are the average of the two discrete measures, so their error is at
most the half-width of the certified bracket.

``method="recursion"`` runs the recursion of Zheng et al. (2020), Sec. 5.1 instead
(:mod:`symfdp.accountants.recursion`): uncertified, linear in :math:`n`, kept to
reproduce the paper's runtime tables.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_choice, check_int, check_real
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants.base import Accountant, Components
from symfdp.accountants.recursion import (
    PAPER_EPS_GRID,
    ROUNDINGS,
    check_eps_grid,
    recursion_pair,
)
from symfdp.curve import PairCurve, PrivacyCurve
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.pld.compose import UNIT_ROUNDOFF, ComposedPLD, compose_fft
from symfdp.pld.discretise import discretise
from symfdp.pld.grid import align_step, choose_step, component_grid
from symfdp.pld.profile import DiscreteProfile
from symfdp.pld.window import chernoff_window

METHODS: tuple[str, ...] = ("fft", "recursion")
#: Cap on Newton steps of the eps inverse (it converges in a few).
_NEWTON_STEPS = 60


@dataclass(frozen=True)
class NumericalPairCurve:
    r"""Certified bracket on the privacy of one composed pair (``PairCurve``).

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
        info: Diagnostics (grid step, FFT sizes, allowances).
    """

    lower: DiscreteProfile
    upper: DiscreteProfile
    lower_slack: float
    upper_extra: FloatArray
    inf_mass: float
    tail_rate: float = 0.0
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_composed(
        cls, low: ComposedPLD, up: ComposedPLD, info: dict[str, Any]
    ) -> NumericalPairCurve:
        lower = DiscreteProfile.from_masses(low.t0, low.h, low.q)
        upper = DiscreteProfile.from_masses(up.t0, up.h, up.q)
        slack = low.outside + low.fp_const
        slack += low.fft_l2 * math.sqrt(low.size) + low.fft_linf * low.size
        above = up.size - np.arange(up.size + 1)
        extra = up.inf_mass + up.outside + up.fp_const
        extra = extra + up.fft_l2 * np.sqrt(above) + up.fft_linf * above
        extra.setflags(write=False)
        rate = max(low.tail_rate, up.tail_rate)
        return cls(lower, upper, slack, extra, up.inf_mass, rate, info)

    # ------------------------------------------------------------ profile
    def _upper_delta(self, e: FloatArray) -> FloatArray:
        k = self.upper.cell(e)
        return self.upper.delta(e) + self.upper_extra[k]

    def tail_allowance(self, eps: ArrayLike) -> FloatArray:
        r"""Bound on the discretisation round-off at ``eps``.

        ``tail_rate`` :math:`\times` a bound on the Q-tail above
        :math:`\varepsilon - h` of any composition of true, dominated and
        dominating components (:mod:`symfdp.pld.compose`). All of them are below
        the all-dominating composition :math:`Z` in the increasing convex order,
        and :math:`(1 - e^{x - 1 - t})_+ \ge (1 - e^{-1}) 1\{t > x\}`, so the
        tail is at most :math:`\min\{1, \delta_Z(x - 1)/(1 - e^{-1})\}` with
        :math:`\delta_Z \le` the upper profile plus its allowances plus
        ``tail_rate``.
        """
        e = np.asarray(eps, dtype=np.float64)
        base = self._upper_delta(e - self.upper.h - 1.0) + self.tail_rate
        return self.tail_rate * np.minimum(base / -math.expm1(-1.0), 1.0)

    def delta_bounds(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Certified ``(lower, upper)`` bounds on ``delta(eps)``, any real eps."""
        e = np.asarray(eps, dtype=np.float64)
        fp = self.tail_allowance(e)
        lo = np.clip(self.lower.delta(e) - self.lower_slack - fp, 0.0, 1.0)
        hi = np.clip(self._upper_delta(e) + fp, 0.0, 1.0)
        return lo, hi

    def _estimate(self, e: FloatArray) -> FloatArray:
        lo, hi = self.delta_bounds(e)
        return np.clip(self._core(e), lo, hi)

    def delta(self, eps: ArrayLike) -> FloatArray:
        """Point estimate: the average of the dominated and dominating profiles."""
        return self._estimate(np.asarray(eps, dtype=np.float64))

    def epsilon(self, delta: ArrayLike) -> FloatArray:
        r"""Point estimate of :math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon)
        \le d\}` for the estimated profile.

        The estimate is convex and decreasing in :math:`x = e^{\varepsilon}` and
        piecewise affine, so Newton's method in :math:`x`, started left of the root
        (at the smaller of the two measures' exact inverses, or at 0), increases
        monotonically to it and is exact once it reaches the root's piece.

        Raises:
            ValueError: ``delta`` is not above half the Q-mass at infinity.
        """
        d = np.asarray(delta, dtype=np.float64)
        if np.any(d <= 0.5 * self.inf_mass):
            raise ValueError(
                f"delta must exceed the resolution {0.5 * self.inf_mass:.3g} of this "
                "Numerical curve (its truncated tail mass); compose with a smaller "
                "tail_mass."
            )
        e_lo = self.lower.inverse(d, np.zeros(self.lower.size + 1))
        e_hi = self.upper.inverse(d, np.full(self.upper.size + 1, self.inf_mass))
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
        return eps

    def _cell_allowance(self, profile: DiscreteProfile) -> FloatArray:
        r""":meth:`tail_allowance` bounded on each cell of ``profile``.

        On cell ``k`` (left end :math:`t_{k-1}`) the allowance is at most its
        value at :math:`t_{k-1}`, which needs :math:`\delta_{hi}` at
        :math:`t_{k-1} - h - 1`; the upper profile at the nearest lattice point
        below that is larger (non-increasing), so index arithmetic suffices.
        Cell 0 extends to -inf and gets the global maximum.
        """
        up = self.upper
        grid_hi = up.grid_delta(self.upper_extra) + self.tail_rate
        left = profile.points - profile.h - up.h - 1.0
        j = np.floor((left - up.t0) / up.h + 1e-9).astype(np.int64)
        top = float(self.upper_extra[-1]) + self.tail_rate
        vals = np.where(j < 0, 1.0, grid_hi[np.clip(j, 0, up.size - 1)])
        vals = np.where(j >= up.size, top, vals)
        tails = np.minimum(np.concatenate(([1.0], vals)) / -math.expm1(-1.0), 1.0)
        return self.tail_rate * tails

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
        hi = self.upper.inverse(d, self._upper_cell_extra)
        lo = self.lower.inverse(d, self._lower_cell_extra)
        return np.maximum(lo, 0.0), np.maximum(hi, 0.0)

    def core_epsilon_width(self, delta: ArrayLike) -> FloatArray:
        """Width of the eps bracket of the two discrete measures alone (no
        round-off allowances): the discretisation part of the bracket."""
        d = np.asarray(delta, dtype=np.float64)
        e_lo = self.lower.inverse(d, np.zeros(self.lower.size + 1))
        e_hi = self.upper.inverse(d, np.full(self.upper.size + 1, self.inf_mass))
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
        return np.clip(lo, 0.0, cap), np.clip(hi, 0.0, cap)

    def _core_tradeoff(self, a: FloatArray) -> FloatArray:
        """The average of the two measures' exact trade-offs."""
        inf_extra = np.full(self.upper.size + 1, self.inf_mass)
        return 0.5 * (
            self.lower.tradeoff(a, np.zeros(self.lower.size + 1))
            + self.upper.tradeoff(a, inf_extra)
        )

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r"""Point estimate: :math:`\max\{g(\alpha) - \alpha\, g(1),
        f_{lo}(\alpha)\}` with :math:`g` the average of the two measures' exact
        trade-offs and :math:`f_{lo}` the certified lower bound.

        The dominated measure drops Q-mass, so its curve (and :math:`g`) ends at
        :math:`g(1) > 0`, while every trade-off function has :math:`f(1) = 0`.
        Subtracting the linear term keeps :math:`g` convex and non-increasing,
        and a convex function with :math:`g(0) \le 1` and :math:`g(1) = 0` lies
        below :math:`1 - \alpha`; the maximum with the (convex) lower bound stays
        convex. The estimate is thus a trade-off function inside the bracket
        (:math:`g \le f_Y \le` the upper bound), with no clipping that would
        break convexity.
        """
        a = np.asarray(alpha, dtype=np.float64)
        lo, _ = self.tradeoff_bounds(a)
        end = float(self._core_tradeoff(np.ones(1))[0])
        return np.maximum(self._core_tradeoff(a) - a * end, lo)


class Numerical(Accountant):
    r"""Certified numerical accountant (FFT of discretised PLDs) or the paper's
    recursion.

    Args:
        eps_rel_tol: Target width of the certified bracket on
            :math:`\varepsilon(\delta_{ref})`, relative to
            :math:`\max(\varepsilon, 1)`. The grid step starts at
            :math:`h = \sigma_T\sqrt{2\,\mathrm{tol}/n}` (:mod:`symfdp.pld.grid`;
            :math:`\sigma_T` from the cumulants); if the bracket obtained is wider
            than the target, the step is shrunk (the width scales as
            :math:`h^2`) and the composition redone, at most ``refine`` times.
            The curve reports the bracket it certifies in any case.
        grid_step: Explicit step :math:`h` (overrides ``eps_rel_tol``, no
            refinement).
        tail_mass: Total Q-mass allowed to be truncated: a quarter each for the
            components' upper and lower tails and for each side of the FFT window.
            It enters the bounds additively.
        method: ``"fft"`` (certified) or ``"recursion"`` (Zheng et al. 2020,
            Sec. 5.1; not certified).
        eps_grid: Eps grid of the recursion (default: the paper's
            ``linspace(-6, 6, 100)``).
        rounding: Rounding of the recursion: ``"linear"`` (default; the
            authors' code interpolates) or ``"floor"`` (the rule printed in Sec.
            5.1; on the paper's 100-point eps grid its bias accumulates with n,
            e.g. a sup error of 0.67 in beta at n = 100 for the NoisySGD
            experiment, against 0.016 with linear interpolation).
        lower_origins: Lattice offsets tried for the dominated measure.
        delta_ref: The delta at which the eps bracket is checked.
        refine: Largest number of refinements of the step.
        max_fft_size: Largest FFT length allowed (memory guard: 2**27 points use
            about 1 GiB per array).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = Numerical().compose(M.Gaussian(mu=1.0), n=4)
        >>> lo, hi = curve.delta_bounds(1.0)
        >>> bool(lo <= float(M.Gaussian(mu=2.0).privacy_profile(1.0)) <= hi)
        True
    """

    def __init__(
        self,
        eps_rel_tol: float = 1e-3,
        *,
        grid_step: float | None = None,
        tail_mass: float = 1e-15,
        method: str = "fft",
        eps_grid: ArrayLike | None = None,
        rounding: str = "linear",
        lower_origins: int = 1,
        delta_ref: float = 1e-5,
        refine: int = 2,
        max_fft_size: int = 2**27,
    ) -> None:
        self.eps_rel_tol = check_real(
            "eps_rel_tol", eps_rel_tol, 0.0, 1.0, lo_open=True, hi_open=True
        )
        self.grid_step = (
            None
            if grid_step is None
            else check_real("grid_step", grid_step, 0.0, math.inf, lo_open=True)
        )
        self.tail_mass = check_real("tail_mass", tail_mass, 0.0, 1e-3, lo_open=True)
        self._method = check_choice("method", method, METHODS)
        grid = PAPER_EPS_GRID if eps_grid is None else eps_grid
        self.eps_grid = check_eps_grid(grid)
        self.rounding = check_choice("rounding", rounding, ROUNDINGS)
        self.lower_origins = check_int("lower_origins", lower_origins, lo=1, hi=64)
        self.delta_ref = check_real(
            "delta_ref", delta_ref, 0.0, 1.0, lo_open=True, hi_open=True
        )
        self.refine = check_int("refine", refine, lo=0, hi=8)
        self.max_fft_size = check_int("max_fft_size", max_fft_size, lo=16)

    @property
    def method(self) -> str:  # type: ignore[override]
        return "Numerical" if self._method == "fft" else "Numerical(recursion)"

    @property
    def certified(self) -> bool:  # type: ignore[override]
        return self._method == "fft"

    def compose(
        self,
        mechanism: Mechanism | Any,
        n: int | None = None,
    ) -> PrivacyCurve:
        curve = super().compose(mechanism, n)
        diagnostics = [getattr(p, "info", {}) for p in curve.pairs]
        curve.info["pairs"] = diagnostics
        return curve

    def compose_pair(self, components: Components) -> PairCurve:
        if summed_cumulants(components, 2, "Q")[1] <= 0.0:
            # A loss without variance is a.s. 0 (Id): exact, zero-width bounds
            # (the lattice rules assume a spread-out loss).
            from symfdp.accountants.exact import GaussianPairCurve

            return GaussianPairCurve(0.0)
        if self._method == "recursion":
            return recursion_pair(components, self.eps_grid, self.rounding)
        return self._fft_pair(components)

    def step(self, components: Components) -> float:
        """The grid step used for ``components`` (see ``eps_rel_tol``)."""
        if self.grid_step is not None:
            return align_step(components, self.grid_step)
        return choose_step(components, self.eps_rel_tol)

    def _fft_pair(self, components: Components) -> NumericalPairCurve:
        """Compose at the rule's step, then check the eps bracket at ``delta_ref``
        and refine the step at most ``refine`` times.

        The discretisation part of the width scales as :math:`h^2`; the
        round-off allowances do not shrink with :math:`h` (they grow with the FFT
        size), so a refinement is made only while the discretisation part exceeds
        half the target, and the narrowest bracket found is kept.
        """
        h = self.step(components)
        best = self._fft_pair_at(components, h)
        passes = 0
        d = np.array(self.delta_ref)
        while self.grid_step is None and passes < self.refine:
            lo, hi = best.epsilon_bounds(d)
            target = self.eps_rel_tol * max(float(lo), 1.0)
            width = float(hi - lo)
            core = float(best.core_epsilon_width(d))
            if not math.isfinite(width) or width <= target or core <= 0.5 * target:
                break
            shrink = max(0.25, math.sqrt(0.5 * target / core))
            h = align_step(components, h * shrink)
            cand = self._fft_pair_at(components, h)
            passes += 1
            c_lo, c_hi = cand.epsilon_bounds(d)
            if float(c_hi - c_lo) >= width:
                break
            best = cand
        best.info["refinements"] = passes
        return best

    def _fft_pair_at(self, components: Components, h: float) -> NumericalPairCurve:
        n_total = sum(n for _, n in components)
        cut = self.tail_mass / (4 * n_total)
        grids = [
            component_grid(m, h, cut, self.lower_origins, self.max_fft_size)
            for m, _ in components
        ]
        pieces = [discretise(m, g) for (m, _), g in zip(components, grids, strict=True)]
        ups = [(z, n) for (z, _), (_, n) in zip(pieces, components, strict=True)]
        lows = [(y, n) for (_, y), (_, n) in zip(pieces, components, strict=True)]
        window = chernoff_window([ups, lows], self.tail_mass / 4)
        up = compose_fft(ups, window, self.max_fft_size)
        low = compose_fft(lows, window, self.max_fft_size)
        info = {
            "grid_step": h,
            "fft_size": up.size,
            "window": (up.t0, up.t0 + (up.size - 1) * h),
            "inf_mass": up.inf_mass,
            "dropped_mass": sum(n * d.dropped for d, n in lows),
            "fft_error": {
                "l2": (low.fft_l2, up.fft_l2),
                "per_point": (low.fft_linf, up.fft_linf),
            },
        }
        return NumericalPairCurve.from_composed(low, up, info)

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        info["method"] = self._method
        if self._method == "recursion":
            info["eps_grid_size"] = int(self.eps_grid.size)
            info["rounding"] = self.rounding
        return info

    def __repr__(self) -> str:
        if self._method == "recursion":
            return f"Numerical(method='recursion', rounding={self.rounding!r})"
        step = (
            f"grid_step={self.grid_step!r}"
            if self.grid_step
            else (f"eps_rel_tol={self.eps_rel_tol!r}")
        )
        return f"Numerical({step}, tail_mass={self.tail_mass!r})"
