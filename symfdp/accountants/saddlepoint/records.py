"""Typed records passed between the saddle-point modules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from symfdp.mechanisms.base import FloatArray


@dataclass(frozen=True)
class SaddleValues:
    r"""Values at saddle points ``t(s)`` (arrays of one shape).

    Attributes:
        s: The tilt variable (:math:`t = s` upper side, :math:`-1 - s` lower).
        t: The tilt.
        K: :math:`K(t)`.
        m: :math:`K'(t)`, the tilted mean.
        v: :math:`K''(t)`, the tilted variance.
        eps: The :math:`\varepsilon` whose saddle point is ``t``.
        k3: The third derivative of K at ``t`` where computed (the validity
            check), else ``None``.
    """

    s: FloatArray
    t: FloatArray
    K: FloatArray
    m: FloatArray
    v: FloatArray
    eps: FloatArray
    k3: FloatArray | None = None

    def take(self, idx: Any) -> SaddleValues:
        """The values at ``idx`` (an index, slice or mask)."""
        return SaddleValues(
            self.s[idx],
            self.t[idx],
            self.K[idx],
            self.m[idx],
            self.v[idx],
            self.eps[idx],
            None if self.k3 is None else self.k3[idx],
        )

    def concat(self, other: SaddleValues) -> SaddleValues:
        """``self`` followed by ``other`` (``k3`` is kept only if both have it)."""

        def cat(a: FloatArray, b: FloatArray) -> FloatArray:
            return np.concatenate((a, b))

        k3 = None
        if self.k3 is not None and other.k3 is not None:
            k3 = cat(self.k3, other.k3)
        return SaddleValues(
            cat(self.s, other.s),
            cat(self.t, other.t),
            cat(self.K, other.K),
            cat(self.m, other.m),
            cat(self.v, other.v),
            cat(self.eps, other.eps),
            k3,
        )


@dataclass(frozen=True)
class Estimates:
    """The saddle-point estimates at a batch of ``eps`` on one side.

    Attributes:
        vals: Values at the saddle points.
        capped: Points whose estimate is the Chernoff bound (saddle point beyond
            the grid, degenerate tilted law, or an estimate above the bound).
        d1: :math:`\\hat\\delta_1` (CF-S5), unrepaired except for the cap.
        d2: :math:`\\hat\\delta_2` (CF-S6), unrepaired except for the cap.
        delta: The chosen order's estimate, repaired.
        log_c: Log of the Chernoff bound at the points.
        ok: Points where every tilted Edgeworth term is finite.
        lam3: Tilted skewness (0 where not computed).
        more: Repaired estimates of the next orders (one array per order).
        skew: Largest skewness over the points that count (validity check).
    """

    vals: SaddleValues
    capped: Any
    d1: FloatArray
    d2: FloatArray
    delta: FloatArray
    log_c: FloatArray
    ok: Any
    lam3: FloatArray
    more: tuple[FloatArray, ...] = ()
    skew: float = 0.0


@dataclass(frozen=True)
class Regions:
    """Masks partitioning a batch of ``eps`` by the representation that serves it."""

    zero: Any
    full: Any
    upper: Any
    lower: Any

    def side(self, name: str) -> Any:
        """The mask of side ``"upper"`` or ``"lower"``."""
        return self.upper if name == "upper" else self.lower
