"""The mechanisms a run can name, read from the source of :mod:`symfdp.mechanisms`.

A run (``symfdp account``, a sweep row) names a parametric family of
``symfdp.mechanisms.REGISTRY`` and gives its one parameter: ``sigma``, ``mu`` or
``eps`` (:data:`PARAMETERS`), and a sampling rate for a Poisson-subsampled
family (``p`` in its ``PARAMS``). :func:`families` lists those families with
what each takes, read from the source by :mod:`symfdp._source` so that the
command line offers them without importing the mechanisms (SciPy's statistics,
SymPy). The rule is the registry's (a concrete public class whose own
``PARAMS`` is non-empty and whose constructor takes nothing else but
:data:`FAMILY_EXTRA_ARGS`); the tests check that the two agree.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from symfdp._source import ClassSketch, Hierarchy, read_package

#: The parameters a run may give, in order of preference.
PARAMETERS: Final = ("sigma", "mu", "eps")
#: Constructor arguments outside ``PARAMS`` that a family may take
#: (``symfdp.mechanisms.FAMILY_EXTRA_ARGS``).
FAMILY_EXTRA_ARGS: Final = ("mu", "sigma", "pair")
#: The families whose noise multiplier ``sigma`` can be calibrated
#: (``symfdp.calibrate.MECHANISMS``).
CALIBRATE_MECHANISMS: Final = ("subsampled-gaussian", "gaussian")
_PACKAGE: Final = "symfdp.mechanisms"
_ROOT: Final = ("Mechanism", "symfdp.mechanisms.base")


@dataclass(frozen=True, slots=True)
class Family:
    """A mechanism family a run can name.

    Attributes:
        name: Its registry name (``"subsampled-gaussian"``).
        class_name: The class (``"SubsampledGaussian"``).
        module: The module that defines it.
        parameters: Which of :data:`PARAMETERS` its constructor takes (first:
            the preferred one).
        subsampled: Whether it is Poisson-subsampled (takes a sampling rate).
        replace_one: Whether it has its own replace-one pair (a
            ``replace_one`` method).
    """

    name: str
    class_name: str
    module: str
    parameters: tuple[str, ...]
    subsampled: bool
    replace_one: bool


@functools.cache
def _hierarchy() -> Hierarchy:
    directory = Path(__file__).resolve().parent.parent / "mechanisms"
    return read_package(str(directory), _PACKAGE)


def registry_families() -> dict[str, ClassSketch]:
    """``symfdp.mechanisms.REGISTRY`` as read from the source: ``{name: class}``
    sorted by name.

    Raises:
        RuntimeError: a family's ``name`` or ``PARAMS`` is not a literal
            (a packaging error, caught by the tests).
    """
    h = _hierarchy()
    root = h.find(*_ROOT)
    if root is None:  # pragma: no cover - the package's own layout
        raise RuntimeError(f"{_ROOT[1]} defines no class {_ROOT[0]}.")
    out: dict[str, ClassSketch] = {}
    for cls in h.descendants(root):
        if cls.name.startswith("_") or "PARAMS" not in cls.defined:
            continue
        if "PARAMS" not in cls.keys:
            raise RuntimeError(
                f"{cls.module}.{cls.name}.PARAMS must be a dict display with "
                "string keys (it is read without importing the module)."
            )
        if not cls.keys["PARAMS"] or h.is_abstract(cls):
            continue
        allowed = set(cls.keys["PARAMS"]) | set(FAMILY_EXTRA_ARGS)
        if set(h.init_parameters(cls)) <= allowed:
            name = h.lookup(cls, "name")
            if name is None or not isinstance(name.literals.get("name"), str):
                raise RuntimeError(
                    f"{cls.module}.{cls.name}.name must be a string literal."
                )
            out[name.literals["name"]] = cls
    return dict(sorted(out.items()))


@functools.cache
def families() -> dict[str, Family]:
    """The families a run can build, ``{name: Family}`` sorted by name: those of
    :func:`registry_families` whose parameters, the sampling rate ``p`` aside,
    are among :data:`PARAMETERS`."""
    h = _hierarchy()
    out: dict[str, Family] = {}
    for name, cls in registry_families().items():
        params = cls.keys["PARAMS"]
        if not set(params) - {"p"} <= set(PARAMETERS):
            continue
        args = h.init_parameters(cls)
        out[name] = Family(
            name=name,
            class_name=cls.name,
            module=cls.module,
            parameters=tuple(k for k in PARAMETERS if k in args),
            subsampled="p" in params,
            replace_one=h.lookup(cls, "replace_one") is not None,
        )
    return out


@functools.cache
def sampler_names() -> tuple[str, ...]:
    """The batch samplers' command-line names, read from the source of
    :mod:`symfdp.samplers` (each record's literal ``NAMES``), in declaration
    order; ``symfdp.samplers.sampler_names()`` imports them (the tests check
    the two agree).

    Raises:
        RuntimeError: a record's ``NAMES`` is not a literal tuple of strings.
    """
    directory = Path(__file__).resolve().parent.parent / "samplers"
    h = read_package(str(directory), "symfdp.samplers")
    root = h.find("Sampler", "symfdp.samplers.records")
    if root is None:  # pragma: no cover - the package's own layout
        raise RuntimeError("symfdp.samplers.records defines no class Sampler.")
    out: list[str] = []
    for cls in h.descendants(root):
        names = cls.literals.get("NAMES")
        if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
            raise RuntimeError(
                f"{cls.module}.{cls.name}.NAMES must be a tuple of string literals."
            )
        out.extend(names)
    return tuple(out)
