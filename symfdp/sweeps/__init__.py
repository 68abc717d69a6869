"""Sweeps: a grid of configurations in, a table out (``symfdp sweep``).

A spec (:mod:`symfdp.sweeps.spec`) expands to rows, each a typed request
answered by :func:`symfdp.runs.account` or :func:`symfdp.runs.calibrate` (the
code of ``symfdp account`` and ``symfdp calibrate``) locally or on Dask;
finished rows go to ``OUT.jsonl`` and ``OUT.csv`` and are skipped on a re-run.
Example::

    import symfdp
    rows = symfdp.sweep("examples/sweep_dpsgd.toml", out="dpsgd", jobs=2)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from symfdp._dask import check_executor
from symfdp._progress import Progress
from symfdp.sweeps import executors
from symfdp.sweeps.row import ACCOUNT_OUTPUTS, CALIBRATE_OUTPUTS
from symfdp.sweeps.spec import SpecError, Sweep, load
from symfdp.sweeps.store import Store

__all__ = ["SpecError", "columns", "run_sweep", "sweep"]


def columns(plan: Sweep) -> list[str]:
    """The table's columns: row index and id, the configuration, the outputs."""
    derived = [a for a in ("sample_rate", "steps") if a not in plan.axes]
    head = ["row", "id", "mechanism", *plan.axes, *derived, "pair", "method"]
    if plan.task == "calibrate":
        return [*head, "sigma_range", "rtol", *CALIBRATE_OUTPUTS]
    return [*head, *ACCOUNT_OUTPUTS]


def _table_row(
    index: int, config: dict[str, Any], outputs: dict[str, Any]
) -> dict[str, Any]:
    row = {k: v for k, v in config.items() if k not in ("options", "method_label")}
    row["method"] = config["method_label"]
    row["row"] = index
    for key, value in outputs.items():
        row[key] = value
    return row


def run_sweep(
    plan: Sweep,
    out: str | Path | None = None,
    *,
    executor: Any = "local",
    jobs: int = 1,
    progress: bool | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Answer the rows of ``plan`` not yet in ``out`` (rows whose worker died run
    again); returns ``(rows in grid order, complete)``, ``complete`` False after
    ``KeyboardInterrupt``. ``on_start(skipped, todo)`` is called once the finished
    rows are known."""
    check_executor(executor, jobs)
    cols = columns(plan)
    index_of = {config["id"]: k for k, config in enumerate(plan.rows)}
    done: dict[int, dict[str, Any]] = {}
    store = None
    if out is not None:
        store = Store(out, cols)
        old = store.finished()
        stray = [i for i in old if i not in index_of]
        if stray:
            raise SpecError(
                f"{store.jsonl} holds {len(stray)} row(s) that are not in this grid "
                "(another spec?); give another output or remove the file."
            )
        for rid, row in old.items():
            if str(row.get("error") or "").startswith(executors.WORKER_DIED):
                continue  # lost with its workers, not answered: run it again
            k = index_of[rid]
            done[k] = {**row, "row": k}
        store.rewrite([done[k] for k in sorted(done)])
        store.open()
    todo = [(k, r) for k, r in enumerate(plan.requests) if k not in done]
    if on_start is not None:
        on_start(len(done), len(todo))
    complete = False
    bar = Progress(len(todo), "sweep", enabled=progress, status_every=10.0)
    results = executors.run(todo, executor, jobs, keys=dict(enumerate(plan.ids)))
    try:
        for k, outputs in results:
            row = _table_row(k, plan.rows[k], outputs)
            done[k] = row
            if store is not None:
                store.append(row)
            bar.update()
        complete = True
    except KeyboardInterrupt:
        pass
    finally:
        results.close()  # stops the workers (a pool or a local cluster)
        bar.close()
        if store is not None:
            store.rewrite([done[k] for k in sorted(done)])
    rows = [{c: done[k].get(c) for c in cols} for k in sorted(done)]
    return rows, complete


def sweep(
    spec: str | Path | dict[str, Any],
    out: str | Path | None = None,
    *,
    executor: Any = "local",
    jobs: int = 1,
    progress: bool | None = None,
) -> Any:
    """Run a sweep: every configuration of ``spec``, one row each.

    Args:
        spec: A TOML (or YAML) file, or its parsed mapping
            (:mod:`symfdp.sweeps.spec`).
        out: Base path of the table (``OUT.jsonl`` and ``OUT.csv``); rows already
            there are not recomputed. None: nothing is written.
        executor: ``"local"`` (this process, or ``jobs`` processes), ``"dask"``
            (a local Dask cluster of ``jobs`` workers), ``"dask://host:port"``
            (a running scheduler) or a ``distributed.Client``.
        jobs: Number of local processes or local Dask workers (>= 1).
        progress: Draw a progress bar (default: when stderr is a terminal).

    Returns:
        The rows in grid order (dicts), or a ``pandas.DataFrame`` of them if
        pandas is installed. The numbers do not depend on the executor.

    Raises:
        SpecError: an invalid spec (before any work).
        KeyboardInterrupt: after the finished rows were written.
    """
    plan = load(spec)
    rows, complete = run_sweep(
        plan, out, executor=executor, jobs=jobs, progress=progress
    )
    if not complete:
        raise KeyboardInterrupt
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows, columns=columns(plan))
