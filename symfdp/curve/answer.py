"""The pair protocol: how a :class:`~symfdp.curve.PrivacyCurve` asks one composed
dominating pair for an answer.

A pair curve answers three kinds of query (:class:`Query`) at an array of points
that the curve has validated (a pair trusts them) with an :class:`Answer`: the
values, an estimate of their error where the method's mathematics gives one, a
certified bracket where the method certifies one, and the records
(:class:`Repair`) of what the approximation changed to keep the answer valid. A
pair never warns in a query: the curve turns the records of one query into one
:class:`~symfdp.ApproximationWarning`. A pair that cannot answer raises
``ValueError`` saying why and naming the method that serves the case.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


class Query(enum.Enum):
    """What is asked, and what the points are."""

    #: The privacy profile delta(eps) at finite eps (1-d float64).
    DELTA = "delta(eps)"
    #: Its inverse epsilon(delta) at delta in (0, 1) (1-d float64).
    EPSILON = "epsilon(delta)"
    #: The trade-off f(alpha) at alpha in [0, 1] (1-d float64).
    TRADEOFF = "trade-off"

    @property
    def argument(self) -> str:
        """The name of the points: ``eps``, ``delta`` or ``alpha``."""
        return _ARGUMENTS[self]


_ARGUMENTS = {Query.DELTA: "eps", Query.EPSILON: "delta", Query.TRADEOFF: "alpha"}


@dataclass(frozen=True, slots=True)
class Repair:
    """What an approximation changed to keep an answer valid (or where it left
    its valid regime without a repair: then ``size`` is ``inf``).

    Attributes:
        query: The query the repair belongs to.
        what: One sentence: what left which range and how it was repaired.
        at: The point where it moved the answer most (NaN if not one point).
        size: How far it moved the answer there (absolute; ``inf`` if unknown).
    """

    query: Query
    what: str
    at: float = float("nan")
    size: float = float("inf")


@dataclass(frozen=True, slots=True)
class Answer:
    """A pair's (or a curve's) answer to one query.

    Attributes:
        values: One value per point (the points' shape).
        errors: Estimates of the absolute errors (>= 0, ``inf`` where unknown);
            None when the method gives no estimate.
        lower, upper: A certified bracket (certified pairs fill both; a
            one-sided bound fills the side it bounds); None otherwise.
        repairs: What the approximation changed (see :class:`Repair`).
    """

    values: FloatArray
    errors: FloatArray | None = None
    lower: FloatArray | None = None
    upper: FloatArray | None = None
    repairs: tuple[Repair, ...] = ()

    def bracket(self) -> tuple[FloatArray, FloatArray]:
        """``(lower, upper)`` of a certified answer.

        Raises:
            ValueError: the answer carries no two-sided bracket.
        """
        if self.lower is None or self.upper is None:
            raise ValueError("this answer carries no certified bracket.")
        return self.lower, self.upper


def exact_answer(values: FloatArray) -> Answer:
    """The answer of an exact closed form: no error, a zero-width bracket."""
    return Answer(values, np.zeros(values.shape), values, values)


_NO_INFO: Mapping[str, Any] = MappingProxyType({})


class PairCurve(ABC):
    """One composed dominating pair ``(P^n, Q^n)``.

    Attributes:
        info: Diagnostics of the pair (read-only after compose).
        support: The range of the composed loss under Q, when the pair knows it
            (the accountant then clips the pair into it), else None.
    """

    info: Mapping[str, Any] = _NO_INFO
    support: tuple[float, float] | None = None

    @property
    def estimates_error(self) -> bool:
        """Whether the pair's answers to :data:`Query.DELTA` and
        :data:`Query.EPSILON` carry error estimates."""
        return False

    @abstractmethod
    def answer(self, query: Query, points: FloatArray) -> Answer:
        """The answer at validated 1-d ``points`` (see :class:`Query`).

        Raises:
            ValueError: the pair cannot answer here (the message says why and
                names the method that serves the case).
        """
