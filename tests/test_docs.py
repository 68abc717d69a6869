"""The API reference builds from the docstrings without a single pdoc warning."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("pdoc")
ROOT = Path(__file__).resolve().parents[1]


def test_api_reference_builds(tmp_path) -> None:
    spec = importlib.util.spec_from_file_location(
        "build_api", ROOT / "docs" / "build_api.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_api"] = module
    spec.loader.exec_module(module)
    index = module.build(tmp_path / "api")
    assert index.is_file()
    page = (tmp_path / "api" / "symfdp" / "interop" / "dp_accounting.html").read_text()
    assert "SymfdpAccountant" in page
    # formulas are rendered (MathJax), never left as reST roles
    training = (tmp_path / "api" / "symfdp" / "training.html").read_text()
    assert "mathjax" in training
    left = [
        p.name for p in (tmp_path / "api").rglob("*.html") if ":math:" in p.read_text()
    ]
    assert not left, left
