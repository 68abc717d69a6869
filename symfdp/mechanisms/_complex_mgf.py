r"""The moment generating function of the privacy loss at complex arguments.

For a dominating pair with loss :math:`L = \log dQ/dP`, :math:`M(z) = E_Q[e^{zL}]
= E_P[e^{(z+1)L}]`, analytic where :math:`E_Q[e^{(\operatorname{Re} z)L}] < \infty`,
on vertical lines :math:`z = t + is` for :mod:`symfdp.accountants.contour`.
Each function returns the principal :math:`\operatorname{Log} M(z)`
(:math:`e^{n \operatorname{Log} M} = M^n` for integer :math:`n`: no phase tracking).

* Gaussian, :math:`L \sim N(\mu^2/2, \mu^2)` under Q: :math:`\log M(z) =
  \mu^2 z (1+z)/2` (Dong et al. 2019, Sec. 3.1).
* Poisson-subsampled Gaussian: :math:`M(z) = G(z+1)` (add), :math:`G(-z)` (remove),

  .. math::  G(w) = E[(1 + u)^w], \quad u = p\,(e^{Y} - 1), \quad
             Y = \mu X - \mu^2/2, \quad X \sim N(0, 1),

  with :math:`G(w) - 1 = E[(1+u)^w - 1 - wu]` summed by a cached trapezoid rule
  in :math:`x`, so :math:`\operatorname{Log} M = \operatorname{log1p}(G - 1)`
  keeps its absolute precision when :math:`M \approx 1` (small ``p``).
* A swapped pair :math:`(Q, P)`: :math:`M'(z) = M(-1-z)`.

The trapezoid step aims at an aliasing error below :math:`e^{-40}` (Trefethen &
Weideman 2014, Thm 5.1, on the strip :math:`|\operatorname{Im} x| < \pi/\mu`
where :math:`a = \log(1+u)` is analytic); see :func:`_step`."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Final, Protocol

import numpy as np
from numpy.typing import NDArray
from scipy import special

from symfdp.mechanisms import _logmix as lm
from symfdp.mechanisms._errors import QuadratureLimitError

ComplexArray = NDArray[np.complex128]
FloatArray = NDArray[np.float64]

#: Half-width of the x rule beyond the tilted law's shifts (phi(14) ~ 1e-43).
HALF_WIDTH: Final = 14.0
#: -log of the aliasing error aimed at by the step rule (e^{-40} ~ 4e-18).
ALIAS_DIGITS: Final = 40.0
#: Largest rule (nodes) and largest work array (entries) of one evaluation.
MAX_NODES: Final = 2**18
CHUNK: Final = 2**21


class LogMGF(Protocol):
    """``z -> Log M(z)`` for complex arrays (principal branch), and the real
    cumulant generating function with two derivatives."""

    def __call__(self, z: ComplexArray) -> ComplexArray: ...

    def real(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""``(K, K', K'')`` at real ``t``, :math:`K = \log M`."""
        ...


def clog1p(d: ComplexArray) -> ComplexArray:
    r"""Principal :math:`\log(1 + d)` with absolute error of order
    :math:`10^{-16}|d|` for small :math:`|d|` (NumPy's complex ``log1p`` loses
    the relative precision of the real part)."""
    x, y = d.real, d.imag
    small = np.abs(d) < 0.5
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        re = np.where(
            small, 0.5 * np.log1p(x * (2.0 + x) + y * y), np.log(np.abs(1 + d))
        )
    im = np.arctan2(y, 1.0 + x)
    return re + 1j * im


@dataclass(frozen=True)
class GaussianLogMGF:
    r""":math:`\log M(z) = \mu^2 z(1+z)/2` of :math:`L \sim N(\mu^2/2, \mu^2)`."""

    mu: float

    def __call__(self, z: ComplexArray) -> ComplexArray:
        return 0.5 * self.mu**2 * z * (1.0 + z)

    def real(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        v = self.mu**2
        return 0.5 * v * t * (1.0 + t), v * (0.5 + t), np.full(t.shape, v)


@dataclass(frozen=True)
class ReflectedLogMGF:
    r""":math:`\operatorname{Log} M(-1-z)`: the swapped pair of ``inner``'s."""

    inner: LogMGF

    def __call__(self, z: ComplexArray) -> ComplexArray:
        return self.inner(-1.0 - z)

    def real(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        k0, k1, k2 = self.inner.real(-1.0 - t)
        return k0, -k1, k2


@dataclass(frozen=True)
class _Rule:
    """Trapezoid nodes in x with the per-node quantities of :math:`G(w) - 1`."""

    log_w: FloatArray  # log of the Gaussian weights (step included)
    w: FloatArray  # the weights
    a: FloatArray  # a = log(1 + u)
    wu: FloatArray  # weight * u, without overflow


def _log_mix_complex(x: FloatArray, y: float, mu: float, p: float) -> ComplexArray:
    r""":math:`a(x + iy) = \log(1 - p + p e^{\mu(x+iy) - \mu^2/2})` (principal,
    :math:`\mu y < \pi`), as a log-sum-exp of the two terms."""
    a1 = math.log1p(-p)
    a2 = math.log(p) + mu * x - 0.5 * mu * mu + 1j * mu * y
    m = np.maximum(a1, a2.real)
    out: ComplexArray = m + np.log(np.exp(a1 - m) + np.exp(a2 - m))
    return out


def _range(mu: float, p: float, re_lo: float, re_hi: float) -> tuple[float, float]:
    r"""x range covering the untilted law and the law tilted by
    :math:`e^{\operatorname{Re}(w) a(x)}` (see
    :meth:`~symfdp.mechanisms.SubsampledGaussian._tilted_base_rule`)."""
    tau = max(-re_lo, 0.0)
    reach = float(special.expit(math.log(p) - math.log1p(-p) - mu * mu / 2))
    return -HALF_WIDTH - mu - tau * mu * reach, mu + HALF_WIDTH + max(re_hi, 1.0) * mu


def _step(mu: float, p: float, re_lo: float, re_hi: float, s_max: float) -> float:
    r"""Largest step whose aliasing error is below
    :math:`e^{-40}` (relative to :math:`\max(1, G(\operatorname{Re} w))`) for
    every :math:`w` with real part in ``[re_lo, re_hi]`` and :math:`|\operatorname{Im}
    w| \le` ``s_max``.

    The trapezoid error is at most :math:`e^{-2\pi y/h}` times the integrand's
    size on the lines :math:`\operatorname{Im} x = \pm y`, :math:`y < \pi/\mu`
    (Trefethen & Weideman 2014, Thm 5.1), evaluated on a coarse grid of :math:`x`
    for a few :math:`y` at the corners of the box of ``w`` (the log-size is
    linear in ``w``), plus :math:`\log(1 + |w||u|)` for the part :math:`-1 - wu`."""
    lo_x, hi_x = _range(mu, p, re_lo, re_hi)
    xc = np.arange(lo_x, hi_x, min(0.1, 0.2 / mu))
    corners_re = np.array([re_lo, re_hi])
    a0 = lm.log_mix(mu * xc - 0.5 * mu * mu, p)
    base = float(np.max(-0.5 * xc[None, :] ** 2 + corners_re[:, None] * a0[None, :]))
    scale = max(0.0, base)
    w_abs = max(abs(re_lo), abs(re_hi)) + s_max
    best = 0.0
    for y in np.linspace(0.05, 0.95, 19) * min(math.pi / mu, 3.0 * math.pi):
        # Both lines +-y: Im a(x - iy) = -Im a(x + iy).
        a = _log_mix_complex(xc, float(y), mu, p)
        gauss = -0.5 * (xc * xc - y * y)
        size_pow = np.max(
            gauss[None, :]
            + corners_re[:, None] * a.real[None, :]
            + s_max * np.abs(a.imag)[None, :]
        )
        # |1 + w u| <= (1 + |w|)(1 + e^{Re a}).
        size_lin = np.max(gauss + math.log1p(w_abs) + np.logaddexp(a.real, 0.0))
        size = max(float(size_pow), float(size_lin)) - scale
        h = 2.0 * math.pi * y / (ALIAS_DIGITS + math.log(xc.size) + max(size, 0.0))
        best = max(best, h)
    return min(best, 0.25)


def _bucket_up(v: float) -> float:
    """``v`` rounded away from 0 to 0, +-1/2, +-1, +-2, +-4, ... (cache keys)."""
    if v == 0.0:
        return 0.0
    mag = 2.0 ** math.ceil(math.log2(max(abs(v), 0.5)))
    return math.copysign(mag, v)


def _bucket_array(v: FloatArray) -> FloatArray:
    """Elementwise :func:`_bucket_up` for ``v >= 0``."""
    with np.errstate(divide="ignore"):
        mag = 2.0 ** np.ceil(np.log2(np.maximum(v, 0.5)))
    return np.where(v == 0.0, 0.0, mag)


@functools.lru_cache(maxsize=256)
def _rule(mu: float, p: float, re_lo: float, re_hi: float, s_max: float) -> _Rule:
    step = _step(mu, p, re_lo, re_hi, s_max)
    lo_x, hi_x = _range(mu, p, re_lo, re_hi)
    lo, hi = math.floor(lo_x / step), math.ceil(hi_x / step)
    if hi - lo + 1 > MAX_NODES:
        raise QuadratureLimitError(
            f"the complex MGF of the subsampled Gaussian (mu = {mu:g}, p = {p:g}) "
            f"at |Im w| = {s_max:.3g}, Re w in [{re_lo:.3g}, {re_hi:.3g}] needs "
            f"{hi - lo + 1} nodes; accountants.Numerical serves this regime."
        )
    x = np.arange(lo, hi + 1, dtype=np.float64) * step
    log_w = -0.5 * x * x - 0.5 * math.log(2 * math.pi) + math.log(step)
    y = mu * x - 0.5 * mu * mu
    a = lm.log_mix(y, p)
    with np.errstate(over="ignore"):
        # weight * p * (e^y - 1) in log space where e^y overflows.
        wu = p * (np.exp(log_w + y) - np.exp(log_w))
    w = np.exp(log_w)
    for arr in (log_w, w, a, wu):
        arr.setflags(write=False)
    return _Rule(log_w, w, a, wu)


@dataclass(frozen=True)
class SubsampledGaussianLogMGF:
    r""":math:`\operatorname{Log} M(z)` of the Poisson-subsampled Gaussian pair:
    :math:`\operatorname{Log} G(z + 1)` (add, ``sign = 1``) or
    :math:`\operatorname{Log} G(-z)` (remove, ``sign = -1``)."""

    mu: float
    p: float
    sign: int

    def __call__(self, z: ComplexArray) -> ComplexArray:
        z = np.asarray(z, dtype=np.complex128)
        w = (z + 1.0) if self.sign > 0 else -z
        return self.log_g(w)

    def real(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""``(K, K', K'')`` at real ``t``: log-sum-exp of the tilted rule and the
        tilted mean and variance of :math:`\pm a` (``log_g`` gives :math:`K` to full
        precision)."""
        w = (t + 1.0) if self.sign > 0 else -t
        flat = w.reshape(-1)
        k0, k1, k2 = np.empty(flat.shape), np.empty(flat.shape), np.empty(flat.shape)
        key = np.where(flat >= 0, _bucket_array(flat), -_bucket_array(-flat))
        keys = np.unique(key)
        for b in keys:
            idx: Any = slice(None) if keys.size == 1 else np.flatnonzero(key == b)
            rule = _rule(self.mu, self.p, min(float(b), 0.0), max(float(b), 1.0), 0.0)
            expo = rule.log_w[None, :] + flat[idx, None] * rule.a[None, :]
            c = np.max(expo, axis=1, keepdims=True)
            wt = np.exp(expo - c)
            tot = wt.sum(axis=1)
            wt /= tot[:, None]
            mean = wt @ rule.a
            k0[idx] = c[:, 0] + np.log(tot)
            k1[idx] = mean
            k2[idx] = np.einsum("ij,ij->i", wt, (rule.a[None, :] - mean[:, None]) ** 2)
        sg = 1.0 if self.sign > 0 else -1.0
        shape = t.shape
        return k0.reshape(shape), sg * k1.reshape(shape), k2.reshape(shape)

    def log_g(self, w: ComplexArray) -> ComplexArray:
        r""":math:`\operatorname{Log} G(w)`, elementwise, entries grouped by the rule
        they need (powers of two of :math:`\operatorname{Re} w` and
        :math:`|\operatorname{Im} w|`)."""
        shape = w.shape
        flat = w.reshape(-1)
        out = np.empty(flat.shape, dtype=np.complex128)
        re_key = np.where(
            flat.real >= 0, _bucket_array(flat.real), -_bucket_array(-flat.real)
        )
        # |Im w| in powers of 2 from 16/mu on (below it the Gaussian factor sets
        # the step): a node pays for at most twice its own rule.
        s_abs = np.maximum(np.abs(flat.imag), 16.0 / self.mu)
        s_key = 2.0 ** np.ceil(np.log2(s_abs))
        uniq, inverse = np.unique(re_key + 1j * s_key, return_inverse=True)
        inverse = inverse.reshape(-1)
        for g, key in enumerate(uniq):
            re_b, s_b = key.real, key.imag
            idx = np.flatnonzero(inverse == g)
            rule = _rule(
                self.mu,
                self.p,
                min(float(re_b), 0.0),
                max(float(re_b), 1.0),
                float(s_b),
            )
            rows = max(1, CHUNK // rule.a.size)
            for start in range(0, idx.size, rows):
                part = idx[start : start + rows]
                out[part] = self._log_g_chunk(flat[part], rule)
        return out.reshape(shape)

    @staticmethod
    def _log_g_chunk(w: ComplexArray, rule: _Rule) -> ComplexArray:
        r"""Per node :math:`W[(1+u)^w - 1 - wu] = W\operatorname{expm1}(v) - w(Wu)`,
        :math:`v = wa`, through real functions,
        :math:`W\operatorname{expm1}(v_r)\cos v_i - 2W\sin^2(v_i/2) + i\,e^{\log W +
        v_r}\sin v_i` (no overflow, no cancellation); rows with
        :math:`\max(\log W + v_r) > 30` in log space."""
        vr = w.real[:, None] * rule.a[None, :]
        vi = w.imag[:, None] * rule.a[None, :]
        expo = rule.log_w[None, :] + vr
        with np.errstate(over="ignore", invalid="ignore"):
            ex = np.exp(expo)
            em1 = np.where(
                np.abs(vr) < 1.0,
                rule.w[None, :] * np.expm1(np.minimum(vr, 1.0)),
                ex - rule.w[None, :],
            )
        half = np.sin(0.5 * vi)
        cos_v = 1.0 - 2.0 * half * half
        sin_v = 2.0 * half * np.cos(0.5 * vi)
        with np.errstate(over="ignore", invalid="ignore"):
            re = (em1 * cos_v - 2.0 * rule.w[None, :] * half * half).sum(axis=1)
            im = (ex * sin_v).sum(axis=1)
            out = clog1p(re + 1j * im - w * float(np.sum(rule.wu)))
        big = np.max(expo, axis=1) > 30.0
        if big.any():
            # Terms far above 1: log-sum-exp (no cancellation against the 1).
            c = np.max(expo[big], axis=1, keepdims=True)
            scaled = np.exp(expo[big] - c)
            total = (scaled * cos_v[big]).sum(axis=1) + 1j * (scaled * sin_v[big]).sum(
                axis=1
            )
            out[big] = c[:, 0] + np.log(total)
        return out
