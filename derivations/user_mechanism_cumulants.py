"""Cumulants of a user-defined mechanism: derived by SymPy, checked at 30 digits.

The mechanism is the variance pair of issue 13, P = N(0, 1) and Q = N(0, s^2) with
s = 2, given to ``symfdp.mechanisms.from_densities`` as two SymPy densities. Its
privacy loss L(x) = log q/p = (1 - 1/s^2) x^2 / 2 - log s is quadratic, so its
moment generating function exists only on part of the line:

    K_P(t) = log E_P[e^{t L}] = -t log s - (1/2) log(1 - t (1 - 1/s^2)),
    finite for t < 1/(1 - 1/s^2) = 4/3,

(a Gaussian integral, written here by hand). The script

* checks that ``from_densities`` derives L and this CGF, with its domain;
* derives kappa_1..kappa_8 under P (derivatives at t = 0) and under Q (at t = 1,
  since dQ = e^L dP gives K_Q(t) = K_P(t + 1)) as exact expressions;
* computes the same cumulants independently: raw moments E[L^k] by mpmath
  quadrature of the densities at 50 digits and the moment -> cumulant recursion,
  and requires agreement to 30 significant digits;
* checks the float64 cumulants the mechanism serves to accountants (1e-12), and
  that a hand-written Gaussian location pair gets the built-in's cumulants
  (-mu^2/2, mu^2, 0, 0, ...) exactly.
"""

from __future__ import annotations

import sys

import mpmath as mp
import sympy as sp
from _report import Report

from symfdp import mechanisms as M

ORDER = 8
DIGITS = 30


def quadrature_cumulants(log_p: sp.Expr, log_q: sp.Expr, x: sp.Symbol) -> dict:
    """kappa_1..kappa_ORDER of L = log q - log p under P and under Q, from raw
    moments by mpmath quadrature at 50 digits (independent of SymPy's CGF)."""
    mp.mp.dps = 50
    f_lp = sp.lambdify(x, log_p, "mpmath")
    f_lq = sp.lambdify(x, log_q, "mpmath")
    out = {}
    for under, f_dens in (("P", f_lp), ("Q", f_lq)):
        raw = [mp.mpf(1)]
        for k in range(1, ORDER + 1):
            fn = lambda v, k=k, f=f_dens: (f_lq(v) - f_lp(v)) ** k * mp.exp(f(v))  # noqa: E731
            raw.append(mp.quad(fn, [-mp.inf, -4, 0, 4, mp.inf]))
        kappa = [mp.mpf(0)] * (ORDER + 1)
        for n in range(1, ORDER + 1):
            kappa[n] = raw[n] - mp.fsum(
                mp.binomial(n - 1, j - 1) * kappa[j] * raw[n - j] for j in range(1, n)
            )
        out[under] = kappa[1:]
    return out


def main() -> int:
    report = Report(
        "Cumulants of a user-defined mechanism, SymPy vs 30-digit quadrature"
    )
    x, s = sp.symbols("x s", real=True)
    p = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)
    q = sp.exp(-(x**2) / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))
    m = M.from_densities(p, q, x, s=2)
    xs, ts = m.exprs["x"], m.exprs["t"]
    L = m.exprs["L"]
    report.show("L(x)", L)
    report.check(
        "L = 3 x^2/8 - log 2",
        sp.simplify(L - (sp.Rational(3, 8) * xs**2 - sp.log(2))) == 0,
    )
    cgf = m.exprs.get("cgf")
    report.check("SymPy derived the CGF in closed form", cgf is not None)
    if cgf is None:
        return report.finish()
    report.show("K_P(t) as derived", cgf)
    hand = -ts * sp.log(2) - sp.log(1 - sp.Rational(3, 4) * ts) / 2
    report.show("K_P(t) by hand", hand)
    points = [sp.Rational(k, 7) for k in (-9, -5, 0, 3, 7, 9)]
    worst = max(abs(sp.N((cgf - hand).subs(ts, v), 40)) for v in points)
    report.check(
        "derived K_P = hand K_P on t in [-9/7, 9/7] (40 digits)",
        worst < sp.Float("1e-35"),
        f"max |difference| {sp.N(worst, 3)}",
    )
    # Below t = -4/3 SymPy's Piecewise takes its |t| > 4/3 branch (complex):
    # shown, not used. The CGF served to accountants is the quadrature of
    # p^{1-t} q^t, checked here against the hand form there.
    far = sp.Rational(-20, 7)
    report.show(
        "derived K_P(-20/7) (SymPy branch |t| > 4/3)", sp.N(cgf.subs(ts, far), 8)
    )
    served = float(m.cgf(float(far)))
    report.check(
        "served K_P(-20/7) = hand K_P(-20/7) (1e-12)",
        abs(served - float(sp.N(hand.subs(ts, far), 20))) < 1e-12,
        f"{served!r}",
    )
    report.check(
        "CGF domain (-inf, 4/3)",
        m.domain is not None
        and m.domain[0] == -float("inf")
        and abs(m.domain[1] - 4 / 3) < 1e-12,
        f"{m.domain}",
    )

    exact = {}
    for under, at in (("P", 0), ("Q", 1)):
        exact[under] = [
            sp.nsimplify(sp.simplify(sp.diff(hand, ts, r).subs(ts, at)))
            for r in range(1, ORDER + 1)
        ]
        derived = [sp.diff(cgf, ts, r).subs(ts, at) for r in range(1, ORDER + 1)]
        gap = max(
            abs(sp.N(d - e, 45)) for d, e in zip(derived, exact[under], strict=True)
        )
        report.check(
            f"kappa_1..kappa_{ORDER} under {under} from the derived CGF are exact",
            gap < sp.Float("1e-40"),
        )
        for r, k in enumerate(exact[under], start=1):
            report.show(f"kappa_{r} under {under}", k)

    quad = quadrature_cumulants(sp.log(m.exprs["p"]), sp.log(m.exprs["q"]), xs)
    for under in ("P", "Q"):
        rel = max(
            abs(mp.mpf(str(sp.N(e, 50))) - qv) / max(mp.mpf(1), abs(qv))
            for e, qv in zip(exact[under], quad[under], strict=True)
        )
        report.check(
            f"under {under}: SymPy = mpmath quadrature to {DIGITS} digits",
            rel < mp.mpf(10) ** -DIGITS,
            f"max relative gap {mp.nstr(rel, 3)}",
        )
        served = m.cumulants(ORDER, under)
        ref = [float(sp.N(e, 20)) for e in exact[under]]
        ok = all(
            abs(a - b) <= 1e-12 * max(1.0, abs(b))
            for a, b in zip(served, ref, strict=True)
        )
        report.check(f"float64 cumulants served under {under} (1e-12)", ok)

    mu = sp.Symbol("mu", real=True)
    twin = M.from_densities(
        p, sp.exp(-((x - mu) ** 2) / 2) / sp.sqrt(2 * sp.pi), x, mu=0.75
    )
    k_twin = [
        sp.simplify(
            sp.diff(twin.exprs["cgf"], twin.exprs["t"], r).subs(twin.exprs["t"], 0)
        )
        for r in range(1, ORDER + 1)
    ]
    want = [-sp.Rational(9, 32), sp.Rational(9, 16)] + [0] * (ORDER - 2)
    report.check(
        "hand-written Gaussian pair (mu = 3/4): kappa = (-mu^2/2, mu^2, 0, ...)",
        all(sp.simplify(a - b) == 0 for a, b in zip(k_twin, want, strict=True)),
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
