"""Benchmark ``symfdp account`` and ``symfdp.TrainingAccountant``.

Run: ``python benchmarks/bench_cli.py [--with-prv]`` (writes
benchmarks/results/cli.json and prints a summary; about a minute). The machine
is shared, so the load average is recorded and CPU time is given beside wall
time.

(a) ``symfdp account`` for sigma = 1, p = 0.01, 1000 steps, delta = 1e-5, per
    method: (i) the runtime the command reports (compose + mu* + eps + bracket,
    imports excluded), cold (first call in a fresh process) and warm (median
    in-process); (ii) the whole command as a user runs it, in a subprocess:
    wall and CPU seconds (median of 3), beside the cost of starting Python and
    importing numpy + scipy.optimize alone. Targets: < 1 s for edgeworth,
    saddlepoint and the default method (numerical); the numerical eps inside its
    certified bracket.
(b) ``TrainingAccountant`` after 10^6 identical steps (sigma = 1.1, p = 0.004):
    the cost of 10^6 ``step()`` calls (default accountant), then
    ``get_epsilon(1e-5)`` (first call: compose + eps; repeated: cached curve), for
    each method, and equality with the one-shot ``compose``. Target: get_epsilon
    <= 50 ms, for the methods whose cost is independent of the number of steps
    (saddlepoint, edgeworth, clt); the default, numerical (certified), is
    recorded beside them, its FFT growing slowly with n. Peers answering the
    same question in the same run: dp-accounting ``RdpAccountant`` and
    ``PLDAccountant`` (value discretisation 1e-3); our certified bracket is the
    reference. prv-accountant ``PRVAccountant`` (eps_error 0.01) runs only with
    ``--with-prv``: at 10^6 compositions it took 202 s on this machine (2 cores,
    shared), too long for a routine run.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common

from symfdp import mechanisms as M
from symfdp.training import DEFAULT_METHOD, TrainingAccountant, make_accountant

OUT = Path(__file__).resolve().parent / "results" / "cli.json"
SIGMA, P, N, DELTA = 1.0, 0.01, 1000, 1e-5
METHODS = ("edgeworth", "saddlepoint", "numerical", "clt")
TARGET_ACCOUNT_S = 1.0
BIG_SIGMA, BIG_P, BIG_N = 1.1, 0.004, 10**6
TARGET_GET_EPSILON_S = 0.050
ARGV = [
    "account", "--sigma", str(SIGMA), "--sample-rate", str(P), "--steps", str(N),
    "--delta", str(DELTA), "--json",
]  # fmt: skip


def _child(code: list[str]) -> tuple[float, float, str]:
    """Run a command; return (wall s, CPU s of the child, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(code, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def _median_child(code: list[str], repeats: int = 3) -> dict[str, Any]:
    runs = [_child(code) for _ in range(repeats)]
    return {
        "wall_s": statistics.median(r[0] for r in runs),
        "cpu_s": statistics.median(r[1] for r in runs),
        "stdout": runs[-1][2],
    }


def account_command() -> dict[str, Any]:
    cli = [sys.executable, "-m", "symfdp"]
    baseline = _median_child(
        [sys.executable, "-c", "import numpy, scipy.optimize, scipy.special"]
    )
    out: dict[str, Any] = {
        "setting": {"sigma": SIGMA, "sample_rate": P, "steps": N, "delta": DELTA},
        "python_numpy_scipy_import": {k: baseline[k] for k in ("wall_s", "cpu_s")},
        "default_method": DEFAULT_METHOD,
        "methods": {},
    }
    for method in METHODS:
        run = _median_child([*cli, *ARGV, "--method", method])
        (row,) = json.loads(run["stdout"])["results"]
        # Warm, in-process: the same work the command times.
        from symfdp.cli.account import account_one

        mechanism = M.SubsampledGaussian(sigma=SIGMA, p=P)
        warm = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(5):
                warm.append(account_one(method, mechanism, N, DELTA, {}).seconds)
        out["methods"][method] = {
            "epsilon": row["epsilon"],
            "epsilon_bounds": row["epsilon_bounds"],
            "mu_star": row["mu_star"],
            "reported_runtime_cold_s": row["seconds"],
            "reported_runtime_warm_s": statistics.median(warm),
            "command_wall_s": run["wall_s"],
            "command_cpu_s": run["cpu_s"],
        }
    num = out["methods"]["numerical"]
    lo, hi = num["epsilon_bounds"]
    out["numerical_eps_in_bracket"] = bool(lo <= num["epsilon"] <= hi)
    out["pass_runtime_under_1s"] = {
        m: out["methods"][m]["reported_runtime_cold_s"] < TARGET_ACCOUNT_S
        for m in ("edgeworth", "saddlepoint", DEFAULT_METHOD)
    }
    out["pass_command_cpu_under_1s"] = {
        m: out["methods"][m]["command_cpu_s"] < TARGET_ACCOUNT_S
        for m in ("edgeworth", "saddlepoint", DEFAULT_METHOD)
    }
    return out


def training_accountant() -> dict[str, Any]:
    acc = TrainingAccountant()
    t0 = time.perf_counter()
    for _ in range(BIG_N):
        acc.step(noise_multiplier=BIG_SIGMA, sample_rate=BIG_P)
    steps_s = time.perf_counter() - t0
    state = acc.state_dict()
    out: dict[str, Any] = {
        "setting": {
            "noise_multiplier": BIG_SIGMA,
            "sample_rate": BIG_P,
            "steps": BIG_N,
        },
        "step_calls_s": steps_s,
        "per_step_us": 1e6 * steps_s / BIG_N,
        "history_runs": len(acc.history),
        "default_method": acc.method,
        "methods": {},
    }
    mechanism = M.SubsampledGaussian(sigma=BIG_SIGMA, p=BIG_P)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in METHODS:
            fresh = TrainingAccountant.from_state_dict({**state, "method": method})
            make_accountant(method)  # imports outside the timing
            t0 = time.perf_counter()
            eps = fresh.get_epsilon(DELTA)
            first = time.perf_counter() - t0
            again = []
            for _ in range(5):
                t0 = time.perf_counter()
                fresh.get_epsilon(DELTA)
                again.append(time.perf_counter() - t0)
            one_shot = make_accountant(method).compose(mechanism, BIG_N)
            row: dict[str, Any] = {
                "epsilon": eps,
                "get_epsilon_first_s": first,
                "get_epsilon_cached_s": statistics.median(again),
                "equals_one_shot_compose": eps == float(one_shot.epsilon(DELTA)),
                "pass_50ms_first": first <= TARGET_GET_EPSILON_S,
                "default": method == DEFAULT_METHOD,
            }
            if method == "numerical":
                row["epsilon_bounds"] = list(fresh.get_epsilon_bounds(DELTA))
            out["methods"][method] = row
    out["peers"] = peers(with_prv="--with-prv" in sys.argv)
    return out


def peers(with_prv: bool) -> dict[str, Any]:
    setting = (BIG_SIGMA, BIG_P, BIG_N, DELTA)

    def rdp() -> float:
        return _common.rdp_epsilon(*setting)

    def pld() -> float:
        return _common.pld_epsilon(*setting, 1e-3)

    def prv() -> list[float]:
        return [float(x) for x in _common.prv_epsilon(*setting, 0.01, 1e-10)]

    out: dict[str, Any] = {}
    runs = [("dp_accounting_rdp", rdp), ("dp_accounting_pld_1e-3", pld)]
    if with_prv:
        runs.append(("prv_accountant_eps_error_0.01", prv))
    else:
        out["prv_accountant_eps_error_0.01"] = "skipped (run with --with-prv)"
    for name, fn in runs:
        t0 = time.perf_counter()
        value = fn()
        out[name] = {"epsilon": value, "seconds": time.perf_counter() - t0}
    return out


def main() -> None:
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc).isoformat()
    result = {
        "benchmark": "cli",
        "started_utc": started,
        "machine": {**_common.machine(), "cpus": os.cpu_count()},
        "account": account_command(),
        "training_accountant": training_accountant(),
    }
    result["machine"]["loadavg_before_after"] = [load_before, os.getloadavg()]
    _common.write_json(OUT, result)

    acc = result["account"]
    print(f"(a) symfdp account, sigma={SIGMA}, p={P}, n={N}, delta={DELTA:g}")
    base = acc["python_numpy_scipy_import"]
    print(f"    python + numpy + scipy imports alone: {base['wall_s']:.2f} s wall, "
          f"{base['cpu_s']:.2f} s CPU")  # fmt: skip
    for m, r in acc["methods"].items():
        print(
            f"    {m:<12} eps {r['epsilon']:.5f}  runtime cold "
            f"{1e3 * r['reported_runtime_cold_s']:6.1f} ms, warm "
            f"{1e3 * r['reported_runtime_warm_s']:6.1f} ms; command "
            f"{r['command_wall_s']:.2f} s wall, {r['command_cpu_s']:.2f} s CPU"
        )
    print(f"    numerical eps inside its bracket: {acc['numerical_eps_in_bracket']}")
    tr = result["training_accountant"]
    print(f"(b) TrainingAccountant, 10^6 steps: step() {tr['per_step_us']:.2f} us each")
    for m, r in tr["methods"].items():
        print(
            f"    {m + (' *' if r['default'] else ''):<12} eps {r['epsilon']:.5f}  "
            "get_epsilon first "
            f"{1e3 * r['get_epsilon_first_s']:6.1f} ms, cached "
            f"{1e3 * r['get_epsilon_cached_s']:5.1f} ms; equals one-shot "
            f"{r['equals_one_shot_compose']}"
        )
    for name, r in tr["peers"].items():
        if isinstance(r, str):
            print(f"    peer {name:<30} {r}")
            continue
        print(f"    peer {name:<30} eps {r['epsilon']}  {1e3 * r['seconds']:.0f} ms")
    print(f"    (* default method: {DEFAULT_METHOD})")
    print("load average before/after:", result["machine"]["loadavg_before_after"])


if __name__ == "__main__":
    main()
