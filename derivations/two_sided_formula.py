"""Zheng et al. (2020), eq. (3.4)/(3.5): mu_n must be standardised by Var_P.

Sec. 3 defines, in the paragraph on the symmetric case,
mu_n = (E_Q T_n - E_P T_n) / sqrt(Var_Q T_n), and then writes (3.4)

    f(alpha) = P_Q((T_n - E_P T_n)/sqrt(Var_P T_n) <= h)
             = P_Q((T_n - E_Q T_n)/sqrt(Var_Q T_n)
                   <= [h - (E_Q T_n - E_P T_n)/sqrt(Var_P T_n)] sqrt(Var_P/Var_Q))
             = F~_n((h - mu_n) sqrt(Var_P T_n / Var_Q T_n)),

whose last step holds only with mu_n = (E_Q T_n - E_P T_n)/sqrt(Var_P T_n). For a
symmetric f the two variances agree and so do the two definitions; (3.4)/(3.5)
are stated for asymmetric f, where they do not. The script checks:

1. the step from the second to the last line of (3.4), exactly (SymPy), with a
   generic CDF: it holds with the P-standardised mu_n and fails with the printed
   definition unless Var_P = Var_Q;
2. on an asymmetric pair, one step of the subsampled Gaussian add pair
   P = N(0, 1), Q = (1 - p) N(0, 1) + p N(mu, 1) (p = 1/2, mu = 2), with the exact
   laws of L under P and Q (n = 1, so F_n, F~_n are exact): (3.5) with the
   P-standardised mu_n reproduces T(P, Q) = p G_mu + (1 - p) Id (Zheng et al.,
   Lemma C.1) to 30 digits; with the printed mu_n it does not.
"""

from __future__ import annotations

import sys

import mpmath
import sympy as sp
from _report import Report

FINDING = "zheng2020-mu-n-variance"


def exact_step(report: Report) -> None:
    h, gap = sp.symbols("h A", real=True)
    s_p, s_q = sp.symbols("sigma_P sigma_Q", positive=True)
    # Second line: (T_n - E_Q T_n)/sd_P <= h - gap/sd_P. Solve for the threshold
    # on u = T_n - E_Q T_n and standardise by sd_Q: the argument of F~_n.
    u = sp.Symbol("u", real=True)
    line2 = sp.solve(sp.Eq(u / s_p, h - gap / s_p), u)[0] / s_q
    with_p = (h - gap / s_p) * s_p / s_q
    with_q = (h - gap / s_q) * s_p / s_q
    report.check(
        "(3.4): F~_n((h - mu_n) sqrt(Var_P/Var_Q)) with mu_n = (E_Q - E_P)/sd_P "
        "equals the line before it (exact)",
        sp.simplify(line2 - with_p) == 0,
    )
    diff = sp.factor(sp.simplify(line2 - with_q))
    report.show("argument difference with the printed mu_n = (E_Q - E_P)/sd_Q", diff)
    report.check(
        "with the printed mu_n the step fails unless sd_P = sd_Q (or E_Q = E_P)",
        sp.simplify(diff.subs(s_q, s_p)) == 0 and sp.simplify(diff) != 0,
    )


def asymmetric_pair(report: Report) -> None:
    mpmath.mp.dps = 40
    p, m = mpmath.mpf(1) / 2, mpmath.mpf(2)

    def loss(x):
        return mpmath.log(1 - p + p * mpmath.exp(m * x - m * m / 2))

    def x_of(level):  # inverse of the increasing loss(x), level > log(1 - p)
        return (mpmath.log((mpmath.exp(level) - 1 + p) / p) + m * m / 2) / m

    def phi(x):
        return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)

    def density_q(x):
        return (1 - p) * phi(x) + p * phi(x - m)

    def moments(density):
        pts = [-mpmath.inf, -2, 0, 1, 2, 4, mpmath.inf]
        mean = mpmath.quad(lambda x: loss(x) * density(x), pts)
        var = mpmath.quad(lambda x: (loss(x) - mean) ** 2 * density(x), pts)
        return mean, mpmath.sqrt(var)

    mean_p, sd_p = moments(phi)
    mean_q, sd_q = moments(density_q)
    report.show("E_P L, sd_P L", f"{mpmath.nstr(mean_p, 12)}, {mpmath.nstr(sd_p, 12)}")
    report.show("E_Q L, sd_Q L", f"{mpmath.nstr(mean_q, 12)}, {mpmath.nstr(sd_q, 12)}")

    def f_tilde(h):  # CDF of (L - E_Q L)/sd_Q under Q
        x = x_of(mean_q + h * sd_q)
        return (1 - p) * mpmath.ncdf(x) + p * mpmath.ncdf(x - m)

    def f_inv(u):  # F_n^{-1}(u): quantile of (L - E_P L)/sd_P under P
        return (loss(-mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * u)) - mean_p) / sd_p

    def eq35(alpha, mu_n):
        return f_tilde((f_inv(1 - alpha) - mu_n) * sd_p / sd_q)

    def truth(alpha):  # p G_mu + (1 - p) Id
        z = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * alpha)
        return p * mpmath.ncdf(z - m) + (1 - p) * (1 - alpha)

    mu_p = (mean_q - mean_p) / sd_p
    mu_q = (mean_q - mean_p) / sd_q
    worst_p, least_q = mpmath.mpf(0), mpmath.inf
    for a in ("0.05", "0.2", "0.5", "0.8"):
        alpha = mpmath.mpf(a)
        t = truth(alpha)
        worst_p = max(worst_p, abs(eq35(alpha, mu_p) - t))
        least_q = min(least_q, abs(eq35(alpha, mu_q) - t))
        report.show(
            f"alpha = {a}: T(P,Q), (3.5) with sd_P, (3.5) with sd_Q",
            ", ".join(
                mpmath.nstr(v, 12) for v in (t, eq35(alpha, mu_p), eq35(alpha, mu_q))
            ),
        )
    report.check(
        "p = 1/2, mu = 2 (sd_P != sd_Q): (3.5) with mu_n = (E_Q - E_P)/sd_P equals "
        "p G_mu + (1-p) Id to 30 digits at alpha in {0.05, 0.2, 0.5, 0.8}",
        worst_p < mpmath.mpf(10) ** -30,
        mpmath.nstr(worst_p, 3),
    )
    report.check(
        "with the printed mu_n = (E_Q - E_P)/sd_Q it is off by > 1e-3 at each alpha",
        least_q > mpmath.mpf("1e-3"),
        mpmath.nstr(least_q, 3),
    )


def main() -> int:
    report = Report("Zheng et al. (2020), eq. (3.4)/(3.5): which variance in mu_n")
    exact_step(report)
    asymmetric_pair(report)
    report.misprint(
        FINDING,
        "Zheng et al. (2020), Sec. 3: mu_n (defined before (3.3), used in (3.4)/(3.5))",
        "mu_n = (E_Q[T_n] - E_P[T_n]) / sqrt(Var_Q[T_n])",
        "mu_n = (E_Q[T_n] - E_P[T_n]) / sqrt(Var_P[T_n]) in (3.4)/(3.5) (the two "
        "agree for symmetric f only)",
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
