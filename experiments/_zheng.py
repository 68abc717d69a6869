r"""Shared pieces of the Zheng et al. (2020) experiments.

* the settings: the authors' alpha grid, the Laplace problem
  Lap(0,1)^n vs Lap(c/sqrt(n),1)^n (Sec. 5.2) and the NoisySGD problem
  g = (p G_{1/sigma} + (1-p) Id)^n with p = p0/n^{p_power} (Sec. 5.3), whose
  single step is the add pair of the subsampled Gaussian (Lemma C.1);
* :func:`compare_methods`: the three estimates Numerical (certified FFT, with
  its bracket), Edgeworth (degree 2) and CLT on the authors' alpha grid for
  every n, with the mean and sup of |method - Numerical| (:class:`Comparison`);
* the criteria and claims that Figs. 5.3, 5.4, E.1 and E.2 share;
* the standard panel figure: one unit square per n with the three curves in
  the paper's colours (Numerical black, Edgeworth red, CLT blue dashed);
* the whole of App. E (Figs. E.1 and E.2 differ only in the symmetrisation).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.reproduce import Claim, Result, claim_holds

METHODS = ("Numerical", "Edgeworth", "CLT")
COLOURS = {"Numerical": "k", "Edgeworth": "r", "CLT": "b"}
STYLES = {"Numerical": "-", "Edgeworth": "-", "CLT": "--"}
WIDTHS = {"Numerical": 2.6, "Edgeworth": 1.5, "CLT": 1.5}


# ----------------------------------------------------------------- settings
def authors_alpha_grid(n_alpha: int, alpha_min: float) -> np.ndarray:
    """linspace(alpha_min, 1 - alpha_min, n_alpha), as in the authors' code."""
    return np.linspace(alpha_min, 1.0 - alpha_min, n_alpha)


def laplace(params: dict[str, Any], n: int) -> M.Laplace:
    """Lap(0,1) vs Lap(theta,1) with theta = c/sqrt(n) (Sec. 5.2)."""
    return M.Laplace(mu=params["c"] / math.sqrt(n))


def sampling_rate(params: dict[str, Any], n: int) -> float:
    """p = p0/n^{p_power} (Sec. 5.3 and App. E)."""
    return params["p0"] / n ** params["p_power"]


def noisy_sgd(params: dict[str, Any], n: int) -> M.SubsampledGaussian:
    """The add pair N(0,1) vs p N(1/sigma,1) + (1-p) N(0,1) at p = p0/n^{p_power},
    whose trade-off is p G_{1/sigma} + (1-p) Id (Lemma C.1)."""
    return M.with_adjacency(
        M.SubsampledGaussian(sigma=params["sigma"], p=sampling_rate(params, n)), "add"
    )


# ----------------------------------------------------------------- curves
@dataclass
class Comparison:
    """Numerical, Edgeworth and CLT trade-offs on one alpha grid, per n.

    ``curves[n]`` holds the three estimates and the certified bracket
    ("Numerical lower", "Numerical upper"); ``errors[n]`` the mean and sup over
    alpha of |Edgeworth - Numerical| and |CLT - Numerical| (fields may be
    added before the tables are made); ``widths[n]`` the largest bracket width;
    ``clt[n]`` the CLT PrivacyCurve (its ``info`` holds mu).
    """

    alpha: np.ndarray
    curves: dict[int, dict[str, np.ndarray]] = field(default_factory=dict)
    errors: dict[int, dict[str, float]] = field(default_factory=dict)
    widths: dict[int, float] = field(default_factory=dict)
    clt: dict[int, Any] = field(default_factory=dict)

    def data_table(self) -> _tables.Table:
        """Tidy (n, method, alpha, beta) rows of every curve."""
        rows = _tables.Rows("n", "method", "alpha", "beta")
        for n, curves in self.curves.items():
            for name, beta in curves.items():
                rows.add(n=n, method=name, alpha=self.alpha, beta=beta)
        return rows.table()

    def errors_table(self) -> _tables.Table:
        """One row per n: the error fields and the Numerical bracket width."""
        return {
            **_tables.keyed_table(self.errors),
            "numerical_bracket_width": np.array([self.widths[n] for n in self.errors]),
        }


def compare_methods(
    params: dict[str, Any],
    setting: Callable[[dict[str, Any], int], Any],
    *,
    symmetric: bool,
    clt: Any,
) -> Comparison:
    """The three estimates of the n-fold composition of ``setting(params, n)``.

    Args:
        params: ``ns`` (the numbers of compositions) and ``n_alpha``,
            ``alpha_min`` (:func:`authors_alpha_grid`, the type I errors).
        setting: (params, n) -> the single-step mechanism, e.g. :func:`laplace`
            or :func:`noisy_sgd`.
        symmetric: Each method's symmetrised curve min{g, g^{-1}}** (and the
            bracket of the symmetrised Numerical curve) if True, else the raw
            g of the first pair (``PrivacyCurve.tradeoff(alpha, symmetric=False)``).
            The CLT curve G_mu is symmetric either way.
        clt: The CLT accountant (``A.CLT()`` uses mu_n of eq. (3.4),
            ``A.CLT(form="exp")`` mu = p sqrt(n (e^{1/sigma^2} - 1))).
    """
    alpha = authors_alpha_grid(params["n_alpha"], params["alpha_min"])
    out = Comparison(alpha)
    for n in params["ns"]:
        mech = setting(params, n)
        num = A.Numerical().compose(mech, n)
        lo, hi = (num if symmetric else num.pairs[0]).tradeoff_bounds(alpha)
        clt_curve = clt.compose(mech, n)
        curves = {
            "Numerical": np.asarray(num.tradeoff(alpha, symmetric=symmetric)),
            "Edgeworth": np.asarray(
                A.Edgeworth(order=2)
                .compose(mech, n)
                .tradeoff(alpha, symmetric=symmetric)
            ),
            "CLT": np.asarray(clt_curve.tradeoff(alpha)),
            "Numerical lower": np.asarray(lo),
            "Numerical upper": np.asarray(hi),
        }
        ref = curves["Numerical"]
        out.curves[n] = curves
        out.clt[n] = clt_curve
        out.widths[n] = float(np.max(hi - lo))
        out.errors[n] = {
            f"{stat}_{m}": float(fn(np.abs(curves[m] - ref)))
            for m in ("Edgeworth", "CLT")
            for stat, fn in (("mean", np.mean), ("sup", np.max))
        }
    return out


# ----------------------------------------------------------------- criteria
def ew_beats_clt(errors: dict[int, dict[str, float]]) -> bool:
    """Both the sup and the mean of |EW - Num| below those of |CLT - Num|, every n."""
    return all(
        v["sup_Edgeworth"] < v["sup_CLT"] and v["mean_Edgeworth"] < v["mean_CLT"]
        for v in errors.values()
    )


def error_summary(errors: dict[int, dict[str, float]], stat: str) -> str:
    """'n=5: EW 0.0123, CLT 0.0456; ...' for stat 'sup' or 'mean'."""
    return "; ".join(
        f"n={n}: EW {v[f'{stat}_Edgeworth']:.4f}, CLT {v[f'{stat}_CLT']:.4f}"
        for n, v in errors.items()
    )


def ew_close_claim(
    claim_id: str,
    statement: str,
    published: str,
    errors: dict[int, dict[str, float]],
    params: dict[str, Any],
    note: str = "",
) -> Claim:
    """Edgeworth is close to Numerical: sup |EW - Num| <= close_sup and
    mean |EW - Num| <= close_mean, every n (``note`` ends the criterion)."""
    ok = all(
        v["sup_Edgeworth"] <= params["close_sup"]
        and v["mean_Edgeworth"] <= params["close_mean"]
        for v in errors.values()
    )
    return claim_holds(
        claim_id,
        statement,
        published,
        f"sup: {error_summary(errors, 'sup')} | mean: {error_summary(errors, 'mean')}",
        ok,
        f"sup_alpha |EW - Num| <= {params['close_sup']:g} and mean_alpha "
        f"|EW - Num| <= {params['close_mean']:g} for every n" + note,
    )


def clt_deviates_claim(
    statement: str,
    published: str,
    errors: dict[int, dict[str, float]],
    params: dict[str, Any],
) -> Claim:
    """The claim "clt-deviates": sup |CLT - Num| >= deviate_sup and >=
    deviate_ratio x sup |EW - Num|, every n."""
    ok = all(
        v["sup_CLT"] >= params["deviate_sup"]
        and v["sup_CLT"] >= params["deviate_ratio"] * v["sup_Edgeworth"]
        for v in errors.values()
    )
    return claim_holds(
        "clt-deviates",
        statement,
        published,
        f"sup: {error_summary(errors, 'sup')}",
        ok,
        f"sup_alpha |CLT - Num| >= {params['deviate_sup']:g} and >= "
        f"{params['deviate_ratio']:g} x sup_alpha |EW - Num| for every n",
    )


# ----------------------------------------------------------------- figures
def panel_axes(
    count: int, cols: int, width: float, row_height: float
) -> tuple[plt.Figure, np.ndarray]:
    """A grid of ``count`` panels, ``cols`` per row (the spare ones hidden)."""
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(width, row_height * rows), squeeze=False
    )
    for ax in axes.ravel()[count:]:
        ax.set_visible(False)
    return fig, axes


def plot_methods(ax: Any, data: _tables.Table, n: int) -> None:
    """The Numerical, Edgeworth and CLT curves of one n, in the paper's styles."""
    for name in METHODS:
        sel = (data["method"] == name) & (data["n"] == n)
        ax.plot(
            data["alpha"][sel],
            data["beta"][sel],
            color=COLOURS[name],
            ls=STYLES[name],
            lw=WIDTHS[name],
            label=name,
        )


def noisy_sgd_figure(
    data: _tables.Table,
    params: dict[str, Any],
    *,
    cols: int,
    width: float,
    row_height: float,
    suptitle: str,
    legend_everywhere: bool = False,
) -> plt.Figure:
    """One panel per n of the NoisySGD comparison (Figs. 5.3, 5.4, E.1, E.2)."""
    ns = params["ns"]
    fig, axes = panel_axes(len(ns), cols, width, row_height)
    for ax, n in zip(axes.ravel(), ns, strict=False):
        plot_methods(ax, data, n)
        _style.unit_square(
            ax,
            (r"$\alpha$", r"$f(\alpha)$"),
            legend="upper right" if legend_everywhere else None,
            title=f"$n = {n}$, $p = {sampling_rate(params, n):.3g}$",
        )
    if not legend_everywhere:
        axes[0, 0].legend(loc="upper right")
    fig.suptitle(suptitle)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------- App. E
def appendix_e_result(params: dict[str, Any], *, symmetric: bool) -> Result:
    """Figs. E.1 (raw g) and E.2 (symmetrised): p = p0/n^{1/2}, where the CLT of
    Bu et al. applies; claim: "we still observe that Edgeworth outperforms CLT"
    (and, for the symmetrised curves, that CLT converges along the panels)."""
    cmp = compare_methods(params, noisy_sgd, symmetric=symmetric, clt=A.CLT(form="exp"))
    e = cmp.errors
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
            ew_beats_clt(e),
            "sup and mean over alpha of |EW - Num| both below those of |CLT - Num| "
            f"for every n (Numerical brackets < {max(cmp.widths.values()):.1e})",
        )
    ]
    if symmetric:
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
    info = {"errors": e, "numerical_bracket_width": cmp.widths}
    tables = {"data": cmp.data_table(), "errors": cmp.errors_table()}
    return Result(tables, tuple(claims), info)


def appendix_e_figure(
    data: _tables.Table, params: dict[str, Any], *, symmetric: bool
) -> plt.Figure:
    """Four panels, two per row, of Fig. E.1 or E.2."""
    curve = r"$\min\{g, g^{-1}\}^{**}$, $g = " if symmetric else r"$g = "
    return noisy_sgd_figure(
        data,
        params,
        cols=2,
        width=7.2,
        row_height=3.6,
        suptitle=curve
        + r"(pG_{1/\sigma} + (1-p)\,\mathrm{Id})^{\otimes n}$, $p = 0.5/n^{1/2}$, "
        + rf"$\sigma = {params['sigma']:g}$",
    )
