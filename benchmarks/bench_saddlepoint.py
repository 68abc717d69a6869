"""Benchmark ``A.SaddlePoint``: eps(delta) cost independent of n, with peers.

Run: ``python benchmarks/bench_saddlepoint.py`` (writes
``benchmarks/results/saddlepoint.json`` and prints a summary). Each time is the
median over repeats after a warm-up, with the minimum beside it (the estimator of
the intrinsic cost on a shared machine, which decides the target); the load
average before and after the run is recorded.

(a) ``compose + epsilon(1e-5)`` for DP-SGD, sigma = 0.65, p = 0.01, add/remove
    adjacency (the slides' setting, spa-slide-dpsgd-eps), n in {10, 1e3, 1e5, 1e7},
    orders 1 and 2: target <= 10 ms for every n (the validity check, which warns
    where the tilted loss is far from normal, included; whether it warned is
    recorded). Numerical's certified bracket is recorded for n <= 1e5 as the
    accuracy reference.
(b) Peers in the same run, same setting: ``A.Numerical`` (certified FFT),
    dp-accounting ``RdpAccountant`` (the moments accountant, also O(1) in n),
    dp-accounting ``PLDAccountant`` (value discretisation 1e-3) and prv-accountant
    ``PRVAccountant`` (eps_error 1e-2), with their values and the ratio
    peer time / SaddlePoint time. A peer is skipped at the larger n once one of
    its calls took over a tenth of ``PEER_BUDGET_S``.
(c) ``delta`` at 100 eps values (vectorised), n = 1e3.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M

OUT = Path(__file__).resolve().parent / "results" / "saddlepoint.json"
REPEATS = 15
TARGET_EPS_S = 0.010
SIGMA, P, DELTA = 0.65, 0.01, 1e-5
NS = (10, 1_000, 100_000, 10_000_000)
PEER_BUDGET_S = 20.0


quiet = _common.quiet


def timed(fn: Callable[[], Any], repeats: int = REPEATS) -> tuple[dict, Any]:
    """``({"median_s", "min_s"}, result)`` after one warm-up call; a warm-up over
    2 s is itself the single measurement (flagged ``"single": True``)."""
    return _common.timings(fn, repeats, single_after=2.0)


def validity_warning(fn: Callable[[], Any]) -> bool:
    """Whether ``fn()`` emits the saddle point's validity warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return any("valid range" in str(w.message) for w in caught)


# ----------------------------------------------------------------- (a)
def saddlepoint_case(n: int) -> dict[str, Any]:
    m = M.SubsampledGaussian(sigma=SIGMA, p=P)
    out: dict[str, Any] = {"n": n}
    for order in (1, 2):
        acc = A.SaddlePoint(order=order)
        run = lambda acc=acc: float(acc.compose(m, n).epsilon(DELTA))  # noqa: E731
        t, eps = timed(quiet(run))
        out[f"order{order}"] = {
            "eps": eps,
            **t,
            "pass": t["min_s"] <= TARGET_EPS_S,
            "validity_warning": validity_warning(run),
        }
    if n <= 100_000:
        lo, hi = A.Numerical().compose(m, n).epsilon_bounds(DELTA)
        out["numerical_bracket"] = [float(lo), float(hi)]
        mid = 0.5 * (lo + hi)
        for order in (1, 2):
            out[f"order{order}"]["rel_error_vs_bracket_mid"] = (
                out[f"order{order}"]["eps"] / mid - 1.0
            )
    return out


# ----------------------------------------------------------------- (b) peers
def numerical_peer(n: int) -> dict[str, Any]:
    m = M.SubsampledGaussian(sigma=SIGMA, p=P)
    t, eps = timed(lambda: float(A.Numerical().compose(m, n).epsilon(DELTA)), 3)
    return {"peer": "symfdp Numerical (certified FFT)", "eps": eps, **t}


def rdp_peer(n: int) -> dict[str, Any]:
    t, eps = timed(lambda: _common.rdp_epsilon(SIGMA, P, n, DELTA), 5)
    return {"peer": "dp-accounting RdpAccountant", "eps": eps, **t}


def pld_peer(n: int, vdi: float = 1e-3) -> dict[str, Any]:
    return _common.pld_record(timed, SIGMA, P, n, DELTA, vdi)


def prv_peer(n: int, eps_error: float = 1e-2) -> dict[str, Any]:
    return _common.prv_record(timed, SIGMA, P, n, DELTA, eps_error, DELTA / 1000)


def peers_section(sp_cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    sp_time = {c["n"]: c["order2"]["min_s"] for c in sp_cases}
    rows: list[dict[str, Any]] = []
    skipped: set[str] = set()
    for n in NS:
        for fn in (numerical_peer, rdp_peer, pld_peer, prv_peer):
            name = fn.__name__
            if name in skipped:
                rows.append({"n": n, "peer": name, "skipped": "over budget"})
                continue
            try:
                row = fn(n)
            except Exception as exc:  # a peer failing is data, not a crash
                rows.append({"n": n, "peer": name, "error": repr(exc)[:200]})
                continue
            row["n"] = n
            row["ratio_peer_over_saddlepoint"] = row["min_s"] / sp_time[n]
            rows.append(row)
            # Costs grow with n: skip the larger n once one call exceeds a tenth
            # of the budget.
            if row["min_s"] > PEER_BUDGET_S / 10:
                skipped.add(name)
    return rows


# ----------------------------------------------------------------- (c) delta
def delta_section() -> dict[str, Any]:
    m = M.SubsampledGaussian(sigma=SIGMA, p=P)
    eps = np.linspace(0.0, 10.0, 100)
    t, d = timed(quiet(lambda: A.SaddlePoint().compose(m, 1_000).delta(eps)))
    return {
        "n": 1_000,
        "eps_points": int(eps.size),
        "finite": bool(np.all(np.isfinite(d))),
        **t,
    }


def main() -> int:
    load_before = os.getloadavg()
    sp_cases = [saddlepoint_case(n) for n in NS]
    peers = peers_section(sp_cases)
    delta = delta_section()
    record = {
        "benchmark": "saddlepoint",
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            **_common.machine(),
            "cpu_count": os.cpu_count(),
            "loadavg_before_after": [list(load_before), list(os.getloadavg())],
        },
        "setting": {"sigma": SIGMA, "p": P, "delta": DELTA, "pair": "both"},
        "target_eps_s": TARGET_EPS_S,
        "epsilon": sp_cases,
        "peers": peers,
        "delta_100_eps": delta,
    }
    _common.write_json(OUT, record)
    print(f"load average before/after: {load_before} / {os.getloadavg()}")
    for c in sp_cases:
        o1, o2 = c["order1"], c["order2"]
        ref = c.get("numerical_bracket", [math.nan, math.nan])
        print(
            f"n={c['n']:>9}: eps={o2['eps']:.6g} (order 1: {o1['eps']:.6g}) "
            f"numerical [{ref[0]:.6g}, {ref[1]:.6g}]  min {o2['min_s'] * 1e3:.2f} ms "
            f"(order 1: {o1['min_s'] * 1e3:.2f} ms) pass={o2['pass'] and o1['pass']}"
            f" warns={o2['validity_warning']}"
        )
    for r in peers:
        if "min_s" in r:
            print(
                f"  n={r['n']:>9} {r['peer']}: eps={r['eps']:.6g} "
                f"{r['min_s'] * 1e3:.1f} ms, x{r['ratio_peer_over_saddlepoint']:.1f}"
            )
        else:
            print(f"  n={r['n']:>9} {r['peer']}: {r.get('skipped') or r.get('error')}")
    print(f"delta at 100 eps (n=1e3): {delta['min_s'] * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
