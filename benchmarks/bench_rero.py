"""Benchmark ReRo bounds at ImageNet scale (Kaissis et al. 2023, Fig. 1e, App. Fig. 2).

Run: ``python benchmarks/bench_rero.py`` (writes benchmarks/results/rero.json and
prints a table). Target (issue 5): gamma on kappa in [1e-7, 1e-1] for the
subsampled Gaussian add pair with p ~ 1e-4 and N ~ 1e5 in <= 2 s with Edgeworth
or SaddlePoint, in memory that does not grow with N; the paper reports "about
1.5 s" for its Edgeworth. Monte Carlo is infeasible there; its cost is
*extrapolated* from a measured small run.

Measured side by side on the same kappa grid (61 log-spaced points), per setting:

- ``Edgeworth(order=4)``, ``CLT(form="exp")`` (the paper's mu~), ``SaddlePoint()``:
  wall time of ``compose`` + ``rero.gamma``, cold: each repeat uses a sigma
  perturbed by 1e-9 relative, so no per-mechanism cache (cumulants, CGF grids)
  is reused; the compiled SymPy evaluators are warm (built once per process).
  Median of repeats;
- ``Numerical()`` (certified ground truth): the same, one run, and its bracket;
- accuracy: max over the grid of |method / Numerical - 1| (Numerical's own
  bracket half-width is reported beside it);
- peak memory (tracemalloc, numpy buffers included) of the Edgeworth run at
  N = 1e3, 1e4, 1e5: constant in N;
- Monte Carlo: ``rero.monte_carlo_gamma`` measured at small S on the full N, and
  the time per sampled element used to extrapolate to the paper's S = 1e6 and
  to the S needed to keep 100 null samples beyond the threshold at kappa = 1e-7
  (S = 1e9); the memory of the original S x N array is 8 S N bytes.
"""

from __future__ import annotations

import json
import statistics
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import _common
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import rero
from symfdp._warnings import ApproximationWarning

TARGET_S = 2.0
KAPPA = np.logspace(-7, -1, 61)
REPEATS = 5
OUT = Path(__file__).resolve().parent / "results" / "rero.json"
#: (name, p, N, sigma). The first is the issue's ImageNet-scale target; the
#: others are the ImageNet config of De et al. (jax_privacy, TARGETS section 5)
#: and its smaller-batch variant used for Fig. 1e.
SETTINGS = (
    ("p=1e-4,N=1e5,sigma=1", 1e-4, 100_000, 1.0),
    ("imagenet-config", 16384 / 1281167, 71589, 2.5),
    ("imagenet-batch4096", 4096 / 1281167, 71589, 2.5),
)
MC_SMALL_S = 200
PAPER_S = 10**6
S_FOR_1E7 = 10**9  # keeps ceil(1e-7 S) = 100 null samples beyond the threshold


def timed(fn: Callable[[int], object], repeats: int = REPEATS) -> tuple[float, object]:
    """Median time of ``fn(k)`` over ``k = 1..repeats`` after a warm-up ``fn(0)``."""
    out = fn(0)
    times = []
    for k in range(1, repeats + 1):
        t0 = time.perf_counter()
        out = fn(k)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def gamma_with(acc: object, p: float, n: int, sigma: float) -> np.ndarray:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "add")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return np.asarray(rero.gamma(acc.compose(m, n), KAPPA))


def peak_memory(p: float, n: int, sigma: float) -> int:
    gamma_with(A.Edgeworth(order=4), p, n, sigma)  # warm the lazy imports
    tracemalloc.start()
    try:
        gamma_with(A.Edgeworth(order=4), p, n, sigma)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run_setting(p: float, n: int, sigma: float) -> dict[str, object]:
    out: dict[str, object] = {"p": p, "N": n, "sigma": sigma}
    t0 = time.perf_counter()
    gt_curve = rero.add_pair_curve(M.SubsampledGaussian(sigma=sigma, p=p), n)
    gt = np.asarray(rero.gamma(gt_curve, KAPPA))
    lo, hi = rero.gamma_bounds(gt_curve, KAPPA)
    out["Numerical_s"] = time.perf_counter() - t0
    out["Numerical_max_rel_halfwidth"] = float(np.max((hi - lo) / (2 * gt)))
    for name, acc in (
        ("Edgeworth4", A.Edgeworth(order=4)),
        ("CLT_exp", A.CLT(form="exp")),
        ("SaddlePoint", A.SaddlePoint()),
    ):
        reps = 1 if name == "SaddlePoint" else REPEATS
        seconds, g = timed(
            lambda k, acc=acc: gamma_with(acc, p, n, sigma * (1 + 1e-9 * k)), reps
        )
        out[f"{name}_s"] = seconds
        out[f"{name}_max_rel_err"] = float(np.max(np.abs(np.asarray(g) / gt - 1)))
    out["gamma_at_kappa_1e-7"] = float(gt[0])
    out["gamma_at_kappa_0.1"] = float(gt[-1])
    return out


def monte_carlo_cost(p: float, n: int, sigma: float) -> dict[str, object]:
    r = rero.monte_carlo_gamma(
        KAPPA[-1], sigma=sigma, p=p, n=n, samples=MC_SMALL_S, seed=0
    )
    per_element = r.seconds / r.elements
    elements_per_sample = r.elements / MC_SMALL_S
    return {
        "measured_samples": MC_SMALL_S,
        "measured_s": r.seconds,
        "seconds_per_element": per_element,
        "extrapolated_s_at_S=1e6": per_element * elements_per_sample * PAPER_S,
        "extrapolated_s_at_S=1e9": per_element * elements_per_sample * S_FOR_1E7,
        "original_array_bytes_at_S=1e6": 8 * PAPER_S * n,
        "original_array_bytes_at_S=1e9": 8 * S_FOR_1E7 * n,
        "note": "extrapolation from the measured run (time linear in S x N); "
        "at kappa = 1e-7 and S = 1e6 only ceil(kappa S) = 1 null sample is kept",
    }


def main() -> None:
    details = {}
    for name, p, n, sigma in SETTINGS:
        details[name] = run_setting(p, n, sigma)
        print(name, json.dumps(details[name], indent=1))
    _, p, n, sigma = SETTINGS[0]
    memory = {f"N={k}": peak_memory(p, k, sigma) for k in (1000, 10_000, 100_000)}
    mc = monte_carlo_cost(p, n, sigma)
    main_case = details[SETTINGS[0][0]]
    fastest = min(main_case["Edgeworth4_s"], main_case["SaddlePoint_s"])
    record = {
        "benchmark": "ReRo gamma at ImageNet scale (kappa in [1e-7, 1e-1], 61 points)",
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": _common.machine(),
        "targets": {"fastest_of_Edgeworth4_SaddlePoint_s": TARGET_S},
        "figures": {
            "Edgeworth4_s": main_case["Edgeworth4_s"],
            "SaddlePoint_s": main_case["SaddlePoint_s"],
            "Edgeworth4_peak_bytes": memory,
        },
        "pass": {"fastest_of_Edgeworth4_SaddlePoint_s": fastest <= TARGET_S},
        "details": details,
        "monte_carlo_extrapolated": mc,
    }
    _common.write_json(OUT, record)
    print(json.dumps({k: record[k] for k in ("figures", "pass")}, indent=1))
    print(json.dumps(mc, indent=1))


if __name__ == "__main__":
    main()
