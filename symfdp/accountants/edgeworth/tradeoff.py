r"""The trade-off side of the Edgeworth pair: the two-sided formula (Zheng et
al. (2020), eq. (3.5)) with :math:`x(\alpha)` from the P-law's inverse survival
function (Method (i)) or its Cornish–Fisher polynomial (Method (ii)), clipped at
:math:`1 - \alpha` and replaced by its greatest convex minorant (module
docstring of :mod:`symfdp.accountants.edgeworth`, items 2-3)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.polynomial.polynomial import polyval
from scipy import special
from scipy.optimize import isotonic_regression

from symfdp.accountants.edgeworth.law import (
    EdgeworthLaw,
    cornish_fisher_coefficients,
    increasing_range,
)
from symfdp.accountants.edgeworth.repairs import tradeoff_repairs
from symfdp.curve import Answer, Repair
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.tabulate import alpha_grid, lower_convex_hull

#: Three-point convexity violations below this are round-off (no hull needed).
_CONVEX_ATOL: Final = 1e-12


def convex_through(
    a: FloatArray, beta: FloatArray, grid: FloatArray, hull: FloatArray
) -> FloatArray:
    """Lower convex hull of the tabulated hull's nodes and the points
    ``(a, beta)``, evaluated at ``a`` (a convex minorant of both)."""
    x = np.concatenate((grid, a.ravel()))
    y = np.concatenate((hull, beta.ravel()))
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    first = np.concatenate(([True], np.diff(x) > 0))  # lowest value per abscissa
    xv, yv = lower_convex_hull(x[first], y[first])
    return np.interp(a, xv, yv)


@dataclass(frozen=True)
class EdgeworthTradeoff:
    """The repaired trade-off of one Edgeworth pair (its hull is built on the
    first query and kept).

    Attributes:
        order: Expansion order ``J``.
        inverse: ``"numerical"`` or ``"cornish_fisher"``.
        law_p, law_q: The fitted laws of the loss under P and Q.
    """

    order: int
    inverse: str
    law_p: EdgeworthLaw
    law_q: EdgeworthLaw

    @functools.cached_property
    def cf(self) -> FloatArray:
        """Ascending coefficients of the Cornish–Fisher quantile :math:`x(z)` of
        the P-law (used with ``inverse="cornish_fisher"``)."""
        return cornish_fisher_coefficients(self.law_p.dist.lambdas, self.order)

    @functools.cached_property
    def cf_range(self) -> tuple[float, float]:
        """The interval :math:`[z_-, z_+]` on which :math:`x(z)` increases."""
        return increasing_range(self.cf)

    # ------------------------------------------------------------ trade-off
    def _threshold(self, a: FloatArray, repair: bool) -> FloatArray:
        """Standardised P-threshold x(alpha) with P_P(X > x) = alpha."""
        if self.inverse == "numerical":
            return self.law_p.dist.isf_values(a)
        with np.errstate(divide="ignore"):
            z = -special.ndtri(a)
        finite = np.isfinite(z)
        zc = np.where(finite, z, 0.0)
        if repair:
            lo, hi = self.cf_range
            inner = np.clip(zc, lo, hi)
            x = polyval(inner, self.cf) + (zc - inner)
        else:
            x = polyval(zc, self.cf)
        return np.where(finite, x, z)

    def _tradeoff_of_threshold(self, x: FloatArray) -> FloatArray:
        p, q = self.law_p, self.law_q
        with np.errstate(invalid="ignore"):
            y = (p.mean + p.sd * x - q.mean) / q.sd
        return q.dist.cdf_values(y)

    def raw(self, a: FloatArray) -> FloatArray:
        """The unrepaired two-sided formula (3.5) at validated ``a``."""
        return self._tradeoff_of_threshold(self._threshold(a, repair=False))

    def _clipped(self, a: FloatArray) -> tuple[FloatArray, FloatArray]:
        x = self._threshold(a, repair=True)
        beta = self._tradeoff_of_threshold(x)
        return np.minimum(beta, 1.0 - a), x

    @functools.cached_property
    def _hull(self) -> tuple[FloatArray, FloatArray] | None:
        """Greatest convex minorant of the clipped curve on the alpha grid (None if
        the tabulated curve is already convex to ``_CONVEX_ATOL``)."""
        grid = alpha_grid()
        beta, _ = self._clipped(grid)
        return self._hull_of(grid, beta)

    @staticmethod
    def _hull_of(
        grid: FloatArray, beta: FloatArray
    ) -> tuple[FloatArray, FloatArray] | None:
        """The hull of the clipped curve ``beta`` tabulated on ``grid``: slopes by
        weighted isotonic regression of the secant slopes (Barlow et al. 1972)."""
        x0, x1, x2 = grid[:-2], grid[1:-1], grid[2:]
        chord = beta[:-2] + (beta[2:] - beta[:-2]) * (x1 - x0) / (x2 - x0)
        if np.all(beta[1:-1] - chord <= _CONVEX_ATOL):
            return None
        width = np.diff(grid)
        slopes = isotonic_regression(np.diff(beta) / width, weights=width).x
        hull = beta[0] + np.concatenate(([0.0], np.cumsum(slopes * width)))
        return grid, np.maximum(hull, 0.0)

    def answer(self, a: FloatArray) -> Answer:
        """The repaired trade-off (module docstring, items 1-3), its ``errors``
        the distance the repairs moved each value (the pair adds the analytic
        estimate); cached on :func:`~symfdp.numeric.tabulate.alpha_grid`."""
        if a is alpha_grid():
            parts = self._on_grid
            moved = np.abs(parts[1] - parts[-1])
            return Answer(parts[-1].copy(), moved, repairs=self._repairs(a, *parts))
        if "_hull" in self.__dict__:
            x = self._threshold(a, repair=True)
            raw = self._tradeoff_of_threshold(x)
        else:
            # First call: the hull's grid and ``a`` share one inverse (elementwise,
            # so every value is the one a separate evaluation gives).
            grid = alpha_grid()
            x_all = self._threshold(np.concatenate((a, grid)), repair=True)
            raw_all = self._tradeoff_of_threshold(x_all)
            x = x_all[: a.size]
            raw = raw_all[: a.size]
            beta_grid = np.minimum(raw_all[a.size :], 1.0 - grid)
            self.__dict__["_hull"] = self._hull_of(grid, beta_grid)
        beta = np.minimum(raw, 1.0 - a)
        hull = self._hull
        out = beta if hull is None else convex_through(a, beta, *hull)
        moved = np.abs(raw - out)
        return Answer(out, moved, repairs=self._repairs(a, x, raw, beta, out))

    @functools.cached_property
    def _on_grid(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """``(x, raw, clipped, repaired)`` on the alpha grid (one evaluation)."""
        grid = alpha_grid()
        x = self._threshold(grid, repair=True)
        raw = self._tradeoff_of_threshold(x)
        beta = np.minimum(raw, 1.0 - grid)
        if "_hull" not in self.__dict__:
            self.__dict__["_hull"] = self._hull_of(grid, beta)
        hull = self._hull
        out = beta if hull is None else convex_through(grid, beta, *hull)
        return x, raw, beta, out

    def _repairs(
        self,
        a: FloatArray,
        x: FloatArray,
        raw: FloatArray,
        clipped: FloatArray,
        out: FloatArray,
    ) -> tuple[Repair, ...]:
        """:func:`~.repairs.tradeoff_repairs` of this trade-off."""
        cf = self.cf_range if self.inverse == "cornish_fisher" else None
        return tradeoff_repairs(self.law_p, self.law_q, cf, a, x, raw, clipped, out)
