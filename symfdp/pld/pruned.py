r"""Component spectra at the few frequencies that carry a composition.

The composed spectrum :math:`\Pi_k = \prod_i A_i(\theta_k)^{n_i}`,
:math:`\theta_k = 2\pi k / N`, of a long composition is negligible
(:math:`\le e^{-700}`) at all but a few hundred of the :math:`N/2 + 1`
frequencies of the window: a composed loss of standard deviation
:math:`s_T` lattice steps has :math:`|\Pi_k| \approx e^{-s_T^2\theta_k^2/2}`.
:func:`pruned_spectra` certifies which frequencies those are, from bounds on
every :math:`|A_i|` that need no length-:math:`N` FFT, and computes the
:math:`A_i` there only (:mod:`symfdp.pld.compose` flushes the others to 0,
an error of at most :math:`e^{-700}` each).

**Bounds on** :math:`|A_i|`. For Q-masses :math:`q_j \ge 0` at lattice offsets
:math:`x_j = j - c` (:math:`c` an integer near the mean),
:math:`g(\theta) = |A(\theta)|^2 = \sum_{j,l} q_j q_l \cos((x_j - x_l)\theta)`.

* Quartic: :math:`1 - \cos y \ge y^2/2 - y^4/24` for all real :math:`y` gives
  :math:`g(\theta) \le Q_0^2 - M_2\theta^2/2 + M_4\theta^4/24` with
  :math:`Q_0 = \sum_j q_j`, :math:`M_2 = \sum_{j,l} q_j q_l (x_j - x_l)^2 =
  2(Q_0 S_2 - S_1^2)` and :math:`M_4 = 2 Q_0 S_4 - 8 S_1 S_3 + 6 S_2^2`
  (:math:`S_r = \sum_j q_j x_j^r`); tight near :math:`\theta = 0`. As a
  polynomial in :math:`\theta^2` with a non-negative leading coefficient it is
  convex, so on an interval it is largest at an end.
* Sampled: :math:`g` is a cosine sum with :math:`|g''| \le M_2`, so between
  two of its samples :math:`2\pi l/L` it exceeds the larger sample by at most
  :math:`M_2 (2\pi/L)^2/8` (linear interpolation error). The samples are the
  length-:math:`L` FFT of :math:`q` folded modulo :math:`L` (:math:`L \approx
  64` standard deviations, far below :math:`N`), with the componentwise FFT
  error :math:`\eta_L Q_0` of :mod:`symfdp.pld.compose` and the folding sums'
  :math:`\gamma Q_0` added.

Each bound is a sum over components of :math:`\tfrac{n_i}{2}\log` of the
per-component bound; a frequency is flushed when either sum is below
:math:`-701`. Moment sums of non-negative terms are computed with relative
error at most :math:`\gamma_m = m u/(1 - m u)` (any summation order; Higham 2002,
Sec. 3.1) and the bounds are evaluated at their safe ends.

**Values.** At the remaining frequencies,

.. math::  A_i(\theta) e^{i c \theta} = Q_0 - \sum_j q_j\, 2\sin^2(x_j\theta/2)
           - i \sum_j q_j \sin(x_j\theta),

the centred spectrum (the factor :math:`e^{-ic\theta}` is an exact lattice shift
of the composition, applied by the caller). The sums are matrix products in
column blocks of :data:`_BLOCK` over the offsets where some part of a chunk
has mass (error :math:`\gamma_{b}` with :math:`b =` block + number of
blocks, relative to the sum of the moduli of the terms), the
table entries from angles reduced exactly in integers to :math:`[0, \pi/2]`
(argument error :math:`3u`, ``sin`` within 4 ulp: relative errors
:math:`12u` for :math:`\sin`, :math:`25u` for :math:`2\sin^2`), and
:math:`Q_0` is summed in extended precision. The real correction has
non-negative terms and the imaginary one terms of modulus at most
:math:`\min(1, |x_j|\theta)`, so

.. math::  |\hat A - A| \le (\gamma^{L}_m + u) Q_0 + u|\hat A_{re}|
           + (\gamma_b + 25u) \hat D_{re} + (\gamma_b + 13u)
           \min(Q_0, \theta \textstyle\sum_j q_j |x_j|),

a few :math:`u\,Q_0` at the low frequencies that carry the composition.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import fft as sfft
from threadpoolctl import threadpool_limits

from symfdp.pld.discretise import DiscretePLD, concatenated_supports

_U = float(np.finfo(np.float64).eps) / 2
_U_LD = float(np.finfo(np.longdouble).eps) / 2
#: Coarse FFT length per standard deviation of the widest component (sets the
#: interpolation slack of the sampled bound).
_COARSE_PER_SD = 64
#: Column block of the matrix products (round-off: gamma of block + blocks).
_BLOCK = 1024
#: Components per matrix product.
_CHUNK = 64
#: Parts are chunked by their first lattice index plus centre modulo this:
#: such parts keep the same columns in their coarse tails (strides up to this),
#: so a chunk's products skip more columns where none has mass (10^4 parts of
#: a 10^6-step composition: 1.2 instead of 2.2 columns per kept point).
_STRIDE_CLASSES = 1 << 10
#: Components per batch of coarse spectra.
_BIN_CHUNK = 128
#: Once at most this many bins are left, later batches bound them by the
#: quartic alone, without their coarse FFTs: the bins left lie where
#: :math:`\theta` times a part's standard deviation is small, where the quartic
#: is the tighter bound (10^4 parts of a 10^6-step composition: 21 bins of
#: 3,360 are left after the first batch).
_QUARTIC_BINS = 64
#: A frequency is kept while a bound on log |Pi_k| exceeds this.
_KEEP = -701.0
#: Relative safety factor on the computed bounds (covers the round-off of the
#: few operations that combine the certified sums).
_SAFE = 1e-9


def _gamma(m: float, u: float = _U) -> float:
    return m * u / (1.0 - m * u)


@dataclass(frozen=True)
class PrunedSpectra:
    """Centred component spectra at the frequencies not flushed.

    Attributes:
        freqs: The frequencies ``k`` kept (increasing).
        spectra: :math:`A_i(\\theta_k) e^{i c_i \\theta_k}`, one row per part.
        devs: Bounds on the error of ``spectra`` (same shape).
        shift: :math:`\\sum_i n_i c_i`, the lattice shift of the composition
            of the centred parts.
    """

    freqs: np.ndarray
    spectra: np.ndarray
    devs: np.ndarray
    shift: int


@dataclass(frozen=True)
class _Stats:
    centre: int
    q0: float  # computed sum
    q0_hi: float
    q0_err: float
    a1_hi: float  # sum q |x|
    m2_lo: float
    m2_hi: float
    m4_hi: float


def _stats(parts: Sequence[tuple[DiscretePLD, int]]) -> list[_Stats]:
    """Certified moment sums of each part (see the module docstring; sums over
    the points with mass, :data:`_STATS_CHUNK` parts per NumPy pass)."""
    return [
        st
        for at in range(0, len(parts), _STATS_CHUNK)
        for st in _stats_chunk(parts[at : at + _STATS_CHUNK])
    ]


#: Parts per pass of :func:`_stats`.
_STATS_CHUNK = 256


def _stats_chunk(parts: Sequence[tuple[DiscretePLD, int]]) -> list[_Stats]:
    """:func:`_stats` of one chunk."""
    at, q, m = concatenated_supports([d for d, _ in parts])
    j = at.astype(np.float64)
    starts = np.concatenate(([0], np.cumsum(m)[:-1]))
    live = m > 0
    first = starts[live]

    def sums(values: np.ndarray) -> np.ndarray:
        out = np.zeros(m.size, dtype=values.dtype)
        out[live] = np.add.reduceat(values, first)
        return out

    q0 = sums(q.astype(np.longdouble)).astype(np.float64)
    q0_err = (np.array([_gamma(k, _U_LD) for k in m.tolist()]) + _U) * q0
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = np.where(q0 > 0.0, np.rint(sums(q * j) / q0), 0.0)
    x = j - np.repeat(centre, m)
    w1 = q * x
    w2 = w1 * x
    w3 = w2 * x
    s1, a1, s2 = sums(w1), sums(np.abs(w1)), sums(w2)
    s3, a3, s4 = sums(w3), sums(np.abs(w3)), sums(w3 * x)
    g = np.array([_gamma(k + 8) for k in m.tolist()])
    up, dn = 1.0 + 2 * g, 1.0 - 2 * g
    q0_hi, q0_lo = (q0 + q0_err) * up, (q0 - q0_err) * dn
    a1_hi, s2_hi, s2_lo, s4_hi = a1 * up, s2 * up, s2 * dn, s4 * up
    s1_abs = np.abs(s1) + 2 * g * a1_hi
    s3_abs = np.abs(s3) + 2 * g * a3 * up
    m2_lo = np.maximum(0.0, 2.0 * (q0_lo * s2_lo - s1_abs**2)) * (1 - _SAFE)
    m2_hi = 2.0 * q0_hi * s2_hi * (1 + _SAFE)
    m4_hi = (2.0 * q0_hi * s4_hi + 8.0 * s1_abs * s3_abs + 6.0 * s2_hi**2) * (1 + _SAFE)
    rows = zip(
        centre.astype(np.int64).tolist(),
        *(v.tolist() for v in (q0, q0_hi, q0_err, a1_hi, m2_lo, m2_hi, m4_hi)),
        strict=True,
    )
    return [
        _Stats(*row) if mass > 0.0 else _Stats(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for row, mass in zip(rows, q0.tolist(), strict=True)
    ]


def _quartic(st: _Stats, theta: np.ndarray) -> np.ndarray:
    r"""The quartic bound on :math:`|A(\theta)|^2` (module docstring)."""
    t2 = theta * theta
    return np.asarray(st.q0_hi**2 - t2 * st.m2_lo / 2 + t2 * t2 * st.m4_hi / 24)


def _column(stats: Sequence[_Stats], name: str) -> np.ndarray:
    return np.array([getattr(st, name) for st in stats])[:, None]


def _quartic_rows(stats: Sequence[_Stats], theta: np.ndarray) -> np.ndarray:
    """:func:`_quartic` of several parts (rows) at ``theta``."""
    t2 = theta * theta
    return np.asarray(
        _column(stats, "q0_hi") ** 2
        - _column(stats, "m2_lo") * (t2 / 2)
        + _column(stats, "m4_hi") * (t2 * t2 / 24)
    )


def _sampled_bins(
    parts: Sequence[tuple[DiscretePLD, int]], stats: list[_Stats], length: int
) -> np.ndarray:
    r"""Upper bounds on :math:`\sum_i n_i \log|A_i(\theta)|` on the bins
    :math:`[2\pi l/L, 2\pi(l+1)/L]`, ``l < ceil(L/2)`` (both bounds; parts in
    chunks of :data:`_BIN_CHUNK`). A part adds at most :math:`n_i
    \log^+ Q_{0,i}` (its bound is at most :math:`Q_{0,i}^2`), so a bin whose
    sum plus what the parts not yet seen can add is below :data:`_KEEP` by a
    margin of one is left at that bound (flushed whatever they hold) and
    skipped in later chunks; once at most :data:`_QUARTIC_BINS` are left, later
    chunks add their quartic bounds only."""
    nb = -(-length // 2)
    if any(st.q0 <= 0.0 for st in stats):
        return np.full(nb, -np.inf)
    ends = 2 * math.pi * np.arange(nb + 1) / length
    ends_lo, ends_hi = ends * (1 - _SAFE), ends * (1 + _SAFE)
    slack = (2 * math.pi / length) ** 2 / 8 * (1 + _SAFE)
    gain = np.array(
        [
            n * max(math.log(st.q0_hi), 0.0)
            for (_, n), st in zip(parts, stats, strict=True)
        ]
    )
    rest = np.append(np.cumsum(gain[::-1])[::-1], 0.0) * (1 + _SAFE)
    total = np.zeros(nb)
    alive = np.arange(nb)
    for start in range(0, len(parts), _BIN_CHUNK):
        chunk = parts[start : start + _BIN_CHUNK]
        sts = stats[start : start + _BIN_CHUNK]
        q0_hi = _column(sts, "q0_hi")
        quart = np.maximum(
            _quartic_rows(sts, ends_lo[alive]), _quartic_rows(sts, ends_hi[alive + 1])
        )
        bound = np.minimum(quart, q0_hi**2)
        if alive.size > _QUARTIC_BINS:
            a2 = _sampled_squares(chunk, q0_hi, length, nb)
            samp = np.maximum(a2[:, alive], a2[:, alive + 1])
            bound = np.minimum(bound, samp + _column(sts, "m2_hi") * slack)
        n = np.array([float(k) for _, k in chunk])[:, None]
        with np.errstate(divide="ignore"):
            total[alive] += np.sum(0.5 * n * np.log(np.maximum(bound, 0.0)), axis=0)
        later = rest[start + len(chunk)]
        dead = total[alive] + later <= _KEEP - 1.0
        total[alive[dead]] += later
        alive = alive[~dead]
        if alive.size == 0:
            break
    return total


def _sampled_squares(
    chunk: Sequence[tuple[DiscretePLD, int]], q0_hi: np.ndarray, length: int, nb: int
) -> np.ndarray:
    r"""Upper bounds on :math:`|A_i|^2` at :math:`2\pi l/L`, ``l <= nb``, one row
    per part of ``chunk``: the length-:math:`L` FFT of the folded masses plus
    its error (module docstring)."""
    eta = 16 * _U * (math.ceil(math.log2(length)) + 1)
    at, q, counts = concatenated_supports([d for d, _ in chunk])
    row_of = np.repeat(np.arange(len(chunk)), counts)
    folded = np.bincount(
        row_of * length + at % length, q, minlength=len(chunk) * length
    ).reshape(len(chunk), length)
    rows = np.array([-(-d.q.size // length) for d, _ in chunk], dtype=np.float64)
    err = (eta + (rows[:, None] + 1) * _U * 1.01 + 2 * _U) * q0_hi
    a = np.abs(sfft.rfft(folded, axis=1)) + err
    if a.shape[1] < nb + 1:  # odd L: |A| at pi (L+1)/L = |A| at pi (L-1)/L
        a = np.hstack((a, a[:, length - nb : length - nb + 1]))
    return np.asarray(a * a * (1 + 4 * _U))


@functools.lru_cache(maxsize=2)
def _trig_tables(size: int) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`2\sin^2(\pi r/N)` and :math:`\sin(2\pi r/N)`, ``r < N``, from
    arguments reduced exactly to :math:`[0, \pi/2]`."""
    r = np.arange(size, dtype=np.int64)
    a = np.minimum(r, size - r)  # |r| mod N in [0, N/2]: sin^2(pi r/N) symmetric
    half = 2.0 * np.sin(np.pi * a / size) ** 2
    s = np.where(2 * r > size, r - size, r)  # [-N/2, N/2]
    t = 2 * np.abs(s)
    t = np.minimum(t, size - t)  # sin(pi t/N) = sin(pi (N - t)/N)
    sine = np.sign(s) * np.sin(np.pi * t / size)
    for arr in (half, sine):
        arr.setflags(write=False)
    return half, sine


def _values(
    parts: Sequence[tuple[DiscretePLD, int]],
    stats: list[_Stats],
    size: int,
    freqs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Centred spectra and their error bounds at ``freqs`` (module docstring),
    one row per part."""
    half, sine = _trig_tables(size)
    lo = [-st.centre for st in stats]
    hi = [d.q.size - 1 - st.centre for (d, _), st in zip(parts, stats, strict=True)]
    x0, x1 = min(lo), max(hi)
    x = np.arange(x0, x1 + 1, dtype=np.int64)
    idx = np.outer(x, freqs.astype(np.int64)) % size
    kk = freqs.size
    table = np.empty((x.size, 2 * kk))
    table[:, :kk] = half[idx]
    table[:, kk:] = sine[idx]
    del idx
    theta = 2 * math.pi * freqs / size * (1 + _SAFE)
    # Same residue: the same kept columns in the coarse tails (they keep the
    # lattice indices that are multiples of their stride).
    residue = [
        (d.k_lo + st.centre) % _STRIDE_CLASSES
        for (d, _), st in zip(parts, stats, strict=True)
    ]
    order = sorted(range(len(parts)), key=lambda i: (residue[i], hi[i], lo[i]))
    spectra = np.empty((len(parts), kk), dtype=np.complex128)
    devs = np.empty((len(parts), kk))
    with threadpool_limits(1, user_api="blas"):
        _products(parts, stats, table, lo, hi, order, spectra, devs, theta, x0)
    return spectra, devs


def _products(
    parts: Sequence[tuple[DiscretePLD, int]],
    stats: list[_Stats],
    table: np.ndarray,
    lo: list[int],
    hi: list[int],
    order: list[int],
    spectra: np.ndarray,
    devs: np.ndarray,
    theta: np.ndarray,
    x0: int,
) -> None:
    """The matrix products of :func:`_values`, chunk by chunk (into the rows
    of ``spectra`` and ``devs``)."""
    kk = table.shape[1] // 2
    for start in range(0, len(order), _CHUNK):
        chunk = order[start : start + _CHUNK]
        ca, cb = min(lo[i] for i in chunk), max(hi[i] for i in chunk)
        # Only columns where some part of the chunk has mass (the others add
        # exact zeros): the union of the parts' supports.
        at, q, counts = concatenated_supports([parts[i][0] for i in chunk])
        col = at + np.repeat(np.array([lo[i] - ca for i in chunk]), counts)
        used = np.zeros(cb - ca + 1, dtype=bool)
        used[col] = True
        cols = np.flatnonzero(used)
        slot = np.cumsum(used) - 1
        mat = np.zeros((len(chunk), cols.size))
        mat[np.repeat(np.arange(len(chunk)), counts), slot[col]] = q
        rows = table[ca - x0 + cols]
        acc = np.zeros((len(chunk), 2 * kk))
        blocks = -(-cols.size // _BLOCK)
        for b in range(blocks):
            c0, c1 = b * _BLOCK, min(cols.size, (b + 1) * _BLOCK)
            acc += mat[:, c0:c1] @ rows[c0:c1]
        gb = _gamma(min(cols.size, _BLOCK) + blocks)
        c_re = (gb + 25 * _U) * (1 + _SAFE)
        c_im = (gb + 13 * _U) * (1 + _SAFE)
        sts = [stats[i] for i in chunk]
        d_re, d_im = acc[:, :kk], acc[:, kk:]
        re = _column(sts, "q0") - d_re
        spectra[chunk] = re - 1j * d_im
        imag = np.minimum(_column(sts, "q0_hi"), theta * _column(sts, "a1_hi"))
        dev = _column(sts, "q0_err") + _U * np.abs(re) + c_re * np.abs(d_re)
        devs[chunk] = (dev + c_im * imag) * (1 + _SAFE)


def pruned_spectra(
    parts: Sequence[tuple[DiscretePLD, int]], size: int, max_freqs: int
) -> PrunedSpectra | None:
    """The component spectra at the frequencies of a length-``size`` window
    where the composition is not certified below :math:`e^{-701}`, or None
    when that saves nothing (the bounds need an FFT longer than ``size / 8``,
    or more than ``max_freqs`` frequencies remain)."""
    stats = _stats(parts)
    spread = max(
        (math.sqrt(st.m2_hi / (2 * st.q0_hi**2)) for st in stats if st.q0 > 0),
        default=0.0,
    )
    length = int(sfft.next_fast_len(max(64, math.ceil(_COARSE_PER_SD * spread))))
    if 8 * length > size:
        return None
    half = size // 2 + 1
    bins = _sampled_bins(parts, stats, length)
    k = np.arange(half, dtype=np.int64)
    k = k[bins[np.minimum((k * length) // size, bins.size - 1)] > _KEEP]
    if k.size > 4 * max_freqs:
        return None
    # Refinement by the quartic bound at each frequency (a second valid bound).
    theta = 2 * math.pi * k / size
    th_lo, th_hi = theta * (1 - _SAFE), theta * (1 + _SAFE)
    quart = np.zeros(k.size)
    for start in range(0, len(parts), _BIN_CHUNK):
        sts = stats[start : start + _BIN_CHUNK]
        n = np.array([float(c) for _, c in parts[start : start + _BIN_CHUNK]])
        bound = np.maximum(_quartic_rows(sts, th_lo), _quartic_rows(sts, th_hi))
        bound = np.minimum(bound, _column(sts, "q0_hi") ** 2)
        with np.errstate(divide="ignore"):
            quart += np.sum(0.5 * n[:, None] * np.log(np.maximum(bound, 0.0)), axis=0)
    k = k[quart > _KEEP]
    if k.size > max_freqs:
        return None
    if k.size == 0:
        empty = np.zeros((len(parts), 0))
        return PrunedSpectra(k, empty.astype(np.complex128), empty, 0)
    spectra, devs = _values(parts, stats, size, k)
    shift = sum(n * st.centre for (_, n), st in zip(parts, stats, strict=True))
    return PrunedSpectra(k, spectra, devs, int(shift))
