"""``symfdp reproduce {list | ID... | all} [--quick] [--force] [--jobs K]``."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce",
        help="regenerate the sources' tables and figures into results/",
        description=(
            "Run experiments (one per table or figure of the sources), write "
            "results/<id>/{data.csv,figure.png,claims.json,manifest.json} and "
            "results/REPORT.md. 'list' shows the ids; 'all' runs every experiment."
        ),
    )
    p.add_argument("targets", nargs="+", metavar="ID", help="'list', 'all' or ids")
    p.add_argument("--quick", action="store_true", help="coarse grids, fewer n")
    p.add_argument("--force", action="store_true", help="recompute even if current")
    p.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="parallel processes"
    )
    p.add_argument("--out", default=None, help="results directory (default ./results)")
    p.set_defaults(run=run)


def _run_one(path: str, out: str, quick: bool, force: bool):
    os.environ.setdefault("SYMFDP_PROGRESS", "0")
    from symfdp.reproduce.runner import run_experiment

    return run_experiment(Path(path), Path(out), quick=quick, force=force)


def run(args: argparse.Namespace) -> int:
    from symfdp.cli import UsageError
    from symfdp.reproduce.discovery import discover
    from symfdp.reproduce.paths import results_dir
    from symfdp.reproduce.report import write_report

    registry = discover()
    if args.targets == ["list"]:
        from symfdp.reproduce.discovery import load_module

        for sid, path in registry.items():
            spec = load_module(path).SPEC
            print(f"{sid:28s} {spec.source}: {spec.title}")
        return 0
    if args.jobs < 1:
        raise UsageError(f"--jobs must be >= 1. Found {args.jobs}.")
    if "all" in args.targets:
        ids = list(registry)
    else:
        unknown = [t for t in args.targets if t not in registry]
        if unknown:
            raise UsageError(
                f"unknown experiment id(s): {', '.join(unknown)}; "
                "see 'symfdp reproduce list'."
            )
        ids = list(dict.fromkeys(args.targets))
    out = results_dir(args.out)
    out.mkdir(parents=True, exist_ok=True)
    mode = "quick" if args.quick else "full"
    print(
        f"reproducing {len(ids)} experiment(s), {mode} mode, "
        f"{args.jobs} job(s) -> {out}"
    )
    start = time.monotonic()
    outcomes = []
    jobs = min(args.jobs, len(ids))
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = {
            pool.submit(
                _run_one, str(registry[sid]), str(out), args.quick, args.force
            ): sid
            for sid in ids
        }
        for k, fut in enumerate(as_completed(futures), 1):
            outcome = fut.result()
            outcomes.append(outcome)
            n_claims = len(outcome.claims)
            n_fail = len(outcome.failed_claims)
            if outcome.status == "error":
                verdict = "ERROR"
            else:
                verdict = "PASS" if n_fail == 0 else f"{n_fail} FAIL"
            print(
                f"[{k}/{len(ids)}] {outcome.id:28s} {outcome.status:8s} "
                f"{verdict:8s} {n_claims:3d} claims {outcome.seconds:7.1f}s",
                flush=True,
            )
    errors = {o.id: o.error for o in outcomes if o.status == "error"}
    for sid, err in errors.items():
        print(f"\n--- {sid} failed:\n{err}", file=sys.stderr)
    report = write_report(out, ids, errors)
    failed = sum(len(o.failed_claims) for o in outcomes)
    total = sum(len(o.claims) for o in outcomes)
    print(
        f"done in {time.monotonic() - start:.1f}s: {total - failed}/{total} claims "
        f"hold, {len(errors)} error(s); report: {report}"
    )
    return 1 if (failed or errors) else 0
