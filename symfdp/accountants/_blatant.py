r"""Blatant outcomes: compositions of pairs with an infinite-loss mass.

A mechanism with ``blatant_mass`` :math:`w > 0` and ``finite_part()``
:math:`(P_f, Q_f)` is the pair :math:`P = (1-w) P_f + w\,\mathbb 1_A`,
:math:`Q = (1-w) Q_f + w\,\mathbb 1_B` with :math:`A, B` outside the supports
(:class:`~symfdp.mechanisms.EpsilonDelta`). In a composition the loss is infinite
iff some component is blatant, with probability :math:`1 - c`,
:math:`c = \prod_i (1 - w_i)^{n_i}` (under P and under Q), and otherwise it is the
composition of the finite parts. Hence, with :math:`\delta_f, f_f` of the finite
composition,

.. math::  \delta(\varepsilon) = 1 - c + c\,\delta_f(\varepsilon), \qquad
           f(\alpha) = c\, f_f(\alpha / c)\ (\alpha \le c),\ 0\ (\alpha > c),

and :math:`\varepsilon(\delta) = \varepsilon_f(1 - (1-\delta)/c)` for :math:`\delta
> 1 - c` (``ValueError`` otherwise); brackets and error estimates map alike.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp.mechanisms.base import FloatArray, Mechanism

Components = tuple[tuple[Mechanism, int], ...]


def split_blatant(components: Components) -> tuple[Components, float]:
    """``(finite components, c)``: each mechanism with a ``blatant_mass`` replaced
    by its ``finite_part()``, and the probability ``c`` of no blatant outcome."""
    log_keep = 0.0
    out: list[tuple[Mechanism, int]] = []
    for m, n in components:
        w = float(getattr(m, "blatant_mass", 0.0))
        if w > 0.0:
            log_keep += n * math.log1p(-w)
            m = m.finite_part()  # type: ignore[attr-defined]
        out.append((m, n))
    return tuple(out), math.exp(log_keep)


class BlatantPair:
    """A composed pair curve of the finite parts, with the blatant mass ``1 - c``
    added exactly (module docstring). Optional methods exist iff the finite
    pair curve has them; other attributes are the finite pair curve's."""

    _MAPPED = (
        "epsilon",
        "delta_bounds",
        "epsilon_bounds",
        "tradeoff_bounds",
        "delta_and_error",
        "epsilon_and_error",
    )

    def __init__(self, pair: Any, keep: float) -> None:
        self._pair = pair
        self.keep = float(keep)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        inner = getattr(self._pair, name)
        if name in self._MAPPED:
            return getattr(self, "_" + name)
        return inner

    def __repr__(self) -> str:
        return f"BlatantPair({self._pair!r}, keep={self.keep!r})"

    # ------------------------------------------------------------ profile
    def _map_delta(self, d: ArrayLike) -> FloatArray:
        return (1.0 - self.keep) + self.keep * np.asarray(d, dtype=np.float64)

    def delta(self, eps: ArrayLike) -> FloatArray:
        return self._map_delta(self._pair.delta(eps))

    def _delta_bounds(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        lo, hi = self._pair.delta_bounds(eps)
        return self._map_delta(lo), self._map_delta(hi)

    def _delta_and_error(self, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
        d, err = self._pair.delta_and_error(eps)
        return self._map_delta(d), self.keep * np.asarray(err, dtype=np.float64)

    # ------------------------------------------------------------ inverse
    def _target(self, delta: ArrayLike) -> FloatArray:
        """The finite composition's delta for ``delta``.

        Raises:
            ValueError: ``delta <= 1 - c``: no epsilon is finite there.
        """
        d = np.asarray(delta, dtype=np.float64)
        inner = 1.0 - (1.0 - d) / self.keep
        if not np.all(inner > 0.0):
            raise ValueError(
                f"no finite epsilon at delta = {float(np.min(d)):.6g}: the "
                f"composition is blatant (infinite privacy loss) with probability "
                f"1 - c = {1.0 - self.keep:.6g} (its (eps, delta) events), so "
                "delta(eps) >= 1 - c for every eps. Ask for a delta above it."
            )
        return inner

    def _epsilon(self, delta: ArrayLike) -> FloatArray:
        return cast(FloatArray, self._pair.epsilon(self._target(delta)))

    def _epsilon_bounds(self, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        return cast(
            tuple[FloatArray, FloatArray],
            self._pair.epsilon_bounds(self._target(delta)),
        )

    def _epsilon_and_error(self, delta: FloatArray) -> tuple[FloatArray, FloatArray]:
        return cast(
            tuple[FloatArray, FloatArray],
            self._pair.epsilon_and_error(self._target(delta)),
        )

    # ------------------------------------------------------------ trade-off
    def _map_tradeoff(self, fn: Any, alpha: ArrayLike) -> FloatArray:
        a = np.asarray(alpha, dtype=np.float64)
        inner = np.asarray(fn(np.clip(a / self.keep, 0.0, 1.0)), dtype=np.float64)
        return np.where(a <= self.keep, self.keep * inner, 0.0)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        return self._map_tradeoff(self._pair.tradeoff, alpha)

    def _tradeoff_bounds(self, alpha: ArrayLike) -> tuple[FloatArray, FloatArray]:
        a = np.asarray(alpha, dtype=np.float64)
        lo, hi = self._pair.tradeoff_bounds(np.clip(a / self.keep, 0.0, 1.0))
        zero = a > self.keep
        return (
            np.where(zero, 0.0, self.keep * np.asarray(lo, np.float64)),
            np.where(zero, 0.0, self.keep * np.asarray(hi, np.float64)),
        )
