r"""Scalar summaries of a trade-off curve and the (mu*, gamma) interpreter.

Zheng et al. (2020), Sec. 4: with :math:`\alpha^*` the fixed point,
:math:`\mu^* = -2\Phi^{-1}(\alpha^*)` and :math:`\gamma = \int_0^1 f`;
:math:`f_2` is "more private" than :math:`f_1` iff :math:`\mu^*_2 < \mu^*_1`
and :math:`\gamma_2 > \gamma_1`. Functions accept a
:class:`~symfdp.tradeoff.TradeOff` or any vectorised callable ``alpha -> beta``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from symfdp._validation import check_array, check_real
from symfdp.tradeoff._base import TradeOff, bracketed_fixed_point
from symfdp.tradeoff._numeric import integrate_unit

CurveLike = TradeOff | Callable[[np.ndarray], Any]


def _callable(f: Any, name: str = "f") -> Callable[[np.ndarray], np.ndarray]:
    if not callable(f):
        raise TypeError(
            f"{name} must be a TradeOff or a callable alpha -> beta. "
            f"Found {type(f).__name__}."
        )
    return lambda a: check_array(f"{name}(alpha)", f(a))


def fixed_point(f: CurveLike) -> float:
    r"""The fixed point :math:`\alpha^*` with :math:`f(\alpha^*) = \alpha^*`:
    :math:`\Phi(-\mu/2)` for :math:`G_\mu` (Dong et al. 2019, Sec. 2.2),
    :math:`(1-\delta)/(1+e^\varepsilon)` for :math:`f_{\varepsilon,\delta}`, else by
    Brent's method in a bracketing cell."""
    if isinstance(f, TradeOff):
        return f.fixed_point()
    return bracketed_fixed_point(_callable(f))


def auc(f: CurveLike) -> float:
    r"""Area under the curve :math:`\int_0^1 f(\alpha)\,d\alpha` (closed forms where
    known, e.g. :math:`\Phi(-\mu/\sqrt2)` for :math:`G_\mu`; composite
    Gauss--Legendre quadrature otherwise)."""
    if isinstance(f, TradeOff):
        return f.auc()
    return integrate_unit(_callable(f))


def mu_star_gamma(f: CurveLike) -> tuple[float, float]:
    r"""The two-parameter interpreter :math:`(\mu^*, \gamma)` of Zheng et al.
    (2020), Sec. 4.

    Args:
        f: A symmetric trade-off curve (symmetrise an asymmetric one first, as
            footnote 3 of Sec. 4 says), as a TradeOff or a vectorised callable.

    Returns:
        ``(mu_star, gamma)`` as floats; ``mu_star`` is ``inf`` when
        :math:`\alpha^* = 0` (a blatantly non-private curve) or when
        :math:`\alpha^*` is below the smallest normal float (:math:`\mu^* >
        75`, beyond float64).
    """
    return mu_star_at(fixed_point(f)), float(auc(f))


def mu_star_at(a_star: float) -> float:
    r""":math:`\mu^* = \Phi^{-1}(1 - \alpha^*) - \Phi^{-1}(\alpha^*)` for a fixed
    point :math:`\alpha^* \in [0, 1/2]` (``inf`` at 0), computed as
    :math:`-2\Phi^{-1}(\alpha^*)`, avoiding the rounding of :math:`1 - \alpha^*`."""
    return math.inf if a_star <= 0.0 else max(0.0, -2.0 * float(special.ndtri(a_star)))


def compare_mu_star_gamma(
    f1: CurveLike | tuple[float, float], f2: CurveLike | tuple[float, float]
) -> int:
    r"""Zheng et al. (2020), Sec. 4: compare two curves by :math:`(\mu^*, \gamma)`.

    Args:
        f1, f2: Curves (TradeOff or callable) or precomputed ``(mu_star, gamma)``.

    Returns:
        ``1`` if ``f2`` is more private than ``f1`` (:math:`\mu^*_2 < \mu^*_1` and
        :math:`\gamma_2 > \gamma_1`), ``-1`` if ``f1`` is more private than
        ``f2``, and ``0`` if the rule does not order them.
    """
    mu1, g1 = _summary(f1, "f1")
    mu2, g2 = _summary(f2, "f2")
    if mu2 < mu1 and g2 > g1:
        return 1
    if mu1 < mu2 and g1 > g2:
        return -1
    return 0


def _summary(f: Any, name: str) -> tuple[float, float]:
    if isinstance(f, tuple):
        if len(f) != 2:
            raise ValueError(
                f"{name} as a (mu_star, gamma) summary has two entries. Found {f!r}."
            )
        # Zheng et al. (2020), Sec. 4: mu* >= 0 and gamma = int_0^1 f <= 1/2.
        mu_star = check_real("mu_star", f[0], 0.0, allow_inf=True)
        return mu_star, check_real("gamma", f[1], 0.0, 0.5)
    if not isinstance(f, TradeOff):
        f = _callable(f, name)
    return mu_star_gamma(f)
