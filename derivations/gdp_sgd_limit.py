"""NoisySGD CLT: sqrt(2) c sqrt(chi2_+(G_{1/sigma})) vs p sqrt(n (e^{1/sigma^2} - 1)).

Dong et al. (2019), Thm 5.2 (mixturerep) and Cor. SGDlimitrep: each step is
C_p(f)-DP with f = G_{1/sigma}, symmetrised and convexified *per step*. Lemma G.3
gives, with g = |f'| - 1 on [0, x*],

    kl(C_p f)     = p int g log(1 + p g)          ~ p^2 chi2_+(f),
    kappa2(C_p f) = int (2 + p g) log^2(1 + p g)  ~ 2 p^2 chi2_+(f),
    kappa3(C_p f) = int (2 + p g) log^3(1 + p g)  = O(p^3),

so with p sqrt(T) -> c the CLT (asymprep) gives K = c^2 chi2_+, s^2 = 2K and
mu = 2K/s = c sqrt(2 chi2_+(f)) = p sqrt(2 n chi2_+(G_{1/sigma})) for n = T steps.

Zheng et al. (2020, Sec. 5.3), after Bu et al., and Kaissis et al. (2023) compose
the *asymmetric* add pair h = p G_{1/sigma} + (1-p) Id = T(N(0,1), (1-p)N(0,1) +
pN(1/sigma,1)) and symmetrise once at the end. The loss of that pair has
E_Q L - E_P L ~ p^2 chi2 and Var_P L ~ p^2 chi2 with the full chi-square divergence
chi2 = E_P[(e^L - 1)^2] = e^{mu^2} - 1 of N(mu,1) from N(0,1), so its CLT gives
mu = p sqrt(n (e^{1/sigma^2} - 1)).

The difference: chi2 = chi2_+ + chi2_-, with chi2_- = E_P[(e^L - 1)^2; L < 0] the
part of the divergence on the other side of the fixed point. Symmetrising every
step replaces the lower branch of f_p by the reflection of its upper branch, so
chi2_- is replaced by chi2_+ and 2 chi2_+ >= chi2: the per-step C_p bound is the
more pessimistic one (larger mu), and both agree to leading order mu^2 as
sigma -> inf. This script checks the limits symbolically and numerically (with the
cumulants of symfdp.mechanisms.SubsampledGaussian) and prints both forms.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import sympy as sp
from _report import Report

from symfdp import functionals as F
from symfdp import mechanisms as M
from symfdp.symbolic.functionals import chi2_plus_gmu_dong_expr
from symfdp.symbolic.symbols import mu


def main() -> int:
    report = Report(
        "NoisySGD CLT: chi2_+ form (Dong et al.) vs e^{1/sigma^2} form (Zheng)"
    )
    p, g = sp.symbols("p g", positive=True)
    # Lemma G.3 integrands divided by p^2 (p^3 for kappa3) and their p -> 0 limits.
    lim_kl = sp.limit(p * g * sp.log(1 + p * g) / p**2, p, 0)
    lim_k2 = sp.limit((2 + p * g) * sp.log(1 + p * g) ** 2 / p**2, p, 0)
    lim_k3 = sp.limit((2 + p * g) * sp.log(1 + p * g) ** 3 / p**3, p, 0)
    report.check(
        "kl(C_p f) / p^2 -> int g^2 = chi2_+(f)", sp.simplify(lim_kl - g**2) == 0
    )
    report.check(
        "kappa2(C_p f) / p^2 -> 2 chi2_+(f)", sp.simplify(lim_k2 - 2 * g**2) == 0
    )
    report.check(
        "kappa3(C_p f) / p^3 -> 2 int g^3 (so T kappa3 -> 0)",
        sp.simplify(lim_k3 - 2 * g**3) == 0,
    )
    c, chi = sp.symbols("c chi", positive=True)
    big_k, s2 = c**2 * chi, 2 * c**2 * chi
    mu_clt = sp.simplify(2 * big_k / sp.sqrt(s2))
    report.show("mu = 2K/s", mu_clt)
    report.check(
        "mu = c sqrt(2 chi2_+) (Thm 5.2)",
        sp.simplify(mu_clt - c * sp.sqrt(2 * chi)) == 0,
    )

    chi2_plus = chi2_plus_gmu_dong_expr()
    ser_plus = sp.series((2 * chi2_plus).rewrite(sp.erf), mu, 0, 5).removeO()
    ser_full = sp.series(sp.exp(mu**2) - 1, mu, 0, 5).removeO()
    report.show("2 chi2_+(G_mu) near 0", sp.expand(ser_plus))
    report.show("e^{mu^2} - 1 near 0", ser_full)
    report.check(
        "both equal mu^2 to leading order",
        sp.simplify(ser_plus.coeff(mu, 2) - 1) == 0 and ser_full.coeff(mu, 2) == 1,
    )

    # Numerically: 2 chi2_+ >= chi2 = chi2_+ + chi2_-, with equality only as mu -> 0.
    grid = np.array([0.05, 0.2, 0.5, 1.0, 2.0, 3.0])
    two_plus = 2 * np.asarray(F.chi2_plus_gmu(grid))
    full = np.expm1(grid**2)
    report.check(
        "2 chi2_+(G_mu) >= e^{mu^2} - 1 on a grid", bool(np.all(two_plus >= full))
    )

    # The two CLTs from the exact per-step laws of the subsampled Gaussian.
    sigma = 1.0
    print()
    print(
        f"   {'p':>8} {'mu_exp (Zheng)':>16} {'from add pair':>14} "
        f"{'mu_chi2 (Dong)':>15} {'from C_p laws':>14}"
    )
    gaps = []
    for pp in (1e-2, 1e-3, 1e-4):
        nn = round((1.0 / pp) ** 2)  # c = p sqrt(n) = 1
        add = M.with_adjacency(M.SubsampledGaussian(p=pp, sigma=sigma), "add")
        kp, kq = add.cumulants(2, "P"), add.cumulants(2, "Q")
        # Zheng's mu_n = sqrt(n) (E_Q L - E_P L) / sd_P(L) for the asymmetric pair.
        mu_add = math.sqrt(nn) * (kq[0] - kp[0]) / math.sqrt(kp[1])
        f = F.moment_functionals(M.SubsampledGaussian(p=pp, sigma=sigma))
        mu_cp = 2 * math.sqrt(nn) * f.kl / math.sqrt(f.kappa2 - f.kl**2)
        m_exp = F.noisy_sgd_mu_exp(pp, sigma, nn)
        m_chi = F.noisy_sgd_mu_chi2(pp, sigma, nn)
        print(f"   {pp:8.0e} {m_exp:16.6f} {mu_add:14.6f} {m_chi:15.6f} {mu_cp:14.6f}")
        gaps.append((abs(mu_add / m_exp - 1), abs(mu_cp / m_chi - 1)))
    report.check(
        "add-pair CLT -> p sqrt(n (e^{1/sigma^2} - 1)) as p -> 0 (c = 1)",
        gaps[-1][0] < 1e-3 and gaps[-1][0] < gaps[0][0],
    )
    report.check(
        "C_p(G_mu) Berry-Esseen mu -> p sqrt(2 n chi2_+(G_{1/sigma})) as p -> 0",
        gaps[-1][1] < 1e-3 and gaps[-1][1] < gaps[0][1],
    )
    print()
    print(
        f"   {'sigma':>6} {'p sqrt(2n chi2_+)':>18} "
        f"{'p sqrt(n(e^(1/s^2)-1))':>24}   (p sqrt(n) = 1)"
    )
    for s in (0.5, 0.8, 1.0, 2.0, 5.0, 20.0):
        print(
            f"   {s:6.1f} {F.noisy_sgd_mu_chi2(1e-3, s, 10**6):18.6f} "
            f"{F.noisy_sgd_mu_exp(1e-3, s, 10**6):24.6f}"
        )
    print()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
