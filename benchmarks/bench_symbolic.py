"""Benchmark the symbolic core: derive+compile cold, warm disk-cache load, evaluation.

Run: ``python benchmarks/bench_symbolic.py`` (writes benchmarks/results/symbolic.json
and prints a table). Cold and warm loads run in fresh subprocesses with a temporary
``SYMFDP_CACHE_DIR``; each figure is the median over repeats.

Measured:
- ``cold``: ``evaluator("edgeworth_cdf", 6)`` in a fresh process with an empty disk
  cache (SymPy import + derivation + lambdify/CSE + cache write); target <= 5 s.
- ``warm``: the same call in a fresh process once the disk cache holds it; target
  <= 50 ms.
- ``eval``: ``EdgeworthDistribution(order=4).cdf`` at 10^4 points; target <= 1 ms.
  Measured side by side: the compiled full-expression evaluator (lambdify + CSE),
  ``scipy.special.ndtr`` alone (the floor: one normal CDF per point) and
  ``scipy.stats.norm.cdf``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "symbolic.json"
TARGETS = {"cold_s": 5.0, "warm_s": 0.050, "eval_s": 0.001}
REPEATS_PROCESS = 3
REPEATS_EVAL = 300

PROBE = """
import sys, time, json
t0 = time.perf_counter()
from symfdp.numeric.compile import evaluator
t1 = time.perf_counter()
ev = evaluator(sys.argv[1], int(sys.argv[2]))
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "call_s": t2 - t1,
                  "sympy_imported": "sympy" in sys.modules,
                  "fingerprint": ev.fingerprint}))
"""


def _probe(cache: Path, name: str, order: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "SYMFDP_NO_CACHE"}
    env["SYMFDP_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, name, str(order)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
    )
    wall = time.perf_counter() - start
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = wall
    return result


def cold_and_warm(name: str, order: int) -> dict[str, object]:
    colds, warms = [], []
    for _ in range(REPEATS_PROCESS):
        with tempfile.TemporaryDirectory(prefix="symfdp-bench-") as tmp:
            cache = Path(tmp)
            colds.append(_probe(cache, name, order))
            warms.append(_probe(cache, name, order))
            warms.append(_probe(cache, name, order))
    fingerprints = {r["fingerprint"] for r in colds + warms}
    return {
        "cold_s": statistics.median(r["call_s"] for r in colds),
        "cold_process_wall_s": statistics.median(r["process_wall_s"] for r in colds),
        "warm_s": statistics.median(r["call_s"] for r in warms),
        "warm_process_wall_s": statistics.median(r["process_wall_s"] for r in warms),
        "warm_imports_sympy": any(r["sympy_imported"] for r in warms),
        "import_compile_module_s": statistics.median(r["import_s"] for r in warms),
        "same_fingerprint": len(fingerprints) == 1,
    }


def _median_time(fn, repeats: int = REPEATS_EVAL) -> float:
    """Median over ``repeats`` calls after a warm-up (which compiles, caches)."""
    return _common.median_time(fn, repeats)[0]


def evaluation() -> dict[str, float]:
    from scipy import special, stats

    from symfdp.numeric.compile import evaluator
    from symfdp.numeric.edgeworth import EdgeworthDistribution

    rng = np.random.default_rng(0)
    x = rng.uniform(-3.0, 3.0, 10_000)
    n = 100  # standardised sum of n Exp(1): lambda_r = (r-1)! n^{1-r/2}
    lams = tuple(
        float(np.prod(np.arange(1, r)) * n ** (1 - r / 2)) for r in range(3, 7)
    )
    dist = EdgeworthDistribution(lams, 4)
    full = evaluator("edgeworth_cdf", 4)
    kwargs = {f"lambda{r}": v for r, v in zip(range(3, 7), lams, strict=True)}
    return {
        "eval_s": _median_time(lambda: dist.cdf(x)),
        "eval_compiled_full_expression_s": _median_time(lambda: full(x=x, **kwargs)),
        "eval_ndtr_floor_s": _median_time(lambda: special.ndtr(x)),
        "eval_scipy_norm_cdf_s": _median_time(lambda: stats.norm.cdf(x)),
        "eval_sf_s": _median_time(lambda: dist.sf(x)),
        "ppf_1e4_s": _median_time(lambda: dist.ppf(rng.uniform(0, 1, 10_000)), 30),
    }


def main() -> int:
    import sympy

    print("measuring cold/warm (fresh processes) ...", flush=True)
    cdf6 = cold_and_warm("edgeworth_cdf", 6)
    cf6 = cold_and_warm("cornish_fisher", 6)
    print("measuring evaluation ...", flush=True)
    ev = evaluation()
    figures = {
        "cold_s": cdf6["cold_s"],
        "warm_s": cdf6["warm_s"],
        "eval_s": ev["eval_s"],
    }
    result = {
        "benchmark": "symbolic core: derive+compile, disk cache, evaluation",
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            **_common.machine(),
            "cpu_count": os.cpu_count(),
            "sympy": sympy.__version__,
        },
        "targets": TARGETS,
        "figures": figures,
        "pass": {k: figures[k] <= TARGETS[k] for k in TARGETS},
        "details": {
            "edgeworth_cdf_order6": cdf6,
            "cornish_fisher_order6": cf6,
            "evaluation_order4_1e4_points": ev,
            "repeats": {"process": REPEATS_PROCESS, "eval": REPEATS_EVAL},
        },
    }
    _common.write_json(OUT, result)

    rows = [
        ("derive+compile edgeworth_cdf order 6, cold", cdf6["cold_s"], "cold_s"),
        ("  same, warm from disk cache", cdf6["warm_s"], "warm_s"),
        ("derive+compile cornish_fisher order 6, cold", cf6["cold_s"], None),
        ("  same, warm from disk cache", cf6["warm_s"], None),
        ("EdgeworthDistribution(order 4).cdf, 1e4 pts", ev["eval_s"], "eval_s"),
        (
            "  compiled full expression (lambdify+CSE)",
            ev["eval_compiled_full_expression_s"],
            None,
        ),
        ("  scipy.special.ndtr alone (floor)", ev["eval_ndtr_floor_s"], None),
        ("  scipy.stats.norm.cdf", ev["eval_scipy_norm_cdf_s"], None),
        ("EdgeworthDistribution(order 4).ppf, 1e4 pts", ev["ppf_1e4_s"], None),
    ]
    print(f"\n{'measurement':48s} {'median':>12s} {'target':>10s}  ok")
    for label, value, key in rows:
        target = f"{TARGETS[key] * 1e3:g} ms" if key else ""
        ok = ("yes" if value <= TARGETS[key] else "NO") if key else ""
        print(f"{label:48s} {value * 1e3:9.3f} ms {target:>10s}  {ok}")
    print(f"\nwarm load imports SymPy: {cdf6['warm_imports_sympy']}")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0 if all(result["pass"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
