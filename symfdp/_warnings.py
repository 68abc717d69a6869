"""Warnings raised when an approximation leaves its valid range."""

from __future__ import annotations

import sys
import warnings


class ApproximationWarning(UserWarning):
    """An approximation left its valid range, was repaired, or estimates its own
    error above the tolerance the caller set (e.g. an Edgeworth CDF outside
    [0, 1], a non-convex trade-off curve, ``curve.epsilon_error`` above
    ``warn_rel_error``). The message names the regime and a better method."""


#: Top-level packages whose frames a warning is never attributed to.
_INTERNAL = frozenset({"symfdp", "scipy", "numpy"})


def _outside_package_level() -> int:
    """Stack level of the first frame outside ``symfdp`` (and the NumPy and SciPy
    frames it calls through), seen from the caller of :func:`warn_approximation`."""
    frame = sys._getframe(2)  # the caller of warn_approximation
    level = 2
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        # Library frames between two symfdp frames (a SciPy root finder calling
        # back into symfdp) are skipped too.
        if name.partition(".")[0] not in _INTERNAL:
            return level
        frame = frame.f_back
        level += 1
    return level


def warn_approximation(message: str) -> None:
    """Emit an :class:`ApproximationWarning` attributed to the first caller outside
    symfdp (the stack level is computed, whatever the call path inside)."""
    warnings.warn(message, ApproximationWarning, stacklevel=_outside_package_level())


def warn_pair_deprecated(owner: str, pair: str) -> None:
    """Emit the :class:`DeprecationWarning` of the ``pair=`` keyword of ``owner``
    (attributed to the first caller outside symfdp), naming its replacement."""
    relation = {"both": "add_or_remove"}.get(pair, pair)
    warnings.warn(
        f"{owner}(pair=...) is deprecated: a mechanism is one dominating pair and "
        "the neighbouring relation is chosen where the composition is accounted. "
        f"Use compose(mechanism, n, adjacency={relation!r}) (or "
        f"symfdp.mechanisms.with_adjacency(mechanism, {relation!r}); "
        "TrainingAccountant(adjacency=...), symfdp account --adjacency ...).",
        DeprecationWarning,
        stacklevel=_outside_package_level(),
    )
