"""chi2_+(G_mu) = e^{mu^2} Phi(3mu/2) + 3 Phi(-mu/2) - 2 (Dong et al. 2019, chirep).

Derivation. For f = T(P, Q) the slope at the level-x Neyman-Pearson test is
|f'(x)| = e^L with L = log dQ/dP at the P-quantile, so
chi2_+(f) = int_0^1 (|f'| - 1)_+^2 dx = E_P[(e^L - 1)_+^2]. For G_mu,
L = mu Z - mu^2/2 with Z ~ N(0, 1) under P and L > 0 iff Z > mu/2:

    chi2_+(G_mu) = int_{mu/2}^inf (e^{mu z - mu^2/2} - 1)^2 phi(z) dz
                 = e^{mu^2} P(N(2mu,1) > mu/2) - 2 P(N(mu,1) > mu/2) + P(N(0,1) > mu/2)
                 = e^{mu^2} Phi(3mu/2) - 2 Phi(mu/2) + Phi(-mu/2),

which equals the printed form since -2 Phi(mu/2) = -2 + 2 Phi(-mu/2). SymPy
integrates the definition exactly; the script checks it against the printed
lemma, against Prop. G.1 (chi2_+(P||Q) = E_Q[(P/Q - 1)_+^2] with P = N(mu,1),
Q = N(0,1)), against Lemma G.2 (int_0^{x*} (f' + 1)^2) by quadrature, and prints
the small-mu expansion (chi2_+ = mu^2/2 + ...).
"""

from __future__ import annotations

import sys

import sympy as sp
from _report import Report

from symfdp.symbolic.functionals import (
    chi2_plus_gmu_dong_expr,
    chi2_plus_gmu_expr,
    std_normal_cdf,
    std_normal_pdf,
    z,
)
from symfdp.symbolic.symbols import mu


def main() -> int:
    report = Report("chi2_+(G_mu): Dong et al. (2019), Lemma chirep")
    derived = chi2_plus_gmu_expr()
    printed = chi2_plus_gmu_dong_expr()
    report.show("chi2_+(G_mu) derived (E_P[(e^L - 1)_+^2])", derived)
    report.show("LaTeX", sp.latex(sp.simplify(derived.rewrite(sp.erfc))))
    report.check(
        "derived = e^{mu^2} Phi(3mu/2) + 3 Phi(-mu/2) - 2 (as printed)",
        sp.simplify((derived - printed).rewrite(sp.erf)) == 0,
    )
    # Prop. G.1: E_{x ~ N(0,1)}[(phi(x - mu)/phi(x) - 1)_+^2], region x > mu/2.
    ratio = sp.exp(mu * z - mu**2 / 2)
    prop_g1 = sp.integrate(
        sp.expand((ratio - 1) ** 2 * std_normal_pdf(z)), (z, mu / 2, sp.oo)
    )
    report.check(
        "Prop. G.1 form E_Q[(P/Q - 1)_+^2] (P = N(mu,1), Q = N(0,1)) agrees",
        sp.simplify((prop_g1 - printed).rewrite(sp.erf)) == 0,
    )
    three = sp.exp(mu**2) * std_normal_cdf(3 * mu / 2) - 2 * std_normal_cdf(mu / 2)
    three += std_normal_cdf(-mu / 2)
    report.check(
        "term by term: e^{mu^2} Phi(3mu/2) - 2 Phi(mu/2) + Phi(-mu/2)",
        sp.simplify((three - printed).rewrite(sp.erf)) == 0,
    )
    series = sp.series(printed.rewrite(sp.erf), mu, 0, 5).removeO()
    report.show("small-mu expansion", sp.simplify(series))
    report.check(
        "chi2_+(G_mu) = mu^2/2 + O(mu^3)",
        sp.simplify(series.coeff(mu, 2) - sp.Rational(1, 2)) == 0
        and series.coeff(mu, 0) == 0
        and series.coeff(mu, 1) == 0,
    )
    # Lemma G.2: int_0^{x*} (f'(x) + 1)^2 dx with f' from finite differences of
    # G_mu (the trade-off route of symfdp.functionals; ~1e-9 accurate).
    from symfdp import functionals as F
    from symfdp import tradeoff as T

    for value in (0.3, 1.0, 2.5):
        lemma = F.chi2_plus(T.Gaussian(value))
        closed = float(printed.subs(mu, sp.Float(value, 30)).evalf(30))
        report.check(
            f"Lemma G.2 by quadrature of f' = closed form at mu = {value}",
            abs(lemma / closed - 1) < 1e-7,
            f"{lemma!r} vs {closed!r}",
        )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
