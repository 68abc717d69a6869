r"""Which representation of :math:`\delta(\varepsilon)` serves each ``eps`` (exact
ends, upper side, complementary lower side) and the clipping repair, as stated in
:mod:`symfdp.accountants.saddlepoint`."""

from __future__ import annotations

import numpy as np

from symfdp.accountants.saddlepoint.records import Regions
from symfdp.mechanisms.base import FloatArray


def regions(e: FloatArray, support: tuple[float, float], eps_split: float) -> Regions:
    """Masks ``zero``, ``full``, ``upper`` and ``lower`` partitioning ``e``."""
    lo, hi = support
    zero = e >= hi
    full = (e <= lo) & ~zero
    rest = ~zero & ~full
    return Regions(zero, full, rest & (e >= eps_split), rest & (e < eps_split))


def below_support(e: FloatArray, log_p_mass: float) -> FloatArray:
    r""":math:`\delta = \max(0, 1 - e^{\varepsilon + K(-1)})`, exact for
    :math:`\varepsilon` at or below the support."""
    with np.errstate(over="ignore"):
        return np.maximum(-np.expm1(e + log_p_mass), 0.0)


def from_integral(
    log_i: FloatArray, eps: FloatArray, side: str, log_p_mass: float
) -> FloatArray:
    r""":math:`\delta` from the log of the contour integral on ``side``."""
    if side == "upper":
        return np.exp(log_i)
    # Beyond eps ~ 709 both terms overflow: +inf, which repair() clips to 1.
    with np.errstate(over="ignore", invalid="ignore"):
        out = -np.expm1(eps + log_p_mass) + np.exp(log_i)
    return np.where(np.isnan(out), np.inf, out)


def repair(
    delta: FloatArray, eps: FloatArray, log_p_mass: float
) -> tuple[FloatArray, bool]:
    """``delta`` clipped into ``[max(0, 1 - e^{eps + K(-1)}), 1]``, and whether
    any value was outside (by more than 1e-12 relative)."""
    floor = np.maximum(-np.expm1(np.minimum(eps + log_p_mass, 0.0)), 0.0)
    bad = (delta > 1.0 + 1e-12) | (delta < floor * (1.0 - 1e-12))
    return np.minimum(np.maximum(delta, floor), 1.0), bool(bad.any())
