r"""Closed forms for random allocation in the limits of large and small noise.

**Large noise: a Gaussian trade-off** (an approximation). The chi-square
divergence of the one-of-:math:`t` pair is the variance of its likelihood ratio,
:math:`\chi^2 = \mathrm{Var}_P(W_t) = (E_P[V^2] - 1)/t`, and for the Gaussian
mechanism with :math:`\mu = 1/\sigma`, :math:`E_P[V^2] = e^{\mu^2}` (the
derivation is :func:`chi_square_expr`). When the loss per epoch is small its law
is close to normal and the pair close to :math:`G_{\mu_e}` with
:math:`\mu_e^2 = \chi^2`; over :math:`E` epochs and :math:`k` of :math:`t`
steps (:math:`k` allocations of one of :math:`t/k`)

.. math::  \mu_{RA} = \sqrt{E\, k^2 (e^{1/\sigma^2} - 1) / t},

the same as Poisson subsampling at rate :math:`k/t` over :math:`Et` steps
(Dong et al. 2019, Thm 5.1 and Cor. 5.4: :math:`\mu = p\sqrt{T(e^{\mu^2} -
1)}`), in line with the asymptotic equivalence of the two samplers (Feldman &
Shenfeld 2025, arXiv 2502.08202, main theorem: random allocation is dominated by
Poisson subsampling at rate :math:`(1 + o(1))k/t`). Its error is the CLT error
of the composed loss: it vanishes as :math:`\sigma \to \infty` at fixed
:math:`t, E` and is of the order of the normalised third cumulant otherwise
(tests check the decrease).

**Small noise: a certified lower bound** (remove direction, :math:`k = 1`).
Under the mixture the selected step :math:`I` carries :math:`V_I` and every
other ratio is positive, so :math:`W_t \ge V_I / t`: the loss
:math:`\log W_t` under Q stochastically dominates :math:`L - \log t`. The
profile :math:`\delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+]` only
depends on the Q-law of the loss and is monotone in it, and independent sums
keep the order, so for :math:`E` epochs

.. math::  \delta_{RA}(\varepsilon) \ge \delta_{M^{\otimes E}}(\varepsilon +
           E \log t),

tight as :math:`\sigma \to 0` (one step then decides). For the Gaussian the
right side is :math:`\delta_{G_{\sqrt E \mu}}(\varepsilon + E\log t)` (Balle &
Wang 2018, Thm 8).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike
from scipy import special

from symfdp._validation import check_int, check_real
from symfdp.mechanisms.base import FloatArray


def chi_square_expr() -> sp.Expr:
    r"""SymPy: :math:`E_P[V^2] - 1` for the Gaussian pair N(0,1) vs
    N(:math:`\mu`,1), derived by integration (equals :math:`e^{\mu^2} - 1`)."""
    x = sp.Symbol("x", real=True)
    mu = sp.Symbol("mu", positive=True)
    v = sp.exp(mu * x - mu**2 / 2)
    density = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)
    return sp.simplify(sp.integrate(v**2 * density, (x, -sp.oo, sp.oo)) - 1)


def gdp_mu(sigma: float, t: int, k: int = 1, epochs: int = 1) -> float:
    r""":math:`\mu_{RA} = \sqrt{E k^2 (e^{1/\sigma^2} - 1)/t}` (module docstring;
    large-noise approximation)."""
    sigma = check_real("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True)
    t = check_int("t", t, lo=1)
    k = check_int("k", k, lo=1, hi=t)
    epochs = check_int("epochs", epochs, lo=1)
    return math.sqrt(epochs * k * k * math.expm1(sigma**-2) / t)


def gdp_delta(mu: float, eps: ArrayLike) -> FloatArray:
    r""":math:`\delta_{G_\mu}(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) -
    e^\varepsilon \Phi(-\varepsilon/\mu - \mu/2)` (Dong et al. 2019, Cor. 2.13),
    the second term in log space."""
    e = np.asarray(eps, dtype=np.float64)
    first = special.ndtr(-e / mu + mu / 2)
    second = np.exp(e + special.log_ndtr(-e / mu - mu / 2))
    return np.asarray(np.maximum(first - second, 0.0), dtype=np.float64)


def small_noise_lower_delta(
    sigma: float, t: int, eps: ArrayLike, epochs: int = 1
) -> FloatArray:
    r"""Certified lower bound :math:`\delta_{G_{\sqrt E/\sigma}}(\varepsilon +
    E\log t)` on the remove direction of random allocation of one of ``t``
    Gaussian steps over ``epochs`` epochs (module docstring)."""
    sigma = check_real("sigma", sigma, 0.0, math.inf, lo_open=True, hi_open=True)
    t = check_int("t", t, lo=1)
    epochs = check_int("epochs", epochs, lo=1)
    e = np.asarray(eps, dtype=np.float64) + epochs * math.log(t)
    return gdp_delta(math.sqrt(epochs) / sigma, e)


__all__ = ["chi_square_expr", "gdp_delta", "gdp_mu", "small_noise_lower_delta"]
