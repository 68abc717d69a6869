"""Kaissis et al. (2023), appendix Figure 2: ReRo in CIFAR-10 and ImageNet-style runs.

Four panels of gamma against kappa in [1e-7, 1e-1]: CIFAR-10 "with hyperparameters
taken from Table 13 of [26]" (top left) and "an even smaller sampling rate" (top
right); ImageNet "with the hyperparameters from Table 15 of [26]" (bottom left) and
"an even smaller batch size" (bottom right, "identical to Figure 1, panel e").
Claims: the Edgeworth and CLT approximations "yield identical results", while "the
MC technique of [11] would not be usable due to an impracticably high number of MC
samples" and "the numerical ground truth would take on the order of weeks".
"""

from __future__ import annotations

import math
import time
from typing import Any

import _approx
import _tables
import matplotlib.pyplot as plt
import mpmath as mp
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import rero
from symfdp.reproduce import Result, Spec, claim_holds

#: Largest |log10(CLT / EW)| that is invisible on log axes (2.3 %).
LOG_INVISIBLE = 0.01
#: Memory of the paper's machine (64 GB), bytes.
PAPER_MEMORY = 64e9
#: One day, seconds.
WEEK = 7 * 86400.0
DAY = 86_400.0

SPEC = Spec(
    id="kaissis2023-fig2",
    title="ReRo bounds for CIFAR-10 and ImageNet-style DP-SGD runs (EW vs CLT)",
    source="Kaissis et al. (2023), App. 4.2, Fig. 2",
    params={
        "panels": [
            ["CIFAR-10 config", 4096, 50_000, 875, 10.0],
            ["CIFAR-10, smaller p", 1024, 50_000, 875, 10.0],
            ["ImageNet config", 16384, 1_281_167, 71_589, 2.5],
            ["ImageNet, smaller batch", 4096, 1_281_167, 71_589, 2.5],
        ],
        "kappa_points": 25,
        "paper_mc_samples": 1_000_000,
        "kept_needed": 100,
        "gt_grid_points": 1000,
        "quad_repeats": 3,
        "mc_probe_samples": 100,
    },
    quick={"kappa_points": 7, "quad_repeats": 1, "mc_probe_samples": 20},
    notes=(
        "Hyperparameters: the text of De et al.'s Tables 13 and 15 is not in the "
        "sources. Used instead (TARGETS.md section 5): the jax_privacy configs of the "
        "same authors, CIFAR-10 WRN-16-4 at (1, 1e-5): batch 4096 of 50,000 "
        "(p = 0.08192), 875 updates, noise multiplier 10; ImageNet NF-ResNet-50 at "
        "(8, 8e-7): batch 16384 of 1,281,167 (p = 0.012788), 71,589 updates, noise "
        "multiplier 2.5. They are configs, not verified table rows.",
        "'Even smaller' settings are our choice: CIFAR-10 batch 1024 (p = 0.02048) "
        "and ImageNet batch 4096 (p = 0.0031971), each with the same steps and noise "
        "multiplier (so a smaller eps).",
        "As in Fig. 1e (which this figure's bottom right repeats), both dominating "
        "pairs are used and symmetrised (PrivacyCurve.tradeoff, symmetric=True). "
        "symfdp's certified Numerical accountant is drawn too: it takes well under a "
        "second here (info), unlike the paper's mpmath recursion.",
        "Ground-truth cost as the paper ran it: G = 1000 grid points times N steps "
        "mpmath integrations at 25 digits (App. 4.3), each timed here as one "
        "mp.quad of the subsampled-Gaussian output density against a smooth kernel "
        "of the loss (the shape of one recursion integral); the total is an "
        "extrapolation.",
        "MC cost: the S needed to keep 100 null samples beyond the threshold at "
        "kappa = 1e-7 is 1e9 (at the paper's S = 1e6 it keeps ceil(0.1) = 1); its "
        "S x N float64 array and its time are extrapolated from a measured short run "
        "of rero.monte_carlo_gamma (time linear in S N).",
    ),
)


def _quad_seconds(repeats: int) -> float:
    """Seconds of one 25-digit mpmath integral of the recursion's shape."""
    with mp.workdps(25):
        p, mu = mp.mpf(4096) / 50000, mp.mpf(1) / 10

        def integrand(x: Any) -> Any:
            loss = mp.log(1 - p + p * mp.exp(mu * x - mu**2 / 2))
            dens = (1 - p) * mp.npdf(x) + p * mp.npdf(x - mu)
            return dens * mp.ncdf(mp.mpf("0.3") - loss)

        t0 = time.perf_counter()
        for _ in range(repeats):
            mp.quad(integrand, [-mp.inf, 0, mp.inf])
        return (time.perf_counter() - t0) / repeats


def compute(params: dict[str, Any]) -> Result:
    kappa = np.logspace(-7, -1, params["kappa_points"])
    cols = _tables.Rows("panel", "curve", "kappa", "gamma")
    cost = _tables.Rows(
        "panel",
        "p",
        "N",
        "sigma",
        "eps_1e-5",
        "ew_s",
        "gt_s",
        "max_log_gap",
        "ew_vs_gt",
        "clt_vs_gt",
        "mc_s_per_sample",
        "mc_bytes_needed",
        "mc_seconds_needed",
        "gt_paper_seconds",
    )
    t_quad = _quad_seconds(params["quad_repeats"])
    rero.monte_carlo_gamma(0.1, mu=1.0, samples=10, seed=0)  # warm the lazy imports
    s_needed = math.ceil(params["kept_needed"] / 1e-7)
    for name, batch, size, n, sigma in params["panels"]:
        p = batch / size
        m = M.SubsampledGaussian(sigma=sigma, p=p)
        gammas, seconds = {}, {}
        for label, acc in (
            ("EW4", A.Edgeworth(order=4)),
            ("CLT", A.CLT(form="exp")),
            ("GT", A.Numerical()),
        ):
            t0 = time.perf_counter()
            curve = _approx.quietly(lambda acc=acc, m=m, n=n: acc.compose(m, n))
            gammas[label] = np.asarray(
                _approx.quietly(lambda c=curve: rero.gamma(c, kappa, symmetric=True))
            )
            seconds[label] = time.perf_counter() - t0
            if label == "GT":
                eps = float(curve.epsilon(1e-5))
            cols.add(name, label, kappa, gammas[label])
        probe = rero.monte_carlo_gamma(
            0.1, sigma=sigma, p=p, n=n, samples=params["mc_probe_samples"], seed=0
        )
        per_sample = probe.seconds / probe.samples
        gt = gammas["GT"]
        row = {
            "panel": name,
            "p": p,
            "N": n,
            "sigma": sigma,
            "eps_1e-5": eps,
            "ew_s": seconds["EW4"],
            "gt_s": seconds["GT"],
            "max_log_gap": float(
                np.max(np.abs(np.log10(gammas["CLT"] / gammas["EW4"])))
            ),
            "ew_vs_gt": float(np.max(np.abs(gammas["EW4"] / gt - 1))),
            "clt_vs_gt": float(np.max(np.abs(gammas["CLT"] / gt - 1))),
            "mc_s_per_sample": per_sample,
            "mc_bytes_needed": 8.0 * s_needed * n,
            "mc_seconds_needed": per_sample * s_needed,
            "gt_paper_seconds": params["gt_grid_points"] * n * t_quad,
        }
        cost.add(**row)
    data = cols.table()
    costs = cost.table()
    claims = _claims(params, costs, s_needed, t_quad)
    info = {"seconds_per_mpmath_quad": t_quad, "mc_samples_needed": s_needed}
    return Result({"data": data, "costs": costs}, claims, info)


def _claims(params: dict, c: dict, s_needed: int, t_quad: float) -> tuple:
    kept_paper = math.ceil(1e-7 * params["paper_mc_samples"])
    gap = ", ".join(
        f"{n}: {g:.4f}" for n, g in zip(c["panel"], c["max_log_gap"], strict=True)
    )
    mem = ", ".join(
        f"{n}: {b / 1e12:.3g} TB, {s / DAY:.3g} days"
        for n, b, s in zip(
            c["panel"], c["mc_bytes_needed"], c["mc_seconds_needed"], strict=True
        )
    )
    days = ", ".join(
        f"{n}: {s / DAY:.3g} days (ours {g:.2f} s)"
        for n, s, g in zip(c["panel"], c["gt_paper_seconds"], c["gt_s"], strict=True)
    )
    imagenet = np.array([str(n).startswith("ImageNet") for n in c["panel"]])
    days_cifar = ", ".join(
        f"{n}: {s / DAY:.3g} days"
        for n, s, keep in zip(c["panel"], c["gt_paper_seconds"], ~imagenet, strict=True)
        if keep
    )
    n_week_cifar = WEEK / (params["gt_grid_points"] * t_quad)
    return (
        claim_holds(
            "ew-clt-identical",
            "The Edgeworth and CLT approximations 'yield identical results' "
            "(all four panels, kappa in [1e-7, 1e-1])",
            "identical",
            f"max |log10(CLT/EW)|: {gap}",
            bool(np.all(c["max_log_gap"] <= LOG_INVISIBLE)),
            f"max over kappa of |log10(gamma_CLT / gamma_EW)| <= {LOG_INVISIBLE} "
            "(2.3 %, invisible on log axes) in every panel",
        ),
        claim_holds(
            "mc-infeasible",
            "The MC technique of [11] 'would not be usable due to an impracticably "
            "high number of MC samples required'",
            "impracticable",
            f"S = 1e6 keeps {kept_paper} null sample at kappa = 1e-7; "
            f"S = {s_needed:.0e} (100 kept) needs {mem}",
            kept_paper <= 1 and bool(np.all(c["mc_bytes_needed"] > PAPER_MEMORY)),
            "at the paper's S = 1e6 at most one null sample lies beyond the "
            "kappa = 1e-7 threshold, and the S keeping 100 needs an S x N array "
            "larger than the paper's 64 GB in every panel (time extrapolated from a "
            "measured run)",
        ),
        claim_holds(
            "gt-weeks-imagenet",
            "The numerical ground truth 'would take on the order of weeks' "
            "(ImageNet-scale panels)",
            "order of weeks",
            f"G N x {t_quad * 1e3:.0f} ms per 25-digit mp.quad: {days}",
            bool(np.all(c["gt_paper_seconds"][imagenet] >= WEEK)),
            "extrapolated single-core cost of G = 1000 x N mpmath integrations "
            ">= 1 week in both ImageNet panels",
            timed=True,
        ),
        claim_holds(
            "gt-weeks-cifar",
            "The numerical ground truth 'would take on the order of weeks' "
            "(CIFAR-10 panels)",
            "order of weeks",
            f"{days_cifar} (needs N >= {n_week_cifar:,.0f} steps for a week)",
            bool(np.all(c["gt_paper_seconds"][~imagenet] >= WEEK)),
            "extrapolated single-core cost of G = 1000 x N mpmath integrations "
            ">= 1 week in both CIFAR-10 panels",
            source_error=(
                "for the CIFAR-10 panels the paper's own cost model (G = 1000 grid "
                "points x N steps of 25-digit integrations) gives days, not weeks, at "
                "the step counts on record for these runs (875 in the jax_privacy "
                "config; 2,500 in the TAN reference setting); a week needs an order "
                "of magnitude more steps. The statement holds for the ImageNet panels."
            ),
            finding="kaissis2023-gt-weeks-cifar",
            timed=True,
        ),
    )


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data, costs = tables["data"], tables["costs"]
    fig, axes = plt.subplots(2, 2, figsize=(10.0, 8.0))
    for ax, k in zip(axes.flat, range(len(params["panels"])), strict=True):
        name = params["panels"][k][0]
        for label, style, colour, text in (
            ("EW4", "-", "C0", "Edgeworth (4th)"),
            ("CLT", "--", "C1", "CLT"),
            ("GT", ":", "k", "Numerical (not in paper)"),
        ):
            sel = (data["panel"] == name) & (data["curve"] == label)
            ax.loglog(
                data["kappa"][sel],
                data["gamma"][sel],
                style,
                color=colour,
                lw=1.6,
                label=text,
            )
        row = costs["panel"] == name
        p, n, s = (float(costs[c][row][0]) for c in ("p", "N", "sigma"))
        eps = float(costs["eps_1e-5"][row][0])
        ax.set_title(
            f"{name}: $p={p:.4g}$, $N={n:.0f}$, $\\sigma={s:g}$\n"
            f"($\\varepsilon={eps:.2f}$ at $\\delta=10^{{-5}}$)",
            fontsize=10,
        )
        ax.set(xlabel=r"prior $\kappa$", ylabel=r"$\gamma$ (symmetrised)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
