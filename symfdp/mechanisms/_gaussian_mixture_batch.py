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

#: Largest number of matrix entries (settings x nodes x (order + 1)) per
#: stacked block: its work arrays stay below glibc's 128 KiB mmap threshold,
#: so they are reused from the heap instead of mapped afresh (and page-faulted)
#: at every NumPy call.
_BLOCK = 1 << 16


def log_mix_rows(y: FloatArray, p: FloatArray) -> FloatArray:
    """:func:`~symfdp.mechanisms._logmix.log_mix` with one ``p`` per row
    (``p`` of shape ``(rows, 1)``, ``p < 1``)."""
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
    vals = log_mix_rows(mat, np.asarray(ps, dtype=np.float64)[:, None])
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
        out[far] = log_mix_rows(yf, pf) - pf * yf
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


def _weighted_central(
    x: FloatArray, w: FloatArray, order: int, xe: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The central moments of :func:`~symfdp.numeric.moments.weighted_cumulants`
    on rows: ``(mean, central, bound)`` (``central[:, k-1]`` = :math:`c_k`;
    the bound's two sums per order taken in one pass)."""
    w = w / w.sum(axis=1, keepdims=True)
    mean = np.einsum("ij,ij->i", w, x)
    d = x - mean[:, None]
    ad = np.abs(d)
    de = xe + EPS * (np.abs(x) + np.abs(mean)[:, None])
    # Bound of order k: sum w |d|^(k-1) (k (de + EPS |d|) + EPS |d|).
    slopes = np.stack((w * (de + EPS * ad), w * (EPS * ad)))
    rows = x.shape[0]
    central = np.empty((rows, order))
    cerr = np.empty((rows, order))
    power = np.ones_like(d)
    apower = np.ones_like(d)
    for k in range(1, order + 1):
        parts = np.einsum("ij,kij->ik", apower, slopes)
        cerr[:, k - 1] = k * parts[:, 0] + parts[:, 1]
        power *= d
        apower *= ad
        central[:, k - 1] = np.einsum("ij,ij->i", w, power)
    return mean, central, cerr


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


def _means(
    y: FloatArray, log_w: FloatArray, p: FloatArray, unders: tuple[str, ...]
) -> list[tuple[FloatArray, FloatArray]]:
    """``_gaussian_mixture._mean`` on rows, for each law of ``unders``."""
    w = np.exp(log_w)
    with np.errstate(over="ignore", invalid="ignore"):
        u = p * np.expm1(y)
    out = []
    for under in unders:
        with np.errstate(over="ignore", invalid="ignore"):
            v = lm.log1p_minus(u) if under == "P" else lm.xlog1p_minus(u)
            terms = w * v
        far = ~np.isfinite(terms)
        if far.any():
            log_u = np.log(np.broadcast_to(p, y.shape)[far]) + y[far]
            scale = np.exp(log_w[far] + log_u)
            terms[far] = -scale if under == "P" else scale * (log_u - 1.0)
        out.append((terms.sum(axis=1), 8 * EPS * np.abs(terms).sum(axis=1)))
    return out


def _grid(mu: FloatArray, h: float, order: int) -> tuple[FloatArray, FloatArray]:
    """The trapezoid nodes ``x`` and log-weights of settings sharing the step
    ``h``, one row each (padding: ``x = 0`` with weight 0)."""
    lo = math.floor(-gm.GRID_HALF_WIDTH / h)
    his = np.ceil((mu + gm.GRID_HALF_WIDTH + (order + 1) * mu) / h).astype(np.int64)
    idx = np.arange(lo, int(his.max()) + 1)
    pad = idx[None, :] > his[:, None]
    x = np.where(pad, 0.0, idx * h)
    log_w = -0.5 * x * x - 0.5 * math.log(2 * math.pi) + math.log(h)
    log_w[pad] = -np.inf
    return x, log_w


def _blocks(mu: FloatArray, order: int) -> list[tuple[NDArray[np.intp], float]]:
    """Row indices of the settings ``mu > 0`` in blocks of one step ``h`` and at
    most :data:`_BLOCK` work entries, with their step."""
    regular = mu > 0
    steps = np.zeros(mu.shape)
    steps[regular] = gm.x_grid_steps(mu[regular], np.zeros(int(regular.sum())))
    out = []
    for h in np.unique(steps[regular]):
        rows = np.flatnonzero(regular & (steps == h))
        width = int(np.ceil((mu[rows].max() * (order + 2) + 28.0) / h)) + 2
        per = max(1, _BLOCK // (width * (order + 1)))
        out += [(rows[i : i + per], float(h)) for i in range(0, rows.size, per)]
    return out


def subsampled_gaussian_cumulants_many(
    mu: FloatArray, p: FloatArray, order: int, unders: tuple[str, ...] = ("P", "Q")
) -> FloatArray:
    """Add-pair cumulants :math:`\\kappa_1..\\kappa_{order}` of every setting
    ``(mu[i], p[i])`` under each law of ``unders``; shape
    ``(len(unders), len(mu), order)``.

    The moment route's central moments (one grid and one ``log_mix`` per block
    for every law), turned into cumulants for all rows at once; the shift route
    where its bound is better; settings whose bound on some order still exceeds
    :data:`~symfdp.mechanisms._gaussian_mixture.FALLBACK_RTOL` are computed by
    :func:`~symfdp.mechanisms._gaussian_mixture.subsampled_gaussian_cumulants`.
    ``mu = 0`` gives zeros (as ``SubsampledGaussian._add_cumulants``).
    """
    mu = np.asarray(mu, dtype=np.float64).reshape(-1)
    p = np.asarray(p, dtype=np.float64).reshape(-1)
    laws = len(unders)
    mean = np.zeros((laws, mu.size))
    central = np.ones((laws, mu.size, order))
    cerr = np.zeros((laws, mu.size, order))
    first = np.zeros((laws, mu.size))
    first_err = np.zeros((laws, mu.size))
    blocks = _blocks(mu, order)
    for sel, h in blocks:
        x, log_w = _grid(mu[sel], h, order)
        mu2, p2 = mu[sel, None], p[sel, None]
        y = mu2 * x - mu2 * mu2 / 2
        vals = log_mix_rows(y, p2)
        vals_err = 4 * EPS * np.abs(vals)
        for j, under in enumerate(unders):
            # Q-weights w e^{L} in log space: e^{L} alone overflows for large mu.
            weights = np.exp(log_w if under == "P" else log_w + vals)
            mean[j, sel], central[j, sel], cerr[j, sel] = _weighted_central(
                vals, weights, order, vals_err
            )
        for j, (m1, e1) in enumerate(_means(y, log_w, p2, unders)):
            first[j, sel], first_err[j, sel] = m1, e1
    out = np.zeros((laws, mu.size, order))
    regular = mu > 0
    for j, under in enumerate(unders):
        kappa, err = _central_to_cumulants(mean[j], central[j], cerr[j])
        # Gaussian-shift route where mu allows it and the moments lose digits.
        near = regular & (mu <= gm.SHIFT_MU_MAX) & gm.needs_shift(kappa, err)
        for sel, h in blocks:
            sub = sel[near[sel]]
            if sub.size == 0:
                continue
            x, log_w = _grid(mu[sub], h, order)
            k_sh, e_sh = _shift_route(
                x, log_w, mu[sub, None], p[sub, None], order, under
            )
            use = e_sh < err[sub]
            kappa[sub] = np.where(use, k_sh, kappa[sub])
            err[sub] = np.where(use, e_sh, err[sub])
        kappa[:, 0], err[:, 0] = first[j], first_err[j]
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(kappa != 0, err / np.abs(kappa), np.inf)
        bad = regular & np.any(rel > gm.FALLBACK_RTOL, axis=1)
        for i in np.flatnonzero(bad):
            kappa[i] = gm.subsampled_gaussian_cumulants(
                float(mu[i]), float(p[i]), order, under
            )[0]
        out[j, regular] = kappa[regular]
    return out
