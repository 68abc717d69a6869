"""Each script in examples/ runs as a user would run it and shows what it claims."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: Each example must finish well inside this (they take a few seconds).
TIMEOUT_S = 120


def _run(name: str, *args: str, cwd: Path) -> str:
    env = {**os.environ, "MPLBACKEND": "Agg", "SYMFDP_PROGRESS": "0"}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_every_example_is_tested():
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == {
        "account_dpsgd.py",
        "compare_methods.py",
        "derive_order4.py",
        "rero_bound.py",
        "user_mechanism.py",
        "verify_closed_form.py",
    }


def test_account_dpsgd(tmp_path):
    out = _run("account_dpsgd.py", cwd=tmp_path)
    assert "resumed epsilon is identical" in out
    assert "certified epsilon in [" in out
    assert "publish: (" in out and "saddle-point estimate" in out
    epochs = [line.split() for line in out.splitlines() if line[:5].strip().isdigit()]
    eps = [float(row[2]) for row in epochs]
    assert len(eps) == 4 and eps == sorted(eps)


def test_derive_order4(tmp_path):
    out = _run("derive_order4.py", cwd=tmp_path)
    assert "n^(-4/2):" in out and "lambda6" in out
    assert "Edgeworth order 6:" in out


def test_compare_methods(tmp_path):
    out = _run("compare_methods.py", "--out", str(tmp_path / "figs"), cwd=tmp_path)
    for name in ("tradeoff", "profile", "mu_star_gamma"):
        assert (tmp_path / "figs" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "figs" / "tradeoff.csv").read_text().startswith("alpha,")
    assert out.count("numerical") == 3


def test_rero_bound(tmp_path):
    out = _run("rero_bound.py", cwd=tmp_path)
    rows = [line.split() for line in out.splitlines() if line.strip()[:1] == "0"]
    assert [row[0] for row in rows] == ["0.1", "0.01", "0.001"]


def test_verify_closed_form_through_symfdp_verify(tmp_path):
    # a user's own script, verified from another directory by this checkout
    path = os.pathsep.join(
        filter(None, [str(EXAMPLES.parent), os.getenv("PYTHONPATH")])
    )
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "SYMFDP_PROGRESS": "0",
        "PYTHONPATH": path,
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "symfdp",
            "verify",
            str(EXAMPLES / "verify_closed_form.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("PASS  verify_closed_form")
    assert "1/1 passed" in proc.stdout


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_examples_have_a_docstring_with_run_line(name):
    text = (EXAMPLES / name).read_text()
    assert text.startswith('"""') and "Run: ``python examples/" in text


def test_user_mechanism(tmp_path):
    out = _run("user_mechanism.py", cwd=tmp_path)
    assert "atom L = -0.7" in out and "kappa_4 = " in out
    assert "SaddlePoint refuses: the CGF" in out and "t in (-inf, 0.333333)" in out
    # The hand-written Laplace gives the built-in's certified bracket.
    brackets = [
        line.split("epsilon in ")[1]
        for line in out.splitlines()
        if "epsilon in [" in line
    ]
    assert brackets[0] == brackets[1]
