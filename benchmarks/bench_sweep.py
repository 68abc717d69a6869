"""Throughput of ``symfdp sweep`` on a 200-row certified grid, by executor.

Run: ``python benchmarks/bench_sweep.py`` (a few minutes). Writes
``benchmarks/results/sweep.json`` and the scaling figure ``sweep_scaling.png``.

Grid (:data:`SPEC`): Poisson-subsampled Gaussian, 10 noise multipliers x 5
sampling rates x 4 run lengths, delta = 1e-5, method ``numerical`` (certified
bracket): 200 rows. Each executor runs the whole command as a user would, in a
fresh subprocess writing a fresh table: ``--jobs 1`` (in this process), ``--jobs
2`` (two local processes), ``--executor dask --jobs 1`` and ``--jobs 2`` (a local
Dask cluster of 1 or 2 worker processes, started and stopped by the command).

Measured: wall seconds of the command (Python start, imports, cluster start and
the rows) and rows per second over it; the sum of the rows' own ``seconds``
(the time inside ``account_one``, which grows when the workers share cores);
and the accuracy: every table must equal the ``--jobs 1`` table in everything
but the ``seconds`` column, and the certified brackets' relative widths are
reported. The machine has 2 cores shared with other work: the load average
before and after each run is recorded, and the figures are noisy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common
import numpy as np

OUT = Path(__file__).resolve().parent / "results"
SPEC = """\
mechanism = "subsampled-gaussian"
methods = ["numerical"]

[grid]
sigma = { start = 0.6, stop = 3.0, num = 10, scale = "log" }
sample_rate = { start = 1e-3, stop = 5e-2, num = 5, scale = "log" }
steps = [100, 300, 1000, 3000]
delta = 1e-5
"""
RUNS: tuple[tuple[str, str, int], ...] = (
    ("--jobs 1 (in-process)", "local", 1),
    ("--jobs 2 (processes)", "local", 2),
    ("dask, 1 worker", "dask", 1),
    ("dask, 2 workers", "dask", 2),
)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _run(spec: Path, out: Path, executor: str, jobs: int) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": str(_common.ROOT),
        "SYMFDP_PROGRESS": "0",
    }
    argv = [sys.executable, "-m", "symfdp", "sweep", str(spec), "-o", str(out)]
    argv += ["--executor", executor, "--jobs", str(jobs)]
    load_before = os.getloadavg()
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    rows = _rows(out.with_suffix(".jsonl"))
    return {
        "argv": " ".join(argv[3:]),
        "wall_s": wall,
        "rows": len(rows),
        "rows_per_s": len(rows) / wall,
        "sum_row_seconds": sum(r["seconds"] for r in rows),
        "errors": sum(1 for r in rows if r["error"]),
        "loadavg_before_after": [load_before, os.getloadavg()],
        "stdout": proc.stdout.strip().splitlines(),
    }


def _figure(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.6), layout="constrained")
    for executor, marker in (("local", "o"), ("dask", "s")):
        sel = [r for r in results if r["executor"] == executor]
        ax.plot(
            [r["jobs"] for r in sel],
            [r["rows_per_s"] for r in sel],
            marker=marker,
            label="--jobs K (local)" if executor == "local" else "--executor dask",
        )
    ax.set_xticks([1, 2])
    ax.set_xlabel("workers K")
    ax.set_ylabel("rows / s (whole command)")
    ax.set_ylim(bottom=0)
    ax.set_title("symfdp sweep, 200 certified rows, 2 shared cores", fontsize=10)
    ax.legend()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    started = datetime.now(timezone.utc).isoformat()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "grid.toml"
        spec.write_text(SPEC)
        tables = {}
        for label, executor, jobs in RUNS:
            out = Path(tmp) / f"t-{executor}-{jobs}"
            record = _run(spec, out, executor, jobs)
            record.update(label=label, executor=executor, jobs=jobs)
            results.append(record)
            tables[label] = [
                {k: v for k, v in r.items() if k != "seconds"}
                for r in _rows(out.with_suffix(".jsonl"))
            ]
            print(
                f"{label:24s} {record['wall_s']:7.1f} s  "
                f"{record['rows_per_s']:6.2f} rows/s  "
                f"rows' own time {record['sum_row_seconds']:6.1f} s",
                flush=True,
            )
    reference = tables[RUNS[0][0]]
    for record in results:
        record["table_equals_jobs1"] = tables[record["label"]] == reference
    width = np.array(
        [(r["epsilon_hi"] - r["epsilon_lo"]) / r["epsilon"] for r in reference]
    )
    record = {
        "benchmark": "sweep",
        "started_utc": started,
        "machine": {**_common.machine(), "cpus": os.cpu_count()},
        "git": _common.git_state(),
        "spec": SPEC,
        "accuracy": {
            "tables_identical": all(r["table_equals_jobs1"] for r in results),
            "bracket_rel_width_median": float(np.median(width)),
            "bracket_rel_width_max": float(width.max()),
        },
        "runs": results,
        "figure": "sweep_scaling.png",
    }
    _common.write_json(OUT / "sweep.json", record)
    _figure(results, OUT / "sweep_scaling.png")
    print(json.dumps(record["accuracy"]))


if __name__ == "__main__":
    main()
