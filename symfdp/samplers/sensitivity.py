r"""The pair of a mechanism at a multiple of its sensitivity.

Samplers that replace a record in a batch, or let it appear several times, need
the pair of the same noise at sensitivity :math:`s` (a mechanism is the pair of
*adding* one record, sensitivity 1): replacing record :math:`y` by :math:`x`
moves a clipped sum by :math:`x - y`, of norm at most 2, and :math:`k` copies
move it by at most :math:`2k`. For a location family :math:`(F, F(\cdot -
\Delta))` the pair at sensitivity :math:`s` is :math:`(F, F(\cdot - s\Delta))`.

:func:`at_sensitivity` finds it from what the mechanism declares: an integer
``sensitivity`` field (the discrete Gaussian and Laplace), or a location family
whose one parameter is the effect size ``mu`` (``PARAMS == {"mu"}``: Gaussian,
Laplace), whose pair at sensitivity :math:`s` has effect size :math:`s\mu`.
Any other mechanism (user densities, PMFs) states it with a callable
``scale(s) -> Mechanism``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from symfdp._validation import check_callable, check_instance, check_int
from symfdp.mechanisms.base import Mechanism

#: A user's rule for the pair at sensitivity s (an integer >= 1).
Scale = Callable[[int], Mechanism]


def at_sensitivity(
    mechanism: Mechanism, s: int, scale: Scale | None = None
) -> Mechanism:
    """The pair of ``mechanism``'s noise at sensitivity ``s`` (module docstring).

    Args:
        mechanism: The pair of adding one record (sensitivity 1).
        s: The sensitivity, an integer >= 1.
        scale: The user's rule ``scale(s)``; required for mechanisms that
            declare neither a ``sensitivity`` field nor a ``mu`` location
            parameter.

    Raises:
        ValueError: ``s < 1``, or no rule is known for ``mechanism``.
        TypeError: ``scale`` is not callable or returns no Mechanism.
    """
    s = check_int("s", s, lo=1)
    if scale is not None:
        check_callable("scale", scale)
        return check_instance("scale(s)", scale(s), Mechanism)  # type: ignore[no-any-return]
    if s == 1:
        return mechanism
    fields: set[str] = (
        {f.name for f in dataclasses.fields(mechanism) if f.init}
        if dataclasses.is_dataclass(mechanism)
        else set()
    )
    if "sensitivity" in fields:
        base = int(mechanism.sensitivity)  # type: ignore[attr-defined]
        return dataclasses.replace(mechanism, sensitivity=s * base)  # type: ignore[type-var]
    if set(getattr(type(mechanism), "PARAMS", {})) == {"mu"} and "mu" in fields:
        return type(mechanism)(mu=s * float(mechanism.mu))  # type: ignore[call-arg, attr-defined]
    raise ValueError(
        f"mechanism {mechanism!r} declares no sensitivity: this sampler needs its "
        "pair at sensitivity s (replacing a record moves a clipped sum by up to 2, "
        "k copies by up to 2k). Pass at_sensitivity=lambda s: <the pair at "
        "sensitivity s>."
    )


__all__ = ["Scale", "at_sensitivity"]
