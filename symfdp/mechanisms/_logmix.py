r"""Tail-stable elementary functions of Poisson subsampling.

The add-pair loss is :math:`\ell(y) = \log(q + p\, e^{y})`, :math:`q = 1 - p`,
of the base loss :math:`y = L_b` (Zheng et al. 2020, Lemma C.1). Every function
keeps full *relative* precision for :math:`p \in [10^{-16}, 1]` and :math:`|y|`
up to the overflow range."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

FloatArray = NDArray[np.float64]

#: The remainders' Taylor series are summed for :math:`|x|` below these edges
#: (``expm1_minus``: 0.5; the logarithms: 0.25), with as many terms as the
#: band's largest :math:`|x|` needs.
_BAND_EDGES = (2.0**-12, 2.0**-6, 2.0**-3, 2.0**-2, 2.0**-1)
#: Relative size of the first term left out of a band's sum.
_SERIES_TOL = 2.0**-56


def _band_terms(coeffs: FloatArray) -> tuple[int, ...]:
    """Terms of ``sum_j coeffs[j] x^j`` needed for each band of
    :data:`_BAND_EDGES`: the first left out, :math:`|c_J| b^J`, is below
    :data:`_SERIES_TOL` times :math:`|c_0|` (the coefficients decrease, the
    terms geometrically)."""
    out = []
    for b in _BAND_EDGES:
        size = np.abs(coeffs) * b ** np.arange(coeffs.size)
        small = np.flatnonzero(size < _SERIES_TOL * abs(coeffs[0]))
        out.append(int(small[0]) if small.size else coeffs.size)
    return tuple(out)


def _series(x: FloatArray, coeffs: FloatArray, terms: tuple[int, ...]) -> FloatArray:
    r""":math:`x^2 \sum_{j<J} c_j x^j` by Horner's rule, :math:`J` from ``terms``
    by the band of :data:`_BAND_EDGES` each :math:`|x|` falls in (only entries
    below the last band edge used by ``terms``)."""
    band = np.searchsorted(np.asarray(_BAND_EDGES), np.abs(x), side="right")
    out = np.empty_like(x)
    for j, count in enumerate(terms):
        sel = band == j
        if not sel.any():
            continue
        xs = x[sel]
        acc = np.full_like(xs, coeffs[count - 1])
        for c in coeffs[count - 2 :: -1]:
            acc *= xs
            acc += c
        out[sel] = acc * (xs * xs)
    return out


_K = np.arange(64, dtype=np.float64)
#: :math:`e^x - 1 - x = x^2 \sum_j x^j / (j+2)!`.
_EXPM1_COEFFS = np.exp(-special.gammaln(_K + 3.0))
_EXPM1_TERMS = _band_terms(_EXPM1_COEFFS)
#: :math:`\log(1+u) - u = u^2 \sum_j (-1)^{j+1} u^j / (j+2)`.
_LOG1P_COEFFS = (-1.0) ** (_K + 1) / (_K + 2)
_LOG1P_TERMS = _band_terms(_LOG1P_COEFFS)[:4]
#: :math:`(1+u)\log(1+u) - u = u^2 \sum_j (-1)^j u^j / ((j+1)(j+2))`.
_XLOG1P_COEFFS = (-1.0) ** _K / ((_K + 1) * (_K + 2))
_XLOG1P_TERMS = _band_terms(_XLOG1P_COEFFS)[:4]


def _flat(fn: Callable[..., FloatArray]) -> Callable[..., FloatArray]:
    """Evaluate ``fn`` on a flat float64 copy and restore the input's shape."""

    @functools.wraps(fn)
    def wrapper(x: ArrayLike, *args: float) -> FloatArray:
        arr = np.asarray(x, dtype=np.float64)
        return fn(arr.reshape(-1), *args).reshape(arr.shape)

    return wrapper


@_flat
def expm1_minus(x: ArrayLike) -> FloatArray:
    r""":math:`e^x - 1 - x \ge 0`, accurate to full relative precision (Taylor
    series for :math:`|x| < 1/2`)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        out = np.expm1(x) - x
    small = np.abs(x) < _BAND_EDGES[len(_EXPM1_TERMS) - 1]
    if small.any():
        out[small] = _series(x[small], _EXPM1_COEFFS, _EXPM1_TERMS)
    return cast(FloatArray, out)


@_flat
def log1p_minus(u: ArrayLike) -> FloatArray:
    r""":math:`\log(1+u) - u \le 0` for :math:`u > -1`, full relative precision
    (Taylor series for :math:`|u| < 1/4`)."""
    u = np.asarray(u, dtype=np.float64)
    with np.errstate(divide="ignore"):
        out = np.log1p(u) - u
    small = np.abs(u) < _BAND_EDGES[len(_LOG1P_TERMS) - 1]
    if small.any():
        out[small] = _series(u[small], _LOG1P_COEFFS, _LOG1P_TERMS)
    return cast(FloatArray, out)


@_flat
def xlog1p_minus(u: ArrayLike) -> FloatArray:
    r""":math:`(1+u)\log(1+u) - u \ge 0` for :math:`u \ge -1`, full relative
    precision (series :math:`\sum_{k \ge 2} (-1)^k u^k / (k(k-1))` for
    :math:`|u| < 1/4`)."""
    u = np.asarray(u, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(u > -1, (1 + u) * np.log1p(u) - u, 1.0)
    small = np.abs(u) < _BAND_EDGES[len(_XLOG1P_TERMS) - 1]
    if small.any():
        out[small] = _series(u[small], _XLOG1P_COEFFS, _XLOG1P_TERMS)
    return out


def _log_q(p: float) -> float:
    return math.log1p(-p) if p < 1 else -math.inf


@_flat
def log_mix(y: ArrayLike, p: float) -> FloatArray:
    r""":math:`\ell(y) = \log(1 - p + p e^{y})`, tail-stable in :math:`y` and :math:`p`:
    ``log1p(p * expm1(y))`` where :math:`1 - p + p e^y > 1/2`, else ``logaddexp``."""
    y = np.asarray(y, dtype=np.float64)
    if p == 1.0:
        return y.astype(np.float64, copy=True)
    with np.errstate(over="ignore"):
        u = p * np.expm1(y)
        out = np.log1p(u)
    big = y > 30.0
    if big.any():
        # log(p e^y (1 + q e^{-y}/p)) = y + log p + log1p(q e^{-y} / p)
        yb = y[big]
        out[big] = yb + math.log(p) + np.log1p((1 - p) * np.exp(-yb) / p)
    low = u < -0.5
    if low.any():
        out[low] = np.logaddexp(_log_q(p), math.log(p) + y[low])
    return cast(FloatArray, out)


@_flat
def log_mix_inverse(s: ArrayLike, p: float) -> FloatArray:
    r"""Inverse of :func:`log_mix`: :math:`y = \log((e^s - 1 + p)/p)`; ``-inf``
    for :math:`s \le \log(1-p)`; tail-stable at both ends."""
    s = np.asarray(s, dtype=np.float64)
    if p == 1.0:
        return s.astype(np.float64, copy=True)
    return log_mix_inverse_rows(s, p, _log_q(p), math.log(p))


def log_mix_inverse_rows(
    s: FloatArray,
    p: FloatArray | float,
    log_q: FloatArray | float,
    log_p: FloatArray | float,
) -> FloatArray:
    r""":func:`log_mix_inverse` of a float64 array ``s`` with ``p < 1`` given
    per entry (arrays of the shape of ``s``) or for all, and with it
    :math:`\log(1 - p)` and :math:`\log p` (computed by the caller as
    :func:`log_mix_inverse` does: the same values entry by entry)."""
    out = np.full(s.shape, -np.inf)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        v = np.expm1(s) / p
        mid = (v > -0.5) & (s <= 30.0)
        out[mid] = np.log1p(v[mid])
        big = s > 30.0
        if big.any():
            sb = s[big]
            pb = _entries(p, big)
            out[big] = sb - _entries(log_p, big) + np.log1p(-(1 - pb) * np.exp(-sb))
        low = (v <= -0.5) & (s > log_q)
        if low.any():
            sl = s[low]
            lq = _entries(log_q, low)
            out[low] = lq - _entries(log_p, low) + np.log(np.expm1(sl - lq))
    return out


def _entries(a: FloatArray | float, mask: NDArray[np.bool_]) -> FloatArray | float:
    """``a[mask]`` for an array, ``a`` for a scalar."""
    return a[mask] if isinstance(a, np.ndarray) else a


@_flat
def log_mix_remainder(y: ArrayLike, p: float) -> FloatArray:
    r""":math:`F_0(y) = \ell(y) - p y \ge 0`, the non-linear part of :math:`\ell`;
    for :math:`|y| \le 30` the sum of non-negative terms
    :math:`\log(1 + q\,(e^{-py} - 1 + py) + p\,(e^{qy} - 1 - qy))`."""
    y = np.asarray(y, dtype=np.float64)
    q = 1.0 - p
    out = np.empty_like(y)
    mid = np.abs(y) <= 30.0
    ym = y[mid]
    out[mid] = np.log1p(q * expm1_minus(-p * ym) + p * expm1_minus(q * ym))
    far = ~mid
    out[far] = log_mix(y[far], p) - p * y[far]
    return out


@_flat
def log_mix_slope_minus_p(y: ArrayLike, p: float) -> FloatArray:
    r""":math:`F_1(y) = \ell'(y) - p = pq(e^y - 1)/(q + p e^y)`, no cancellation."""
    y = np.asarray(y, dtype=np.float64)
    q = 1.0 - p
    out = np.empty_like(y)
    pos = y > 0
    yp = y[pos]
    out[pos] = p * q * (-np.expm1(-yp)) / (q * np.exp(-yp) + p)
    yn = y[~pos]
    out[~pos] = p * q * np.expm1(yn) / (q + p * np.exp(yn))
    return out


def logistic_derivative_monomials(order: int) -> list[dict[tuple[int, int], int]]:
    r"""Derivatives of the logistic :math:`s(z) = 1/(1+e^{-z})` as monomials:
    for :math:`m = 0..order-1` the integer coefficients of
    :math:`s^{(m)} = \sum c_{ab}\, s^a (1-s)^b`, from :math:`s' = s(1-s)`."""
    out: list[dict[tuple[int, int], int]] = []
    poly: dict[tuple[int, int], int] = {(1, 0): 1}
    for _ in range(order):
        out.append(poly)
        new: dict[tuple[int, int], int] = {}
        for (a, b), c in poly.items():
            if a:
                new[(a, b + 1)] = new.get((a, b + 1), 0) + a * c
            if b:
                new[(a + 1, b)] = new.get((a + 1, b), 0) - b * c
        poly = {k: v for k, v in new.items() if v != 0}
    return out


def logistic_derivatives(
    z: ArrayLike, order: int
) -> tuple[list[FloatArray], list[FloatArray]]:
    r"""Values of :math:`s^{(m)}(z)`, :math:`m = 0..order-1`, and the sums
    :math:`\sum |c_{ab}| s^a \bar s^b` that bound their rounding errors."""
    z = np.asarray(z, dtype=np.float64)
    s = special.expit(z)
    sc = special.expit(-z)
    vals: list[FloatArray] = []
    scales: list[FloatArray] = []
    for poly in logistic_derivative_monomials(order):
        v = np.zeros_like(z)
        a_sum = np.zeros_like(z)
        for (a, b), c in poly.items():
            term = c * s**a * sc**b
            v = v + term
            a_sum = a_sum + np.abs(term)
        vals.append(v)
        scales.append(a_sum)
    return vals, scales
