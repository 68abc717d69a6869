r"""One-point queries of :class:`~.pair.SaddlePointPairCurve` in Python floats.

``delta_and_error_scalar(pair, eps)`` and ``epsilon_and_error_scalar(pair,
delta)`` are the pair's ``delta_and_error`` / ``epsilon_and_error`` at one point
on the upper side (:math:`\varepsilon \ge \varepsilon_{mid}`), with the same
mathematics and the same steps as the array path: the saddle point
:math:`K'(t) = \varepsilon + 1/t + 1/(1+t)` (or, for ``epsilon``, the saddle
point where :math:`\log\hat\delta_J = \log\delta`) by Newton on the Taylor
series of one pass over the cached quadrature rules (:math:`K, \dots,
K^{(r)}` together), started from the cubic Hermite guess on the grid; then the
order-``J`` estimate, the orders ``J+1..J+3`` (tilted Edgeworth terms of
:mod:`~.orders`) and the error estimate (spread of the orders, skewness floor,
the atom term of :mod:`symfdp.accountants._atom_term` at the one tilt, Chernoff
cap, ``inf`` where the expansion diverged).

Only the quadrature pass runs in NumPy (over the rule's nodes); the rest is
float arithmetic. Both functions return ``None`` wherever the array path would
do something else than this plain computation — lower side, exact regions,
points beyond the grid, a repair or warning to report, no convergence within
the Taylor rounds, an arithmetic exception — and the caller then answers the
point with the array path. Accuracy: equal to the array path to rounding.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from symfdp.accountants._atom_term import atom_term
from symfdp.accountants.saddlepoint import formulas as F
from symfdp.accountants.saddlepoint import orders as O
from symfdp.accountants.saddlepoint.equation import (
    TAYLOR_ORDER,
    TAYLOR_ROUNDS,
    TAYLOR_STEP,
)
from symfdp.numeric.roots import ROUNDOFF_RTOL

_SQRT_HALF_PI = math.sqrt(math.pi / 2.0)
_SQRT2 = math.sqrt(2.0)
_EXP_MAX = 709.78
_ARITH = (ValueError, OverflowError, ZeroDivisionError)


class _Fallback(Exception):
    """The point is left to the array path."""


def _exp(x: float) -> float:
    return math.exp(x) if x < _EXP_MAX else math.inf


def _log(x: float) -> float:
    """``np.log`` on floats: -inf at 0, NaN below."""
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


def _nmax(a: float, b: float) -> float:
    """``np.maximum`` (NaN propagates)."""
    return a if (a != a or a >= b) else b


def _inv_fact(count: int) -> list[float]:
    return [1.0 / math.factorial(j) for j in range(count)]


def _rows(pair: Any, t: float, order: int) -> list[float]:
    """``K, ..., K^(order)`` at the tilt ``t`` (one pass over the rules)."""
    d = pair._saddles.derivatives(np.array([t]), order)
    return [float(x) for x in d[:, 0]]


def _shift(d: list[float], u: float) -> list[float]:
    r"""The rows ``d`` (K, K', ... at t) at t + u: :math:`\sum_j d_{i+j}u^j/j!`."""
    n = len(d)
    inv = _inv_fact(n)
    p = [1.0] * n
    for j in range(1, n):
        p[j] = p[j - 1] * u
    p = [pj * c for pj, c in zip(p, inv, strict=True)]
    return [sum(d[i + j] * p[j] for j in range(n - i)) for i in range(n)]


def _log_kernel_max(s: float) -> float:
    return s * math.log(s) - (1.0 + s) * math.log1p(s)


# ------------------------------------------------------------------ slopes
def _log_delta2_slope(s: float, v: float, v3: float) -> float:
    """:func:`~.formulas.log_delta2_slope` at one point."""
    try:
        sv = math.sqrt(v)
        q = 1.0 / s + 1.0 / (1.0 + s)
        dq = -1.0 / s**2 - 1.0 / (1.0 + s) ** 2
        b = 1.0 + s
        za = (q - s * v) / sv
        zb = (q - b * v) / sv
        dza = (dq - v - s * v3) / sv - za * v3 / (2.0 * v)
        dzb = (dq - v - b * v3) / sv - zb * v3 / (2.0 * v)
        dla = 0.5 * s * s * v3 + dza / (
            _SQRT_HALF_PI * float(special.erfcx(-za / _SQRT2))
        )
        dlb = (
            v
            - dq
            + 0.5 * b * b * v3
            + dzb / (_SQRT_HALF_PI * float(special.erfcx(-zb / _SQRT2)))
        )
        gap = -q + 0.5 * (2.0 * s + 1.0) * v + float(special.log_ndtr(zb))
        gap = gap - float(special.log_ndtr(za))
        r = _exp(gap)
        out = (dla - r * dlb) / (1.0 - r)
        if math.isfinite(out) and gap < -1e-8:
            return out
    except _ARITH:
        pass
    return F.log_delta_slope(s, v, v3)


# ------------------------------------------------------------------ estimates
def _correction_terms(
    eps: float, t: float, m: float, v: float, lam: list[float], order: int
) -> tuple[float, list[float]]:
    """:func:`~.orders.correction_terms` on the upper side at one point (the
    Appell sums by the array path's contractions, on one column)."""
    sv = math.sqrt(v)
    c = (eps - m) / sv
    b1, b2 = t * sv, (t + 1.0) * sv
    w1, w2 = c + b1, c + b2
    kmax = 3 * (order - 2)
    binom, shift = O._appell_tables(kmax)
    if min(w1, w2) >= O.W_SWITCH:
        both = O.truncated_moments(np.array([w1, w2]), kmax)
        he = np.array([*_hermite(c, kmax), 0.0])[:, None]
        dm = (both[:, 0] - both[:, 1])[:, None]
        d = np.einsum("ki,kin,in->kn", binom, he[shift], dm)[:, 0]
    else:
        d = _kernel_hermite(b1, w1, kmax, binom, shift) - _kernel_hermite(
            b2, w2, kmax, binom, shift
        )
    cm = np.array(O._coefficient_layout(order)[0].fn(*lam), dtype=np.float64)
    terms = np.einsum("jk,k->j", cm.reshape(order - 2, kmax + 1), d)
    log_pref = -eps * t - 0.5 * c * c - O._LOG_SQRT_2PI
    return log_pref, terms.tolist()


def _hermite(c: float, kmax: int) -> list[float]:
    out = [1.0] * (kmax + 1)
    if kmax >= 1:
        out[1] = c
    for k in range(1, kmax):
        out[k + 1] = c * out[k] - k * out[k - 1]
    return out


def _kernel_hermite(b: float, w: float, kmax: int, binom: Any, shift: Any) -> Any:
    """:func:`~.orders.kernel_hermite_moments` (upper side) at one point."""
    powers = [1.0] * (kmax + 2)
    for k in range(1, kmax + 1):
        powers[k] = powers[k - 1] * -b
    powers[kmax + 1] = 0.0
    pw = np.array(powers)[:, None]
    mills = _SQRT_HALF_PI * float(special.erfcx(w / _SQRT2))
    out = pw[:-1] * mills
    if kmax >= 1:
        he_sh = np.array([0.0, *_hermite(w, kmax - 1)])[:, None]
        out += np.einsum("ki,kin,in->kn", binom, pw[shift], he_sh)
    return out[:, 0]


def _log_ratios(
    vals: tuple[float, ...], kappa: list[float], log2: float, top: int, usable: bool
) -> tuple[list[float], bool, float]:
    """:func:`~.orders.log_ratios` at one point: ``(rho, ok, lam3)``."""
    rho = [1.0] * (top - 1)
    if top < 3:
        return rho, usable, 0.0
    if not usable:
        return rho, False, 0.0
    _, t, kk, m, v, eps = vals
    if len(kappa) < top - 1:
        raise _Fallback
    lam = [kappa[r - 2] / v ** (r / 2.0) for r in range(3, top + 1)]
    log_pref, terms = _correction_terms(eps, t, m, v, lam, top)
    scale = _exp(kk + log_pref - log2)
    cum, acc = [], 0.0
    for term in terms:
        acc += term
        cum.append(1.0 + acc * scale)
    good = all(math.isfinite(x) for x in cum)
    if good:
        rho[1:] = cum
    lam3 = lam[0] if math.isfinite(lam[0]) else 0.0
    return rho, good, lam3


def _point_logs(
    pair: Any, vals: tuple[float, ...], orders: tuple[int, ...], kappa: list[float]
) -> tuple[dict[int, float], float, bool, float, bool, bool]:
    """``SaddlePointPairCurve._log_integrals`` on the upper side at one
    uncapped point: ``(logs, log_c, ok, lam3, capped, repaired)``, ``repaired``
    where a repair would warn."""
    s, t, kk, m, v, eps = vals
    log_c = kk - eps * t + _log_kernel_max(s)
    capped = not v > 0.0
    log1 = float(F._compiled("saddlepoint_log_delta1").fn(kk, eps, t, v))
    la, lb = F._compiled("saddlepoint_delta2_log_terms_upper").fn(kk, eps, t, m, v)
    gap = float(lb) - float(la)
    lost = not gap < -1e-8
    log2 = log1 if lost else float(la) + _log(-math.expm1(gap))
    over1 = log1 > log_c + 1e-12 and not capped
    over2 = log2 > log_c + 1e-12 and not capped
    base = 1 if pair.order == 1 else 2
    repaired = (
        (capped and log_c > F.LOG_WARN_FLOOR)
        or (over2 if base == 2 else over1)
        or (base == 2 and lost and not capped)
    )
    if capped or over1:
        log1 = log_c
    if capped or over2:
        log2 = log_c
    top = max(orders)
    usable = not capped and log2 < log_c
    rho, ok, lam3 = _log_ratios(vals, kappa, log2, top, usable)
    from symfdp.accountants.saddlepoint.pair import RHO_FLOOR as floor

    order = pair.order
    if order >= 3:
        ok = ok and rho[order - 2] > floor
        capped = capped or log2 + _log(_nmax(rho[order - 2], floor)) > log_c
    out: dict[int, float] = {}
    for j in orders:
        if j == 1:
            out[j] = log1
        elif j == 2:
            out[j] = log2
        else:
            lj = log2 + _log(_nmax(rho[j - 2], floor))
            # np.minimum: NaN propagates.
            out[j] = log_c if capped or lj > log_c else lj
    if order in out:
        capped = capped or out[order] >= log_c
    return out, log_c, ok, lam3, capped, repaired


def _repair(d: float, eps: float, log_p_mass: float) -> tuple[float, bool]:
    """:func:`~.branches.repair` at one point."""
    floor = _nmax(-math.expm1(min(eps + log_p_mass, 0.0)), 0.0)
    bad = d > 1.0 + 1e-12 or d < floor * (1.0 - 1e-12)
    return min(_nmax(d, floor), 1.0), bad


def _spread(rows: list[float], lam3: float, atom: float) -> float:
    """``_spread`` of the pair module at one point (``atom``: the atom term)."""
    from symfdp.accountants.saddlepoint import pair as P

    if lam3 > F.SKEWNESS_MAX:
        return math.inf
    if any(r != r for r in rows):
        spread = math.nan
    else:
        spread = P.ERROR_SAFETY * (max(rows) - min(rows))
    l2 = lam3 * lam3
    return _nmax(spread, P.SKEW_ERROR_COEF * (l2 * l2) * abs(rows[0])) + atom


def _atom(pair: Any, t: float, log_scale: float) -> float:
    """:func:`~symfdp.accountants._atom_term.atom_term` at one tilt."""
    stacked = pair._saddles.stacked_rules()
    return float(
        atom_term(pair.components, np.array([t]), np.array([log_scale]), stacked)[0]
    )


def _pack(s: float, d: list[float]) -> tuple[float, ...]:
    """``(s, t, K, m, v, eps)`` on the upper side from the rows at ``s``."""
    return (s, s, d[0], d[1], d[2], d[1] - (1.0 / s + 1.0 / (1.0 + s)))


def _grid_start(g: Any, i: int, eps: float) -> float:
    """``equation._hermite_start`` on the upper grid between ``i - 1`` and
    ``i`` (grid indices; on the upper side eps increases with s)."""
    s0, s1 = float(g.s[i - 1]), float(g.s[i])
    e0, e1 = float(g.eps[i - 1]), float(g.eps[i])

    def dlog(j: int, si: float) -> float:
        return 1.0 / (si * (float(g.v[j]) + 1.0 / si**2 + 1.0 / (1.0 + si) ** 2))

    return math.exp(
        _hermite_cubic(
            eps, e0, e1, math.log(s0), math.log(s1), dlog(i - 1, s0), dlog(i, s1)
        )
    )


def _hermite_cubic(
    y: float, y0: float, y1: float, p0: float, p1: float, m0: float, m1: float
) -> float:
    """:func:`~.equation.hermite_cubic` at one point (raises on a degenerate
    interval)."""
    h = y1 - y0
    u = min(max((y - y0) / h, 0.0), 1.0)
    h00 = (1.0 + 2.0 * u) * (1.0 - u) ** 2
    h10 = u * (1.0 - u) ** 2
    h01 = u * u * (3.0 - 2.0 * u)
    h11 = u * u * (u - 1.0)
    return h00 * p0 + h10 * h * m0 + h01 * p1 + h11 * h * m1


# ------------------------------------------------------------------ delta
def _solve(pair: Any, eps: float, top: int) -> tuple[float, list[float]]:
    """``SaddleGrid.solve`` on the upper side at one ``eps``: the saddle point
    and the rows ``K .. K^(max(top, TAYLOR_ORDER))`` there."""
    saddles = pair._saddles
    grid = saddles.covering("upper", eps, eps)
    by_eps, ge, gs = saddles._sorted(grid)
    if not float(ge[0]) <= eps <= float(ge[-1]):
        raise _Fallback  # capped or below the grid's first point
    size = ge.size
    j = min(max(int(np.searchsorted(ge, eps)), 1), size - 1)
    i0, i1 = int(by_eps[j - 1]), int(by_eps[j])
    if i1 != i0 + 1:
        raise _Fallback
    s0, s1 = float(gs[j - 1]), float(gs[j])
    lo, hi = min(s0, s1), max(s0, s1)
    try:
        x = _grid_start(grid, i1, eps)
        x = min(max(x, lo), hi) if math.isfinite(x) else math.sqrt(lo * hi)
    except _ARITH:
        x = math.sqrt(lo * hi)
    reach = max(top, TAYLOR_ORDER)
    for _ in range(TAYLOR_ROUNDS):
        d0 = _rows(pair, x, reach)
        step = _taylor_root(x, d0, eps)
        if abs(step) <= TAYLOR_STEP * x and lo <= x + step <= hi:
            return x + step, _shift(d0, step)
        nxt = x + step
        x = nxt if (math.isfinite(nxt) and lo < nxt < hi) else math.sqrt(lo * hi)
    raise _Fallback


def _taylor_root(x: float, d: list[float], e: float) -> float:
    """``equation._taylor_root`` (upper side) at one point."""
    rows = len(d)
    inv = _inv_fact(rows)
    c1 = [d[1 + j] * inv[j] for j in range(rows - 1)]
    c2 = [d[2 + j] * inv[j] for j in range(rows - 2)]
    h = 0.0
    try:
        for it in range(3):
            if it == 0:
                m, mp = c1[0], c2[0]
            else:
                up = [1.0] * (rows - 1)
                for j in range(1, rows - 1):
                    up[j] = up[j - 1] * h
                m = sum(a * b for a, b in zip(c1, up, strict=True))
                mp = sum(a * b for a, b in zip(c2, up[:-1], strict=True))
            a1 = 1.0 / (x + h)
            a2 = 1.0 / (1.0 + x + h)
            val = (m - e) - a1 - a2
            dh = val / (mp + a1 * a1 + a2 * a2)
            h = h - dh
            if it > 0 and abs(dh) <= 4e-16 * x:
                break
    except _ARITH:
        return math.inf
    return h if math.isfinite(h) else math.inf


def delta_and_error_scalar(pair: Any, eps: float) -> tuple[float, float] | None:
    """``pair.delta_and_error`` at one ``eps`` on the upper side, else None."""
    from symfdp.accountants.saddlepoint.pair import ERROR_ORDERS

    lo, hi = pair.support
    if not (lo < eps < hi and eps >= pair.eps_split):
        return None
    order = pair.order
    try:
        s, d = _solve(pair, eps, order + ERROR_ORDERS)
        vals = (s, s, d[0], d[1], d[2], eps)
        orders = tuple(range(order, order + ERROR_ORDERS + 1))
        logs, _, ok, lam3, capped, repaired = _point_logs(
            pair, vals, (1, 2, *orders), d[2:]
        )
        if repaired:
            return None
        rows = []
        for j in orders:
            r, bad = _repair(_exp(logs[j]), eps, pair.log_p_mass)
            if bad and j == order:
                return None
            rows.append(r)
    except (_Fallback, *_ARITH):
        return None
    if capped:
        err = rows[0]
    elif not ok:
        err = math.inf
    else:
        err = _spread(rows, lam3, _atom(pair, s, d[0] - s * eps))
    return rows[0], (math.inf if err != err else err)


# ------------------------------------------------------------------ epsilon
def epsilon_and_error_scalar(pair: Any, delta: float) -> tuple[float, float] | None:
    """``pair.epsilon_and_error`` at one ``delta`` answered on the upper side,
    else None."""
    try:
        return _epsilon(pair, delta)
    except (_Fallback, *_ARITH):
        return None


def _epsilon(pair: Any, delta: float) -> tuple[float, float] | None:
    from symfdp.accountants.saddlepoint import pair as P

    if pair.support[1] <= 0.0:
        return None
    e_lo = max(0.0, pair.eps_split)
    if e_lo >= pair.support[1]:
        return None
    saddles = pair._saddles
    log_d = math.log(delta)
    saddles.covering("upper", e_lo, e_lo)
    while True:
        g = saddles.grid("upper")
        gl, gslope = pair._grid_values(g)
        if gl[-1] <= log_d or not saddles.extend("upper", False):
            break
    if not gl[-1] <= log_d:
        return None  # beyond the grid: the Chernoff bound of the array path
    ge, gs = g.eps, g.s
    j0 = max(int(np.searchsorted(ge, e_lo)) - 1, 0)
    ok_at = gl[j0:] <= log_d
    i = j0 + int(np.argmax(ok_at))
    if i == j0:
        return None  # below e_lo: bisection in the array path
    s_lo, s_hi = float(gs[i - 1]), float(gs[i])
    try:
        x0 = math.exp(
            _hermite_cubic(
                log_d,
                float(gl[i - 1]),
                float(gl[i]),
                math.log(s_lo),
                math.log(s_hi),
                1.0 / (s_lo * float(gslope[i - 1])),
                1.0 / (s_hi * float(gslope[i])),
            )
        )
    except _ARITH:
        x0 = math.nan
    if not s_lo < x0 < s_hi:
        x0 = math.sqrt(s_lo * s_hi)
    order = pair.order
    extra = P.ERROR_ORDERS
    top = max(3, order + extra)
    reach = max(top, TAYLOR_ORDER) + 1
    slope_fn = F.log_delta_slope if order == 1 else _log_delta2_slope
    rho: dict[str, float] = {}

    def objective(x: float, d: list[float]) -> tuple[float, float]:
        vals = _pack(x, d)
        slope = slope_fn(x, d[2], d[3])
        if order <= 2:
            return _lean_log_delta(pair, vals, d), slope
        logs, *_ = _point_logs(pair, vals, (2, order), d[2:])
        log_rho = logs[order] - logs[2]
        if rho:
            dx = x - rho["x"]
            sec = (log_rho - rho["log"]) / dx if dx != 0.0 else math.nan
            if abs(dx) > 1e-9 * x and math.isfinite(sec):
                rho["slope"] = sec
        else:
            rho["slope"] = 0.0
        rho.update(x=x, log=log_rho)
        return logs[order], slope + rho["slope"]

    s, d_s = _taylor_newton(pair, objective, log_d, s_lo, s_hi, x0, reach)
    return _error_at_saddle(pair, s, d_s, e_lo)


def _lean_log_delta(pair: Any, vals: tuple[float, ...], d: list[float]) -> float:
    """``_lean_log_delta`` of the pair, else ``_upper_log_delta``, at one point."""
    s, t, kk, m, v, eps = vals
    log_c = kk - eps * t + _log_kernel_max(s)
    if pair.order == 1:
        out = float(F._compiled("saddlepoint_log_delta1").fn(kk, eps, t, v))
        bad = not v > 0.0 or not out <= log_c + 1e-12
    else:
        la, lb = F._compiled("saddlepoint_delta2_log_terms_upper").fn(kk, eps, t, m, v)
        gap = float(lb) - float(la)
        out = float(la) + _log(-math.expm1(gap)) if gap < 0.0 else math.nan
        bad = not v > 0.0 or not gap < -1e-8 or not out <= log_c + 1e-12
    if not bad:
        return out
    logs, *_ = _point_logs(pair, vals, (pair.order,), d[2:])
    return logs[pair.order]


def _taylor_newton(
    pair: Any,
    objective: Any,
    target: float,
    lo: float,
    hi: float,
    x: float,
    reach: int,
) -> tuple[float, list[float]]:
    """``SaddlePointPairCurve._taylor_newton`` for one entry; raises
    :class:`_Fallback` where the array path goes on to safeguarded Newton."""
    from symfdp.accountants.saddlepoint.equation import RTOL
    from symfdp.accountants.saddlepoint.pair import NEWTON_STEPS

    for _ in range(TAYLOR_ROUNDS):
        d0 = _rows(pair, x, reach)
        s, d = x, d0
        nxt = x
        leave = False
        for _ in range(NEWTON_STEPS):
            f, slope = objective(s, d)
            if f != f or slope != slope:
                raise _Fallback
            g = f - target
            if g > 0:
                lo = s
            if g < 0:
                hi = s
            step = g / slope if slope != 0.0 else math.copysign(math.inf, g)
            tol = max(1e-10, ROUNDOFF_RTOL * max(abs(f), abs(target)))
            new = s - step
            inside = math.isfinite(new) and lo < new < hi
            stop = abs(g) <= tol or (inside and abs(step) <= RTOL * s)
            stop = stop or hi - lo <= RTOL * s
            if stop:
                if inside and abs(new - x) <= TAYLOR_STEP * x:
                    return new, _shift(d0, new - x)  # the last Newton step
                return s, d
            if not inside:
                new = math.sqrt(lo * hi)
            if abs(new - x) > TAYLOR_STEP * x:
                leave, nxt = True, new
                break
            s = new
            d = _shift(d0, s - x)
        x = nxt if leave else s
    raise _Fallback


def _error_at_saddle(
    pair: Any, s: float, d_s: list[float], e_lo: float
) -> tuple[float, float] | None:
    """``_error_at_saddle`` of the pair at one upper saddle point ``s``, then
    the checks of ``_invert_upper`` / ``epsilon_and_error``: ``(eps, err)``."""
    from symfdp.accountants.saddlepoint import pair as P

    order = pair.order
    orders = tuple(range(order, order + P.ERROR_ORDERS + 1))
    s2 = s * (1.0 + P.EPS_STEP)
    d2 = _shift(d_s, s * P.EPS_STEP)
    rows, eps_at, log_i = [], [], 0.0
    first: tuple[Any, ...] = ()
    for k, (x, d) in enumerate(((s, d_s), (s2, d2))):
        vals = _pack(x, d)
        logs, _, ok, lam3, capped, repaired = _point_logs(pair, vals, orders, d[2:])
        if repaired:
            return None
        rows.append(
            [_repair(_exp(logs[j]), vals[5], pair.log_p_mass)[0] for j in orders]
        )
        eps_at.append(vals[5])
        if k == 0:
            first = (ok, lam3, capped, d)
            log_i = logs[order]
    ok, lam3, capped, d = first
    eps = eps_at[0]
    if eps < e_lo:
        return None
    # The validity check of epsilon(delta) (the tilted skewness where the
    # integral counts), as the array path's.
    skew = 0.0
    if _exp(log_i) >= 0.1 * _exp(log_i):
        v = d[2]
        skew = abs(d[3]) / v**1.5 if v > 0.0 else math.inf
        if not math.isfinite(skew):
            skew = 0.0
    good = ok or order + P.ERROR_ORDERS <= 2
    if capped:
        gap = rows[0][0]
    else:
        gap = _spread(rows[0], lam3, _atom(pair, s, d[0] - s * eps))
    slope = abs(rows[1][0] - rows[0][0]) / (eps_at[1] - eps_at[0])
    try:
        err = gap / slope
    except ZeroDivisionError:
        err = math.inf if gap != 0.0 else math.nan
    if (not capped and not good) or err != err:
        err = math.inf
    P.warn_if_skewed(skew, "epsilon(delta)")
    return eps, err
