"""Errors of the mechanisms layer."""

from __future__ import annotations


class QuadratureLimitError(ValueError):
    """A quadrature rule would need more nodes than its memory guard allows (a
    CGF tilt far out in the tail)."""
