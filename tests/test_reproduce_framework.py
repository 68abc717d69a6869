"""The reproduction machinery: discovery, atomic outputs, skipping, report, CLI."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from symfdp.cli import main
from symfdp.reproduce import Result, Spec, claim_close, claim_holds
from symfdp.reproduce.discovery import discover, load_module, shared_module_files
from symfdp.reproduce.runner import read_table, run_experiment, spec_hash, write_table

TOY = """
import numpy as np
import matplotlib.pyplot as plt
from symfdp.reproduce import Result, Spec, claim_close

SPEC = Spec(id="toy-fig1", title="toy", source="nowhere", params={{"k": 3}},
            quick={{"k": 2}})

def compute(params):
    x = np.arange(params["k"], dtype=float)
    {body}
    return Result({{"data": {{"x": x, "y": x ** 2, "label": ["a"] * x.size}}}},
                  (claim_close("sum", "sum of squares", 5.0, float((x ** 2).sum()),
                               atol=0.5),))

def plot(tables, params):
    fig, ax = plt.subplots()
    ax.plot(tables["data"]["x"], tables["data"]["y"])
    return fig
"""


@pytest.fixture
def toy_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    exp = tmp_path / "experiments"
    exp.mkdir()
    (exp / "toy_fig1.py").write_text(textwrap.dedent(TOY.format(body="pass")))
    (exp / "matplotlibrc").write_text("backend: agg\ntext.usetex: False\n")
    monkeypatch.setenv("SYMFDP_EXPERIMENTS_DIR", str(exp))
    return exp


def test_claim_close_half_unit_rule() -> None:
    assert claim_close("a", "s", 0.07, 0.0668, digits=2).passed
    assert claim_close("a", "s", 0.07, 0.0749, digits=2).passed  # within 0.005
    assert not claim_close("a", "s", 0.07, 0.0751, digits=2).passed
    assert claim_close("a", "s", 0.07, 0.07, digits=2).criterion.startswith("|ours")
    assert not claim_close("b", "s", 2.89, float("nan"), digits=2).passed
    c = claim_holds("c", "s", "x", "y", False, "crit", source_error="typo in eq. 3")
    assert c.verdict == "FAIL (source)"


def test_csv_round_trip(tmp_path: Path) -> None:
    table = {"x": np.array([0.1, 1e-300, 1 / 3]), "m": np.array(["a", "b", "c"])}
    write_table(tmp_path / "t.csv", table)
    back = read_table(tmp_path / "t.csv")
    np.testing.assert_array_equal(back["x"], table["x"])  # 17 digits: exact
    assert list(back["m"]) == ["a", "b", "c"]


def test_result_validation() -> None:
    with pytest.raises(ValueError, match="data"):
        Result({"other": {}}, ())
    with pytest.raises(ValueError, match="unequal"):
        Result({"data": {"a": np.zeros(2), "b": np.zeros(3)}}, ())


def test_run_writes_outputs_and_skips(toy_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    first = run_experiment(toy_dir / "toy_fig1.py", out, quick=False)
    assert first.status == "ran", first.error
    folder = out / "toy-fig1"
    for name in ("data.csv", "figure.png", "claims.json", "manifest.json"):
        assert (folder / name).exists()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["params"] == {"k": 3} and not manifest["quick"]
    assert {"numpy", "scipy", "sympy", "mpmath", "symfdp"} <= set(manifest["versions"])
    claims = json.loads((folder / "claims.json").read_text())
    assert claims[0]["verdict"] == "PASS"  # 0 + 1 + 4 = 5
    assert run_experiment(toy_dir / "toy_fig1.py", out).status == "skipped"
    # Quick mode changes the spec hash, so it recomputes (and the claim fails).
    quick = run_experiment(toy_dir / "toy_fig1.py", out, quick=True)
    assert quick.status == "ran" and quick.failed_claims
    # No temporary directory is left behind.
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_interrupted_result_is_not_trusted(toy_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    run_experiment(toy_dir / "toy_fig1.py", out)
    (out / "toy-fig1" / "manifest.json").write_text("{ truncated")
    assert run_experiment(toy_dir / "toy_fig1.py", out).status == "ran"


def test_error_in_experiment_is_reported(toy_dir: Path, tmp_path: Path) -> None:
    (toy_dir / "toy_fig1.py").write_text(
        textwrap.dedent(TOY.format(body="raise RuntimeError('boom')"))
    )
    outcome = run_experiment(toy_dir / "toy_fig1.py", tmp_path / "r", force=True)
    assert outcome.status == "error" and "boom" in outcome.error
    assert not (tmp_path / "r" / "toy-fig1").exists()


def test_discovery_checks_file_name(toy_dir: Path) -> None:
    assert list(discover(toy_dir)) == ["toy-fig1"]
    (toy_dir / "wrong_name.py").write_text(
        (toy_dir / "toy_fig1.py").read_text().replace("toy-fig1", "toy-fig2")
    )
    with pytest.raises(ValueError, match="file name must be"):
        load_module(toy_dir / "wrong_name.py")


def test_cli_list_run_report(
    toy_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    assert main(["reproduce", "list"]) == 0
    assert "toy-fig1" in capsys.readouterr().out
    assert main(["reproduce", "toy-fig1", "--jobs", "1", "--out", str(out)]) == 0
    report = (out / "REPORT.md").read_text()
    assert (
        "| [toy-fig1](toy-fig1/figure.png) | sum of squares | 5 | 5 | **PASS**"
        in report
    )
    assert main(["reproduce", "nope", "--out", str(out)]) == 2
    assert "unknown experiment" in capsys.readouterr().err
    assert main(["reproduce", "all", "--jobs", "0"]) == 2


def test_spec_resolved() -> None:
    spec = Spec(id="a-b.c", title="t", source="s", params={"n": 1}, quick={"n": 0})
    assert spec.module_name == "a_b_c"
    assert spec.resolved(True) == {"n": 0} and spec.resolved(False) == {"n": 1}


SHARING = """
import numpy as np
import matplotlib.pyplot as plt
import _toy_shared
from symfdp.reproduce import Result, Spec, claim_close

SPEC = Spec(id="toy-fig2", title="toy", source="nowhere", params={"k": 3})

def compute(params):
    x = np.arange(params["k"], dtype=float)
    y = _toy_shared.transform(x)
    return Result({"data": {"x": x, "y": y}},
                  (claim_close("sum", "sum", 3.0, float(y.sum()), atol=0.5),))

def plot(tables, params):
    fig, ax = plt.subplots()
    ax.plot(tables["data"]["x"], tables["data"]["y"])
    return fig
"""


# A shared module may itself import another (at module level).
SHARED = "import _toy_scale\n\ndef transform(x):\n    return _toy_scale.K * x\n"


@pytest.fixture
def shared_dir(toy_dir: Path) -> Path:
    (toy_dir / "toy_fig2.py").write_text(textwrap.dedent(SHARING))
    (toy_dir / "_toy_shared.py").write_text(SHARED)
    (toy_dir / "_toy_scale.py").write_text("K = 1.0\n")
    return toy_dir


def test_experiment_imports_shared_module(shared_dir: Path) -> None:
    import sys

    path_before = list(sys.path)
    # discovery skips the shared modules themselves
    assert list(discover(shared_dir)) == ["toy-fig1", "toy-fig2"]
    module = load_module(shared_dir / "toy_fig2.py")
    np.testing.assert_array_equal(
        module.compute({"k": 3}).tables["data"]["y"], [0, 1, 2]
    )
    assert [p.name for p in shared_module_files(module)] == [
        "_toy_scale.py",
        "_toy_shared.py",
    ]
    assert shared_module_files(load_module(shared_dir / "toy_fig1.py")) == ()
    # sys.path and sys.modules are as before: shared modules do not leak
    assert sys.path == path_before
    assert "_toy_shared" not in sys.modules and "_toy_scale" not in sys.modules


def test_edited_shared_module_is_reloaded_and_invalidates_results(
    shared_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    path = shared_dir / "toy_fig2.py"
    assert run_experiment(path, out).status == "ran"
    assert run_experiment(path, out).status == "skipped"
    hash_before = spec_hash(load_module(path), quick=False)
    # Editing a shared module imported indirectly changes the spec hash and the result.
    (shared_dir / "_toy_scale.py").write_text("K = 2.0\n")
    assert spec_hash(load_module(path), quick=False) != hash_before
    again = run_experiment(path, out)
    assert again.status == "ran"
    assert read_table(out / "toy-fig2" / "data.csv")["y"].tolist() == [0.0, 2.0, 4.0]
    # A shared module nobody imports does not touch the hash.
    (shared_dir / "_unused.py").write_text("X = 1\n")
    assert run_experiment(path, out).status == "skipped"


def test_shared_module_does_not_clobber_a_module_of_the_same_name(
    shared_dir: Path,
) -> None:
    import sys
    import types

    foreign = types.ModuleType("_toy_scale")
    sys.modules["_toy_scale"] = foreign
    try:
        module = load_module(shared_dir / "toy_fig2.py")
        assert sys.modules["_toy_scale"] is foreign  # restored after the load
        assert (
            module._toy_shared._toy_scale is not foreign
        )  # the shared module was used
    finally:
        del sys.modules["_toy_scale"]


def test_shared_module_shadowing_the_standard_library_is_refused(
    shared_dir: Path,
) -> None:
    (shared_dir / "_json.py").write_text("X = 1\n")
    with pytest.raises(ValueError, match="_json"):
        load_module(shared_dir / "toy_fig2.py")


def test_no_stale_bytecode(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    # Bytecode caches are keyed on whole-second mtimes and sizes: an edit that
    # keeps both must still be seen, so nothing is cached as bytecode.
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    scale = shared_dir / "_toy_scale.py"
    stat = scale.stat()
    load_module(shared_dir / "toy_fig2.py")
    scale.write_text("K = 7.0\n")  # same size
    os.utime(scale, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    module = load_module(shared_dir / "toy_fig2.py")
    assert module.compute({"k": 2}).tables["data"]["y"].tolist() == [0.0, 7.0]
    assert not list(shared_dir.rglob("*.pyc"))


def test_dask_executor_gives_the_same_report(
    toy_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert main(["reproduce", "toy-fig1", "--jobs", "1", "--out", str(local)]) == 0
    argv = ["reproduce", "all", "--executor", "dask", "--jobs", "1", "--out"]
    assert main([*argv, str(dask)]) == 0
    assert "on dask" in capsys.readouterr().out

    def report(root: Path) -> str:  # without the run times and the clock
        text = re.sub(r"[0-9.]+ s\b", "- s", (root / "REPORT.md").read_text())
        return re.sub(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "<time> UTC", text)

    assert report(dask) == report(local)
    for name in ("claims.json", "data.csv"):
        assert (dask / "toy-fig1" / name).read_bytes() == (
            local / "toy-fig1" / name
        ).read_bytes()


# ------------------------------------------- listing, installed copies (issue 14)
def test_catalogue_lists_without_importing(
    toy_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from symfdp.reproduce.discovery import catalogue

    # a module that would fail if imported is listed from its SPEC literal
    text = (toy_dir / "toy_fig1.py").read_text()
    (toy_dir / "toy_fig1.py").write_text("raise RuntimeError('imported')\n" + text)
    before = {m for m in sys.modules if m.startswith("symfdp_experiment_")}
    (entry,) = catalogue(toy_dir).values()
    assert (entry.id, entry.path) == ("toy-fig1", toy_dir / "toy_fig1.py")
    assert main(["reproduce", "list"]) == 0
    assert "toy-fig1" in capsys.readouterr().out
    after = {m for m in sys.modules if m.startswith("symfdp_experiment_")}
    assert after == before
    (toy_dir / "wrong_name.py").write_text(text.replace("toy-fig1", "toy-fig2"))
    with pytest.raises(ValueError, match="file name must be"):
        catalogue(toy_dir)


def test_catalogue_agrees_with_discover_on_the_experiments() -> None:
    from symfdp.reproduce.discovery import catalogue
    from symfdp.reproduce.paths import experiments_dir

    entries = catalogue(experiments_dir())
    assert len(entries) >= 30
    for sid, entry in entries.items():
        assert entry.path.stem == sid.replace("-", "_").replace(".", "_")
        assert entry.title and entry.source


def test_installed_copy_is_found(tmp_path: Path, monkeypatch) -> None:
    """A non-editable install has no checkout beside the package; experiments/
    and derivations/ are found in <prefix>/share/symfdp (pyproject data-files)."""
    from symfdp.reproduce import paths

    monkeypatch.delenv("SYMFDP_EXPERIMENTS_DIR", raising=False)
    monkeypatch.delenv("SYMFDP_DERIVATIONS_DIR", raising=False)
    monkeypatch.setattr(paths, "repo_root", lambda: tmp_path / "site-packages")
    monkeypatch.setattr(paths, "installed_data_dirs", lambda: [tmp_path / "share"])
    with pytest.raises(FileNotFoundError, match="no experiments/ directory found"):
        paths.experiments_dir()
    (tmp_path / "share" / "experiments").mkdir(parents=True)
    (tmp_path / "share" / "derivations").mkdir()
    assert paths.experiments_dir() == tmp_path / "share" / "experiments"
    assert paths.derivations_dir() == tmp_path / "share" / "derivations"
    monkeypatch.setattr(paths, "installed_data_dirs", lambda: [])
    assert main(["reproduce", "list"]) == 2  # one line, no traceback
