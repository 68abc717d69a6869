"""Many distinct steps: 1,000 distinct subsampled-Gaussian settings of 1,000 steps.

Side by side on the same events (results in
``benchmarks/results/many_distinct.json``), accuracy next to speed:

* ``A.SaddlePoint()`` and ``A.Edgeworth(order=4)``: the time to build the
  1,000 mechanisms, compose and answer eps(1e-5) in a fresh process (imports
  excluded, reported apart), the same again in that process (per-setting
  caches warm), eps and the method's own error estimate (``epsilon_error``);
* ``A.Numerical()``: the certified bracket and its time (wall and CPU: the
  machine may be shared) and peak memory;
* ``TrainingAccountant()`` (its default, Numerical) fed the same settings with
  ``step(noise_multiplier, sample_rate, num_steps)``: bracket, time, memory;
* dp-accounting's ``PLDAccountant`` at value discretisation 1e-3
  (``--peers-from FILE`` takes these two from an earlier results file of this
  benchmark, marked with its commit, instead of computing them again).

Each estimate is compared with Numerical's certified bracket
(``error_vs_certified``: relative distance to it, 0 inside) and with its
estimate. ``--k`` distinct settings of ``--steps`` steps each (default
1,000 x 1,000; ``--k 10000 --steps 100`` is the 10^4-setting case of the same
10^6 steps). Two compositions: ``schedule``, sigma_i = 1 + i/1000 and p_i in
[0.005, 0.01) (the ``distinct`` case of ``bench_numerical_scale.py``), and
``random``, sigma_i ~ U[0.8, 2] and log p_i ~ U[log 1e-3, log 2e-2] (seed 12).

``--before DIR`` also times SaddlePoint, Edgeworth and Numerical with the
symfdp of the source tree ``DIR`` (an older commit), in the same way (Numerical
right after PLD). Every case runs in its
own process with a time limit. Timings depend on the load of the machine; the
record stores it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import _common

DELTA = 1e-5
K = 1000
STEPS = 1000
LIMIT = 600.0
RESULTS = _common.ROOT / "benchmarks" / "results" / "many_distinct.json"
HERE = Path(__file__).resolve().parent


def settings(name: str, k: int = K) -> list[tuple[float, float]]:
    """The ``(sigma_i, p_i)`` of a composition."""
    if name == "schedule":
        return [(1.0 + i / k, 0.005 + 0.005 * (i % 7) / 7) for i in range(k)]
    import numpy as np

    rng = np.random.default_rng(12)
    sig = rng.uniform(0.8, 2.0, k)
    p = np.exp(rng.uniform(math.log(1e-3), math.log(2e-2), k))
    return [(float(s), float(q)) for s, q in zip(sig, p, strict=True)]


def _child(method: str, name: str, k: int, steps: int = STEPS) -> dict[str, Any]:
    """One case, in this (fresh) process."""
    warnings.simplefilter("ignore")
    load_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    from symfdp import accountants as A
    from symfdp import mechanisms as M
    from symfdp.training import TrainingAccountant

    if method == "pld":
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant
    elif method != "training":
        getattr(
            A,
            {"saddlepoint": "SaddlePoint", "edgeworth": "Edgeworth"}.get(
                method, "Numerical"
            ),
        )
    out: dict[str, Any] = {"import_s": time.perf_counter() - t0, "steps_each": steps}
    pairs = settings(name, k)

    def run() -> Any:
        if method == "pld":
            acc = pld_privacy_accountant.PLDAccountant(
                value_discretization_interval=1e-3
            )
            for s, q in pairs:
                event = dp_accounting.PoissonSampledDpEvent(
                    q, dp_accounting.GaussianDpEvent(s)
                )
                acc.compose(event, steps)
            return float(acc.get_epsilon(DELTA)), None
        if method == "training":
            run_acc = TrainingAccountant()
            for s, q in pairs:
                run_acc.step(noise_multiplier=s, sample_rate=q, num_steps=steps)
            return float(run_acc.get_epsilon(DELTA)), run_acc.curve()
        acc = {
            "saddlepoint": A.SaddlePoint,
            "edgeworth": lambda: A.Edgeworth(order=4),
            "numerical": A.Numerical,
        }[method]()
        comp = [(M.SubsampledGaussian(sigma=s, p=q), steps) for s, q in pairs]
        curve = acc.compose(comp)
        return float(curve.epsilon(DELTA)), curve

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    eps, curve = run()
    out["seconds"] = time.perf_counter() - t0
    out["cpu_seconds"] = time.process_time() - cpu0
    out["eps"] = eps
    if method in ("saddlepoint", "edgeworth"):
        t0 = time.perf_counter()
        out["epsilon_error"] = float(curve.epsilon_error(DELTA))
        out["epsilon_error_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        run()
        out["repeat_s"] = time.perf_counter() - t0
    if method in ("numerical", "training"):
        lo, hi = curve.epsilon_bounds(DELTA)
        out["bracket"] = [float(lo), float(hi)]
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["load_average"] = [load_start, os.getloadavg()[0]]
    return out


def isolated(
    method: str, name: str, k: int, src: Path | None = None, steps: int = STEPS
) -> dict[str, Any]:
    """:func:`_child` in a fresh interpreter (``src``: the symfdp source tree)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src or _common.ROOT)
    cmd = [sys.executable, str(HERE / "bench_many_distinct.py")]
    cmd += ["--child", method, name, str(k), str(steps)]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env=env, timeout=LIMIT, check=False
        )
    except subprocess.TimeoutExpired:
        return {"status": f"no answer within {LIMIT:g} s"}
    if proc.returncode != 0:
        return {"status": "failed", "stderr": proc.stderr[-2000:]}
    return {"status": "ok", **json.loads(proc.stdout.strip().splitlines()[-1])}


def _compare(
    case: dict[str, Any], bracket: list[float] | None, est: float | None
) -> None:
    if case.get("status") != "ok" or bracket is None:
        return
    lo, hi = bracket
    eps = case["eps"]
    case["error_vs_certified"] = (
        0.0 if lo <= eps <= hi else min(abs(eps - lo), abs(eps - hi)) / hi
    )
    if est is not None:
        case["rel_diff_vs_numerical_estimate"] = abs(eps - est) / est
    if "epsilon_error" in case:
        case["error_estimate_covers_bracket_distance"] = (
            case["error_vs_certified"] * hi <= case["epsilon_error"]
        )


def _peers_from(
    path: Path, name: str, keys: tuple[str, ...] = ("numerical", "pld_vdi_1e-3")
) -> dict[str, Any]:
    """Numerical's and PLD's records (``keys``) of composition ``name`` in an
    earlier results file of this benchmark (marked with where they came from)."""
    old = json.loads(path.read_text())
    out: dict[str, Any] = {}
    for comp in old.get("compositions", []):
        if comp["name"] != name:
            continue
        for key in keys:
            if comp.get(key, {}).get("status") == "ok":
                out[key] = {**comp[key], "from": f"{path.name} ({old['git']})"}
    return out


def main() -> None:
    global LIMIT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--k", type=int, default=K, help="distinct settings")
    parser.add_argument("--steps", type=int, default=STEPS, help="steps of each")
    parser.add_argument(
        "--limit", type=float, default=LIMIT, help="seconds allowed per case"
    )
    parser.add_argument(
        "--no-analytic", action="store_true", help="skip SaddlePoint and Edgeworth"
    )
    parser.add_argument("--no-training", action="store_true")
    parser.add_argument("--compositions", nargs="*", default=["schedule", "random"])
    parser.add_argument("--before", type=Path, help="older symfdp source tree")
    parser.add_argument(
        "--peers-from",
        type=Path,
        help="take Numerical's bracket and PLD from an earlier results file",
    )
    parser.add_argument("--no-pld", action="store_true")
    parser.add_argument(
        "--pld-from", type=Path, help="take PLD only from an earlier results file"
    )
    args = parser.parse_args()
    if args.child:
        method, name, k, steps = args.child
        print(json.dumps(_child(method, name, int(k), int(steps))))
        return
    LIMIT = args.limit
    record: dict[str, Any] = {
        "benchmark": "many distinct steps: SaddlePoint, Edgeworth, Numerical, PLD",
        "machine": _common.machine(),
        "git": _common.git_state(),
        "delta": DELTA,
        "k": args.k,
        "steps_each": args.steps,
        "compositions": [],
    }
    for name in args.compositions:
        comp: dict[str, Any] = {"name": name, "load_average_start": os.getloadavg()[0]}
        analytic = () if args.no_analytic else ("saddlepoint", "edgeworth")
        for method in analytic:
            comp[method] = isolated(method, name, args.k, steps=args.steps)
            if args.before is not None:
                comp[f"{method}_before"] = isolated(
                    method, name, args.k, args.before, args.steps
                )
            print(name, method, comp[method], comp.get(f"{method}_before"), flush=True)
        held = _peers_from(args.peers_from, name) if args.peers_from else {}
        if args.pld_from:
            held.update(_peers_from(args.pld_from, name, ("pld_vdi_1e-3",)))
        # Numerical and PLD back to back (the load of the machine is recorded
        # in each case).
        comp["numerical"] = held.get("numerical") or isolated(
            "numerical", name, args.k, steps=args.steps
        )
        print(name, "numerical", comp["numerical"], flush=True)
        if not args.no_pld:
            comp["pld_vdi_1e-3"] = held.get("pld_vdi_1e-3") or isolated(
                "pld", name, args.k, steps=args.steps
            )
            print(name, "pld", comp["pld_vdi_1e-3"], flush=True)
            if args.before is not None:
                comp["numerical_before"] = isolated(
                    "numerical", name, args.k, args.before, args.steps
                )
                print(name, "numerical before", comp["numerical_before"], flush=True)
            num, pld = comp["numerical"], comp["pld_vdi_1e-3"]
            if num.get("status") == "ok" and pld.get("status") == "ok":
                comp["numerical_over_pld_time"] = num["seconds"] / pld["seconds"]
        if not args.no_training:
            comp["training_accountant"] = isolated(
                "training", name, args.k, steps=args.steps
            )
            print(name, "training", comp["training_accountant"], flush=True)
        ok = comp["numerical"].get("status") == "ok"
        bracket = comp["numerical"]["bracket"] if ok else None
        est = comp["numerical"]["eps"] if ok else None
        for key, case in comp.items():
            if isinstance(case, dict) and key != "numerical":
                _compare(case, bracket, est)
        comp["load_average_end"] = os.getloadavg()[0]
        record["compositions"].append(comp)
        _common.write_json(args.out, record)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
