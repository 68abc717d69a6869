"""``symfdp.tradeoff`` exposes its public names only, and nobody imports others."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import symfdp.tradeoff as T

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("symfdp", "tests", "examples", "experiments", "benchmarks", "derivations")


def test_dir_is_all_and_every_name_is_documented():
    assert dir(T) == sorted(T.__all__)
    doc = T.__doc__ or ""
    for name in T.__all__:
        obj = getattr(T, name)
        assert inspect.isclass(obj) or inspect.isfunction(obj), name
        assert f"`{name}`" in doc, f"{name} is public but not in the docstring"


def test_star_import_gives_the_public_names():
    namespace: dict[str, object] = {}
    exec("from symfdp.tradeoff import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(T.__all__)


def _tradeoff_uses(tree: ast.AST) -> list[str]:
    """Names taken from the package namespace: ``from symfdp.tradeoff import x``
    and ``T.x`` for ``T`` bound to the package."""
    aliases: set[str] = set()
    used: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.module == "symfdp.tradeoff":
                used += [a.name for a in node.names]
            elif node.module == "symfdp":
                aliases |= {
                    a.asname or a.name for a in node.names if a.name == "tradeoff"
                }
        elif isinstance(node, ast.Import):
            aliases |= {
                a.asname for a in node.names if a.name == "symfdp.tradeoff" and a.asname
            }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            used.append(node.attr)
    return used


def test_nothing_uses_a_private_name_of_the_package():
    probe = "from symfdp import tradeoff as T\nT.math\nfrom symfdp.tradeoff import x"
    assert sorted(_tradeoff_uses(ast.parse(probe))) == ["math", "x"]
    public = set(T.__all__) | {"__all__", "__doc__"}
    bad = []
    n_uses = 0
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.parent == ROOT / "symfdp" / "tradeoff":
                continue  # the package itself imports from its submodules
            uses = _tradeoff_uses(ast.parse(path.read_text(encoding="utf-8")))
            n_uses += len(uses)
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in uses if n not in public]
    assert n_uses > 100  # the scan sees the package's many users
    assert bad == []
