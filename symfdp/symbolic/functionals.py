r"""Closed forms of the moment functionals of :math:`G_\mu` (exact, SymPy only).

The functionals of Dong et al. (2019), Sec. 3.2 and Thm 5.2 (definitions and
their loss-law form: :mod:`symfdp.functionals`), for :math:`G_\mu`, where
:math:`L \sim N(-\mu^2/2, \mu^2)` under P; with :math:`a = \mu/2`:

* :math:`\mathrm{kl} = \mu^2/2`, :math:`\kappa_2 = \mu^2 + \mu^4/4`;
* :math:`\kappa_3 = \mu^3 E|a + Z|^3`, :math:`\bar\kappa_3 = 2\sqrt{2/\pi}\,\mu^3`;
* :math:`\chi^2_+ = e^{\mu^2}\Phi(3\mu/2) + 3\Phi(-\mu/2) - 2` (``chirep``).

Each is derived by integrating against the normal density, not typed in;
``derivations/chi2_plus_gdp.py`` prints and checks them."""

from __future__ import annotations

import functools

import sympy as sp

from symfdp.symbolic.symbols import mu

#: Integration variable (standard normal).
z = sp.Symbol("z", real=True)


def std_normal_pdf(x: sp.Expr) -> sp.Expr:
    r""":math:`\varphi(x) = e^{-x^2/2}/\sqrt{2\pi}`."""
    return sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)


def std_normal_cdf(x: sp.Expr) -> sp.Expr:
    r""":math:`\Phi(x) = \operatorname{erfc}(-x/\sqrt2)/2`."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def _loss(zz: sp.Expr) -> sp.Expr:
    """The PLRV of G_mu under P as a function of a standard normal z."""
    return mu * zz - mu**2 / 2


def _expect(expr: sp.Expr, lo: sp.Expr = -sp.oo, hi: sp.Expr = sp.oo) -> sp.Expr:
    """Exact :math:`\\int_{lo}^{hi} expr(z) \\varphi(z) dz`."""
    return sp.simplify(sp.integrate(sp.expand(expr * std_normal_pdf(z)), (z, lo, hi)))


@functools.cache
def kl_gmu_expr() -> sp.Expr:
    r""":math:`\mathrm{kl}(G_\mu) = -E_P[L] = \mu^2/2`."""
    return _expect(-_loss(z))


@functools.cache
def kappa2_gmu_expr() -> sp.Expr:
    r""":math:`\kappa_2(G_\mu) = E_P[L^2] = \mu^2 + \mu^4/4`."""
    return sp.expand(_expect(_loss(z) ** 2))


@functools.cache
def kappa3_gmu_expr() -> sp.Expr:
    r""":math:`\kappa_3(G_\mu) = E_P|L|^3`, split where L changes sign (z = mu/2)."""
    neg = _expect(-(_loss(z) ** 3), -sp.oo, mu / 2)
    pos = _expect(_loss(z) ** 3, mu / 2, sp.oo)
    return sp.simplify(neg + pos)


@functools.cache
def kappa3_bar_gmu_expr() -> sp.Expr:
    r""":math:`\bar\kappa_3(G_\mu) = E_P|L - E_P L|^3 = \mu^3 E|Z|^3`."""
    return sp.simplify(mu**3 * (_expect(-(z**3), -sp.oo, 0) + _expect(z**3, 0, sp.oo)))


@functools.cache
def chi2_plus_gmu_expr() -> sp.Expr:
    r""":math:`\chi^2_+(G_\mu) = E_P[(e^L - 1)_+^2]`, integrated over :math:`L > 0`,
    i.e. :math:`z > \mu/2`."""
    return sp.simplify(_expect((sp.exp(_loss(z)) - 1) ** 2, mu / 2, sp.oo))


def chi2_plus_gmu_dong_expr() -> sp.Expr:
    r"""Dong et al. (2019), Lemma ``chirep``:
    :math:`e^{\mu^2}\Phi(3\mu/2) + 3\Phi(-\mu/2) - 2` (as printed)."""
    half = sp.Rational(1, 2)
    return (
        sp.exp(mu**2) * std_normal_cdf(3 * mu * half)
        + 3 * std_normal_cdf(-mu * half)
        - 2
    )


def kappa3_gmu_closed_expr() -> sp.Expr:
    r"""The same :math:`\kappa_3(G_\mu)` through
    :math:`\mu^3[(a^3+3a)(1-2\Phi(-a)) + 2(a^2+2)\varphi(a)]`, :math:`a = \mu/2`."""
    a = mu / 2
    return mu**3 * (
        (a**3 + 3 * a) * (1 - 2 * std_normal_cdf(-a))
        + 2 * (a**2 + 2) * std_normal_pdf(a)
    )


def gmu_functional_exprs() -> dict[str, sp.Expr]:
    """All five closed forms, keyed by the names used in :mod:`symfdp.functionals`."""
    return {
        "kl": kl_gmu_expr(),
        "kappa2": kappa2_gmu_expr(),
        "kappa3": kappa3_gmu_expr(),
        "kappa3_bar": kappa3_bar_gmu_expr(),
        "chi2_plus": chi2_plus_gmu_expr(),
    }
