"""Every batch sampler on one DP-SGD run: symfdp's certified answer next to
dp-accounting's PLD accountant where it serves the case.

Run: ``python benchmarks/bench_samplers.py [--out PATH]``. Writes
``benchmarks/results/samplers.json``.

The run: Gaussian noise sigma = 1, 1,000 records, batches of 10, two epochs
(200 steps), truncated batches of at most 14, cyclic Poisson in 2 groups,
delta = 1e-5. For each sampler: symfdp's certified bounds on the run's
eps(delta) (``symfdp.samplers.account_sampler``, ``A.Numerical``), its
guarantee, and its time (minimum of three calls after an untimed one). Where
dp-accounting serves the case (no amplification: ``GaussianDpEvent``; Poisson
and cyclic Poisson: ``PoissonSampledDpEvent``; truncated Poisson:
``TruncatedSubsampledGaussianDpEvent``; value discretisation 1e-4), its eps,
its error against symfdp's certified bracket (distance outside it; for
truncated Poisson, dp-accounting bounds a dominating pair, so the difference is
its looseness against our upper end) and the time ratio measured in the same
run (the peer timed as symfdp, or once when its first call takes over 5 s).
dp-accounting serves neither fixed batches (its ``SampledWith(out)
Replacement`` events are RDP-only), random allocation (0.6) nor shuffling.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

import _common

from symfdp import mechanisms as M
from symfdp import samplers as S

DELTA = 1e-5
SIGMA = 1.0
RECORDS, BATCH, EPOCHS, MAX_BATCH, CYCLE = 1000, 10, 2, 14, 2
STEPS = EPOCHS * RECORDS // BATCH
VDI = 1e-4


def _peer_event(name: str) -> tuple[Any, int] | None:
    import dp_accounting as dp

    rate = BATCH / RECORDS
    gauss = dp.GaussianDpEvent(SIGMA)
    return {
        "none": (gauss, STEPS),
        "poisson": (dp.PoissonSampledDpEvent(rate, gauss), STEPS),
        "cyclic-poisson": (
            dp.PoissonSampledDpEvent(rate * CYCLE, gauss),
            -(-STEPS // CYCLE),
        ),
        "truncated-poisson": (
            dp.TruncatedSubsampledGaussianDpEvent(RECORDS, rate, MAX_BATCH, SIGMA),
            STEPS,
        ),
    }.get(name)


def _peer(name: str) -> float | None:
    from dp_accounting.pld import pld_privacy_accountant

    found = _peer_event(name)
    if found is None:
        return None
    event, n = found
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=VDI)
    acc.compose(event, n)
    return float(acc.get_epsilon(DELTA))


def run() -> list[dict[str, Any]]:
    shape = S.RunShape(
        steps=STEPS,
        batch_size=BATCH,
        dataset_size=RECORDS,
        max_batch=MAX_BATCH,
        cycle_length=CYCLE,
    )
    mechanism = M.Gaussian(sigma=SIGMA)
    rows = []
    for name in S.sampler_names():
        sampler = S.sampler_for(name, shape)

        def ours(s: S.Sampler = sampler) -> tuple[float, float]:
            got = S.account_sampler(mechanism, s, steps=STEPS)
            lo, hi = got.epsilon_bounds(DELTA)
            return float(lo), float(hi)

        ours_t, (lo, hi) = _common.timings(ours, 3, pause_gc=True)
        row: dict[str, Any] = {
            "sampler": name,
            "guarantee": sampler.guarantee.value,
            "symfdp": {"eps_bounds": [lo, hi], **ours_t},
        }
        peer_t, peer = _common.timings(
            lambda n=name: _peer(n), 3, pause_gc=True, single_after=5.0
        )
        if peer is not None:
            if name == "truncated-poisson":
                error = peer - hi
            else:
                error = max(lo - peer, peer - hi, 0.0)
            row["dp_accounting"] = {
                "eps": peer,
                "error_vs_certified": error,
                "min_s": peer_t["min_s"],
            }
            row["time_ratio"] = ours_t["min_s"] / peer_t["min_s"]
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _line(row: dict[str, Any]) -> str:
    lo, hi = row["symfdp"]["eps_bounds"]
    hi_text = "inf" if math.isinf(hi) else f"{hi:.5f}"
    text = (
        f"{row['sampler']:24s} {row['guarantee']:12s} [{lo:.5f}, {hi_text}] "
        f"{row['symfdp']['min_s']:.3g}s"
    )
    if "dp_accounting" in row:
        peer = row["dp_accounting"]
        text += (
            f" | dp-accounting {peer['eps']:.5f}"
            f" (error {peer['error_vs_certified']:.2g})"
            f" {peer['min_s']:.3g}s | time x{row['time_ratio']:.3g}"
        )
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=_common.ROOT / "benchmarks" / "results" / "samplers.json",
    )
    ns = parser.parse_args()
    from importlib.metadata import version

    load = os.getloadavg()
    rows = run()
    git = _common.git_state()
    _common.write_json(
        ns.out,
        {
            "what": "every sampler, eps(1e-5) of one run: symfdp vs dp-accounting",
            "run": {
                "sigma": SIGMA,
                "records": RECORDS,
                "batch": BATCH,
                "epochs": EPOCHS,
                "steps": STEPS,
                "max_batch": MAX_BATCH,
                "cycle_length": CYCLE,
                "delta": DELTA,
                "dp_accounting_vdi": VDI,
            },
            "machine": _common.machine(),
            "dp_accounting": version("dp-accounting"),
            "git": None if git is None else {"commit": git[0], "dirty": git[1]},
            "load_average": {"before": load, "after": os.getloadavg()},
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
