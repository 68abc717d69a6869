r"""FFT composition of discrete PLDs with a floating-point error bound.

The Q-masses of the composition are the convolution
:math:`q = \ast_i\, q_i^{\ast n_i}`, computed on a window of :math:`N` lattice
points as :math:`\mathrm{irfft}(\prod_i \mathrm{rfft}(q_i)^{n_i})`. Circular
convolution folds the mass outside the window back into it; that mass is bounded by
:mod:`symfdp.pld.window` and enters the bounds as an additive term.

**Round-off.** A radix-:math:`r` butterfly output is a sum of :math:`r` twiddled
intermediate values, each bounded in modulus by the l1 norm of the inputs feeding
it, so the error of every FFT output is bounded *componentwise*,

.. math::  |\hat A_{k} - A_{k}| \le \eta \|q\|_1, \qquad
           \eta = 16 u \,(\lceil \log_2 N \rceil + 1),

(:math:`u = 2^{-53}`; the errors of the butterflies of each level add up; 16u per
binary level covers radices up to 5 with rounded twiddle factors and the
real-input post-processing pass; cf. Higham 2002, *Accuracy and Stability of
Numerical Algorithms*, Sec. 24.1). With :math:`B_{ik} = |\hat A_{ik}| + \eta
\|q_i\|_1 \ge \max(|A_{ik}|, |\hat A_{ik}|)`, the powers satisfy

.. math::  |\Pi_k(\hat A) - \Pi_k(A)| \le \sum_i n_i \eta \|q_i\|_1
           B_{ik}^{n_i - 1} \prod_{j \ne i} B_{jk}^{n_j},

which weights the error by the modulus of the composed spectrum. Where that
modulus is within :math:`e^{-12}` of its peak the bound is about :math:`n\eta`;
there the spectra are recomputed by direct sums in extended precision
(:func:`direct_spectrum`, error about :math:`3u \|q\|_1`). Powers are
evaluated as :math:`\exp(\sum_i n_i \log \hat A_i)`, the sum over the
:math:`m` parts taken with unit round-off :math:`u_s` (extended precision for
many parts, :func:`_log_powers`), adding at most :math:`(\sum_i n_i e_{ik} +
(2u + (m - 1) u_s)\sum_i n_i |\log \hat A_{ik}| + 4u) |\hat\Pi_k|`, with
:math:`e_{ik}` the error of the computed logarithm (:func:`_log_spectra`, a few
:math:`u |\log \hat A_{ik}|`). The
inverse transform is exact on these spectral errors up to its own componentwise
error :math:`\eta \|\hat\Pi\|_1 / N` per point (full spectrum). Since the profile
weights :math:`(1 - e^{\varepsilon - t_j})_+` lie in [0, 1], Parseval and
Cauchy--Schwarz give, with :math:`c = \#\{j : t_j > \varepsilon\}`,

.. math::  |\hat\delta(\varepsilon) - \delta(\varepsilon)| \le E_2 \sqrt{c}
           + E_\infty c, \quad E_2 = \sqrt{2/N}\, \|\Delta\Pi\|_2, \quad
           E_\infty = 2\eta \textstyle\sum_k |\hat\Pi_k| / N + 10^{-300};

clipping negative round-off to 0 only moves the masses towards the (non-negative)
exact ones, and the :math:`10^{-300}` in :math:`E_\infty` covers the masses
below it that are set to 0 (no subnormals; in a composition whose whole mass is
tiny they are not round-off).

**Flushed frequencies.** A power is set to 0 instead of computed where its
bound is below :math:`e^{-700}`. A frequency :math:`k` is not *live* when
:math:`T_k \ge \sum_i n_i \log B_{ik}` (an upper bound, its round-off
included, with the :math:`B_{ik}` of the direct sums at the hot frequencies)
is at most :math:`-700 + \min_{i,k'} \log B_{ik'}`: since :math:`B_{ik} \le
(1 + 2\eta)\|q_i\|_1` and the Q-masses sum to at most :math:`1 + O(u)`,
:math:`|\Pi_k| \le e^{T_k} \le (1 + 4\eta) e^{-700}`, so each adds at most
:math:`2e^{-700}` to :math:`|\Delta\Pi_k|` and :math:`E_2` carries
:math:`\sqrt{2/N}\,\sqrt{N/2 + 1}\; 2e^{-700}` for all of them (the pruned
spectra of :mod:`symfdp.pld.pruned` leave out frequencies certified below
:math:`e^{-701}` and flush at :math:`T_k \le -700`). A live
frequency whose computed power has :math:`\Re \log \hat\Pi_k \le -700` is
flushed as well; there :math:`|\Pi_k| \le e^{-700 + \ell_k} + F_k` with
:math:`\ell_k` the bound on the round-off of :math:`\log \hat\Pi_k` and
:math:`F_k` the forward bound, and :math:`e^{-700 + \ell_k}` replaces its
power error :math:`|\hat\Pi_k|(e^{\ell_k} - 1)` in
:math:`\|\Delta\Pi\|_2`.

As :math:`|\Pi_k| \le \Pi_0 = \prod_i (\sum_j q_{ij})^{n_i}`, the
composition's total Q-mass on the lattice, and the hot frequencies lie within
:math:`e^{-12}` of the largest bound, a hot frequency is flushed only when
:math:`\Pi_0` is below about :math:`e^{-688}`. When :math:`\Pi_0` is below
about :math:`e^{-700}` every frequency is flushed, the composed masses are
all 0, and the composition's Q-mass is off the lattice: at :math:`+\infty`
for dominating measures (``inf_mass``, which carries the upper bound) or
dropped by dominated ones, whose composition then bounds :math:`\delta`
below by 0 only (valid: a dominated measure may drop mass). It happens when
each of :math:`n` components drops (or moves to :math:`+\infty`) a share
:math:`m` of its mass with :math:`n m \gtrsim 700`.

The constant ``fp_const`` covers the suffix sums (:math:`4Nu`) and the lattice
positions (:math:`8u(|t_0| + Nh)`).

**Discretisation round-off** (``tail_rate``). Cell masses are differences of one
function (CDF in the lower half of a law, one minus the survival function in the
upper half), so an error :math:`e_j` at an edge *moves* mass :math:`e_j` between
neighbouring cells; the profile's weights are monotone along the lattice, so the
telescoping sums leave at most twice the largest edge error above :math:`e - h`
per law. With CDFs accurate to :math:`c` = :data:`CDF_RTOL` relative to the
smaller tail, :math:`|\Delta\delta_i(e)| \le 2c\, S_{Q,i}(e-h) + 2c\, e^{e}
S_{P,i}(e-h) \le 4 c e^{h} S_{Q,i}(e - h)`, and the barycentre tolerance
:math:`c_b` = :data:`symfdp.pld.discretise.PULL_RTOL` adds :math:`2 e^{h} c_b
S_{Q,i}(e - h)`. Replacing the components one at a time perturbs the composed
profile by at most ``tail_rate`` :math:`= \sum_i n_i e^{h} (4c + 2c_b)` times the
Q-tail above :math:`\varepsilon - h` of a composition of true, dominated and
dominating components, which the accountant bounds by the dominating profile
(``CertifiedPairCurve.tail_allowance``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from scipy import fft as sfft

from symfdp.mechanisms.base import FloatArray
from symfdp.pld.discretise import PULL_RTOL, DiscretePLD
from symfdp.pld.pruned import PrunedSpectra, pruned_spectra
from symfdp.pld.window import Window

#: Unit round-off of float64.
UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2
#: Accuracy assumed of ``plrv_cdf`` / ``plrv_sf``, relative to the smaller tail.
CDF_RTOL = 64 * UNIT_ROUNDOFF
#: Below this log-modulus a power is flushed to zero (no subnormal arithmetic).
_LOG_TINY = -700.0
#: Composed masses below this are set to 0 (an error of at most this per point,
#: part of :math:`E_\infty`).
_MASS_FLOOR = 1e-300


class FFTSizeError(ValueError):
    """The composition needs an FFT longer than the allowed ``max_size``.

    Attributes:
        size: The length needed (a lower bound when not known exactly), or None.
    """

    def __init__(self, message: str, size: int | None = None) -> None:
        super().__init__(message)
        self.size = size


class RoundoffRangeError(FFTSizeError):
    r"""The FFT round-off bound of the composition is vacuous (beyond 1) or not
    finite (the powers amplify the spectral error by up to :math:`e^{n\eta}`)."""


#: Largest round-off allowance over the whole window (:math:`E_2\sqrt N +
#: E_\infty N`, a probability) for which the composition is returned; beyond it
#: the brackets are vacuous and RoundoffRangeError is raised.
MAX_ROUNDOFF = 1.0


def methods_without_lattice() -> str:
    return (
        "accountants.SaddlePoint / accountants.Edgeworth, which need no lattice "
        "(approximations), or accountants.RDP (a looser certified upper bound)"
    )


@dataclass(frozen=True)
class ComposedPLD:
    """Q-masses of a composition on a window ``t0 + j h``, ``j < N``, with bounds.

    Attributes:
        h: Lattice step.
        t0: First window point.
        q: Composed Q-masses (round-off clipped to >= 0).
        inf_mass: Q-mass at :math:`+\\infty` (dominating measures).
        outside: Bound on the Q-mass outside the window (folded in by the FFT).
        fft_l2: :math:`E_2`, the l2 bound on the propagated FFT round-off.
        fft_linf: :math:`E_\\infty`, the per-point bound on the inverse FFT's own
            round-off and on the masses set to 0.
        fp_const: Constant round-off allowance (suffix sums, positions).
        tail_rate: Discretisation round-off per unit of :math:`Q(T > \\varepsilon - h)`.
        dominating: Whether this is the composition of dominating measures.
    """

    h: float
    t0: float
    q: FloatArray
    inf_mass: float
    outside: float
    fft_l2: float
    fft_linf: float
    fp_const: float
    tail_rate: float
    dominating: bool

    @property
    def size(self) -> int:
        return int(self.q.size)


def _norm(x: FloatArray) -> float:
    """Euclidean norm (plain NumPy, no BLAS call; inf when it overflows)."""
    with np.errstate(over="ignore"):
        return math.sqrt(float(np.sum(x * x)))


def fft_size(window_lo: float, window_hi: float, h: float, min_size: int) -> int:
    """A fast FFT length covering the window and every component array."""
    span = math.ceil((window_hi - window_lo) / h - 1e-9) + 1
    return int(sfft.next_fast_len(max(span, min_size, 2), real=True))


#: Extended precision (x87 80-bit) where NumPy's long double has it.
_LD = np.longdouble
_U_LD = float(np.finfo(_LD).eps) / 2
_TWO_PI_LD = _LD("6.283185307179586476925286766559005768394")
#: The composed spectrum below e^-_HOT_RANGE of its peak is left to the FFT
#: (its share of the forward error bound is at most e^-12 of n eta there).
_HOT_RANGE = 12.0
#: Largest memory for the component spectra kept between the two passes.
_SPEC_CACHE_BYTES = 2**28
#: Budget of the direct sums: frequencies x lattice points over all components.
_HOT_WORK = 2 * 10**7
#: The direct sums are made only where the FFT's error bound there, about
#: n eta ||q||_1, is at least this.
_DIRECT_MIN = 1e-9


def _hot_frequencies(
    total_b: FloatArray, parts: Sequence[tuple[DiscretePLD, int]]
) -> np.ndarray:
    """The frequencies where the composed spectrum is within e^-12 of its peak,
    largest first, as many as the work budget allows (none without extended
    precision, or where the FFT's error bound is below :data:`_DIRECT_MIN`)."""
    if _U_LD >= UNIT_ROUNDOFF / 64:
        return np.zeros(0, dtype=np.int64)
    size = 2 * (total_b.size - 1)
    eta = 16 * UNIT_ROUNDOFF * (math.ceil(math.log2(max(size, 2))) + 1)
    if sum(n * eta * float(d.q.sum()) for d, n in parts) < _DIRECT_MIN:
        return np.zeros(0, dtype=np.int64)
    cand = np.flatnonzero(total_b >= float(total_b.max()) - _HOT_RANGE)
    work = sum(d.q.size for d, _ in parts)
    cap = max(0, _HOT_WORK // max(work, 1))
    if cand.size > cap:
        cand = cand[np.argsort(-total_b[cand], kind="stable")[:cap]]
    return np.sort(cand)


def _twiddles(k: np.ndarray, j: np.ndarray, size: int) -> tuple[Any, Any]:
    """``cos`` and ``sin`` of ``2 pi (k j mod N) / N`` in long double, the angle
    reduced to [-pi, pi] in exact integer arithmetic (shape ``(len(j), len(k))``)."""
    r = np.outer(j.astype(np.int64), k.astype(np.int64)) % size
    r = np.where(2 * r > size, r - size, r)
    theta = _TWO_PI_LD * (r.astype(_LD) / _LD(size))
    return np.cos(theta), np.sin(theta)


def direct_spectrum(
    q: FloatArray, size: int, ks: np.ndarray
) -> tuple[np.ndarray, FloatArray]:
    r"""``rfft(q, n=size)[ks]`` by direct sums in long double, and a bound on
    their error.

    With :math:`j = aB + b`, :math:`A_k = \sum_a w_k^{aB} \sum_b q_{aB+b}
    w_k^{b}` (:math:`w_k = e^{-2\pi i k/N}`): two matrix products over the
    :math:`B \approx \sqrt M` columns and rows, every twiddle factor computed
    from its exactly reduced angle (|error| <= :math:`(3\pi + 2) u_L`, with the
    platform's ``cosl``/``sinl`` within 2 ulp). Each entry of the result is a sum
    of terms :math:`|q_j|`-weighted with at most :math:`B + M/B + 40` roundings of
    unit :math:`u_L = 2^{-64}`, then rounded to double, so

    .. math:: |\hat A_k - A_k| \le \|q\|_1 \bigl(2u + 4 u_L (B + M/B + 40)\bigr),

    about :math:`3u \|q\|_1` against :math:`16u(\lceil\log_2 N\rceil + 1)
    \|q\|_1` for the FFT.
    """
    return direct_spectra([q], size, ks)[0]


def direct_spectra(
    qs: Sequence[FloatArray], size: int, ks: np.ndarray
) -> list[tuple[np.ndarray, FloatArray]]:
    """:func:`direct_spectrum` of several arrays, sharing the twiddle factors
    (one column count :math:`B` for all)."""
    longest = max(q.size for q in qs)
    cols = max(1, math.isqrt(longest))
    c0, s0 = _twiddles(ks, np.arange(cols), size)
    c1_all, s1_all = _twiddles(ks, np.arange(-(-longest // cols)) * cols, size)
    out = []
    for q in qs:
        m = q.size
        rows = -(-m // cols)
        qm = np.zeros(rows * cols, dtype=_LD)
        qm[:m] = q
        qm = qm.reshape(rows, cols)
        c1, s1 = c1_all[:rows], s1_all[:rows]
        inner_c = np.dot(qm, c0)
        inner_s = np.dot(qm, s0)
        # e^{-i phi}(C - i S) = (cos phi C - sin phi S) - i (sin phi C + cos phi S)
        re = np.sum(c1 * inner_c - s1 * inner_s, axis=0)
        im = -np.sum(s1 * inner_c + c1 * inner_s, axis=0)
        vals = re.astype(np.float64) + 1j * im.astype(np.float64)
        norm1 = float(np.sum(np.abs(q))) * (1.0 + 4.0 * m * UNIT_ROUNDOFF)
        dev = norm1 * (2.0 * UNIT_ROUNDOFF + 4.0 * _U_LD * (cols + rows + 40))
        out.append((vals, np.full(ks.size, dev)))
    return out


def _live_spectrum(
    cached: Any, whole: bool, q: FloatArray, size: int, live: np.ndarray
) -> np.ndarray:
    """``rfft(q, n=size)[live]`` from what pass 1 kept: the whole spectrum, the
    values at candidate frequencies (if they cover ``live``), or nothing."""
    if whole:
        return cast(np.ndarray, cached[live])
    if cached is not None:
        cand, vals = cached
        pos = np.searchsorted(cand, live)
        if np.all(pos < cand.size) and np.array_equal(
            cand[np.minimum(pos, cand.size - 1)], live
        ):
            return cast(np.ndarray, vals[pos])
    return cast(np.ndarray, sfft.rfft(q, n=size)[live])


def _full_powers(
    parts: Sequence[tuple[DiscretePLD, int]], size: int, eta: float
) -> tuple[np.ndarray, np.ndarray, FloatArray, FloatArray, FloatArray]:
    """The live frequencies and, there, :math:`\\sum_i n_i \\log \\hat A_i`,
    the bound on its round-off (:func:`_log_powers`),
    :math:`\\sum_i n_i \\mathrm{dev}_i / B_i`
    and an upper bound on :math:`\\sum_i n_i \\log B_i` (its round-off
    included), from length-``size`` FFTs of every part (direct sums at the hot
    frequencies)."""
    u = UNIT_ROUNDOFF
    half = size // 2 + 1
    devs = [eta * float(d.q.sum()) for d, _ in parts]
    # Pass 1: sum of log B, B = |A| + eta ||q||_1; spectra kept for pass 2 within
    # _SPEC_CACHE_BYTES.
    keep = len(parts) * half * 16 <= _SPEC_CACHE_BYTES
    cache: list[Any] = []
    # Otherwise only frequencies that can be live are kept: n_i log B_i > -700 +
    # min log B - sum_j n_j log+(B_j), with B >= 2u ||q|| (missing: recomputed).
    floor = min(math.log(2 * u * float(d.q.sum())) for d, _ in parts if d.q.any())
    plus = sum(
        n * max(0.0, math.log(float(d.q.sum()) + v))
        for (d, n), v in zip(parts, devs, strict=True)
    )
    stored = 0
    total_b = np.zeros(half)
    magnitude = np.zeros(half)
    min_lb = math.inf
    for (d, n), dev in zip(parts, devs, strict=True):
        spec = sfft.rfft(d.q, n=size)
        lb = np.log(np.abs(spec) + dev)
        total_b += n * lb
        magnitude += n * np.abs(lb)
        min_lb = min(min_lb, float(lb.min()))
        if keep:
            cache.append(spec)
        elif stored * 24 <= _SPEC_CACHE_BYTES:
            cand = np.flatnonzero(n * lb > _LOG_TINY + floor - plus - 0.05 * n)
            cache.append((cand, spec[cand]))
            stored += cand.size
        else:
            cache.append(None)
    hot = _hot_frequencies(total_b, parts)
    direct = []
    if hot.size:
        total_b[hot] = 0.0
        magnitude[hot] = 0.0
        direct = direct_spectra([d.q for d, _ in parts], size, hot)
        for (_, n), (vals, dev) in zip(parts, direct, strict=True):
            lb = np.log(np.abs(vals) + dev)
            total_b[hot] += n * lb
            magnitude[hot] += n * np.abs(lb)
            min_lb = min(min_lb, float(lb.min()))
    total_b = _with_sum_round_off(total_b, magnitude, len(parts))
    # Frequencies whose bound is below e^-700 are flushed to 0 (module
    # docstring), the hot ones among them too: near the peak, all of them
    # when the composition's whole lattice mass is below e^-700.
    live = np.flatnonzero(total_b - min_lb > _LOG_TINY)
    hot_live = np.isin(hot, live, assume_unique=True)
    at = np.searchsorted(live, hot[hot_live])
    direct = [(vals[hot_live], dev[hot_live]) for vals, dev in direct]

    def live_terms() -> Iterator[tuple[int, np.ndarray, FloatArray]]:
        for i, ((d, n), dev) in enumerate(zip(parts, devs, strict=True)):
            spec = _live_spectrum(cache[i], keep, d.q, size, live)
            err = np.full(live.size, dev)
            if at.size:
                spec[at], err[at] = direct[i]
            yield n, spec, err

    log_pi, log_err, ratio = _log_powers(_stacked(live_terms()), live.size, len(parts))
    return live, log_pi, log_err, ratio, total_b[live]


def _with_sum_round_off(
    total: FloatArray, magnitude: FloatArray, count: int
) -> FloatArray:
    """An upper bound on a sum over ``count`` parts computed as ``total``:
    its round-off is at most ``(count + 1) u`` times ``magnitude``, the sum of
    the terms' moduli (a term of -inf leaves the sum at -inf)."""
    slack = (count + 1) * UNIT_ROUNDOFF * np.where(np.isfinite(magnitude), magnitude, 0)
    return total + slack


def _stacked(
    terms: Iterable[tuple[int, np.ndarray, FloatArray]],
) -> Iterator[tuple[FloatArray, np.ndarray, FloatArray]]:
    """Parts' ``(n, A, e)`` stacked :data:`_POWER_CHUNK` at a time into the
    chunks of :func:`_log_powers`."""
    it = iter(terms)
    while chunk := list(itertools.islice(it, _POWER_CHUNK)):
        n = np.array([float(k) for k, _, _ in chunk])[:, None]
        yield n, np.stack([a for _, a, _ in chunk]), np.stack([e for _, _, e in chunk])


def _log_spectra(spec: np.ndarray) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""``(log |A|, arg A, e)`` of complex spectra ``A = r + is``, with ``e`` a
    bound on the modulus of the error of the computed pair.

    Where :math:`x = |A|^2 - 1 \in [-1/2, 1]` (the frequencies that carry a
    composition) the modulus is :math:`\tfrac12 \log1p(x)` with :math:`x =
    (r - 1)(r + 1) + s^2`: each of the two terms is computed with relative
    error at most :math:`\gamma_3`, so :math:`|\hat x - x| \le \gamma_4
    (|r^2 - 1| + s^2)`, and :math:`\log1p` has slope at most 2 on the range:
    an error of :math:`1.1\,\gamma_4 (|r^2 - 1| + s^2)`, accurate relative to
    :math:`\log|A|` even where it is tiny (no cancellation in :math:`|A| - 1`).
    Elsewhere it is :math:`\log \mathrm{hypot}(r, s)` (hypot within
    :math:`2u`, plus :math:`2^{-1072}/|A|` for subnormal moduli). The
    elementary functions add :math:`4u` of their values. Zero spectra give
    :math:`-\infty` with ``e = 0``."""
    u = UNIT_ROUNDOFF
    r = np.ascontiguousarray(spec.real)
    s = np.ascontiguousarray(spec.imag)
    a = r - 1.0
    a *= r + 1.0
    b = s * s
    x = a + b
    far = np.flatnonzero((x < -0.5) | (x > 1.0))
    gamma4 = 4 * u / (1 - 4 * u)
    with np.errstate(divide="ignore"):
        mod = np.log1p(x)
        mod *= 0.5
        err = np.abs(a)
        err += b
        err *= 1.1 * gamma4
        if far.size:
            hyp = np.hypot(r.flat[far], s.flat[far])
            mod.flat[far] = np.log(hyp)
            err.flat[far] = 2.01 * u + 2.0**-1072 / hyp
    arg = np.arctan2(s, r)
    err += 4 * u * (np.abs(mod) + np.abs(arg))
    err[~np.isfinite(mod)] = 0.0
    return mod, arg, err


def _log_powers(
    chunks: Iterable[tuple[FloatArray, np.ndarray, FloatArray]], size: int, count: int
) -> tuple[np.ndarray, FloatArray, FloatArray]:
    r"""``(sum n log A, its round-off bound, sum n e / (|A| + e))`` over the
    ``count`` parts' ``(n, A, e)``, given in chunks of rows (``n`` a column):
    the log of the composed spectrum, a bound on the absolute error of its
    computed value, and the relative error of the factors.

    The logs are those of :func:`_log_spectra` (error :math:`e_i`), scaled by
    :math:`n_i` (:math:`u` of :math:`n_i |\log \hat A_i|`, with :math:`|z|`
    bounded by :math:`|\Re z| + |\Im z|`) and summed over the :math:`m`
    parts with unit round-off :math:`u_s`: double precision up to
    :data:`_DOUBLE_PARTS` parts, ``np.longdouble`` beyond (a sequential sum in
    double precision over :math:`10^4` parts would allow :math:`10^4 u`). The
    bound is :math:`\sum_i n_i e_i + (u + (m - 1) u_s) \sum_i n_i |\log
    \hat A_i| + 4u` (plus :math:`u \sum_i n_i |\log \hat A_i|` for the final
    rounding of an extended sum)."""
    u = UNIT_ROUNDOFF
    dtype = np.float64 if count <= _DOUBLE_PARTS else np.longdouble
    u_sum = float(np.finfo(dtype).eps) / 2
    re = np.zeros(size, dtype=dtype)
    im = np.zeros(size, dtype=dtype)
    abs_log = np.zeros(size)
    log_err = np.zeros(size)
    ratio = np.zeros(size)
    for n, spec, err in chunks:
        mod, arg, e = _log_spectra(spec)
        re += np.sum(n * mod, axis=0, dtype=dtype)
        im += np.sum(n * arg, axis=0, dtype=dtype)
        abs_log += np.sum(n * (np.abs(mod) + np.abs(arg)), axis=0)
        log_err += np.sum(n * e, axis=0)
        ratio += np.sum(n * err / (np.abs(spec) + err), axis=0)
    log_pi = re.astype(np.float64) + 1j * im.astype(np.float64)
    # abs_log and log_err are themselves sums of count terms (relative error
    # below 2 count u); count - 1 additions round, an extended sum once more.
    grow = 1 + 2 * count * u
    magnitude = np.where(np.isfinite(abs_log), abs_log, 0.0) * grow
    rounding = (count - 1) * u_sum + (0.0 if dtype is np.float64 else u)
    return log_pi, log_err * grow + (u + rounding) * magnitude + 4 * u, ratio


#: Up to this many parts the logarithms are summed in double precision.
_DOUBLE_PARTS = 8
#: Parts per chunk of :func:`_log_powers`.
_POWER_CHUNK = 256


#: Fewest parts for which the pruned spectra (:mod:`symfdp.pld.pruned`) are
#: tried: with few parts the length-N FFTs are cheap already.
_PRUNE_PARTS = 4


def _pruned(
    parts: Sequence[tuple[DiscretePLD, int]], size: int
) -> PrunedSpectra | None:
    """:func:`symfdp.pld.pruned.pruned_spectra` when it is cheaper than one
    length-``size`` FFT per part (about ``5 N log2 N`` flops each, against four
    per lattice point and frequency kept)."""
    if len(parts) < _PRUNE_PARTS:
        return None
    points = sum(d.q.size for d, _ in parts)
    budget = 5 * len(parts) * size * math.log2(size) / (4 * points)
    max_freqs = int(min(size // 16, budget))
    if max_freqs < 1:
        return None
    return pruned_spectra(parts, size, max_freqs)


def _pruned_powers(
    pr: PrunedSpectra, parts: Sequence[tuple[DiscretePLD, int]]
) -> tuple[np.ndarray, np.ndarray, FloatArray, FloatArray, FloatArray]:
    """:func:`_full_powers` from the pruned spectra: the frequencies flushed
    there are certified below e^-701; of the others, those whose bound
    :math:`\\prod_i B_i^{n_i}` is below e^-700 are flushed too."""
    n = np.array([float(k) for _, k in parts])[:, None]
    with np.errstate(divide="ignore"):
        term = n * np.log(np.abs(pr.spectra) + pr.devs)
    total_b = np.sum(term, axis=0)
    magnitude = np.sum(np.abs(term), axis=0)
    del term
    total_b = _with_sum_round_off(total_b, magnitude, len(parts))
    keep = total_b > _LOG_TINY
    live = pr.freqs[keep]
    spectra, devs = pr.spectra[:, keep], pr.devs[:, keep]
    chunks = (
        (
            n[at : at + _POWER_CHUNK],
            spectra[at : at + _POWER_CHUNK],
            devs[at : at + _POWER_CHUNK],
        )
        for at in range(0, len(parts), _POWER_CHUNK)
    )
    log_pi, log_err, ratio = _log_powers(chunks, live.size, len(parts))
    return live, log_pi, log_err, ratio, total_b[keep]


def compose_fft(
    parts: Sequence[tuple[DiscretePLD, int]],
    window: Window,
    max_size: int = 2**27,
) -> ComposedPLD:
    """Compose ``(discrete PLD, count)`` pairs by FFT on a window.

    Args:
        parts: Discrete PLDs on a common step ``h`` (all dominating or all
            dominated) with their numbers of compositions.
        window: Range of the composed loss and the bound on the mass outside it
            (:func:`symfdp.pld.window.chernoff_window`).
        max_size: Largest FFT length; a larger window raises ``ValueError``.

    Raises:
        FFTSizeError: (a ValueError) the window needs more than ``max_size``
            points.
    """
    h = parts[0][0].h
    dominating = parts[0][0].dominating
    origin = sum(n * d.origin for d, n in parts)
    base = sum(n * d.k_lo for d, n in parts)
    first = math.floor((window.lo - origin) / h + 1e-9)
    size = fft_size(origin + first * h, window.hi, h, max(d.q.size for d, _ in parts))
    n_total = sum(n for _, n in parts)
    if size > max_size:
        raise FFTSizeError(
            f"Numerical: the composed privacy loss of n = {n_total} compositions "
            f"needs an FFT of {size} points "
            f"(window [{window.lo:.4g}, {window.hi:.4g}] at step {h:.3g}), more "
            f"than max_fft_size={max_size}; use a larger grid_step or "
            f"eps_rel_tol, or {methods_without_lattice()}.",
            size,
        )
    u = UNIT_ROUNDOFF
    eta = 16 * u * (math.ceil(math.log2(size)) + 1)
    half = size // 2 + 1
    pruned = _pruned(parts, size)
    if pruned is not None:
        live, log_pi, log_err, ratio, live_b = _pruned_powers(pruned, parts)
        base += pruned.shift
    else:
        live, log_pi, log_err, ratio, live_b = _full_powers(parts, size, eta)
    with np.errstate(under="ignore", over="ignore"):  # inf: refused below
        fwd = np.exp(live_b) * ratio
    with np.errstate(under="ignore"):
        vals = np.where(log_pi.real > _LOG_TINY, np.exp(log_pi), 0.0)
    mod = np.abs(vals)
    with np.errstate(over="ignore"):  # inf: refused below
        pow_err = np.where(
            log_pi.real > _LOG_TINY,
            mod * np.expm1(log_err),
            np.exp(_LOG_TINY + log_err),
        )
    # Each frequency not live: at most 2 e^-700 (module docstring).
    spectral = _norm(fwd + pow_err) + math.sqrt(half) * 2.0 * math.exp(_LOG_TINY)
    pi = np.zeros(half, dtype=np.complex128)
    pi[live] = vals
    raw = sfft.irfft(pi, n=size)
    shift = (first - base) % size
    q = np.maximum(np.roll(raw, -shift), 0.0)
    # Masses below _MASS_FLOOR are zeroed (no subnormals); E_inf covers that.
    q[q < _MASS_FLOOR] = 0.0
    fft_l2 = math.sqrt(2.0 / size) * spectral
    fft_linf = eta * 2.0 * float(mod.sum()) / size + _MASS_FLOOR
    worst = fft_l2 * math.sqrt(size) + fft_linf * size
    if not worst <= MAX_ROUNDOFF:  # also NaN / inf (overflowing powers)
        raise RoundoffRangeError(
            f"Numerical: at n = {n_total} compositions the FFT round-off bound is "
            f"{worst:.3g} (the powers of the spectra amplify round-off by up to "
            f"exp(n * {eta:.2g})), so no certified bracket is possible: Numerical "
            f"serves n while n * {eta:.2g} is well below 1 (n up to about 1e12); use "
            f"{methods_without_lattice()}."
        )
    t0 = origin + first * h
    fp_const = 4 * size * u + 8 * u * (abs(t0) + size * h)
    tail_rate = sum(n for _, n in parts) * math.exp(h) * (4 * CDF_RTOL + 2 * PULL_RTOL)
    inf_mass = 0.0
    if dominating:
        if any(d.inf_mass >= 1.0 for d, _ in parts):
            inf_mass = 1.0
        else:
            keep = sum(n * math.log1p(-d.inf_mass) for d, n in parts)
            inf_mass = max(0.0, -math.expm1(keep))
    return ComposedPLD(
        h=h,
        t0=t0,
        q=q,
        inf_mass=inf_mass,
        outside=window.outside,
        fft_l2=fft_l2,
        fft_linf=fft_linf,
        fp_const=fp_const,
        tail_rate=tail_rate,
        dominating=dominating,
    )
