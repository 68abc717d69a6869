r"""mpmath evaluation of Dong et al. (2019), Lemma ``functionalGmurep`` as printed.

With :math:`Z(x) = \log(p e^{\mu x - \mu^2/2} + 1 - p)` and :math:`\varphi` the
standard normal density, the lemma states

.. math::  \mathrm{kl}(C_p(G_\mu)) = p\int_{\mu/2}^\infty Z(x)(\varphi(x-\mu)
           - \varphi(x))\,dx,\qquad
           \kappa_2 = \int_{\mu/2}^\infty Z^2 (p\varphi(x-\mu) + (2-p)\varphi(x)),

.. math::  \bar\kappa_3 = \int_{\mu/2}^\infty |Z - \mathrm{kl}|^3
           (p\varphi(x-\mu) + (1-p)\varphi(x))
           + \int_{\mu/2}^\infty |Z + \mathrm{kl}|^3 \varphi(x).

(As printed the :math:`\bar\kappa_3` expression omits the flat segment of
:math:`C_p(G_\mu)`; :func:`flat_segment_term` gives the missing
:math:`(1-p)(1 - 2\Phi(-\mu/2))\,\mathrm{kl}^3`; finding
``dong2019-kappa3bar-flat-segment``.) Integrals by ``mpmath.quad``
with the integrand scaled to O(1) (``quad`` stops on an absolute error estimate).
Also :math:`\chi^2_+(G_\mu)` by direct quadrature of its definition.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath

from symfdp.reference.plrv import GUARD_DIGITS


def _phi(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)


def _quad(
    fn: Callable[[mpmath.mpf], mpmath.mpf],
    lo: mpmath.mpf,
    kinks: tuple[mpmath.mpf, ...] = (),
) -> mpmath.mpf:
    base = [lo + c for c in (0, 0.5, 1, 2, 4, 8, 16)]
    pts = [*sorted({*base, *(k for k in kinks if k > lo)}), mpmath.inf]
    scale = max(abs(fn(x)) for x in pts[:-1]) or mpmath.mpf(1)
    return mpmath.quad(lambda x: fn(x) / scale, pts) * scale


def functional_gmu_rep(mu: float, p: float, dps: int = 30) -> dict[str, mpmath.mpf]:
    """kl, kappa2, kappa3_bar of C_p(G_mu) by Lemma ``functionalGmurep`` as printed."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        m, pp = mpmath.mpf(mu), mpmath.mpf(p)

        def z(x: mpmath.mpf) -> mpmath.mpf:
            return mpmath.log1p(pp * mpmath.expm1(m * x - m * m / 2))

        lo = m / 2
        kl = pp * _quad(lambda x: z(x) * (_phi(x - m) - _phi(x)), lo)
        k2 = _quad(lambda x: z(x) ** 2 * (pp * _phi(x - m) + (2 - pp) * _phi(x)), lo)
        # |Z - kl| has a kink where Z(x) = kl.
        kink = (mpmath.log((mpmath.expm1(kl) + pp) / pp) + m * m / 2) / m
        k3b = _quad(
            lambda x: abs(z(x) - kl) ** 3 * (pp * _phi(x - m) + (1 - pp) * _phi(x)),
            lo,
            (kink,),
        ) + _quad(lambda x: abs(z(x) + kl) ** 3 * _phi(x), lo)
        return {"kl": kl, "kappa2": k2, "kappa3_bar_printed": k3b}


def flat_segment_term(mu: float, p: float, kl: mpmath.mpf, dps: int = 30) -> mpmath.mpf:
    r""":math:`(1-p)(1 - 2\Phi(-\mu/2))\,\mathrm{kl}^3`: the contribution of the
    segment :math:`[x^*, f_p(x^*)]` of :math:`C_p(G_\mu)` where :math:`|f'| = 1`."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        m, pp = mpmath.mpf(mu), mpmath.mpf(p)
        return (1 - pp) * (1 - 2 * mpmath.ncdf(-m / 2)) * kl**3


def chi2_plus_gmu(mu: float, dps: int = 30) -> mpmath.mpf:
    r""":math:`\chi^2_+(G_\mu) = \int_{\mu/2}^\infty (e^{\mu x - \mu^2/2} - 1)^2
    \varphi(x)\,dx` (the definition, Dong et al. 2019, Thm 5.2)."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        m = mpmath.mpf(mu)
        return _quad(lambda x: mpmath.expm1(m * x - m * m / 2) ** 2 * _phi(x), m / 2)
