r"""Exact pair curves shared by the accountants: zero-width certified bounds,
the Gaussian-DP curve :math:`G_\mu` and the identity :math:`\mathrm{Id} = G_0`.

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

from symfdp.mechanisms.base import FloatArray
from symfdp.mechanisms.gaussian import gaussian_privacy_profile, gaussian_tradeoff
from symfdp.numeric.roots import (
    newton_on_bracket,
    newton_on_bracket_scalar,
)


class ExactBounds:
    """Zero-width certified bounds from the exact values."""

    def delta(self, eps: ArrayLike) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:  # pragma: no cover
        raise NotImplementedError

    def delta_bounds(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        d = self.delta(eps)
        return d, d

    def tradeoff_bounds(self, alpha: ArrayLike) -> tuple[FloatArray, FloatArray]:
        f = self.tradeoff(alpha)
        return f, f


@dataclass(frozen=True)
class ExactGaussianPairCurve(ExactBounds):
    r""":math:`G_\mu` with :math:`\mu = \sqrt{\sum_i n_i\mu_i^2}` (Dong et al. 2019,
    Cor. 3.3)."""

    mu: float

    def delta(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=np.float64)
        return np.asarray(gaussian_privacy_profile(self.mu, e), dtype=np.float64)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        a = np.asarray(alpha, dtype=np.float64)
        return np.asarray(gaussian_tradeoff(self.mu, a), dtype=np.float64)

    def epsilon(self, delta: ArrayLike) -> FloatArray:
        r"""The exact inverse of the profile, for any :math:`\mu` (no search
        limit: :math:`\varepsilon \approx \mu^2/2` grows without bound)."""
        return gaussian_epsilon(self.mu, np.asarray(delta, dtype=np.float64))

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        eps = self.epsilon(delta)
        return eps, eps

    def delta_and_error(self, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(delta(eps), 0)``: the closed form is exact."""
        d = self.delta(eps)
        return d, np.zeros(np.shape(d))

    def epsilon_and_error(self, delta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(epsilon(delta), 0)``: the closed form is exact."""
        eps = self.epsilon(delta)
        return eps, np.zeros(np.shape(eps))


def gaussian_epsilon(mu: float, target: ArrayLike) -> FloatArray:
    r""":math:`\inf\{\varepsilon \ge 0 : \delta_{G_\mu}(\varepsilon) \le t\}`,
    vectorised (see :meth:`ExactGaussianPairCurve.epsilon`).

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
    tt = t[todo]
    hi = mu / 2 + -special.ndtri(tt) + 8e-16 * mu
    upper = tt > 0.5

    def parts(u: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        w = u - mu / 2
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_b = -0.5 * w * w + np.log(special.erfcx((w + mu) / math.sqrt(2)) / 2)
            return w, special.log_ndtr(-w), log_b

    def log_delta(u: FloatArray) -> tuple[FloatArray, FloatArray]:
        _, log_a, log_b = parts(u)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_d = log_a + np.log1p(-np.exp(np.minimum(log_b - log_a, 0.0)))
            return log_d, -mu * np.exp(log_b - log_d)

    def log_complement(u: FloatArray) -> tuple[FloatArray, FloatArray]:
        w, _, log_b = parts(u)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_c = np.logaddexp(special.log_ndtr(w), log_b)
            return log_c, mu * np.exp(log_b - log_c)

    if tt.size == 1:
        found = _gaussian_u_point(mu, float(tt[0]), float(hi[0]))
        if found is not None:
            out[todo] = mu * found
            return out
    u = np.zeros(tt.shape)
    for fn, sel, target, rising in (
        (log_delta, ~upper, np.log(tt[~upper]), False),
        (log_complement, upper, np.log1p(-tt[upper]), True),
    ):
        if sel.any():
            # Started just inside the upper end, near the root for small targets.
            u[sel], _ = newton_on_bracket(
                fn,
                target,
                np.zeros(target.shape),
                hi[sel],
                np.nextafter(hi[sel], 0.0),
                decreasing=not rising,
                xtol=1e-14,
                ftol=1e-13,
            )
    out[todo] = mu * u
    return out


_SQRT2 = math.sqrt(2)


def _gaussian_u_point(mu: float, t: float, hi: float) -> float | None:
    """The root ``u`` of :func:`gaussian_epsilon` for one target ``t`` in
    Python floats (the same steps); None where a value leaves the float range."""
    half = mu / 2
    upper = t > 0.5

    def fn(u: float) -> tuple[float, float]:
        w = u - half
        log_b = -0.5 * w * w + math.log(float(special.erfcx((w + mu) / _SQRT2)) / 2)
        if upper:
            log_c = float(np.logaddexp(float(special.log_ndtr(w)), log_b))
            return log_c, mu * math.exp(log_b - log_c)
        log_a = float(special.log_ndtr(-w))
        log_d = log_a + math.log1p(-math.exp(min(log_b - log_a, 0.0)))
        return log_d, -mu * math.exp(log_b - log_d)

    try:
        target = math.log1p(-t) if upper else math.log(t)
    except ValueError:
        return None
    found = newton_on_bracket_scalar(
        fn,
        target,
        0.0,
        hi,
        math.nextafter(hi, 0.0),
        decreasing=not upper,
        xtol=1e-14,
        ftol=1e-13,
    )
    return None if found is None else found[0]


IDENTITY_PAIR: Final = ExactGaussianPairCurve(0.0)
