"""``symfdp sweep`` (issue 17): specs, rows, executors, resume, progress.

The Dask tests use a real ``distributed.LocalCluster`` of worker processes; the
grids are tiny (CLT and numerical at small n) to keep the file fast.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from symfdp.cli import main
from symfdp.sweeps import SpecError, load, run_sweep, sweep
from symfdp.sweeps.store import Store

ROOT = Path(__file__).resolve().parents[1]

TINY: dict[str, Any] = {
    "mechanism": "subsampled-gaussian",
    "methods": ["clt", "numerical"],
    "grid": {
        "sigma": [1.0, 2.0],
        "sample_rate": 0.01,
        "steps": [10, 100],
        "delta": 1e-5,
    },
}


def _spec(**changes: Any) -> dict[str, Any]:
    spec = json.loads(json.dumps(TINY))
    grid = changes.pop("grid", {})
    spec.update(changes)
    spec["grid"].update(grid)
    return spec


def _numbers(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows without the timing column (which depends on the machine)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of ``OUT.jsonl``, non-finite numbers (written as strings: JSON
    has none) read back as floats."""
    nonfinite = ("inf", "-inf", "nan")
    return [
        {k: float(v) if v in nonfinite else v for k, v in json.loads(line).items()}
        for line in path.read_text().splitlines()
    ]


# ----------------------------------------------------------------- specs
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mechanism": "no-such"}, "unknown mechanism 'no-such'"),
        ({"grid": {"sigma": []}}, "grid.sigma is empty"),
        ({"methods": []}, "methods is empty"),
        ({"grid": {"steps": {"start": 100, "stop": 10, "step": 10}}}, "start must be"),
        ({"grid": {"sigma": {"start": 1, "stop": 2, "num": 0}}}, "num must be"),
        ({"grid": {"sigma": {"start": 0, "stop": 2, "num": 3, "scale": "log"}}}, "> 0"),
        ({"grid": {"steps": {"start": 1, "stop": 9, "step": 0}}}, "step must be > 0"),
        ({"grid": {"sigma": {"start": 1, "stop": 2}}}, "exactly one of num and step"),
        ({"grid": {"sample_rate": 1.5}}, "grid.sample_rate: values must lie in (0, 1]"),
        ({"grid": {"steps": 2.5}}, "grid.steps: values must be integers"),
        ({"grid": {"delta": 1}}, "grid.delta: values must lie in (0, 1)"),
        ({"grid": {"noise": [1]}}, "unknown grid axis 'noise'"),
        ({"methods": ["no-such"]}, "unknown method 'no-such'"),
        ({"methods": [{"name": "edgeworth", "order": -1}]}, "order"),
        ({"extra": 1}, "unknown key 'extra'"),
        ({"grid": {"mu": [1.0]}}, "exactly one parameter axis"),
    ],
)
def test_bad_spec_is_rejected_with_one_message(change, message):
    with pytest.raises(SpecError, match=None) as info:
        load(_spec(**change))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_spec_without_grid_or_delta_is_rejected():
    with pytest.raises(SpecError, match="grid is empty"):
        load({"mechanism": "gaussian"})
    spec = _spec()
    del spec["grid"]["delta"]
    with pytest.raises(SpecError, match=r"grid\.delta"):
        load(spec)


def test_bad_spec_at_the_command_line_does_no_work(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text(
        'mechanism = "subsampled-gaussian"\n[grid]\nsigma = []\n'
        "sample_rate = 0.01\nsteps = 10\ndelta = 1e-5\n"
    )
    assert main(["sweep", str(spec), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"symfdp: error: {spec}: grid.sigma is empty: the grid has no rows."]
    assert not list(tmp_path.glob("out*"))


def test_ranges_expand_as_written():
    plan = load(
        _spec(
            methods=["clt"],
            grid={
                "sigma": {"start": 1, "stop": 100, "num": 3, "scale": "log"},
                "steps": {"start": 10, "stop": 35, "step": 10},
            },
        )
    )
    assert [(r["sigma"], r["steps"]) for r in plan.rows] == [
        (1, 10), (1, 20), (1, 30),
        (10.0, 10), (10.0, 20), (10.0, 30),
        (100, 10), (100, 20), (100, 30),
    ]  # fmt: skip


def test_dpsgd_form_and_example_spec():
    plan = load(
        {
            "mechanism": "subsampled-gaussian",
            "method": "clt",
            "grid": {
                "sigma": 1.0,
                "epochs": 2,
                "dataset_size": 1000,
                "batch_size": 10,
                "delta": 1e-5,
            },
        }
    )
    assert [(r["sample_rate"], r["steps"]) for r in plan.rows] == [(0.01, 200)]
    example = load(ROOT / "examples" / "sweep_dpsgd.toml")
    assert len(example.rows) == 50
    assert {r["method"] for r in example.rows} == {"numerical"}


# ----------------------------------------------------------------- rows
def test_row_equals_symfdp_account(tmp_path, capsys):
    rows = sweep(_spec(grid={"sigma": 1.0, "steps": 100}))
    assert [r["method"] for r in rows] == ["clt", "numerical"]
    for row in rows:
        argv = "account --sigma 1 --sample-rate 0.01 --steps 100 --delta 1e-5"
        assert main([*argv.split(), "--method", row["method"], "--json"]) == 0
        (ref,) = json.loads(capsys.readouterr().out)["results"]
        assert row["epsilon"] == ref["epsilon"]
        assert row["mu_star"] == ref["mu_star"]
        assert row["epsilon_error"] == ref["epsilon_error_estimate"]
        if ref["epsilon_bounds"]:
            assert [row["epsilon_lo"], row["epsilon_hi"]] == ref["epsilon_bounds"]
        else:
            assert row["epsilon_lo"] is None
    numerical = rows[1]
    assert numerical["epsilon_lo"] <= numerical["epsilon"] <= numerical["epsilon_hi"]


def test_calibrate_rows_and_error_rows():
    rows = sweep(
        {
            "mechanism": "subsampled-gaussian",
            "methods": ["saddlepoint"],
            "calibrate": {"sigma_range": [0.5, 20.0], "rtol": 1e-4},
            "grid": {
                "target_eps": [2.0, 1e-6],
                "delta": 1e-5,
                "sample_rate": 0.01,
                "steps": 100,
            },
        }
    )
    ok, unreachable = rows
    assert ok["error"] is None and 0.5 < ok["sigma"] < 20
    assert ok["epsilon"] == pytest.approx(2.0, rel=1e-3)
    assert unreachable["sigma"] is None
    assert "calibrate.sigma_range" in unreachable["error"]


# ----------------------------------------------------------------- resume
def test_files_resume_and_drop_an_incomplete_line(tmp_path):
    out = tmp_path / "t"
    full = sweep(_spec(), out)
    assert _numbers(_jsonl(tmp_path / "t.jsonl")) == _numbers(full)
    with open(tmp_path / "t.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [int(r["row"]) for r in table] == list(range(8))
    assert float(table[1]["epsilon"]) == full[1]["epsilon"]
    # A killed writer leaves at most an incomplete last line; drop two rows too.
    lines = (tmp_path / "t.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "t.jsonl").write_text("".join(lines[2:]) + lines[0][:40])
    started = []
    rows, complete = run_sweep(
        load(_spec()), out, on_start=lambda s, t: started.append((s, t))
    )
    assert complete and started == [(6, 2)]
    assert _numbers(rows) == _numbers(full)
    assert _numbers(_jsonl(tmp_path / "t.jsonl")) == _numbers(full)


def test_output_of_another_grid_is_not_mixed(tmp_path):
    sweep(_spec(methods=["clt"]), tmp_path / "t")
    with pytest.raises(SpecError, match="not in this grid"):
        sweep(_spec(methods=["clt"], grid={"delta": 1e-6}), tmp_path / "t")


def test_ctrl_c_leaves_a_valid_table_and_rerun_resumes(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(
        'mechanism = "subsampled-gaussian"\nmethods = ["numerical"]\n[grid]\n'
        "sigma = [0.8, 1.0, 1.5]\nsample_rate = [0.01, 0.02]\n"
        "steps = [10, 30]\ndelta = 1e-5\n"
    )
    out = tmp_path / "t"
    cmd = [sys.executable, "-m", "symfdp", "sweep", str(spec), "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SYMFDP_PROGRESS": "0"}
    # A shell without job control starts background commands with SIGINT ignored,
    # and Python keeps an ignored SIGINT: the child takes Ctrl-C as a terminal does.
    interruptible = [
        sys.executable,
        "-c",
        "import runpy, signal, sys; signal.signal(signal.SIGINT, "
        "signal.default_int_handler); sys.argv = ['symfdp', *sys.argv[1:]]; "
        "runpy.run_module('symfdp', run_name='__main__')",
        *cmd[3:],
    ]
    proc = subprocess.Popen(interruptible, env=env, stdout=subprocess.PIPE, text=True)
    jsonl = tmp_path / "t.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if jsonl.exists() and len(jsonl.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    with open(tmp_path / "t.csv", newline="") as fh:
        partial = list(csv.DictReader(fh))
    finished = len(partial)
    assert 2 <= finished < 12
    assert [int(r["row"]) for r in partial] == sorted(int(r["row"]) for r in partial)
    assert len(_jsonl(jsonl)) == finished
    rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert f"({finished} already in t.jsonl, skipped); {12 - finished} to run" in (
        rerun.stdout
    )
    assert _numbers(_jsonl(jsonl)) == _numbers(sweep(spec))


# ----------------------------------------------------------------- executors
def _kill_mid_sweep(spec, out: Path, pids, **options) -> tuple[Any, list]:
    """Run ``sweep(spec, out, **options)`` in a thread; SIGKILL one process of
    ``pids()`` once a row is written and rows are still running."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(sweep(spec, out, **options)))
    thread.start()
    jsonl = out.with_suffix(".jsonl")
    deadline = time.monotonic() + 60
    killed = None
    while time.monotonic() < deadline and thread.is_alive():
        running = pids()
        if jsonl.exists() and jsonl.read_text().count("\n") >= 1 and running:
            killed = running[0]
            os.kill(killed, signal.SIGKILL)
            break
        time.sleep(0.01)
    thread.join(timeout=120)
    assert killed is not None, "the sweep ended before a worker could be killed"
    return killed, result[0]


SLOW = _spec(
    methods=["numerical"],
    grid={"sigma": [0.8, 1.0, 1.5, 3.0], "steps": [100, 300]},
)


@functools.cache
def _slow_reference() -> list[dict[str, Any]]:
    return _numbers(sweep(SLOW))


def test_a_killed_local_process_costs_a_retry(tmp_path):
    """--jobs 2: the same table as in-process, though a worker was killed."""
    import multiprocessing

    def pids() -> list[int]:
        return [p.pid for p in multiprocessing.active_children()]

    _, rows = _kill_mid_sweep(SLOW, tmp_path / "t", pids, jobs=2)
    assert len(rows) == 8 and all(r["error"] is None for r in rows)
    assert _numbers(rows) == _slow_reference()


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_dask_gives_the_same_table_and_resumes(dask_client, tmp_path):
    reference = sweep(_spec())
    assert _numbers(sweep(_spec(), executor=dask_client)) == _numbers(reference)
    # Half the grid done in this process, the rest on Dask.
    out = tmp_path / "t"
    sweep(_spec(grid={"sigma": [1.0]}), out)
    started = []
    rows, complete = run_sweep(
        load(_spec()), out, executor=dask_client, on_start=lambda *a: started.append(a)
    )
    assert complete and started == [(4, 4)]
    assert _numbers(rows) == _numbers(reference)
    assert _numbers(_jsonl(tmp_path / "t.jsonl")) == _numbers(reference)


def _busy_workers(client: Any) -> Any:
    """Once both workers are up (a killed one is restarted by its nanny): a
    function listing the pids of the workers with a row running or queued."""
    client.wait_for_workers(2, timeout=60)
    pids = client.run(os.getpid)

    def busy() -> list[int]:
        processing = client.processing().items()
        return [pids[w] for w, keys in processing if keys and w in pids]

    return busy


def test_a_killed_dask_worker_costs_a_retry_not_the_sweep(dask_client, tmp_path):
    busy = _busy_workers(dask_client)

    killed, rows = _kill_mid_sweep(SLOW, tmp_path / "t", busy, executor=dask_client)
    assert len(rows) == 8 and all(r["error"] is None for r in rows)
    assert _numbers(rows) == _slow_reference()
    assert killed not in dask_client.run(os.getpid).values()


def test_a_row_whose_worker_dies_is_an_error_row_then_retried(dask_client, tmp_path):
    scheduler = dask_client.cluster.scheduler
    allowed = scheduler.allowed_failures
    scheduler.allowed_failures = 0  # the first death of a row's worker is final
    busy = _busy_workers(dask_client)

    try:
        _, rows = _kill_mid_sweep(SLOW, tmp_path / "t", busy, executor=dask_client)
    finally:
        scheduler.allowed_failures = allowed
    lost = [r for r in rows if r["error"]]
    assert len(rows) == 8 and lost
    assert all(r["error"].startswith("worker died: KilledWorker") for r in lost)
    assert all(r["epsilon"] is None for r in lost)
    started = []
    again, complete = run_sweep(
        load(SLOW), tmp_path / "t", on_start=lambda *a: started.append(a)
    )
    assert complete and started == [(8 - len(lost), len(lost))]
    assert _numbers(again) == _slow_reference()


def test_bad_executor_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="executor must be"):
        sweep(_spec(), executor="nowhere")
    with pytest.raises(ValueError, match="jobs must be"):
        sweep(_spec(), jobs=0)


# ----------------------------------------------------------------- progress
def test_status_lines_when_not_a_terminal(capsys, monkeypatch):
    from symfdp._progress import Progress

    monkeypatch.delenv("SYMFDP_PROGRESS", raising=False)
    bar = Progress(4, "sweep", enabled=False, status_every=1e-9)
    for _ in range(4):
        bar.update()
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("sweep: 4/4 done,")
    assert all("/s, eta" in line for line in lines)


def test_store_writes_complete_lines(tmp_path):
    store = Store(tmp_path / "x.csv", ["id", "a", "warnings"])
    store.rewrite([])
    store.open()
    store.append({"id": "r1", "a": float("inf"), "warnings": ["W: one", "W: two"]})
    store.close()
    assert (tmp_path / "x.csv").read_text() == "id,a,warnings\nr1,inf,W: one | W: two\n"
    assert store.finished()["r1"]["a"] == float("inf")


def test_adjacency_key_reaches_the_rows():
    """``adjacency`` as in ``symfdp account --adjacency``; ``pair`` (the older
    key) still works and gives the same rows and ids."""
    old = sweep(_spec(methods=["clt"], pair="add", grid={"sigma": 1.0, "steps": 10}))
    new = sweep(
        _spec(methods=["clt"], adjacency="add", grid={"sigma": 1.0, "steps": 10})
    )
    assert _numbers(old) == _numbers(new) and new[0]["pair"] == "add"
    (row,) = sweep(
        _spec(
            methods=["numerical"],
            adjacency="replace_one",
            grid={"sigma": 1.0, "steps": 100},
        )
    )
    from symfdp import TrainingAccountant

    acc = TrainingAccountant(adjacency="replace_one")
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=100)
    assert row["pair"] == "replace_one"
    assert [row["epsilon_lo"], row["epsilon_hi"]] == list(acc.get_epsilon_bounds(1e-5))
    with pytest.raises(SpecError, match="adjacency only"):
        load(_spec(pair="add", adjacency="add"))
    with pytest.raises(SpecError, match="adjacency must be one of"):
        load(_spec(adjacency="both"))
