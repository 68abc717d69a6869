"""A non-editable install (a wheel in a fresh virtual environment) runs
``symfdp reproduce`` and ``symfdp verify`` from a directory with no checkout.

The fresh environment gets the wheel without dependencies; the dependencies come
from the test environment's site-packages, appended to its path by a ``.pth``
line (a plain path: the test environment's own editable install is not
activated there), so ``import symfdp`` finds the wheel's copy first.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: object, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_wheel_runs_reproduce_and_verify_outside_the_checkout(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")  # builds the wheel without isolation
    dist = tmp_path / "dist"
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        dist,
        ROOT,
    )
    (wheel,) = dist.glob("symfdp-*.whl")
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    py = venv / "bin" / "python"
    _run(py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel)
    inner = Path(
        _run(py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").strip()
    )
    (inner / "_outer_site.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    work = tmp_path / "work"
    work.mkdir()
    where = _run(py, "-c", "import symfdp; print(symfdp.__file__)", cwd=work)
    assert where.startswith(str(inner)), where
    symfdp = venv / "bin" / "symfdp"
    out = _run(symfdp, "reproduce", "dong2019-fig3", "--quick", "--jobs", "1", cwd=work)
    assert (
        "PASS" in out and (work / "results" / "dong2019-fig3" / "claims.json").exists()
    )
    shutil.copy(ROOT / "examples" / "verify_closed_form.py", work / "my_check.py")
    out = _run(symfdp, "verify", "my_check.py", cwd=work)
    assert "PASS  my_check" in out and "1/1 passed" in out
