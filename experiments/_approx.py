"""ApproximationWarning around a call: counted, or silenced.

Asymptotic accountants warn (``symfdp.ApproximationWarning``) where they leave
their valid range. Experiments that report how often this happens use
:func:`recorded`; timing loops and searches that only need the value use
:func:`quietly`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TypeVar

from symfdp import ApproximationWarning

T = TypeVar("T")


def recorded(fn: Callable[[], T]) -> tuple[T, int]:
    """``fn()`` and the number of ApproximationWarnings it raised (each counted,
    none shown; other warnings raised meanwhile are swallowed too)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ApproximationWarning)
        out = fn()
    return out, sum(issubclass(w.category, ApproximationWarning) for w in caught)


def quietly(fn: Callable[[], T]) -> T:
    """``fn()`` with ApproximationWarnings ignored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return fn()
