r"""Cornish–Fisher expansion of any order, by series inversion of the Edgeworth CDF.

With :math:`\epsilon = n^{-1/2}` and the Edgeworth CDF
:math:`F(x) = \Phi(x) - \phi(x)\sum_{j=1}^J \epsilon^j R_j(x)`
(:mod:`symfdp.symbolic.edgeworth`), the quantile
:math:`x(z) = z + \sum_{j=1}^{J} \epsilon^j w_j(z)` with
:math:`F(x(z)) = \Phi(z) + O(\epsilon^{J+1})` solves, order by order,

.. math::
    E(\delta) = \sum_{m\ge1} \frac{(-1)^{m-1}He_{m-1}(z)}{m!}\delta^m
      - \Big(\sum_{m\ge0} \frac{He_m(z)}{m!}(-\delta)^m\Big)
        \sum_{j} \epsilon^j \sum_{p\ge0} \frac{R_j^{(p)}(z)}{p!}\delta^p = 0

(:math:`(F(z+\delta) - \Phi(z))/\phi(z)`): :math:`w_j =
-[\epsilon^j]\,E(\sum_{i<j}\epsilon^i w_i)`. Order 2 is Zheng et al. (2020),
eq. (3.9). Exact (Rationals) and cached."""

from __future__ import annotations

import functools
import math
from typing import Any

import sympy as sp
from sympy.polys.rings import PolyElement, ring

from symfdp._validation import check_order
from symfdp.symbolic.edgeworth import ascending_coefficients, cdf_correction_polys
from symfdp.symbolic.hermite import hermite_he_sequence
from symfdp.symbolic.symbols import lambdas, z


def _mul(a: list[Any], b: list[Any], order: int) -> list[Any]:
    """Product of two truncated series (lists of sparse polynomials) to eps^order."""
    out = [a[0].ring.zero] * (order + 1)
    for i, ai in enumerate(a):
        if not ai:
            continue
        for k in range(order + 1 - i):
            if b[k]:
                out[i + k] = out[i + k] + ai * b[k]
    return out


@functools.cache
def _cf_polys(order: int) -> tuple[PolyElement, ...]:
    """z, w_1, ..., w_J as sparse polynomials over QQ in (z, lambda_3, ...)."""
    zring, zr, *_ = ring((z, *lambdas(order)), sp.QQ)
    zero, one = zring.zero, zring.one
    # R_i(z): the CDF terms -phi(x) R_i(x) of the Edgeworth expansion, at x = z
    # (the same generators in the same places, x renamed z).
    r_polys = [zero] + [zring(dict(r)) for r in cdf_correction_polys(order)]
    herm = hermite_he_sequence(order, zr)

    w = [zero]
    for j in range(1, order + 1):
        # Only the coefficient of eps^j is needed: truncate every series at j.
        delta = [*w, zero]
        powers = [[one] + [zero] * j]
        for _ in range(j):
            powers.append(_mul(powers[-1], delta, j))
        # [eps^j] of sum_m (-1)^{m-1} He_{m-1}(z) delta^m / m!
        lhs = zero
        for m in range(1, j + 1):
            coeff = sp.QQ((-1) ** (m - 1), math.factorial(m))
            lhs += powers[m][j] * herm[m - 1] * coeff
        # phi(z + delta) / phi(z) = sum_m He_m(z) (-delta)^m / m!
        ratio = [zero] * (j + 1)
        for m in range(j + 1):
            coeff = sp.QQ((-1) ** m, math.factorial(m))
            for k in range(j + 1):
                if powers[m][k]:
                    ratio[k] += powers[m][k] * herm[m] * coeff
        # sum_i eps^i R_i(z + delta), Taylor-expanded in delta
        shifted = [zero] * (j + 1)
        for i in range(1, j + 1):
            deriv = r_polys[i]
            for p in range(j + 1 - i):
                if p > 0:
                    deriv = deriv.diff(zr)
                coeff = sp.QQ(1, math.factorial(p))
                for k in range(j + 1 - i):
                    if powers[p][k]:
                        shifted[i + k] += powers[p][k] * deriv * coeff
        product = _mul(ratio, shifted, j)
        w.append(product[j] - lhs)
    return (zr, *w[1:])


@functools.cache
def _cf_terms(order: int) -> tuple[sp.Expr, ...]:
    return tuple(p.as_expr() for p in _cf_polys(order))


def cornish_fisher_terms(order: int) -> tuple[sp.Expr, ...]:
    r"""The Cornish–Fisher terms :math:`z, w_1(z), \dots, w_J(z)`.

    Term ``j`` is the coefficient of :math:`n^{-j/2}` (in :math:`\lambda_r` of the
    standardised sum), derived by series inversion of the Edgeworth CDF.
    Zheng et al. (2020), eq. (3.9) for ``j <= 2``.

    Args:
        order: ``J``, the number of :math:`n^{-1/2}` correction terms.

    Raises:
        ValueError: ``order`` is not a non-negative integer.

    >>> cornish_fisher_terms(1)[1]
    lambda3*z**2/6 - lambda3/6
    """
    order = check_order(order)
    return _cf_terms(order)


def cornish_fisher_expr(order: int) -> sp.Expr:
    r"""The Cornish–Fisher quantile :math:`x(z) = z + \sum_{j=1}^J w_j(z)`.

    :math:`F_J(x(z)) = \Phi(z) + O(n^{-(J+1)/2})`, so the :math:`u`-quantile of
    the standardised sum is approximately :math:`x(\Phi^{-1}(u))`.

    >>> cornish_fisher_expr(0)
    z
    """
    order = check_order(order)
    return _cf_expr(order)


@functools.cache
def _cf_sum(order: int) -> PolyElement:
    polys = _cf_polys(order)
    return sum(polys[1:], polys[0])


@functools.cache
def _cf_expr(order: int) -> sp.Expr:
    return _cf_sum(order).as_expr()


def cornish_fisher_coefficients(order: int) -> tuple[sp.Expr, ...]:
    r"""The coefficients of the quantile :math:`x(z)` in ``z``, ascending (degree
    :math:`J + 1`), each a polynomial in the :math:`\lambda_r`.

    >>> cornish_fisher_coefficients(1)
    (-lambda3/6, 1, lambda3/6)
    """
    order = check_order(order)
    return _cf_coefficients(order)


@functools.cache
def _cf_coefficients(order: int) -> tuple[sp.Expr, ...]:
    return ascending_coefficients(_cf_sum(order))


#: STYLE.md's name for the quantile builder; the same function.
cf_quantile_expr = cornish_fisher_expr
