"""Probabilists' Hermite polynomials."""

from __future__ import annotations

import pytest
import sympy as sp

from symfdp.symbolic.hermite import hermite_he
from symfdp.symbolic.symbols import x

# The true He_0..He_7 (Abramowitz & Stegun 22.3), typed in independently.
TABLE = {
    0: 1,
    1: x,
    2: x**2 - 1,
    3: x**3 - 3 * x,
    4: x**4 - 6 * x**2 + 3,
    5: x**5 - 10 * x**3 + 15 * x,
    6: x**6 - 15 * x**4 + 45 * x**2 - 15,
    7: x**7 - 21 * x**5 + 105 * x**3 - 105 * x,
}


@pytest.mark.parametrize("k", range(8))
def test_table(k):
    assert sp.expand(hermite_he(k) - TABLE[k]) == 0
    assert sp.expand(hermite_he(k) - sp.hermite_prob_poly(k, x)) == 0


def test_rodrigues_up_to_10():
    g = sp.exp(-(x**2) / 2)
    for k in range(11):
        assert sp.simplify((-1) ** k * sp.diff(g, x, k) / g - hermite_he(k)) == 0


def test_other_variable():
    t = sp.Symbol("t")
    assert hermite_he(3, t) == t**3 - 3 * t


def test_paper_a7_he7_is_a_misprint():
    # Zheng et al. (2020), eq. (A.7) prints He_7 without its -105 h term.
    printed = x**7 - 21 * x**5 + 105 * x**3
    assert sp.expand(hermite_he(7) - printed) == -105 * x


@pytest.mark.parametrize("bad", [-1, -5])
def test_negative_degree_raises(bad):
    with pytest.raises(ValueError, match="k"):
        hermite_he(bad)


@pytest.mark.parametrize("bad", [1.5, "2", True, None])
def test_non_integer_degree_raises(bad):
    with pytest.raises(TypeError, match="k"):
        hermite_he(bad)


def test_ring_sequence_equals_the_sympy_polynomials():
    from sympy.polys.rings import ring

    from symfdp.symbolic.hermite import hermite_he_sequence

    _, xg, _ = ring((x, sp.Symbol("y")), sp.QQ)
    seq = hermite_he_sequence(20, xg)
    assert len(seq) == 21
    for k, poly in enumerate(seq):
        assert sp.expand(poly.as_expr() - sp.hermite_prob_poly(k, x)) == 0
    for k in range(8):
        assert sp.expand(seq[k].as_expr() - TABLE[k]) == 0
    assert hermite_he_sequence(0, xg) == (xg.ring.one,)
    with pytest.raises(ValueError, match="kmax"):
        hermite_he_sequence(-1, xg)
