r"""Probabilists' Hermite polynomials :math:`He_k`.

.. math::  He_k(x) = (-1)^k e^{x^2/2} \frac{d^k}{dx^k} e^{-x^2/2},
           \qquad He_{k+1}(x) = x He_k(x) - k He_{k-1}(x),

so that :math:`D^k \phi = (-1)^k He_k \phi` and, for :math:`j \ge 1`,
:math:`(-D)^j \Phi = -He_{j-1}\phi` (Zheng et al. (2020), eqs. (A.6)-(A.7)).
A thin, validating wrapper around SymPy's ``hermite_prob_poly``.
"""

from __future__ import annotations

import functools

import sympy as sp
from sympy.polys.rings import PolyElement

from symfdp._validation import check_int
from symfdp.symbolic.symbols import x as _x


def hermite_he(k: int, var: sp.Expr = _x) -> sp.Expr:
    r"""The probabilists' Hermite polynomial :math:`He_k(\mathrm{var})`, expanded.

    Zheng et al. (2020), eq. (A.7) (its He_7 is misprinted: finding
    ``zheng2020-a7-he7``, ``derivations/hermite_check.py``).

    Args:
        k: Degree, a non-negative integer.
        var: The variable (default: the canonical ``x``).

    Returns:
        The polynomial as an expanded SymPy expression with integer coefficients.

    Raises:
        TypeError: ``k`` is not an integer.
        ValueError: ``k`` is negative.

    >>> hermite_he(3)
    x**3 - 3*x
    """
    k = check_int("k", k, lo=0)
    return _hermite_he(k, sp.sympify(var))


@functools.cache
def _hermite_he(k: int, var: sp.Expr) -> sp.Expr:
    return sp.expand(sp.hermite_prob_poly(k, var))


def hermite_he_sequence(kmax: int, var: PolyElement) -> tuple[PolyElement, ...]:
    r""":math:`He_0, \dots, He_{k_{max}}` in ``var``, a generator of a sparse
    polynomial ring (``sympy.polys.rings``), by the recurrence
    :math:`He_{k+1} = x He_k - k He_{k-1}` (exact, integer coefficients).

    >>> from sympy.polys.rings import ring
    >>> _, t = ring("t", sp.QQ)
    >>> hermite_he_sequence(3, t)[3]
    t**3 - 3*t
    """
    kmax = check_int("kmax", kmax, lo=0)
    out = [var.ring.one, var]
    for k in range(1, kmax):
        out.append(var * out[k] - out[k - 1] * k)
    return tuple(out[: kmax + 1])
