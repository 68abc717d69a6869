"""benchmarks/bench_startup.py runs in its quick mode and writes a valid record
(its timings are measurements, never asserted)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_run_writes_a_valid_record(tmp_path):
    out = tmp_path / "startup.json"
    env = {k: v for k, v in os.environ.items() if k != "SYMFDP_NO_CACHE"}
    proc = subprocess.run(
        [sys.executable, "bench_startup.py", "--quick", "--out", str(out)],
        cwd=ROOT / "benchmarks",
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    record = json.loads(out.read_text())
    assert record["quick"] is True and set(record["trees"]) == {"this"}
    cases = record["cases"]["this"]
    expected = {
        "floor",
        "import",
        "help",
        "account_help",
        "derive_edgeworth_2 (warm)",
        "derive_edgeworth_2 (cold)",
    }
    assert set(cases) == expected
    for name, row in cases.items():
        assert "failed" not in row, (name, row)
        wall = row["wall_s"]
        assert len(wall["all"]) == 1 and wall["min"] <= wall["median"] <= wall["max"]
        assert math.isfinite(row["ratio_to_floor"]) and row["ratio_to_floor"] > 0
        assert row["command"].split()[0] in ("python", "symfdp")
    assert cases["floor"]["ratio_to_floor"] == 1.0
    assert cases["import"]["importtime_symfdp_us"]["median"] > 0
    assert cases["derive_edgeworth_2 (cold)"]["cache"] == "cold"
