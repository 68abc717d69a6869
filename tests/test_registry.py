"""Completeness of the registries: every name list is derived from them.

The accountant registry (:mod:`symfdp.accountants.registry`) and the mechanism
registry (``symfdp.mechanisms.REGISTRY``) are the only places names live; these
tests fail when a class is missing from a registry or a list disagrees with it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import symfdp.accountants as A
from symfdp import mechanisms as M
from symfdp import training
from symfdp.accountants import registry
from symfdp.accountants.base import Accountant
from symfdp.accountants.registry import GUARANTEES, accountant_classes
from symfdp.cli import account as cli_account
from symfdp.cli import calibrate as cli_calibrate
from symfdp.cli import derive as cli_derive
from symfdp.runs import catalog
from symfdp.runs import methods as known


def _every_accountant_class() -> set[type]:
    """Every concrete public Accountant subclass of the package, private modules
    included (found by walking the package, independently of the registry)."""
    for info in pkgutil.walk_packages(A.__path__, A.__name__ + "."):
        importlib.import_module(info.name)
    out: set[type] = set()
    todo = list(Accountant.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if (
            cls.__module__.startswith("symfdp.accountants.")
            and not cls.__name__.startswith("_")
            and not inspect.isabstract(cls)
        ):
            out.add(cls)
    return out


def test_every_accountant_class_is_registered() -> None:
    assert set(accountant_classes().values()) == _every_accountant_class()


def test_the_static_listing_is_what_the_classes_say() -> None:
    """The registry's listing is read from the source without importing; each
    entry equals the attributes of the class it names, imported."""
    listing = registry.listing()
    assert list(listing) == list(accountant_classes())
    for name, info in listing.items():
        cls = accountant_classes()[name]
        assert (info.class_name, info.module) == (cls.__name__, cls.__module__)
        assert info.name == cls.name and info.guarantee == cls.guarantee
        assert info.options == cls.name_options
        assert info.serves == hasattr(cls, "serves")
        assert info.parameters == tuple(inspect.signature(cls).parameters)


def test_listing_the_registry_imports_no_accountant() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from symfdp.accountants import registry; registry.listing(); "
        "print(sorted(m for m in sys.modules if m.startswith(('symfdp.mechanisms', "
        "'symfdp.accountants.', 'scipy', 'sympy', 'numpy')) and "
        "m != 'symfdp.accountants.registry'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_registry_attributes() -> None:
    for name, cls in accountant_classes().items():
        assert cls.name == name and name == name.lower()
        assert cls.guarantee in GUARANTEES
        if isinstance(inspect.getattr_static(cls, "certified"), bool):
            assert cls.certified == (cls.guarantee == "certified"), name
        assert isinstance(cls.name_options, dict)
        cls(**cls.name_options)  # the implied options are valid


def test_derived_lists_agree_with_the_registry() -> None:
    reg = accountant_classes()
    assert list(training.METHODS) == list(reg) == list(known.METHODS)
    assert training.METHODS == {n: c.__name__ for n, c in reg.items()}
    assert training.GUARANTEES == {n: c.guarantee for n, c in reg.items()}
    assert training.DEFAULT_METHOD == cli_account.DEFAULT_METHOD in reg
    assert list(cli_account.METHOD_CHOICES) == [*reg, "all"]
    assert set(known.UNIVERSAL_METHODS) | set(known.PARTIAL_METHODS) == set(reg)
    assert set(known.PARTIAL_METHODS) == {
        n for n, c in reg.items() if hasattr(c, "serves")
    }
    assert set(cli_calibrate.METHODS) <= set(reg)
    assert set(A.__all__) == {"Accountant", "normalize_composition"} | {
        c.__name__ for c in reg.values()
    }
    for cls in reg.values():
        assert getattr(A, cls.__name__) is cls


@pytest.mark.parametrize("spelling", ["Saddle_Point", "berryesseen", "BERRY-ESSEEN"])
def test_method_spellings(spelling: str) -> None:
    assert training.normalize_method(spelling) in training.METHODS


def test_mechanism_registry_names() -> None:
    """(That every concrete mechanism class is a family or a declared wrapper is
    ``test_validation.test_every_mechanism_class_is_covered``.)"""
    for name, cls in M.REGISTRY.items():
        assert cls.name == name and cls.PARAMS


def test_the_run_catalogue_is_what_the_classes_say() -> None:
    """The families a run can name are read from the source without importing
    the mechanisms; they are the registry's families whose parameters, the
    sampling rate aside, are sigma, mu or eps, with the constructor's arguments."""
    import symfdp.calibrate as C

    static = catalog.registry_families()
    assert {n: (c.name, c.module) for n, c in static.items()} == {
        n: (c.__name__, c.__module__) for n, c in M.REGISTRY.items()
    }
    assert tuple(M.FAMILY_EXTRA_ARGS) == catalog.FAMILY_EXTRA_ARGS
    assert catalog.CALIBRATE_MECHANISMS == C.MECHANISMS
    families = catalog.families()
    buildable = {
        n for n, c in M.REGISTRY.items()
        if set(c.PARAMS) - {"p"} <= set(catalog.PARAMETERS)
    }  # fmt: skip
    assert set(families) == buildable
    for name, family in families.items():
        cls = M.REGISTRY[name]
        args = inspect.signature(cls).parameters
        assert family.parameters == tuple(k for k in catalog.PARAMETERS if k in args)
        assert family.parameters, name
        assert family.subsampled == ("p" in cls.PARAMS)
        assert family.replace_one == hasattr(cls, "replace_one")
    assert list(cli_account.MECHANISMS) == list(families)
    assert set(cli_derive.MECHANISMS) == {
        n for n, c in M.REGISTRY.items() if hasattr(c, "cumulant_exprs")
    }


def test_building_the_parser_imports_no_accountant_or_mechanism() -> None:
    """The CLI's choices are read from the source: ``symfdp account --help``
    imports no accountant, mechanism, NumPy, SciPy or SymPy."""
    import subprocess
    import sys

    code = (
        "import sys; from symfdp.cli import main\n"
        "try: main(['account', '--help'])\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('symfdp.accountants.', "
        "'symfdp.mechanisms', 'numpy', 'scipy', 'sympy', 'matplotlib')) and "
        "m != 'symfdp.accountants.registry'), file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "METHOD" in out.stdout and "subsampled-gaussian" in out.stdout
    assert out.stderr.strip() == "[]"


def test_relation_names_agree() -> None:
    from symfdp.adjacency import Adjacency

    names = tuple(a.value for a in Adjacency)
    assert training.ADJACENCIES == M.ADJACENCIES == cli_account.ADJACENCIES == names
