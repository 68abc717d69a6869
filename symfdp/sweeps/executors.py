"""Where the rows run: in this process, in local processes, or on Dask.

Each executor yields ``(index, outputs)`` pairs as rows finish (in any order);
the caller orders them. Every executor calls the same
:func:`symfdp.sweeps.row.answer`, so the numbers do not depend on where a row
ran.

* ``"local"`` with ``jobs=1``: in this process, one row after another.
* ``"local"`` with ``jobs=K > 1``: ``K`` spawned processes
  (:class:`concurrent.futures.ProcessPoolExecutor`), ``K`` rows in flight. A
  process that dies (killed, out of memory) breaks the pool: a new pool takes the
  unfinished rows, and a row that was in flight at :data:`MAX_ATTEMPTS` such
  deaths is an error row.
* ``"dask"``: a :class:`distributed.LocalCluster` of ``K`` single-threaded
  worker processes, closed at the end; ``"dask://host:port"`` (or
  ``"tcp://host:port"``) connects to a running scheduler, whose workers must
  import the same symfdp; a :class:`distributed.Client` is used as given.
  (see :mod:`symfdp._dask`). Dask
  reruns the rows of a dead worker elsewhere; a row whose workers die
  ``distributed.scheduler.allowed-failures`` + 1 times is an error row.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, Final

from symfdp._dask import dask_client
from symfdp.runs.records import AccountRequest, CalibrateRequest
from symfdp.sweeps.row import answer, answer_indexed

#: Pool deaths a row survives before it is recorded as an error (local processes).
MAX_ATTEMPTS: Final = 3

Items = list[tuple[int, AccountRequest | CalibrateRequest]]


def run(
    items: Items,
    executor: Any = "local",
    jobs: int = 1,
    keys: dict[int, str] | None = None,
) -> Generator[Any, None, None]:
    """Answer ``items`` (``(index, request)`` pairs); yield ``(index, outputs)``.
    ``keys``: a stable name per index (the row ids), for Dask's task keys."""
    if not items:
        return  # (no pool or cluster started for nothing)
    if executor == "local":
        jobs = min(jobs, len(items))
        if jobs == 1:
            for index, request in items:
                yield index, answer(request)
        else:
            yield from _processes(items, jobs)
    else:
        names = keys or {i: str(i) for i, _ in items}
        yield from _dask(items, executor, jobs, names)


#: How the error of a row lost with its workers begins; a re-run retries such rows.
WORKER_DIED: Final = "worker died"


def _died_row(index: int, what: str) -> tuple[int, dict[str, Any]]:
    return index, {
        "error": f"{WORKER_DIED}: {what} (e.g. killed, or out of memory); a re-run "
        "retries this row",
        "warnings": [],
        "seconds": None,
    }


def _processes(items: Items, jobs: int) -> Iterator[Any]:
    """At most ``jobs`` rows in flight, so that the rows a dead process may have
    been running are known: only they count an attempt."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    todo = dict(items)
    attempts = dict.fromkeys(todo, 0)
    while todo:
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
        queue = list(todo)
        inflight: dict[Any, int] = {}
        broken = False
        try:
            while (queue or inflight) and not broken:
                while queue and len(inflight) < jobs:
                    try:
                        future = pool.submit(answer_indexed, (queue[0], todo[queue[0]]))
                    except BrokenProcessPool:  # broke since the last wait
                        broken = True
                        break
                    inflight[future] = queue.pop(0)
                if not inflight:
                    break
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for future in done:
                    i = inflight.pop(future)
                    try:
                        index, outputs = future.result()
                    except BrokenProcessPool:
                        broken = True
                        attempts[i] += 1
                        continue
                    del todo[index]
                    yield index, outputs
            wait(inflight)  # (all settled once the pool is broken)
            for future, i in inflight.items():
                if future.exception() is None:  # finished before the break
                    del todo[i]
                    yield future.result()
                else:  # lost with the pool
                    attempts[i] += 1
            for i in [i for i in todo if attempts[i] >= MAX_ATTEMPTS]:
                del todo[i]
                yield _died_row(i, f"{MAX_ATTEMPTS} times, while running this row")
        finally:
            pool.shutdown(wait=False, cancel_futures=True)


def _dask(
    items: Items, executor: Any, jobs: int, keys: dict[int, str]
) -> Iterator[Any]:
    from distributed import as_completed

    with dask_client(executor, jobs) as client:
        futures = [
            client.submit(
                answer_indexed, (i, request), key=f"sweep-row-{keys[i]}", pure=False
            )
            for i, request in items
        ]
        index_of = {f.key: i for f, (i, _) in zip(futures, items, strict=True)}
        try:
            for future in as_completed(futures):
                try:
                    yield future.result()
                except Exception as exc:
                    # KilledWorker (the row's workers died) or a lost scheduler.
                    yield _died_row(
                        index_of[future.key], f"{type(exc).__name__}: {exc}"[:300]
                    )
        finally:
            for f in futures:
                f.cancel()
