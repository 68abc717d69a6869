"""The accountant registry: every accountant class of the package, found, not listed.

Every concrete, public subclass of :class:`~symfdp.accountants.base.Accountant`
defined in a module of :mod:`symfdp.accountants` is registered under its class
attributes:

* ``name``: the registry name of ``TrainingAccountant(method=)`` and ``symfdp
  account --method`` (default: the class name in lower case);
* ``guarantee``: one of :data:`GUARANTEES` (default: ``"certified"`` for a class
  with ``certified = True``, else ``"estimate"``);
* ``name_options``: options the name implies (``rdp`` converts as Opacus does);
* an optional classmethod ``serves(components) -> bool``: whether the accountant
  answers that composition at all (``--method all`` runs it only then; default:
  always).

So adding an accountant is adding its module; every name list (the method names
of :mod:`symfdp.runs`, ``symfdp.accountants.__all__``, the CLI choices, the test
parametrisations) is derived from this registry.

The registry is found in two steps. :func:`listing` reads the package's source
(:mod:`symfdp._source`): names, guarantees, options and which modules define
the classes, in milliseconds and without importing any accountant, so that the
command line can offer its choices at once. :func:`accountant_classes` imports
exactly the modules the listing names and checks that every class's attributes
are the ones read (the attributes must therefore be literals in the class body,
or inherited). The tests check that the listing finds every accountant class.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from symfdp._source import ClassSketch, Hierarchy, read_package

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.accountants.base import Accountant

#: The kinds of answer, strongest first: a certified bracket, a rigorous one-sided
#: bound, an estimate (asymptotic expansions, near-exact quadratures, Auto).
GUARANTEES: Final = ("certified", "bound", "estimate")
_PACKAGE: Final = "symfdp.accountants"
_ROOT: Final = ("Accountant", "symfdp.accountants.base")
_LISTING: dict[str, AccountantInfo] = {}
_FOUND: dict[str, type[Accountant]] = {}
_BUSY: list[bool] = []


@dataclass(frozen=True, slots=True)
class AccountantInfo:
    """One registered accountant, as its source declares it.

    Attributes:
        name: The registry name (``"berry-esseen"``).
        class_name: The class's name (``"BerryEsseen"``).
        module: The module that defines the class.
        guarantee: One of :data:`GUARANTEES`.
        options: The options the name implies (``name_options``).
        serves: Whether the class answers only some compositions (it has a
            ``serves`` classmethod).
        parameters: The constructor's parameter names (its options).
    """

    name: str
    class_name: str
    module: str
    guarantee: str
    options: dict[str, Any]
    serves: bool
    parameters: tuple[str, ...]


def listing() -> dict[str, AccountantInfo]:
    """``{name: AccountantInfo}`` of every accountant of the package, read from
    the source: certified first, then bounds, then estimates, each group by name.

    Raises:
        RuntimeError: two classes share a name, a ``guarantee`` is not one of
            :data:`GUARANTEES`, or an attribute is not a literal (packaging
            errors, caught by the tests).
    """
    if not _LISTING:
        _LISTING.update(_read())
    return dict(_LISTING)


def _read() -> dict[str, AccountantInfo]:
    h = read_package(str(Path(__file__).resolve().parent), _PACKAGE)
    root = h.find(*_ROOT)
    if root is None:  # pragma: no cover - the package's own layout
        raise RuntimeError(f"{_ROOT[1]} defines no class {_ROOT[0]}.")
    found: dict[str, AccountantInfo] = {}
    for cls in h.descendants(root):
        if cls.name.startswith("_") or h.is_abstract(cls):
            continue
        info = AccountantInfo(
            name=_literal(cls, "name", cls.name.lower()),
            class_name=cls.name,
            module=cls.module,
            guarantee=_guarantee(h, root, cls),
            options=_options(h, cls),
            serves=h.lookup(cls, "serves") is not None,
            parameters=h.init_parameters(cls),
        )
        if info.name in found:
            raise RuntimeError(
                f"accountants {found[info.name].class_name} and {cls.name} share "
                f"the registry name {info.name!r}."
            )
        if info.guarantee not in GUARANTEES:
            raise RuntimeError(
                f"{cls.name}.guarantee must be one of {GUARANTEES}. "
                f"Found {info.guarantee!r}."
            )
        found[info.name] = info
    order = sorted(found, key=lambda n: (GUARANTEES.index(found[n].guarantee), n))
    return {n: found[n] for n in order}


def _literal(cls: ClassSketch, attr: str, default: Any) -> Any:
    """The literal ``attr`` of the body of ``cls`` (``default`` if unbound)."""
    if attr not in cls.defined:
        return default
    if attr not in cls.literals:
        raise RuntimeError(
            f"{cls.module}.{cls.name}.{attr} must be a literal in the class body "
            "(the registry reads it without importing the module)."
        )
    return cls.literals[attr]


def _guarantee(h: Hierarchy, root: ClassSketch, cls: ClassSketch) -> str:
    """``Accountant.__init_subclass__``'s rule: the class's own ``guarantee``, or
    the first one its MRO has (every accountant ancestor has one), or else
    ``"certified"`` when ``certified`` is ``True``, ``"estimate"`` otherwise."""
    for c in h.mro(cls):
        if "guarantee" in c.defined:
            return str(_literal(c, "guarantee", None))
        if c is not cls and c is not root and root in h.mro(c):
            return _guarantee(h, root, c)
    owner = h.lookup(cls, "certified")
    certified = owner is not None and owner.literals.get("certified") is True
    return "certified" if certified else "estimate"


def _options(h: Hierarchy, cls: ClassSketch) -> dict[str, Any]:
    owner = h.lookup(cls, "name_options")
    options = {} if owner is None else _literal(owner, "name_options", {})
    if not isinstance(options, dict):
        raise RuntimeError(
            f"{owner}.name_options must be a dict literal. Found {options!r}."
        )
    return dict(options)


def accountant_classes() -> dict[str, type[Accountant]]:
    """``{name: class}`` of :func:`listing`, in its order (imports the modules).

    Raises:
        RuntimeError: a class's attributes are not the ones its source declares,
            or an accountant module asks for the registry while it is being
            imported (packaging errors, caught by the tests).
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
        found = {name: load(info) for name, info in listing().items()}
    finally:
        _BUSY.clear()
    _FOUND.update(found)
    return dict(found)


def load(info: AccountantInfo) -> type[Accountant]:
    """The class ``info`` describes, imported and checked against it.

    Raises:
        RuntimeError: the class's attributes differ from ``info``.
    """
    cls: type[Accountant] = getattr(
        importlib.import_module(info.module), info.class_name
    )
    seen = (cls.name, cls.guarantee, dict(cls.name_options), hasattr(cls, "serves"))
    read = (info.name, info.guarantee, info.options, info.serves)
    if seen != read:
        raise RuntimeError(
            f"{info.module}.{info.class_name} has (name, guarantee, name_options, "
            f"serves) = {seen}, but its source reads as {read}: set them as "
            "literals in the class body."
        )
    return cls


def by_class_name() -> dict[str, type[Accountant]]:
    """``{class name: class}`` of :func:`accountant_classes` (``A.Edgeworth``)."""
    return {cls.__name__: cls for cls in accountant_classes().values()}
