"""The accounting methods by name: the registry's names, their guarantees and
the options a name implies, and a method with its options as a record.

Every name here comes from :mod:`symfdp.accountants.registry` (read from the
source: listing the methods imports none); :func:`make_accountant` imports the
one it builds.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from symfdp.accountants import registry
from symfdp.runs.errors import RequestError

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.accountants.base import Accountant

#: The default method of ``symfdp account``, ``TrainingAccountant`` and sweeps:
#: certified.
DEFAULT_METHOD: Final = "numerical"
#: The accountants whose answer a calibration meets (``auto``: analytic steps,
#: then the certified ``numerical``).
CALIBRATE_METHODS: Final = (
    "auto",
    "saddlepoint",
    "edgeworth",
    "numerical",
    "clt",
    "exact",
)
#: The methods whose ``order`` option is the expansion's order.
ORDER_METHODS: Final = ("edgeworth", "saddlepoint")
#: The searched range of a calibration's sigma: all of
#: ``symfdp.calibration.parameters.LIMITS["sigma"]`` (written here so that the
#: command line's parser imports no accountant; a test checks they agree).
SIGMA_RANGE: Final = (0.05, 1e4)

if TYPE_CHECKING:  # pragma: no cover - made on first use by __getattr__
    #: Accountant names mapped to class names (certified first, as the registry).
    METHODS: dict[str, str]
    #: Each method's guarantee: ``"certified"``, ``"bound"`` or ``"estimate"``.
    GUARANTEES: dict[str, str]
    #: Options a method name implies (``rdp``: Canonne, Kamath and Steinke 2020).
    METHOD_DEFAULTS: dict[str, dict[str, Any]]
    #: The methods that answer every composition, in registry order (``--method
    #: all`` runs these, and the others where they serve).
    UNIVERSAL_METHODS: tuple[str, ...]
    #: The methods that answer only some compositions (a ``serves`` test).
    PARTIAL_METHODS: tuple[str, ...]


@functools.cache
def _lists() -> dict[str, Any]:
    """The name lists, from the registry's listing (read once, on first use)."""
    found = registry.listing()
    return {
        "METHODS": {n: i.class_name for n, i in found.items()},
        "GUARANTEES": {n: i.guarantee for n, i in found.items()},
        "METHOD_DEFAULTS": {n: dict(i.options) for n, i in found.items() if i.options},
        "UNIVERSAL_METHODS": tuple(n for n, i in found.items() if not i.serves),
        "PARTIAL_METHODS": tuple(n for n, i in found.items() if i.serves),
    }


def __getattr__(name: str) -> Any:
    # METHODS and the other lists are read from the source on first use, so that
    # importing this module (the command line's parser) reads nothing.
    if not name.startswith("__"):
        lists = _lists()
        if name in lists:
            return lists[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parameters(method: str) -> tuple[str, ...]:
    """The options the accountant of ``method`` takes (its constructor's
    parameters, read from the source)."""
    return registry.listing()[method].parameters


def normalize_method(method: Any) -> str:
    """Canonical accountant name: lower case, ``_`` read as ``-``, hyphens optional.

    Raises:
        TypeError: ``method`` is not a string.
        ValueError: unknown name (the message lists the known ones).
    """
    if not isinstance(method, str):
        raise TypeError(f"method must be a string. Found {method!r}.")
    name = method.strip().lower().replace("_", "-")
    names = _lists()["METHODS"]
    bare = {k.replace("-", ""): k for k in names}
    name = str(bare.get(name.replace("-", ""), name))
    if name not in names:
        raise ValueError(f"method must be one of {tuple(names)}. Found {method!r}.")
    return name


def make_accountant(method: str, **options: Any) -> Accountant:
    """The accountant called ``method`` (see :data:`METHODS`), built with ``options``
    over the options its name implies.

    Example:
        >>> make_accountant("edgeworth", order=3)
        Edgeworth(order=3, inverse='numerical')

    Raises:
        ValueError / TypeError: unknown method or invalid options.
    """
    name = normalize_method(method)
    cls = registry.load(registry.listing()[name])
    try:
        return cls(**{**_lists()["METHOD_DEFAULTS"].get(name, {}), **options})
    except TypeError as exc:
        raise TypeError(f"invalid option for method={method!r}: {exc}") from None


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """A method and the options of its accountant.

    Args:
        name: A method name (any spelling :func:`normalize_method` reads).
        options: Keyword arguments of the accountant (``{"order": 3}``), plain
            JSON values.

    Raises:
        RequestError: unknown method, or options that are not plain JSON values.
    """

    name: str = DEFAULT_METHOD
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            name = normalize_method(self.name)
        except (TypeError, ValueError):
            names = ", ".join(_lists()["METHODS"])
            raise RequestError(
                f"unknown {{method}} {self.name!r}; choose from {names}."
            ) from None
        options = dict(self.options)
        for key, value in options.items():
            try:
                plain = json.loads(json.dumps(value, allow_nan=False)) == value
            except (TypeError, ValueError):
                plain = False
            if not isinstance(key, str) or not plain:
                raise RequestError(
                    f"method {name}: option {key}={value!r} must be a plain JSON "
                    "value (a number, string, bool, None or a list of those)."
                )
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "options", options)

    @property
    def guarantee(self) -> str:
        """The method's guarantee (:data:`GUARANTEES`)."""
        return str(_lists()["GUARANTEES"][self.name])

    @property
    def label(self) -> str:
        """``name`` or ``name(key=value, ...)`` (a sweep's ``method`` column)."""
        if not self.options:
            return self.name
        inner = ", ".join(f"{k}={v!r}" for k, v in sorted(self.options.items()))
        return f"{self.name}({inner})"

    def build(self) -> Accountant:
        """The accountant (imports its module).

        Raises:
            RequestError: the accountant refuses the options (the message
                names them as ``{option}`` fields).
        """
        try:
            return make_accountant(self.name, **self.options)
        except (TypeError, ValueError) as exc:
            text = f"method {self.name}: {exc}"
            raise RequestError(_fields(text, self.options)) from None

    def as_json(self) -> dict[str, Any]:
        """``{"name": ..., "options": {...}}``."""
        return {"name": self.name, "options": dict(self.options)}


def _fields(message: str, names: Iterable[str]) -> str:
    """``message`` as a :class:`RequestError` template: each of ``names`` that
    appears as a word (``order``, not ``sort_order`` or ``x.order``) becomes the
    field ``{order}``."""
    for name in names:
        message = re.sub(rf"(?<![\w.]){re.escape(name)}(?!\w)", f"{{{name}}}", message)
    return message
