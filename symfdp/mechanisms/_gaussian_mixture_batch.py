r"""Subsampled-Gaussian cumulants of many ``(mu, p)`` settings in one NumPy pass.

The routes, grids and error bounds of
:func:`symfdp.mechanisms._gaussian_mixture.subsampled_gaussian_cumulants`,
evaluated for a whole array of settings at once: the trapezoid nodes of the
settings that share a step :math:`h` are stacked into one matrix (rows padded
with zero-weight copies of the node :math:`x = 0`), and every sum runs along
its rows. The results agree with the one-setting function up to the order of
summation (a few ulps). Settings whose bound asks for extended precision, or
``mu = 0`` (zeros), are left to the one-setting function, row by row.

Domain: ``mu >= 0``, ``0 < p < 1`` (``p = 1`` is the Gaussian's closed form,
served by the mechanism); accuracy as the one-setting function.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import special

from symfdp.mechanisms import _gaussian_mixture as gm
from symfdp.mechanisms import _logmix as lm
from symfdp.numeric.moments import EPS

FloatArray = NDArray[np.float64]

#: Largest number of matrix entries (settings x nodes) per stacked block.
_BLOCK = 1 << 17


def _step(mu: float) -> float:
    """The trapezoid step :func:`~symfdp.mechanisms._gaussian_mixture.x_grid`
    takes for ``mu`` (no tilt)."""
    h = gm.GRID_MAX_STEP
    if mu > 0:
        h_max = min(gm.GRID_MU_STEP, gm.GRID_TILT_STEP) / mu
        while h > h_max:
            h /= 2
    return h


def _log_mix(y: FloatArray, p: FloatArray) -> FloatArray:
    """:func:`~symfdp.mechanisms._logmix.log_mix` with one ``p`` per row."""
    log_p = np.log(p)
    log_q = np.log1p(-p)
    with np.errstate(over="ignore"):
        u = p * np.expm1(y)
        out = np.log1p(u)
    big = y > 30.0
    if big.any():
        pb = np.broadcast_to(p, y.shape)[big]
        yb = y[big]
        out[big] = yb + np.log(pb) + np.log1p((1 - pb) * np.exp(-yb) / pb)
    low = u < -0.5
    if low.any():
        out[low] = np.logaddexp(
            np.broadcast_to(log_q, y.shape)[low],
            np.broadcast_to(log_p, y.shape)[low] + y[low],
        )
    return out


def stacked_log_mix(ys: list[FloatArray], ps: list[float]) -> list[FloatArray]:
    """:func:`~symfdp.mechanisms._logmix.log_mix` of every ``(ys[i], ps[i])``,
    ``ps[i] < 1``, in one NumPy pass (the arrays padded into a matrix)."""
    width = max((y.size for y in ys), default=0)
    mat = np.zeros((len(ys), width))
    for row, y in enumerate(ys):
        mat[row, : y.size] = y
    vals = _log_mix(mat, np.asarray(ps, dtype=np.float64)[:, None])
    return [vals[row, : y.size] for row, y in enumerate(ys)]


def _log_mix_remainder(y: FloatArray, p: FloatArray) -> FloatArray:
    """:func:`~symfdp.mechanisms._logmix.log_mix_remainder`, one ``p`` per row."""
    q = 1.0 - p
    mid = np.abs(y) <= 30.0
    pb = np.broadcast_to(p, y.shape)
    qb = np.broadcast_to(q, y.shape)
    out = np.empty_like(y)
    ym, pm, qm = y[mid], pb[mid], qb[mid]
    out[mid] = np.log1p(qm * lm.expm1_minus(-pm * ym) + pm * lm.expm1_minus(qm * ym))
    far = ~mid
    if far.any():
        yf, pf = y[far], pb[far]
        out[far] = _log_mix(yf, pf) - pf * yf
    return out


def _log_mix_slope_minus_p(y: FloatArray, p: FloatArray) -> FloatArray:
    """:func:`~symfdp.mechanisms._logmix.log_mix_slope_minus_p`, one ``p`` per row."""
    pb = np.broadcast_to(p, y.shape)
    qb = 1.0 - pb
    out = np.empty_like(y)
    pos = y > 0
    yp, pp, qp = y[pos], pb[pos], qb[pos]
    out[pos] = pp * qp * (-np.expm1(-yp)) / (qp * np.exp(-yp) + pp)
    neg = ~pos
    yn, pn, qn = y[neg], pb[neg], qb[neg]
    out[neg] = pn * qn * np.expm1(yn) / (qn + pn * np.exp(yn))
    return out


def _central_to_cumulants(
    mean: FloatArray, c: FloatArray, cerr: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """:func:`~symfdp.numeric.moments.cumulants_from_central_moments` on rows
    (``c[:, k-1]`` = :math:`c_k`)."""
    rows, n = c.shape
    m = np.concatenate((np.ones((rows, 1)), c), axis=1)
    m[:, 1] = 0.0
    me = np.concatenate((np.zeros((rows, 1)), cerr), axis=1)
    kappa = np.zeros((rows, n + 1))
    kerr = np.zeros((rows, n + 1))
    for r in range(2, n + 1):
        acc = m[:, r].copy()
        err = me[:, r] + EPS * np.abs(m[:, r])
        for k in range(2, r - 1):
            b = math.comb(r - 1, k - 1)
            acc -= b * kappa[:, k] * m[:, r - k]
            err += b * (
                kerr[:, k] * np.abs(m[:, r - k])
                + np.abs(kappa[:, k]) * me[:, r - k]
                + 2 * EPS * np.abs(kappa[:, k] * m[:, r - k])
            )
        kappa[:, r] = acc
        kerr[:, r] = err
    kappa[:, 1] = mean
    kerr[:, 1] = EPS * np.abs(mean)
    return kappa[:, 1:], kerr[:, 1:]


def _weighted_cumulants(
    x: FloatArray, w: FloatArray, order: int, xe: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """:func:`~symfdp.numeric.moments.weighted_cumulants` on rows."""
    w = w / w.sum(axis=1, keepdims=True)
    mean = np.einsum("ij,ij->i", w, x)
    d = x - mean[:, None]
    ad = np.abs(d)
    de = xe + EPS * (np.abs(x) + np.abs(mean)[:, None])
    rows = x.shape[0]
    central = np.empty((rows, order))
    cerr = np.empty((rows, order))
    power = np.ones_like(d)
    apower = np.ones_like(d)
    for k in range(1, order + 1):
        cerr[:, k - 1] = k * np.einsum(
            "ij,ij->i", w, apower * (de + EPS * ad)
        ) + EPS * np.einsum("ij,ij->i", w, apower * ad)
        power = power * d
        apower = apower * ad
        central[:, k - 1] = np.einsum("ij,ij->i", w, power)
    kappa, err = _central_to_cumulants(mean, central, cerr)
    err[:, 0] = np.einsum("ij,ij->i", w, xe) + EPS * np.einsum("ij,ij->i", w, np.abs(x))
    return kappa, err


def _log_series(m: FloatArray, me: FloatArray) -> tuple[FloatArray, FloatArray]:
    """:func:`~symfdp.numeric.moments.log_series` on rows."""
    rows, width = m.shape
    n = width - 1
    c = np.zeros((rows, n + 1))
    ce = np.zeros((rows, n + 1))
    for k in range(1, n + 1):
        acc = m[:, k].copy()
        err = me[:, k] + EPS * np.abs(m[:, k])
        for j in range(1, k):
            acc -= j * c[:, j] * m[:, k - j] / k
            err += (
                j
                * (ce[:, j] * np.abs(m[:, k - j]) + np.abs(c[:, j]) * me[:, k - j])
                / k
            )
            err += 2 * EPS * j * np.abs(c[:, j] * m[:, k - j]) / k
        c[:, k] = acc
        ce[:, k] = err
    return c, ce


def _exp_series(g: FloatArray) -> FloatArray:
    """:func:`~symfdp.numeric.moments.exp_series` with the coefficient index in
    the leading axis (the same operations)."""
    n = g.shape[0] - 1
    a = np.zeros_like(g)
    a[0] = 1.0
    jg = [j * g[j] for j in range(n + 1)]
    term = np.empty(g.shape[1:])
    for k in range(1, n + 1):
        acc = np.zeros(g.shape[1:])
        for j in range(1, k + 1):
            np.multiply(jg[j], a[k - j], out=term)
            acc += term
        np.divide(acc, k, out=a[k])
    return a


def _logistic_derivatives(
    z: FloatArray, order: int
) -> tuple[list[FloatArray], list[FloatArray]]:
    """:func:`~symfdp.mechanisms._logmix.logistic_derivatives` with the powers of
    :math:`s` and :math:`1 - s` computed once (the same operations)."""
    s = special.expit(z)
    sc = special.expit(-z)
    pow_s: dict[int, FloatArray] = {}
    pow_c: dict[int, FloatArray] = {}
    vals: list[FloatArray] = []
    scales: list[FloatArray] = []
    term = np.empty_like(z)
    for poly in lm.logistic_derivative_monomials(order):
        v = np.zeros_like(z)
        a_sum = np.zeros_like(z)
        for (a, b), c in poly.items():
            if a not in pow_s:
                pow_s[a] = s**a
            if b not in pow_c:
                pow_c[b] = sc**b
            np.multiply(c, pow_s[a], out=term)
            term *= pow_c[b]
            v += term
            np.abs(term, out=term)
            a_sum += term
        vals.append(v)
        scales.append(a_sum)
    return vals, scales


def _shift_route(
    x: FloatArray,
    log_w: FloatArray,
    mu: FloatArray,
    p: FloatArray,
    order: int,
    under: str,
) -> tuple[FloatArray, FloatArray]:
    """The Gaussian-shift route of ``_gaussian_mixture._shift_route`` on rows."""
    t0 = 0.0 if under == "P" else 1.0
    c = p * mu * mu
    y0 = mu * x - mu * mu / 2 + t0 * c
    f = [_log_mix_remainder(y0, p)]
    fa = [np.abs(f[0])]
    if order >= 1:
        f.append(_log_mix_slope_minus_p(y0, p))
        fa.append(np.abs(f[1]))
    if order >= 2:
        z = y0 + (np.log(p) - np.log1p(-p))
        vals, scales = _logistic_derivatives(z, order)
        for m in range(2, order + 1):
            f.append(vals[m - 1])
            fa.append(scales[m - 1])
    rows, n = x.shape
    # Coefficient j in the leading axis (contiguous planes).
    g = np.zeros((order + 1, rows, n))
    ga = np.zeros((order + 1, rows, n))
    for j in range(order + 1):
        cj = c**j / math.factorial(j)
        g[j] = t0 * f[j] * cj
        ga[j] = t0 * fa[j] * cj
        if j >= 1:
            cj1 = c ** (j - 1) / math.factorial(j - 1)
            g[j] += f[j - 1] * cj1
            ga[j] += fa[j - 1] * cj1
    lw = log_w + t0 * g[0]
    w = np.exp(lw - lw.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    g[0] = 0.0
    ga[0] = 0.0
    a = _exp_series(g)
    a_abs = _exp_series(ga)
    mom = np.einsum("ij,kij->ik", w, a)
    m_err = (5 * np.arange(order + 1) + 2) * EPS * np.einsum("ij,kij->ik", w, a_abs)
    coef, coef_err = _log_series(mom, m_err)
    mu1 = mu[:, 0]
    p1 = p[:, 0]
    lin = -p1 * mu1 * mu1 / 2 + t0 * p1 * p1 * mu1 * mu1
    quad = p1 * p1 * mu1 * mu1 / 2
    kappa = np.empty((rows, order))
    err = np.empty((rows, order))
    for r in range(1, order + 1):
        v, e = coef[:, r], coef_err[:, r]
        if r == 1:
            v, e = v + lin, e + EPS * np.abs(lin)
        elif r == 2:
            v, e = v + quad, e + EPS * np.abs(quad)
        kappa[:, r - 1] = v * math.factorial(r)
        err[:, r - 1] = e * math.factorial(r)
    return kappa, err


def _mean(
    y: FloatArray, log_w: FloatArray, p: FloatArray, under: str
) -> tuple[FloatArray, FloatArray]:
    """``_gaussian_mixture._mean`` on rows."""
    w = np.exp(log_w)
    with np.errstate(over="ignore", invalid="ignore"):
        u = p * np.expm1(y)
        v = lm.log1p_minus(u) if under == "P" else lm.xlog1p_minus(u)
        terms = w * v
    far = ~np.isfinite(terms)
    if far.any():
        log_u = np.log(np.broadcast_to(p, y.shape)[far]) + y[far]
        scale = np.exp(log_w[far] + log_u)
        terms[far] = -scale if under == "P" else scale * (log_u - 1.0)
    return terms.sum(axis=1), 8 * EPS * np.abs(terms).sum(axis=1)


def _block(
    mu: FloatArray, p: FloatArray, h: float, order: int, under: str
) -> tuple[FloatArray, FloatArray]:
    """Cumulants and relative bounds of settings sharing the step ``h``."""
    lo = math.floor(-gm.GRID_HALF_WIDTH / h)
    his = np.ceil((mu + gm.GRID_HALF_WIDTH + (order + 1) * mu) / h).astype(np.int64)
    idx = np.arange(lo, int(his.max()) + 1)
    pad = idx[None, :] > his[:, None]
    x = np.where(pad, 0.0, idx * h)
    log_w = -0.5 * x * x - 0.5 * math.log(2 * math.pi) + math.log(h)
    log_w[pad] = -np.inf
    mu2, p2 = mu[:, None], p[:, None]
    y = mu2 * x - mu2 * mu2 / 2
    # Moment route.
    vals = _log_mix(y, p2)
    with np.errstate(invalid="ignore"):
        weights = np.exp(log_w if under == "P" else log_w + vals)
    weights[pad] = 0.0
    k_mom, e_mom = _weighted_cumulants(vals, weights, order, 4 * EPS * np.abs(vals))
    # Gaussian-shift route where mu allows it.
    kappa, err = k_mom, e_mom
    near = (mu <= gm.SHIFT_MU_MAX) & gm.needs_shift(k_mom, e_mom)
    if near.any():
        k_sh, e_sh = _shift_route(
            x[near], log_w[near], mu2[near], p2[near], order, under
        )
        use = e_sh < e_mom[near]
        kappa[near] = np.where(use, k_sh, k_mom[near])
        err[near] = np.where(use, e_sh, e_mom[near])
    kappa[:, 0], err[:, 0] = _mean(y, log_w, p2, under)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(kappa != 0, err / np.abs(kappa), np.inf)
    return kappa, rel


def subsampled_gaussian_cumulants_many(
    mu: FloatArray, p: FloatArray, order: int, under: str
) -> FloatArray:
    """Add-pair cumulants :math:`\\kappa_1..\\kappa_{order}` under ``under`` of
    every setting ``(mu[i], p[i])``; shape ``(len(mu), order)``.

    Settings with ``mu = 0`` or an order whose float64 bound exceeds
    :data:`~symfdp.mechanisms._gaussian_mixture.FALLBACK_RTOL` are computed by
    :func:`~symfdp.mechanisms._gaussian_mixture.subsampled_gaussian_cumulants`
    (mu = 0: zeros, as ``SubsampledGaussian._add_cumulants``).
    """
    mu = np.asarray(mu, dtype=np.float64).reshape(-1)
    p = np.asarray(p, dtype=np.float64).reshape(-1)
    out = np.empty((mu.size, order))
    regular = mu > 0
    single = np.flatnonzero(~regular)
    steps = np.array([_step(float(m)) for m in mu])
    for h in np.unique(steps[regular]):
        rows = np.flatnonzero(regular & (steps == h))
        width = int(np.ceil((mu[rows].max() * (order + 2) + 28.0) / h)) + 2
        per = max(1, _BLOCK // (width * (order + 1)))
        for start in range(0, rows.size, per):
            sel = rows[start : start + per]
            kappa, rel = _block(mu[sel], p[sel], float(h), order, under)
            out[sel] = kappa
            bad = np.any(rel > gm.FALLBACK_RTOL, axis=1)
            single = np.concatenate((single, sel[bad]))
    for i in single:
        if mu[i] == 0.0:
            out[i] = 0.0
        else:
            out[i] = gm.subsampled_gaussian_cumulants(
                float(mu[i]), float(p[i]), order, under
            )[0]
    return out
