r"""The inverse of the Edgeworth pair's profile: Newton on
:math:`\log\tilde\delta` in a bracketing cell, each step one pass of the tail
kernel (:class:`~symfdp.numeric.edgeworth.TailKernel`; with the order gaps, so
that the error estimate at the root needs no pass of its own), started by cubic
Hermite interpolation of :math:`\varepsilon` in :math:`\log\delta` between the
cell's ends (:func:`~symfdp.numeric.roots.newton_on_bracket`)."""

from __future__ import annotations

from typing import cast

import numpy as np

from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.edgeworth import TailKernel
from symfdp.numeric.roots import newton_on_bracket

#: A root finder's last evaluation: its points, the kernel's survival functions
#: and order gaps there (None where not kept).
Eval = tuple[FloatArray, FloatArray, FloatArray] | None


def solve(
    kernel: TailKernel,
    d: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    d_lo: FloatArray,
    d_hi: FloatArray,
    slopes: tuple[FloatArray, FloatArray] | None = None,
) -> tuple[FloatArray, FloatArray, Eval]:
    """``(eps, delta'(eps), last evaluation)`` for targets ``d`` whose profile
    values at the ends ``lo``, ``hi`` are ``d_lo``, ``d_hi``: Newton on log delta
    in ``[lo, hi]``, each step one kernel pass (with the order gaps, so that
    the error estimate at the root needs no pass of its own), started by
    interpolation of eps in log delta between the ends (cubic Hermite with
    the ends' ``slopes`` of delta, else linear)."""
    log_d = np.log(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        la, lb = np.log(d_lo), np.log(np.maximum(d_hi, 0.0))
        frac = np.where(
            d_hi > 0.0, (la - log_d) / (la - lb), (d_lo - d) / (d_lo - d_hi)
        )
        x0 = lo + (hi - lo) * frac
        if slopes is not None:
            # dx/dlog(delta) = delta / delta' at the ends.
            x3 = hermite_inverse(
                frac, lo, hi, lb - la, d_lo / slopes[0], d_hi / slopes[1]
            )
            x0 = np.where((x3 > lo) & (x3 < hi), x3, x0)
    if kernel.full is None:
        eps, dlog = newton_on_bracket(
            lambda x: log_and_slope(*kernel.survival(x)),
            log_d,
            lo,
            hi,
            x0,
            decreasing=True,
            xatol=1e-14,
        )
        return eps, dlog * d, None
    last: list[tuple[FloatArray, FloatArray, FloatArray]] = []

    def fn(x: FloatArray) -> tuple[FloatArray, FloatArray]:
        sf, dens, gaps = kernel.survival_and_gaps(x)
        last[:] = [(x, sf, gaps)]
        return log_and_slope(sf, cast(FloatArray, dens))

    eps, dlog = newton_on_bracket(fn, log_d, lo, hi, x0, decreasing=True, xatol=1e-14)
    return eps, dlog * d, last[0] if last else None


def hermite_inverse(
    u: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    h: FloatArray,
    m_lo: FloatArray,
    m_hi: FloatArray,
) -> FloatArray:
    """The cubic Hermite interpolant at the fraction ``u`` of an interval of
    length ``h`` (in log delta) between ``lo`` and ``hi`` with slopes ``m_lo``,
    ``m_hi`` (NaN where an end's slope is not finite)."""
    u2 = u * u
    u3 = u2 * u
    return (
        (2 * u3 - 3 * u2 + 1) * lo
        + (u3 - 2 * u2 + u) * h * m_lo
        + (3 * u2 - 2 * u3) * hi
        + (u3 - u2) * h * m_hi
    )


def log_and_slope(sf: FloatArray, dens: FloatArray) -> tuple[FloatArray, FloatArray]:
    r""":math:`(\log\tilde\delta, \tilde\delta'/\tilde\delta)` from the kernel's
    survival functions and densities (rows Q, P), in log space: :math:`\tilde
    \delta = S_Q - e^\varepsilon S_P`, :math:`\tilde\delta' = e^\varepsilon(p -
    S_P) - q`."""
    log_s = np.log(sf)
    log_q, log_b = log_s[0], log_s[1]
    ratio = np.exp(log_b - log_q)
    log_v = log_q + np.log1p(-np.minimum(ratio, 1.0))
    log_d = np.log(dens)
    dlog = np.exp(log_d[1] - log_v) - np.exp(log_b - log_v) - np.exp(log_d[0] - log_v)
    return log_v, dlog
