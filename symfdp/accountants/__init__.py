"""Accountants: every composition method of the sources behind one interface.

``A.CLT()``, ``A.BerryEsseen()``, ``A.Edgeworth(order=J)``, ``A.SaddlePoint(order=k)``,
``A.Contour()`` (the exact contour integral), ``A.Numerical()`` (certified
ground truth) and ``A.Exact()`` (closed forms) each offer
``compose(mechanism, n)`` and ``compose([(m1, n1), ...])`` returning a
:class:`~symfdp.curve.PrivacyCurve`. The classes are found by
:mod:`symfdp.accountants.registry` (imported on first use).
"""

from __future__ import annotations

from typing import Any

from symfdp.accountants.base import Accountant as Accountant
from symfdp.accountants.base import normalize_composition as normalize_composition

_BASE = ["Accountant", "normalize_composition"]


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'symfdp.accountants' has no attribute {name!r}")
    from symfdp.accountants.registry import by_class_name

    classes = by_class_name()
    if name == "__all__":
        return [*_BASE, *sorted(classes)]
    if name in classes:
        return classes[name]
    raise AttributeError(f"module 'symfdp.accountants' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__getattr__("__all__"))
