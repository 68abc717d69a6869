"""Derive an order-4 Edgeworth expansion, then watch the orders converge.

SymPy derives the Edgeworth CDF correction terms of any order J (Zheng et al.
2020, eqs. (3.5)-(3.8); term j is the n^{-j/2} one, in x and the standardised
cumulants lambda_r = K_r / K_2^{r/2}); symfdp compiles them once into NumPy
evaluators that ``accountants.Edgeworth(order=J)`` uses. For a DP-SGD run the
epsilon of each order is compared with the certified numerical bracket.

Run: ``python examples/derive_order4.py`` (a few seconds).
"""

from __future__ import annotations

import warnings

import sympy as sp

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.symbolic.edgeworth import edgeworth_cdf_expr, edgeworth_cdf_terms

ORDER, DELTA = 4, 1e-5


def main() -> None:
    print(f"Edgeworth CDF of order {ORDER}: F(x) = Phi(x) - phi(x) * (sum of terms)")
    for j, term in enumerate(edgeworth_cdf_terms(ORDER)):
        print(f"  n^(-{j}/2): {sp.sstr(sp.factor(term))}")
    print("LaTeX of the full CDF:")
    print("  " + sp.latex(edgeworth_cdf_expr(ORDER)))

    mechanism = M.SubsampledGaussian(sigma=1.0, p=0.01)
    n = 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # low orders warn where they are repaired
        lo, hi = A.Numerical().compose(mechanism, n).epsilon_bounds(DELTA)
        print(f"\nDP-SGD, sigma=1, p=0.01, n={n}: epsilon at delta={DELTA:g}")
        print(f"  certified (numerical): [{lo:.5f}, {hi:.5f}]")
        errors = []
        for order in range(7):
            eps = A.Edgeworth(order=order).compose(mechanism, n).epsilon(DELTA)
            err = max(lo - eps, eps - hi, 0.0)
            errors.append(err)
            print(
                f"  Edgeworth order {order}: {eps:.5f}   (outside bracket by {err:.1e})"
            )
    if not errors[6] < errors[0]:
        raise SystemExit("order 6 should be closer to the truth than order 0 here")


if __name__ == "__main__":
    main()
