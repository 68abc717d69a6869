"""`symfdp derive` and `symfdp verify`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from symfdp.cli import main
from symfdp.cli import verify as verify_cli
from symfdp.symbolic.cornish_fisher import cornish_fisher_expr
from symfdp.symbolic.edgeworth import edgeworth_cdf_expr
from symfdp.symbolic.symbols import canonicalize


def _derive(capsys, *args: str) -> list[str]:
    assert main(["derive", *args]) == 0
    return capsys.readouterr().out.strip().splitlines()


@pytest.mark.parametrize("order", [0, 1, 2, 4])
def test_edgeworth_sympy_last_line_parses(capsys, order):
    last = _derive(capsys, "edgeworth", "--order", str(order), "--format", "sympy")[-1]
    parsed = sp.parse_expr(last)  # plain SymPy, no local dictionary
    assert sp.expand(canonicalize(parsed) - edgeworth_cdf_expr(order)) == 0
    names = {s.name for s in parsed.free_symbols}
    assert names <= {"x", *(f"lambda{r}" for r in range(3, order + 3))}


def test_cornish_fisher_sympy_last_line_parses(capsys):
    last = _derive(capsys, "cornish-fisher", "--order", "2", "--format", "sympy")[-1]
    parsed = canonicalize(sp.parse_expr(last))
    assert sp.expand(parsed - cornish_fisher_expr(2)) == 0


def test_cumulants_sympy_last_line_is_the_list(capsys):
    last = _derive(capsys, "cumulants", "--order", "4", "--format", "sympy")[-1]
    parsed = sp.parse_expr(last)
    m1, m2 = sp.symbols("m1 m2")
    assert parsed[0] == 0 and parsed[1] == m1
    assert sp.expand(parsed[2] - (m2 - m1**2)) == 0
    assert len(parsed) == 5


def test_latex_and_python_formats(capsys):
    latex = _derive(capsys, "edgeworth", "--order", "2", "--format", "latex")
    assert latex[-1].startswith("F(x) = ")
    assert "\\lambda_{3}" in latex[-1]
    python = "\n".join(_derive(capsys, "edgeworth", "-J", "2", "-f", "python"))
    assert "def _lambdifygenerated(x, lambda3, lambda4):" in python
    cf = _derive(capsys, "cornish-fisher", "--order", "1", "--format", "latex")
    assert cf[-1].startswith("x(z) = ")
    cum = _derive(capsys, "cumulants", "--order", "2", "--format", "python")
    assert cum[-1] == "kappa2 = -m1**2 + m2"


@pytest.mark.parametrize("bad", ["-1", "1.5", "two", "65"])
def test_bad_order_exits_2_with_one_line(capsys, bad):
    assert main(["derive", "edgeworth", "--order", bad]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "order" in lines[0]


def test_verify_runs_one_script(capsys):
    assert main(["verify", "hermite_check"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "hermite_check" in ln)
    assert line.startswith("PASS")
    assert "1 misprint(s) reported: zheng2020-a7-he7" in line


def test_verify_unknown_script_is_a_usage_error(capsys):
    assert main(["verify", "no_such_script"]) == 2
    assert "unknown derivation script" in capsys.readouterr().err


def _fake_derivations(tmp_path: Path) -> Path:
    d = tmp_path / "derivations"
    d.mkdir()
    (d / "_helper.py").write_text("raise SystemExit(3)\n")
    (d / "good.py").write_text(
        "print('[MISPRINT] zheng2020-a7-he7: eq. (A.7)')\nprint('fine')\n"
    )
    (d / "bad.py").write_text("import sys\nprint('broken')\nsys.exit(1)\n")
    return d


def test_verify_pass_fail_skip_and_exit_status(tmp_path, monkeypatch, capsys):
    d = _fake_derivations(tmp_path)
    monkeypatch.setattr(verify_cli, "derivations_dir", lambda: d)
    assert main(["verify", "--jobs", "2", "-v"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert any(
        ln.startswith("PASS") and "good" in ln and "1 misprint" in ln for ln in lines
    )
    assert any(ln.startswith("FAIL") and "bad" in ln for ln in lines)
    assert "_helper" not in out
    assert "broken" in out  # -v shows the scripts' output
    assert "1/2 passed" in out
    assert main(["verify", "good"]) == 0


def test_verify_without_derivations_dir(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(verify_cli, "derivations_dir", lambda: tmp_path / "missing")
    assert main(["verify"]) == 2
    assert "derivations/" in capsys.readouterr().err


def test_console_script_smoke():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "symfdp",
            "verify",
            "cumulants_moments",
            "hermite_check",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASS") == 2
    proc = subprocess.run(
        [sys.executable, "-m", "symfdp", "derive", "edgeworth", "--order", "-3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("order", [3, 4, 6])
def test_saddlepoint_sympy_last_line_is_the_terms(capsys, order):
    from symfdp.symbolic.saddlepoint import correction_terms_expr

    last = _derive(capsys, "saddlepoint", "--order", str(order), "--format", "sympy")[
        -1
    ]
    parsed = sp.sympify(last)
    expected = correction_terms_expr(order)
    assert len(parsed) == order - 2
    for got, want in zip(parsed, expected, strict=True):
        assert sp.expand(canonicalize(got) - want) == 0


@pytest.mark.parametrize("fmt", ["latex", "sympy"])
def test_saddlepoint_output_defines_every_symbol_it_prints(capsys, fmt):
    """Every symbol of the printed expressions is named in the header lines."""
    lines = _derive(capsys, "saddlepoint", "--order", "4", "--format", fmt)
    header = " ".join(ln for ln in lines if ln.startswith(("%", "# ")) and "=" in ln)
    header = header.split("T1 =")[0]
    body = [ln.split("=", 1)[1] for ln in lines if ln.startswith(("T_", "G^", "# G_"))]
    assert body
    names = set()
    for expr in body:
        names |= (
            {str(s) for s in sp.sympify(expr.replace("\\", "")).free_symbols}
            if fmt == "sympy"
            else set(re.findall(r"[a-z]+", expr)) - {"frac"}
        )
    stems = {re.sub(r"_?\d+$", "", n) for n in names} - {"lambda", "D"}
    assert stems, names
    for stem in stems:
        assert re.search(rf"\b{stem} =", header), (stem, header)
    assert "lambda_r =" in header and "D{k} =" in header


def test_saddlepoint_low_order_has_no_terms_and_formats(capsys):
    assert "no correction terms" in _derive(capsys, "saddlepoint", "--order", "2")[0]
    latex = _derive(capsys, "saddlepoint", "--order", "3", "--format", "latex")
    assert any(ln.startswith("T_{1} =") for ln in latex)
    py = _derive(capsys, "saddlepoint", "--order", "3", "--format", "python")
    assert any("def " in ln for ln in py)


def test_verify_runs_saddlepoint_orders(capsys):
    assert main(["verify", "saddlepoint_orders"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "saddlepoint_orders" in ln)
    assert line.startswith("PASS")


DERIVE_PROBE = (
    "import sys\n"
    "from symfdp.cli import main\n"
    "status = main(['derive', *sys.argv[1:]])\n"
    "heavy = [m for m in ('sympy', 'numpy', 'scipy') if m in sys.modules]\n"
    "print('loaded:', heavy, file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def _derive_process(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYMFDP_NO_CACHE"}
    env["SYMFDP_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-c", DERIVE_PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("edgeworth", "--order", "3"),
        ("cornish-fisher", "--order", "2", "--format", "sympy"),
        ("saddlepoint", "--order", "4"),
    ],
)
def test_warm_derive_reads_the_text_without_sympy(tmp_path, args):
    cold = _derive_process(tmp_path, *args)
    assert "'sympy'" in cold.stderr
    warm = _derive_process(tmp_path, *args)
    assert warm.stdout == cold.stdout
    assert "loaded: []" in warm.stderr  # neither SymPy, NumPy nor SciPy
    (entry,) = (tmp_path / "texts").glob("derive-*.json")
    # The text of another order is derived anew, then read back too.
    other = (*args[:2], str(int(args[2]) + 1), *args[3:])
    again = _derive_process(tmp_path, *other)
    assert again.stdout != cold.stdout and "'sympy'" in again.stderr
    assert len(list((tmp_path / "texts").glob("derive-*.json"))) == 2
    assert entry.exists()
