r"""The inverse of the SaddlePoint pair's profile, :math:`\varepsilon(\delta)`.

On the upper side the estimate is solved for :math:`\log\hat\delta =
\log\delta` in the saddle point :math:`s`: a bracketing cell of the saddle grid,
a cubic Hermite start, Newton on the Taylor series of one pass over the rules
(:func:`~symfdp.numeric.roots.series_newton`), safeguarded Newton for the
entries it leaves (:func:`~symfdp.numeric.roots.bracketed_newton`); below the
split point, or where the upper-side root falls below 0, bisection or profile
inversion of the pair's profile. The error estimate of an answer is the spread
of the orders at its saddle point over the profile's slope there
(:func:`error_at_saddle`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from symfdp.accountants.saddlepoint import branches as B
from symfdp.accountants.saddlepoint import formulas as F
from symfdp.accountants.saddlepoint.answers import (
    EPS_STEP,
    NEWTON_STEPS,
    Notes,
    pack3,
    spread,
)
from symfdp.accountants.saddlepoint.atom_term import atom_term
from symfdp.accountants.saddlepoint.equation import (
    MAX_ITER,
    RTOL,
    TAYLOR_ORDER,
    TAYLOR_ROUNDS,
    TAYLOR_STEP,
    hermite_cubic,
    taylor_shift,
)
from symfdp.accountants.saddlepoint.records import SaddleValues
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.roots import (
    bracketed_newton,
    invert_profile,
    monotone_bisect,
    series_newton,
)

if TYPE_CHECKING:
    from symfdp.accountants.saddlepoint.pair import SaddlePointPairCurve


def epsilon(
    pair: SaddlePointPairCurve, flat: FloatArray, extra: int, notes: Notes
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(eps, err, s)`` for flat targets: the answers, with ``extra`` > 0
    their upper-side eps-error estimates (NaN elsewhere), and the rows ``s``,
    :math:`K''(s)` of the answers' upper-side saddle points (NaN where the
    answer is not one)."""
    out = np.zeros(flat.shape)
    err = np.full(flat.shape, np.nan)
    saddle = np.full((2, flat.size), np.nan)
    if pair.support[1] <= 0.0 or flat.size == 0:
        return out, np.zeros(flat.shape), saddle
    e_lo = max(0.0, pair.eps_split)
    if e_lo >= pair.support[1]:
        return out, np.zeros(flat.shape), saddle
    eps, below, err_up, s_up = invert_upper(pair, flat, e_lo, extra, notes)
    out[~below] = eps[~below]
    err[~below] = err_up[~below]
    saddle[:, ~below] = s_up[:, ~below]
    if below.any() and pair.eps_split > 0.0:
        lo = np.zeros(int(below.sum()))
        out[below] = monotone_bisect(
            lambda x: pair._delta(x, False, notes)[0],
            flat[below],
            lo,
            np.full_like(lo, pair.eps_split),
        )
    elif below.any():
        # The answer is 0 only if delta(0) <= d; a steeply turning CGF can put
        # the upper-side root below 0 otherwise: invert on the profile there.
        at_zero, _ = pair._delta(np.zeros(1), False, notes)
        redo = below & (flat < at_zero[0])
        if redo.any():
            out[redo] = invert_profile(
                lambda x: pair._delta(x, False, notes)[0], flat[redo]
            )
    return out, err, saddle


def invert_upper(
    pair: SaddlePointPairCurve, d: FloatArray, e_lo: float, extra: int, notes: Notes
) -> tuple[FloatArray, Any, FloatArray, FloatArray]:
    """Upper-side inverse: ``(eps, below, err, s)``, ``below`` marking
    answers below ``e_lo``, ``err`` from :func:`error_at_saddle` (``extra``
    > 0; NaN elsewhere), ``s`` the rows ``s``, :math:`K''(s)` of the solved
    answers' saddle points (NaN elsewhere)."""
    saddles = pair._saddles
    log_d = np.log(d)
    saddles.covering("upper", e_lo, e_lo)
    while True:
        g = saddles.grid("upper")
        gl = pair._grid_log_delta(g)
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
    if capped.any():
        kk, t, s = g.K[-1], g.t[-1], gs[-1]
        eps_c = (kk + F.log_kernel_max(np.array(s)) - log_d[capped]) / t
        # Not below e_lo: the answer is inf{eps >= e_lo : ...}, and the bound
        # decreases in eps, so it holds at e_lo too.
        eps[capped] = np.minimum(
            np.maximum(eps_c, max(float(ge[-1]), e_lo)),
            pair.epsilon_cap(d[capped]),
        )
        # An upper bound: the answer lies in [floor, eps], the floor from the
        # top atom of the loss (0 without one).
        floor = pair.epsilon_floor(d[capped])
        err[capped] = np.maximum(eps[capped] - floor, 0.0)
        if notes is not None and not (floor > 0.0).all():
            notes.append(
                "epsilon(delta) needs a saddle point beyond the searched range "
                "(degenerate tilted law near the end of the support) and the "
                "loss has no atom at its top to bound it from below; it was "
                "bounded with the Chernoff bound at the last saddle point (an "
                "upper bound on epsilon, capped at the end of the support)"
            )
    solve = found & ~below
    if solve.any():
        i = idx[solve]
        s_lo, s_hi = gs[i - 1], gs[i]
        target = log_d[solve]
        # First guess: cubic Hermite interpolation of log s in log delta.
        _, gslope = pair._grid_values(g)
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
        slope_fn = F.log_delta_slope if pair.order == 1 else F.log_delta2_slope
        # The derivatives the error estimate needs come with each pass, and
        # enough more for the Taylor series of the rows (see series_newton).
        top = max(3, pair.order + extra)
        reach = max(top, TAYLOR_ORDER) + 1
        # Orders >= 3: log delta_J = log delta_2 + log rho_J with a smooth
        # factor rho_J; its slope is the secant through the last two points.
        rho: dict[str, FloatArray] = {}

        def objective(x: FloatArray, d: FloatArray) -> tuple[FloatArray, FloatArray]:
            # log delta_J and its slope in s at x, from the rows K, K', ...
            # there.
            vals = pack3(x, d)
            slope = slope_fn(x, vals.v, d[3])
            if pair.order <= 2:
                lean = lean_log_delta(pair, vals)
                if lean is not None:
                    return lean, slope
                return pair._upper_log_delta(vals, kappa=d[2:]), slope
            no_cap = np.zeros(x.shape, bool)
            logs, *_ = pair._log_integrals(
                vals, "upper", no_cap, (2, pair.order), None, d[2:]
            )
            log_rho = logs[pair.order] - logs[2]
            if rho and np.shape(rho["x"]) == x.shape:
                dx = x - rho["x"]
                with np.errstate(divide="ignore", invalid="ignore"):
                    sec = (log_rho - rho["log"]) / dx
                far = np.abs(dx) > 1e-9 * x
                rho["slope"] = np.where(far & np.isfinite(sec), sec, rho["slope"])
            else:
                rho["slope"] = np.zeros(x.shape)
            rho.update(x=x, log=log_rho)
            return logs[pair.order], slope + rho["slope"]

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
            at_s, _, err[solve] = error_at_saddle(pair, s, extra, d_s, notes)
        else:
            at_s = pack3(s, d_s)
            # The notes of the estimate's repairs at the answers.
            pair._upper_log_delta(at_s, notes, kappa=d_s[2:])
        eps[solve] = at_s.eps
        saddle[0, solve] = s
        saddle[1, solve] = d_s[2]
        below[solve] = at_s.eps < e_lo
    return eps, below, err, saddle


def lean_log_delta(pair: SaddlePointPairCurve, vals: SaddleValues) -> FloatArray | None:
    """The pair's upper-side log estimate of order 1 or 2 where none of its
    repairs applies, else ``None``."""
    kk, eps, t, m, v, s = vals.K, vals.eps, vals.t, vals.m, vals.v, vals.s
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_c = kk - eps * t + F.log_kernel_max(s)
        if pair.order == 1:
            out = F.log_delta1(kk, eps, t, v)
            bad = ~(v > 0.0) | ~(out <= log_c + 1e-12)
        else:
            la, lb = F.delta2_log_terms("upper", kk, eps, t, m, v)
            gap = lb - la
            out = la + np.log(-np.expm1(gap))
            bad = ~(v > 0.0) | ~(gap < -1e-8) | ~(out <= log_c + 1e-12)
    return None if bad.any() else out


def error_at_saddle(
    pair: SaddlePointPairCurve,
    s: FloatArray,
    extra: int,
    d_s: FloatArray | None,
    notes: Notes,
) -> tuple[SaddleValues, FloatArray, FloatArray]:
    r"""``(vals, log_i, err)`` at upper-side saddle points ``s``: the values
    (with ``k3``), the log estimate and the eps-error estimate of
    that estimate, the slope from ``s`` and ``s (1 + EPS_STEP)``
    (Taylor series of ``d_s`` when given)."""
    size = s.size
    both = np.concatenate((s, s * (1.0 + EPS_STEP)))
    top = max(3, pair.order + extra)
    if d_s is None:
        d = pair._saddles.derivatives(both, top)
    else:
        # The second point from the Taylor series at the first (step
        # EPS_STEP * s: the omitted terms are ~1e-25 relative).
        d = np.concatenate((d_s, taylor_shift(d_s, s * EPS_STEP)), axis=1)
    vals = pack3(both, d)
    orders = tuple(range(pair.order, pair.order + extra + 1))
    logs, _, ok, lam3, capped = pair._log_integrals(
        vals, "upper", np.zeros(both.shape, bool), orders, notes, d[2:]
    )
    rows = np.array(
        [B.repair(np.exp(logs[j]), vals.eps, pair.log_p_mass)[0] for j in orders]
    )
    capped = np.asarray(capped, dtype=bool)[:size]
    good = ok[:size] | (pair.order + extra <= 2)
    at = vals.take(slice(0, size))
    atom = atom_term(
        pair.components,
        at.t,
        at.K - at.t * at.eps,
        pair._saddles.stacked_rules(),
    )
    gap = spread(rows[:, :size], lam3[:size], atom)
    gap = np.where(capped, pair._cap_gap(at.eps, rows[0, :size]), gap)
    slope = np.abs(rows[0, size:] - rows[0, :size]) / (
        vals.eps[size:] - vals.eps[:size]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        err = gap / slope
    err = np.where((~capped & ~good) | np.isnan(err), np.inf, err)
    return vals.take(slice(0, size)), logs[pair.order][:size], err
