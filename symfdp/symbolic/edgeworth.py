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
:math:`\lambda_3,\dots,\lambda_{J+2}`. Exact (Rationals only), cached per order."""

from __future__ import annotations

import functools

import sympy as sp

from symfdp._validation import check_order
from symfdp.symbolic.hermite import hermite_he
from symfdp.symbolic.symbols import Phi, lam, lambdas, phi, s, x


@functools.cache
def _cf_polys(order: int) -> tuple[sp.Poly, ...]:
    """P_0..P_J as Polys in (s, lambda_3..lambda_{J+2}) over QQ."""
    gens = (s, *lambdas(order))
    # The exponent A(eps) = sum_j eps^j a_j with a_j = lambda_{j+2} s^{j+2}/(j+2)!.
    # Zheng et al. (2020), eq. (A.3).
    a = [sp.Poly(0, *gens, domain=sp.QQ)] + [
        sp.Poly(lam(j + 2) * s ** (j + 2) / sp.factorial(j + 2), *gens, domain=sp.QQ)
        for j in range(1, order + 1)
    ]
    # B = exp(A): B' = A'B gives j b_j = sum_{k=1}^{j} k a_k b_{j-k}, b_0 = 1.
    b = [sp.Poly(1, *gens, domain=sp.QQ)]
    for j in range(1, order + 1):
        acc = sp.Poly(0, *gens, domain=sp.QQ)
        for k in range(1, j + 1):
            acc += (a[k] * b[j - k]).mul_ground(k)
        b.append(acc.quo_ground(j))
    return tuple(b)


@functools.cache
def _hermite_images(order: int) -> tuple[tuple[sp.Expr, sp.Expr], ...]:
    """(R_j, Q_j) for j = 0..J: CDF term -phi*R_j and density term phi*Q_j."""
    out: list[tuple[sp.Expr, sp.Expr]] = []
    lams = lambdas(order)
    for j, poly in enumerate(_cf_polys(order)):
        if j == 0:
            out.append((sp.S.Zero, sp.S.One))
            continue
        cdf_poly = sp.S.Zero
        pdf_poly = sp.S.Zero
        for monom, coeff in poly.terms():
            k = monom[0]
            weight = coeff * sp.Mul(
                *(lm**d for lm, d in zip(lams, monom[1:], strict=True))
            )
            # Zheng et al. (2020), eqs. (A.5)-(A.6).
            cdf_poly += weight * hermite_he(k - 1, x)
            pdf_poly += weight * hermite_he(k, x)
        out.append((sp.expand(cdf_poly), sp.expand(pdf_poly)))
    return tuple(out)


def characteristic_polynomials(order: int) -> tuple[sp.Expr, ...]:
    r"""The polynomials :math:`P_0 = 1, P_1, \dots, P_J` in ``s`` = :math:`it`.

    :math:`\chi(t) = e^{-t^2/2}(1 + \sum_j P_j(it))` with :math:`P_j` collecting
    :math:`n^{-j/2}`; Zheng et al. (2020), Sec. 3.1 and eq. (A.3).

    >>> characteristic_polynomials(2)[2]
    lambda3**2*s**6/72 + lambda4*s**4/24
    """
    order = check_order(order)
    return tuple(p.as_expr() for p in _cf_polys(order))


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
    return (Phi(x), *(-phi(x) * r for r, _ in images[1:]))


def edgeworth_cdf_polynomial(order: int) -> sp.Expr:
    r"""The polynomial :math:`R = \sum_{j=1}^J R_j` with :math:`F_J = \Phi - \phi R`.

    >>> edgeworth_cdf_polynomial(0)
    0
    """
    order = check_order(order)
    return _cdf_polynomial(order)


@functools.cache
def _cdf_polynomial(order: int) -> sp.Expr:
    return sp.Add(*(r for r, _ in _hermite_images(order)))


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
    return (phi(x), *(phi(x) * q for _, q in images[1:]))


def edgeworth_pdf_polynomial(order: int) -> sp.Expr:
    r"""The polynomial :math:`q(x)` with density :math:`f_J(x) = \phi(x) q(x)`.

    :math:`q(x) = 1 + \sum_{j=1}^{J} \sum_k [s^k]P_j(s)\,He_k(x)`, expanded; its
    degree is :math:`3J`.

    >>> edgeworth_pdf_polynomial(1)
    lambda3*x**3/6 - lambda3*x/2 + 1
    """
    order = check_order(order)
    return _pdf_polynomial(order)


@functools.cache
def _pdf_polynomial(order: int) -> sp.Expr:
    return sp.Add(*(q for _, q in _hermite_images(order)))


def edgeworth_pdf_expr(order: int) -> sp.Expr:
    r"""The Edgeworth density of order ``J``: :math:`\phi(x) q(x)`."""
    order = check_order(order)
    return phi(x) * _pdf_polynomial(order)
