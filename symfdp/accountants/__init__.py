"""Accountants: every composition method of the sources behind one interface.

``A.CLT()``, ``A.BerryEsseen()``, ``A.Edgeworth(order=J)``, ``A.SaddlePoint(order=k)``,
``A.Contour()`` (the exact contour integral), ``A.Numerical()`` (certified
ground truth) and ``A.Exact()`` (closed forms) each offer
``compose(mechanism, n)`` and ``compose([(m1, n1), ...])`` returning a
:class:`~symfdp.curve.PrivacyCurve`. Classes are imported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

from symfdp.accountants.base import Accountant, normalize_composition

_CLASSES = {
    "Auto": "symfdp.accountants.auto",
    "BerryEsseen": "symfdp.accountants.berry_esseen",
    "CLT": "symfdp.accountants.clt",
    "Contour": "symfdp.accountants.contour",
    "Edgeworth": "symfdp.accountants.edgeworth",
    "Exact": "symfdp.accountants.exact",
    "Numerical": "symfdp.accountants.numerical",
    "RDP": "symfdp.accountants.rdp",
    "SaddlePoint": "symfdp.accountants.saddlepoint",
}

__all__ = ["Accountant", "normalize_composition", *_CLASSES]


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        return getattr(importlib.import_module(_CLASSES[name]), name)
    raise AttributeError(f"module 'symfdp.accountants' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
