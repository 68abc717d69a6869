"""The local GDP parameter of an Edgeworth trade-off curve to order n^{-1/2}.

Prints mu(z) = mu_0 + mu_1 of ``symfdp.symbolic.gdp_fit.local_mu_terms`` and
checks it three ways: (1) a Gaussian pair (rho = 1, lambda_3 = 0) gives the
constant theta, the curve G_theta (Dong et al. 2019, eq. (6)); (2) mu_1 is the
first-order coefficient of z + Phi^{-1}(1 - F_Q(w)) with F_Q the order-1
Edgeworth CDF (Zheng et al. 2020, eq. (3.7)) and the order-1 Cornish-Fisher
quantile (eq. (3.9)), re-derived here by a Taylor series in the book-keeping
epsilon with Phi^{-1} as an explicit inverse series; (3) mu_1 is linear in
(lambda3_P, lambda3_Q), so the correction is O(n^{-1/2}).
"""

from __future__ import annotations

import sys

import sympy as sp
from _report import Report

from symfdp.symbolic.gdp_fit import lambda3_P, lambda3_Q, local_mu_terms, rho, theta
from symfdp.symbolic.symbols import z


def main() -> int:
    report = Report("local GDP parameter of an Edgeworth curve, order n^(-1/2)")
    mu0, mu1 = local_mu_terms()
    report.show("mu_0(z)", mu0)
    report.show("mu_1(z)", sp.factor_terms(mu1))
    report.show("LaTeX", sp.latex(mu0 + mu1))

    gaussian = sp.simplify((mu0 + mu1).subs({rho: 1, lambda3_P: 0, lambda3_Q: 0}))
    report.check("Gaussian pair: mu(z) == theta", gaussian == theta)

    # Independent route: beta = F_Q(w), w = -theta + rho x_P(z), with
    # x_P = z + e lP (z^2 - 1)/6 and F_Q(x) = Phi(x) - e lQ (x^2 - 1)/6 phi(x);
    # Phi^{-1}(beta) = y solves Phi(y) = beta; with y = w0 + e y1,
    # Phi(w0 + e y1) = Phi(w0) + e y1 phi(w0) + O(e^2), so y1 = beta_1 / phi(w0).
    e = sp.Symbol("e", positive=True)
    u = sp.Symbol("u", real=True)
    density = sp.exp(-(u**2) / 2) / sp.sqrt(2 * sp.pi)
    cdf = sp.Rational(1, 2) * (1 + sp.erf(u / sp.sqrt(2)))
    x_p = z + e * lambda3_P * (z**2 - 1) / 6
    w = -theta + rho * x_p
    beta = cdf.subs(u, w) - e * lambda3_Q * (w**2 - 1) / 6 * density.subs(u, w)
    w0 = w.subs(e, 0)
    beta1 = sp.diff(beta, e).subs(e, 0)
    y1 = sp.simplify(beta1 / density.subs(u, w0))
    independent = sp.expand(-y1)
    report.check(
        "mu_1 == first-order term of z - Phi^{-1}(F_Q(w)) (erf form)",
        sp.expand(independent - mu1) == 0,
    )
    doubled = mu1.subs({lambda3_P: 2 * lambda3_P, lambda3_Q: 2 * lambda3_Q})
    linear = sp.expand(doubled - 2 * mu1) == 0
    report.check("mu_1 is linear in the lambda_3 (order n^(-1/2))", linear)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
