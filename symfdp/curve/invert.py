r"""Profile inversion: :math:`\varepsilon(\delta) = \inf\{\varepsilon \ge 0 :
\delta(\varepsilon) \le d\}` for pairs that only know their profile (called
explicitly by those pairs; the root finders are :mod:`symfdp.numeric.roots`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from symfdp.curve.answer import FloatArray
from symfdp.numeric.roots import expand_bracket_up, monotone_bisect

#: Largest epsilon searched by :func:`invert_profile`.
EPS_SEARCH_LIMIT: Final = 1e4


def invert_profile(
    delta_fn: Callable[[FloatArray], FloatArray], target: FloatArray
) -> FloatArray:
    r"""Vectorised :math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le d\}`
    for a non-increasing ``delta_fn``: the bracket :math:`[0, \varepsilon_{hi}]`
    grown geometrically up to ``EPS_SEARCH_LIMIT``, then bisection to an
    absolute 1e-12 / relative 1e-13.

    Raises:
        ValueError: the profile stays above a target up to ``EPS_SEARCH_LIMIT``.
    """
    target = np.asarray(target, dtype=np.float64)
    zeros = np.zeros_like(target)
    try:
        hi = expand_bracket_up(
            delta_fn, target, zeros, np.ones_like(target), limit=EPS_SEARCH_LIMIT
        )
    except RuntimeError:
        raise ValueError(
            f"epsilon(delta) lies above the search limit {EPS_SEARCH_LIMIT:g} for "
            f"delta = {float(np.min(target)):g}: the profile is still above it "
            "there. Such an epsilon carries no privacy; compare a larger delta."
        ) from None
    return monotone_bisect(delta_fn, target, zeros, hi, xtol=1e-12, rtol=1e-13)
