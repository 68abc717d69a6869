"""Dask for symfdp's parallel commands (``symfdp sweep``, ``symfdp reproduce``).

``executor`` names where work runs: ``"local"`` (this machine, without Dask),
``"dask"`` (a :class:`distributed.LocalCluster` of ``jobs`` single-threaded
worker processes, started and closed here), ``"dask://host:port"`` or
``"tcp://host:port"`` (a running scheduler; its workers must import the same
symfdp and, for ``reproduce``, see the same files), or a
:class:`distributed.Client`, used as given.

For a cluster of its own, symfdp leaves ``MALLOC_TRIM_THRESHOLD_`` unset in the
workers and turns their statistical profiler off (see :func:`dask_client`); a
cluster of yours may want the same.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["check_executor", "dask_client"]


def check_executor(executor: Any, jobs: int) -> None:
    """Validate ``executor`` and ``jobs`` (before any work)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1. Found {jobs!r}.")
    if isinstance(executor, str):
        if executor in ("local", "dask") or executor.startswith(
            ("dask://", "tcp://", "tls://")
        ):
            if executor != "local":
                try:
                    import distributed  # noqa: F401
                except ImportError:
                    raise ValueError(
                        f"executor={executor!r} needs dask.distributed: "
                        "pip install 'symfdp[dask]'."
                    ) from None
            return
        raise ValueError(
            "executor must be 'local', 'dask', 'dask://host:port' or a "
            f"distributed.Client. Found {executor!r}."
        )
    if type(executor).__name__ != "Client":
        raise TypeError(
            "executor must be 'local', 'dask', 'dask://host:port' or a "
            f"distributed.Client. Found {type(executor).__name__}."
        )


@contextlib.contextmanager
def dask_client(executor: Any, jobs: int) -> Iterator[Any]:
    """A :class:`distributed.Client` for ``executor`` (see the module doc)."""
    from distributed import Client, LocalCluster

    if not isinstance(executor, str):
        yield executor
        return
    if executor == "dask":
        import dask

        # Dask sets MALLOC_TRIM_THRESHOLD_ in its workers, which fixes glibc's
        # mmap threshold: every large array is then mapped and unmapped afresh,
        # and the numerical accountant's rows ran 3-5x slower (measured).
        # The workers' statistical profiler (a thread sampling every 10 ms) is
        # off as well: it competes for the GIL with the rows.
        config = {
            "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
            "distributed.worker.profile.enabled": False,
        }
        with (
            dask.config.set(config),
            LocalCluster(
                n_workers=jobs,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=40,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    address = executor.replace("dask://", "tcp://", 1)
    with Client(address) as client:
        yield client
