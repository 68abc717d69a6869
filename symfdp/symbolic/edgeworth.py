r"""Edgeworth expansion of any order for a standardised sum.

For a standardised sum with standardised cumulants :math:`\lambda_r =
K_r/K_2^{r/2}` (:math:`\sigma_n^{-r}\boldsymbol\kappa_r` in Zheng et al. (2020),
eq. (A.2); :math:`O(n^{1-r/2})` for i.i.d. summands, eq. (A.9)), the
characteristic function :math:`\chi(t) = e^{-t^2/2} \exp(\sum_{r\ge3} \lambda_r
(it)^r/r!)` (eq. (A.3)) expands as :math:`e^{-t^2/2}\sum_j n^{-j/2} P_j(it)`
(Sec. 3.1), and :math:`(it)^k e^{-t^2/2} \leftrightarrow -He_{k-1}\phi`
(eqs. (A.5)-(A.6)) gives

.. math::
    F_J(x) = \Phi(x) - \phi(x) \sum_{j=1}^{J} R_j(x), \quad
    R_j(x) = \sum_k [s^k]P_j(s)\, He_{k-1}(x), \qquad
    f_J(x) = \phi(x)\Big(1 + \sum_{j=1}^{J}\sum_k [s^k]P_j(s)\, He_k(x)\Big).

Order ``J`` keeps terms ``0..J`` (``J = 0``: the CLT) and needs
:math:`\lambda_3,\dots,\lambda_{J+2}`. Exact (Rationals only), cached per order:
derived in sparse polynomials over QQ (``sympy.polys.rings``) and turned into
expressions once, for the terms, the sums and their coefficients in ``x``."""

from __future__ import annotations

import functools
import math
from typing import Any

import sympy as sp
from sympy.polys.rings import PolyElement, ring

from symfdp._validation import check_order
from symfdp.symbolic.hermite import hermite_he_sequence
from symfdp.symbolic.symbols import Phi, lambdas, phi, s, x


@functools.cache
def _cf_polys(order: int) -> tuple[PolyElement, ...]:
    """P_0..P_J as sparse polynomials over QQ in (s, lambda_3..lambda_{J+2})."""
    _, sg, *lg = ring((s, *lambdas(order)), sp.QQ)
    one = sg.ring.one
    # The exponent A(eps) = sum_j eps^j a_j with a_j = lambda_{j+2} s^{j+2}/(j+2)!.
    # Zheng et al. (2020), eq. (A.3).
    a = [sg.ring.zero] + [
        lg[j - 1] * sg ** (j + 2) * sp.QQ(1, math.factorial(j + 2))
        for j in range(1, order + 1)
    ]
    # B = exp(A): B' = A'B gives j b_j = sum_{k=1}^{j} k a_k b_{j-k}, b_0 = 1.
    b = [one]
    for j in range(1, order + 1):
        acc = sg.ring.zero
        for k in range(1, j + 1):
            acc += a[k] * b[j - k] * k
        b.append(acc * sp.QQ(1, j))
    return tuple(b)


@functools.cache
def _hermite_images(order: int) -> tuple[tuple[PolyElement, PolyElement], ...]:
    """(R_j, Q_j) for j = 0..J, over QQ in (x, lambda_3..lambda_{J+2}): the CDF
    term -phi*R_j and the density term phi*Q_j."""
    xring, xg, *_ = ring((x, *lambdas(order)), sp.QQ)
    he = hermite_he_sequence(3 * order, xg)
    out = [(xring.zero, xring.one)]
    for poly in _cf_polys(order)[1:]:
        cdf_poly, pdf_poly = xring.zero, xring.zero
        for monom, coeff in poly.terms():
            k = monom[0]
            weight = xring({(0, *monom[1:]): coeff})
            # Zheng et al. (2020), eqs. (A.5)-(A.6).
            cdf_poly += weight * he[k - 1]
            pdf_poly += weight * he[k]
        out.append((cdf_poly, pdf_poly))
    return tuple(out)


def ascending_coefficients(
    poly: PolyElement, degree: int | None = None
) -> tuple[sp.Expr, ...]:
    """The coefficients of ``poly`` in its first generator, ascending, each an
    expression in the other generators; up to ``degree`` (default: the degree
    of ``poly``; ``(0,)`` for the zero polynomial)."""
    rows: dict[int, dict[tuple[int, ...], Any]] = {}
    for monom, coeff in poly.terms():
        rest = (0, *monom[1:])
        rows.setdefault(monom[0], {})[rest] = coeff
    top = max(rows, default=0) if degree is None else degree
    return tuple(poly.ring(rows.get(k, {})).as_expr() for k in range(top + 1))


def cdf_correction_polys(order: int) -> tuple[PolyElement, ...]:
    r""":math:`R_1, \dots, R_J` (:math:`F_J = \Phi - \phi\sum_j R_j`) as sparse
    polynomials over QQ in ``(x, lambda_3, ..., lambda_{J+2})``, the form the
    series inversion (:mod:`symfdp.symbolic.cornish_fisher`) works in."""
    order = check_order(order)
    return tuple(r for r, _ in _hermite_images(order)[1:])


def characteristic_polynomials(order: int) -> tuple[sp.Expr, ...]:
    r"""The polynomials :math:`P_0 = 1, P_1, \dots, P_J` in ``s`` = :math:`it`.

    :math:`\chi(t) = e^{-t^2/2}(1 + \sum_j P_j(it))` with :math:`P_j` collecting
    :math:`n^{-j/2}`; Zheng et al. (2020), Sec. 3.1 and eq. (A.3).

    >>> characteristic_polynomials(2)[2]
    lambda3**2*s**6/72 + lambda4*s**4/24
    """
    order = check_order(order)
    return tuple(p.as_expr() for p in _cf_polys(order))


def characteristic_coefficients(order: int) -> tuple[tuple[sp.Expr, ...], ...]:
    r"""The coefficients :math:`[s^k]P_j`, ``k = 0..3J``, of each
    :math:`P_0, \dots, P_J` (:func:`characteristic_polynomials`), in the
    :math:`\lambda_r`.

    >>> characteristic_coefficients(1)[1]
    (0, 0, 0, lambda3/6)
    """
    order = check_order(order)
    return _characteristic_coefficients(order)


@functools.cache
def _characteristic_coefficients(order: int) -> tuple[tuple[sp.Expr, ...], ...]:
    return tuple(ascending_coefficients(p, 3 * order) for p in _cf_polys(order))


def edgeworth_cdf_terms(order: int) -> tuple[sp.Expr, ...]:
    r"""The terms of the Edgeworth CDF, term ``j`` being the :math:`n^{-j/2}` one.

    Term 0 is :math:`\Phi(x)`; term ``j >= 1`` is :math:`-\phi(x) R_j(x)`, with
    :math:`R_j` an expanded polynomial in ``x`` and the :math:`\lambda_r`.
    Zheng et al. (2020), eqs. (3.7)/(3.8)/(A.8) for ``j <= 2``.

    Args:
        order: ``J``, the number of :math:`n^{-1/2}` correction terms.

    Returns:
        A tuple of ``J + 1`` expressions.

    Raises:
        ValueError: ``order`` is not a non-negative integer.

    >>> edgeworth_cdf_terms(1)[1]
    -(lambda3*x**2/6 - lambda3/6)*phi(x)
    """
    order = check_order(order)
    return _cdf_terms(order)


@functools.cache
def _cdf_terms(order: int) -> tuple[sp.Expr, ...]:
    images = _hermite_images(order)
    return (Phi(x), *(-phi(x) * r.as_expr() for r, _ in images[1:]))


def edgeworth_cdf_polynomial(order: int) -> sp.Expr:
    r"""The polynomial :math:`R = \sum_{j=1}^J R_j` with :math:`F_J = \Phi - \phi R`.

    >>> edgeworth_cdf_polynomial(0)
    0
    """
    order = check_order(order)
    return _cdf_polynomial(order)


def edgeworth_cdf_coefficients(order: int) -> tuple[sp.Expr, ...]:
    r"""The coefficients of :math:`R` in ``x``, ascending (``(0,)`` at order 0),
    each a polynomial in the :math:`\lambda_r`.

    >>> edgeworth_cdf_coefficients(1)
    (-lambda3/6, 0, lambda3/6)
    """
    order = check_order(order)
    return _cdf_coefficients(order)


@functools.cache
def _cdf_sum(order: int) -> PolyElement:
    images = _hermite_images(order)
    return sum((r for r, _ in images[1:]), images[0][0])


@functools.cache
def _cdf_polynomial(order: int) -> sp.Expr:
    return _cdf_sum(order).as_expr()


@functools.cache
def _cdf_coefficients(order: int) -> tuple[sp.Expr, ...]:
    return ascending_coefficients(_cdf_sum(order))


def edgeworth_cdf_expr(order: int) -> sp.Expr:
    r"""The Edgeworth CDF of order ``J``: :math:`\Phi(x) - \phi(x) R(x)`.

    Zheng et al. (2020), eq. (3.7) for ``J = 2`` (with
    :math:`\sigma_n^{-r}\boldsymbol\kappa_r = \lambda_r`).

    >>> edgeworth_cdf_expr(0)
    Phi(x)
    """
    order = check_order(order)
    return _cdf_expr(order)


@functools.cache
def _cdf_expr(order: int) -> sp.Expr:
    return Phi(x) - phi(x) * _cdf_polynomial(order)


def edgeworth_pdf_terms(order: int) -> tuple[sp.Expr, ...]:
    r"""The terms of the Edgeworth density: :math:`\phi(x)` and :math:`\phi(x)Q_j(x)`.

    Each is the derivative in ``x`` of the CDF term of the same index.
    """
    order = check_order(order)
    return _pdf_terms(order)


@functools.cache
def _pdf_terms(order: int) -> tuple[sp.Expr, ...]:
    images = _hermite_images(order)
    return (phi(x), *(phi(x) * q.as_expr() for _, q in images[1:]))


def edgeworth_pdf_polynomial(order: int) -> sp.Expr:
    r"""The polynomial :math:`q(x)` with density :math:`f_J(x) = \phi(x) q(x)`.

    :math:`q(x) = 1 + \sum_{j=1}^{J} \sum_k [s^k]P_j(s)\,He_k(x)`, expanded; its
    degree is :math:`3J`.

    >>> edgeworth_pdf_polynomial(1)
    lambda3*x**3/6 - lambda3*x/2 + 1
    """
    order = check_order(order)
    return _pdf_polynomial(order)


def edgeworth_pdf_coefficients(order: int) -> tuple[sp.Expr, ...]:
    r"""The coefficients of :math:`q` in ``x``, ascending (degree :math:`3J`),
    each a polynomial in the :math:`\lambda_r`.

    >>> edgeworth_pdf_coefficients(1)
    (1, -lambda3/2, 0, lambda3/6)
    """
    order = check_order(order)
    return _pdf_coefficients(order)


@functools.cache
def _pdf_sum(order: int) -> PolyElement:
    images = _hermite_images(order)
    return sum((q for _, q in images[1:]), images[0][1])


@functools.cache
def _pdf_polynomial(order: int) -> sp.Expr:
    return _pdf_sum(order).as_expr()


@functools.cache
def _pdf_coefficients(order: int) -> tuple[sp.Expr, ...]:
    return ascending_coefficients(_pdf_sum(order))


def edgeworth_pdf_expr(order: int) -> sp.Expr:
    r"""The Edgeworth density of order ``J``: :math:`\phi(x) q(x)`."""
    order = check_order(order)
    return phi(x) * _pdf_polynomial(order)
