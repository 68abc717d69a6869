"""Cumulants <-> raw moments: Appendix B of Zheng et al. (2020), then any order.

Checks the printed relations kappa_0..kappa_4 (App. B) against the log of the
moment-generating series, then the general Bell-polynomial formula
kappa_r = sum_k (-1)^{k-1} (k-1)! B_{r,k}(m_1, ..., m_{r-k+1}) and its inverse
(complete Bell polynomials) up to order 8, a round trip, the scaling of
standardised cumulants of a sum (eq. (A.2)/(A.9)) and an exact example (the
exponential distribution, kappa_r = (r-1)!, m_r = r!).
"""

from __future__ import annotations

import sys

import sympy as sp
from _report import Report

from symfdp.symbolic.cumulants import (
    cumulant_from_moments_expr,
    cumulants_to_moments,
    moments_to_cumulants,
    standardised_cumulants,
)
from symfdp.symbolic.symbols import kappa, moment

TOP = 8


def series_cumulants(top: int) -> list[sp.Expr]:
    """kappa_0..kappa_top from K(t) = log M(t), M(t) = 1 + sum_r m_r t^r / r!."""
    t = sp.Symbol("t")
    mgf = 1 + sum(moment(r) * t**r / sp.factorial(r) for r in range(1, top + 1))
    cgf = sp.series(sp.log(mgf), t, 0, top + 1).removeO()
    return [sp.expand(cgf.coeff(t, r) * sp.factorial(r)) for r in range(top + 1)]


def main() -> int:
    report = Report("Cumulants <-> moments: Zheng et al. (2020), App. B, and order 8")
    m1, m2, m3, m4 = (moment(r) for r in range(1, 5))
    # Zheng et al. (2020), App. B, as printed.
    paper = {
        0: sp.Integer(0),
        1: m1,
        2: m2 - m1**2,
        3: m3 - 3 * m2 * m1 + 2 * m1**3,
        4: m4 - 4 * m3 * m1 - 3 * m2**2 + 12 * m2 * m1**2 - 6 * m1**4,
    }
    from_series = series_cumulants(TOP)
    for r, printed in paper.items():
        report.show(f"kappa_{r} (App. B)", printed)
        report.check(
            f"App. B kappa_{r} = r! [t^r] log M(t)",
            sp.expand(printed - from_series[r]) == 0,
        )
        report.check(
            f"App. B kappa_{r} = Bell-polynomial formula",
            sp.expand(printed - cumulant_from_moments_expr(r)) == 0,
        )

    for r in range(5, TOP + 1):
        report.show(f"kappa_{r}", cumulant_from_moments_expr(r))
    report.check(
        f"general formula = series, r = 0..{TOP}",
        all(
            sp.expand(cumulant_from_moments_expr(r) - from_series[r]) == 0
            for r in range(TOP + 1)
        ),
    )
    moments = [moment(r) for r in range(1, TOP + 1)]
    kappas = [kappa(r) for r in range(1, TOP + 1)]
    report.check(
        f"moments_to_cumulants = series, r = 1..{TOP}",
        all(
            sp.expand(a - b) == 0
            for a, b in zip(moments_to_cumulants(moments), from_series[1:], strict=True)
        ),
    )
    round_trip = moments_to_cumulants(cumulants_to_moments(kappas))
    report.check(
        f"round trip kappa -> m -> kappa, order {TOP}",
        all(sp.expand(a - b) == 0 for a, b in zip(round_trip, kappas, strict=True)),
    )
    back = cumulants_to_moments(moments_to_cumulants(moments))
    report.check(
        f"round trip m -> kappa -> m, order {TOP}",
        all(sp.expand(a - b) == 0 for a, b in zip(back, moments, strict=True)),
    )
    # Exponential(1): m_r = r!, kappa_r = (r-1)!.
    exp_moments = [sp.factorial(r) for r in range(1, TOP + 1)]
    report.check(
        "Exp(1): m_r = r! gives kappa_r = (r-1)!",
        moments_to_cumulants(exp_moments)
        == [sp.factorial(r - 1) for r in range(1, TOP + 1)],
    )
    # Zheng et al. (2020), eqs. (A.2), (A.9): lambda_r = sigma_n^{-r} n kappa_r.
    n = sp.Symbol("n", positive=True, integer=True)
    k2 = sp.Symbol("kappa2", positive=True)
    per_step = [kappa(1), k2, *kappas[2:]]
    lams = standardised_cumulants(per_step, n)
    report.check(
        "(A.2)/(A.9): lambda_r = n kappa_r / (n kappa_2)^{r/2} = O(n^{1-r/2})",
        all(
            sp.simplify(lam / (n ** (1 - sp.Rational(r, 2)) * kappa(r) / k2 ** (r / 2)))
            == 1
            for r, lam in zip(range(3, TOP + 1), lams, strict=True)
        ),
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
