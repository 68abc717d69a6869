"""The import direction between the package's layers (ARCHITECTURE.md).

A module may import, at module level, only from its own layer or from layers
below it; imports inside functions (lazy, e.g. of plotting or of an optional
dependency) are free. The layer of a module is that of the longest prefix in
``LAYERS``.
"""

from __future__ import annotations

import ast
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


def layer_of(module: str) -> int:
    best = max(
        (p for p in LAYERS if module == p or module.startswith(p + ".")), key=len
    )
    return LAYERS[best]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    out = []
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If):  # e.g. if TYPE_CHECKING: ...
            stack.extend(node.body)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
    return [(line, m) for line, m in out if m.startswith("symfdp.")]


MODULES = sorted(ROOT.rglob("*.py"))


def test_every_module_has_a_layer():
    for path in MODULES:
        layer_of(_module_name(path))  # raises ValueError (max of empty) if not


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _module_name(p))
def test_imports_point_down(path):
    name = _module_name(path)
    mine = layer_of(name)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    upward = [
        f"line {line}: {target} (layer {layer_of(target)})"
        for line, target in _top_level_imports(tree)
        if layer_of(target) > mine
    ]
    assert not upward, f"{name} (layer {mine}) imports upward: {upward}"
