r"""Closed-form laws of the privacy-loss random variable (exact, SymPy only).

For a dominating pair :math:`(P, Q)`, :math:`L = \log dQ/dP`,
:math:`K_P(t) = \log E_P[e^{tL}]` and :math:`K_Q(t) = K_P(t+1)`:

* Gaussian, :math:`N(0,1)` vs :math:`N(\mu,1)`: :math:`K_P(t) = \mu^2 t(t-1)/2`.
* Pure DP (randomised response, trade-off :math:`f_{\varepsilon,0}`):
  :math:`L = \pm\varepsilon` with :math:`P(L = \varepsilon) = 1/(1+e^\varepsilon)`,
  :math:`K_P(t) = \log\cosh(\varepsilon(t - \tfrac12)) - \log\cosh(\varepsilon/2)`.
* Laplace, :math:`\mathrm{Lap}(0,1)` vs :math:`\mathrm{Lap}(\mu,1)`:
  :math:`L(x) = |x| - |x-\mu|`, atoms at :math:`-\mu` (P-mass 1/2) and
  :math:`+\mu` (P-mass :math:`e^{-\mu}/2`), density :math:`e^{-(l+\mu)/2}/4` on
  :math:`(-\mu, \mu)`, and :math:`K_P(t) = -\frac{\mu}{2} + \log(\cosh(\mu s)
  + \frac{\sinh(\mu s)}{2 s})`, :math:`s = t - \tfrac12`.

All three are symmetric, so :math:`\kappa_r(L \mid Q) = (-1)^r \kappa_r(L \mid P)`."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final

import sympy as sp

from symfdp._validation import check_int
from symfdp.symbolic.symbols import mu

#: The CGF argument.
t: Final = sp.Symbol("t", real=True)
#: The pure-DP parameter.
eps: Final = sp.Symbol("eps", positive=True)
#: Stand-in for :math:`e^{-\mu}` in the Laplace polynomials.
E: Final = sp.Symbol("E", positive=True)


def _check_order(order: object) -> int:
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"order must be a positive integer. Found {order!r}.")
    return order


def _order_cache(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``functools.cache`` keyed on a validated ``order``."""
    cached = functools.cache(fn)
    has_under = "under" in inspect.signature(fn).parameters

    @functools.wraps(fn)
    def wrapper(order: object, *args: Any, **kwargs: Any) -> Any:
        order = _check_order(order)
        if has_under:  # checked before the cache sees it (an array is unhashable)
            if args:
                args = (_check_under(args[0]), *args[1:])
            elif "under" in kwargs:
                kwargs["under"] = _check_under(kwargs["under"])
        return cached(order, *args, **kwargs)

    return wrapper


def _check_under(under: object) -> str:
    if not isinstance(under, str) or under not in ("P", "Q"):
        raise ValueError(f"under must be one of 'P', 'Q'. Found {under!r}.")
    return str(under)


def cumulants_from_cgf(
    cgf: sp.Expr, order: int, at: sp.Expr = sp.S.Zero
) -> list[sp.Expr]:
    r""":math:`\kappa_r = K^{(r)}(t_0)` for :math:`r = 1..order` (exact)."""
    out: list[sp.Expr] = []
    d = cgf
    for _ in range(_check_order(order)):
        d = sp.diff(d, t)
        out.append(sp.simplify(d.subs(t, at)))
    return out


def gaussian_cgf_expr(under: str = "P") -> sp.Expr:
    r""":math:`K_P(t) = \mu^2 t (t-1)/2` (and :math:`K_Q(t) = K_P(t+1)`)."""
    shift = 0 if _check_under(under) == "P" else 1
    tt = t + shift
    return mu**2 * tt * (tt - 1) / 2


def gaussian_cumulant_exprs(order: int, under: str = "P") -> list[sp.Expr]:
    r""":math:`\kappa_1 = \mp\mu^2/2`, :math:`\kappa_2 = \mu^2`, zero beyond."""
    return cumulants_from_cgf(gaussian_cgf_expr(under), order)


def pure_dp_cgf_expr(under: str = "P") -> sp.Expr:
    r""":math:`K_P(t) = \log\frac{e^{t\varepsilon} + e^{\varepsilon}e^{-t\varepsilon}}
    {1 + e^{\varepsilon}}` (randomised response; :math:`K_Q(t) = K_P(t+1)`)."""
    shift = 0 if _check_under(under) == "P" else 1
    tt = t + shift
    return sp.log(
        (sp.exp(tt * eps) + sp.exp(eps) * sp.exp(-tt * eps)) / (1 + sp.exp(eps))
    )


def pure_dp_cgf_logcosh_expr() -> sp.Expr:
    r"""The symmetric form :math:`\log\cosh(\varepsilon(t-\frac12)) -
    \log\cosh(\varepsilon/2)` of :func:`pure_dp_cgf_expr` under P."""
    return sp.log(sp.cosh(eps * (t - sp.S.Half))) - sp.log(sp.cosh(eps / 2))


@_order_cache
def logistic_derivative_exprs(order: int) -> tuple[sp.Expr, ...]:
    r""":math:`s^{(m)}` for :math:`m = 0..order-1` as polynomials in
    :math:`s = 1/(1+e^{-z})` (symbol ``s``), from :math:`s' = s(1-s)`."""
    s = sp.Symbol("s")
    out = [s]
    for _ in range(order - 1):
        out.append(sp.expand(sp.diff(out[-1], s) * s * (1 - s)))
    return tuple(out)


@_order_cache
def pure_dp_cumulant_exprs(order: int, under: str = "P") -> tuple[sp.Expr, ...]:
    r"""Pure-DP cumulants in the logistic form (exact):
    :math:`\kappa_1 = -\varepsilon\tanh(\varepsilon/2)`,
    :math:`\kappa_r = (2\varepsilon)^r s^{(r-1)}(-\varepsilon)` for :math:`r \ge 2`
    (as :math:`(\log\cosh)^{(r)}(u) = 2^r s^{(r-1)}(2u)`); under Q times :math:`(-1)^r`.
    """
    order = _check_order(order)
    sign = 1 if _check_under(under) == "P" else -1
    s = sp.Symbol("s")
    sval = 1 / (1 + sp.exp(eps))
    out: list[sp.Expr] = [sign * (-eps * sp.tanh(eps / 2))]
    polys = logistic_derivative_exprs(order)
    for r in range(2, order + 1):
        out.append(sign**r * (2 * eps) ** r * polys[r - 1].subs(s, sval))
    return tuple(out)


def laplace_cgf_expr(under: str = "P") -> sp.Expr:
    r""":math:`K_P(t) = -\mu/2 + \log(\cosh(\mu s) + \sinh(\mu s)/(2s))`,
    :math:`s = t - 1/2` (:math:`K_Q(t) = K_P(t+1)`)."""
    shift = 0 if _check_under(under) == "P" else 1
    s = t + shift - sp.S.Half
    return -mu / 2 + sp.log(sp.cosh(mu * s) + sp.sinh(mu * s) / (2 * s))


def laplace_mgf_direct_expr() -> sp.Expr:
    r""":math:`E_P[e^{tL}]` integrated directly from the law of L (for checks)."""
    l = sp.Symbol("l", real=True)
    cont = sp.integrate(
        sp.exp(t * l) * sp.exp(-(l + mu) / 2) / 4, (l, -mu, mu), conds="none"
    )
    return sp.exp(-t * mu) / 2 + sp.exp(-mu) / 2 * sp.exp(t * mu) + cont


def _gamma_partial(j: int) -> sp.Expr:
    r""":math:`\int_0^{2\mu} v^j e^{-v/2} dv = 2^{j+1} j!\,(1 - E\sum_{i \le j}
    \mu^i/i!)`."""
    tail = sum((mu**i / sp.factorial(i) for i in range(j + 1)), sp.S.Zero)
    return 2 ** (j + 1) * sp.factorial(j) * (1 - E * tail)


@_order_cache
def laplace_moment_polys(order: int) -> tuple[sp.Poly, ...]:
    r"""Raw moments :math:`E_P[L^k]`, :math:`k = 1..order`, as polynomials in
    ``(mu, E)`` with :math:`E = e^{-\mu}` (exact rationals):

    .. math::  E_P[L^k] = \tfrac12(-\mu)^k + \tfrac{E}{2}\mu^k
               + \tfrac14 \int_0^{2\mu} (v-\mu)^k e^{-v/2}\,dv.
    """
    order = _check_order(order)
    out = []
    for k in range(1, order + 1):
        # (1/4) int_0^{2mu} (v - mu)^k e^{-v/2} dv, expanded binomially in v.
        cont = sum(
            (
                sp.binomial(k, j) * (-mu) ** (k - j) * _gamma_partial(j)
                for j in range(k + 1)
            ),
            sp.S.Zero,
        )
        m_k = (-mu) ** k / 2 + E * mu**k / 2 + cont / 4
        out.append(sp.Poly(sp.expand(m_k), mu, E))
    return tuple(out)


@_order_cache
def laplace_cumulant_polys(order: int, under: str = "P") -> tuple[sp.Poly, ...]:
    r"""Cumulants :math:`\kappa_1..\kappa_{order}` of the Laplace PLRV as
    polynomials in ``(mu, E)``, :math:`E = e^{-\mu}`.

    :math:`\kappa_n = m_n - \sum_{k=1}^{n-1}\binom{n-1}{k-1}\kappa_k m_{n-k}`
    in exact polynomial arithmetic; under Q the sign :math:`(-1)^r`.
    """
    order = _check_order(order)
    sign = 1 if _check_under(under) == "P" else -1
    m = laplace_moment_polys(order)
    kap: list[sp.Poly] = []
    for r in range(1, order + 1):
        acc = m[r - 1]
        for k in range(1, r):
            acc = acc - sp.binomial(r - 1, k - 1) * kap[k - 1] * m[r - k - 1]
        kap.append(acc)
    return tuple(sign**r * kk for r, kk in enumerate(kap, start=1))


def laplace_cumulant_exprs(order: int, under: str = "P") -> list[sp.Expr]:
    r"""The Laplace cumulants as expressions in :math:`\mu` (``E -> exp(-mu)``)."""
    return [
        pp.as_expr().subs(E, sp.exp(-mu)) for pp in laplace_cumulant_polys(order, under)
    ]


def laplace_cumulant_series(order: int, r: int, terms: int) -> list[sp.Rational]:
    r"""Taylor coefficients :math:`c_0..c_{terms-1}` of :math:`\kappa_r(\mu)` under P
    (all cumulants are entire functions of :math:`\mu`)."""
    exprs = laplace_cumulant_exprs(order, "P")
    expr = exprs[check_int("r", r, lo=1, hi=len(exprs)) - 1]
    terms = check_int("terms", terms, lo=1)
    ser = sp.series(expr, mu, 0, terms).removeO()
    return [sp.Rational(ser.coeff(mu, k)) for k in range(terms)]
