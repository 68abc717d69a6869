"""Edgeworth and Cornish–Fisher expansions: exact checks against Zheng et al. (2020)."""

from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from symfdp.symbolic.cornish_fisher import (
    cornish_fisher_expr,
    cornish_fisher_terms,
)
from symfdp.symbolic.edgeworth import (
    characteristic_polynomials,
    edgeworth_cdf_expr,
    edgeworth_cdf_polynomial,
    edgeworth_cdf_terms,
    edgeworth_pdf_expr,
    edgeworth_pdf_polynomial,
    edgeworth_pdf_terms,
)
from symfdp.symbolic.symbols import Phi, lam, phi, x, z

H = x
SIGMA = sp.Symbol("sigma_n", positive=True)
K3, K4 = sp.symbols("K3 K4", real=True)


def to_lambdas(expr: sp.Expr) -> sp.Expr:
    """The paper writes sigma_n^{-r} K_r (bold kappa_r sums); that is lambda_r."""
    return sp.expand(expr.subs({K3: lam(3) * SIGMA**3, K4: lam(4) * SIGMA**4}))


def is_zero(expr: sp.Expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


# Zheng et al. (2020), eq. (3.7), typed in from the paper.
T1 = SIGMA**-3 * sp.Rational(1, 6) * K3 * (H**2 - 1) * phi(H)
T2 = (
    SIGMA**-4 / 24 * K4 * (H**3 - 3 * H)
    + SIGMA**-6 / 72 * K3**2 * (H**5 - 10 * H**3 + 15 * H)
) * phi(H)


def test_order_1_and_2_terms_equal_eq_3_7():
    terms = edgeworth_cdf_terms(2)
    assert terms[0] == Phi(x)
    assert is_zero(terms[1] - to_lambdas(-T1))
    assert is_zero(terms[2] - to_lambdas(-T2))
    assert is_zero(edgeworth_cdf_expr(2) - to_lambdas(Phi(H) - T1 - T2))


def test_order_2_equals_eq_3_8_and_a_8():
    eq38 = (
        Phi(H)
        - SIGMA**-3 * sp.Rational(1, 6) * K3 * (H**2 - 1) * phi(H)
        - SIGMA**-4 * sp.Rational(1, 24) * K4 * (H**3 - 3 * H) * phi(H)
        - SIGMA**-6 * sp.Rational(1, 72) * K3**2 * (H**5 - 10 * H**3 + 15 * H) * phi(H)
    )
    eqa8 = (
        Phi(H)
        + SIGMA**-3 * (-sp.Rational(1, 6) * K3 * (H**2 - 1) * phi(H))
        + SIGMA**-4 * (-sp.Rational(1, 24) * K4 * (H**3 - 3 * H) * phi(H))
        + SIGMA**-6
        * (-sp.Rational(1, 72) * K3**2 * (H**5 - 10 * H**3 + 15 * H))
        * phi(H)
    )
    assert is_zero(edgeworth_cdf_expr(2) - to_lambdas(eq38))
    assert is_zero(edgeworth_cdf_expr(2) - to_lambdas(eqa8))


def test_characteristic_polynomials_match_a_3():
    s = sp.Symbol("s")
    polys = characteristic_polynomials(2)
    assert polys[0] == 1
    assert sp.expand(polys[1] - lam(3) * s**3 / 6) == 0
    assert sp.expand(polys[2] - (lam(4) * s**4 / 24 + lam(3) ** 2 * s**6 / 72)) == 0


def test_cornish_fisher_order_2_equals_eq_3_9():
    eq39 = (
        z
        + SIGMA**-3 * sp.Rational(1, 6) * K3 * (z**2 - 1)
        + SIGMA**-4 * sp.Rational(1, 24) * K4 * (z**3 - 3 * z)
        - SIGMA**-6 * sp.Rational(1, 36) * K3**2 * (2 * z**3 - 5 * z)
    )
    assert sp.expand(cornish_fisher_expr(2) - to_lambdas(eq39)) == 0
    assert cornish_fisher_terms(2)[0] == z


def test_order_zero_is_the_normal():
    assert edgeworth_cdf_expr(0) == Phi(x)
    assert edgeworth_pdf_expr(0) == phi(x)
    assert cornish_fisher_expr(0) == z


@pytest.mark.parametrize("order", range(9))
def test_orders_up_to_8_derive(order):
    terms = edgeworth_cdf_terms(order)
    assert len(terms) == order + 1
    cdf_poly = edgeworth_cdf_polynomial(order)
    pdf_poly = edgeworth_pdf_polynomial(order)
    allowed = {x, *(lam(r) for r in range(3, order + 3))}
    assert cdf_poly.free_symbols <= allowed
    assert sp.degree(pdf_poly, x) == 3 * order
    # Exact: Rationals only.
    assert not cdf_poly.atoms(sp.Float)
    assert not pdf_poly.atoms(sp.Float)
    # The density polynomial is the derivative: (phi R)' = -phi (q - 1).
    assert sp.expand(sp.diff(cdf_poly, x) - x * cdf_poly + (pdf_poly - 1)) == 0
    # Every term j is homogeneous of weight j, with lambda_r of weight r - 2.
    eps = sp.Symbol("eps")
    scale = {lam(r): eps ** (r - 2) * lam(r) for r in range(3, order + 3)}
    for j in range(1, order + 1):
        r_j = sp.expand(-terms[j] / phi(x))
        assert sp.expand(r_j.xreplace(scale) - eps**j * r_j) == 0
    cf = cornish_fisher_terms(order)
    assert len(cf) == order + 1


def test_pdf_terms_are_derivatives_of_cdf_terms():
    true = {
        Phi(x): (1 + sp.erf(x / sp.sqrt(2))) / 2,
        phi(x): sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi),
    }
    for c, p in zip(edgeworth_cdf_terms(3), edgeworth_pdf_terms(3), strict=True):
        diff = sp.diff(c.xreplace(true), x) - p.xreplace(true)
        assert sp.simplify(diff * sp.exp(x**2 / 2)) == 0


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True, None, 2.5, 65])
def test_bad_orders_raise_value_error(bad):
    for fn in (
        edgeworth_cdf_terms,
        edgeworth_cdf_expr,
        edgeworth_pdf_expr,
        edgeworth_pdf_polynomial,
        cornish_fisher_terms,
        cornish_fisher_expr,
        characteristic_polynomials,
    ):
        with pytest.raises(ValueError, match="order"):
            fn(bad)


def test_integral_float_order_is_accepted():
    assert edgeworth_cdf_expr(2.0) == edgeworth_cdf_expr(2)


def _true_cdf(t):
    return (1 + sp.erf(t / sp.sqrt(2))) / 2


def _true_pdf(t):
    return sp.exp(-(t**2) / 2) / sp.sqrt(2 * sp.pi)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_cf_composed_with_edgeworth_is_identity_as_a_series(k):
    """F_k(CF_k(z)) = Phi(z) + O(eps^{k+1}), with the true Phi and phi (erf, exp)."""
    eps = sp.Symbol("epsilon", positive=True)
    scale = {lam(r): eps ** (r - 2) * lam(r) for r in range(3, k + 3)}
    poly = edgeworth_cdf_polynomial(k).xreplace(scale)
    quantile = cornish_fisher_expr(k).xreplace(scale)
    expr = _true_cdf(quantile) - _true_pdf(quantile) * poly.subs(x, quantile)
    assert sp.simplify(expr.subs(eps, 0) - _true_cdf(z)) == 0
    for j in range(1, k + 2):
        expr = sp.diff(expr, eps)
        coeff = sp.simplify(expr.subs(eps, 0))
        if j <= k:
            assert coeff == 0, f"eps^{j} coefficient does not vanish"
        else:
            assert coeff != 0  # the identity is sharp: the next term is present


@pytest.mark.parametrize("k", [4, 6, 8])
def test_cf_composed_with_edgeworth_residual_scales_as_eps_k_plus_1(k):
    """High orders: |F_k(CF_k(z)) - Phi(z)| halves by 2^{k+1} when eps halves."""
    mp.mp.dps = 60
    lams = {r: sp.Rational((-1) ** r * (r % 3 + 1), r + 2) for r in range(3, k + 3)}
    poly = sp.lambdify(
        [x, *[lam(r) for r in lams]], edgeworth_cdf_polynomial(k), "mpmath"
    )
    quant = sp.lambdify([z, *[lam(r) for r in lams]], cornish_fisher_expr(k), "mpmath")
    z0 = mp.mpf("0.7")

    def residual(eps):
        vals = [mp.mpf(v.p) / v.q * eps ** (r - 2) for r, v in lams.items()]
        xq = quant(z0, *vals)
        return mp.ncdf(xq) - mp.npdf(xq) * poly(xq, *vals) - mp.ncdf(z0)

    e = mp.mpf("1e-3")
    ratio = residual(e) / residual(e / 2)
    assert abs(mp.log(abs(ratio), 2) - (k + 1)) < 0.05


def _sympy_coefficients(expr: sp.Expr, var: sp.Symbol) -> list[sp.Expr]:
    """Ascending coefficients by SymPy's own ``Poly`` (not the code under test)."""
    return list(reversed(sp.Poly(expr, var).all_coeffs()))


@pytest.mark.parametrize("order", [0, 1, 2, 3, 5])
def test_coefficients_are_those_of_the_polynomials(order):
    from symfdp.symbolic.cornish_fisher import cornish_fisher_coefficients
    from symfdp.symbolic.edgeworth import (
        characteristic_coefficients,
        edgeworth_cdf_coefficients,
        edgeworth_pdf_coefficients,
    )

    pairs = [
        (edgeworth_cdf_coefficients(order), edgeworth_cdf_polynomial(order), x),
        (edgeworth_pdf_coefficients(order), edgeworth_pdf_polynomial(order), x),
        (cornish_fisher_coefficients(order), cornish_fisher_expr(order), z),
    ]
    for got, poly, var in pairs:
        want = _sympy_coefficients(poly, var)
        assert len(got) == len(want)
        assert all(sp.expand(g - w) == 0 for g, w in zip(got, want, strict=True))
    s = sp.Symbol("s")
    rows = characteristic_coefficients(order)
    for row, poly in zip(rows, characteristic_polynomials(order), strict=True):
        assert len(row) == 3 * order + 1
        want = _sympy_coefficients(poly, s)
        want += [0] * (len(row) - len(want))
        assert all(sp.expand(g - w) == 0 for g, w in zip(row, want, strict=True))
