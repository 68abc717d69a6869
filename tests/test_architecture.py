"""The walls of the package (ARCHITECTURE.md), read from the source with ``ast``.

- A module imports, at module level, only from its own layer or from layers
  below it. The layer of a module is that of the longest prefix in ``LAYERS``.
- A function-local import of a symfdp module is listed in ``LOCAL_IMPORTS``
  with its reason (what the delay saves, or the branch that removes it); the
  list holds no stale entries.
- No module imports the bare package (``import symfdp``, or ``from symfdp
  import`` something that is not a subpackage or module).
- No import circles: the graph of every import (module level and in
  functions; ``if TYPE_CHECKING`` blocks left out; importing ``a.b.c`` runs the
  packages ``a.b`` first, unless the importer lives inside them) has no cycle
  other than those in ``KNOWN_CYCLES``.
"""

from __future__ import annotations

import ast
import collections
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "symfdp"

#: Module prefix -> layer (lower layers may not import higher ones).
LAYERS: dict[str, int] = {
    "symfdp._validation": 0,
    "symfdp._warnings": 0,
    "symfdp._progress": 0,
    "symfdp._dask": 0,
    "symfdp._gc": 0,
    "symfdp._version": 0,
    "symfdp.findings": 0,
    "symfdp.adjacency": 0,
    "symfdp._source": 0,
    "symfdp._limits": 0,
    "symfdp.symbolic": 1,
    "symfdp.numeric": 2,
    "symfdp.mechanisms": 3,
    "symfdp.functionals": 3,
    "symfdp.tradeoff": 4,
    "symfdp.interop.dp_events": 4,
    "symfdp.reference": 4,
    "symfdp.pld": 4,
    "symfdp.curve": 5,
    # The pair protocol sits with the certified engine that implements it.
    "symfdp.curve.answer": 4,
    "symfdp.accountants": 6,
    "symfdp.samplers": 6,
    "symfdp.export": 7,
    "symfdp.plotting": 7,
    "symfdp.calibrate": 7,
    "symfdp.calibration": 7,
    "symfdp.training": 7,
    "symfdp.runs": 7,
    # The risk report of a run reads symfdp.risk (layer 8).
    "symfdp.runs.risk": 8,
    "symfdp.rero": 8,
    "symfdp.risk": 8,
    "symfdp.interop": 8,
    "symfdp.reproduce": 9,
    "symfdp.sweeps": 9,
    "symfdp.cli": 10,
    "symfdp.__main__": 10,
    "symfdp": 11,
}

_SYMPY = "SymPy (about 1 s to import) loads when an expression is first derived"
_STARTUP = (
    "the command line loads a subcommand's machinery when it runs "
    "(symfdp --help under 0.5 s)"
)

#: (importer, imported module) -> why the import waits inside a function.
LOCAL_IMPORTS: dict[tuple[str, str], str] = {
    ("symfdp.cli.account", "symfdp.risk.figure"): _STARTUP,
    ("symfdp.risk.edgeworth_fit", "symfdp.symbolic.gdp_fit"): _SYMPY,
    ("symfdp.risk.edgeworth_fit", "symfdp.symbolic.symbols"): _SYMPY,
    # SymPy on demand.
    ("symfdp.numeric.compile", "symfdp.symbolic.cornish_fisher"): _SYMPY,
    ("symfdp.numeric.compile", "symfdp.symbolic.edgeworth"): _SYMPY,
    ("symfdp.numeric.compile", "symfdp.symbolic.symbols"): _SYMPY,
    ("symfdp.accountants.saddlepoint.formulas", "symfdp.symbolic.saddlepoint"): _SYMPY,
    ("symfdp.accountants.saddlepoint.orders", "symfdp.symbolic.saddlepoint"): _SYMPY,
    ("symfdp.accountants.saddlepoint.orders", "symfdp.symbolic.symbols"): _SYMPY,
    ("symfdp.functionals", "symfdp.numeric.compile"): _SYMPY,
    ("symfdp.functionals", "symfdp.symbolic.functionals"): _SYMPY,
    ("symfdp.functionals", "symfdp.symbolic.symbols"): _SYMPY,
    ("symfdp.mechanisms.gaussian", "symfdp.symbolic.plrv"): _SYMPY,
    ("symfdp.mechanisms.laplace", "symfdp.symbolic.plrv"): _SYMPY,
    ("symfdp.mechanisms.pure_dp", "symfdp.symbolic.plrv"): _SYMPY,
    ("symfdp.mechanisms.symbolic_pair", "symfdp.numeric.compile"): _SYMPY,
    # Matplotlib (optional) on demand.
    ("symfdp.curve.privacy", "symfdp.plotting"): (
        "Matplotlib is optional: PrivacyCurve.plot loads the figures when called "
        "(plotting asks the curve for its queries and imports no curve class)"
    ),
    ("symfdp.cli.plot", "symfdp.plotting"): _STARTUP,
    # Start-up of the command line.
    ("symfdp.cli.derive", "symfdp._validation"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.accountants.saddlepoint.orders"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.mechanisms"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.numeric.compile"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.symbolic.cornish_fisher"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.symbolic.cumulants"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.symbolic.edgeworth"): _STARTUP,
    ("symfdp.cli.derive", "symfdp.symbolic.saddlepoint"): _STARTUP,
    ("symfdp.cli.reproduce", "symfdp._dask"): _STARTUP,
    ("symfdp.cli.reproduce", "symfdp.reproduce.discovery"): _STARTUP,
    ("symfdp.cli.reproduce", "symfdp.reproduce.paths"): _STARTUP,
    ("symfdp.cli.reproduce", "symfdp.reproduce.report"): _STARTUP,
    ("symfdp.cli.reproduce", "symfdp.reproduce.runner"): _STARTUP,
    ("symfdp.cli.sweep", "symfdp._dask"): _STARTUP,
    ("symfdp.cli.sweep", "symfdp.sweeps"): _STARTUP,
    ("symfdp.cli.sweep", "symfdp.sweeps.spec"): _STARTUP,
    ("symfdp.cli.sweep", "symfdp.sweeps.store"): _STARTUP,
    ("symfdp.cli.verify", "symfdp._validation"): _STARTUP,
    ("symfdp.cli.verify", "symfdp.findings"): _STARTUP,
    ("symfdp.cli.verify", "symfdp.reproduce.paths"): _STARTUP,
    ("symfdp.accountants.auto", "symfdp.accountants"): (
        "Auto picks among the registered accountants, loaded on first use"
    ),
}

#: Import circles still open, each with the branch that closes it.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def layer_of(module: str) -> int:
    best = max(
        (p for p in LAYERS if module == p or module.startswith(p + ".")), key=len
    )
    return LAYERS[best]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(ROOT.rglob("*.py"))
NAMES = {_module_name(p): p for p in MODULES}


@dataclass(frozen=True)
class Import:
    """One import of a symfdp module: where it is and what it names."""

    importer: str
    line: int
    target: str  # the module imported (a submodule where one is named)
    local: bool  # inside a function
    bare: bool  # ``import symfdp`` or ``from symfdp import <not a module>``


def _targets(module: str, names: list[str]) -> Iterator[tuple[str, bool]]:
    """``(module imported, bare)`` for ``from module import names``."""
    for name in names:
        full = f"{module}.{name}"
        if full in NAMES:
            yield full, False
        else:
            yield module, module == "symfdp"


def _imports(name: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST, local: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inner = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom):
                module = child.module or ""
                if child.level:
                    base = package.split(".")[
                        : len(package.split(".")) - child.level + 1
                    ]
                    module = ".".join([*base, module] if module else base)
                if module == "symfdp" or module.startswith("symfdp."):
                    names = [a.name for a in child.names]
                    for target, bare in _targets(module, names):
                        yield Import(name, child.lineno, target, local, bare)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name == "symfdp" or alias.name.startswith("symfdp."):
                        bare = alias.name == "symfdp"
                        yield Import(name, child.lineno, alias.name, local, bare)
            yield from walk(child, inner)

    yield from walk(tree, False)


IMPORTS = [imp for name, path in NAMES.items() for imp in _imports(name, path)]


def test_every_module_has_a_layer():
    for name in NAMES:
        layer_of(name)  # raises ValueError (max of empty) if not


@pytest.mark.parametrize("name", sorted(NAMES))
def test_imports_point_down(name):
    mine = layer_of(name)
    upward = [
        f"line {imp.line}: {imp.target} (layer {layer_of(imp.target)})"
        for imp in IMPORTS
        if imp.importer == name and not imp.local and layer_of(imp.target) > mine
    ]
    assert not upward, f"{name} (layer {mine}) imports upward: {upward}"


def _local_statements() -> dict[tuple[str, str], list[int]]:
    """Per (importer, target), the lines of its function-local imports."""
    found: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    for imp in IMPORTS:
        if imp.local and imp.target != imp.importer:
            found[(imp.importer, imp.target)].append(imp.line)
    return found


def test_function_local_imports_are_listed():
    found = _local_statements()
    unlisted = [
        f"{a} -> {b} (lines {found[(a, b)]})"
        for a, b in found
        if (a, b) not in LOCAL_IMPORTS
    ]
    assert not unlisted, (
        "function-local imports of symfdp modules: import at module level (the "
        f"layer table permitting), else list them with a reason: {unlisted}"
    )
    stale = sorted(set(LOCAL_IMPORTS) - set(found))
    assert not stale, f"LOCAL_IMPORTS lists imports that are gone: {stale}"
    assert all(reason.strip() for reason in LOCAL_IMPORTS.values())


def test_no_bare_package_imports():
    bare = [f"{i.importer}:{i.line}" for i in IMPORTS if i.bare]
    assert not bare, f"import of the bare symfdp package inside it: {bare}"


def _cycles(imports: list[Import]) -> list[frozenset[str]]:
    """The strongly connected components (more than one module) of the graph
    of ``imports`` (Tarjan's algorithm, iterative)."""
    graph: dict[str, set[str]] = collections.defaultdict(set)
    for imp in imports:
        parts = imp.target.split(".")
        runs = [imp.target] + [".".join(parts[:k]) for k in range(2, len(parts))]
        for target in runs:
            inside = imp.importer == target or imp.importer.startswith(target + ".")
            if (
                target in NAMES
                and target != imp.importer
                and (target == imp.target or not inside)
            ):
                graph[imp.importer].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for root in sorted(NAMES):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(frozenset(component))
    return out


def test_no_import_cycles():
    cycles = [sorted(c) for c in _cycles(IMPORTS) if c not in KNOWN_CYCLES]
    assert not cycles, f"import circles: {cycles}"


def test_known_cycles_are_still_open():
    closed = set(KNOWN_CYCLES) - set(_cycles(IMPORTS))
    assert not closed, f"closed circles still listed in KNOWN_CYCLES: {closed}"


def test_a_function_local_import_closes_a_circle():
    # curve.privacy imports plotting inside PrivacyCurve.plot; were plotting to
    # import the curve package, the two would form a circle (through
    # symfdp.curve, which importing symfdp.curve.answer runs first).
    extra = [
        Import("symfdp.plotting", 1, "symfdp.curve.answer", False, False),
    ]
    assert frozenset(
        {"symfdp.curve", "symfdp.curve.privacy", "symfdp.plotting"}
    ) in set(_cycles(IMPORTS + extra))
    inside = [Import("symfdp.curve.privacy", 1, "symfdp.curve.answer", False, False)]
    assert set(_cycles(IMPORTS + inside)) == set(_cycles(IMPORTS))


def test_relative_and_bare_imports_are_read(tmp_path: Path) -> None:
    code = "import symfdp\n\n\ndef f():\n    from . import roots\n"
    path = tmp_path / "x.py"
    path.write_text(code)
    found = list(_imports("symfdp.numeric.x", path))
    assert [(i.target, i.local, i.bare) for i in found] == [
        ("symfdp", False, True),
        ("symfdp.numeric.roots", True, False),
    ]
