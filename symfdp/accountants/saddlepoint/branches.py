r"""Which representation of :math:`\delta(\varepsilon)` serves each ``eps``.

For a composed loss with essential support :math:`[a, b]` and split point
:math:`\varepsilon_{mid}`:

* :math:`\varepsilon \ge b`: :math:`\delta = 0` exactly;
* :math:`\varepsilon \le a`: :math:`\delta = 1 - e^{\varepsilon + K(-1)}` exactly;
* :math:`\varepsilon \ge \varepsilon_{mid}` (upper side): :math:`\delta` is the
  contour integral with :math:`t > 0`;
* :math:`\varepsilon < \varepsilon_{mid}` (lower, complementary side):
  :math:`\delta = 1 - e^{\varepsilon + K(-1)} + E_Q[(e^{\varepsilon - L} -
  1)_+]`, the expectation being the contour integral with :math:`t < -1`.

Also the valid-range repair: an estimate is clipped into
:math:`[\max(0, 1 - e^{\varepsilon + K(-1)}), 1]`. See
:mod:`symfdp.accountants.saddlepoint`.
"""

from __future__ import annotations

import numpy as np

from symfdp._warnings import warn_approximation
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
    # Beyond eps ~ 709 both terms overflow (inf - inf); the difference of two
    # terms of size e^eps is lost to rounding long before. Such values are set
    # to +inf, which repair() clips to 1 (the trivial bound) with its warning.
    with np.errstate(over="ignore", invalid="ignore"):
        out = -np.expm1(eps + log_p_mass) + np.exp(log_i)
    return np.where(np.isnan(out), np.inf, out)


def repair(
    delta: FloatArray, eps: FloatArray, log_p_mass: float, warn: bool
) -> FloatArray:
    """Clip into ``[max(0, 1 - e^{eps + K(-1)}), 1]`` (with a warning)."""
    floor = np.maximum(-np.expm1(np.minimum(eps + log_p_mass, 0.0)), 0.0)
    bad = (delta > 1.0 + 1e-12) | (delta < floor * (1.0 - 1e-12))
    if warn and bad.any():
        warn_approximation(
            "SaddlePoint: delta(eps) left [max(0, 1 - e^eps), 1]; clipped into "
            "it. The approximation is outside its valid regime here "
            "(accountants.Numerical gives certified values)."
        )
    return np.minimum(np.maximum(delta, floor), 1.0)
