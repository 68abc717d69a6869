"""eps(1e-5) against sigma: random allocation, Poisson subsampling and the limits.

Run: ``python benchmarks/figure_random_allocation.py [--t T] [--quick]`` (with
``pld-accounting`` installed in the same interpreter to add the peer's
bracket). Writes ``benchmarks/results/random_allocation_figure.csv`` and
``.png``: for one epoch of ``t`` steps (balls in bins, Gaussian noise,
add-or-remove adjacency) and each sigma, symfdp's certified bracket for random
allocation, ``A.Numerical``'s for Poisson subsampling at rate 1/t over t steps,
pld-accounting's bracket, the large-noise Gaussian approximation
(``samplers.limits.gdp_mu``) and the small-noise certified lower bound
(``samplers.limits.small_noise_lower_delta``, inverted). This is the
comparison of Feldman & Shenfeld (arXiv 2502.08202 and 2602.17284: eps of
random allocation and Poisson against sigma), recomputed, not copied.
"""

from __future__ import annotations

import argparse
import csv
import math
from collections.abc import Callable
from pathlib import Path

import _common
import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.samplers import limits, random_allocation

DELTA = 1e-5
SIGMAS = (0.5, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0)


def _invert(fn: Callable[[float], ArrayLike], hi: float = 60.0) -> float:
    """The eps where the decreasing ``fn(eps)`` crosses DELTA (0 if below)."""
    if float(np.asarray(fn(0.0))) <= DELTA:
        return 0.0
    return float(optimize.brentq(lambda e: float(np.asarray(fn(e))) - DELTA, 0.0, hi))


def _peer(sigma: float, t: int) -> tuple[float, float] | None:
    try:
        from PLD_accounting import gaussian_allocation_epsilon_range
    except ImportError:
        return None
    hi, lo = gaussian_allocation_epsilon_range(delta=DELTA, sigma=sigma, num_steps=t)
    return float(lo), float(hi)


def rows(t: int, sigmas: tuple[float, ...]) -> list[dict[str, float]]:
    out = []
    for sigma in sigmas:
        ra = random_allocation(M.Gaussian(sigma=sigma), t=t).epsilon_bounds(DELTA)
        sub = M.SubsampledGaussian(sigma=sigma, p=1 / t)
        po = A.Numerical().compose(sub, n=t).epsilon_bounds(DELTA)
        mu = limits.gdp_mu(sigma, t)
        peer = _peer(sigma, t)
        row = {
            "sigma": sigma,
            "t": t,
            "ra_lo": float(ra[0]),
            "ra_hi": float(ra[1]),
            "poisson_lo": float(po[0]),
            "poisson_hi": float(po[1]),
            "gdp_limit": _invert(lambda e, mu=mu: limits.gdp_delta(mu, e)),
            "small_noise_lower": _invert(
                lambda e, s=sigma: limits.small_noise_lower_delta(s, t, e)
            ),
            "peer_lo": math.nan if peer is None else peer[0],
            "peer_hi": math.nan if peer is None else peer[1],
        }
        out.append(row)
        print({k: round(v, 5) for k, v in row.items()}, flush=True)
    return out


def plot(data: list[dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = np.array([r["sigma"] for r in data])
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label, style in (
        ("ra", "random allocation (symfdp, certified)", "C0-"),
        ("poisson", "Poisson, rate 1/t (symfdp, certified)", "C1--"),
        ("peer", "random allocation (pld-accounting)", "C2:"),
    ):
        lo = np.array([r[f"{key}_lo"] for r in data])
        hi = np.array([r[f"{key}_hi"] for r in data])
        ax.plot(s, hi, style, label=label)
        ax.fill_between(s, lo, hi, color=style[:2], alpha=0.3)
    ax.plot(s, [r["gdp_limit"] for r in data], "k-.", lw=1, label="large-noise limit")
    small = [r["small_noise_lower"] or math.nan for r in data]  # 0: no bound
    ax.plot(
        s,
        small,
        "k:",
        lw=1,
        label="small-noise lower bound",
    )
    ax.set_xlabel("sigma")
    ax.set_ylabel(f"eps at delta = {DELTA:g}")
    ax.set_yscale("log")
    ax.set_title(f"one epoch of t = {int(data[0]['t'])} steps")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t", type=int, default=100)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--out",
        type=Path,
        default=_common.ROOT / "benchmarks" / "results" / "random_allocation_figure",
    )
    ns = parser.parse_args()
    data = rows(ns.t, SIGMAS[::3] if ns.quick else SIGMAS)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    with ns.out.with_suffix(".csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(data[0]))
        writer.writeheader()
        writer.writerows(data)
    plot(data, ns.out.with_suffix(".png"))


if __name__ == "__main__":
    main()
