"""T(N(0,1), pN(mu,1) + (1-p)N(0,1)) = p G_mu + (1-p) Id (Zheng et al. 2020, Lemma C.1).

A SymPy proof following the Neyman--Pearson lemma:

1. the likelihood ratio q/p equals p e^{mu x - mu^2/2} + 1 - p (as printed in the
   proof of Lemma C.1) and is non-decreasing in x, so the most powerful tests
   reject for x > h;
2. alpha = P(X > h) = 1 - Phi(h) and beta = Q(X <= h) = p Phi(h - mu) + (1-p) Phi(h),
   both by symbolic integration of the densities;
3. with h = Phi^{-1}(1 - alpha), beta = p G_mu(alpha) + (1 - p)(1 - alpha), where
   G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) is Dong et al. (2019), eq. (6).

Then a numeric spot check: ``symfdp.tradeoff.Mixture(Gaussian(mu), p)`` and its
inverse against direct numerical integration of the two densities.
"""

from __future__ import annotations

import sys

import numpy as np
import sympy as sp
from _report import Report
from scipy import integrate, optimize, special

from symfdp import tradeoff as T

x, h = sp.symbols("x h", real=True)
mu = sp.Symbol("mu", nonnegative=True)
p = sp.Symbol("p", positive=True)
alpha = sp.Symbol("alpha", positive=True)


def normal_pdf(t: sp.Expr) -> sp.Expr:
    return sp.exp(-(t**2) / 2) / sp.sqrt(2 * sp.pi)


def Phi(t: sp.Expr) -> sp.Expr:
    """The standard normal CDF in closed form (erf)."""
    return (1 + sp.erf(t / sp.sqrt(2))) / 2


def Phi_inv(u: sp.Expr) -> sp.Expr:
    """Its inverse, sqrt(2) erfinv(2u - 1)."""
    return sp.sqrt(2) * sp.erfinv(2 * u - 1)


def symbolic_proof(report: Report) -> None:
    dens_p = normal_pdf(x)
    dens_q = p * normal_pdf(x - mu) + (1 - p) * normal_pdf(x)

    # Step 1: likelihood ratio and its monotonicity.
    lr = sp.simplify(dens_q / dens_p)
    printed_lr = p * sp.exp(mu * x - mu**2 / 2) + 1 - p
    report.show("q/p", lr)
    report.check(
        "likelihood ratio = p e^{mu x - mu^2/2} + 1 - p (Lemma C.1, as printed)",
        sp.simplify(lr - printed_lr) == 0,
    )
    slope = sp.simplify(sp.diff(printed_lr, x))
    report.show("d(q/p)/dx", slope)
    report.check(
        "d(q/p)/dx = p mu e^{mu x - mu^2/2} >= 0: likelihood-ratio tests threshold x",
        sp.simplify(slope - p * mu * sp.exp(mu * x - mu**2 / 2)) == 0
        and bool(slope.is_nonnegative),
    )

    # Step 2: the errors of the test that rejects for x > h.
    type1 = sp.simplify(sp.integrate(dens_p, (x, h, sp.oo)))
    type2 = sp.simplify(sp.integrate(dens_q, (x, -sp.oo, h)))
    report.show("alpha(h) = P(X > h)", type1)
    report.show("beta(h) = Q(X <= h)", type2)
    # erfc(t) = 1 - erf(t): rewrite so that both sides use erf only.
    report.check(
        "alpha = 1 - Phi(h)",
        sp.simplify((type1 - (1 - Phi(h))).rewrite(sp.erf)) == 0,
    )
    report.check(
        "beta = p Phi(h - mu) + (1 - p) Phi(h)",
        sp.simplify((type2 - (p * Phi(h - mu) + (1 - p) * Phi(h))).rewrite(sp.erf))
        == 0,
    )

    # Step 3: substitute the threshold h = Phi^{-1}(1 - alpha).
    h_alpha = Phi_inv(1 - alpha)
    report.check(
        "h = Phi^{-1}(1 - alpha) gives type I error alpha",
        sp.simplify(type1.subs(h, h_alpha) - alpha) == 0,
    )
    g_mu = Phi(Phi_inv(1 - alpha) - mu)  # Dong et al. (2019), eq. (6)
    beta_alpha = sp.simplify(type2.subs(h, h_alpha))
    target = p * g_mu + (1 - p) * (1 - alpha)
    report.show("beta(alpha)", beta_alpha)
    report.check(
        "T(P, Q)(alpha) = p G_mu(alpha) + (1 - p) Id(alpha)",
        sp.simplify(beta_alpha - target) == 0,
    )
    report.show("LaTeX", sp.latex(sp.Eq(sp.Symbol("beta"), target)))


def _beta_by_integration(mu_v: float, p_v: float, alpha_v: float) -> float:
    # Threshold from alpha = int_h^oo phi (root-finding on a quadrature), then
    # beta = int_{-oo}^h q, both with scipy.integrate.quad.
    def tail(hh: float) -> float:
        return integrate.quad(lambda t: np.exp(-(t**2) / 2), hh, np.inf)[0] / np.sqrt(
            2 * np.pi
        )

    hh = optimize.brentq(lambda v: tail(v) - alpha_v, -12, 12, xtol=1e-14)

    def q(t: float) -> float:
        return (
            p_v * np.exp(-((t - mu_v) ** 2) / 2) + (1 - p_v) * np.exp(-(t**2) / 2)
        ) / (np.sqrt(2 * np.pi))

    return integrate.quad(q, -np.inf, hh, epsabs=1e-14, epsrel=1e-13)[0]


def _inverse_by_integration(mu_v: float, p_v: float, alpha_v: float) -> float:
    # T(Q, P): reject Q for x <= h (the likelihood ratio p/q decreases in x), so
    # alpha = Q(X <= h) and beta = P(X > h).
    def q_cdf(hh: float) -> float:
        return integrate.quad(
            lambda t: (
                (p_v * np.exp(-((t - mu_v) ** 2) / 2) + (1 - p_v) * np.exp(-(t**2) / 2))
                / np.sqrt(2 * np.pi)
            ),
            -np.inf,
            hh,
        )[0]

    hh = optimize.brentq(lambda v: q_cdf(v) - alpha_v, -15, 15, xtol=1e-14)
    return float(special.ndtr(-hh))


def numeric_spot_check(report: Report) -> None:
    cases = [(1.0, 0.25), (0.5, 0.9), (3.0, 0.05), (2.0, 1.0)]
    alphas = [0.01, 0.1, 0.3, 0.6, 0.95]
    worst = worst_inv = 0.0
    for mu_v, p_v in cases:
        f = T.Mixture(T.Gaussian(mu_v), p_v)
        for a in alphas:
            worst = max(worst, abs(f(a) - _beta_by_integration(mu_v, p_v, a)))
            worst_inv = max(
                worst_inv, abs(f.inverse()(a) - _inverse_by_integration(mu_v, p_v, a))
            )
    report.check(
        "symfdp Mixture(Gaussian(mu), p) vs quadrature of the densities",
        worst < 1e-10,
        f"max |diff| = {worst:.2e} over {len(cases) * len(alphas)} points",
    )
    report.check(
        "its inverse T(Q, P) vs quadrature (the 'remove' pair)",
        worst_inv < 1e-10,
        f"max |diff| = {worst_inv:.2e}",
    )


def main() -> int:
    report = Report("Zheng et al. (2020), Lemma C.1: the Gaussian mixture trade-off")
    symbolic_proof(report)
    numeric_spot_check(report)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
