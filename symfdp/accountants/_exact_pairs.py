r"""Exact pair curves shared by the accountants: the Gaussian-DP curve
:math:`G_\mu` and the identity :math:`\mathrm{Id} = G_0`, answered with zero
error and a zero-width bracket.

:math:`G_\mu` has the profile :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu +
\mu/2) - e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)` (Dong et al. 2019,
Cor. 2.13); a composition of Gaussian mechanisms is :math:`G_{\sqrt{\sum_i
n_i\mu_i^2}}` (Cor. 3.3). A composed loss without variance is a.s. 0 (the only
constant a pair of probability measures allows), so its curve is
:math:`\mathrm{Id}` exactly: :data:`IDENTITY_PAIR`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from symfdp.curve import Answer, PairCurve, Query
from symfdp.curve.answer import exact_answer
from symfdp.mechanisms.base import FloatArray
from symfdp.mechanisms.gaussian import gaussian_privacy_profile, gaussian_tradeoff
from symfdp.numeric.roots import newton_on_bracket


@dataclass(frozen=True)
class ExactGaussianPairCurve(PairCurve):
    r""":math:`G_\mu` with :math:`\mu = \sqrt{\sum_i n_i\mu_i^2}` (Dong et al. 2019,
    Cor. 3.3): every query in closed form (the inverse of the profile by
    :func:`gaussian_epsilon`, for any :math:`\mu`)."""

    mu: float

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.DELTA:
            values = gaussian_privacy_profile(self.mu, points)
        elif query is Query.EPSILON:
            values = gaussian_epsilon(self.mu, points)
        else:
            values = gaussian_tradeoff(self.mu, points)
        return exact_answer(np.asarray(values, dtype=np.float64))


def gaussian_epsilon(mu: float, target: ArrayLike) -> FloatArray:
    r""":math:`\inf\{\varepsilon \ge 0 : \delta_{G_\mu}(\varepsilon) \le t\}`,
    vectorised (no search limit: :math:`\varepsilon \approx \mu^2/2` grows
    without bound).

    In :math:`u = \varepsilon/\mu`, :math:`w = u - \mu/2`, the profile (Dong et
    al. 2019, Cor. 2.13) is

    .. math::  \delta = \Phi(-w) - \tfrac12 e^{-w^2/2}
               \operatorname{erfcx}\bigl((w + \mu)/\sqrt2\bigr),

    with no term of size :math:`\mu^2` (full precision for every :math:`\mu`);
    bracketed Newton on :math:`\log\delta` (or :math:`\log(1 - \delta)` near 1)
    in :math:`u \in [0, \mu/2 + \Phi^{-1}(1-t)]`.
    """
    t = np.asarray(target, dtype=np.float64)
    out = np.zeros(t.shape)
    if mu == 0.0:
        return out
    at_zero = gaussian_privacy_profile(mu, np.zeros(t.shape)) <= t
    todo = ~at_zero & (t < 1.0)
    if not todo.any():
        return out
    every = bool(todo.all())
    tt = t if every else t[todo]
    hi = mu / 2 + -special.ndtri(tt) + 8e-16 * mu
    upper = tt > 0.5

    # Newton runs in one floating-point context: no context of their own here.
    half, scale = mu / 2, 1.0 / math.sqrt(2)

    def parts(u: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        w = u - half
        log_b = np.log(special.erfcx((w + mu) * scale) / 2)
        log_b -= 0.5 * w * w
        return w, special.log_ndtr(-w), log_b

    def log_delta(u: FloatArray) -> tuple[FloatArray, FloatArray]:
        _, log_a, log_b = parts(u)
        log_d = log_a + np.log1p(-np.exp(np.minimum(log_b - log_a, 0.0)))
        return log_d, -mu * np.exp(log_b - log_d)

    def log_complement(u: FloatArray) -> tuple[FloatArray, FloatArray]:
        w, _, log_b = parts(u)
        log_c = np.logaddexp(special.log_ndtr(w), log_b)
        return log_c, mu * np.exp(log_b - log_c)

    u = np.zeros(tt.shape)
    for fn, rising in ((log_delta, False), (log_complement, True)):
        sel = upper if rising else ~upper
        if not sel.any():
            continue
        whole = bool(sel.all())
        ts = tt if whole else tt[sel]
        target_ = np.log1p(-ts) if rising else np.log(ts)
        h = hi if whole else hi[sel]
        found, _ = newton_on_bracket(
            fn,
            target_,
            np.zeros(target_.shape),
            h,
            _start(mu, ts, h) if not rising else np.nextafter(h, 0.0),
            decreasing=not rising,
            xtol=1e-14,
            ftol=1e-13,
        )
        if whole:
            u = found
        else:
            u[sel] = found
    if every:
        return mu * u
    out[todo] = mu * u
    return out


def _start(mu: float, t: FloatArray, hi: FloatArray) -> FloatArray:
    r"""A start of :func:`gaussian_epsilon`'s Newton iteration for ``t <= 1/2``:
    with Mills' ratio in both terms, :math:`\delta \approx \phi(w)\,\mu /
    (w (w + \mu))` for large :math:`w`; one fixed-point step from
    :math:`w_0 = \Phi^{-1}(1 - t)`. Just inside the upper end ``hi`` where
    that leaves the bracket, for ``w_0 <= 1`` and for ``mu < 0.2`` (where it
    is no better a start)."""
    w0 = hi - mu / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        arg = np.log(mu / (w0 * (w0 + mu))) - np.log(t) - 0.5 * math.log(2 * math.pi)
        w1 = np.sqrt(2.0 * arg)
    u1 = w1 + mu / 2
    good = (w0 > 1.0) & (u1 > 0.0) & (u1 < hi) & (mu >= 0.2)
    return np.where(good, u1, np.nextafter(hi, 0.0))


#: The identity curve Id = G_0 (a composed loss without variance).
IDENTITY_PAIR: Final = ExactGaussianPairCurve(0.0)
