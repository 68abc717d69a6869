"""Accountants: every composition method of the sources behind one interface.

``A.CLT()``, ``A.BerryEsseen()``, ``A.Edgeworth(order=J)``, ``A.SaddlePoint(order=k)``,
``A.Contour()`` (the exact contour integral), ``A.Numerical()`` (certified
ground truth) and ``A.Exact()`` (closed forms) each offer
``compose(mechanism, n)`` and ``compose([(m1, n1), ...])`` returning a
:class:`~symfdp.curve.PrivacyCurve`. The classes are found by
:mod:`symfdp.accountants.registry`; each is imported on first use (``A.CLT``
imports the CLT's module only), so importing this package costs nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from symfdp.accountants.registry import listing, load

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.accountants.base import Accountant as Accountant
    from symfdp.accountants.base import normalize_composition as normalize_composition

_BASE = ("Accountant", "normalize_composition")


def __getattr__(name: str) -> Any:
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module 'symfdp.accountants' has no attribute {name!r}")
    classes = {info.class_name: info for info in listing().values()}
    if name == "__all__":
        return [*_BASE, *sorted(classes)]
    if name in _BASE:
        return getattr(importlib.import_module("symfdp.accountants.base"), name)
    if name in classes:
        return load(classes[name])
    raise AttributeError(f"module 'symfdp.accountants' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__getattr__("__all__"))
