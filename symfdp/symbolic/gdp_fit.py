r"""Why GDP fits: the local GDP parameter of an Edgeworth trade-off curve to its
leading :math:`n^{-1/2}` (:math:`\kappa_3`) order.

A point :math:`(\alpha, \beta)` of a trade-off curve lies on :math:`G_\mu` for
:math:`\mu = z + \Phi^{-1}(1 - \beta)`, :math:`z = \Phi^{-1}(1 - \alpha)` (Dong et
al. 2019, eq. (6)); call it the *local* :math:`\mu(z)` of the curve. For a
composed pair with loss :math:`T_n` (means :math:`m_P, m_Q`, variances
:math:`v_P, v_Q`, standardised third cumulants :math:`\lambda_{3,P},
\lambda_{3,Q}` of order :math:`n^{-1/2}`), the two-sided Edgeworth curve (Zheng
et al. 2020, eq. (3.5)) is :math:`\beta = F_Q(-\theta + \rho\, x_P(z))` with the
Cornish–Fisher quantile :math:`x_P(z)` of the P-side (eq. (3.9)),
:math:`\theta = (m_Q - m_P)/\sqrt{v_Q}` and :math:`\rho = \sqrt{v_P / v_Q}`.
Expanding :math:`\Phi^{-1}(F_Q(\cdot))` to first order in :math:`\lambda_3` (the
book-keeping :math:`\epsilon`) gives, exactly,

.. math::  \mu(z) = \theta + (1 - \rho) z - \rho\,\lambda_{3,P}\,\frac{z^2 - 1}{6}
           + \lambda_{3,Q}\,\frac{(\rho z - \theta)^2 - 1}{6} + O(n^{-1}).

A Gaussian composition has :math:`\rho = 1`, :math:`\lambda_3 = 0`, so
:math:`\mu(z) \equiv \theta = \mu`: the curve *is* :math:`G_\mu`. Otherwise the
departure from a constant is a quadratic in :math:`z` of size
:math:`\lambda_3 = O(n^{-1/2})`: GDP fits up to that order, and the tightest
dominating :math:`\mu` and the regret of reporting it follow from
:math:`\max_z \mu(z)` and :math:`\mu^* - \mu(z)` before any FFT
(:mod:`symfdp.risk.edgeworth_fit`).
"""

from __future__ import annotations

import functools
from typing import Final

import sympy as sp

from symfdp.symbolic.cornish_fisher import cornish_fisher_expr
from symfdp.symbolic.edgeworth import edgeworth_cdf_terms
from symfdp.symbolic.symbols import Phi, lam, phi, x, z

#: The shift :math:`(m_Q - m_P)/\sqrt{v_Q}` of the composed loss.
theta: Final = sp.Symbol("theta", real=True)
#: The ratio of standard deviations :math:`\sqrt{v_P / v_Q}`.
rho: Final = sp.Symbol("rho", positive=True)
#: Standardised third cumulants of the composed loss under P and under Q.
lambda3_P: Final = sp.Symbol("lambda3_P", real=True)
lambda3_Q: Final = sp.Symbol("lambda3_Q", real=True)

_EPS: Final = sp.Symbol("epsilon", positive=True)


@functools.cache
def local_mu_terms() -> tuple[sp.Expr, sp.Expr]:
    r"""``(mu_0, mu_1)``: :math:`\mu(z) = \mu_0(z) + \mu_1(z) + O(n^{-1})`, with
    :math:`\mu_1` linear in :math:`\lambda_{3,P}, \lambda_{3,Q}` (module
    docstring), derived from the order-1 Cornish–Fisher quantile and Edgeworth
    CDF of :mod:`symfdp.symbolic`.

    >>> mu0, mu1 = local_mu_terms()
    >>> mu0
    -rho*z + theta + z
    >>> hand = lambda3_Q * ((rho * z - theta) ** 2 - 1) - rho * lambda3_P * (z**2 - 1)
    >>> sp.expand(mu1 - hand / 6)
    0
    """
    lam3 = lam(3)
    quantile = cornish_fisher_expr(1).subs(lam3, _EPS * lambda3_P)  # x_P(z)
    w = -theta + rho * quantile
    w0, w1 = w.subs(_EPS, 0), sp.diff(w, _EPS)
    # F_Q = Phi - phi R_1 (Edgeworth, order 1): R_1 from the house's term.
    term0, term1 = edgeworth_cdf_terms(1)
    if term0 != Phi(x):  # pragma: no cover
        raise ArithmeticError("the order-0 Edgeworth term is not Phi(x)")
    r1 = sp.cancel(-term1 / phi(x)).subs(lam3, lambda3_Q)
    # Phi^{-1}(Phi(w0 + eps w1) - eps phi(w0) R_1(w0)) = w0 + eps (w1 - R_1(w0)).
    quantile_q1 = w1 - r1.subs(x, w0)
    mu0 = sp.expand(z - w0)
    mu1 = sp.expand(-quantile_q1)
    return mu0, mu1
