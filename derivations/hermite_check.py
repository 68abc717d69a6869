"""Probabilists' Hermite polynomials He_0..He_7 vs the list (A.7) of Zheng et al.

Checks ``symfdp.symbolic.hermite.hermite_he`` against three independent
characterisations (the Rodrigues formula, the three-term recurrence and
orthogonality under the standard normal, with exact Gaussian moments), proves the
inversion rule (A.6) (-D)^j Phi = -He_{j-1} phi, and compares the paper's printed
list (A.7) entry by entry, reporting every entry that differs.
"""

from __future__ import annotations

import sys

import sympy as sp
from _report import Report

from symfdp.symbolic.hermite import hermite_he
from symfdp.symbolic.symbols import x

h = x
# Zheng et al. (2020), eq. (A.7), transcribed as printed.
PAPER_A7 = {
    0: sp.Integer(1),
    1: h,
    2: h**2 - 1,
    3: h**3 - 3 * h,
    4: h**4 - 6 * h**2 + 3,
    5: h**5 - 10 * h**3 + 15 * h,
    6: h**6 - 15 * h**4 + 45 * h**2 - 15,
    7: h**7 - 21 * h**5 + 105 * h**3,
}


def gaussian_expectation(poly: sp.Expr) -> sp.Expr:
    """E[p(X)] for X ~ N(0, 1), from E[X^(2m)] = (2m-1)!!, odd moments 0."""
    p = sp.Poly(sp.expand(poly), x)
    total = sp.S.Zero
    for (deg,), coeff in p.terms():
        if deg % 2 == 0:
            total += coeff * sp.factorial2(deg - 1)
    return total


def main() -> int:
    report = Report("Hermite polynomials He_0..He_7 vs Zheng et al. (2020), eq. (A.7)")
    top = 7
    he = [hermite_he(k, x) for k in range(top + 2)]
    for k in range(top + 1):
        report.show(f"He_{k}(x)", he[k])

    gauss = sp.exp(-(x**2) / 2)
    rodrigues = all(
        sp.simplify((-1) ** k * sp.diff(gauss, x, k) / gauss - he[k]) == 0
        for k in range(top + 2)
    )
    report.check("Rodrigues: He_k = (-1)^k e^{x^2/2} D^k e^{-x^2/2}, k <= 8", rodrigues)
    recurrence = all(
        sp.expand(he[k + 1] - (x * he[k] - k * he[k - 1])) == 0
        for k in range(1, top + 1)
    )
    report.check("recurrence He_{k+1} = x He_k - k He_{k-1}", recurrence)
    orthogonal = all(
        gaussian_expectation(he[j] * he[k]) == (sp.factorial(k) if j == k else 0)
        for j in range(top + 1)
        for k in range(top + 1)
    )
    report.check("orthogonality E[He_j He_k] = k! delta_jk under N(0,1)", orthogonal)

    # Zheng et al. (2020), eq. (A.6): (-D)^j Phi = -He_{j-1} phi for j >= 1.
    Phi_true = (1 + sp.erf(x / sp.sqrt(2))) / 2
    phi_true = gauss / sp.sqrt(2 * sp.pi)
    a6 = all(
        sp.simplify((-1) ** j * sp.diff(Phi_true, x, j) + he[j - 1] * phi_true) == 0
        for j in range(1, top + 2)
    )
    report.check("(A.6) (-D)^j Phi = -He_{j-1} phi, j = 1..8", a6)

    discrepancies = 0
    for k, printed in PAPER_A7.items():
        diff = sp.expand(printed - he[k])
        if diff == 0:
            report.check(f"(A.7) He_{k} as printed", True)
            continue
        discrepancies += 1
        report.misprint(
            f"zheng2020-a7-he{k}",
            f"(A.7) He_{k}",
            f"He_{k}(h) = {printed.subs(x, sp.Symbol('h'))}",
            f"He_{k}(h) = {he[k].subs(x, sp.Symbol('h'))}  "
            f"(printed minus true: {diff.subs(x, sp.Symbol('h'))})",
        )
        # The corrected form is the true polynomial: check it satisfies the
        # recurrence from the paper's own (correct) He_{k-1}, He_{k-2}.
        rebuilt = sp.expand(x * PAPER_A7[k - 1] - (k - 1) * PAPER_A7[k - 2])
        report.check(
            f"corrected He_{k} = x He_{k - 1} - {k - 1} He_{k - 2} from the paper's "
            "own entries",
            sp.expand(rebuilt - he[k]) == 0,
        )
    report.show("entries of (A.7) that differ from the true polynomials", discrepancies)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
