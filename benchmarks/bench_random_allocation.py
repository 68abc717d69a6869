"""Random allocation: symfdp's certified bracket next to pld-accounting's.

Run: ``python benchmarks/bench_random_allocation.py [--out PATH] [--quick]``
with ``pld-accounting`` installed in the same interpreter (the peer; without it
only symfdp's side is recorded). Writes
``benchmarks/results/random_allocation.json``.

For each setting (sigma, k of t steps, epochs; Gaussian noise, add-or-remove
adjacency, delta = 1e-5): the eps bracket of
``symfdp.samplers.random_allocation`` (default step) and of
``PLD_accounting.gaussian_allocation_epsilon_range`` (its defaults: adaptive
refinement to a relative gap of 10%), their widths and whether they overlap,
and the times as ratios to the peer measured in the same run: symfdp is timed
as the minimum of a few calls (build and query, first call untimed), the peer
once before and once after symfdp (A/B/A, its minimum kept) when its first run
takes less than a minute, once otherwise. Poisson subsampling at rate k/t over
t * epochs steps (``A.Numerical``) is recorded beside it for reference. The
first two settings are the ones quoted in issue 34 (pld-accounting 2.0:
[0.6085, 0.6357] in 5.4 s and [0.2786, 0.2909] in 86 s); they are measured
here again, never copied.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import _common

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.samplers import random_allocation

DELTA = 1e-5
#: (sigma, k, t, epochs)
SETTINGS: tuple[tuple[float, int, int, int], ...] = (
    (1.0, 1, 100, 1),
    (0.8, 1, 1000, 1),
    (0.5, 1, 10, 1),
    (2.0, 1, 10, 1),
    (2.0, 1, 100, 1),
    (1.0, 4, 100, 1),
    (2.0, 1, 16, 4),
    (1.0, 1, 10, 10),
    (2.0, 1, 1000, 1),
)
QUICK = SETTINGS[:1] + SETTINGS[2:4]
#: The peer is timed a second time (after symfdp) only when its first run took
#: less than this (seconds); slower runs are single measurements.
PEER_REPEAT_BELOW_S = 60.0


def _ours(sigma: float, k: int, t: int, epochs: int) -> tuple[float, float]:
    curve = random_allocation(M.Gaussian(sigma=sigma), t=t, k=k, epochs=epochs)
    lo, hi = curve.epsilon_bounds(DELTA)
    return float(lo), float(hi)


def _peer(sigma: float, k: int, t: int, epochs: int) -> tuple[float, float] | None:
    try:
        from PLD_accounting import gaussian_allocation_epsilon_range
    except ImportError:
        return None
    hi, lo = gaussian_allocation_epsilon_range(
        delta=DELTA, sigma=sigma, num_steps=t, num_selected=k, num_epochs=epochs
    )
    return float(lo), float(hi)


def _timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _poisson(sigma: float, k: int, t: int, epochs: int) -> tuple[float, float]:
    curve = A.Numerical().compose(
        M.SubsampledGaussian(sigma=sigma, p=k / t), n=t * epochs
    )
    lo, hi = curve.epsilon_bounds(DELTA)
    return float(lo), float(hi)


def run(settings: tuple[tuple[float, int, int, int], ...]) -> list[dict[str, Any]]:
    rows = []
    for sigma, k, t, epochs in settings:
        args = (sigma, k, t, epochs)
        p_time_a, peer = _timed(lambda a=args: _peer(*a))
        ours_t, ours = _common.timings(lambda a=args: _ours(*a), 3, pause_gc=True)
        p_time_b = None
        if peer is not None and p_time_a < PEER_REPEAT_BELOW_S:
            p_time_b, _ = _timed(lambda a=args: _peer(*a))
        row: dict[str, Any] = {
            "sigma": sigma,
            "k": k,
            "t": t,
            "epochs": epochs,
            "delta": DELTA,
            "symfdp": {"eps": list(ours), "width": ours[1] - ours[0], **ours_t},
            "poisson_rate_k_over_t": list(_poisson(*args)),
        }
        if peer is not None:
            peer_time = min(p_time_a, p_time_b or p_time_a)
            row["pld_accounting"] = {
                "eps": list(peer),
                "width": peer[1] - peer[0],
                "times_s": [p_time_a, p_time_b],
            }
            row["overlap"] = ours[0] <= peer[1] and peer[0] <= ours[1]
            row["width_ratio"] = (ours[1] - ours[0]) / (peer[1] - peer[0])
            row["time_ratio"] = ours_t["min_s"] / peer_time
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    ours = row["symfdp"]
    text = (
        f"sigma={row['sigma']:g} k={row['k']} t={row['t']} epochs={row['epochs']}: "
        f"symfdp [{ours['eps'][0]:.5f}, {ours['eps'][1]:.5f}] "
        f"{ours['min_s']:.3g}s"
    )
    if "pld_accounting" in row:
        peer = row["pld_accounting"]
        text += (
            f" | pld-accounting [{peer['eps'][0]:.5f}, {peer['eps'][1]:.5f}] "
            f"{min(t for t in peer['times_s'] if t):.3g}s | overlap={row['overlap']} "
            f"width x{row['width_ratio']:.3g} time x{row['time_ratio']:.3g}"
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=_common.ROOT / "benchmarks" / "results" / "random_allocation.json",
    )
    parser.add_argument("--quick", action="store_true")
    ns = parser.parse_args()
    load = os.getloadavg()
    try:
        from importlib.metadata import version

        import PLD_accounting  # noqa: F401

        peer_version: str | None = version("pld-accounting")
    except ImportError:
        peer_version = None
    rows = run(QUICK if ns.quick else SETTINGS)
    git = _common.git_state()
    _common.write_json(
        ns.out,
        {
            "what": "random allocation, eps(1e-5) brackets: symfdp vs pld-accounting",
            "machine": _common.machine(),
            "pld_accounting": peer_version,
            "git": None if git is None else {"commit": git[0], "dirty": git[1]},
            "load_average": {"before": load, "after": os.getloadavg()},
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
