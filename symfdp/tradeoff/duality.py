r"""Primal--dual conversions between trade-off functions and privacy profiles:
:func:`conjugate`, :func:`privacy_profile` and :func:`tradeoff_from_profile`
(for accountants that only produce :math:`\delta(\varepsilon)`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import (
    check_array,
    check_bool,
    check_callable,
    scalar_or_array,
)
from symfdp._warnings import warn_approximation
from symfdp.tradeoff._base import FloatArray, TradeOff
from symfdp.tradeoff._numeric import EXP_CAP, capped_exp, golden_max, upper_envelope


def _check_tradeoff(f: Any) -> TradeOff:
    if not isinstance(f, TradeOff):
        raise TypeError(f"f must be a TradeOff. Found {type(f).__name__}.")
    return f


def conjugate(f: TradeOff, y: ArrayLike, *, method: str = "auto") -> Any:
    r"""Convex conjugate :math:`f^*(y) = \sup_{0 \le x \le 1} [y x - f(x)]`.

    Dong et al. (2019), eq. (8). Closed forms where known (e.g.
    :math:`G_\mu^*(y) = y\Phi(-\mu/2 - \log(-y)/\mu) - \Phi(-\mu/2 + \log(-y)/\mu)`
    for :math:`y < 0`, Dong et al. 2019, proof of Cor. `GDPtoDPrep`); otherwise
    the supremum over the lower convex hull of :math:`f` on the alpha grid.

    Args:
        f: A trade-off function.
        y: Finite real numbers.
        method: ``"auto"`` or ``"grid"`` (force the generic method).
    """
    return _check_tradeoff(f).conjugate(y, method=method)


def privacy_profile(f: TradeOff, eps: ArrayLike, *, method: str = "auto") -> Any:
    r""":math:`\delta(\varepsilon) = 1 + f^*(-e^\varepsilon)` for every real
    :math:`\varepsilon` (Dong et al. (2019), Prop. `ftoDPrep`; Zheng et al. (2020),
    Prop. 2.3 and Lemma 5.1): :math:`E_{e^\varepsilon}(Q \| P)` for
    :math:`f = T(P, Q)`.

    Args:
        f: A trade-off function.
        eps: Real numbers.
        method: ``"auto"`` or ``"grid"``.

    Returns:
        Values in [0, 1], non-increasing in ``eps``.
    """
    return _check_tradeoff(f).privacy_profile(eps, method=method)


def _evaluate_delta(delta_fn: Callable[[FloatArray], Any], e: FloatArray) -> FloatArray:
    d = np.asarray(delta_fn(e), dtype=np.float64)
    if d.shape != e.shape:
        raise ValueError(
            f"delta_fn must return an array of the shape of its input {e.shape}. "
            f"Found {d.shape}."
        )
    if not np.all(np.isfinite(d)):
        raise ValueError("delta_fn returned NaN or infinite values.")
    return np.clip(d, 0.0, 1.0)


def supporting_lines(
    delta_fn: Callable[[FloatArray], Any],
    flat: FloatArray,
    grid: FloatArray,
    symmetric: bool,
    refine: bool,
) -> FloatArray:
    r""":math:`\max\{0, \sup_{\varepsilon} 1 - \delta(\varepsilon) -
    e^{\varepsilon}\alpha\}` at the 1-d ``flat`` for validated input (a sorted,
    distinct ``grid``, >= 0 when ``symmetric``), without the clip to
    :math:`1 - \alpha` (see :func:`tradeoff_from_profile`)."""
    grid = np.clip(grid, -EXP_CAP, EXP_CAP)

    if symmetric:

        def dtilde(x: FloatArray) -> FloatArray:
            # delta(-e) = 1 - e^{-e} (1 - delta(e)) for a symmetric curve.
            d = _evaluate_delta(delta_fn, np.abs(x))
            return np.where(x >= 0, d, -np.expm1(x) + np.exp(np.minimum(x, 0)) * d)

        grid = np.unique(np.concatenate((-grid, grid)))
    else:

        def dtilde(x: FloatArray) -> FloatArray:
            return _evaluate_delta(delta_fn, x)

    d = dtilde(grid)
    intercepts, slopes = 1.0 - d, -capped_exp(grid)
    if grid.size == 1:
        best = np.zeros(flat.shape, dtype=np.intp)
    else:
        breaks, lines = upper_envelope(intercepts, slopes)
        best = lines[np.searchsorted(breaks, flat)]
    value = intercepts[best] + slopes[best] * flat
    if refine and grid.size > 1:
        lo_e = grid[np.maximum(best - 1, 0)]
        hi_e = grid[np.minimum(best + 1, grid.size - 1)]
        _, refined = golden_max(
            lambda x: 1.0 - dtilde(x) - capped_exp(x) * flat, lo_e, hi_e
        )
        value = np.maximum(value, refined)
    return cast(FloatArray, np.maximum(value, 0.0))


def tradeoff_from_profile(
    delta_fn: Callable[[FloatArray], Any],
    alpha: ArrayLike,
    eps_grid: ArrayLike,
    *,
    symmetric: bool = False,
    refine: bool = True,
) -> Any:
    r"""Trade-off curve from a privacy profile, vectorised over alpha and eps.

    .. math::
        f(\alpha) = \max\Big\{0, \sup_{\varepsilon} 1 - \delta(\varepsilon)
        - e^{\varepsilon}\alpha\Big\}

    (Dong et al. 2019, Prop. 2.8, App. F and the proof of Prop. F.2; Zheng et al.
    2020, Sec. 5.1): conservative on any grid when :math:`\delta` is an upper
    bound. The supremum over ``eps_grid`` is taken on the upper envelope of the
    lines, with ``refine`` by golden-section search (unimodal in
    :math:`\varepsilon`, :math:`f^*` being convex).

    Args:
        delta_fn: Vectorised :math:`\varepsilon \mapsto \delta(\varepsilon)`.
        alpha: Type I errors in [0, 1].
        eps_grid: Grid of :math:`\varepsilon`. For ``symmetric=False`` any reals
            (negative values recover slopes in (-1, 0)); for ``symmetric=True``
            values >= 0.
        symmetric: Add the mirrored lines
            :math:`e^{-\varepsilon}(1 - \delta(\varepsilon) - \alpha)` (Prop. 2.8).
        refine: Refine the supremum between grid points.

    Returns:
        ``f(alpha)``: a float for scalar ``alpha``, else an array.
    """
    a = check_array("alpha", alpha, 0.0, 1.0)
    check_callable("delta_fn", delta_fn)
    symmetric = check_bool("symmetric", symmetric)
    refine = check_bool("refine", refine)
    lo = 0.0 if symmetric else -math.inf
    grid = np.unique(check_array("eps_grid", eps_grid, lo, math.inf))
    if grid.size == 0:
        raise ValueError("eps_grid must contain at least one value.")
    value = supporting_lines(delta_fn, a.ravel(), grid, symmetric, refine)
    value = value.reshape(a.shape)
    excess = value - (1.0 - a)
    if np.any(excess > 1e-12):
        warn_approximation(
            "tradeoff_from_profile: the curve exceeds 1 - alpha by up to "
            f"{float(excess.max()):.3g}, so delta_fn is below the profile of any "
            "trade-off function there; clipped to 1 - alpha."
        )
    return scalar_or_array(np.minimum(value, 1.0 - a))
