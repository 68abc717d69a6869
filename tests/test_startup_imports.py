"""What start-up loads: ``import symfdp`` is the package and its warning class
only, and its version (benchmarks/bench_startup.py times it against ``python -c
pass``)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "scipy", "sympy", "matplotlib", "mpmath")


def test_import_symfdp_loads_no_numeric_library():
    code = (
        "import sys, symfdp\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
        "print(symfdp.__version__, symfdp.ApproximationWarning.__name__)\n"
        "print(sorted(m for m in sys.modules if m.startswith('symfdp')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "[]"
    assert out[1].endswith(" ApproximationWarning")
    assert out[2] == "['symfdp', 'symfdp._version', 'symfdp._warnings']"
