"""``symfdp reproduce {list | ID... | all} [--quick] [--force] [--jobs K]
[--executor local | dask | dask://host:port]``.

Experiments run in fresh local processes (default), or as Dask tasks
(``--executor dask``: a local cluster of ``--jobs`` workers;
``dask://host:port``: a running scheduler whose workers see the same files).
The report is the same either way.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, cast

from symfdp._progress import status
from symfdp.cli.common import UsageError

#: Seconds between two "still running" status lines.
STILL_RUNNING_EVERY = 30.0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    p.add_argument(
        "--executor",
        default="local",
        metavar="WHERE",
        help="local (default: --jobs fresh processes), dask (a local Dask cluster "
        "of --jobs workers) or dask://host:port (a running scheduler)",
    )
    p.set_defaults(run=run)


def _run_one(path: str, out: str, quick: bool, force: bool, conn: Any) -> None:
    """Worker: run one experiment and send its outcome back."""
    os.environ.setdefault("SYMFDP_PROGRESS", "0")
    from symfdp.reproduce.runner import run_experiment

    conn.send(run_experiment(Path(path), Path(out), quick=quick, force=force))
    conn.close()


def _died(sid: str, exitcode: int | None) -> Any:
    from symfdp.reproduce.runner import RunOutcome

    how = f"exit status {exitcode}"
    if exitcode is not None and exitcode < 0:
        try:
            how = f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"signal {-exitcode}"
    return RunOutcome(
        sid,
        "error",
        error=f"the process running {sid} died ({how}) before reporting a result; "
        "e.g. killed, or out of memory. Nothing it wrote is trusted.",
    )


def _run_all(
    tasks: list[tuple[str, str]], out: Path, quick: bool, force: bool, jobs: int
) -> Iterator[Any]:
    """Run ``(id, module path)`` tasks, at most ``jobs`` at a time, one fresh
    process each (spawned), yielding outcomes as they finish.

    A process that dies without reporting (killed, out of memory) is an error of
    its own experiment only; the others carry on.
    """
    ctx = multiprocessing.get_context("spawn")
    todo = list(tasks)
    running: dict[Any, tuple[str, Any]] = {}  # connection -> (id, process)
    started: dict[str, float] = {}
    while todo or running:
        while todo and len(running) < jobs:
            sid, path = todo.pop(0)
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_run_one, args=(path, str(out), quick, force, send)
            )
            proc.start()
            send.close()
            running[recv] = (sid, proc)
            started[sid] = time.monotonic()
            status(f"reproduce: {sid} started")
        ready = wait(list(running), timeout=STILL_RUNNING_EVERY)
        if not ready:
            now = time.monotonic()
            names = [
                f"{sid} ({now - started[sid]:.0f} s)" for sid, _ in running.values()
            ]
            status(f"reproduce: still running: {', '.join(names)}")
        for ready_conn in ready:
            conn = cast(Connection, ready_conn)  # wait returns what it was given
            sid, proc = running.pop(conn)
            try:
                outcome = conn.recv()
            except (EOFError, OSError):
                outcome = None
            conn.close()
            proc.join()
            yield outcome if outcome is not None else _died(sid, proc.exitcode)


def _run_dask(
    tasks: list[tuple[str, str]],
    out: Path,
    quick: bool,
    force: bool,
    executor: str,
    jobs: int,
) -> Iterator[Any]:
    """Run the experiments as Dask tasks, yielding outcomes as they finish.

    A task whose workers die (``KilledWorker``, after Dask's retries) is an
    error of its own experiment only, as in :func:`_run_all`.
    """
    from distributed import as_completed

    from symfdp._dask import dask_client
    from symfdp.reproduce.runner import RunOutcome

    with dask_client(executor, jobs) as client:
        status(f"reproduce: {len(tasks)} experiment(s) submitted to {executor}")
        futures = {
            client.submit(
                _run_task, path, str(out), quick, force, key=f"reproduce-{sid}"
            ): sid
            for sid, path in tasks
        }
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except Exception as exc:
                    yield RunOutcome(
                        futures[future],
                        "error",
                        error=f"the Dask task failed: {type(exc).__name__}: {exc}",
                    )
        finally:
            for future in futures:
                future.cancel()


def _run_task(path: str, out: str, quick: bool, force: bool) -> Any:
    """Dask task: run one experiment and return its outcome."""
    os.environ.setdefault("SYMFDP_PROGRESS", "0")
    from symfdp.reproduce.runner import run_experiment

    return run_experiment(Path(path), Path(out), quick=quick, force=force)


def _verdict(outcome: Any) -> str:
    """``PASS``, or how many claims fail and how (as in ``REPORT.md``)."""
    from symfdp.reproduce.report import verdict_counts

    if outcome.status == "error":
        return "ERROR"
    counts = verdict_counts(outcome.claims)
    parts = [f"{counts[v]} {v}" for v in ("FAIL", "FAIL (source)") if counts[v]]
    return ", ".join(parts) or "PASS"


def run(args: argparse.Namespace) -> int:
    from symfdp.reproduce.discovery import catalogue
    from symfdp.reproduce.paths import results_dir
    from symfdp.reproduce.report import verdict_counts, verdict_summary, write_report

    if args.jobs < 1:
        raise UsageError(f"--jobs must be >= 1. Found {args.jobs}.")
    from symfdp._dask import check_executor

    try:
        check_executor(args.executor, args.jobs)
    except ValueError as exc:
        text = str(exc).replace("executor=", "--executor ")
        raise UsageError(text if "--executor" in text else f"--{text}") from None
    for word in ("list", "all"):
        if word in args.targets and len(args.targets) > 1:
            raise UsageError(
                f"ID '{word}' must be given alone. Found {' '.join(args.targets)}."
            )
    try:
        entries = catalogue()
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    registry = {sid: e.path for sid, e in entries.items()}
    if args.targets == ["list"]:
        for sid, e in entries.items():
            print(f"{sid:28s} {e.source}: {e.title}")
        return 0
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
    where = "" if args.executor == "local" else f" on {args.executor}"
    print(
        f"reproducing {len(ids)} experiment(s), {mode} mode, "
        f"{args.jobs} job(s){where} -> {out}"
    )
    start = time.monotonic()
    outcomes = []
    jobs = min(args.jobs, len(ids))
    tasks = [(sid, str(registry[sid])) for sid in ids]
    if args.executor == "local":
        runs = _run_all(tasks, out, args.quick, args.force, jobs)
    else:
        runs = _run_dask(tasks, out, args.quick, args.force, args.executor, jobs)
    for k, outcome in enumerate(runs, 1):
        outcomes.append(outcome)
        n_claims = len(outcome.claims)
        print(
            f"[{k}/{len(ids)}] {outcome.id:28s} {outcome.status:8s} "
            f"{_verdict(outcome):8s} {n_claims:3d} claims {outcome.seconds:7.1f}s",
            flush=True,
        )
    errors = {o.id: o.error for o in outcomes if o.status == "error"}
    for sid, err in errors.items():
        print(f"\n--- {sid} failed:\n{err}", file=sys.stderr)
    report = write_report(out, ids, errors, registry)
    failed = sum(len(o.failed_claims) for o in outcomes)
    counts = verdict_counts(c for o in outcomes for c in o.claims)
    print(
        f"done in {time.monotonic() - start:.1f}s: "
        f"{verdict_summary(counts, len(errors))}; report: {report}"
    )
    return 1 if (failed or errors) else 0
