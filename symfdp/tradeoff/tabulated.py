r"""Piecewise-linear trade-off functions: :class:`Tabulated` and
:class:`FromPrivacyProfile` (the exact upper envelope of the lines of a family
of :math:`(\varepsilon_i, \delta_i)` guarantees)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from symfdp._validation import check_array, check_bool
from symfdp.numeric.tabulate import tabulated_inverse
from symfdp.tradeoff._base import FloatArray, TradeOff
from symfdp.tradeoff._numeric import capped_exp, upper_envelope

#: Slack allowed in the monotonicity and ``beta <= 1 - alpha`` checks of a table
#: (rounding in the code that produced it); larger violations raise.
TABLE_TOL: float = 1e-12


@dataclass(frozen=True, eq=False)
class Tabulated(TradeOff):
    r"""The piecewise-linear interpolant of a tabulated trade-off curve.

    Args:
        alpha: Strictly increasing abscissae with ``alpha[0] = 0`` and
            ``alpha[-1] = 1``.
        beta: Non-increasing values in [0, 1] with ``beta <= 1 - alpha``
            (violations up to ``TABLE_TOL`` are repaired, larger ones raise).
        symmetric: Declare the curve symmetric (:math:`f = f^{-1}`), so that the
            inverse is the curve itself and :class:`~symfdp.tradeoff.Subsampled`
            uses eq. (14).

    Raises:
        ValueError: the table is not a valid trade-off curve.
    """

    alpha: Any
    beta: Any
    symmetric: bool = False

    _piecewise_linear = True

    def __post_init__(self) -> None:
        a = check_array("alpha", self.alpha, 0.0, 1.0)
        b = check_array("beta", self.beta, 0.0, 1.0)
        if a.ndim != 1 or a.shape != b.shape or a.size < 2:
            raise ValueError(
                "alpha and beta must be 1-d arrays of the same length >= 2. "
                f"Found shapes {a.shape} and {b.shape}."
            )
        if np.any(np.diff(a) <= 0):
            raise ValueError("alpha must be strictly increasing.")
        if a[0] != 0.0 or a[-1] != 1.0:
            raise ValueError(
                f"alpha must start at 0 and end at 1. Found [{a[0]:g}, {a[-1]:g}]."
            )
        rise = np.diff(b)
        if np.any(rise > TABLE_TOL):
            k = int(np.argmax(rise))
            raise ValueError(
                f"beta must be non-increasing. Found beta rising by {rise[k]:.3g} "
                f"at alpha={a[k + 1]:g}."
            )
        excess = b - (1.0 - a)
        if np.any(excess > TABLE_TOL):
            k = int(np.argmax(excess))
            raise ValueError(
                "beta must satisfy beta <= 1 - alpha. "
                f"Found {b[k]:g} at alpha={a[k]:g}."
            )
        b = np.minimum.accumulate(np.minimum(b, 1.0 - a))
        a, b = a.copy(), b.copy()
        a.setflags(write=False)
        b.setflags(write=False)
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "beta", b)
        object.__setattr__(self, "symmetric", check_bool("symmetric", self.symmetric))

    @property
    def is_symmetric(self) -> bool:
        return self.symmetric

    def _eval(self, a: FloatArray) -> FloatArray:
        return cast(FloatArray, np.interp(a, self.alpha, self.beta))

    def _inverse_eval(self, a: FloatArray) -> FloatArray:
        if self.symmetric:
            return self._eval(a)
        return tabulated_inverse(self.alpha, self.beta, a)

    def _nodes(self) -> FloatArray:
        return cast(FloatArray, self.alpha)

    def _breakpoints(self) -> tuple[float, ...]:
        return tuple(float(v) for v in self.alpha[1:-1])

    def _auc(self) -> float:
        # Exact for the linear interpolant.
        return float(
            np.sum(np.diff(self.alpha) * 0.5 * (self.beta[1:] + self.beta[:-1]))
        )

    def __repr__(self) -> str:
        return f"Tabulated(<{self.alpha.size} points>, symmetric={self.symmetric})"


@dataclass(frozen=True, eq=False)
class FromPrivacyProfile(TradeOff):
    r""":math:`f = \sup_i f_{\varepsilon_i, \delta_i}`, Dong et al. (2019),
    Prop. 2.8 (Zheng et al. 2020, Prop. 2.4): a mechanism is
    :math:`(\varepsilon_i, \delta_i)`-DP for every :math:`i` iff it is f-DP; exact
    and symmetric.

    Args:
        eps: :math:`\varepsilon_i \ge 0` (finite).
        delta: :math:`\delta_i \in [0, 1]`, broadcast against ``eps``.
    """

    eps: Any
    delta: Any

    _piecewise_linear = True

    def __post_init__(self) -> None:
        e = check_array("eps", self.eps, 0.0, math.inf)
        d = check_array("delta", self.delta, 0.0, 1.0)
        try:
            e, d = np.broadcast_arrays(e, d)
        except ValueError as exc:
            raise ValueError("eps and delta must have broadcastable shapes.") from exc
        if e.size == 0:
            raise ValueError("FromPrivacyProfile needs at least one (eps, delta) pair.")
        e, d = e.ravel().copy(), d.ravel().copy()
        e.setflags(write=False)
        d.setflags(write=False)
        object.__setattr__(self, "eps", e)
        object.__setattr__(self, "delta", d)

    @property
    def is_symmetric(self) -> bool:
        return True

    @functools.cached_property
    def table(self) -> Tabulated:
        """The exact piecewise-linear curve (vertices of the envelope)."""
        w = capped_exp(self.eps)
        keep = 1.0 - self.delta
        intercepts = np.concatenate((keep, keep / w, [0.0]))
        slopes = np.concatenate((-w, -1.0 / w, [0.0]))
        breaks, lines = upper_envelope(intercepts, slopes)
        inner = breaks[(breaks > 0.0) & (breaks < 1.0)]
        nodes = np.unique(np.concatenate(([0.0, 1.0], inner)))
        best = lines[np.searchsorted(breaks, nodes)]
        values = np.clip(intercepts[best] + slopes[best] * nodes, 0.0, 1.0 - nodes)
        return Tabulated(nodes, np.minimum.accumulate(values), symmetric=True)

    def _eval(self, a: FloatArray) -> FloatArray:
        return self.table._eval(a)

    def _nodes(self) -> FloatArray:
        return cast(FloatArray, self.table.alpha)

    def _breakpoints(self) -> tuple[float, ...]:
        return self.table._breakpoints()

    def _auc(self) -> float:
        return self.table._auc()

    def __repr__(self) -> str:
        return f"FromPrivacyProfile(<{self.eps.size} pairs>)"
