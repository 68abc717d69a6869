"""symfdp._source: classes read from a package's source without importing it,
checked against the same classes imported (a small package written here)."""

from __future__ import annotations

import importlib
import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from symfdp._source import read_package

FILES = {
    "__init__.py": "",
    "base.py": '''
        from abc import ABC, abstractmethod
        from dataclasses import dataclass, field
        from typing import ClassVar


        class Root(ABC):
            """Root; its docstring mentions class Fake(Root): at no column 0."""

            name: ClassVar[str]
            flag: ClassVar[bool] = False

            @abstractmethod
            def work(self) -> int: ...


        @dataclass(frozen=True)
        class Data(Root):
            a: float
            b: float | None = field(default=None, compare=False)
            cache: dict = field(default_factory=dict, init=False)
            name: ClassVar[str] = "data"
            PARAMS: ClassVar[dict] = {"a": 1, "b": (0, 1)}

            def work(self) -> int:
                return 1
    ''',
    "more.py": '''
        from dataclasses import dataclass

        from pkg.base import Data, Root


        @dataclass(frozen=True, init=False)
        class Custom(Data):
            flag = True

            def __init__(self, a: float, *, k: int = 1, **extra) -> None:
                object.__setattr__(self, "a", a)


        @dataclass(frozen=True)
        class Child(Data):
            c: int = 0


        class Abstract(Root):
            """Still abstract: work is not implemented."""


        class _Private(Data):
            pass


        class Odd(Root):
            text = """
        a line at column 0 inside a string
        """

            def work(self) -> int:
                return 2
    ''',
}


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    return root


def test_a_static_read_agrees_with_the_imported_classes(package: Path) -> None:
    h = read_package(str(package), "pkg")
    root = h.find("Root", "pkg.base")
    assert root is not None
    found = {c.name: c for c in h.descendants(root)}
    assert set(found) == {"Data", "Custom", "Child", "Abstract", "_Private", "Odd"}
    for name, sketch in found.items():
        cls = getattr(importlib.import_module(sketch.module), name)
        assert h.is_abstract(sketch) == inspect.isabstract(cls), name
        assert h.init_parameters(sketch) == tuple(inspect.signature(cls).parameters)
        assert [c.name for c in h.mro(sketch)] == [
            k.__name__ for k in cls.__mro__ if k.__module__.startswith("pkg")
        ]
        owner = h.lookup(sketch, "flag")
        assert owner is not None and owner.literals["flag"] == cls.flag
    assert found["Data"].keys["PARAMS"] == ("a", "b")
    assert found["Data"].literals["name"] == "data"
    assert "PARAMS" not in found["Child"].defined  # inherited, not bound here
    # The block of Odd does not parse alone (a string at column 0): the whole
    # file is parsed instead.
    assert found["Odd"].literals["text"].strip() == "a line at column 0 inside a string"


@pytest.mark.parametrize("package", ["accountants", "mechanisms", "pld"])
def test_leaving_method_bodies_out_changes_no_sketch(package: str) -> None:
    """The read parses each class with its methods' bodies left out; for every
    class of these packages that gives what parsing the whole block gives."""
    import ast

    from symfdp import _source

    root = Path(_source.__file__).parent / package
    h = read_package(str(root), f"symfdp.{package}")
    checked = 0
    for path in sorted(root.rglob("*.py")):
        module = ".".join(
            ("symfdp", *path.relative_to(root.parent).with_suffix("").parts)
        ).removesuffix(".__init__")
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            sketch = h.find(node.name, module)
            assert sketch is not None and sketch.module == module, node.name
            assert sketch == _source._sketch(node, module), node.name
            checked += 1
    assert checked > 10
