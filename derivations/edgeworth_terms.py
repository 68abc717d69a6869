"""Edgeworth and Cornish–Fisher terms of any order, checked against the paper.

Prints the Edgeworth CDF terms of orders 1..J (LaTeX; term j is the n^{-j/2} one)
and the Cornish–Fisher terms, and proves with SymPy that

- orders 1-2 equal Zheng et al. (2020), eqs. (3.7), (3.8) and (A.8) (with
  sigma_n^{-r} K_r = lambda_r, eq. (A.2)), and the characteristic-function
  expansion (A.3);
- the Cornish–Fisher order 2 equals eq. (3.9);
- CF_k o Edgeworth_k = Phi(z) + O(n^{-(k+1)/2}) as a series in eps = n^{-1/2},
  with the true Phi and phi (erf and exp), for k = 1..3.

Claims of the paper that do not hold as printed are reported as misprints with the
corrected form.

Usage: python derivations/edgeworth_terms.py [--order J]
"""

from __future__ import annotations

import argparse
import sys

import sympy as sp
from _report import Report

from symfdp.symbolic.cornish_fisher import cornish_fisher_expr, cornish_fisher_terms
from symfdp.symbolic.edgeworth import (
    characteristic_polynomials,
    edgeworth_cdf_expr,
    edgeworth_cdf_polynomial,
    edgeworth_cdf_terms,
    edgeworth_pdf_expr,
)
from symfdp.symbolic.hermite import hermite_he
from symfdp.symbolic.symbols import Phi, lam, phi, s, x, z


def zero(expr: sp.Expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


def paper_to_lambdas(expr: sp.Expr, sigma: sp.Symbol, kappas: dict[int, sp.Symbol]):
    """Map the paper's bold kappa_r (sums of cumulants) to lambda_r sigma_n^r."""
    return sp.expand(expr.subs({k: lam(r) * sigma**r for r, k in kappas.items()}))


def series_residual(k: int) -> list[sp.Expr]:
    """Taylor coefficients in eps of F_k(x_k(z)) - Phi(z), with the true Phi, phi."""
    eps = sp.Symbol("epsilon", positive=True)
    scale = {lam(r): eps ** (r - 2) * lam(r) for r in range(3, k + 3)}
    poly = edgeworth_cdf_polynomial(k).xreplace(scale)
    quantile = cornish_fisher_expr(k).xreplace(scale)

    def true_cdf(t: sp.Expr) -> sp.Expr:
        return (1 + sp.erf(t / sp.sqrt(2))) / 2

    def true_pdf(t: sp.Expr) -> sp.Expr:
        return sp.exp(-(t**2) / 2) / sp.sqrt(2 * sp.pi)

    expr = true_cdf(quantile) - true_pdf(quantile) * poly.subs(x, quantile)
    coeffs = [sp.simplify(expr.subs(eps, 0) - true_cdf(z))]
    for _ in range(k + 1):
        expr = sp.diff(expr, eps)
        coeffs.append(sp.simplify(expr.subs(eps, 0)))
    return coeffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--order", type=int, default=4, help="print orders 1..J")
    args = parser.parse_args(argv)
    report = Report(
        "Edgeworth / Cornish-Fisher terms vs Zheng et al. (2020), Sec. 3 and App. A"
    )
    order = max(args.order, 2)

    # ---- print the derived terms
    terms = edgeworth_cdf_terms(order)
    polys = characteristic_polynomials(order)
    cf_terms = cornish_fisher_terms(order)
    for j in range(1, order + 1):
        report.show(
            f"P_{j}(it) [chi(t) = e^(-t^2/2) sum_j P_j(it)]", sp.latex(polys[j])
        )
        report.show(f"Edgeworth CDF term n^(-{j}/2)", sp.latex(terms[j]))
        report.show(f"Cornish-Fisher term n^(-{j}/2)", sp.latex(cf_terms[j]))

    # ---- the paper's formulas, in its own symbols
    h = x
    sigma = sp.Symbol("sigma_n", positive=True)
    kap = {r: sp.Symbol(f"K{r}", real=True) for r in (3, 4, 5)}
    k3, k4 = kap[3], kap[4]

    # Zheng et al. (2020), eq. (3.7): F~_EW = Phi - T1 - T2
    t1 = sigma**-3 * sp.Rational(1, 6) * k3 * (h**2 - 1) * phi(h)
    t2 = (
        sigma**-4 / 24 * k4 * (h**3 - 3 * h)
        + sigma**-6 / 72 * k3**2 * (h**5 - 10 * h**3 + 15 * h)
    ) * phi(h)
    eq37 = Phi(h) - t1 - t2
    report.check(
        "(3.7) T1 = -(n^{-1/2} term)",
        zero(paper_to_lambdas(-t1, sigma, kap) - terms[1]),
    )
    report.check(
        "(3.7) T2 = -(n^{-1} term)",
        zero(paper_to_lambdas(-t2, sigma, kap) - terms[2]),
    )
    report.check(
        "(3.7) full degree-2 CDF = edgeworth_cdf_expr(2)",
        zero(paper_to_lambdas(eq37, sigma, kap) - edgeworth_cdf_expr(2)),
    )
    # Zheng et al. (2020), eq. (3.8): the same form with the P-cumulants.
    eq38 = (
        Phi(h)
        - sigma**-3 * sp.Rational(1, 6) * k3 * (h**2 - 1) * phi(h)
        - sigma**-4 * sp.Rational(1, 24) * k4 * (h**3 - 3 * h) * phi(h)
        - sigma**-6 * sp.Rational(1, 72) * k3**2 * (h**5 - 10 * h**3 + 15 * h) * phi(h)
    )
    report.check(
        "(3.8) = edgeworth_cdf_expr(2)",
        zero(paper_to_lambdas(eq38, sigma, kap) - edgeworth_cdf_expr(2)),
    )
    # Zheng et al. (2020), eq. (A.8), written with R_j = r_j(-D) phi.
    eqa8 = (
        Phi(h)
        + sigma**-3 * (-sp.Rational(1, 6) * k3 * (h**2 - 1) * phi(h))
        + sigma**-4 * (-sp.Rational(1, 24) * k4 * (h**3 - 3 * h) * phi(h))
        + sigma**-6
        * (-sp.Rational(1, 72) * k3**2 * (h**5 - 10 * h**3 + 15 * h) * phi(h))
    )
    report.check(
        "(A.8) = edgeworth_cdf_expr(2)",
        zero(paper_to_lambdas(eqa8, sigma, kap) - edgeworth_cdf_expr(2)),
    )
    # Zheng et al. (2020), eq. (A.3): r_1, r_2, r_3 of the characteristic function.
    it = s
    r1 = sp.Rational(1, 6) * k3 * it**3 * sigma**-3
    r23 = (
        sp.Rational(1, 24) * k4 * it**4 * sigma**-4
        + sp.Rational(1, 72) * k3**2 * it**6 * sigma**-6
    )
    report.check("(A.3) P_1 = r_1", zero(paper_to_lambdas(r1, sigma, kap) - polys[1]))
    report.check(
        "(A.3) P_2 = r_2 + r_3", zero(paper_to_lambdas(r23, sigma, kap) - polys[2])
    )
    # The density is the derivative of the CDF (with the true Phi and phi).
    true_fns = {
        Phi(x): (1 + sp.erf(x / sp.sqrt(2))) / 2,
        phi(x): sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi),
    }
    cdf_true = edgeworth_cdf_expr(order).xreplace(true_fns)
    pdf_true = edgeworth_pdf_expr(order).xreplace(true_fns)
    report.check(
        f"d/dx Edgeworth CDF = Edgeworth density (order {order})",
        zero((sp.diff(cdf_true, x) - pdf_true) * sp.exp(x**2 / 2)),
    )

    # Zheng et al. (2020), eq. (3.9): the degree-2 Cornish-Fisher quantile.
    eq39 = (
        z
        + sigma**-3 * sp.Rational(1, 6) * k3 * (z**2 - 1)
        + sigma**-4 * sp.Rational(1, 24) * k4 * (z**3 - 3 * z)
        - sigma**-6 * sp.Rational(1, 36) * k3**2 * (2 * z**3 - 5 * z)
    )
    report.check(
        "(3.9) = cornish_fisher_expr(2)",
        zero(paper_to_lambdas(eq39, sigma, kap) - cornish_fisher_expr(2)),
    )

    # CF_k o Edgeworth_k = Phi(z) + O(eps^{k+1}), with erf/exp (independent of the
    # series inversion used to derive CF).
    for k in range(1, 4):
        coeffs = series_residual(k)
        report.check(
            f"F_{k}(CF_{k}(z)) = Phi(z) + O(n^(-{k + 1}/2))",
            all(c == 0 for c in coeffs[: k + 1]) and coeffs[k + 1] != 0,
            "coefficients of eps^0..eps^k vanish, eps^(k+1) does not",
        )

    # ---- claims that do not hold as printed
    # Sec. 3.1, Method (i): "numerically solve F_EW(h) - 1 - alpha = 0".
    alpha = sp.Symbol("alpha", positive=True)
    printed_target = 1 + alpha
    report.check(
        "Method (i) as printed has no root at order 0: Phi(h) < 1 < 1 + alpha",
        sp.ask(sp.Q.gt(printed_target, 1), sp.Q.positive(alpha)) is True,
        "the corrected equation is solved by CF_k above",
    )
    report.misprint(
        "zheng2020-method-i-quantile",
        "Sec. 3.1, Method (i): the quantile equation",
        "F_EW(h) - 1 - alpha = 0",
        "F_EW(h) - (1 - alpha) = 0, i.e. h = F_EW^{-1}(1 - alpha)",
    )
    # App. A after (A.8) and (A.9): the truncation error of the degree-2 expansion.
    p3 = polys[3] if order >= 3 else characteristic_polynomials(3)[3]
    paper_p3 = sp.Rational(1, 120) * lam(5) * s**5
    full_p3 = (
        paper_p3
        + sp.Rational(1, 144) * lam(3) * lam(4) * s**7
        + sp.Rational(1, 1296) * lam(3) ** 3 * s**9
    )
    report.check(
        "P_3 = K5(it)^5/120 + K3K4(it)^7/144 + K3^3(it)^9/1296 (sigma_n scaled)",
        zero(p3 - full_p3),
    )
    term3 = edgeworth_cdf_terms(3)[3]
    r3 = sp.expand(-term3 / phi(x))
    expected_r3 = (
        lam(5) / 120 * hermite_he(4)
        + lam(3) * lam(4) / 144 * hermite_he(6)
        + lam(3) ** 3 / 1296 * hermite_he(8)
    )
    report.check(
        "n^(-3/2) CDF term = -phi (K5 He4/120 + K3K4 He6/144 + K3^3 He8/1296)",
        zero(r3 - expected_r3) and sp.degree(r3, x) == 8,
    )
    report.misprint(
        "zheng2020-appA-truncation",
        "App. A, truncation error of (A.8) (after (A.8) and (A.9))",
        "dominated by sigma^-5 K5 (it)^5/120 at n^(-3/2) and sigma^-8 K4^2 (it)^8/576 "
        "at n^(-2); CDF error O(n^(-2) He7(h) + n^(-3/2) He4(h)) = "
        "O(n^(-2) h^7 + n^(-3/2) h^3)",
        "the n^(-3/2) error also holds t1*t2 = sigma^-7 K3 K4 (it)^7/144 and "
        "t1^3/6 = sigma^-9 K3^3 (it)^9/1296 (same order as K5, larger than t2^2): "
        "CDF error -phi(h)[K5 He4/120 + K3K4 He6/144 + K3^3 He8/1296] + O(n^-2) = "
        "O(n^(-3/2) (1 + |h|^8))",
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
