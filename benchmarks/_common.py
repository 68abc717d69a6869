"""Shared pieces of the benchmark scripts.

* timing: :func:`sample_times` (wall times of repeated calls after a warm-up),
  :func:`timings` (their median and minimum) and :func:`median_time`;
* :func:`quiet`: a call with ``ApproximationWarning`` silenced;
* the peers of the DP-SGD measurements, eps(delta) of n Poisson-subsampled
  Gaussian steps: dp-accounting's PLD (:func:`pld_epsilon`) and RDP
  (:func:`rdp_epsilon`) accountants and prv-accountant (:func:`prv_epsilon`),
  imported on first use, and the timed records of the first and last
  (:func:`pld_record`, :func:`prv_record`);
* run metadata: :func:`machine` (interpreter, platform, library versions) and
  :func:`git_state` (the checkout's commit);
* :func:`write_json`: the result record.

The scripts run as ``python benchmarks/<name>.py``, so this folder is on
``sys.path`` and they ``import _common``.
"""

from __future__ import annotations

import gc
import json
import platform
import statistics
import subprocess
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy

import symfdp
from symfdp import ApproximationWarning

ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------- timing
def _repeat(
    fn: Callable[[], Any], repeats: int, *, pause_gc: bool, out: Any
) -> tuple[list[float], Any]:
    """Wall times of ``repeats`` calls of ``fn`` and the last result (``out``
    if there is none)."""
    times = []
    enabled = gc.isenabled()
    if pause_gc:
        gc.collect()
        gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
    finally:
        if pause_gc and enabled:
            gc.enable()
    return times, out


def sample_times(
    fn: Callable[[], Any], repeats: int, *, pause_gc: bool = False
) -> tuple[list[float], Any]:
    """Wall times (``time.perf_counter``) of ``repeats`` calls of ``fn`` after one
    untimed warm-up call, and the last result.

    Args:
        fn: The measured call.
        repeats: The number of timed calls.
        pause_gc: Collect garbage, then keep the collector paused while timing,
            as ``timeit`` does.
    """
    return _repeat(fn, repeats, pause_gc=pause_gc, out=fn())


def timings(
    fn: Callable[[], Any],
    repeats: int,
    *,
    pause_gc: bool = False,
    single_after: float | None = None,
) -> tuple[dict[str, Any], Any]:
    """``({"median_s", "min_s"}, result)`` of :func:`sample_times`.

    With ``single_after`` (seconds) the warm-up is timed too, and a warm-up
    longer than that is the single measurement, flagged ``"single": True``.
    """
    if single_after is None:
        times, out = sample_times(fn, repeats, pause_gc=pause_gc)
    else:
        t0 = time.perf_counter()
        out = fn()
        first = time.perf_counter() - t0
        if first > single_after:
            return {"median_s": first, "min_s": first, "single": True}, out
        times, out = _repeat(fn, repeats, pause_gc=pause_gc, out=out)
    return {"median_s": statistics.median(times), "min_s": min(times)}, out


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The median of :func:`sample_times` and the last result."""
    times, out = sample_times(fn, repeats)
    return statistics.median(times), out


def quiet(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` with ``ApproximationWarning`` ignored."""

    def run() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            return fn()

    return run


# ----------------------------------------------------------------- peers
def pld_epsilon(sigma: float, p: float, n: int, delta: float, vdi: float) -> float:
    """eps(delta) of n steps ``PoissonSampledDpEvent(p, GaussianDpEvent(sigma))``
    by dp-accounting's ``PLDAccountant`` (value discretisation interval ``vdi``)."""
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=vdi)
    event = dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma))
    acc.compose(event, n)
    return float(acc.get_epsilon(delta))


def rdp_epsilon(sigma: float, p: float, n: int, delta: float) -> float:
    """eps(delta) of the same n steps by dp-accounting's ``RdpAccountant``."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    acc = rdp_privacy_accountant.RdpAccountant()
    event = dp_accounting.PoissonSampledDpEvent(p, dp_accounting.GaussianDpEvent(sigma))
    acc.compose(event, n)
    return float(acc.get_epsilon(delta))


def prv_epsilon(
    sigma: float, p: float, n: int, delta: float, eps_error: float, delta_error: float
) -> tuple[float, float, float]:
    """(lower, estimate, upper) of eps(delta) of n steps of prv-accountant's
    ``PoissonSubsampledGaussianMechanism`` by its ``PRVAccountant``."""
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import (
        PoissonSubsampledGaussianMechanism,
    )

    prv = PoissonSubsampledGaussianMechanism(
        sampling_probability=p, noise_multiplier=sigma
    )
    acc = PRVAccountant(
        prvs=[prv],
        max_self_compositions=[n],
        eps_error=eps_error,
        delta_error=delta_error,
    )
    return acc.compute_epsilon(delta=delta, num_self_compositions=[n])


#: A timer: (call, repeats) -> ({"median_s", "min_s", ...}, result).
Timer = Callable[[Callable[[], Any], int], tuple[dict[str, Any], Any]]


def pld_record(
    timer: Timer, sigma: float, p: float, n: int, delta: float, vdi: float
) -> dict[str, Any]:
    """:func:`pld_epsilon` timed by ``timer`` over 3 repeats: peer, setting, eps
    and the times."""
    t, eps = timer(lambda: pld_epsilon(sigma, p, n, delta, vdi), 3)
    return {
        "peer": "dp-accounting PLDAccountant",
        "setting": {"value_discretization_interval": vdi},
        "eps": eps,
        **t,
    }


def prv_record(
    timer: Timer,
    sigma: float,
    p: float,
    n: int,
    delta: float,
    eps_error: float,
    delta_error: float,
) -> dict[str, Any]:
    """The estimate of :func:`prv_epsilon` timed by ``timer`` over 3 repeats:
    peer, setting, eps and the times."""

    def run() -> float:
        return float(prv_epsilon(sigma, p, n, delta, eps_error, delta_error)[1])

    t, eps = timer(run, 3)
    return {
        "peer": "prv-accountant PRVAccountant",
        "setting": {"eps_error": eps_error},
        "eps": eps,
        **t,
    }


# ----------------------------------------------------------------- metadata
def machine() -> dict[str, Any]:
    """Interpreter, platform and the versions of numpy, scipy and symfdp."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "symfdp": symfdp.__version__,
    }


def git_state(*, short: bool = False) -> tuple[str, bool] | None:
    """The checkout's commit (abbreviated if ``short``) and whether ``symfdp/``
    has uncommitted changes, or None when git cannot tell."""

    def output(*args: str) -> str:
        return subprocess.run(
            ["git", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()

    try:
        sha = output("rev-parse", *(["--short"] if short else []), "HEAD")
        dirty = output("status", "--porcelain", "--", "symfdp")
    except (OSError, subprocess.SubprocessError):
        return None
    return sha, bool(dirty)


def write_json(path: Path, record: dict[str, Any]) -> None:
    """``record`` as indented JSON at ``path`` (its folder made if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
