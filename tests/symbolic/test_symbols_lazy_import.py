"""Canonical symbols, parsing, and the lazy import of SymPy."""

from __future__ import annotations

import subprocess
import sys

import sympy as sp

from symfdp.symbolic.symbols import Phi, canonicalize, lam, parse, phi, x


def test_lambda_symbols_are_named_and_real():
    assert lam(3).name == "lambda3"
    assert lam(3).is_real
    assert lam(3) is lam(3)


def test_plain_parse_expr_compares_equal_after_canonicalize():
    text = "Phi(x) - phi(x)*(lambda3*(x**2 - 1)/6)"
    plain = sp.parse_expr(text)
    expected = Phi(x) - phi(x) * lam(3) * (x**2 - 1) / 6
    assert plain != expected  # different assumptions on the symbols
    assert sp.expand(canonicalize(plain) - expected) == 0
    assert sp.expand(parse(text) - expected) == 0
    # The undefined functions themselves compare equal after a plain parse.
    assert sp.parse_expr("Phi(y)").func == Phi


def _run(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def test_import_symfdp_does_not_import_sympy():
    out = _run("import sys, symfdp, symfdp.symbolic; print('sympy' in sys.modules)")
    assert out.strip() == "False"
