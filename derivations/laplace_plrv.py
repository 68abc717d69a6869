"""The Laplace PLRV: its law, MGF, cumulants, profile and trade-off in closed form.

P = Lap(0,1), Q = Lap(mu,1): L(x) = |x| - |x - mu| is -mu on x <= 0 (P-mass 1/2),
+mu on x >= mu (P-mass e^{-mu}/2) and 2x - mu in between, where l = 2x - mu has the
P-density e^{-(l+mu)/2}/4 on (-mu, mu). Derived here with SymPy:

* the law from the densities (masses and density by integration);
* the MGF K_P(t) = -mu/2 + log(cosh(mu s) + sinh(mu s)/(2s)), s = t - 1/2, equal to
  the direct integral, hence symmetric (K_P(1/2 + s) = K_P(1/2 - s), so
  kappa_r(Q) = (-1)^r kappa_r(P));
* the cumulants as exact polynomials in mu and E = e^{-mu}
  (symfdp.symbolic.plrv.laplace_cumulant_polys), equal to the derivatives of the
  log-MGF, with kappa_1 = -(mu - 1 + e^{-mu}) = -KL(P||Q);
* delta(eps) = 1 - e^{(eps - mu)/2} on [-mu, mu] from P_Q(L > eps) - e^eps P_P(L > eps);
* the trade-off of Kaissis et al. (2023), Cor. 1, equal to Dong et al. (2019),
  Lemma A.6, from the Neyman-Pearson tests on the law.
"""

from __future__ import annotations

import sys

import sympy as sp
from _report import Report

from symfdp.symbolic import plrv as P
from symfdp.symbolic.symbols import mu


def main() -> int:
    report = Report("Laplace PLRV: law, MGF, cumulants, profile, trade-off")
    x = sp.Symbol("x", real=True)
    l = sp.Symbol("l", real=True)
    eps = sp.Symbol("epsilon", real=True)
    p_dens = sp.exp(-sp.Abs(x)) / 2
    q_dens = sp.exp(-sp.Abs(x - mu)) / 2

    # ---- the law of L under P
    lower_atom = sp.integrate(sp.exp(x) / 2, (x, -sp.oo, 0))
    upper_atom = sp.integrate(sp.exp(-x) / 2, (x, mu, sp.oo))
    report.check(
        "P(L = -mu) = P(x <= 0) = 1/2", sp.simplify(lower_atom - sp.S.Half) == 0
    )
    report.check(
        "P(L = mu) = P(x >= mu) = e^{-mu}/2",
        sp.simplify(upper_atom - sp.exp(-mu) / 2) == 0,
    )
    # On 0 < x < mu: l = 2x - mu, dx = dl/2, density e^{-x}/2 -> e^{-(l+mu)/2}/4.
    density_l = (sp.exp(-x) / 2 / 2).subs(x, (l + mu) / 2)
    report.show("P-density of L on (-mu, mu)", sp.simplify(density_l))
    total = lower_atom + upper_atom + sp.integrate(density_l, (l, -mu, mu))
    report.check("total mass 1", sp.simplify(total - 1) == 0)
    # Q-law = e^l times the P-law (likelihood ratio).
    q_upper = sp.integrate(sp.exp(-(x - mu)) / 2, (x, mu, sp.oo))
    report.check(
        "Q(L = mu) = e^{mu} P(L = mu) = 1/2",
        sp.simplify(q_upper - sp.exp(mu) * upper_atom) == 0,
    )
    ratio = sp.simplify((q_dens / p_dens).subs(x, sp.Rational(1, 3) * mu))
    report.check(
        "dQ/dP = e^{2x - mu} inside (0, mu)",
        sp.simplify(ratio - sp.exp(2 * sp.Rational(1, 3) * mu - mu)) == 0,
    )

    # ---- MGF and cumulants
    mgf_direct = P.laplace_mgf_direct_expr()
    cgf = P.laplace_cgf_expr()
    report.show("K_P(t)", cgf)
    report.check(
        "closed-form MGF = direct integral of the law",
        sp.simplify((mgf_direct - sp.exp(cgf)).rewrite(sp.exp)) == 0,
    )
    s = sp.Symbol("s", real=True)
    k_sym = cgf.subs(P.t, sp.S.Half + s) - cgf.subs(P.t, sp.S.Half - s)
    report.check(
        "K_P(1/2 + s) = K_P(1/2 - s) (symmetric pair)", sp.simplify(k_sym) == 0
    )
    kappas = P.laplace_cumulant_exprs(6)
    for r, k in enumerate(kappas[:4], start=1):
        report.show(f"kappa_{r} (P)", sp.latex(sp.collect(sp.expand(k), sp.exp(-mu))))
    report.check(
        "kappa_1 = -(mu - 1 + e^{-mu}) = -KL(P||Q)",
        sp.simplify(kappas[0] + mu - 1 + sp.exp(-mu)) == 0,
    )
    from_cgf = P.cumulants_from_cgf(cgf, 3)
    for r in range(3):
        report.check(
            f"kappa_{r + 1} polynomial = K^({r + 1})(0)",
            sp.simplify((kappas[r] - from_cgf[r]).rewrite(sp.exp)) == 0,
        )
    for r in range(4, 7):
        vals = [
            abs(
                kappas[r - 1].subs(mu, v).evalf(40)
                - sp.diff(cgf, P.t, r).subs({mu: v, P.t: 0}).evalf(40)
            )
            for v in (sp.Rational(1, 4), sp.Rational(5, 2))
        ]
        report.check(
            f"kappa_{r} polynomial = K^({r})(0) at 40 digits", max(vals) < 1e-30
        )
    lead = [sp.series(k, mu, 0, r + 2).removeO() for r, k in enumerate(kappas[:4], 1)]
    report.show("small-mu leading terms", lead)

    # ---- profile and trade-off
    sf_p = sp.integrate(density_l, (l, eps, mu)) + upper_atom  # P(L > eps), |eps| < mu
    sf_q = sp.integrate(sp.exp(l) * density_l, (l, eps, mu)) + q_upper
    delta = sp.simplify(sf_q - sp.exp(eps) * sf_p)
    report.show("delta(eps) on [-mu, mu]", delta)
    report.check(
        "delta(eps) = 1 - e^{(eps - mu)/2} on [-mu, mu]",
        sp.simplify(delta - (1 - sp.exp((eps - mu) / 2))) == 0,
    )
    # NP test thresholded at eps in (-mu, mu): alpha = P(L > eps), beta = Q(L <= eps).
    alpha = sp.simplify(sf_p)
    beta = sp.simplify(1 - sf_q)
    a = sp.Symbol("alpha", positive=True)
    eps_of_a = sp.solve(sp.Eq(alpha, a), eps)
    report.check("alpha(eps) is invertible on the continuous part", len(eps_of_a) == 1)
    f_mid = sp.simplify(beta.subs(eps, eps_of_a[0]))
    report.show("f(alpha) on [e^{-mu}/2, 1/2]", f_mid)
    report.check(
        "Cor. 1 / Lemma A.6 middle piece: f = e^{-mu} / (4 alpha)",
        sp.simplify(f_mid - sp.exp(-mu) / (4 * a)) == 0,
    )
    report.check(
        "the middle piece spans alpha in [e^{-mu}/2, 1/2]",
        sp.simplify(alpha.subs(eps, mu) - sp.exp(-mu) / 2) == 0
        and sp.simplify(alpha.subs(eps, -mu) - sp.S.Half) == 0,
    )
    # Randomising at the atoms gives the linear pieces through (0, 1) and (1, 0).
    left = 1 - a * sp.exp(mu)  # slope -e^{mu} = -Q(L=mu)/P(L=mu)
    right = (1 - a) * sp.exp(-mu)  # slope -e^{-mu}
    report.check(
        "linear pieces meet the middle piece continuously",
        sp.simplify(left.subs(a, sp.exp(-mu) / 2) - f_mid.subs(a, sp.exp(-mu) / 2)) == 0
        and sp.simplify(right.subs(a, sp.S.Half) - f_mid.subs(a, sp.S.Half)) == 0,
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
