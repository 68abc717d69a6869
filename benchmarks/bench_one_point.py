"""The cost of one-point queries on a composed curve, next to dp-accounting's.

Run: ``python benchmarks/bench_one_point.py [--against PATH] [--rounds K]
[--out PATH]`` (writes ``benchmarks/results/one_point.json`` and ``.md``).
DP-SGD sigma = 1, p = 0.01, n = 1000, add/remove adjacency; per method
(``Edgeworth(order=4)``, ``SaddlePoint(order=3)``, ``CLT``, ``Contour``,
``Numerical``) the curve is composed and warmed (one ``epsilon(1e-5)`` and one
``delta(1.0)``), then timed per call:

* ``epsilon_new`` / ``delta_new``: a float query at a new point each call
  (``1e-5 (1 + 1e-4 k)``, ``1.0 (1 + 1e-4 k)``): the work of one answer;
* ``epsilon_same`` / ``delta_same``: the same point again (the curve keeps the
  last answer per query: validation and the warning only).

The ratio is to dp-accounting's ``PLDAccountant.get_epsilon`` on the same
composed accountant (``PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0))`` x
1000, its default discretisation), also timed per call at new deltas.

With ``--against PATH`` (another checkout of symfdp) each round measures that
checkout and this one in fresh processes, alternately, and the table gives the
ratio of this checkout's cost to the other's: the side-by-side comparison the
shared machine allows (each figure is the minimum over the rounds).

Times are CPU times of the measuring process (``time.process_time``), minimum
over three passes of ``--calls`` calls.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from symfdp import accountants as A
from symfdp import mechanisms as M

OUT = Path(__file__).resolve().parent / "results" / "one_point.json"
HERE = Path(__file__).resolve().parent.parent
SIGMA, P, N = 1.0, 0.01, 1000
METHODS: dict[str, Callable[[], Any]] = {
    "Edgeworth(4)": lambda: A.Edgeworth(order=4),
    "SaddlePoint(3)": lambda: A.SaddlePoint(order=3),
    "CLT": lambda: A.CLT(),
    "Contour": lambda: A.Contour(),
    "Numerical": lambda: A.Numerical(),
}


def per_call(fn: Callable[[float], Any], points: list[float]) -> float:
    """CPU seconds per call, minimum over three passes over ``points``."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        for x in points:
            fn(x)
        best = min(best, (time.process_time() - t0) / len(points))
    return best


def measure(calls: int) -> dict[str, dict[str, float]]:
    """The per-call costs of this interpreter's symfdp (and dp-accounting's)."""
    warnings.simplefilter("ignore")
    m = M.SubsampledGaussian(sigma=SIGMA, p=P)
    deltas = [1e-5 * (1 + 1e-4 * k) for k in range(calls)]
    epss = [1.0 * (1 + 1e-4 * k) for k in range(calls)]
    out: dict[str, dict[str, float]] = {}
    for name, make in METHODS.items():
        curve = make().compose(m, N)
        curve.epsilon(1e-5)
        curve.delta(1.0)
        out[name] = {
            "epsilon_new": per_call(curve.epsilon, deltas),
            "delta_new": per_call(curve.delta, epss),
            "epsilon_same": per_call(curve.epsilon, [1e-5] * calls),
            "delta_same": per_call(curve.delta, [1.0] * calls),
        }
    import dp_accounting  # the peer, an optional dependency
    from dp_accounting.pld import pld_privacy_accountant

    event = dp_accounting.PoissonSampledDpEvent(P, dp_accounting.GaussianDpEvent(SIGMA))
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event, N)
    acc.get_epsilon(1e-5)
    out["dp-accounting PLD"] = {"epsilon_new": per_call(acc.get_epsilon, deltas)}
    return out


def run_in(tree: Path, calls: int) -> dict[str, dict[str, float]]:
    """:func:`measure` in a fresh process importing symfdp from ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, __file__, "--measure", "--calls", str(calls)],
        env=env,
        cwd=str(Path(__file__).parent),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, dict[str, float]] = json.loads(done.stdout)
    return result


def _commit(tree: Path) -> str:
    """The short commit of a checkout (``+dirty`` with local changes)."""
    done = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    )
    head = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    )
    return head.stdout.strip() + ("+dirty" if done.stdout.strip() else "")


def best_of(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for run in runs:
        for method, row in run.items():
            for key, value in row.items():
                slot = out.setdefault(method, {})
                slot[key] = min(slot.get(key, float("inf")), value)
    return out


def markdown(record: dict[str, Any]) -> str:
    mine, other = record["this"], record.get("other")
    pld = mine["dp-accounting PLD"]["epsilon_new"]
    lines = [
        "# One-point queries (`benchmarks/bench_one_point.py`)",
        "",
        f"Commit `{record['commit']}`, {record['utc']}, load average before/after "
        f"{record['loadavg']}. "
        f"DP-SGD sigma = {SIGMA}, p = {P}, n = {N}, add/remove; CPU microseconds "
        f"per call (minimum over {record['rounds']} rounds); dp-accounting's PLD "
        f"get_epsilon: {1e6 * pld:.0f} us.",
        "",
    ]
    head = "| method | query | this (us) | vs dp-accounting PLD |"
    rule = "|---|---|---|---|"
    if other is not None:
        head += f" `{record['against']}` (us) | ratio |"
        rule += "---|---|"
    lines += [head, rule]
    for method, row in mine.items():
        if method == "dp-accounting PLD":
            continue
        for key, value in row.items():
            line = f"| {method} | {key} | {1e6 * value:.1f} | {value / pld:.4f} |"
            if other is not None:
                was = other[method][key]
                line += f" {1e6 * was:.1f} | {value / was:.2f} |"
            lines.append(line)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another symfdp checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.calls)))
        return
    before = os.getloadavg()
    mine: list[dict[str, dict[str, float]]] = []
    other: list[dict[str, dict[str, float]]] = []
    for _ in range(args.rounds):
        if args.against is not None:
            other.append(run_in(args.against, args.calls))
        mine.append(run_in(HERE, args.calls))
    record: dict[str, Any] = {
        "benchmark": "one_point",
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "rounds": args.rounds,
        "this": best_of(mine),
        "against": None if args.against is None else _commit(args.against),
        "commit": _commit(HERE),
        "other": best_of(other) if other else None,
        "loadavg": [before, os.getloadavg()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(record))
    print(markdown(record))


if __name__ == "__main__":
    main()
