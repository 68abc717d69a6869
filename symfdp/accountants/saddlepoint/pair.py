r"""``SaddlePointPairCurve``: the saddle-point curve of one composed pair
(mathematics in :mod:`symfdp.accountants.saddlepoint`)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._warnings import warn_approximation
from symfdp.accountants.base import Components, lattice_origin, lattice_span
from symfdp.accountants.saddlepoint import branches as B
from symfdp.accountants.saddlepoint import formulas as F
from symfdp.accountants.saddlepoint import orders as O
from symfdp.accountants.saddlepoint.answers import (
    EPS_STEP,
    ERROR_ORDERS,
    RHO_FLOOR,
    SPLIT_RTOL,
    Notes,
    note_repairs,
    query_repairs,
    spread,
)
from symfdp.accountants.saddlepoint.atom_term import atom_term
from symfdp.accountants.saddlepoint.equation import (
    SIDES,
    SaddleGrid,
)
from symfdp.accountants.saddlepoint.inverse import epsilon
from symfdp.accountants.saddlepoint.records import Estimates, Regions, SaddleValues
from symfdp.accountants.saddlepoint.tradeoff import profile_points, tradeoff_answer
from symfdp.curve import Answer, BoundedLossPair, PairCurve, Query
from symfdp.mechanisms.base import FloatArray


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
        self._table_err: FloatArray | None = None
        self._grid_cache: tuple[SaddleValues, FloatArray, FloatArray] | None = None
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
        note_repairs(repairs, notes)
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

    @functools.cached_property
    def log_top_mass(self) -> float:
        r""":math:`\log Q(L = b)` at the top :math:`b = \operatorname{ess\,sup} L`
        of the composed loss: :math:`\sum_i n_i \log Q(L_i = b_i)` (the top is
        reached only when every component is at its top); ``-inf`` where some
        component is unbounded above or carries no atom at its top."""
        if not math.isfinite(self.support[1]):
            return -math.inf
        total = 0.0
        for m, n in self.components:
            top = m.plrv_support()[1]
            mass = float(m.plrv_sf(top, "Q", inclusive=True))
            if not (math.isfinite(top) and mass > 0.0):
                return -math.inf
            total += n * math.log(min(mass, 1.0))
        return total

    def delta_floor(self, eps: FloatArray) -> FloatArray:
        r"""A lower bound on :math:`\delta(\varepsilon)` for real ``eps``:

        .. math::  \delta(\varepsilon) \ge \max\bigl(1 - e^{\varepsilon + K(-1)},\;
                   Q(L = b)\,(1 - e^{\varepsilon - b})\bigr)_+,

        the first from :math:`E_Q[(e^{\varepsilon - L} - 1)_+] \ge 0` in the
        complementary representation, the second from the top atom alone in
        :math:`E_Q[(1 - e^{\varepsilon - L})_+]` (:attr:`log_top_mass`; exact as
        :math:`\varepsilon \to b` up to the next atom's share)."""
        b = self.support[1]
        floor = B.below_support(eps, self.log_p_mass)
        if not math.isfinite(self.log_top_mass):
            return floor
        with np.errstate(over="ignore"):
            top = math.exp(self.log_top_mass) * -np.expm1(np.minimum(eps - b, 0.0))
        return np.maximum(floor, top)

    def epsilon_floor(self, d: FloatArray) -> FloatArray:
        r"""The lower bound on :math:`\varepsilon(\delta)` that
        :meth:`delta_floor` gives: :math:`b + \log(1 - \delta/Q(L = b))` for
        :math:`\delta < Q(L = b)`, else 0."""
        if not math.isfinite(self.log_top_mass):
            return np.zeros(d.shape)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.exp(np.log(d) - self.log_top_mass)
            out = self.support[1] + np.log1p(-np.minimum(ratio, 1.0))
        return np.maximum(np.where(ratio < 1.0, out, 0.0), 0.0)

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """:meth:`_delta_answer`, :meth:`_epsilon_answer` or
        :func:`~.tradeoff.tradeoff_answer` (no estimate)."""
        if query is Query.DELTA:
            return self._delta_answer(points)
        if query is Query.EPSILON:
            return self._epsilon_answer(points)
        return tradeoff_answer(self, points)

    def _delta_answer(self, eps: FloatArray) -> Answer:
        r"""The estimate :math:`\hat\delta_{order}(\varepsilon)` for real ``eps``
        with its error estimate and the records of its repairs (the validity
        check, the tilted skewness, is folded into the estimate: its floor
        ``SKEW_ERROR_COEF`` :math:`\lambda_3^4` passes 5% beyond
        ``SKEWNESS_MAX``).

        The estimate is ``ERROR_SAFETY`` times the spread :math:`\max_k
        \hat\delta_k - \min_k \hat\delta_k` over the orders :math:`k = J, \dots,
        J +` ``ERROR_ORDERS`` (several: odd terms nearly vanish near the tilted
        mean), at least ``SKEW_ERROR_COEF`` :math:`\lambda_3^4` times the value,
        plus the atom term (:func:`~.atom_term.atom_term`: the
        excess modulus of the tilted characteristic function over the normal one,
        which no order sees); 0 where delta is exact, at Chernoff-capped points
        (an upper bound) the width of the bracket down to :meth:`delta_floor`,
        ``inf`` where the expansion diverged; in every case at most the distance
        to the far end of the proven bracket ``[delta_floor, delta_cap]``, which
        the answer carries as ``lower, upper``.
        """
        notes: list[str] = []
        rows, _, kind, lam3, atom = self._delta_orders(eps, False, ERROR_ORDERS, notes)
        err = spread(rows, lam3, atom)
        err = np.where(kind == 0, 0.0, err)
        err = np.where(kind == 1, self._cap_gap(eps, rows[0]), err)
        err = np.where(kind == 3, np.inf, err)
        err = np.where(np.isnan(err), np.inf, err)
        lo, hi = self.delta_floor(eps), self.delta_cap(eps)
        err = self._within(rows[0], err, lo, hi)
        return Answer(rows[0], err, lo, hi, query_repairs(Query.DELTA, notes))

    def _epsilon_answer(self, d: FloatArray) -> Answer:
        r"""``epsilon(delta)`` for ``delta`` in (0, 1) (:meth:`_epsilon`) and its
        error estimate: the delta-spread of :meth:`_delta_answer` over the
        profile's slope, :math:`|\Delta\delta| / |d\hat\delta_J/d\varepsilon|`;
        ``inf`` where the slope vanishes (diverged expansion); at most the
        distance to the far end of the proven bracket ``[epsilon_floor,
        epsilon_cap]``, which the answer carries as ``lower, upper``."""
        notes: list[str] = []
        eps, err, _ = epsilon(self, d, ERROR_ORDERS, notes)
        rest = np.isnan(err)
        if rest.any():
            err[rest] = self._epsilon_error_at(eps[rest])
        lo, hi = self.epsilon_floor(d), self.epsilon_cap(d)
        err = self._within(eps, err, lo, hi)
        return Answer(eps, err, lo, hi, query_repairs(Query.EPSILON, notes))

    def _epsilon_error_at(self, e: FloatArray) -> FloatArray:
        """The eps-error estimate of :meth:`_epsilon_answer` at answers ``e``
        (slope by a forward difference at relative step ``EPS_STEP``)."""
        h = EPS_STEP * np.maximum(1.0, np.abs(e))
        both = np.concatenate((e, e + h))
        rows, _, kind, lam3, atom = self._delta_orders(both, False, ERROR_ORDERS, None)
        size = e.size
        gap = spread(rows[:, :size], lam3[:size], atom[:size])
        gap = np.where(kind[:size] == 1, self._cap_gap(e, rows[0, :size]), gap)
        slope = np.abs(rows[0, size:] - rows[0, :size]) / h
        with np.errstate(divide="ignore", invalid="ignore"):
            err = gap / slope
        err = np.where(kind[:size] == 0, 0.0, err)
        return np.where((kind[:size] == 3) | np.isnan(err), np.inf, err)

    def _chernoff_terms(self) -> tuple[FloatArray, FloatArray]:
        r"""``(t, log c)`` along the upper grid's tilts: :math:`\delta(\varepsilon)
        \le e^{\log c - \varepsilon t}`, :math:`\log c = K(t) + s\log s - (1 + s)
        \log(1 + s)` (Chernoff: :math:`(1 - e^{-x})_+ \le e^{tx}\,
        (t/(1+t))^t/(1+t)` for every :math:`t > 0`)."""
        g = self._saddles.grid("upper")
        log_c = g.K + F.log_kernel_max(g.s)
        ok = np.isfinite(log_c) & (g.t > 0.0)
        return g.t[ok], log_c[ok]

    def delta_cap(self, eps: FloatArray) -> FloatArray:
        r"""An upper bound on :math:`\delta(\varepsilon)`: the smallest Chernoff
        bound over the upper grid's tilts (:meth:`_chernoff_terms`), at most
        :math:`(1 - e^{\varepsilon - b})_+` (:math:`b` the top of the loss)."""
        t, log_c = self._chernoff_terms()
        # delta <= Q-mass 1 times (1 - e^{eps - b})_+, b the top of the loss.
        out: FloatArray = -np.expm1(np.minimum(eps - self.support[1], 0.0))
        if t.size:
            best = np.min(log_c[None, :] - eps[:, None] * t[None, :], axis=1)
            out = np.minimum(out, np.exp(np.minimum(best, 0.0)))
        return out

    def epsilon_cap(self, d: FloatArray) -> FloatArray:
        r"""An upper bound on :math:`\varepsilon(\delta)`: the smallest
        :math:`(\log c - \log\delta)/t` over the upper grid's tilts
        (:meth:`_chernoff_terms`), at most :math:`b + \log(1 - \delta)` (the
        bound of :meth:`delta_cap` at the top :math:`b`), at least 0."""
        t, log_c = self._chernoff_terms()
        top = self.support[1] + np.log1p(-d)
        if t.size:
            best = np.min((log_c[None, :] - np.log(d)[:, None]) / t[None, :], axis=1)
            top = np.minimum(top, best)
        out: FloatArray = np.maximum(top, 0.0)
        return out

    @staticmethod
    def _within(
        value: FloatArray, err: FloatArray, lo: FloatArray, hi: FloatArray
    ) -> FloatArray:
        """``err`` at most the distance from ``value`` to the far end of the
        proven bracket ``[lo, hi]`` (where the bracket is ordered)."""
        far = np.maximum(value - lo, hi - value)
        return np.where(lo <= hi, np.minimum(err, far), err)

    def _cap_gap(self, eps: FloatArray, capped: FloatArray) -> FloatArray:
        """The error of Chernoff-capped values ``capped`` at ``eps``: the
        bracket from :meth:`delta_floor` to the cap (an upper bound)."""
        return np.maximum(capped - self.delta_floor(eps), 0.0)

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

    # ------------------------------------------------------------ trade-off
    def table_errors(self) -> FloatArray:
        """The error estimates of :meth:`_delta_answer` at the eps of
        :meth:`profile_table`, with the lattice term of a loss on a lattice as
        the curve adds it to the profile's (:class:`~symfdp.curve.BoundedLossPair`;
        cached)."""
        if self._table_err is None:
            eps, _ = self.profile_table()
            span = lattice_span(self.components)
            pair: PairCurve = self
            if span is not None:
                pair = BoundedLossPair(
                    self,
                    *self.support,
                    report=False,
                    lattice_span=span,
                    lattice_origin=lattice_origin(self.components, span),
                )
            self._table_err = pair.answer(Query.DELTA, eps).errors
        assert self._table_err is not None
        return self._table_err

    def profile_table(self) -> tuple[FloatArray, FloatArray]:
        r"""``(eps, delta)`` at :math:`\varepsilon(s)` of 240 log-spaced saddle
        points per side, 0, the split point and the support's ends (cached;
        :func:`~.tradeoff.profile_points`)."""
        if self._table is None:
            self._table = profile_points(self)
        return self._table
