"""The accountant registry: every accountant class of the package, found, not listed.

Each public module of :mod:`symfdp.accountants` is imported once and every concrete,
public :class:`~symfdp.accountants.base.Accountant` subclass defined in it is
registered under its class attributes:

* ``name``: the registry name of ``TrainingAccountant(method=)`` and ``symfdp
  account --method`` (default: the class name in lower case);
* ``guarantee``: one of :data:`GUARANTEES` (default: ``"certified"`` for a class
  with ``certified = True``, else ``"estimate"``);
* ``name_options``: options the name implies (``rdp`` converts as Opacus does);
* an optional classmethod ``serves(components) -> bool``: whether the accountant
  answers that composition at all (``--method all`` runs it only then; default:
  always).

So adding an accountant is adding its module; every name list (``training.METHODS``
and ``GUARANTEES``, the CLI choices, ``symfdp.accountants.__all__``, the test
parametrisations) is derived from :func:`accountant_classes`.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Final

from symfdp.accountants.base import Accountant

#: The kinds of answer, strongest first: a certified bracket, a rigorous one-sided
#: bound, an estimate (asymptotic expansions, near-exact quadratures, Auto).
GUARANTEES: Final = ("certified", "bound", "estimate")
_PACKAGE: Final = "symfdp.accountants"
_FOUND: dict[str, type[Accountant]] = {}
_BUSY: list[bool] = []


def _subclasses(cls: type[Any]) -> list[type[Any]]:
    out: list[type[Any]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_subclasses(sub))
    return out


def accountant_classes() -> dict[str, type[Accountant]]:
    """``{name: class}`` of every accountant of the package, certified first, then
    bounds, then estimates, each group by name.

    Raises:
        RuntimeError: two classes share a name, or a ``guarantee`` is not one of
            :data:`GUARANTEES`, or an accountant module asks for the registry
            while it is being imported (packaging errors, caught by the tests).
    """
    if _FOUND:
        return dict(_FOUND)
    if _BUSY:
        raise RuntimeError(
            "an accountant module asked for the accountant registry while being "
            "imported; import accountants from their modules there."
        )
    _BUSY.append(True)
    try:
        found = _discover()
    finally:
        _BUSY.clear()
    _FOUND.update(found)
    return dict(found)


def _discover() -> dict[str, type[Accountant]]:
    package = importlib.import_module(_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{_PACKAGE}.{info.name}")
    found: dict[str, type[Accountant]] = {}
    for cls in _subclasses(Accountant):
        if (
            not cls.__module__.startswith(_PACKAGE + ".")
            or cls.__name__.startswith("_")
            or inspect.isabstract(cls)
        ):
            continue
        if cls.name in found and found[cls.name] is not cls:
            raise RuntimeError(
                f"accountants {found[cls.name].__name__} and {cls.__name__} share "
                f"the registry name {cls.name!r}."
            )
        if cls.guarantee not in GUARANTEES:
            raise RuntimeError(
                f"{cls.__name__}.guarantee must be one of {GUARANTEES}. "
                f"Found {cls.guarantee!r}."
            )
        found[cls.name] = cls
    order = sorted(found, key=lambda n: (GUARANTEES.index(found[n].guarantee), n))
    return {n: found[n] for n in order}


def by_class_name() -> dict[str, type[Accountant]]:
    """``{class name: class}`` of :func:`accountant_classes` (``A.Edgeworth``)."""
    return {cls.__name__: cls for cls in accountant_classes().values()}
