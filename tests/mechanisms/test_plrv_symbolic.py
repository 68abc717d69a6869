"""Exact checks of the SymPy PLRV derivations and drift tests of their evaluators.

* Laplace: the closed-form MGF equals the MGF integrated from the law of L; the
  cumulant polynomials equal the derivatives of the log-MGF (``simplify == 0``).
* Pure DP: the logistic-form cumulants equal the derivatives of the CGF, and the
  log-cosh form of the CGF equals the defining one.
* Gaussian: kappa_1 = -+mu^2/2, kappa_2 = mu^2, kappa_{r>=3} = 0.
* Drift: the mechanisms' float evaluations agree with the expressions evaluated
  at 30 digits.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symfdp import mechanisms as M
from symfdp.symbolic import plrv as P
from symfdp.symbolic.symbols import mu
from symfdp.symbolic.symbols import mu as MU_SYM
from tests._tolerances import MP_DPS, RTOL_EVAL


def _zero(expr: sp.Expr) -> bool:
    return sp.simplify(sp.expand(expr.rewrite(sp.exp))) == 0


def test_laplace_mgf_closed_form_equals_direct_integral() -> None:
    assert _zero(P.laplace_mgf_direct_expr() - sp.exp(P.laplace_cgf_expr()))


def test_laplace_cumulant_polynomials_are_cgf_derivatives() -> None:
    from_cgf = P.cumulants_from_cgf(P.laplace_cgf_expr("P"), 3)
    for a, b in zip(P.laplace_cumulant_exprs(3, "P"), from_cgf, strict=True):
        assert _zero(a - b)


def test_laplace_cumulants_to_order_8_match_cgf_derivatives_at_50_digits() -> None:
    under = "Q"  # the P polynomials are the Q ones times (-1)^r by construction
    # Higher orders are too slow for simplify; the identity is checked at
    # rational points with 50-digit arithmetic (a wrong polynomial would differ
    # at O(1)).
    cgf = P.laplace_cgf_expr(under)
    t = P.t
    derivs = [cgf]
    for _ in range(8):
        derivs.append(sp.diff(derivs[-1], t))
    for value in (sp.Rational(17, 7),):
        polys = P.laplace_cumulant_exprs(8, under)
        for r in range(1, 9):
            a = polys[r - 1].subs(mu, value).evalf(50)
            b = derivs[r].subs({mu: value, t: 0}).evalf(50)
            assert abs(a - b) <= sp.Float(10) ** -40 * (1 + abs(b)), r


def test_laplace_kappa1_is_minus_kl() -> None:
    k1 = P.laplace_cumulant_exprs(1)[0]
    assert sp.simplify(k1 + (mu - 1 + sp.exp(-mu))) == 0


@pytest.mark.parametrize("under", ["P", "Q"])
def test_pure_dp_cumulants_are_cgf_derivatives(under: str) -> None:
    from_cgf = P.cumulants_from_cgf(P.pure_dp_cgf_expr(under), 5)
    for a, b in zip(P.pure_dp_cumulant_exprs(5, under), from_cgf, strict=True):
        assert _zero(a - b)


def test_pure_dp_logcosh_form() -> None:
    a = sp.exp(P.pure_dp_cgf_expr("P"))
    b = sp.exp(P.pure_dp_cgf_logcosh_expr())
    assert _zero(a - b)


def test_gaussian_cumulants() -> None:
    assert P.gaussian_cumulant_exprs(4, "P") == [-(mu**2) / 2, mu**2, 0, 0]
    assert P.gaussian_cumulant_exprs(4, "Q") == [mu**2 / 2, mu**2, 0, 0]


@pytest.mark.parametrize("value", [0.01, 0.4, 2.5, 7.0])
def test_drift_laplace_and_pure_dp(value: float) -> None:
    exprs = P.laplace_cumulant_exprs(8, "P")
    ref = [float(e.evalf(MP_DPS, subs={mu: sp.Rational(str(value))})) for e in exprs]
    np.testing.assert_allclose(M.Laplace(value).cumulants(8), ref, rtol=RTOL_EVAL)
    exprs = P.pure_dp_cumulant_exprs(8, "Q")
    ref = [float(e.evalf(MP_DPS, subs={P.eps: sp.Rational(str(value))})) for e in exprs]
    np.testing.assert_allclose(M.PureDP(value).cumulants(8, "Q"), ref, rtol=RTOL_EVAL)


def test_bad_order_and_under() -> None:
    with pytest.raises(ValueError, match="order"):
        P.laplace_cumulant_polys(0)
    with pytest.raises(ValueError, match="under"):
        P.laplace_cgf_expr("R")


@pytest.mark.parametrize(
    ("mech", "sym", "value"),
    [
        (M.Gaussian(mu=0.7), MU_SYM, "0.7"),
        (M.Laplace(0.7), MU_SYM, "0.7"),
        (M.PureDP(0.7), P.eps, "0.7"),
    ],
)
def test_mechanisms_expose_their_cumulant_expressions(mech, sym, value) -> None:
    for under in ("P", "Q"):
        exprs = mech.cumulant_exprs(5, under)
        vals = [
            float(sp.sympify(e).subs(sym, sp.Rational(value)).evalf(MP_DPS))
            for e in exprs
        ]
        np.testing.assert_allclose(
            mech.cumulants(5, under), vals, rtol=RTOL_EVAL, atol=1e-300
        )
