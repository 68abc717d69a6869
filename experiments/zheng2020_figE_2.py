"""Zheng et al. (2020), Figure E.2: the privacy bound min{g, g^{-1}}** of n-step
noisy SGD with p = 0.5/n^{1/2} and sigma = 1, four panels.

Appendix E: with p sqrt(n) = 0.5 the CLT of Bu et al. applies (g -> G_mu,
mu = p sqrt(n (e^{1/sigma^2} - 1))), "however, we still observe that Edgeworth
outperforms CLT".
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.reproduce import Result, Spec, claim_holds

SYMMETRIC = True

SPEC = Spec(
    id="zheng2020-figE.2",
    title="Symmetrised NoisySGD bound min{g, g^-1}**, p = 0.5/sqrt(n): Numerical, "
    "Edgeworth, CLT",
    source="Zheng et al. (2020), Fig. E.2 and App. E",
    params={
        "ns": [1, 10, 100, 500],
        "sigma": 1.0,
        "p0": 0.5,
        "p_power": 0.5,
        "n_alpha": 100,
        "alpha_min": 1e-7,
    },
    quick={},
    notes=(
        "The four n are not stated; n = 1, 10, 100, 500 (the range 1-500 of Sec. 5.3) "
        "are drawn.",
        "p = 0.5/sqrt(n), sigma = 1, pair='add' (Lemma C.1); each method's g is "
        "symmetrised as min{g, g^{-1}}** (PrivacyCurve.tradeoff(alpha, "
        "symmetric=True)). CLT is the symmetric G_mu with "
        "mu = p sqrt(n (e^{1/sigma^2} - 1)) = 0.5 sqrt(e - 1) for every n "
        "(A.CLT(form='exp')). Numerical is the certified FFT accountant.",
        "alpha grid linspace(1e-7, 1 - 1e-7, 100) as in the authors' code.",
        "'Outperforms' is read as: both the sup and the mean over alpha of "
        "|EW - Num| are smaller than those of |CLT - Num|, in every panel. The "
        "CLT's convergence in this regime is checked as a strictly decreasing CLT "
        "sup error along the panels' n.",
    ),
)

COLOURS = {"Numerical": "k", "Edgeworth": "r", "CLT": "b"}
STYLES = {"Numerical": "-", "Edgeworth": "-", "CLT": "--"}
WIDTHS = {"Numerical": 2.6, "Edgeworth": 1.5, "CLT": 1.5}


def compute(params: dict[str, Any]) -> Result:
    a0 = params["alpha_min"]
    alpha = np.linspace(a0, 1.0 - a0, params["n_alpha"])
    rows: dict[str, list[Any]] = {"n": [], "method": [], "alpha": [], "beta": []}
    errors: dict[int, dict[str, float]] = {}
    widths: dict[int, float] = {}
    for n in params["ns"]:
        p = params["p0"] / n ** params["p_power"]
        mech = M.SubsampledGaussian(sigma=params["sigma"], p=p, pair="add")
        num = A.Numerical().compose(mech, n)
        lo, hi = (
            num.tradeoff_bounds(alpha)
            if SYMMETRIC
            else num.pairs[0].tradeoff_bounds(alpha)
        )
        curves = {
            "Numerical": np.asarray(num.tradeoff(alpha, symmetric=SYMMETRIC)),
            "Edgeworth": np.asarray(
                A.Edgeworth(order=2)
                .compose(mech, n)
                .tradeoff(alpha, symmetric=SYMMETRIC)
            ),
            "CLT": np.asarray(A.CLT(form="exp").compose(mech, n).tradeoff(alpha)),
            "Numerical lower": np.asarray(lo),
            "Numerical upper": np.asarray(hi),
        }
        widths[n] = float(np.max(hi - lo))
        for name, beta in curves.items():
            rows["n"] += [n] * alpha.size
            rows["method"] += [name] * alpha.size
            rows["alpha"] += list(alpha)
            rows["beta"] += list(beta)
        ref = curves["Numerical"]
        errors[n] = {
            f"{stat}_{m}": float(fn(np.abs(curves[m] - ref)))
            for m in ("Edgeworth", "CLT")
            for stat, fn in (("mean", np.mean), ("sup", np.max))
        }
    table = {k: np.asarray(v) for k, v in rows.items()}
    err_table = {
        "n": np.array(list(errors), dtype=float),
        **{
            key: np.array([errors[n][key] for n in errors])
            for key in next(iter(errors.values()))
        },
        "numerical_bracket_width": np.array([widths[n] for n in errors]),
    }
    e = errors
    better = all(
        v["sup_Edgeworth"] < v["sup_CLT"] and v["mean_Edgeworth"] < v["mean_CLT"]
        for v in e.values()
    )
    ours = "; ".join(
        f"n={n}: sup EW {v['sup_Edgeworth']:.4f} vs CLT {v['sup_CLT']:.4f}, mean EW "
        f"{v['mean_Edgeworth']:.4f} vs CLT {v['mean_CLT']:.4f}"
        for n, v in e.items()
    )
    claims = [
        claim_holds(
            "ew-outperforms-clt",
            "Here p = 0.5/n^{1/2}, where the convergence of CLT is guaranteed; "
            "however, we still observe that Edgeworth outperforms CLT",
            "Edgeworth closer to Numerical than CLT in every panel",
            ours,
            better,
            "sup and mean over alpha of |EW - Num| both below those of |CLT - Num| "
            f"for every n (Numerical brackets < {max(widths.values()):.1e})",
        )
    ]
    if SYMMETRIC:
        sups = [e[n]["sup_CLT"] for n in params["ns"]]
        claims.append(
            claim_holds(
                "clt-converges",
                "p = 0.5/n^{1/2} is the regime where the convergence of CLT is "
                "guaranteed (p sqrt(n) -> 0.5 > 0)",
                "CLT approaches Numerical as n grows",
                "sup|CLT - Num| = "
                + ", ".join(f"{s:.4f}" for s in sups)
                + f" for n = {', '.join(str(n) for n in params['ns'])}",
                bool(np.all(np.diff(sups) < 0)),
                "sup_alpha |CLT - Num| strictly decreasing along the n of the panels",
            )
        )
    info = {"errors": errors, "numerical_bracket_width": widths}
    return Result({"data": table, "errors": err_table}, tuple(claims), info)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    ns = params["ns"]
    cols = 2
    rows = math.ceil(len(ns) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(7.2, 3.6 * rows), squeeze=False)
    for ax, n in zip(axes.ravel(), ns, strict=False):
        for name in ("Numerical", "Edgeworth", "CLT"):
            sel = (data["method"] == name) & (data["n"] == n)
            ax.plot(
                data["alpha"][sel],
                data["beta"][sel],
                color=COLOURS[name],
                ls=STYLES[name],
                lw=WIDTHS[name],
                label=name,
            )
        p = params["p0"] / n ** params["p_power"]
        ax.set(
            xlim=(0, 1),
            ylim=(0, 1),
            aspect="equal",
            title=f"$n = {n}$, $p = {p:.3g}$",
            xlabel=r"$\alpha$",
            ylabel=r"$f(\alpha)$",
        )
    for ax in axes.ravel()[len(ns) :]:
        ax.set_visible(False)
    axes[0, 0].legend(loc="upper right")
    curve = r"$\min\{g, g^{-1}\}^{**}$, $g = " if SYMMETRIC else r"$g = "
    fig.suptitle(
        curve
        + r"(pG_{1/\sigma} + (1-p)\,\mathrm{Id})^{\otimes n}$, $p = 0.5/n^{1/2}$, "
        + rf"$\sigma = {params['sigma']:g}$"
    )
    fig.tight_layout()
    return fig
