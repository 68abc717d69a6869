r"""``Numerical``: certified ground truth by FFT composition of discretised PLDs.

Each component's privacy loss is discretised on a lattice of step :math:`h` into a
dominating and a dominated measure (:mod:`symfdp.pld.discretise`), both are
composed by FFT (:mod:`symfdp.pld.compose`), and
:class:`~symfdp.pld.certified.CertifiedPairCurve` turns the two compositions
into certified brackets on :math:`\delta(\varepsilon)`,
:math:`\varepsilon(\delta)` and the trade-off curve. The discretisation error is
second order in :math:`h` for smooth losses (per component the variance of :math:`L`
is inflated by about :math:`h^2/6` by the dominating measure and deflated by about
:math:`h^2/12` by the dominated one), which sets the step (:mod:`symfdp.pld.grid`).

``method="recursion"`` runs the recursion of Zheng et al. (2020), Sec. 5.1 instead
(:mod:`symfdp.accountants.recursion`): uncertified, linear in :math:`n`, kept to
reproduce the paper's runtime tables.
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_choice, check_int, check_real
from symfdp.accountants._blatant import split_blatant
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants.base import (
    Accountant,
    Components,
    Composed,
    loss_range,
    pair_compositions,
)
from symfdp.accountants.recursion import (
    PAPER_EPS_GRID,
    ROUNDINGS,
    check_eps_grid,
    recursion_pair,
)
from symfdp.curve import PairCurve
from symfdp.pld.certified import CertifiedPairCurve, CompositionParts
from symfdp.pld.compose import (
    FFTSizeError,
    RoundoffRangeError,
    compose_fft,
    methods_without_lattice,
)
from symfdp.pld.discretise import DiscretePLD, discretise_many
from symfdp.pld.grid import align_step, choose_step, coarse_width, component_grids
from symfdp.pld.step import Estimate, estimate, fills, step_hint
from symfdp.pld.window import chernoff_window

METHODS: tuple[str, ...] = ("fft", "recursion")
#: Largest memory of the discretised components a curve keeps for its tilted
#: compositions; larger compositions keep a recipe and rebuild them on demand.
_KEEP_PARTS_BYTES = 2**28
#: Largest multiple of ``eps_rel_tol`` that the direction which cannot reach the
#: maximum at ``delta_ref`` is composed to (``Numerical._compose``): at most
#: twice the step, within the range of the width's h^2 law.
LOOSE_TOL = 4.0


class Numerical(Accountant):
    r"""Certified numerical accountant (FFT of discretised PLDs) or the paper's
    recursion.

    Args:
        eps_rel_tol: Target width of the certified bracket on
            :math:`\varepsilon(\delta_{ref})`, relative to
            :math:`\max(\varepsilon, 1)`. The step is predicted by
            :mod:`symfdp.pld.step` for long compositions of at
            most ``MAX_COMPONENTS`` distinct components (brackets at other
            deltas may then be wider), otherwise set by
            :mod:`symfdp.pld.grid`, and shrunk at most ``refine`` times while
            the bracket is wider. The curve reports the bracket it certifies.
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
            5.1, whose bias accumulates with n).
        lower_origins: Lattice offsets tried for the dominated measure.
        delta_ref: The delta at which the eps bracket is checked.
        refine: Largest number of refinements of the step.
        max_fft_size: Largest FFT length allowed (time and memory guard: 8 bytes
            per point and array).

    Range: any ``n`` up to :data:`symfdp._validation.MAX_COMPOSITIONS`
    (:math:`2^{53}`, checked by ``compose`` for every accountant) is either
    answered with a certified bracket or refused with a ``ValueError`` naming
    ``n``: :class:`~symfdp.pld.compose.FFTSizeError` when the window needs more
    than ``max_fft_size`` points (the FFT length grows like
    :math:`\sqrt{n/\mathrm{tol}}`; the message gives the ``eps_rel_tol`` that
    fits), and :class:`~symfdp.pld.compose.RoundoffRangeError` when the FFT
    round-off bound would make the bracket vacuous.

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
        max_fft_size: int = 2**23,
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
        #: The eps estimate of the composition about to be made (set
        #: on the copies that :meth:`_compose` makes, :meth:`_hinted`).
        self._estimate: Estimate | None = None

    guarantee = "certified"

    @property
    def method(self) -> str:  # type: ignore[override]
        return "Numerical" if self._method == "fft" else "Numerical(recursion)"

    @property
    def certified(self) -> bool:  # type: ignore[override]
        return self._method == "fft"

    def compose_pair(self, components: Components) -> PairCurve:
        if self._method == "recursion":
            return recursion_pair(components, self.eps_grid, self.rounding)
        return self._fft_pair(components)

    def step(self, components: Components) -> float:
        """The grid step used for ``components`` (see ``eps_rel_tol``)."""
        if self.grid_step is not None:
            return align_step(components, self.grid_step)
        rule = choose_step(components, self.eps_rel_tol)
        fill = step_hint(
            components, self.eps_rel_tol, self.delta_ref, rule, self._estimate
        )
        return rule if fill is None else align_step(components, fill)

    def _compose(self, components: Components) -> Composed:
        r"""Both directions of an asymmetric composition, the one whose
        estimated eps at ``delta_ref`` (:func:`symfdp.pld.step.estimate`) is
        smaller composed to a looser
        tolerance when it cannot reach the other's upper bound there.

        The curve's eps is the maximum over the directions, so its bracket at
        ``delta_ref`` is :math:`[\max(lo_1, lo_2), \max(hi_1, hi_2)]`: with
        :math:`hi_2 \le hi_1` it is the first direction's, whatever the
        width of the second. The second is composed to :math:`\mathrm{tol}_2 =
        \min((hi_1 - \hat\varepsilon_2) / \max(\hat\varepsilon_2, 1),`
        :data:`LOOSE_TOL` :math:`\mathrm{tol})` without refinement, and again
        to ``tol`` if its upper bound then exceeds :math:`hi_1`. Both brackets
        are certified at every delta. Other compositions: one pair per
        direction as every accountant composes them.
        """
        plan = self._directions(components)
        if plan is None:
            return super()._compose(components)
        directions, est = plan
        top = 0 if est[0].eps >= est[1].eps else 1
        other = 1 - top
        d = np.array(self.delta_ref)
        first = self._hinted(self.eps_rel_tol, est[top])._fft_pair(directions[top])
        hi = float(first.epsilon_bounds(d)[1])
        gap = (hi - est[other].eps) / max(est[other].eps, 1.0)
        second = None
        if gap > self.eps_rel_tol and math.isfinite(hi):
            tol = min(gap, LOOSE_TOL * self.eps_rel_tol)
            cand = self._hinted(tol, est[other], 0)._fft_pair(directions[other])
            c_lo, c_hi = (float(x) for x in cand._plain_epsilon_bounds(d))
            if c_hi <= hi:
                # Tilting removes round-off, not discretisation error.
                reached = 1.01 * (c_hi - c_lo) / max(c_lo, 1.0)
                second = cand.with_tolerance(max(tol, reached))
        if second is None:
            second = self._hinted(self.eps_rel_tol, est[other])._fft_pair(
                directions[other]
            )
        pairs = (first, second) if top == 0 else (second, first)
        return Composed(pairs, False)

    def _directions(
        self, components: Components
    ) -> tuple[tuple[Components, Components], tuple[Estimate, Estimate]] | None:
        """The two directions of an asymmetric FFT composition whose step is
        predicted (:func:`~symfdp.pld.step.fills`), without
        blatant outcomes or a loss without variance (which :meth:`_pair` treats
        apart), and their eps estimates; None for any other
        composition."""
        if self._method != "fft" or self.grid_step is not None:
            return None
        if all(m.is_symmetric for m, _ in components):
            return None
        if not fills(components, self.eps_rel_tol, self.delta_ref):
            return None
        directions = pair_compositions(components)
        if len(directions) != 2:
            return None
        if any(split_blatant(c)[1] < 1.0 for c in directions):
            return None
        # A direction without variance has no positive estimated eps (None).
        first = estimate(directions[0], self.delta_ref)
        second = estimate(directions[1], self.delta_ref)
        if first is None or second is None:
            return None
        return (directions[0], directions[1]), (first, second)

    def _hinted(
        self, tol: float, estimate: Estimate, refine: int | None = None
    ) -> Numerical:
        """A copy composing to ``eps_rel_tol = tol`` with ``estimate`` made
        (and ``refine`` refinements, when given)."""
        acc = copy.copy(self)
        acc.eps_rel_tol = tol
        acc._estimate = estimate
        if refine is not None:
            acc.refine = refine
        return acc

    def _fft_pair(self, components: Components) -> CertifiedPairCurve:
        """Compose at the rule's step, then check the eps bracket at ``delta_ref``
        and refine the step at most ``refine`` times.

        The discretisation part of the width scales as :math:`h^2`; the
        round-off allowances do not shrink with :math:`h` (they grow with the FFT
        size), so a refinement is made only while the discretisation part exceeds
        half the target, and the narrowest bracket found is kept.
        """
        summed_cumulants(components, 2, "Q")
        h = self.step(components)
        best = self._fft_pair_at(components, h, 0)
        passes = 0
        d = np.array(self.delta_ref)
        while self.grid_step is None and passes < self.refine:
            lo, hi = best._plain_epsilon_bounds(d)
            target = self.eps_rel_tol * max(float(lo), 1.0)
            width = float(hi - lo)
            if not math.isfinite(width) or width <= target:
                break
            core = float(best.core_epsilon_width(d))
            if core <= 0.5 * target:
                break
            shrink = max(0.25, math.sqrt(0.5 * target / core))
            h = align_step(components, h * shrink)
            try:
                cand = self._fft_pair_at(components, h, passes + 1)
            except FFTSizeError:
                break  # the finer lattice does not fit: keep the bracket found
            passes += 1
            c_lo, c_hi = cand._plain_epsilon_bounds(d)
            if float(c_hi - c_lo) >= width:
                break
            best = cand
        return best

    def _too_large(self, n_total: int, h: float, size: int | None) -> FFTSizeError:
        r"""The refusal of a composition whose lattice exceeds ``max_fft_size``:
        names ``n``, the step, and what serves it instead (the FFT length grows
        like :math:`\sqrt{n / \mathrm{tol}}`, so a tolerance larger by the
        squared excess fits)."""
        need = f"at least {size}" if size else "more"
        source = (
            f"set by eps_rel_tol={self.eps_rel_tol:g}"
            if self.grid_step is None
            else "the grid_step given"
        )
        fit = ""
        if self.grid_step is None and size:
            tol = self.eps_rel_tol * 1.2 * (size / self.max_fft_size) ** 2
            if tol < 1.0:
                fit = f"Numerical(eps_rel_tol={float(f'{tol:.2g}'):g}) fits; "
        return FFTSizeError(
            f"Numerical: n = {n_total} compositions need {need} lattice points at "
            f"step {h:.3g} ({source}), more than "
            f"max_fft_size={self.max_fft_size}; {fit}a larger max_fft_size costs "
            f"about 8 bytes and 20 ns per point and pass; or use "
            f"{methods_without_lattice()}.",
            size,
        )

    def _discretised(
        self, components: Components, h: float, sd: float
    ) -> tuple[list[tuple[DiscretePLD, int]], list[tuple[DiscretePLD, int]]]:
        """The dominating and dominated discretisations of the components at
        step ``h``, with their counts (``sd``: the standard deviation of the
        composed loss under Q)."""
        n_total = sum(n for _, n in components)
        cut = self.tail_mass / (4 * n_total)
        widest = coarse_width(sd)
        try:
            grids = component_grids(
                [m for m, _ in components],
                h,
                cut,
                self.lower_origins,
                self.max_fft_size,
                widest,
            )
        except ValueError as exc:  # a component alone exceeds max_fft_size
            raise self._too_large(n_total, h, getattr(exc, "size", None)) from exc
        pieces = discretise_many([m for m, _ in components], grids)
        ups = [(z, n) for (z, _), (_, n) in zip(pieces, components, strict=True)]
        lows = [(y, n) for (_, y), (_, n) in zip(pieces, components, strict=True)]
        return ups, lows

    def _fft_pair_at(
        self, components: Components, h: float, refinements: int
    ) -> CertifiedPairCurve:
        n_total = sum(n for _, n in components)
        sd = math.sqrt(max(float(summed_cumulants(components, 2, "Q")[1]), 0.0))
        ups, lows = self._discretised(components, h, sd)
        window = chernoff_window([ups, lows], self.tail_mass / 4, sd)
        try:
            up = compose_fft(ups, window, self.max_fft_size)
            low = compose_fft(lows, window, self.max_fft_size)
        except RoundoffRangeError:
            raise
        except FFTSizeError as exc:
            raise self._too_large(n_total, h, exc.size) from exc
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
            "refinements": refinements,
        }
        if 8 * sum(d.q.size for d, _ in ups + lows) <= _KEEP_PARTS_BYTES:
            parts = CompositionParts(ups, lows, window, self.max_fft_size)
        else:  # kept as a recipe: rebuilt only if a query needs a tilt
            rebuild = functools.partial(self._discretised, tuple(components), h, sd)
            parts = CompositionParts([], [], window, self.max_fft_size, rebuild)
        del ups
        # The tail_shift of CertifiedPairCurve.tail_allowance.
        shift = min(1.0, max(0.5 * sd, 4.0 * h))
        return CertifiedPairCurve.from_composed(
            low,
            up,
            parts,
            eps_rel_tol=self.eps_rel_tol,
            loss_range=loss_range(components),
            tail_shift=shift,
            info=info,
        )

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
