r"""``SaddlePointPairCurve``: the saddle-point curve of one composed pair
(mathematics in :mod:`symfdp.accountants.saddlepoint`)."""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._warnings import warn_approximation
from symfdp.accountants.base import Components
from symfdp.accountants.saddlepoint import branches as B
from symfdp.accountants.saddlepoint import formulas as F
from symfdp.accountants.saddlepoint import orders as O
from symfdp.accountants.saddlepoint.atom_term import atom_term
from symfdp.accountants.saddlepoint.equation import (
    MAX_ITER,
    RTOL,
    SIDES,
    TAYLOR_ORDER,
    TAYLOR_ROUNDS,
    TAYLOR_STEP,
    SaddleGrid,
    hermite_cubic,
    taylor_shift,
)
from symfdp.accountants.saddlepoint.records import Estimates, Regions, SaddleValues
from symfdp.curve import Answer, PairCurve, Query, Repair, invert_profile
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.roots import (
    bracketed_newton,
    monotone_bisect,
    series_newton,
)
from symfdp.tradeoff.duality import supporting_lines

#: A query's notes: what its repairs changed (one sentence each), or None
#: where nobody listens (diagnostics, tables built for the grid).
Notes = list[str] | None

#: Relative disagreement of the two sides at the split point that warns.
SPLIT_RTOL = 0.1
#: Orders >= 3 below this fraction of delta_hat_2 count as diverged.
RHO_FLOOR = 0.01
#: Factor on the spread of the orders in the error estimates.
ERROR_SAFETY = 1.0
#: Validity floor of the error estimates: SKEW_ERROR_COEF * lambda_3^4 relative
#: (calibrated by benchmarks/saddlepoint_orders.py).
SKEW_ERROR_COEF = 0.05
#: The error estimates compare the chosen order J with orders J+1..J+ERROR_ORDERS.
ERROR_ORDERS = 3
#: Relative step of the forward difference giving d delta/d eps.
EPS_STEP = 1e-5
#: Newton steps per pass over the rules in the epsilon(delta) solve.
NEWTON_STEPS = 12


def _note_repairs(r: F.IntegralRepairs, notes: Notes) -> None:
    """The notes of the repairs :func:`~.formulas.log_integrals` reports."""
    if notes is None:
        return
    if r.beyond_search:
        notes.append(
            "the saddle point lies beyond the searched range (the tilted law is "
            "degenerate near the end of the support); the contour integral was "
            "replaced by the Chernoff bound e^{K(t)-eps t} (t/(1+t))^t/(1+t) at "
            "the last saddle point, an upper bound"
        )
    if r.above_chernoff:
        notes.append(
            "the estimate exceeded the Chernoff bound e^{K(t)-eps t} "
            "(t/(1+t))^t/(1+t) at the saddle point (too few compositions for the "
            "approximation); lowered to that bound"
        )
    if r.terms_lost:
        notes.append(
            "the two Gaussian terms of delta_hat_2 agree to 8 digits (degenerate "
            "tilted law); delta_hat_1 used instead"
        )


def skew_note(skew: float) -> str | None:
    r"""The note when ``skew`` (the largest tilted skewness at the evaluated
    points) exceeds ``F.SKEWNESS_MAX`` (see :mod:`symfdp.accountants.saddlepoint`,
    valid range), else None."""
    if not skew > F.SKEWNESS_MAX:
        return None
    return (
        "outside the approximation's valid range: the tilted privacy loss at the "
        f"saddle point is far from normal (skewness {skew:.3g} > "
        f"{F.SKEWNESS_MAX:g}), so delta may be off by 10% or more. This is the "
        "regime of few effective compositions, e.g. the add pair of a subsampled "
        "mechanism with a small expected number of samples n*p"
    )


def _repairs(query: Query, notes: list[str], skew: float = 0.0) -> tuple[Repair, ...]:
    """The records of a query's notes (each once) and of its skewness."""
    skewed = skew_note(skew)
    whats = list(dict.fromkeys(notes if skewed is None else [*notes, skewed]))
    return tuple(Repair(query, what) for what in whats)


def _pack3(s: FloatArray, d: FloatArray) -> SaddleValues:
    """Upper-side values at ``s`` from the rows of K and its derivatives there
    (at least three; ``eps(s)`` explicit, ``k3`` set)."""
    eps = d[1] - (1.0 / s + 1.0 / (1.0 + s))
    return SaddleValues(s, s, d[0], d[1], d[2], eps, d[3])


def _spread(rows: FloatArray, lam3: FloatArray, atom: FloatArray) -> FloatArray:
    """``ERROR_SAFETY`` times the spread of the orders' estimates (rows), at
    least ``SKEW_ERROR_COEF * lam3**4`` times the chosen one, plus ``atom`` (the
    atom term of :mod:`~.atom_term`); ``inf`` where ``lam3``
    exceeds ``F.SKEWNESS_MAX``."""
    spread = ERROR_SAFETY * (rows.max(axis=0) - rows.min(axis=0))
    err = np.maximum(spread, SKEW_ERROR_COEF * lam3**4 * np.abs(rows[0])) + atom
    return np.where(lam3 > F.SKEWNESS_MAX, np.inf, err)


class SaddlePointPairCurve(PairCurve):
    r"""Saddle-point approximation of one composed pair (a
    :class:`~symfdp.curve.PairCurve`).

    Args:
        components: ``((mechanism, n), ...)`` of single dominating pairs.
        order: 1, 2 or ``J >= 3``: the point estimate is :math:`\hat\delta_1`,
            :math:`\hat\delta_2` or the order-``J`` tilted Edgeworth estimate
            (:mod:`~symfdp.accountants.saddlepoint.orders`).
        symmetric: Whether every component is symmetric (the split point is then
            0 and the trade-off is built from :math:`\varepsilon \ge 0`).
    """

    def __init__(self, components: Components, order: int, symmetric: bool) -> None:
        self.components = components
        self.order = order
        self.symmetric = symmetric
        self._saddles = SaddleGrid(components, symmetric)
        #: log E_Q[e^{-L}] = log P(q > 0) (0 for mutually continuous pairs).
        self.log_p_mass = self._saddles.log_p_mass
        #: The split point eps_mid = K'(-1/2) between the lower and upper sides.
        self.eps_split = self._saddles.eps_split
        #: Essential support of the composed loss.
        self.support: tuple[float, float] = self._saddles.support
        self._table: tuple[FloatArray, FloatArray] | None = None
        self._grid_cache: tuple[SaddleValues, FloatArray, FloatArray] | None = None
        self._table_skew = 0.0
        self._table_notes: list[str] = []
        self.info: dict[str, Any] = {
            "eps_split": self.eps_split,
            "support": self.support,
            "order": order,
        }

    # ------------------------------------------------------------ estimates
    def _log_integrals(
        self,
        vals: SaddleValues,
        side: str,
        capped: Any,
        orders: tuple[int, ...],
        notes: Notes,
        kappa: FloatArray | None = None,
    ) -> tuple[
        dict[int, FloatArray],
        FloatArray,
        NDArray[np.bool_],
        FloatArray,
        NDArray[np.bool_],
    ]:
        r"""``({J: log I_J}, log C, ok, lam3, capped)``: the repaired order-``J``
        integrals, the Chernoff bound, where the expansion is sound (finite terms,
        above ``RHO_FLOOR``), the tilted skewness and the Chernoff-capped points."""
        base = 1 if self.order == 1 else 2
        log1, log2, log_c, repairs = F.log_integrals(vals, side, capped, base)
        _note_repairs(repairs, notes)
        top = max(orders)
        capped = np.asarray(capped, dtype=bool) | ~(vals.v > 0.0)
        usable = ~capped & (log2 < log_c)
        rho, ok, lam3 = O.log_ratios(
            self._saddles.cumulants, vals, side, log2, top, usable, kappa
        )
        if self.order >= 3:
            ok = ok & (rho[self.order - 2] > RHO_FLOOR)
            # An estimate above the Chernoff bound C is lowered to it; the true
            # integral then lies in [0, C] and the error is reported as C.
            with np.errstate(divide="ignore"):
                over = log2 + np.log(np.maximum(rho[self.order - 2], RHO_FLOOR))
            capped = capped | (over > log_c)
        out: dict[int, FloatArray] = {}
        for j in orders:
            if j == 1:
                out[j] = log1
            elif j == 2:
                out[j] = log2
            else:
                with np.errstate(divide="ignore"):
                    lj = log2 + np.log(np.maximum(rho[j - 2], RHO_FLOOR))
                out[j] = np.where(capped, log_c, np.minimum(lj, log_c))
        if self.order in out:
            capped = capped | (out[self.order] >= log_c)
        return out, log_c, ok, lam3, capped

    def _estimates(
        self,
        eps: FloatArray,
        side: str,
        notes: Notes = None,
        check: bool = False,
        extra: int = 0,
    ) -> Estimates:
        """Saddle points, both CF-S5/CF-S6 estimates and the chosen (repaired)
        one at ``eps`` on ``side``; with ``check`` the largest tilted skewness,
        with ``extra`` the estimates of orders ``order + 1 .. order + extra``."""
        # One derivative beyond: the Taylor shift is first-order in the top row.
        top = self.order + max(extra, 1)
        vals, capped, kappa = self._saddles.solve(eps, side, k3=check, order=top)
        orders = tuple(range(self.order, self.order + extra + 1))
        logs, log_c, ok, lam3, capped = self._log_integrals(
            vals, side, capped, (1, 2, *orders), notes, kappa
        )
        d1 = B.from_integral(logs[1], eps, side, self.log_p_mass)
        d2 = B.from_integral(logs[2], eps, side, self.log_p_mass)

        def chosen(j: int, notes_j: Notes) -> FloatArray:
            d = B.from_integral(logs[j], eps, side, self.log_p_mass)
            d, outside = B.repair(d, eps, self.log_p_mass)
            if notes_j is not None and outside:
                notes_j.append(
                    "delta(eps) left [max(0, 1 - e^eps), 1]; clipped into it"
                )
            return d

        delta = chosen(self.order, notes)
        skew = self._skew(vals, logs[self.order], delta, capped) if check else 0.0
        return Estimates(
            vals=vals,
            capped=capped,
            d1=d1,
            d2=d2,
            delta=delta,
            log_c=log_c,
            ok=ok,
            lam3=lam3,
            more=tuple(chosen(j, None) for j in orders[1:]),
            skew=skew,
        )

    @staticmethod
    def _skew(
        vals: SaddleValues, log_i: FloatArray, delta: FloatArray, skip: Any
    ) -> float:
        """The largest tilted skewness over the points whose contour integral is
        at least a tenth of the estimate, leaving out ``skip``."""
        with np.errstate(over="ignore"):  # the lower side's integral can exceed 1
            counts = ~np.asarray(skip, dtype=bool) & (np.exp(log_i) >= 0.1 * delta)
        return float(np.max(F.skewness(vals), where=counts, initial=0.0))

    def _regions(self, e: FloatArray) -> Regions:
        return B.regions(e, self.support, self.eps_split)

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """:meth:`_delta_answer`, :meth:`_epsilon_answer` or
        :meth:`_tradeoff_answer` (no estimate)."""
        if query is Query.DELTA:
            return self._delta_answer(points)
        if query is Query.EPSILON:
            return self._epsilon_answer(points)
        return self._tradeoff_answer(points)

    def _delta_answer(self, eps: FloatArray) -> Answer:
        r"""The estimate :math:`\hat\delta_{order}(\varepsilon)` for real ``eps``
        with its error estimate and the records of its repairs (the validity
        check, the tilted skewness, is folded into the estimate: ``inf`` where
        it exceeds ``SKEWNESS_MAX``).

        The estimate is ``ERROR_SAFETY`` times the spread :math:`\max_k
        \hat\delta_k - \min_k \hat\delta_k` over the orders :math:`k = J, \dots,
        J +` ``ERROR_ORDERS`` (several: odd terms nearly vanish near the tilted
        mean), at least ``SKEW_ERROR_COEF`` :math:`\lambda_3^4` times the value,
        plus the atom term (:func:`~.atom_term.atom_term`: the
        excess modulus of the tilted characteristic function over the normal one,
        which no order sees); 0 where delta is exact, the value at
        Chernoff-capped points, ``inf`` where the expansion diverged.
        """
        notes: list[str] = []
        rows, _, kind, lam3, atom = self._delta_orders(eps, False, ERROR_ORDERS, notes)
        err = _spread(rows, lam3, atom)
        err = np.where(kind == 0, 0.0, err)
        err = np.where(kind == 1, rows[0], err)
        err = np.where(kind == 3, np.inf, err)
        err = np.where(np.isnan(err), np.inf, err)
        return Answer(rows[0], err, repairs=_repairs(Query.DELTA, notes))

    def _epsilon_answer(self, d: FloatArray) -> Answer:
        r"""``epsilon(delta)`` for ``delta`` in (0, 1) (:meth:`_epsilon`) and its
        error estimate: the delta-spread of :meth:`_delta_answer` over the
        profile's slope, :math:`|\Delta\delta| / |d\hat\delta_J/d\varepsilon|`;
        ``inf`` where the slope vanishes (diverged expansion)."""
        notes: list[str] = []
        eps, err, skew, _ = self._epsilon(d, ERROR_ORDERS, notes)
        rest = np.isnan(err)
        if rest.any():
            err[rest] = self._epsilon_error_at(eps[rest])
        return Answer(eps, err, repairs=_repairs(Query.EPSILON, notes, skew))

    def _epsilon_error_at(self, e: FloatArray) -> FloatArray:
        """The eps-error estimate of :meth:`_epsilon_answer` at answers ``e``
        (slope by a forward difference at relative step ``EPS_STEP``)."""
        h = EPS_STEP * np.maximum(1.0, np.abs(e))
        both = np.concatenate((e, e + h))
        rows, _, kind, lam3, atom = self._delta_orders(both, False, ERROR_ORDERS, None)
        size = e.size
        gap = _spread(rows[:, :size], lam3[:size], atom[:size])
        gap = np.where(kind[:size] == 1, rows[0, :size], gap)
        slope = np.abs(rows[0, size:] - rows[0, :size]) / h
        with np.errstate(divide="ignore", invalid="ignore"):
            err = gap / slope
        err = np.where(kind[:size] == 0, 0.0, err)
        return np.where((kind[:size] == 3) | np.isnan(err), np.inf, err)

    def _delta(
        self, eps: FloatArray, check: bool, notes: Notes
    ) -> tuple[FloatArray, float]:
        """The estimate at ``eps`` and the largest skewness (``check``; else 0)."""
        rows, skew, *_ = self._delta_orders(eps, check, 0, notes)
        return rows[0], skew

    def _delta_orders(
        self, eps: FloatArray, check: bool, extra: int, notes: Notes
    ) -> tuple[FloatArray, float, FloatArray, FloatArray, FloatArray]:
        r"""``(rows, skew, kind, lam3, atom)``: the estimates of orders ``order ..
        order + extra``, the largest skewness (``check``), the kind of each value
        (0 exact, 1 Chernoff cap, 2 expansion, 3 expansion with non-finite higher
        terms), :math:`\lambda_3` and the atom term (both with ``extra``, else 0)."""
        flat = eps
        out = np.zeros((extra + 1, flat.size))
        kind = np.zeros(flat.shape)
        lam3 = np.zeros(flat.shape)
        atom = np.zeros(flat.shape)
        skew = 0.0
        reg = self._regions(flat)
        if reg.full.any():
            out[:, reg.full] = B.below_support(flat[reg.full], self.log_p_mass)
        for side in SIDES:
            sel = reg.side(side)
            if not sel.any():
                continue
            every = bool(sel.all())
            est = self._estimates(
                flat if every else flat[sel], side, notes, check=check, extra=extra
            )
            if every:
                out = np.array([est.delta, *est.more])
            else:
                out[:, sel] = [est.delta, *est.more]
            skew = max(skew, est.skew)
            lam3[sel] = est.lam3
            if extra:
                v = est.vals
                atom[sel] = atom_term(
                    self.components,
                    v.t,
                    v.K - v.t * v.eps,
                    self._saddles.stacked_rules(),
                )
            kind[sel] = np.where(
                np.asarray(est.capped, dtype=bool),
                1.0,
                np.where(est.ok | (self.order + extra <= 2), 2.0, 3.0),
            )
        if reg.lower.any():
            for k, row in enumerate(out):
                row[reg.lower] = self._join_split(
                    row[reg.lower], notes if k == 0 else None
                )
        return out, skew, kind, lam3, atom

    @functools.cached_property
    def _delta_at_split(self) -> float:
        """The larger of the two sides' estimates at the split point (each side
        has a saddle point there)."""
        lo, hi = self.support
        if not lo < self.eps_split < hi:
            return 0.0
        split = np.array([self.eps_split])
        return max(float(self._estimates(split, side).delta[0]) for side in SIDES)

    def _join_split(self, lower: FloatArray, notes: Notes) -> FloatArray:
        """Lower-side values raised to the larger estimate at the split point
        (conservative), so the profile does not increase across the split; exact
        for a quasi-convex lower side."""
        at_split = self._delta_at_split
        short = float(np.max(at_split - lower, initial=0.0))
        # A few per cent is ordinary; beyond SPLIT_RTOL the regime is invalid.
        if notes is not None and short > SPLIT_RTOL * at_split:
            notes.append(
                "the two sides of the approximation disagree at the split point "
                f"eps = {self.eps_split:.4g} (by up to {short:.3g}); delta below it "
                "was raised to the value at the split so that it does not increase"
            )
        return np.maximum(lower, at_split)

    def delta_estimates(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        r"""Both estimates :math:`(\hat\delta_1, \hat\delta_2)` (unrepaired except
        for the Chernoff cap), for real ``eps``."""
        e = np.asarray(eps, dtype=np.float64)
        flat = e.reshape(-1)
        d1, d2 = np.zeros(flat.shape), np.zeros(flat.shape)
        reg = self._regions(flat)
        full = B.below_support(flat[reg.full], self.log_p_mass)
        d1[reg.full] = d2[reg.full] = full
        for side in SIDES:
            if reg.side(side).any():
                est = self._estimates(flat[reg.side(side)], side)
                d1[reg.side(side)], d2[reg.side(side)] = est.d1, est.d2
        return d1.reshape(e.shape), d2.reshape(e.shape)

    # ------------------------------------------------------------ error bound
    def third_abs_moment(self, t: ArrayLike) -> FloatArray:
        r""":math:`P_t = \sum_i n_i E|\tilde L_i - E\tilde L_i|^3` under the tilted
        laws :math:`\propto e^{tl}\,dQ_{L_i}(l)` (CF-S7); warns when a quadrature
        rule's tilted mean misses :math:`K_i'(t)` by :math:`10^{-6}` sd."""
        p3, unresolved = F.third_abs_moment(self.components, t)
        for m in unresolved:
            warn_approximation(
                f"SaddlePoint: the quadrature rule of {m!r} does not resolve "
                "its tilted law at the saddle point; the CF-S7 error bound "
                "there is approximate."
            )
        return p3

    def delta_error_bound(self, eps: ArrayLike) -> FloatArray:
        r"""The CF-S7 bound on :math:`|\delta(\varepsilon) - \hat\delta_2(\varepsilon)|`
        as printed (constant 1; see :mod:`symfdp.accountants.saddlepoint`), for
        real ``eps``.

        For ``order=1`` plus :math:`|\hat\delta_1 - \hat\delta_2|`; the Chernoff
        bound beyond the cap; 0 where :math:`\delta` is exact. Not certified.
        """
        e = np.asarray(eps, dtype=np.float64)
        flat = e.reshape(-1)
        out = np.zeros(flat.shape)
        reg = self._regions(flat)
        for side in SIDES:
            if not reg.side(side).any():
                continue
            est = self._estimates(flat[reg.side(side)], side)
            vals = est.vals
            log_b = F.log_error_bound(vals, self.third_abs_moment(vals.t))
            bound = np.where(est.capped, np.exp(est.log_c), np.exp(log_b))
            if self.order == 1:
                bound = bound + np.abs(est.d1 - est.d2)
            out[reg.side(side)] = bound
        return out.reshape(e.shape)

    # ------------------------------------------------------------ epsilon
    def _epsilon(
        self, flat: FloatArray, extra: int, notes: Notes
    ) -> tuple[FloatArray, FloatArray, float, FloatArray]:
        """``(eps, err, skew, s)`` for flat targets: the answers, with ``extra`` >
        0 their upper-side eps-error estimates (NaN elsewhere), the largest
        skewness, and the rows ``s``, :math:`K''(s)` of the answers' upper-side
        saddle points (NaN where the answer is not one)."""
        out = np.zeros(flat.shape)
        err = np.full(flat.shape, np.nan)
        saddle = np.full((2, flat.size), np.nan)
        if self.support[1] <= 0.0 or flat.size == 0:
            return out, np.zeros(flat.shape), 0.0, saddle
        e_lo = max(0.0, self.eps_split)
        if e_lo >= self.support[1]:
            return out, np.zeros(flat.shape), 0.0, saddle
        eps, below, skew, err_up, s_up = self._invert_upper(flat, e_lo, extra, notes)
        out[~below] = eps[~below]
        err[~below] = err_up[~below]
        saddle[:, ~below] = s_up[:, ~below]
        if below.any() and self.eps_split > 0.0:
            lo = np.zeros(int(below.sum()))
            out[below] = monotone_bisect(
                lambda x: self._delta(x, False, notes)[0],
                flat[below],
                lo,
                np.full_like(lo, self.eps_split),
            )
            skew = max(skew, self._delta(out[below], True, notes)[1])
        elif below.any():
            # The answer is 0 only if delta(0) <= d; a steeply turning CGF can put
            # the upper-side root below 0 otherwise: invert on the profile there.
            at_zero, skew0 = self._delta(np.zeros(1), True, notes)
            skew = max(skew, skew0)
            redo = below & (flat < at_zero[0])
            if redo.any():
                out[redo] = invert_profile(
                    lambda x: self._delta(x, False, notes)[0], flat[redo]
                )
                skew = max(skew, self._delta(out[redo], True, notes)[1])
        return out, err, skew, saddle

    def _upper_log_delta(
        self, vals: SaddleValues, notes: Notes = None, kappa: FloatArray | None = None
    ) -> FloatArray:
        """log of the chosen estimate at saddle-consistent points ``vals``
        (``kappa``: the derivatives K'', K''', ... there, if already computed)."""
        shape = np.shape(vals.s)
        logs, *_ = self._log_integrals(
            vals, "upper", np.zeros(shape, bool), (self.order,), notes, kappa
        )
        return logs[self.order]

    def _grid_log_delta(self, g: SaddleValues) -> FloatArray:
        """:meth:`_upper_log_delta` along the upper grid ``g``, cached while the
        grid is unchanged (the grid is a frozen record, replaced when it grows)."""
        return self._grid_values(g)[0]

    def _grid_values(self, g: SaddleValues) -> tuple[FloatArray, FloatArray]:
        """``(log delta, d log delta / ds)`` along the upper grid ``g``, cached
        while the grid is unchanged."""
        hit = self._grid_cache
        if hit is None or hit[0] is not g:
            slope_fn = F.log_delta_slope if self.order == 1 else F.log_delta2_slope
            k3 = g.k3
            if k3 is None:
                k3 = np.gradient(g.v, g.s) if g.s.size > 1 else np.zeros(g.s.shape)
            hit = (g, self._upper_log_delta(g), slope_fn(g.s, g.v, k3))
            self._grid_cache = hit
        return hit[1], hit[2]

    def _invert_upper(
        self, d: FloatArray, e_lo: float, extra: int, notes: Notes
    ) -> tuple[FloatArray, Any, float, FloatArray, FloatArray]:
        """Upper-side inverse: ``(eps, below, skew, err, s)``, ``below`` marking
        answers below ``e_lo``, ``err`` from :meth:`_error_at_saddle` (``extra``
        > 0; NaN elsewhere), ``s`` the rows ``s``, :math:`K''(s)` of the solved
        answers' saddle points (NaN elsewhere)."""
        saddles = self._saddles
        log_d = np.log(d)
        saddles.covering("upper", e_lo, e_lo)
        while True:
            g = saddles.grid("upper")
            gl = self._grid_log_delta(g)
            if gl[-1] <= log_d.min() or not saddles.extend("upper", False):
                break
        ge, gs = g.eps, g.s
        j0 = max(int(np.searchsorted(ge, e_lo)) - 1, 0)
        ok = gl[None, j0:] <= log_d[:, None]
        found = ok.any(axis=1)
        idx = j0 + np.argmax(ok, axis=1)
        eps = np.zeros(d.shape)
        err = np.full(d.shape, np.nan)
        saddle = np.full((2, d.size), np.nan)
        below = found & (idx == j0)
        capped = ~found
        skew = 0.0
        if capped.any() and notes is not None:
            notes.append(
                "epsilon(delta) needs a saddle point beyond the searched range "
                "(degenerate tilted law near the end of the support); it was "
                "bounded with the Chernoff bound at the last saddle point (an "
                "upper bound on epsilon, capped at the end of the support)"
            )
            kk, t, s = g.K[-1], g.t[-1], gs[-1]
            eps_c = (kk + F.log_kernel_max(np.array(s)) - log_d[capped]) / t
            # Not below e_lo: the answer is inf{eps >= e_lo : ...}, and the bound
            # decreases in eps, so it holds at e_lo too.
            eps[capped] = np.minimum(
                np.maximum(eps_c, max(float(ge[-1]), e_lo)), self.support[1]
            )
            # An upper bound: the answer lies in [0, eps], its error up to eps.
            err[capped] = eps[capped]
        solve = found & ~below
        if solve.any():
            i = idx[solve]
            s_lo, s_hi = gs[i - 1], gs[i]
            target = log_d[solve]
            # First guess: cubic Hermite interpolation of log s in log delta.
            _, gslope = self._grid_values(g)
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                x0 = np.exp(
                    hermite_cubic(
                        target,
                        gl[i - 1],
                        gl[i],
                        np.log(s_lo),
                        np.log(s_hi),
                        1.0 / (s_lo * gslope[i - 1]),
                        1.0 / (s_hi * gslope[i]),
                    )
                )
            bad = ~((x0 > s_lo) & (x0 < s_hi))
            x0 = np.where(bad, np.sqrt(s_lo * s_hi), x0)
            # The exact slope of log delta_hat_2 (log delta_hat_1 for order 1).
            slope_fn = F.log_delta_slope if self.order == 1 else F.log_delta2_slope
            # The derivatives the error estimate needs come with each pass, and
            # enough more for the Taylor series of the rows (see series_newton).
            top = max(3, self.order + extra)
            reach = max(top, TAYLOR_ORDER) + 1
            # Orders >= 3: log delta_J = log delta_2 + log rho_J with a smooth
            # factor rho_J; its slope is the secant through the last two points.
            rho: dict[str, FloatArray] = {}

            def objective(
                x: FloatArray, d: FloatArray
            ) -> tuple[FloatArray, FloatArray]:
                # log delta_J and its slope in s at x, from the rows K, K', ...
                # there.
                vals = _pack3(x, d)
                slope = slope_fn(x, vals.v, d[3])
                if self.order <= 2:
                    lean = self._lean_log_delta(vals)
                    if lean is not None:
                        return lean, slope
                    return self._upper_log_delta(vals, kappa=d[2:]), slope
                no_cap = np.zeros(x.shape, bool)
                logs, *_ = self._log_integrals(
                    vals, "upper", no_cap, (2, self.order), None, d[2:]
                )
                log_rho = logs[self.order] - logs[2]
                if rho and np.shape(rho["x"]) == x.shape:
                    dx = x - rho["x"]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        sec = (log_rho - rho["log"]) / dx
                    far = np.abs(dx) > 1e-9 * x
                    rho["slope"] = np.where(far & np.isfinite(sec), sec, rho["slope"])
                else:
                    rho["slope"] = np.zeros(x.shape)
                rho.update(x=x, log=log_rho)
                return logs[self.order], slope + rho["slope"]

            s, d_s, rest, s_lo, s_hi = series_newton(
                lambda x: saddles.derivatives(x, reach),
                taylor_shift,
                objective,
                target,
                s_lo,
                s_hi,
                x0,
                rtol=RTOL,
                ftol=1e-10,
                reach=TAYLOR_STEP,
                rounds=TAYLOR_ROUNDS,
                steps=NEWTON_STEPS,
            )
            if rest.any():
                # Entries whose root lies farther than the Taylor steps reach:
                # safeguarded Newton with a pass over the rules per step.
                rho.clear()
                last: list[tuple[FloatArray, FloatArray]] = []

                def fn(x: FloatArray) -> tuple[FloatArray, FloatArray]:
                    d = saddles.derivatives(x, reach)
                    last.append((x, d))
                    return objective(x, d)

                # log delta is decreasing in s; |log delta - target| <= 1e-10 is
                # a relative accuracy of 1e-10 in delta.
                s_r = bracketed_newton(
                    fn,
                    target[rest],
                    s_lo[rest],
                    s_hi[rest],
                    increasing=False,
                    xtol=RTOL,
                    ftol=1e-10,
                    x0=s[rest],
                    geometric=True,
                    check_bracket=False,
                    max_iter=MAX_ITER,
                )
                if last and np.array_equal(last[-1][0], s_r):
                    d_s[:, rest] = last[-1][1]
                else:
                    d_s[:, rest] = saddles.derivatives(s_r, reach)
                s[rest] = s_r
            if extra > 0:
                at_s, log_i, err[solve] = self._error_at_saddle(s, extra, d_s, notes)
            else:
                at_s = _pack3(s, d_s)
                log_i = self._upper_log_delta(at_s, notes, kappa=d_s[2:])
            eps[solve] = at_s.eps
            saddle[0, solve] = s
            saddle[1, solve] = d_s[2]
            below[solve] = at_s.eps < e_lo
            skew = self._skew(at_s, log_i, np.exp(log_i), below[solve])
        return eps, below, skew, err, saddle

    def _lean_log_delta(self, vals: SaddleValues) -> FloatArray | None:
        """:meth:`_upper_log_delta` of order 1 or 2 where none of its repairs
        applies, else ``None``."""
        kk, eps, t, m, v, s = vals.K, vals.eps, vals.t, vals.m, vals.v, vals.s
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_c = kk - eps * t + F.log_kernel_max(s)
            if self.order == 1:
                out = F.log_delta1(kk, eps, t, v)
                bad = ~(v > 0.0) | ~(out <= log_c + 1e-12)
            else:
                la, lb = F.delta2_log_terms("upper", kk, eps, t, m, v)
                gap = lb - la
                out = la + np.log(-np.expm1(gap))
                bad = ~(v > 0.0) | ~(gap < -1e-8) | ~(out <= log_c + 1e-12)
        return None if bad.any() else out

    def _error_at_saddle(
        self, s: FloatArray, extra: int, d_s: FloatArray | None, notes: Notes
    ) -> tuple[SaddleValues, FloatArray, FloatArray]:
        r"""``(vals, log_i, err)`` at upper-side saddle points ``s``: the values
        (with ``k3``), the log estimate and the eps-error estimate of
        that estimate, the slope from ``s`` and ``s (1 + EPS_STEP)``
        (Taylor series of ``d_s`` when given)."""
        size = s.size
        both = np.concatenate((s, s * (1.0 + EPS_STEP)))
        top = max(3, self.order + extra)
        if d_s is None:
            d = self._saddles.derivatives(both, top)
        else:
            # The second point from the Taylor series at the first (step
            # EPS_STEP * s: the omitted terms are ~1e-25 relative).
            d = np.concatenate((d_s, taylor_shift(d_s, s * EPS_STEP)), axis=1)
        vals = _pack3(both, d)
        orders = tuple(range(self.order, self.order + extra + 1))
        logs, _, ok, lam3, capped = self._log_integrals(
            vals, "upper", np.zeros(both.shape, bool), orders, notes, d[2:]
        )
        rows = np.array(
            [B.repair(np.exp(logs[j]), vals.eps, self.log_p_mass)[0] for j in orders]
        )
        capped = np.asarray(capped, dtype=bool)[:size]
        good = ok[:size] | (self.order + extra <= 2)
        at = vals.take(slice(0, size))
        atom = atom_term(
            self.components,
            at.t,
            at.K - at.t * at.eps,
            self._saddles.stacked_rules(),
        )
        gap = _spread(rows[:, :size], lam3[:size], atom)
        gap = np.where(capped, rows[0, :size], gap)
        slope = np.abs(rows[0, size:] - rows[0, :size]) / (
            vals.eps[size:] - vals.eps[:size]
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            err = gap / slope
        err = np.where((~capped & ~good) | np.isnan(err), np.inf, err)
        return vals.take(slice(0, size)), logs[self.order][:size], err

    # ------------------------------------------------------------ trade-off
    def profile_table(self) -> tuple[FloatArray, FloatArray]:
        r"""``(eps, delta)`` at :math:`\varepsilon(s)` of 240 log-spaced saddle
        points per side, 0, the split point and the support's ends (cached)."""
        if self._table is None:
            saddles = self._saddles
            eps_parts, delta_parts = [], []
            skew = 0.0
            sides = ("upper",) if self.symmetric else SIDES
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
                keep = (
                    (e >= self.eps_split) if side == "upper" else (e < self.eps_split)
                )
                lo, hi = self.support
                keep &= (e > lo) & (e < hi)
                vals = vals.take(keep)
                logs, *_ = self._log_integrals(
                    vals, side, np.zeros(int(keep.sum()), bool), (self.order,), None
                )
                log_i = logs[self.order]
                d = B.from_integral(log_i, e[keep], side, self.log_p_mass)
                d = B.repair(d, e[keep], self.log_p_mass)[0]
                if side == "lower":
                    d = self._join_split(d, None)
                no_skip = np.zeros(d.shape, bool)
                skew = max(skew, self._skew(vals, log_i, d, no_skip))
                eps_parts.append(e[keep])
                delta_parts.append(d)
            extra = [
                0.0,
                self.eps_split,
                *(b for b in self.support if math.isfinite(b)),
            ]
            extra_e = np.array(extra)
            eps_parts.append(extra_e)
            extra_d, extra_skew = self._delta(extra_e, True, self._table_notes)
            delta_parts.append(extra_d)
            skew = max(skew, extra_skew)
            eps = np.concatenate(eps_parts)
            delta = np.concatenate(delta_parts)
            eps, idx = np.unique(eps, return_index=True)
            delta = delta[idx]
            if self.symmetric:
                delta, eps = delta[eps >= 0.0], eps[eps >= 0.0]
            self._table = (eps, delta)
            self._table_skew = skew
        return self._table

    def _tradeoff_answer(self, a: FloatArray) -> Answer:
        r""":math:`f(\alpha) = \max\{0, \max_k 1 - \hat\delta(\varepsilon_k)
        - e^{\varepsilon_k}\alpha\}` over :meth:`profile_table` (Dong et al.
        2019, Prop. 2.8; mirrored lines for symmetric compositions), with the
        records of the table's repairs and validity."""
        eps, delta = self.profile_table()

        def lookup(x: FloatArray) -> FloatArray:
            # Interpolation can fall below 1 - e^{eps + K(-1)}: floor it.
            floor = B.below_support(x, self.log_p_mass)
            return np.maximum(np.interp(x, eps, delta), floor)

        raw = supporting_lines(lookup, a, eps, self.symmetric, False)
        out = np.minimum(raw, 1.0 - a)
        notes = list(self._table_notes)
        if np.any(raw - out > 1e-12):
            notes.append(
                "the curve from the profile's supporting lines exceeds 1 - alpha "
                "(the estimated profile is below that of any trade-off function "
                "there); clipped to 1 - alpha"
            )
        repairs = _repairs(Query.TRADEOFF, notes, self._table_skew)
        return Answer(out, repairs=repairs)
