"""Warnings raised when an approximation leaves its valid range."""

from __future__ import annotations

import warnings


class ApproximationWarning(UserWarning):
    """An approximation left its valid range and was repaired.

    Raised, for example, when an Edgeworth CDF leaves [0, 1] or is not monotone in
    the tails, when an approximate trade-off curve is not convex or exceeds
    ``1 - alpha``, or when an approximate privacy profile is negative. The message
    says which regime was repaired, how, and which method serves it better.
    """


def warn_approximation(message: str, stacklevel: int = 3) -> None:
    """Emit an :class:`ApproximationWarning` attributed to the caller's caller."""
    warnings.warn(message, ApproximationWarning, stacklevel=stacklevel)
