r"""``from_densities``: a mechanism from SymPy densities of P and Q.

:math:`\log p`, :math:`\log q` and :math:`L` are formed symbolically
(``expand_log(force=True)``: no underflow in the tails); a logarithm of a sum
of positive terms (``log(1 + exp(-x))``) is compiled as a log-sum-exp
(``numpy.logaddexp``), so it neither overflows nor cancels in the tails
(:func:`log_space`). The support is cut
at the zeros of ``Abs``/``sign``/``Heaviside`` arguments, ``Max``/``Min``
differences and ``Piecewise`` conditions; on each cut :math:`L` is smooth, an
atom if constant, else split into monotone pieces
(:func:`~symfdp.mechanisms.user_defined.split_monotone`). Closed forms are
tried within a time budget: the CGF :math:`K_P(t) = \log \sum_{\text{cuts}}
\int e^{\log p + tL}\,dx`, its cumulants at 30 digits, and its domain from
:math:`r_\pm = \lim_{x\to\pm\infty} L/\log p` (finite for :math:`1 + t r_\pm >
0`); otherwise the quadrature of
:class:`~symfdp.mechanisms.user_defined.DensityPair` (which states the accuracy)."""

from __future__ import annotations

import contextlib
import itertools
import math
import signal
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from symfdp._validation import check_bool
from symfdp.mechanisms.base import FloatArray
from symfdp.mechanisms.user_defined import (
    DensityPair,
    Piece,
    _check_breakpoints,
    _check_support,
    _midpoint,
    check_normalised,
    check_symmetric,
    remember_recipe,
    split_monotone,
)

#: Default seconds allowed to each SymPy closed-form attempt.
DEFAULT_BUDGET = 5.0
#: Digits of the evaluation of closed-form cumulants.
_DIGITS = 30


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _budget(seconds: float) -> Iterator[bool]:
    """Interrupt the block after ``seconds`` (raises :class:`_Timeout`); yields
    False, and runs nothing, off the main thread (no ``SIGALRM`` there)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield False
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Timeout

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _attempt(fn: Any, seconds: float) -> Any:
    """``fn()`` within the budget, or None (timeout, failure, no budget)."""
    try:
        with _budget(seconds) as ok:
            if not ok:
                return None
            return fn()
    except _Timeout:
        return None
    except Exception:
        return None


def _compile(expr: Any, x: Any) -> Any:
    from symfdp.numeric.compile import compile_expr

    ev = compile_expr(expr, [x], label="user")
    name = x.name

    def fn(v: FloatArray) -> FloatArray:
        arr = np.asarray(v, dtype=np.float64)
        with np.errstate(all="ignore"):
            out = np.asarray(ev(**{name: arr}), dtype=np.float64)
        return np.broadcast_to(out, arr.shape).copy() if out.shape != arr.shape else out

    return fn


def _log(expr: Any) -> Any:
    import sympy as sp

    return sp.expand(sp.expand_log(sp.log(expr), force=True))


def log_space(expr: Any) -> Any:
    r"""``expr`` with every :math:`\log(a_1 + \dots + a_k)` of terms known to be
    positive rewritten as nested ``logaddexp(log a_1, ...)`` (each
    :math:`\log a_i` expanded), the form that is compiled: equal as a function,
    but finite where the terms under- or overflow."""
    import sympy as sp
    from sympy.codegen.numpy_nodes import logaddexp

    def rewrite(arg: Any) -> Any:
        if not isinstance(arg, sp.Add) or not all(a.is_positive for a in arg.args):
            return sp.log(arg)
        logs = [sp.expand(sp.expand_log(sp.log(a), force=True)) for a in arg.args]
        out = logs[0]
        for term in logs[1:]:
            out = logaddexp(out, term)
        return out

    return expr.replace(sp.log, rewrite)


def _kinks(exprs: Sequence[Any], x: Any, lo: float, hi: float) -> list[float]:
    """Real zeros in (lo, hi) of the arguments of Abs, sign and Heaviside, of
    the differences inside Max and Min, and of the sides of Piecewise
    conditions."""
    import sympy as sp

    args = set()
    for e in exprs:
        for f in e.atoms(sp.Abs, sp.sign, sp.Heaviside):
            if f.args[0].has(x):
                args.add(f.args[0])
        for f in e.atoms(sp.Max, sp.Min):
            for a, b in itertools.combinations(f.args, 2):
                if (a - b).has(x):
                    args.add(a - b)
        for f in e.atoms(sp.Piecewise):
            for pair in f.args:
                for rel in pair.cond.atoms(sp.core.relational.Relational):
                    if (rel.lhs - rel.rhs).has(x):
                        args.add(rel.lhs - rel.rhs)
    out: list[float] = []
    for a in args:
        sol = sp.solveset(a, x, sp.Interval(lo, hi))
        if not isinstance(sol, sp.FiniteSet):
            raise ValueError(
                f"cannot find where {a} changes sign on the support; pass its "
                "zeros as breakpoints=."
            )
        out.extend(float(s) for s in sol)
    return out


def _fix_signs(expr: Any, x: Any, at: float) -> Any:
    """``expr`` with Piecewise, Max, Min, Abs, sign and Heaviside resolved as
    they are at ``x = at``."""
    import sympy as sp

    def sgn(a: Any) -> int:
        v = float(a.subs(x, at))
        return 1 if v > 0 else (-1 if v < 0 else 0)

    def value(e: Any) -> float:
        return float(e.subs(x, at))

    def branch(*pairs: Any) -> Any:
        for pair in pairs:
            if pair.cond == sp.true or bool(pair.cond.subs(x, at)):
                return pair.expr
        return sp.nan

    out = expr.replace(sp.Piecewise, branch)
    out = out.replace(sp.Max, lambda *a: max(a, key=value))
    out = out.replace(sp.Min, lambda *a: min(a, key=value))
    out = out.replace(sp.Abs, lambda a: sgn(a) * a)
    out = out.replace(sp.sign, lambda a: sp.Integer(sgn(a)))
    out = out.replace(sp.Heaviside, lambda a, *r: sp.Integer(1 if sgn(a) > 0 else 0))
    return sp.expand(out)


def from_densities(
    p: Any,
    q: Any = None,
    x: Any = None,
    support: tuple[Any, Any] = (-math.inf, math.inf),
    *,
    log_likelihood_ratio: Any = None,
    name: str | None = None,
    breakpoints: Sequence[float] = (),
    budget: float = DEFAULT_BUDGET,
    symmetric: bool = False,
    **params: float,
) -> DensityPair:
    r"""A mechanism from the SymPy densities of P and Q in the variable ``x``.

    Args:
        p: Density of P (a SymPy expression in ``x`` and the parameters).
        q: Density of Q; or give ``log_likelihood_ratio`` instead.
        x: The SymPy symbol of the output.
        support: ``(lo, hi)``, common support of P and Q (``+-inf`` allowed).
        log_likelihood_ratio: :math:`L = \log q/p` as an expression, instead
            of ``q``.
        name: Label (default: the densities).
        breakpoints: Extra points where the densities are not smooth.
        budget: Seconds allowed to each SymPy closed-form attempt (0: none).
        symmetric: Declare ``T(P, Q) = T(Q, P)`` (checked on the cumulants);
            accountants then cover one direction.
        **params: Values of the other symbols, by name (``mu=1.0``).

    Example:
        >>> import sympy as sp
        >>> from symfdp import mechanisms as M
        >>> x, mu = sp.symbols("x mu", real=True)
        >>> phi = lambda m: sp.exp(-(x - m) ** 2 / 2) / sp.sqrt(2 * sp.pi)
        >>> m = M.from_densities(phi(0), phi(mu), x, mu=1.0)
        >>> [round(float(k), 12) for k in m.cumulants(3)]
        [-0.5, 1.0, 0.0]

    Raises:
        TypeError: ``x`` is not a SymPy symbol, or an expression is not SymPy.
        ValueError: symbols other than ``x`` remain after ``params``, the
            densities are not normalised, or a kink cannot be located.
    """
    import sympy as sp

    if not isinstance(x, sp.Symbol):
        raise TypeError(f"x must be a SymPy Symbol. Found {x!r}.")
    if (q is None) == (log_likelihood_ratio is None):
        raise ValueError("give exactly one of q and log_likelihood_ratio.")
    lo, hi = _check_support(support)
    try:
        p_e = sp.sympify(p)
        other = sp.sympify(q if q is not None else log_likelihood_ratio)
    except sp.SympifyError as exc:
        raise TypeError(f"p and q must be SymPy expressions: {exc}") from None
    xr = sp.Symbol(x.name, real=True)
    subs: dict[Any, Any] = {x: xr}
    free = (p_e.free_symbols | other.free_symbols) - {x}
    by_name = {s.name: s for s in free}
    for key, val in params.items():
        if key not in by_name:
            raise ValueError(
                f"parameter {key!r} does not appear in the densities "
                f"(their symbols: {sorted(by_name)})."
            )
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            raise TypeError(f"{key} must be a real number. Found {val!r}.")
        if not math.isfinite(val):
            raise ValueError(f"{key} must be finite. Found {val!r}.")
        # Exact rationals: closed forms evaluate at any precision.
        subs[by_name[key]] = (
            sp.Rational(repr(float(val))) if isinstance(val, float) else sp.Integer(val)
        )
    missing = sorted(set(by_name) - set(params))
    if missing:
        raise ValueError(f"give values for the parameters {missing} (e.g. mu=1.0).")
    p_e = p_e.subs(subs)
    other = other.subs(subs)
    log_p = _log(p_e)
    if q is not None:
        log_q = _log(other)
        llr = sp.expand(log_q - log_p)
    else:
        llr = sp.expand(other)
        log_q = sp.expand(log_p + llr)
    label = name or f"p={sp.sstr(p_e)}, q={sp.sstr(sp.exp(log_q))}"
    cuts = sorted(
        {
            *_check_breakpoints(breakpoints, lo, hi),
            *_kinks([log_p, log_q, llr], xr, lo, hi),
        }
    )
    cuts = [lo, *[c for c in cuts if lo < c < hi], hi]
    pieces: list[Piece] = []
    segments = []
    for a, b in itertools.pairwise(cuts):
        mid = _midpoint(a, b)
        l_seg = _fix_signs(llr, xr, mid)
        lp_seg = _fix_signs(log_p, xr, mid)
        segments.append((a, b, l_seg, lp_seg))
        if not l_seg.has(xr):
            fn = _compile(l_seg + 0 * xr, xr)
            pieces.append(Piece(a, b, fn, 0, float(sp.N(l_seg, 20))))
            continue
        stable = log_space(l_seg)
        pieces.extend(
            split_monotone(
                a, b, _compile(stable, xr), _compile(sp.diff(stable, xr), xr)
            )
        )
    closed = _closed_forms(segments, xr, budget)
    m = DensityPair(
        _compile(log_space(log_p), xr),
        _compile(log_space(log_q), xr),
        tuple(pieces),
        label=label,
        domain=closed.get("domain"),
        exprs={"p": p_e, "q": sp.exp(log_q), "L": llr, "x": xr, **closed},
        cumulant_fn=_cumulant_fn(closed, budget),
        symmetric=check_bool("symmetric", symmetric),
    )
    check_normalised(m)
    check_symmetric(m)
    kwargs = {
        "log_likelihood_ratio": log_likelihood_ratio,
        "name": name,
        "breakpoints": tuple(breakpoints),
        "budget": budget,
        "symmetric": symmetric,
        **params,
    }
    return remember_recipe(m, from_densities, (p, q, x, support), kwargs)


def _closed_forms(segments: list[Any], x: Any, budget: float) -> dict[str, Any]:
    """The CGF and its domain in closed form, where SymPy finds them in time."""
    import sympy as sp

    t = sp.Symbol("t", real=True)
    out: dict[str, Any] = {}

    def cgf() -> Any:
        total = sp.S.Zero
        for a, b, l_seg, lp_seg in segments:
            lo = -sp.oo if a == -math.inf else sp.nsimplify(a)
            hi = sp.oo if b == math.inf else sp.nsimplify(b)
            val = sp.integrate(
                sp.exp(sp.expand(lp_seg + t * l_seg)), (x, lo, hi), conds="none"
            )
            if val.has(sp.Integral):
                return None
            total += val
        return sp.log(total)

    k = _attempt(cgf, budget)
    if k is not None:
        out["cgf"] = k
        out["t"] = t

    def domain() -> tuple[float, float]:
        t_lo, t_hi = -math.inf, math.inf
        for a, b, l_seg, lp_seg in segments:
            for end, inf in ((a, -sp.oo), (b, sp.oo)):
                if math.isfinite(end):
                    continue
                r = sp.limit(l_seg / lp_seg, x, inf)
                if not r.is_finite:
                    raise ValueError
                rv = float(r)
                if rv > 0:
                    t_lo = max(t_lo, -1.0 / rv)
                elif rv < 0:
                    t_hi = min(t_hi, -1.0 / rv)
        return t_lo, t_hi

    dom = _attempt(domain, budget)
    if dom is not None:
        out["domain"] = dom
    return out


def _cumulant_fn(closed: dict[str, Any], budget: float) -> Any:
    """Cumulants from the closed-form CGF: Taylor coefficients at ``t = 0`` (P)
    or ``t = 1`` (Q) by :func:`mpmath.taylor` on 30-digit evaluations; None when
    there is no closed form or it does not finish within the budget."""
    if "cgf" not in closed:
        return None
    import mpmath
    import sympy as sp

    k, t = closed["cgf"], closed["t"]
    cache: dict[tuple[int, str], FloatArray] = {}

    def f(tv: Any) -> Any:
        val = k.evalf(
            n=mpmath.mp.dps + 5, subs={t: sp.Float(str(tv), mpmath.mp.dps + 5)}
        )
        return mpmath.mpf(str(sp.re(val)))

    def values(order: int, under: str) -> FloatArray | None:
        key = (order, under)
        if key not in cache:

            def run() -> FloatArray:
                with mpmath.workdps(_DIGITS + 2 * order):
                    c = mpmath.taylor(f, 0 if under == "P" else 1, order)
                    return np.array(
                        [float(c[r] * mpmath.factorial(r)) for r in range(1, order + 1)]
                    )

            got = _attempt(run, budget)
            if got is None or not np.all(np.isfinite(got)):
                return None
            cache[key] = got
        return cache[key]

    return values
