"""Moments <-> cumulants (Zheng et al. (2020), App. B) and standardised cumulants."""

from __future__ import annotations

import pytest
import sympy as sp

from symfdp.symbolic.cumulants import (
    cumulant_from_moments_expr,
    cumulants_to_moments,
    moment_from_cumulants_expr,
    moments_to_cumulants,
    standardised_cumulants,
)
from symfdp.symbolic.symbols import kappa, moment

M = [moment(r) for r in range(1, 9)]
K = [kappa(r) for r in range(1, 9)]


def test_appendix_b_relations():
    m1, m2, m3, m4 = M[:4]
    # Zheng et al. (2020), App. B, as printed.
    paper = [
        0,
        m1,
        m2 - m1**2,
        m3 - 3 * m2 * m1 + 2 * m1**3,
        m4 - 4 * m3 * m1 - 3 * m2**2 + 12 * m2 * m1**2 - 6 * m1**4,
    ]
    for r, printed in enumerate(paper):
        assert sp.expand(cumulant_from_moments_expr(r) - printed) == 0
    assert moments_to_cumulants(M[:4]) == [sp.expand(p) for p in paper[1:]]


def test_against_log_of_mgf_series():
    t = sp.Symbol("t")
    mgf = 1 + sum(M[r - 1] * t**r / sp.factorial(r) for r in range(1, 9))
    cgf = sp.series(sp.log(mgf), t, 0, 9).removeO()
    for r in range(1, 9):
        assert (
            sp.expand(cgf.coeff(t, r) * sp.factorial(r) - cumulant_from_moments_expr(r))
            == 0
        )


def test_round_trip_order_8():
    assert [sp.expand(v) for v in moments_to_cumulants(cumulants_to_moments(K))] == K
    assert [sp.expand(v) for v in cumulants_to_moments(moments_to_cumulants(M))] == M
    for r in range(1, 9):
        assert (
            sp.expand(moment_from_cumulants_expr(r) - cumulants_to_moments(K)[r - 1])
            == 0
        )


def test_exponential_distribution():
    # Exp(1): m_r = r!, kappa_r = (r-1)!.
    moments = [sp.factorial(r) for r in range(1, 9)]
    assert moments_to_cumulants(moments) == [sp.factorial(r - 1) for r in range(1, 9)]


def test_gaussian_cumulants_vanish_beyond_2():
    mu, s2 = sp.symbols("mu s2", real=True)
    ks = [mu, s2] + [0] * 6
    moments = cumulants_to_moments(ks)
    assert moments[3] == sp.expand(mu**4 + 6 * mu**2 * s2 + 3 * s2**2)
    assert moments_to_cumulants(moments) == [mu, s2] + [0] * 6


def test_standardised_cumulants_of_a_sum():
    n = sp.Symbol("n", positive=True)
    k2 = sp.Symbol("k2", positive=True)
    lams = standardised_cumulants([K[0], k2, K[2], K[3]], n)
    assert sp.simplify(lams[0] - K[2] / (sp.sqrt(n) * k2 ** sp.Rational(3, 2))) == 0
    assert sp.simplify(lams[1] - K[3] / (n * k2**2)) == 0
    assert standardised_cumulants([0, 4, 16]) == [2]
    assert standardised_cumulants([0, 1]) == []


def test_bad_input():
    with pytest.raises(ValueError):
        standardised_cumulants([1])
    with pytest.raises(TypeError):
        moments_to_cumulants("m1")
    with pytest.raises(ValueError):
        cumulant_from_moments_expr(-1)
    with pytest.raises(ValueError):
        standardised_cumulants([0, 1, 1], n=0)
