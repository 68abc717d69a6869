r"""Inverse of the Gaussian mixture trade-off :math:`f_p = pG_\mu + (1-p)\mathrm{Id}`.

With :math:`t = \Phi(-z)`, :math:`f_p(t) = p\Phi(z - \mu) + (1-p)\Phi(z)`
(Zheng et al. (2020), Lemma C.1), the mixture's CDF at :math:`z`, so
:math:`f_p^{-1}(y) = \Phi(-z_y)` with :math:`z_y` its :math:`y`-quantile, found
from :math:`H_m(v) = p\Phi(v + m) + (1-p)\Phi(v) = y' \le 1/2` in log space by
safeguarded Newton on :math:`[\Phi^{-1}(y') - \max(m,0), \Phi^{-1}(y') - \min(m,0)]`."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from symfdp.numeric.roots import bracketed_newton
from symfdp.tradeoff._base import FloatArray

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_MAX_ITER = 100
#: Newton step (relative to 1 + |v|) below which v is taken as the root.
_XTOL = 2e-15


def _log_h_and_slope(
    v: FloatArray, m: FloatArray, log_p: float, log_q: float
) -> tuple[FloatArray, FloatArray]:
    """log H_m(v) and d/dv log H_m(v)."""
    log_h = np.logaddexp(log_p + special.log_ndtr(v + m), log_q + special.log_ndtr(v))
    log_dh = (
        np.logaddexp(log_p - 0.5 * (v + m) ** 2, log_q - 0.5 * v**2) - _LOG_SQRT_2PI
    )
    return log_h, np.exp(log_dh - log_h)


def gaussian_mixture_inverse(mu: float, p: float, y: FloatArray) -> FloatArray:
    r""":math:`f_p^{-1}(y)` for :math:`f_p = pG_\mu + (1-p)\mathrm{Id}`, ``0 < p < 1``.

    Accurate to a few ulps in relative terms, also for :math:`y` within 1e-12 of
    0 or 1 (:func:`~symfdp.numeric.roots.bracketed_newton`). Raises
    ``RuntimeError`` if the iteration does not converge.
    """
    y = np.asarray(y, dtype=np.float64)
    out = np.empty_like(y)
    out[y <= 0.0] = 1.0
    out[y >= 1.0] = 0.0
    inner = (y > 0.0) & (y < 1.0)
    if not inner.any():
        return out
    yi = y[inner]
    lower = yi < 0.5
    target_prob = np.where(lower, yi, 1.0 - yi)
    # Lower branch: F(z) = y with m = -mu, v = z. Upper: 1 - F(z) = 1 - y with
    # m = +mu, v = -z.
    m = np.where(lower, -mu, mu)
    log_target = np.log(target_prob)
    q = special.ndtri(target_prob)
    lo = q - np.maximum(m, 0.0)
    hi = q - np.minimum(m, 0.0)
    log_p, log_q = math.log(p), math.log1p(-p)

    v = bracketed_newton(
        lambda x, idx: _log_h_and_slope(x, m[idx], log_p, log_q),
        log_target,
        lo,
        hi,
        xtol=_XTOL,
        xatol=_XTOL,
        frtol=0.0,
        check_bracket=False,
        compact=True,
        max_iter=_MAX_ITER,
    )
    out[inner] = np.where(lower, special.ndtr(-v), special.ndtr(v))
    return out
