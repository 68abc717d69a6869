"""Numerical at scale, side by side with dp-accounting's PLD and prv-accountant.

Four measurements, each with accuracy next to time (results in
``benchmarks/results/numerical_scale.json``):

* **grid**: eps(1e-5) of n Poisson-subsampled Gaussian steps, sigma in
  {0.6, 1, 2}, p in {1e-3, 1e-2, 1e-1}, n in {1e2, 1e4, 1e6}: ``A.Numerical()``
  (certified bracket and estimate) against dp-accounting's ``PLDAccountant`` at
  value discretisation 1e-3 and 1e-4 and prv-accountant (eps_error 1e-2 * eps
  and its own bounds). Each peer's error is measured against Numerical's
  certified bracket (0 when inside it); "fastest peer within 1%" is the fastest
  peer whose estimate is within 1% of Numerical's, and ``ratio`` is
  Numerical's time over it.
* **cached**: ``TrainingAccountant().get_epsilon(delta)`` after 10^6 identical
  steps: the first query (composition), new deltas on the cached curve and a
  repeated delta (the regression of issue 12).
* **distinct**: K distinct (sigma, p) settings of m steps each, certified eps(1e-5)
  time and peak memory (each case in its own process, with a time limit).
* **huge**: n = 1e9 steps of SubsampledGaussian(sigma=2, p=1e-5) and the refusal
  beyond the FFT and round-off range (n = 1e12), with a time limit.

Run ``python benchmarks/bench_numerical_scale.py`` (``--quick``: n <= 1e4 in the
grid, K = 100 distinct settings, no n = 1e9 case). Timings depend on the load of
the machine: the record stores the machine and the commit.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
import warnings
from pathlib import Path
from typing import Any

import _common

DELTA = 1e-5
SIGMAS = (0.6, 1.0, 2.0)
RATES = (1e-3, 1e-2, 1e-1)
STEPS = (100, 10_000, 1_000_000)
RESULTS = _common.ROOT / "benchmarks" / "results" / "numerical_scale.json"
#: Time limit (s) of one isolated case (distinct settings, huge n).
LIMIT = 300.0


def _timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return time.perf_counter() - t0, out


def _ours(sigma: float, p: float, n: int) -> dict[str, Any]:
    from symfdp import accountants as A
    from symfdp import mechanisms as M

    def run() -> tuple[float, float, float]:
        curve = A.Numerical().compose(M.SubsampledGaussian(sigma=sigma, p=p), n)
        lo, hi = curve.epsilon_bounds(DELTA)
        return float(curve.epsilon(DELTA)), float(lo), float(hi)

    seconds, (eps, lo, hi) = _timed(run)
    return {"eps": eps, "bracket": [lo, hi], "seconds": seconds}


def _peer_error(eps: float, lo: float, hi: float) -> float:
    """Relative distance of a peer's eps to the certified bracket (0 inside)."""
    if lo <= eps <= hi:
        return 0.0
    return min(abs(eps - lo), abs(eps - hi)) / max(hi, 1e-300)


def grid_case(sigma: float, p: float, n: int) -> dict[str, Any]:
    ours = _ours(sigma, p, n)
    lo, hi = ours["bracket"]
    peers = []
    for vdi in (1e-3, 1e-4):
        seconds, eps = _timed(lambda v=vdi: _common.pld_epsilon(sigma, p, n, DELTA, v))
        peers.append(
            {"peer": f"dp-accounting PLD vdi={vdi:g}", "eps": eps, "seconds": seconds}
        )
    err = max(1e-2 * ours["eps"], 1e-3)
    seconds, (p_lo, p_est, p_hi) = _timed(
        lambda: _common.prv_epsilon(sigma, p, n, DELTA, err, 1e-10)
    )
    peers.append(
        {
            "peer": f"prv-accountant eps_error={err:.3g}",
            "eps": float(p_est),
            "bounds": [float(p_lo), float(p_hi)],
            "seconds": seconds,
        }
    )
    for peer in peers:
        peer["error_vs_certified"] = _peer_error(peer["eps"], lo, hi)
        peer["within_1pct"] = abs(peer["eps"] - ours["eps"]) <= 0.01 * ours["eps"]
    close = [q for q in peers if q["within_1pct"]]
    fastest = min(close, key=lambda q: q["seconds"]) if close else None
    return {
        "sigma": sigma,
        "p": p,
        "n": n,
        "numerical": ours,
        "peers": peers,
        "fastest_peer_within_1pct": fastest["peer"] if fastest else None,
        "ratio": ours["seconds"] / fastest["seconds"] if fastest else None,
    }


def cached_queries() -> dict[str, Any]:
    """get_epsilon after 10^6 identical steps: composition, then queries."""
    from symfdp.training import TrainingAccountant

    acc = TrainingAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=10**6)
    first, eps = _timed(lambda: acc.get_epsilon(DELTA))
    out: dict[str, Any] = {"first_query_s": first, "eps_1e-5": eps, "queries": []}
    for d in (1e-6, 1e-6, 1e-7, 3e-5, 1e-8, 1e-8):
        seconds, e = _timed(lambda d=d: acc.get_epsilon(d))
        out["queries"].append({"delta": d, "eps": e, "seconds": seconds})
    return out


def _isolated(target: Any, args: tuple[Any, ...]) -> dict[str, Any]:
    """``target(*args)`` in a fresh process with the time limit; its result, time
    and peak resident memory (or the reason it has none)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, target, args))
    t0 = time.perf_counter()
    proc.start()
    proc.join(LIMIT)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return {"status": f"no answer within {LIMIT:g} s", "seconds": LIMIT}
    out = queue.get() if not queue.empty() else {"status": "crashed"}
    out["wall_s"] = time.perf_counter() - t0
    return out


def _child(queue: Any, target: Any, args: tuple[Any, ...]) -> None:
    try:
        seconds, result = _timed(lambda: target(*args))
        out = {"status": "ok", "seconds": seconds, "result": result}
    except ValueError as exc:  # a refusal is an answer
        out = {"status": "refused", "message": str(exc)}
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put(out)


def distinct_settings(k: int, m: int) -> dict[str, Any]:
    """Certified eps(1e-5) of k distinct (sigma, p) settings of m steps each."""
    from symfdp import accountants as A
    from symfdp import mechanisms as M

    comp = [
        (M.SubsampledGaussian(sigma=1.0 + i / k, p=0.005 + 0.005 * (i % 7) / 7), m)
        for i in range(k)
    ]
    curve = A.Numerical().compose(comp)
    lo, hi = curve.epsilon_bounds(DELTA)
    return {"eps": float(curve.epsilon(DELTA)), "bracket": [float(lo), float(hi)]}


def huge(sigma: float, p: float, n: int) -> dict[str, Any]:
    from symfdp import accountants as A
    from symfdp import mechanisms as M

    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=sigma, p=p), n)
    lo, hi = curve.epsilon_bounds(DELTA)
    return {"eps": float(curve.epsilon(DELTA)), "bracket": [float(lo), float(hi)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    steps = STEPS[:2] if args.quick else STEPS
    record: dict[str, Any] = {
        "benchmark": "Numerical at scale vs dp-accounting PLD and prv-accountant",
        "machine": _common.machine(),
        "git": _common.git_state(),
        "quick": args.quick,
        "delta": DELTA,
    }
    record["cached"] = cached_queries()
    print("cached get_epsilon after 1e6 steps:", record["cached"])
    grid = []
    for n in steps:
        for sigma in SIGMAS:
            for p in RATES:
                case = grid_case(sigma, p, n)
                grid.append(case)
                ratio = case["ratio"]
                print(
                    f"sigma={sigma} p={p:g} n={n:.0e}: numerical "
                    f"{case['numerical']['seconds']:.3f} s eps "
                    f"{case['numerical']['eps']:.5g} "
                    f"[{case['numerical']['bracket'][0]:.5g}, "
                    f"{case['numerical']['bracket'][1]:.5g}]; fastest peer within 1%: "
                    f"{case['fastest_peer_within_1pct']} ratio "
                    f"{'n/a' if ratio is None else f'{ratio:.2f}'}"
                )
    record["grid"] = grid
    k = 100 if args.quick else 1000
    record["distinct"] = {"k": k, "m": 1000, **_isolated(distinct_settings, (k, 1000))}
    print("distinct settings:", record["distinct"])
    huge_cases = [(2.0, 1e-5, 10**12)] + ([] if args.quick else [(2.0, 1e-5, 10**9)])
    record["huge"] = [
        {"sigma": s, "p": p, "n": n, **_isolated(huge, (s, p, n))}
        for s, p, n in huge_cases
    ]
    print("huge n:", record["huge"])
    _common.write_json(args.out, record)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
