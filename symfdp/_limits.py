"""Limits shared by the package's checks (no dependencies, so that the
command line can check a request before it imports NumPy)."""

from __future__ import annotations

from typing import Final

#: Largest integer accepted by integer checks unless a caller allows more:
#: :math:`2^{53}`, the end of the integers that float64 represents exactly.
MAX_INT: Final = 2**53
#: Largest number of compositions (steps) any accountant accepts, in total.
MAX_COMPOSITIONS: Final = MAX_INT
