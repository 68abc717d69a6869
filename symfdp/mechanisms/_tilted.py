"""Moments of a discrete law tilted by :math:`e^{tl}`, in log space."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def tilted_cgf(
    nodes: ArrayLike, log_weights: ArrayLike, t: ArrayLike, *, chunk: int = 4_000_000
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""``(K, K', K'')`` of a discrete law at each ``t``, in log space:
    :math:`K(t) = \log \sum_i e^{\log w_i + t l_i}`, :math:`K'` and :math:`K''` the
    mean and variance under the tilted weights (no cancellation); chunked over ``t``."""
    l = np.asarray(nodes, dtype=np.float64)
    logw = np.asarray(log_weights, dtype=np.float64)
    ts = np.asarray(t, dtype=np.float64)
    flat = ts.reshape(-1)
    k0 = np.empty(flat.size)
    k1 = np.empty(flat.size)
    k2 = np.empty(flat.size)
    step = max(1, chunk // max(l.size, 1))
    for start in range(0, flat.size, step):
        tt = flat[start : start + step, None]
        with np.errstate(invalid="ignore"):
            a = logw[None, :] + tt * l[None, :]
        a = np.where(np.isnan(a), -np.inf, a)
        amax = a.max(axis=1, keepdims=True)
        e = np.exp(a - amax)
        s = e.sum(axis=1)
        wt = e / s[:, None]
        m1 = wt @ l
        k0[start : start + step] = amax[:, 0] + np.log(s)
        k1[start : start + step] = m1
        k2[start : start + step] = (wt * (l[None, :] - m1[:, None]) ** 2).sum(axis=1)
    shape = ts.shape
    return k0.reshape(shape), k1.reshape(shape), k2.reshape(shape)


def tilted_abs_moment3(
    nodes: ArrayLike, log_weights: ArrayLike, t: ArrayLike, *, chunk: int = 4_000_000
) -> tuple[FloatArray, FloatArray]:
    r"""Mean and :math:`E|l - \text{mean}|^3` of a discrete law tilted by
    :math:`e^{tl}`, at each ``t``, with weights normalised in log space;
    non-finite nodes (atoms at infinity) are left out. Chunked like
    :func:`tilted_cgf`."""
    l = np.asarray(nodes, dtype=np.float64)
    logw = np.asarray(log_weights, dtype=np.float64)
    keep = np.isfinite(l)
    l, logw = l[keep], logw[keep]
    ts = np.asarray(t, dtype=np.float64)
    flat = ts.reshape(-1)
    mean = np.empty(flat.size)
    m3 = np.empty(flat.size)
    for block, w in tilted_weight_blocks(l, logw, flat, chunk):
        mu = w @ l
        mean[block] = mu
        m3[block] = (w * np.abs(l[None, :] - mu[:, None]) ** 3).sum(1)
    return mean.reshape(ts.shape), m3.reshape(ts.shape)


def tilted_weight_blocks(
    nodes: FloatArray, log_weights: FloatArray, t: FloatArray, chunk: int
) -> Iterator[tuple[slice, FloatArray]]:
    r"""The normalised tilted weights :math:`\tilde w_{ij} \propto e^{\log w_j +
    t_i l_j}` of finite ``nodes`` for the 1-d ``t``, in blocks of at most
    ``chunk`` entries (tilts x nodes): ``(slice of t, weights)`` per block, each
    row shifted by its maximum before the exponential (no overflow)."""
    step = max(1, chunk // max(nodes.size, 1))
    for start in range(0, t.size, step):
        a = log_weights[None, :] + t[start : start + step, None] * nodes[None, :]
        a = a - a.max(axis=1, keepdims=True)
        w = np.exp(a)
        w /= w.sum(axis=1, keepdims=True)
        yield slice(start, start + step), w
