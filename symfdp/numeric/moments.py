r"""Moments, cumulants and truncated power series, in floating point.

The moment :math:`\leftrightarrow` cumulant recursion

.. math::  \kappa_n = m_n - \sum_{k=1}^{n-1} \binom{n-1}{k-1} \kappa_k\, m_{n-k}

(Zheng et al. 2020, App. B) cancels catastrophically for nearly Gaussian laws,
so conversions also return an *error bound* (the same recursion on absolute
values). :func:`exp_series` and :func:`log_series` are the classical
:math:`O(n^2)` recurrences for power series."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

#: Unit roundoff of float64.
EPS: float = float(np.finfo(np.float64).eps)


def cumulants_from_moments(moments: ArrayLike) -> FloatArray:
    r"""Cumulants :math:`\kappa_1..\kappa_n` from raw moments :math:`m_1..m_n`.

    Args:
        moments: ``[m_1, ..., m_n]`` with :math:`m_k = E[X^k]`.

    Returns:
        ``[kappa_1, ..., kappa_n]``.
    """
    m = np.concatenate(([1.0], np.asarray(moments, dtype=np.float64)))
    n = m.size - 1
    kappa = np.zeros(n + 1)
    for r in range(1, n + 1):
        acc = m[r]
        for k in range(1, r):
            acc -= math.comb(r - 1, k - 1) * kappa[k] * m[r - k]
        kappa[r] = acc
    return kappa[1:]


def moments_from_cumulants(kappa: ArrayLike) -> FloatArray:
    r"""Raw moments :math:`m_1..m_n` from cumulants (the inverse recursion).

    .. math::  m_n = \sum_{k=1}^{n} \binom{n-1}{k-1} \kappa_k\, m_{n-k}.
    """
    kap = np.concatenate(([0.0], np.asarray(kappa, dtype=np.float64)))
    n = kap.size - 1
    m = np.zeros(n + 1)
    m[0] = 1.0
    for r in range(1, n + 1):
        m[r] = sum(math.comb(r - 1, k - 1) * kap[k] * m[r - k] for k in range(1, r + 1))
    return m[1:]


def cumulants_from_central_moments(
    mean: float,
    central: ArrayLike,
    central_err: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    r"""Cumulants from the mean and central moments, with an error bound.

    Args:
        mean: :math:`E[X]` (becomes :math:`\kappa_1`).
        central: ``[c_1, ..., c_n]`` with :math:`c_k = E[(X - E X)^k]`; ``c_1`` is
            ignored (taken as 0).
        central_err: Absolute error bounds of ``central`` (default: the
            recursion's rounding only).

    Returns:
        ``(kappa, err)``: the cumulants and an absolute error bound for each.
    """
    c = np.asarray(central, dtype=np.float64).copy()
    n = c.size
    c[0] = 0.0
    cerr = np.zeros(n) if central_err is None else np.asarray(central_err, float)
    m = np.concatenate(([1.0], c))
    me = np.concatenate(([0.0], cerr))
    kappa = np.zeros(n + 1)
    kerr = np.zeros(n + 1)
    for r in range(2, n + 1):
        acc = m[r]
        err = me[r] + EPS * abs(m[r])
        for k in range(2, r - 1):
            b = math.comb(r - 1, k - 1)
            acc -= b * kappa[k] * m[r - k]
            err += b * (
                kerr[k] * abs(m[r - k])
                + abs(kappa[k]) * me[r - k]
                + 2 * EPS * abs(kappa[k] * m[r - k])
            )
        kappa[r] = acc
        kerr[r] = err
    kappa[1] = mean
    kerr[1] = EPS * abs(mean)
    return kappa[1:], kerr[1:]


def cumulants_from_central_rows(central: FloatArray) -> FloatArray:
    r"""Cumulants :math:`\kappa_2..\kappa_n` from central moments ``central[r]``,
    ``r = 2..n``, vectorised over columns (rows 0 and 1 ignored), without error bound.
    """
    order = central.shape[0] - 1
    kappa = np.zeros_like(central)
    for r in range(2, order + 1):
        acc = central[r].copy()
        for k in range(2, r - 1):
            acc -= math.comb(r - 1, k - 1) * kappa[k] * central[r - k]
        kappa[r] = acc
    return kappa[2:]


def central_rows_from_shifted(shifted: FloatArray) -> FloatArray:
    r"""Central moments from moments about a point :math:`c`, vectorised over
    columns: ``shifted[j]`` :math:`= E[(X - c)^j]`, ``j = 0..n`` (row 0 is 1);
    returns rows ``0..n`` with :math:`\mu_0 = 1`, :math:`\mu_1 = 0` and

    .. math::  \mu_r = \sum_{j=0}^{r} \binom{r}{j} E[(X - c)^j]\,(-\delta)^{r-j},
               \qquad \delta = E[X - c].

    Rounding: about :math:`u\,E[(|X - \mu| + |\delta|)^r]` per row, i.e.
    :math:`(1 + |\delta|/\sigma)^r` times that of the central sums themselves;
    callers keep :math:`|\delta|` within a few :math:`\sigma`.
    """
    order = shifted.shape[0] - 1
    delta = shifted[1]
    out = np.zeros_like(shifted)
    out[0] = 1.0
    for r in range(2, order + 1):
        acc = shifted[r].copy()
        neg = -delta
        for j in range(r - 1, -1, -1):
            acc += math.comb(r, j) * shifted[j] * neg
            neg = neg * -delta
        out[r] = acc
    return out


def weighted_cumulants(
    values: ArrayLike,
    weights: ArrayLike,
    order: int,
    *,
    value_err: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    r"""Cumulants of the discrete law :math:`\sum_i w_i \delta_{x_i}` with error
    bounds, from central moments about the weighted mean (two passes).

    Args:
        values: Atoms :math:`x_i`.
        weights: Non-negative weights; normalised here.
        order: Highest cumulant order.
        value_err: Absolute error bounds of the atoms (default ``EPS * |x_i|``).

    Returns:
        ``(kappa, err)`` as in :func:`cumulants_from_central_moments`.
    """
    x = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    xe = EPS * np.abs(x) if value_err is None else np.asarray(value_err, float)
    mean = float(w @ x)
    d = x - mean
    ad = np.abs(d)
    de = xe + EPS * (np.abs(x) + abs(mean))
    central = np.empty(order)
    cerr = np.empty(order)
    power = np.ones_like(d)
    apower = np.ones_like(d)
    for k in range(1, order + 1):
        # E[|d|^{k-1} (k |delta d| + k eps |d|)] bounds the error of E[d^k].
        cerr[k - 1] = k * float(w @ (apower * (de + EPS * ad))) + EPS * float(
            w @ (apower * ad)
        )
        power = power * d
        apower = apower * ad
        central[k - 1] = float(w @ power)
    kappa, err = cumulants_from_central_moments(mean, central, cerr)
    err[0] = float(w @ xe) + EPS * float(w @ np.abs(x))
    return kappa, err


def exp_series(g: ArrayLike) -> FloatArray:
    r"""Coefficients of :math:`\exp(\sum_{j \ge 1} g_j u^j)` up to :math:`u^n`.

    Vectorised over leading axes: ``g[..., j]`` is the coefficient of
    :math:`u^j` (``g[..., 0]`` is ignored). Uses
    :math:`a_0 = 1,\ a_k = \frac1k \sum_{j=1}^{k} j\, g_j\, a_{k-j}`.
    """
    g = np.asarray(g, dtype=np.float64)
    n = g.shape[-1] - 1
    a = np.zeros_like(g)
    a[..., 0] = 1.0
    for k in range(1, n + 1):
        acc = np.zeros(g.shape[:-1])
        for j in range(1, k + 1):
            acc = acc + j * g[..., j] * a[..., k - j]
        a[..., k] = acc / k
    return a


def log_series(
    m: ArrayLike, m_err: ArrayLike | None = None
) -> tuple[FloatArray, FloatArray]:
    r"""Coefficients of :math:`\log(\sum_k m_k u^k)` for :math:`m_0 = 1`, with bounds.

    :math:`c_k = m_k - \frac1k \sum_{j=1}^{k-1} j\, c_j\, m_{k-j}`.

    Args:
        m: ``[1, m_1, ..., m_n]``.
        m_err: Absolute error bounds of ``m`` (default zero).

    Returns:
        ``(c, err)`` with ``c[0] = 0``.
    """
    mm = np.asarray(m, dtype=np.float64)
    me = np.zeros_like(mm) if m_err is None else np.asarray(m_err, float)
    n = mm.size - 1
    c = np.zeros(n + 1)
    ce = np.zeros(n + 1)
    for k in range(1, n + 1):
        acc = mm[k]
        err = me[k] + EPS * abs(mm[k])
        for j in range(1, k):
            acc -= j * c[j] * mm[k - j] / k
            err += j * (ce[j] * abs(mm[k - j]) + abs(c[j]) * me[k - j]) / k
            err += 2 * EPS * j * abs(c[j] * mm[k - j]) / k
        c[k] = acc
        ce[k] = err
    return c, ce
