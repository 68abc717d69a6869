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
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from symfdp.curve import Answer, PairCurve, Query
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.epsilon_delta import BlatantLossError

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


class BlatantPair(PairCurve):
    """A composed pair curve of the finite parts, with the blatant mass ``1 - c``
    added exactly (module docstring): values, errors, brackets and repairs of
    the finite pair mapped. Other attributes (diagnostics) are the finite pair
    curve's."""

    def __init__(self, pair: PairCurve, keep: float) -> None:
        self.inner = pair
        self.keep = float(keep)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"BlatantPair({self.inner!r}, keep={self.keep!r})"

    @property
    def info(self) -> Mapping[str, Any]:  # type: ignore[override]
        return self.inner.info

    @property
    def support(self) -> tuple[float, float] | None:  # type: ignore[override]
        return self.inner.support

    @property
    def estimates_error(self) -> bool:
        return self.inner.estimates_error

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.DELTA:
            found = self.inner.answer(query, points)
            return self._mapped(found, self._map_delta, self._scale)
        if query is Query.EPSILON:
            return self.inner.answer(query, self._target(points))
        a = points
        found = self.inner.answer(query, np.clip(a / self.keep, 0.0, 1.0))
        zero = a > self.keep

        def scale(v: FloatArray) -> FloatArray:
            return np.where(zero, 0.0, self.keep * v)

        return self._mapped(found, scale, scale)

    def _mapped(
        self,
        found: Answer,
        fn: Callable[[FloatArray], FloatArray],
        err_fn: Callable[[FloatArray], FloatArray],
    ) -> Answer:
        """``found`` with values and bracket mapped by ``fn`` and the errors by
        ``err_fn``."""
        errors = None if found.errors is None else err_fn(found.errors)
        lower = None if found.lower is None else fn(found.lower)
        upper = None if found.upper is None else fn(found.upper)
        return Answer(fn(found.values), errors, lower, upper, found.repairs)

    def _scale(self, err: FloatArray) -> FloatArray:
        return self.keep * err

    def _map_delta(self, d: FloatArray) -> FloatArray:
        return (1.0 - self.keep) + self.keep * d

    def _target(self, d: FloatArray) -> FloatArray:
        """The finite composition's delta for ``delta``.

        Raises:
            BlatantLossError: ``delta <= 1 - c``: no epsilon is finite there,
                whatever the accountant.
        """
        inner = 1.0 - (1.0 - d) / self.keep
        if not np.all(inner > 0.0):
            raise BlatantLossError(
                f"no finite epsilon at delta = {float(np.min(d)):.6g}: the "
                f"composition is blatant (infinite privacy loss) with probability "
                f"1 - c = {1.0 - self.keep:.6g} (its (eps, delta) events), so "
                "delta(eps) >= 1 - c for every eps, with every accountant (the "
                "mass is exact). Ask for a delta above it."
            )
        return inner
