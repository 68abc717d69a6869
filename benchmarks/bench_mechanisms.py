"""Benchmark the PLRV cumulants of ``SubsampledGaussian`` (speed and accuracy).

Run: ``python benchmarks/bench_mechanisms.py [--quick]`` (writes
benchmarks/results/mechanisms.json and prints tables).

(a) Speed: ``cumulants(8)`` under P and Q of ``SubsampledGaussian(sigma=1,
    p=0.01)`` (target <= 20 ms), "cold" = first call on a freshly constructed
    object (per-instance caches empty), "warm" = the repeated call; also the hard
    case sigma=20, p=0.5 (nearly Gaussian loss; orders 7-8 go to the
    extended-precision route), and ``cgf_derivatives`` on 1000 values of t.
    Medians over repeats. Peer, measured in the same run: the approach of the
    Edgeworth paper's code (raw moments by ``scipy.integrate.quad``, one call per
    moment, then the moment -> cumulant recursion), extended to order 8.
(b) Accuracy: worst relative error per order against the 30-digit mpmath
    reference (``symfdp.reference.plrv``) over sigma in {0.3..20} x p in
    {1e-6..1-1e-6}, under P and Q, for ours, for the plain float64 moment route
    on the same trapezoid rule (``_gaussian_mixture._moment_route``) and for the
    quad peer.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common
import numpy as np
from scipy import integrate

from symfdp import mechanisms as M
from symfdp.mechanisms import _gaussian_mixture as GM
from symfdp.mechanisms import _logmix as LM
from symfdp.numeric.moments import cumulants_from_moments
from symfdp.reference import plrv as R

OUT = Path(__file__).resolve().parent / "results" / "mechanisms.json"
REPEATS = 15
TARGET_MS = 20.0
SIGMAS = (0.3, 0.4, 0.5, 0.7, 1.0, 2.0, 5.0, 10.0, 20.0)
PS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 1 - 1e-6)


def _median_ms(fn: Any, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def quad_peer(sigma: float, p: float, order: int, under: str) -> np.ndarray:
    """Raw moments by ``scipy.integrate.quad`` (one call per moment) + recursion."""
    mu = 1 / sigma

    def dens(x: float) -> float:
        base = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        if under == "P":
            return base
        return (1 - p) * base + p * math.exp(-((x - mu) ** 2) / 2) / math.sqrt(
            2 * math.pi
        )

    def loss(x: float) -> float:
        return float(LM.log_mix(np.array([mu * x - mu * mu / 2]), p)[0])

    moments = [
        integrate.quad(
            lambda x, k=k: loss(x) ** k * dens(x), -np.inf, np.inf, limit=200
        )[0]
        for k in range(1, order + 1)
    ]
    return cumulants_from_moments(moments)


def plain_moment_route(sigma: float, p: float, order: int, under: str) -> np.ndarray:
    mu = 1 / sigma
    grid = GM.x_grid(mu, 0.0, (order + 1) * mu)
    y = mu * grid.x - mu * mu / 2
    return GM._moment_route(y, np.exp(grid.log_w), p, order, under)[0]


def speed() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for sigma, p in ((1.0, 0.01), (20.0, 0.5), (0.3, 1e-6)):
        key = f"sigma={sigma:g},p={p:g}"
        row: dict[str, float] = {}
        for under in ("P", "Q"):

            def cold(under: str = under, sigma: float = sigma, p: float = p) -> None:
                M.with_adjacency(
                    M.SubsampledGaussian(sigma=sigma, p=p), "add"
                ).cumulants(8, under)

            m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "add")
            m.cumulants(8, under)
            row[f"cold_ms_{under}"] = _median_ms(cold)
            row[f"warm_ms_{under}"] = _median_ms(lambda m=m, u=under: m.cumulants(8, u))
            row[f"quad_peer_ms_{under}"] = _median_ms(
                lambda u=under, s=sigma, q=p: quad_peer(s, q, 8, u), repeats=3
            )
        m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "add")
        t = np.linspace(-5, 50, 1000)
        row["cgf_derivatives_1000_t_ms"] = _median_ms(
            lambda m=m, t=t: m.cgf_derivatives(t), 5
        )
        out[key] = row
    return out


def accuracy(quick: bool) -> dict[str, Any]:
    sigmas = SIGMAS[::4] if quick else SIGMAS
    ps = PS[::3] if quick else PS
    worst = {name: np.zeros(8) for name in ("ours", "plain_moments", "quad_peer")}
    where: dict[str, list[Any]] = {name: [None] * 8 for name in worst}
    for sigma, p, under in itertools.product(sigmas, ps, ("P", "Q")):
        m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "add")
        ref = np.array([float(v) for v in R.plrv_cumulants(m, 8, under)])
        routes = {
            "ours": m.cumulants(8, under),
            "plain_moments": plain_moment_route(sigma, p, 8, under),
        }
        if sigma in (0.3, 1.0, 20.0) and p in (1e-6, 1e-2, 0.5, 0.99):
            routes["quad_peer"] = quad_peer(sigma, p, 8, under)
        for name, val in routes.items():
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = np.abs(val / ref - 1)
            rel = np.where(np.isfinite(rel), rel, np.inf)
            for r in range(8):
                if rel[r] > worst[name][r]:
                    worst[name][r] = rel[r]
                    where[name][r] = [sigma, p, under]
    return {
        "grid": {"sigma": list(sigmas), "p": list(ps), "under": ["P", "Q"]},
        "worst_rel_error_by_order": {k: v.tolist() for k, v in worst.items()},
        "argmax": where,
        "quad_peer_grid": {"sigma": [0.3, 1.0, 20.0], "p": [1e-6, 1e-2, 0.5, 0.99]},
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="coarse accuracy grid")
    args = ap.parse_args()
    t0 = time.time()
    sp_res = speed()
    acc = accuracy(args.quick)
    record = {
        "benchmark": "mechanisms",
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **_common.machine(),
        "target_ms": TARGET_MS,
        "speed_ms": sp_res,
        "accuracy": acc,
        "wall_s": round(time.time() - t0, 1),
    }
    _common.write_json(OUT, record)
    print("speed (ms, medians):")
    for key, row in sp_res.items():
        print(f"  {key:22s}", "  ".join(f"{k}={v:.3g}" for k, v in row.items()))
    print("worst relative error by order 1..8 (vs 30-digit mpmath):")
    for name, vals in acc["worst_rel_error_by_order"].items():
        print(f"  {name:14s}", " ".join(f"{v:.1e}" for v in vals))
    ok = sp_res["sigma=1,p=0.01"]["cold_ms_P"] <= TARGET_MS
    print(
        f"target cold <= {TARGET_MS} ms at sigma=1, p=0.01: {'met' if ok else 'MISSED'}"
    )
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
