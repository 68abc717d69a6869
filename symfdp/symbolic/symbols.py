r"""Canonical symbols and functions shared by every derivation (a SymPy symbol
is identified by its name *and* its assumptions; evaluators' keyword names
equal the symbol names).

Symbols:
    x: the argument of a CDF or density (the paper's :math:`h`).
    z: a standard-normal quantile, :math:`z = \Phi^{-1}(u)`.
    n: the number of compositions.
    alpha, mu: a type-I error level and a GDP parameter.
    s: :math:`s = it` in :math:`P_j(it)` (Zheng et al. (2020), Sec. 3.1).
    lam(r): :math:`\lambda_r = K_r / K_2^{r/2}` of the *sum* (Zheng et al.
        (2020), eq. (A.2): :math:`\sigma_n^{-r}\kappa_r`).
    kappa(r), moment(r): the cumulant :math:`\kappa_r` and raw moment :math:`m_r`.

Functions:
    Phi, phi, Phi_inv, log_Phi: the standard normal CDF, density, quantile and
        log-CDF; undefined, so that printed expressions parse back, and mapped
        to SciPy by :mod:`symfdp.numeric.compile`.
"""

from __future__ import annotations

import functools
import re
from typing import Final

import sympy as sp

from symfdp._validation import check_order

x: Final = sp.Symbol("x", real=True)
z: Final = sp.Symbol("z", real=True)
n: Final = sp.Symbol("n", positive=True, integer=True)
alpha: Final = sp.Symbol("alpha", real=True)
mu: Final = sp.Symbol("mu", positive=True)
s: Final = sp.Symbol("s")

Phi: Final = sp.Function("Phi")
phi: Final = sp.Function("phi")
Phi_inv: Final = sp.Function("Phi_inv")
log_Phi: Final = sp.Function("log_Phi")


def _index(name: str, r: object) -> int:
    if isinstance(r, bool) or not isinstance(r, int) or r < 0:
        raise ValueError(
            f"r (the {name} index) must be a non-negative integer. Found {r!r}."
        )
    return r


@functools.cache
def _symbol(name: str) -> sp.Symbol:
    return sp.Symbol(name, real=True)


def lam(r: int) -> sp.Symbol:
    r"""Standardised cumulant :math:`\lambda_r` of the sum, named ``lambda{r}``."""
    return _symbol(f"lambda{_index('lambda', r)}")


def kappa(r: int) -> sp.Symbol:
    r"""Cumulant :math:`\kappa_r`, named ``kappa{r}``."""
    return _symbol(f"kappa{_index('kappa', r)}")


def moment(r: int) -> sp.Symbol:
    r"""Raw moment :math:`m_r = E[X^r]`, named ``m{r}``."""
    return _symbol(f"m{_index('moment', r)}")


def lambdas(order: int) -> tuple[sp.Symbol, ...]:
    r"""The symbols :math:`\lambda_3, \dots, \lambda_{J+2}` used by order ``J``."""
    return tuple(lam(r) for r in range(3, check_order(order) + 3))


_PLAIN: Final = {"x": x, "z": z, "n": n, "alpha": alpha, "mu": mu, "s": s}
_NUMBERED: Final = re.compile(r"^(lambda|kappa|m)(\d+)$")


def canonical(name: str) -> sp.Symbol | None:
    """The canonical symbol called ``name``, or None if there is none."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string. Found {type(name).__name__}.")
    if name in _PLAIN:
        return _PLAIN[name]
    match = _NUMBERED.match(name)
    if match is None:
        return None
    kind, index = match.groups()
    return {"lambda": lam, "kappa": kappa, "m": moment}[kind](int(index))


def canonicalize(expr: sp.Basic) -> sp.Basic:
    """Replace every free symbol by the canonical symbol of the same name (those
    of ``sympy.parse_expr`` have no assumptions).

    >>> canonicalize(sp.parse_expr("lambda3*x")) == lam(3) * x
    True"""
    mapping = {}
    for sym in expr.free_symbols:
        target = canonical(sym.name)
        if target is not None and target != sym:
            mapping[sym] = target
    return expr.xreplace(mapping)


def parse(text: str) -> sp.Expr:
    """Parse a printed expression into canonical symbols and functions.

    >>> parse("Phi(x) - phi(x)*lambda3*(x**2 - 1)/6") == (
    ...     Phi(x) - phi(x) * lam(3) * (x**2 - 1) / 6)
    True

    ``text`` is evaluated by ``sympy.parse_expr``, which runs Python code: parse
    only trusted text (e.g. the printed output of ``symfdp derive``).

    Raises:
        TypeError: ``text`` is not a string.
        ValueError: ``text`` is not a valid expression.
    """
    from sympy.parsing.sympy_parser import TokenError

    if not isinstance(text, str):
        raise TypeError(f"text must be a string. Found {type(text).__name__}.")
    local = {"Phi": Phi, "phi": phi, "Phi_inv": Phi_inv, "log_Phi": log_Phi}
    try:
        expr = sp.parse_expr(text, local_dict=local)
    except (SyntaxError, TokenError) as exc:
        raise ValueError(f"text is not a valid expression: {text!r} ({exc}).") from None
    if not isinstance(expr, sp.Basic):
        raise ValueError(f"text is not a SymPy expression: {text!r}.")
    return canonicalize(expr)
