"""Raw moments <-> cumulants (Faà di Bruno with partial Bell polynomials,
Zheng et al. (2020), Def. 3.1 and App. B), and standardised cumulants."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import sympy as sp

from symfdp._validation import check_int
from symfdp.symbolic.symbols import kappa, moment


def _as_exprs(name: str, values: Sequence[object]) -> list[sp.Expr]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of expressions. Found {values!r}.")
    return [sp.sympify(v) for v in values]


def _bell_sum(values: list[sp.Expr], r: int, sign: bool) -> sp.Expr:
    total = sp.S.Zero
    for k in range(1, r + 1):
        coeff = (-1) ** (k - 1) * sp.factorial(k - 1) if sign else sp.S.One
        total += coeff * sp.bell(r, k, values[: r - k + 1])
    return sp.expand(total)


def moments_to_cumulants(m: Sequence[sp.Expr]) -> list[sp.Expr]:
    r"""Cumulants :math:`\kappa_1..\kappa_R` from raw moments :math:`m_1..m_R`,
    :math:`\kappa_r = \sum_{k=1}^r (-1)^{k-1}(k-1)!\,B_{r,k}(m_1,\dots,m_{r-k+1})`
    (Zheng et al. (2020), App. B).

    Args:
        m: The raw moments ``[m_1, ..., m_R]`` (:math:`m_0 = 1` not passed).

    Returns:
        ``[kappa_1, ..., kappa_R]``, expanded.

    >>> m1, m2 = moment(1), moment(2)
    >>> moments_to_cumulants([m1, m2])
    [m1, -m1**2 + m2]"""
    values = _as_exprs("m", m)
    return [_bell_sum(values, r, sign=True) for r in range(1, len(values) + 1)]


def cumulants_to_moments(k: Sequence[sp.Expr]) -> list[sp.Expr]:
    r"""Raw moments :math:`m_r = B_r(\kappa_1, \dots, \kappa_r)` (complete Bell
    polynomial; the inverse of Zheng et al. (2020), App. B), expanded."""
    values = _as_exprs("k", k)
    return [_bell_sum(values, r, sign=False) for r in range(1, len(values) + 1)]


def cumulant_from_moments_expr(r: int) -> sp.Expr:
    r""":math:`\kappa_r` in the raw-moment symbols ``m1, ..., m{r}``
    (:func:`moments_to_cumulants`).

    >>> cumulant_from_moments_expr(3)
    2*m1**3 - 3*m1*m2 + m3"""
    r = check_int("r", r, lo=0)
    return _cumulant_from_moments_expr(r)


@functools.cache
def _cumulant_from_moments_expr(r: int) -> sp.Expr:
    if r == 0:
        return sp.S.Zero
    values = [moment(j) for j in range(1, r + 1)]
    return _bell_sum(values, r, sign=True)


def moment_from_cumulants_expr(
    r: int, kappas: Sequence[sp.Expr] | None = None
) -> sp.Expr:
    r""":math:`m_r` in the cumulant symbols ``kappa1, ..., kappa{r}`` (or ``kappas``).

    :math:`m_r = \sum_{k=1}^r B_{r,k}(\kappa_1,\dots,\kappa_{r-k+1})`; :math:`m_0 = 1`.
    """

    r = check_int("r", r, lo=0)
    if r == 0:
        return sp.S.One
    values = (
        [kappa(j) for j in range(1, r + 1)]
        if kappas is None
        else _as_exprs("kappas", kappas)
    )
    if len(values) < r:
        raise ValueError(
            f"kappas must hold at least r={r} cumulants. Found {len(values)}."
        )
    return _bell_sum(values, r, sign=False)


def standardised_cumulants(k: Sequence[sp.Expr], n: sp.Expr | int = 1) -> list[sp.Expr]:
    r"""Standardised cumulants :math:`\lambda_3..\lambda_R` of a sum of ``n`` terms:

    .. math::  \lambda_r = \frac{K_r}{K_2^{r/2}} = n^{1-r/2}\,\kappa_r\,\kappa_2^{-r/2},

    Zheng et al. (2020), eqs. (A.2) and (A.9). For a heterogeneous composition
    pass the summed cumulants with ``n=1``.

    Args:
        k: The cumulants ``[kappa_1, kappa_2, ..., kappa_R]`` (``kappa_1`` unused).
        n: The number of summands (a positive integer or a symbol).

    Returns:
        ``[lambda_3, ..., lambda_R]`` (empty when ``R < 3``).

    Raises:
        ValueError: fewer than two cumulants are given.

    >>> from symfdp.symbolic.symbols import kappa
    >>> standardised_cumulants([kappa(1), kappa(2), kappa(3)])
    [kappa3/kappa2**(3/2)]"""
    values = _as_exprs("k", k)
    if len(values) < 2:
        raise ValueError(
            f"k must hold at least kappa_1 and kappa_2. Found {len(values)}."
        )
    if isinstance(n, int):
        n = check_int("n", n, lo=1)
    n_expr = sp.sympify(n)
    k2 = values[1]
    return [
        n_expr * values[r - 1] / (n_expr * k2) ** sp.Rational(r, 2)
        for r in range(3, len(values) + 1)
    ]
