"""Start-up, ``--help`` and ``derive`` times of symfdp, as whole processes.

Run: ``python benchmarks/bench_startup.py`` (a few minutes; writes
``benchmarks/results/startup.json`` and prints a table). Options: ``--quick``
(one repeat of the cheap cases, for a smoke test), ``--repeats N``, ``--out
PATH``, ``--before DIR`` (also time the source tree ``DIR``, an older commit,
case by case in the same rounds: ratios this/before).

Every case is a fresh process started as a user starts it (the ``symfdp``
console script beside this interpreter, with ``PYTHONPATH`` set to the tree
measured), timed by its wall clock and its CPU seconds. The cases run in rounds,
one run of each case (and of each tree) per round, so that all of them see the
same phases of the load of this shared machine; the record keeps the median,
minimum and maximum of each, the load average before and after, and ratios
measured in the same run:

* ``floor``: ``python -c pass``; ``import``: ``python -c "import symfdp"`` (and
  the cumulative microseconds of ``symfdp`` in ``python -X importtime``);
* ``help``: ``symfdp --help``; ``account_help``: ``symfdp account --help``;
* ``account``: ``symfdp account --sigma 1.1 --sample-rate 0.004 --steps 1000
  --delta 1e-5 --json`` (default method: the certified bracket) against
  ``peer``, a dp-accounting one-liner computing the same epsilon with its
  ``PLDAccountant`` at its defaults; each answer with its distance to the
  certified bracket (0 inside it);
* ``account_edgeworth_J``: the same account with ``--method edgeworth --order
  J`` (J = 6, 8), warm and cold: the derived coefficient evaluators it loads
  (warm) or derives and compiles (cold);
* ``derive_edgeworth_J`` (J = 4, 6, 8) and ``derive_saddlepoint_4``: ``symfdp
  derive ... --order J``, warm (the derived text in the disk cache) and cold (an
  empty cache directory per run).

"Warm" runs use one cache directory per tree, filled by an untimed run of each
case first; "cold" runs each get a new empty ``SYMFDP_CACHE_DIR``. Python's own
bytecode caches are warm for both (the untimed runs write them;
``PYTHONDONTWRITEBYTECODE`` is not passed on).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common

OUT = Path(__file__).resolve().parent / "results" / "startup.json"
SIGMA, P, STEPS, DELTA = 1.1, 0.004, 1000, 1e-5
ACCOUNT = [
    "account", "--sigma", str(SIGMA), "--sample-rate", str(P),
    "--steps", str(STEPS), "--delta", str(DELTA), "--json",
]  # fmt: skip
PEER = (
    "import dp_accounting as dp\n"
    "from dp_accounting.pld.pld_privacy_accountant import PLDAccountant\n"
    "a = PLDAccountant()\n"
    f"a.compose(dp.PoissonSampledDpEvent({P}, dp.GaussianDpEvent({SIGMA})), {STEPS})\n"
    f"print(repr(a.get_epsilon({DELTA})))\n"
)
#: The targets of the start-up work (seconds, whole process, median).
TARGETS = {
    "import": 0.1,
    "help": 0.5,
    "account_help": 0.5,
    "derive_edgeworth_6 (warm)": 0.1,
}
REPEATS, COLD_REPEATS = 7, 3


@dataclass(frozen=True)
class Case:
    """One command: its name, what it runs, its cache state and its answer."""

    name: str
    argv: tuple[str, ...]  # after the interpreter (python) or the console script
    script: bool  # run by the symfdp console script (else by python)
    cache: str = "warm"  # "warm" or "cold"
    answer: str | None = None  # "account" (JSON) or "float" (last line)
    repeats: int = REPEATS


@dataclass
class Runs:
    """The timed runs of one case in one tree."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    stdout: str = ""
    failed: str | None = None


def cases(quick: bool) -> list[Case]:
    """The measured commands (the quick set: floor, import, help and a small
    derive, once)."""
    out = [
        Case("floor", ("-c", "pass"), False),
        Case("import", ("-c", "import symfdp"), False),
        Case("help", ("--help",), True),
        Case("account_help", ("account", "--help"), True),
    ]
    if quick:
        derive = ("derive", "edgeworth", "--order", "2")
        out += [
            Case("derive_edgeworth_2", derive, True),
            Case("derive_edgeworth_2", derive, True, cache="cold"),
        ]
        return [Case(c.name, c.argv, c.script, c.cache, c.answer, 1) for c in out]
    out += [
        Case("account", tuple(ACCOUNT), True, answer="account"),
        Case("peer", ("-c", PEER), False, answer="float"),
    ]
    for order in (6, 8):
        argv = (*ACCOUNT, "--method", "edgeworth", "--order", str(order))
        out += [
            Case(f"account_edgeworth_{order}", argv, True, answer="account"),
            Case(
                f"account_edgeworth_{order}",
                argv,
                True,
                cache="cold",
                answer="account",
                repeats=COLD_REPEATS,
            ),
        ]
    derives = [("edgeworth", j) for j in (4, 6, 8)] + [("saddlepoint", 4)]
    for kind, order in derives:
        argv = ("derive", kind, "--order", str(order))
        out += [
            Case(f"derive_{kind}_{order}", argv, True),
            Case(
                f"derive_{kind}_{order}",
                argv,
                True,
                cache="cold",
                repeats=COLD_REPEATS,
            ),
        ]
    return out


def key(case: Case) -> str:
    """The case's name in the record: ``name`` or ``name (warm|cold)``."""
    if case.name.startswith(("derive", "account_edgeworth")):
        return f"{case.name} ({case.cache})"
    return case.name


def _command(case: Case) -> list[str]:
    if not case.script:
        return [sys.executable, *case.argv]
    script = Path(sys.executable).with_name("symfdp")
    head = [str(script)] if script.exists() else [sys.executable, "-m", "symfdp"]
    return [*head, *case.argv]


def _env(tree: Path, cache: Path) -> dict[str, str]:
    # Bytecode caches are written and read, as they are for a user's install.
    drop = ("SYMFDP_NO_CACHE", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(PYTHONPATH=str(tree), SYMFDP_CACHE_DIR=str(cache), MPLBACKEND="Agg")
    return env


def _run(case: Case, tree: Path, warm_cache: Path, runs: Runs) -> None:
    """One timed run of ``case`` in ``tree`` (appended to ``runs``)."""
    cold = None
    if case.cache == "cold":
        cold = Path(tempfile.mkdtemp(prefix="symfdp-cold-"))
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            _command(case),
            capture_output=True,
            text=True,
            env=_env(tree, cold or warm_cache),
            timeout=600,
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        if cold is not None:
            shutil.rmtree(cold, ignore_errors=True)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        runs.failed = lines[-1] if lines else f"exit status {proc.returncode}"
        return
    runs.wall.append(wall)
    runs.cpu.append(
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    )
    runs.stdout = proc.stdout


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"median": None, "min": None, "max": None, "all": []}
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "all": values,
    }


def _answer(kind: str | None, stdout: str) -> dict[str, Any] | None:
    """What the command computed: epsilon (and its certified bracket or error
    estimate), parsed from its output; None when it computes nothing."""
    if kind is None or not stdout:
        return None
    if kind == "float":
        return {"epsilon": float(stdout.strip().splitlines()[-1])}
    (row,) = json.loads(stdout)["results"]
    out = {"method": row.get("method"), "epsilon": row.get("epsilon")}
    if row.get("epsilon_bounds") is not None:
        out["bracket"] = list(row["epsilon_bounds"])
    if row.get("epsilon_error_estimate") is not None:
        out["error_estimate"] = row["epsilon_error_estimate"]
    return out


def _to_bracket(value: float, bracket: list[float]) -> float:
    """Signed distance of ``value`` to ``bracket`` (0 inside it)."""
    lo, hi = bracket
    return 0.0 if lo <= value <= hi else (value - hi if value > hi else value - lo)


def _importtime(tree: Path, cache: Path) -> float | None:
    """Cumulative microseconds of ``import symfdp`` by ``python -X importtime``."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import symfdp"],
        capture_output=True,
        text=True,
        env=_env(tree, cache),
        timeout=120,
    )
    for line in proc.stderr.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) == 3 and fields[2] == "symfdp":
            return float(re.sub(r"\D", "", fields[1]))
    return None


def measure(
    trees: dict[str, Path], selected: list[Case]
) -> tuple[dict[str, dict[str, Runs]], dict[str, list[float]]]:
    """Rounds of one run of every case in every tree (the trees' order flips
    each round), after one untimed run of each; and ``-X importtime``."""
    work = Path(tempfile.mkdtemp(prefix="symfdp-bench-startup-"))
    warm = {name: work / name for name in trees}
    runs = {key(c): {name: Runs() for name in trees} for c in selected}
    importtimes: dict[str, list[float]] = {name: [] for name in trees}
    try:
        for case in selected:  # untimed: bytecode and warm caches written
            for name, tree in trees.items():
                if case.cache == "warm":
                    _run(case, tree, warm[name], Runs())
        order = list(trees)
        for r in range(max(c.repeats for c in selected)):
            for case in selected:
                if r >= case.repeats:
                    continue
                for name in order:
                    _run(case, trees[name], warm[name], runs[key(case)][name])
            for name in order:
                t = _importtime(trees[name], warm[name])
                if t is not None:
                    importtimes[name].append(t)
            order.reverse()
            print(f"  round {r + 1} done", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return runs, importtimes


def record(
    trees: dict[str, Path],
    selected: list[Case],
    runs: dict[str, dict[str, Runs]],
    importtimes: dict[str, list[float]],
) -> dict[str, Any]:
    """The result record: per case and tree the times, ratios and answers."""
    by_name = {key(c): c for c in selected}
    out: dict[str, Any] = {}
    for name in trees:
        floor = statistics.median(runs["floor"][name].wall)
        rows: dict[str, Any] = {}
        for k, case in by_name.items():
            r = runs[k][name]
            wall = _stats(r.wall)
            argv = ("-c", "<peer>") if case.name == "peer" else case.argv
            row: dict[str, Any] = {
                "command": " ".join(("symfdp" if case.script else "python", *argv)),
                "cache": case.cache,
                "wall_s": wall,
                "cpu_s": _stats(r.cpu),
                "ratio_to_floor": (
                    wall["median"] / floor if wall["median"] is not None else None
                ),
            }
            if r.failed is not None:
                row["failed"] = r.failed
            answer = _answer(case.answer, r.stdout)
            if answer is not None:
                row["answer"] = answer
            rows[k] = row
        _answers_to_bracket(rows)
        if "account" in rows and "peer" in rows:
            a, p = rows["account"]["wall_s"]["median"], rows["peer"]["wall_s"]["median"]
            rows["account"]["ratio_to_peer"] = a / p if a and p else None
        rows["import"]["importtime_symfdp_us"] = _stats(importtimes[name])
        rows["import"]["import_minus_floor_s"] = (
            rows["import"]["wall_s"]["median"] - floor
        )
        out[name] = rows
    if len(trees) == 2:
        this, before = list(trees)
        for k, row in out[this].items():
            a = row["wall_s"]["median"]
            b = out[before][k]["wall_s"]["median"]
            row["ratio_to_before"] = a / b if a and b else None
    return out


def _answers_to_bracket(rows: dict[str, Any]) -> None:
    """Each computed epsilon's distance to the certified bracket of ``account``."""
    bracket = rows.get("account", {}).get("answer", {}).get("bracket")
    if bracket is None:
        return
    for row in rows.values():
        answer = row.get("answer")
        if answer is not None and answer.get("epsilon") is not None:
            answer["minus_bracket"] = _to_bracket(answer["epsilon"], bracket)


def _labels(trees: dict[str, Path], before: str | None) -> dict[str, str | None]:
    """What each tree is: this checkout's commit (``+dirty`` when ``symfdp/`` has
    changes), and the ``--before`` label or folder name."""
    state = _common.git_state(short=True)
    labels = {"this": None if state is None else state[0] + "+dirty" * state[1]}
    if "before" in trees:
        labels["before"] = before or trees["before"].name
    return labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke-test run")
    parser.add_argument("--repeats", type=int, help="timed runs of each warm case")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--before", type=Path, help="source tree of an older commit to compare"
    )
    parser.add_argument(
        "--before-label", help="what --before is, for the record (e.g. its commit)"
    )
    args = parser.parse_args()
    selected = cases(args.quick)
    if args.repeats:
        selected = [
            Case(c.name, c.argv, c.script, c.cache, c.answer, args.repeats)
            if c.cache == "warm"
            else c
            for c in selected
        ]
    trees = {"this": _common.ROOT}
    if args.before is not None:
        trees["before"] = args.before.resolve()
    load_before = os.getloadavg()
    started = datetime.now(timezone.utc).isoformat()
    runs, importtimes = measure(trees, selected)
    result = {
        "benchmark": "start-up and derive times, whole processes",
        "started_utc": started,
        "machine": {
            **_common.machine(),
            "cpus": os.cpu_count(),
            "loadavg_before_after": [load_before, os.getloadavg()],
        },
        "git": _common.git_state(),
        "quick": args.quick,
        "trees": _labels(trees, args.before_label),
        "setting": {"sigma": SIGMA, "sample_rate": P, "steps": STEPS, "delta": DELTA},
        "peer": PEER,
        "targets_s": TARGETS,
        "cases": record(trees, selected, runs, importtimes),
    }
    _common.write_json(args.out, result)
    _print(result)
    print(f"wrote {args.out}")


def _print(result: dict[str, Any]) -> None:
    names = list(result["cases"])
    print(f"{'case':<34}" + "".join(f"{n:>22}" for n in names))
    for k in result["cases"][names[0]]:
        cells = []
        for n in names:
            row = result["cases"][n][k]
            med = row["wall_s"]["median"]
            cell = "failed"
            if med is not None:
                cell = f"{med:.3f} s ({row['ratio_to_floor']:.1f}x)"
            cells.append(f"{cell:>22}")
        ratio = result["cases"][names[0]][k].get("ratio_to_before")
        tail = f"   this/before {ratio:.2f}" if ratio else ""
        print(f"{k:<34}" + "".join(cells) + tail)
    print("load average before/after:", result["machine"]["loadavg_before_after"])


if __name__ == "__main__":
    main()
