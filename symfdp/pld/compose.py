r"""FFT composition of discrete PLDs with a floating-point error bound.

The Q-masses of the composition are the convolution
:math:`q = \ast_i\, q_i^{\ast n_i}`, computed on a window of :math:`N` lattice
points as :math:`\mathrm{irfft}(\prod_i \mathrm{rfft}(q_i)^{n_i})`. Circular
convolution folds the mass outside the window back into it; that mass is bounded by
:mod:`symfdp.pld.window` and enters the bounds as an additive term.

**Round-off.** Powers are taken as :math:`\exp(\sum_i n_i \log \hat A_i)`, only
where the result does not underflow. With :math:`u = 2^{-53}` and the normwise
FFT bound :math:`\|\widehat{F x} - F x\|_2 \le \eta \|F x\|_2`,
:math:`\eta = 8 u \lceil \log_2 N \rceil` (Higham 2002, *Accuracy and Stability of
Numerical Algorithms*, Thm 24.2: :math:`\eta \approx 6.7u` per radix-2 stage with
accurate twiddle factors, inflated here for mixed radices), the computed masses
satisfy

.. math::  \|\hat q - q\|_2 \le E_2 := \sqrt{2/N}\Bigl(G \sum_i n_i \eta \sqrt N
           \|q_i\|_2 + \bigl\|\, |\Pi|\, (4u \textstyle\sum_i n_i |\log \hat A_i|
           + 4u)\bigr\|_2\Bigr) + \eta \|\hat q\|_2,

where :math:`G = \prod_i (m_i + \eta\sqrt N \|q_i\|_2)^{n_i}` bounds the growth of
the perturbed powers (:math:`m_i = \max(1, \sum_k q_{ik})`). Since
:math:`0 \le (1 - e^{\varepsilon - t})_+ \le 1`, Cauchy--Schwarz turns this into
:math:`|\hat\delta(\varepsilon) - \delta(\varepsilon)| \le E_2
\sqrt{\#\{j : t_j > \varepsilon\}}`; clipping negative round-off to 0 can only
move the masses towards the (non-negative) exact ones. The small constant
``fp_const`` covers the suffix sums, the lattice positions and the cell masses:
:math:`4 N u`, :math:`8u(|t_0| + N h)` and, per component,
:math:`n_i\, c\,(h\,M_i + 8)` with :math:`c` =
:data:`CDF_RTOL` the relative accuracy assumed of the mechanism's CDFs (an error in
a CDF value moves mass by at most one cell, which changes :math:`\delta` by at most
:math:`h` times that mass).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import fft as sfft

from symfdp.mechanisms.base import FloatArray
from symfdp.pld.discretise import DiscretePLD
from symfdp.pld.window import Window

#: Unit round-off of float64.
UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2
#: Accuracy assumed of ``plrv_cdf`` / ``plrv_sf``, relative to the smaller tail.
CDF_RTOL = 64 * UNIT_ROUNDOFF
#: Below this log-modulus a power is flushed to zero (no subnormal arithmetic).
_LOG_TINY = -700.0


@dataclass(frozen=True)
class ComposedPLD:
    """Q-masses of a composition on a window ``t0 + j h``, ``j < N``, with bounds.

    Attributes:
        h: Lattice step.
        t0: First window point.
        q: Composed Q-masses (round-off clipped to >= 0).
        inf_mass: Q-mass at :math:`+\\infty` (dominating measures).
        outside: Bound on the Q-mass outside the window (folded in by the FFT).
        fft_l2: :math:`E_2`, the l2 bound on the FFT round-off of ``q``.
        fp_const: Constant round-off allowance (suffix sums, positions, CDFs).
        dominating: Whether this is the composition of dominating measures.
    """

    h: float
    t0: float
    q: FloatArray
    inf_mass: float
    outside: float
    fft_l2: float
    fp_const: float
    dominating: bool

    @property
    def size(self) -> int:
        return int(self.q.size)


def _norm(x: FloatArray) -> float:
    """Euclidean norm (plain NumPy, no BLAS call)."""
    return math.sqrt(float(np.sum(x * x)))


def fft_size(window_lo: float, window_hi: float, h: float, min_size: int) -> int:
    """A fast FFT length covering the window and every component array."""
    span = math.ceil((window_hi - window_lo) / h - 1e-9) + 1
    return int(sfft.next_fast_len(max(span, min_size, 2), real=True))


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
        ValueError: the window needs more than ``max_size`` points.
    """
    h = parts[0][0].h
    dominating = parts[0][0].dominating
    origin = sum(n * d.origin for d, n in parts)
    base = sum(n * d.k_lo for d, n in parts)
    first = math.floor((window.lo - origin) / h + 1e-9)
    size = fft_size(origin + first * h, window.hi, h, max(d.q.size for d, _ in parts))
    if size > max_size:
        raise ValueError(
            f"the composed privacy loss needs an FFT of {size} points (window "
            f"[{window.lo:.4g}, {window.hi:.4g}] at step {h:.3g}), more than "
            f"max_fft_size={max_size}; use a larger grid_step or eps_rel_tol."
        )
    u = UNIT_ROUNDOFF
    eta = 8 * u * math.ceil(math.log2(size))
    log_pi = np.zeros(size // 2 + 1, dtype=np.complex128)
    abs_log = np.zeros(size // 2 + 1)
    fwd = 0.0
    log_growth = 0.0
    for d, n in parts:
        spec = sfft.rfft(d.q, n=size)
        norm = _norm(d.q)
        dev = eta * math.sqrt(size) * norm
        fwd += n * dev
        log_growth += n * math.log(max(1.0, float(d.q.sum())) + dev)
        with np.errstate(divide="ignore"):
            lg = np.log(spec)
        log_pi += n * lg
        abs_log += n * np.abs(lg)
    live = log_pi.real > _LOG_TINY
    pi = np.zeros_like(log_pi)
    pi[live] = np.exp(log_pi[live])
    mod = np.abs(pi)
    pow_err = _norm(mod * (4 * u * np.where(live, abs_log, 0.0) + 4 * u))
    pow_err += math.sqrt(size) * math.exp(_LOG_TINY)
    raw = sfft.irfft(pi, n=size)
    shift = (first - base) % size
    q = np.maximum(np.roll(raw, -shift), 0.0)
    fft_l2 = math.sqrt(2.0 / size) * (math.exp(log_growth) * fwd + pow_err)
    fft_l2 += eta * _norm(raw)
    t0 = origin + first * h
    fp_const = 4 * size * u + 8 * u * (abs(t0) + size * h)
    fp_const += sum(n * CDF_RTOL * (h * d.q.size + 8) for d, n in parts)
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
        fp_const=fp_const,
        dominating=dominating,
    )
