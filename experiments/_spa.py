"""Shared pieces of the saddle-point accountant experiments (Alghamdi et al. 2022).

* the slides' DP-SGD pair: their delta(eps) = E_eps(mixture || N(0, sigma^2)) is
  symfdp's ``pair="add"``; ``pair="remove"`` is the other adjacency direction;
* :func:`estimates_and_bracket`: delta_hat_1, delta_hat_2 (CF-S5, CF-S6), the
  CF-S7 error bound and the certified bracket of the FFT accountant at given eps;
* :func:`resolved`: where that bracket is narrow enough to judge an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symfdp import accountants as A

#: The slides' DP-SGD pair in symfdp's naming.
SLIDES_PAIR = "add"
#: How the two adjacency directions are labelled in the tables.
PAIR_LABELS = {
    "add": "slides (symfdp add)",
    "remove": "other direction (symfdp remove)",
}


#: Table columns of :func:`estimates_and_bracket`'s results, in its order.
ESTIMATE_COLUMNS = ("delta_hat_1", "delta_hat_2", "cf_s7_bound", "num_lo", "num_hi")


def estimates_and_bracket(
    mech: Any, n: int, eps: np.ndarray, ref_acc: Any
) -> tuple[np.ndarray, ...]:
    """(delta_hat_1, delta_hat_2, CF-S7 bound, lower, upper) at ``eps`` for the
    n-fold composition of ``mech``'s first pair; lower/upper: the certified
    bracket of ``ref_acc`` (a Numerical accountant)."""
    pair = A.SaddlePoint(order=2).compose(mech, n).pairs[0]
    d1, d2 = pair.delta_estimates(eps)
    bound = pair.delta_error_bound(eps)
    lo, hi = ref_acc.compose(mech, n).pairs[0].delta_bounds(eps)
    return d1, d2, bound, lo, hi


def resolved(lo: np.ndarray, hi: np.ndarray, width: float) -> np.ndarray:
    """Where the bracket [lo, hi] has a positive midpoint and a relative width
    (hi - lo)/midpoint <= ``width``."""
    mid = 0.5 * (lo + hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mid > 0) & ((hi - lo) / np.where(mid > 0, mid, 1.0) <= width)


def resolved_end(lo: np.ndarray, hi: np.ndarray, width: float) -> int:
    """Number of leading grid points at which the bracket is :func:`resolved`."""
    bad = np.flatnonzero(~resolved(lo, hi, width))
    return int(bad[0]) if bad.size else lo.size
