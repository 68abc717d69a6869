"""The recursion of Zheng et al. (2020), Sec. 5.1, needs the density q(x).

Lemma 5.2 (proof in App. D.2) composes the profiles of two pairs as

    delta_(x)(eps) = int delta_1(eps - L_2(y)) q_2(y) dy,

so the recursion for f^{(x)n}, f = T(P, Q), L = log q/p, reads

    delta_0(eps) = max{1 - e^eps, 0},
    delta_{k+1}(eps) = int delta_k(eps - L(x)) q(x) dx.

Sec. 5.1 prints the recursion, and its gridded form, without q(x). The script
checks, exactly (SymPy) for randomised response (two outcomes, counting measure,
L = +-eps0) and to 30 digits (mpmath) for the Gaussian pair N(0,1) vs N(mu,1):

1. with q(x) the recursion gives delta_1 and delta_2 of Lemma 5.1 (the
   hockey-stick integral of the product pair), i.e. the closed forms;
2. as printed (no q) it gives other values for randomised response, e.g.
   delta_1(0) = 1 - e^{-eps0} instead of tanh(eps0/2), and for the Gaussian pair
   the integral diverges (its integrand tends to 1 - e^{eps - L} -> 1);
3. symfdp's implementation (symfdp.accountants.recursion.zheng_recursion, which
   weights by the Q-quadrature rule) reproduces the exact randomised-response
   delta_2 on a grid that contains eps +- eps0.
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np
import sympy as sp
from _report import Report

FINDING = "zheng2020-recursion-q"


def delta0(t: sp.Expr) -> sp.Expr:
    """Profile of Id: max{1 - e^t, 0} (Sec. 5.1)."""
    return sp.Max(1 - sp.exp(t), 0)


def randomised_response(report: Report) -> None:
    e0 = sp.log(3)  # eps0 = log 3: masses 3/4, 1/4
    a = sp.exp(e0) / (1 + sp.exp(e0))
    p = {0: a, 1: 1 - a}
    q = {0: 1 - a, 1: a}
    loss = {x: sp.log(q[x] / p[x]) for x in (0, 1)}

    def lemma51(pp: dict, qq: dict, e: sp.Expr) -> sp.Expr:
        """delta(eps) = sum (q - e^eps p)_+ (Lemma 5.1, counting measure)."""
        return sp.Add(*(sp.Max(qq[k] - sp.exp(e) * pp[k], 0) for k in pp))

    def step(prev, e: sp.Expr, weighted: bool) -> sp.Expr:
        return sp.Add(*((q[x] if weighted else 1) * prev(e - loss[x]) for x in (0, 1)))

    pairs = {(x, y): None for x in (0, 1) for y in (0, 1)}
    p2 = {k: p[k[0]] * p[k[1]] for k in pairs}
    q2 = {k: q[k[0]] * q[k[1]] for k in pairs}
    points = [sp.Integer(-1), sp.Integer(0), sp.Rational(1, 2), sp.log(2), e0]
    ok1 = ok2 = differs = True
    for e in points:
        true1, true2 = lemma51(p, q, e), lemma51(p2, q2, e)
        d1 = step(delta0, e, True)
        d2 = step(lambda t: step(delta0, t, True), e, True)
        ok1 &= sp.simplify(d1 - true1) == 0
        ok2 &= sp.simplify(d2 - true2) == 0
        printed1 = step(delta0, e, False)
        if sp.simplify(printed1 - true1) == 0 and e != e0:
            differs = False
    report.check(
        "randomised response (eps0 = log 3): delta_1 with q(x) = Lemma 5.1, "
        "exact at eps in {-1, 0, 1/2, log 2, log 3}",
        bool(ok1),
    )
    report.check(
        "randomised response: delta_2 with q(x) = Lemma 5.1 on the product pair "
        "(four outcomes), exact at the same eps",
        bool(ok2),
    )
    printed0 = sp.nsimplify(step(delta0, sp.Integer(0), False))
    true0 = sp.nsimplify(lemma51(p, q, sp.Integer(0)))
    report.show("delta_1(0) as printed (no q)", printed0)
    report.show("delta_1(0) true (tanh(eps0/2))", true0)
    report.check(
        "as printed the recursion gives delta_1(0) = 1 - e^{-eps0} = 2/3, the true "
        "value is tanh(eps0/2) = 1/2; it differs at every eps < eps0 checked",
        printed0 == sp.Rational(2, 3) and true0 == sp.Rational(1, 2) and differs,
    )
    # symfdp's implementation, on a grid containing eps_j +- eps0 (no rounding).
    from symfdp.accountants.recursion import zheng_recursion
    from symfdp.mechanisms import PureDP

    e0f = float(np.log(3.0))
    grid = np.arange(-12, 13) * (e0f / 4)
    got = zheng_recursion([(PureDP(e0f), 2)], grid, "linear", progress=False)
    exact = np.array(
        [float(lemma51(p2, q2, sp.Float(g, 30)).evalf(30)) for g in grid[12:]]
    )
    err = float(np.max(np.abs(got[12:] - exact)))
    report.check(
        "symfdp zheng_recursion (Q-weighted) = exact delta_2 on eps >= 0 of a grid "
        "with step eps0/4",
        err < 1e-13,
        f"max abs error {err:.1e}",
    )


def gaussian(report: Report) -> None:
    mpmath.mp.dps = 40
    m, e = mpmath.mpf(1), mpmath.mpf("0.5")

    def phi(x):
        return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)

    def gdp_delta(e, mu):
        """Closed-form profile of G_mu (Dong et al. 2019, Cor. 2.13)."""
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(
            -e / mu - mu / 2
        )

    def loss(x):
        return m * x - m * m / 2

    # One step from delta_1 = delta of G_1: delta_2 must be that of G_sqrt2.
    with_q = mpmath.quad(
        lambda x: gdp_delta(e - loss(x), m) * phi(x - m),
        [-mpmath.inf, 0, 1, mpmath.inf],
    )
    closed = gdp_delta(e, m * mpmath.sqrt(2))
    report.show(
        "Gaussian mu = 1, eps = 1/2: delta_2 with q (30 digits)",
        mpmath.nstr(with_q, 30),
    )
    report.show("delta of G_sqrt2 (closed form)", mpmath.nstr(closed, 30))
    report.check(
        "with q(x): int delta_{G_1}(eps - L(x)) q(x) dx = delta_{G_sqrt2}(eps) "
        "to 30 digits",
        abs(with_q - closed) < mpmath.mpf(10) ** -30,
        mpmath.nstr(abs(with_q - closed), 3),
    )
    # As printed: int_{-R}^{R} delta_0(eps - L(x)) dx grows like R.
    partial = [
        mpmath.quad(lambda x: max(1 - mpmath.exp(e - loss(x)), 0), [e + m * m / 2, r])
        for r in (10, 100, 1000)
    ]
    report.show(
        "as printed, int_{-R}^{R} delta_0(eps - L(x)) dx for R = 10, 100, 1000",
        ", ".join(mpmath.nstr(v, 8) for v in partial),
    )
    report.check(
        "as printed the Gaussian integral diverges (grows by ~R - 10 from R = 10)",
        partial[1] - partial[0] > 89 and partial[2] - partial[1] > 899,
    )


def main() -> int:
    report = Report("Zheng et al. (2020), Sec. 5.1: the recursion and q(x)")
    randomised_response(report)
    gaussian(report)
    report.misprint(
        FINDING,
        "Zheng et al. (2020), Sec. 5.1: the recursion after Lemma 5.2 (and its "
        "gridded form)",
        "delta_{k+1}(eps) = int delta_k(eps - L(x)) dx",
        "delta_{k+1}(eps) = int delta_k(eps - L(x)) q(x) dx (Lemma 5.2, App. D.2)",
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
