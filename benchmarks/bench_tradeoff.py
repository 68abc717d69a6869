"""Benchmark the trade-off calculus: C_p(G_mu) on 10^4 points.

Run: ``python benchmarks/bench_tradeoff.py`` (writes
benchmarks/results/tradeoff.json and prints a table). Each figure is the median
over repeats in one process.

Measured, side by side, for (mu, p) = (1.8, 0.35) (Dong et al. 2019, Fig. 6
left) and (1.0, 0.01) (a DP-SGD step), on ``alpha = linspace(0, 1, 10^4)``:

- ``eq14``: ``T.Subsampled(T.Gaussian(mu), p)(alpha)`` on a built object (eq. (14)
  with the Newton mixture quantile); target <= 5 ms.
- ``eq14_cold``: the same including construction (fixed point, corner).
- ``hull_eval`` / ``hull_build``: the generic ``T.Symmetrized(T.Mixture(...))``
  (grid hull with exact evaluation off the bridges).
- ``tabulated_hull``: the purely tabulated route (f_p on the alpha grid, its
  tabulated inverse, ``convex_minorant``, ``np.interp``), as
  ``PrivacyCurve._symmetrised`` does it.
- ``gaussian_floor``: ``G_mu`` alone (one ndtri + one ndtr per point).

Accuracy: max |difference| to eq. (14) on the same points.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import _common
import numpy as np

from symfdp import tradeoff as T
from symfdp.numeric.tabulate import alpha_grid, convex_minorant, tabulated_inverse

TARGET_S = 5e-3
N_POINTS = 10**4
REPEATS = 60
CASES = ((1.8, 0.35), (1.0, 0.01))
OUT = Path(__file__).resolve().parent / "results" / "tradeoff.json"


def median_time(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median over ``repeats`` calls after a warm-up."""
    return _common.median_time(fn, repeats)[0]


def tabulated_hull(mu: float, p: float, alpha: np.ndarray) -> np.ndarray:
    grid = alpha_grid()
    fp = T.Mixture(T.Gaussian(mu), p)
    beta = fp(grid)
    lower = np.minimum(beta, tabulated_inverse(grid, beta, grid))
    return np.interp(alpha, grid, convex_minorant(grid, lower))


def run_case(mu: float, p: float) -> dict[str, float]:
    alpha = np.linspace(0.0, 1.0, N_POINTS)
    warm = T.Subsampled(T.Gaussian(mu), p)
    ref = warm(alpha)
    hull = T.Symmetrized(T.Mixture(T.Gaussian(mu), p))
    t0 = time.perf_counter()
    hull(alpha)  # builds the bridges
    build = time.perf_counter() - t0
    out = {
        "eq14_s": median_time(lambda: warm(alpha)),
        "eq14_cold_s": median_time(lambda: T.Subsampled(T.Gaussian(mu), p)(alpha)),
        "hull_eval_s": median_time(lambda: hull(alpha)),
        "hull_build_s": build,
        "tabulated_hull_s": median_time(lambda: tabulated_hull(mu, p, alpha), 20),
        "gaussian_floor_s": median_time(lambda: T.Gaussian(mu)(alpha)),
        "hull_max_abs_diff": float(np.max(np.abs(hull(alpha) - ref))),
        "tabulated_hull_max_abs_diff": float(
            np.max(np.abs(tabulated_hull(mu, p, alpha) - ref))
        ),
    }
    return out


def main() -> int:
    details = {f"mu={mu},p={p}": run_case(mu, p) for mu, p in CASES}
    worst = max(d["eq14_s"] for d in details.values())
    record = {
        "benchmark": "trade-off calculus: C_p(G_mu) on 10^4 points",
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": _common.machine(),
        "n_points": N_POINTS,
        "repeats": REPEATS,
        "targets": {"eq14_s": TARGET_S},
        "figures": {"eq14_s": worst},
        "pass": {"eq14_s": worst <= TARGET_S},
        "details": details,
    }
    _common.write_json(OUT, record)
    print(f"{'case':<16}" + "".join(f"{k:>28}" for k in next(iter(details.values()))))
    for case, d in details.items():
        cells = "".join(
            f"{v * 1e3:>25.3f} ms" if k.endswith("_s") else f"{v:>28.2e}"
            for k, v in d.items()
        )
        print(f"{case:<16}{cells}")
    verdict = "PASS" if record["pass"]["eq14_s"] else "FAIL"
    print(f"eq. (14) worst median {worst * 1e3:.3f} ms (target {TARGET_S * 1e3} ms)")
    print(f"{verdict}; wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
