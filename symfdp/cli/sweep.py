"""`symfdp sweep SPEC -o OUT`: a grid of configurations in, a table out.

Each row of the grid (:mod:`symfdp.sweeps.spec`) is answered by the code of
``symfdp account`` (or ``symfdp calibrate`` for a grid of targets) and written to
``OUT.csv`` and ``OUT.jsonl`` as it finishes; re-running the same command skips
the finished rows. ``--jobs K`` runs K local processes; ``--executor dask`` a
local Dask cluster of K workers; ``--executor dask://host:port`` a running Dask
scheduler. The table is the same whatever runs it (rows, order, numbers; only
the ``seconds`` column differs).
"""

from __future__ import annotations

import argparse
import sys
import time

from symfdp.cli.common import UsageError, integer

EPILOG = """\
A spec (TOML; YAML with PyYAML):

  mechanism = "subsampled-gaussian"
  methods = ["numerical"]        # or {name = "edgeworth", order = 3}, ...
  [grid]                         # lists, single values or ranges
  sigma = [0.8, 1.0, 1.5]
  sample_rate = {start = 1e-3, stop = 1e-2, num = 3, scale = "log"}
  steps = {start = 1000, stop = 3000, step = 1000}
  delta = 1e-5

A grid of target_eps (with delta) or target_mu calibrates sigma instead, with
an optional [calibrate] table (sigma_range = [lo, hi], rtol). Axes: sigma, mu,
eps, sample_rate, steps (or epochs, dataset_size, batch_size), delta,
target_eps, target_mu. See examples/sweep_dpsgd.toml.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``sweep`` subcommand and its flags to ``sub``."""
    p = sub.add_parser(
        "sweep",
        help="a grid of account/calibrate configurations to a CSV/JSONL table",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", metavar="SPEC", help="the grid (.toml, or .yaml)")
    p.add_argument(
        "--out",
        "-o",
        required=True,
        metavar="OUT",
        help="writes OUT.csv and OUT.jsonl (finished rows there are skipped)",
    )
    p.add_argument(
        "--executor",
        default="local",
        metavar="WHERE",
        help="local (default: this process, or --jobs processes), dask (a local "
        "Dask cluster of --jobs workers) or dask://host:port (a running scheduler)",
    )
    p.add_argument(
        "--jobs", "-j", type=integer, default=1, help="local processes or workers"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``symfdp sweep``; returns the exit status."""
    from symfdp._dask import check_executor
    from symfdp.sweeps import SpecError, run_sweep
    from symfdp.sweeps.spec import load
    from symfdp.sweeps.store import Store

    if args.jobs < 1:
        raise UsageError(f"--jobs must be >= 1. Found {args.jobs}.")
    try:
        check_executor(args.executor, args.jobs)
    except ValueError as exc:
        text = str(exc).replace("executor=", "--executor ")
        raise UsageError(text if "--executor" in text else f"--{text}") from None
    try:
        plan = load(args.spec)
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    store = Store(args.out, [])
    where = args.executor if args.executor != "local" or args.jobs == 1 else "local"
    workers = f", {args.jobs} worker(s)" if args.jobs > 1 or where == "dask" else ""

    def started(skipped: int, todo: int) -> None:
        note = f" ({skipped} already in {store.jsonl.name}, skipped)" if skipped else ""
        print(
            f"sweep: {len(plan.rows)} row(s) of {plan.task} on {plan.mechanism}"
            f"{note}; {todo} to run on {where}{workers}",
            flush=True,
        )

    start = time.monotonic()
    try:
        rows, complete = run_sweep(
            plan, args.out, executor=args.executor, jobs=args.jobs, on_start=started
        )
    except SpecError as exc:
        raise UsageError(str(exc)) from None
    errors = sum(1 for r in rows if r.get("error"))
    seconds = time.monotonic() - start
    summary = (
        f"{len(rows)}/{len(plan.rows)} row(s) in {store.csv} and {store.jsonl.name}"
        f" ({errors} with an error), {seconds:.1f} s"
    )
    if not complete:
        print(f"sweep: interrupted; {summary}; re-run to resume", file=sys.stderr)
        return 130
    print(f"sweep: done; {summary}")
    return 0
