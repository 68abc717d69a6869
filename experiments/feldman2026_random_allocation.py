"""Feldman & Shenfeld (2025, 2026): epsilon of random allocation against Poisson.

"When applied to the Gaussian mechanism, our results demonstrate that the
privacy-utility trade-off for random allocation is at least as good as that of
Poisson subsampling" (arXiv 2602.17284, abstract), and random allocation of one
of t steps "can be upper bounded by the privacy guarantees of ... Poisson
subsampling in which each step uses the user's data with probability
(1 + o(1))k/t" (arXiv 2502.08202, abstract). The papers' comparison figures plot
eps(delta) against sigma for one epoch of balls-in-bins sampling and Poisson
subsampling at rate 1/t.

Recomputed here: for each sigma, the certified bracket of random allocation
(:func:`symfdp.samplers.random_allocation`), the certified bracket of Poisson
subsampling at rate 1/t over t steps (``A.Numerical``), the large-noise Gaussian
approximation (:func:`symfdp.samplers.limits.gdp_mu`) and the small-noise
certified lower bound (:func:`symfdp.samplers.limits.small_noise_lower_delta`),
each inverted at delta. The papers print no table of these values; the claims
check their qualitative statements on the recomputed brackets (the peer
``pld-accounting``'s brackets are compared in the tests and in
``benchmarks/bench_random_allocation.py``).
"""

from __future__ import annotations

from typing import Any

import _tables
import matplotlib.pyplot as plt
import numpy as np
from scipy import optimize

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.reproduce import Result, Spec, claim_holds
from symfdp.samplers import limits, random_allocation

SPEC = Spec(
    id="feldman2026-random-allocation",
    title="eps(1e-5) against sigma: random allocation (balls in bins) and Poisson "
    "subsampling at rate 1/t, one epoch",
    source="Feldman & Shenfeld (2025, arXiv 2502.08202; 2026, arXiv 2602.17284), "
    "comparison of random allocation with Poisson subsampling",
    params={
        "t": 100,
        "delta": 1e-5,
        "sigmas": [0.5, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0],
    },
    quick={"sigmas": [0.5, 1.0, 2.0, 3.0]},
    notes=(
        "Gaussian noise of sensitivity 1, add-or-remove adjacency, one epoch of t "
        "steps, each example in exactly one step (k = 1).",
        "Poisson subsampling at rate 1/t is the papers' baseline; both brackets are "
        "certified (A.Numerical's defaults).",
        "The limits are inverted at delta by Brent's method; a small-noise bound "
        "that stays below delta at eps = 0 gives no bound (plotted as absent).",
    ),
)


def _invert(profile: Any, delta: float, hi: float = 60.0) -> float:
    """The eps where the decreasing ``profile(eps)`` crosses ``delta`` (0 if below)."""
    if float(np.asarray(profile(0.0))) <= delta:
        return 0.0
    return float(
        optimize.brentq(lambda e: float(np.asarray(profile(e))) - delta, 0.0, hi)
    )


def compute(params: dict[str, Any]) -> Result:
    t, delta = int(params["t"]), float(params["delta"])
    rows = _tables.Rows(
        "sigma",
        "ra_lo",
        "ra_hi",
        "poisson_lo",
        "poisson_hi",
        "gdp_limit",
        "small_noise_lower",
    )
    for sigma in params["sigmas"]:
        ra = random_allocation(M.Gaussian(sigma=sigma), t=t).epsilon_bounds(delta)
        sub = M.SubsampledGaussian(sigma=sigma, p=1 / t)
        po = A.Numerical().compose(sub, n=t).epsilon_bounds(delta)
        mu = limits.gdp_mu(sigma, t)
        rows.add(
            sigma=sigma,
            ra_lo=float(ra[0]),
            ra_hi=float(ra[1]),
            poisson_lo=float(po[0]),
            poisson_hi=float(po[1]),
            gdp_limit=_invert(lambda e, mu=mu: limits.gdp_delta(mu, e), delta),
            small_noise_lower=_invert(
                lambda e, s=sigma: limits.small_noise_lower_delta(s, t, e), delta
            ),
        )
    data = rows.table()
    return Result({"data": data}, _claims(data))


def _claims(d: dict[str, np.ndarray]) -> tuple:
    sig = d["sigma"]
    ratio = d["ra_hi"] / d["poisson_lo"]
    gap = np.abs(d["gdp_limit"] - 0.5 * (d["ra_lo"] + d["ra_hi"])) / d["ra_hi"]
    small = d["small_noise_lower"] > 0
    return (
        claim_holds(
            "ra-below-poisson",
            "For the Gaussian mechanism, random allocation is at least as good as "
            "Poisson subsampling (arXiv 2602.17284)",
            "eps(random allocation) <= eps(Poisson, rate 1/t)",
            ", ".join(f"sigma={s:g}: {r:.3f}" for s, r in zip(sig, ratio, strict=True))
            + " (random allocation's upper end / Poisson's lower end)",
            bool(np.all(d["ra_hi"] <= d["poisson_lo"])),
            "certified upper end of random allocation <= certified lower end of "
            "Poisson at every sigma of the grid",
        ),
        claim_holds(
            "poisson-rate-limit",
            "Random allocation is bounded by Poisson subsampling at rate "
            "(1 + o(1))k/t (arXiv 2502.08202): the two agree as sigma grows",
            "ratio -> 1",
            f"ratio {ratio[0]:.3f} at sigma={sig[0]:g}, {ratio[-1]:.3f} at "
            f"sigma={sig[-1]:g}",
            bool(ratio[-1] > ratio[0] and ratio[-1] > 0.9),
            "the ratio of the brackets rises with sigma and exceeds 0.9 at the "
            "largest sigma",
        ),
        claim_holds(
            "limits-bracket",
            "The large-noise Gaussian limit approaches the certified answer as sigma "
            "grows; the small-noise lower bound holds and is tight as sigma -> 0",
            "limits of arXiv 2502.08202 (Poisson-domination rate; one step decides)",
            f"large-noise relative gap {gap[0]:.2f} -> {gap[-1]:.3f}; small-noise "
            f"bound / upper end {d['small_noise_lower'][0] / d['ra_hi'][0]:.4f} at "
            f"sigma={sig[0]:g}",
            bool(
                gap[-1] < gap[0]
                and gap[-1] < 0.02
                and np.all(d["small_noise_lower"][small] <= d["ra_hi"][small])
                and d["small_noise_lower"][0] >= 0.99 * d["ra_lo"][0]
            ),
            "large-noise gap falls below 2% at the largest sigma; the small-noise "
            "bound lies below every certified upper end and within 1% of the lower "
            "end at the smallest sigma",
        ),
    )


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    d = tables["data"]
    s = d["sigma"]
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    for key, label, colour in (
        ("ra", "random allocation (certified)", "C0"),
        ("poisson", "Poisson, rate 1/t (certified)", "C1"),
    ):
        ax.plot(s, d[f"{key}_hi"], "-", color=colour, label=label)
        ax.fill_between(s, d[f"{key}_lo"], d[f"{key}_hi"], color=colour, alpha=0.3)
    ax.plot(s, d["gdp_limit"], "k-.", lw=1, label="large-noise limit")
    small = np.where(d["small_noise_lower"] > 0, d["small_noise_lower"], np.nan)
    ax.plot(s, small, "k:v", lw=1, ms=4, label="small-noise lower bound")
    ax.set_xlabel(r"$\sigma$")
    exponent = round(float(np.log10(params["delta"])))
    ax.set_ylabel(rf"$\varepsilon$ at $\delta = 10^{{{exponent}}}$")
    ax.set_yscale("log")
    ax.set_title(f"one epoch of t = {params['t']} steps, Gaussian noise")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
