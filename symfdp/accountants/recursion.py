r"""The numerical recursion of Zheng et al. (2020), Sec. 5.1.

For a pair with PLRV :math:`L = \log q/p`, Lemma 5.2 gives the profile of one more
composition from the previous one,

.. math::  \delta_0(\varepsilon) = \max\{1 - e^{\varepsilon}, 0\}, \qquad
           \delta_{k+1}(\varepsilon) = \int \delta_k(\varepsilon - L(x))\, q(x)\, dx,

and the trade-off is :math:`f^{\otimes n}(\alpha) = \sup_\varepsilon 1 -
\delta_n(\varepsilon) - e^{\varepsilon}\alpha` (Sec. 5.1; Dong et al. 2019, Prop.
2.4). (The printed recursion drops the weight :math:`q(x)`; Lemma 5.2 and its proof
in App. D.2 carry it: finding ``zheng2020-recursion-q``, checked by
``derivations/numerical_recursion.py``.)
On an eps grid :math:`\varepsilon_j - L(x)` is rounded down ("floor") or
interpolated ("linear"); the :math:`x`-integral is the PLRV quadrature rule under
:math:`Q`, cost :math:`O(n \cdot N_\varepsilon \cdot N_x)` (the paper's Tables
1-2). Below the grid :math:`1 - e^{\varepsilon - \varepsilon_0}(1 -
\delta(\varepsilon_0))`, above it the last value. **Not certified** (quadrature
and extrapolation errors are unbounded); kept for the paper's tables and as a
check of ``Numerical()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp._progress import Progress
from symfdp._validation import check_array
from symfdp.curve import Answer, PairCurve, Query, invert_profile
from symfdp.mechanisms.base import FloatArray, Mechanism

#: The paper's eps grid (Zheng et al. 2020, Sec. 5.1 and the authors' runs).
PAPER_EPS_GRID: FloatArray = np.linspace(-6.0, 6.0, 100)
ROUNDINGS: tuple[str, ...] = ("floor", "linear")


def lookup(
    grid: FloatArray, values: FloatArray, x: FloatArray, rounding: str
) -> FloatArray:
    """Evaluate a tabulated profile at ``x`` with the recursion's rounding rule."""
    if rounding == "floor":
        idx = np.searchsorted(grid, x, side="right") - 1
        out = values[np.maximum(idx, 0)]
    else:
        out = np.interp(x, grid, values)
    below = x < grid[0]
    if below.any():
        with np.errstate(under="ignore"):
            left = 1.0 - np.exp(x[below] - grid[0]) * (1.0 - values[0])
        out = np.where(below, 0.0, out)
        out[below] = left
    return out


def zheng_recursion(
    components: Sequence[tuple[Mechanism, int]],
    eps_grid: FloatArray,
    rounding: str = "linear",
    *,
    progress: bool | None = None,
) -> FloatArray:
    r""":math:`\delta_n` on ``eps_grid`` by the recursion (Zheng et al. 2020, Sec. 5.1).

    Args:
        components: ``(pair, count)``; the steps run in the given order.
        eps_grid: Increasing grid of eps values.
        rounding: ``"floor"`` (the paper's pessimistic rounding) or ``"linear"``.
        progress: Draw a progress bar (default: when stderr is a terminal).
    """
    delta = np.maximum(-np.expm1(eps_grid), 0.0)
    total = sum(n for _, n in components)
    bar = Progress(total, "recursion", enabled=progress)
    for m, n in components:
        rule = m.plrv_quadrature()
        w = rule.weights("Q")  # finding: zheng2020-recursion-q (the q(x) weight)
        keep = w > 0
        nodes, w = rule.nodes[keep], w[keep]
        shifted = eps_grid[:, None] - nodes[None, :]
        for _ in range(n):
            delta = lookup(eps_grid, delta, shifted, rounding) @ w
            delta = np.clip(delta, 0.0, 1.0)
            bar.update()
    bar.close()
    return delta


@dataclass(frozen=True)
class RecursionPairCurve(PairCurve):
    """Profile tabulated by the recursion; linear interpolation between nodes
    (the inverse by :func:`~symfdp.curve.invert_profile`); no error estimate."""

    eps_grid: FloatArray
    deltas: FloatArray
    symmetric: bool
    rounding: str

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.DELTA:
            return Answer(self.delta(points))
        if query is Query.EPSILON:
            return Answer(invert_profile(self.delta, points))
        return Answer(self.tradeoff(points))

    def delta(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=np.float64)
        flat = lookup(self.eps_grid, self.deltas, e.reshape(-1), self.rounding)
        return np.clip(flat, 0.0, 1.0).reshape(e.shape)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r""":math:`\max(0, \max_j 1 - \delta_j - e^{\varepsilon_j}\alpha)`, plus the
        mirrored lines :math:`e^{-\varepsilon_j}(1 - \delta_j - \alpha)` when the
        composition is symmetric (ALG-8)."""
        a = np.asarray(alpha, dtype=np.float64)
        flat = a.reshape(-1, 1)
        e = self.eps_grid[None, :]
        d = self.deltas[None, :]
        best = np.max(1.0 - d - np.exp(e) * flat, axis=1)
        if self.symmetric:
            best = np.maximum(best, np.max(np.exp(-e) * (1.0 - d - flat), axis=1))
        return cast(
            FloatArray, np.clip(best, 0.0, 1.0 - a.reshape(-1)).reshape(a.shape)
        )


def recursion_pair(
    components: Sequence[tuple[Mechanism, int]],
    eps_grid: FloatArray,
    rounding: str,
) -> RecursionPairCurve:
    """Run the recursion for one composed pair."""
    symmetric = all(m.is_symmetric for m, _ in components)
    deltas = zheng_recursion(components, eps_grid, rounding)
    return RecursionPairCurve(eps_grid, deltas, symmetric, rounding)


def check_eps_grid(eps_grid: ArrayLike) -> FloatArray:
    grid = check_array("eps_grid", eps_grid).reshape(-1)
    if grid.size < 2 or not np.all(np.isfinite(grid)) or np.any(np.diff(grid) <= 0):
        raise ValueError(
            "eps_grid must be a strictly increasing array of at least 2 finite "
            f"values. Found {grid.size} values."
        )
    return grid
