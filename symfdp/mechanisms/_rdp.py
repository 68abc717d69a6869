r"""Rényi divergences of one step, :math:`D_\alpha(Q \| P) = \frac{1}{\alpha -
1} \log E_P[e^{\alpha L}]` (Mironov 2017), in closed form: the Gaussian
(Dong et al. 2019, Cor. B.6), pure DP (Prop. B.7) and the Poisson-subsampled
Gaussian (Mironov, Talwar and Zhang 2019, Sec. 3.3); the mechanisms' ``rdp``
capability (:meth:`~symfdp.mechanisms.Mechanism.rdp`) returns them."""

from __future__ import annotations

import math
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import check_array, check_choice

FloatArray = NDArray[np.float64]

#: Half-width in sd of X around the integrand's mass (tails below e^{-800}).
_HALF_WIDTH: Final = 40.0


def _check_orders(orders: ArrayLike) -> FloatArray:
    a = check_array("orders", orders, 1.0, math.inf, lo_open=True)
    if a.ndim != 1 or a.size == 0:
        raise ValueError("orders must be a non-empty 1-d sequence of numbers > 1.")
    return a


def _log_remainder(t: FloatArray, q: float, lam: float) -> FloatArray:
    r"""\log r with :math:`r = m^\lambda - 1 - \lambda u \ge 0`, :math:`u = q(e^t - 1)`,
    :math:`m = 1 + u`, :math:`\lambda \notin (0, 1)`; Taylor series near
    :math:`u = 0`."""
    big = t > 700.0
    tt = np.minimum(t, 700.0)
    u = q * np.expm1(tt)
    log_m = np.where(
        tt < 30.0,
        np.log1p(u),
        np.logaddexp(math.log1p(-q) if q < 1.0 else -math.inf, math.log(q) + t),
    )
    v = lam * log_m
    small = (np.abs(v) <= 0.1) & (np.abs(u) <= 0.1)
    vs, us = np.where(small, v, 0.0), np.where(small, u, 0.0)
    series_v = np.zeros_like(vs)
    term = vs.copy()
    for k in range(2, 14):  # e^v - 1 - v; truncation < 0.1**14 / 14! relative
        term = term * vs / k
        series_v += term
    series_u = np.zeros_like(us)
    power = us.copy()
    for k in range(2, 20):  # log(1+u) - u; truncation < 0.1**18 relative
        power = power * us
        series_u += (-1.0) ** (k + 1) * power / k
    r_small = series_v + lam * series_u
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        r_large = np.expm1(np.minimum(v, 700.0)) - lam * u
        log_r = np.log(np.where(small, r_small, r_large))
        # Far tails (no overflow): e^v dominates for lam > 0, |lam| u for lam < 0.
        huge_v = v > 700.0
        log_r = np.where(huge_v, v, log_r)
        if lam < 0:
            log_r = np.where(big, math.log(-lam) + math.log(q) + t, log_r)
        else:
            log_r = np.where(big, v, log_r)
    return np.where(np.isnan(log_r), -np.inf, log_r)


def log_mixture_moment(q: float, mu: float, lam: ArrayLike) -> FloatArray:
    r""":math:`\log E[m(X)^\lambda]` with :math:`m(x) = 1 - q + q e^{\mu x - \mu^2/2}`
    and :math:`X \sim N(0, 1)`, for real :math:`\lambda \notin (0, 1)`.

    Computed as :math:`\log(1 + S)`, :math:`S = E[m^\lambda - 1 - \lambda(m - 1)]
    \ge 0` (no cancellation), by the trapezoid rule in log space, step :math:`h =
    \min(0.2, 0.3/\mu)`, cut :data:`_HALF_WIDTH` beyond :math:`[\min(0, \lambda\mu),
    \max(0, \lambda\mu)]`: relative error about :math:`e^{-2\pi^2/(\mu h)} \le
    e^{-65}` (analytic in :math:`|\mathrm{Im}\,x| < \pi/\mu`) plus :math:`e^{-800}`.

    Args:
        q: Sampling rate in (0, 1].
        mu: Effect size :math:`1/\sigma \ge 0`.
        lam: Exponents :math:`\lambda \ge 1` or :math:`\le 0`.
    """
    lam = np.atleast_1d(np.asarray(lam, dtype=np.float64))
    if mu == 0.0:
        return np.zeros_like(lam)
    step = min(0.2, 0.3 / mu)
    out = np.empty_like(lam)
    log_norm = math.log(step) - 0.5 * math.log(2 * math.pi)
    for i, la in enumerate(lam):  # a few hundred orders at most; each sum vectorised
        lo = min(0.0, la * mu) - _HALF_WIDTH
        hi = max(0.0, la * mu) + _HALF_WIDTH
        x = np.arange(lo, hi + step, step)
        log_terms = _log_remainder(mu * x - 0.5 * mu * mu, q, float(la)) - 0.5 * x * x
        log_s = float(special.logsumexp(log_terms)) + log_norm
        out[i] = np.logaddexp(0.0, log_s) if log_s > 0 else math.log1p(math.exp(log_s))
    return out


def _log_binomial_moment(q: float, mu: float, alpha: int) -> float:
    r""":math:`\log A_\alpha`, integer :math:`\alpha`, as :math:`\log(1 + \sum_{k
    \ge 2} b_k (e^{c_k} - 1))` (non-negative terms: full relative precision)."""
    if alpha < 2:
        raise ValueError(f"integer orders must be >= 2. Found {alpha}.")
    k = np.arange(2, alpha + 1, dtype=np.float64)
    log_binom = (
        special.gammaln(alpha + 1.0)
        - special.gammaln(k + 1)
        - special.gammaln(alpha - k + 1)
    )
    log_1mq = math.log1p(-q) if q < 1.0 else -math.inf
    c = 0.5 * (k * k - k) * mu * mu
    # log(e^c - 1), stable for small and large c.
    log_expm1_c = np.where(c < 30.0, np.log(np.expm1(np.minimum(c, 30.0))), c)
    with np.errstate(invalid="ignore"):
        terms = log_binom + (alpha - k) * log_1mq + k * math.log(q) + log_expm1_c
    terms = np.where(np.isnan(terms), -np.inf, terms)  # 0 * -inf at q = 1, k = alpha
    log_s = float(special.logsumexp(terms))
    return float(np.logaddexp(0.0, log_s)) if log_s > 0 else math.log1p(math.exp(log_s))


def rdp_subsampled_gaussian(
    q: float, mu: float, orders: ArrayLike, direction: str = "add"
) -> FloatArray:
    r""":math:`D_\alpha` of one step of the Poisson-subsampled Gaussian mechanism
    (rate ``q`` in (0, 1], ``mu`` :math:`= 1/\sigma \ge 0`) at ``orders``
    :math:`\alpha > 1`; ``direction`` ``"add"`` (Mironov et al.'s
    :math:`A_\alpha`), ``"remove"`` or ``"both"`` (the larger)."""
    a = _check_orders(orders)
    check_choice("direction", direction, ("add", "remove", "both"))
    if q == 1.0 or mu == 0.0:
        return rdp_gaussian(mu, a)
    if direction == "both":
        return np.maximum(
            rdp_subsampled_gaussian(q, mu, a, "add"),
            rdp_subsampled_gaussian(q, mu, a, "remove"),
        )
    if direction == "remove":
        return log_mixture_moment(q, mu, 1.0 - a) / (a - 1.0)
    out = np.empty_like(a)
    integer = (a == np.round(a)) & (a <= 1e5)
    for i in np.flatnonzero(integer):
        out[i] = _log_binomial_moment(q, mu, int(a[i]))
    if (~integer).any():
        out[~integer] = log_mixture_moment(q, mu, a[~integer])
    return out / (a - 1.0)


def rdp_gaussian(mu: float, orders: ArrayLike) -> FloatArray:
    r""":math:`D_\alpha(N(\mu,1) \| N(0,1)) = \alpha\mu^2/2` (Dong et al. 2019,
    Cor. B.6)."""
    a = _check_orders(orders)
    return 0.5 * a * mu * mu


def _log_cosh(x: FloatArray) -> FloatArray:
    x = np.abs(x)
    return x + np.log1p(np.exp(-2.0 * x)) - math.log(2.0)


def rdp_pure_dp(eps: float, orders: ArrayLike) -> FloatArray:
    r"""RDP of randomised response (:math:`f_{\varepsilon,0}`), Dong et al. (2019),
    Prop. B.7: :math:`\frac{1}{\alpha-1}\log\frac{\cosh(\varepsilon(\alpha-1/2))}
    {\cosh(\varepsilon/2)}`."""
    a = _check_orders(orders)
    return (_log_cosh(eps * (a - 0.5)) - _log_cosh(np.array(eps / 2.0))) / (a - 1.0)
