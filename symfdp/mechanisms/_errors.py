"""Errors of the mechanisms layer."""

from __future__ import annotations


class QuadratureLimitError(ValueError):
    """A quadrature rule would need more nodes than its memory guard allows (a
    CGF tilt far out in the tail)."""


class UndefinedRelationError(ValueError):
    """The mechanism does not define the neighbouring relation asked for (a pair
    given by its densities, PMFs or loss does not say how replacing a record
    moves it), so no accountant can compose it. The message names the
    constructor that builds the pair of that relation."""
