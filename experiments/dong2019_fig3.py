"""Dong et al. (2019), Figure 3: f_{eps,delta} (left) and G_mu for mu = 0.5, 1, 3, 6.

Claims (text beside Fig. 3): "mu = 3 is basically non-private: an adversary can
control type I and type II errors simultaneously at only 0.07"; for mu = 6 "the two
errors both can be as small as 0.001". Both numbers are the fixed point of G_mu,
alpha* = Phi(-mu/2) (Dong et al. 2019, Sec. 2.3).
"""

from __future__ import annotations

from typing import Any

import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_close, claim_holds

SPEC = Spec(
    id="dong2019-fig3",
    title="f_{eps,delta} and G_mu trade-off functions, with their fixed points",
    source="Dong et al. (2019), Fig. 3",
    params={"mus": [0.5, 1.0, 3.0, 6.0], "eps": 1.0, "delta": 0.1, "n_alpha": 1001},
    quick={"n_alpha": 201},
    notes=("The eps, delta of the left panel are not given; eps=1, delta=0.1 used.",),
)


def compute(params: dict[str, Any]) -> Result:
    # Uniform grid plus a log-spaced start, so that G_6 is resolved near the axes.
    alpha = np.union1d(
        np.linspace(0.0, 1.0, params["n_alpha"]), np.logspace(-6, -2, 50)
    )
    rows = _tables.Rows("curve", "param", "alpha", "beta")
    fixed: dict[float, float] = {}
    for mu in params["mus"]:
        g = T.Gaussian(mu)
        rows.add("G_mu", mu, alpha, g(alpha))
        fixed[mu] = T.fixed_point(g)
    f = T.EpsDelta(params["eps"], params["delta"])
    rows.add("f_eps_delta", params["eps"], alpha, f(alpha))
    table = rows.table()
    fp_table = {
        "mu": np.array(list(fixed)),
        "alpha_star": np.array(list(fixed.values())),
    }

    beta_eps = f(alpha)
    symmetric_gap = np.max(np.abs(T.inverse(f)(alpha) - beta_eps))
    # Slopes and intercepts of the two non-trivial pieces, from finite differences
    # of the evaluated curve away from the kinks (x* and 1 - delta).
    eps, delta = params["eps"], params["delta"]
    x_kink = T.fixed_point(f)
    xs_l = np.array([0.25, 0.75]) * x_kink
    xs_r = x_kink + np.array([0.25, 0.75]) * (1 - delta - x_kink)
    slope_l = float(np.diff(f(xs_l))[0] / np.diff(xs_l)[0])
    slope_r = float(np.diff(f(xs_r))[0] / np.diff(xs_r)[0])
    icpt_y = float(f(xs_l[0]) - slope_l * xs_l[0])  # beta-intercept of the steep line
    icpt_x = float(xs_r[0] - f(xs_r[0]) / slope_r)  # alpha-intercept of the flat one
    shape_err = max(
        abs(slope_l + np.exp(eps)) / np.exp(eps),
        abs(slope_r + np.exp(-eps)) / np.exp(-eps),
        abs(icpt_y - (1 - delta)),
        abs(icpt_x - (1 - delta)),
    )
    claims = (
        claim_close(
            "mu3-fixed-point",
            "mu = 3: type I and II errors simultaneously at only 0.07",
            0.07,
            fixed[3.0],
            digits=2,
        ),
        claim_close(
            "mu6-fixed-point",
            "mu = 6: both errors can be as small as 0.001",
            0.001,
            fixed[6.0],
            digits=3,
        ),
        claim_holds(
            "f-eps-delta-symmetric",
            "f_{eps,delta} is symmetric about y = x (Fig. 3 left)",
            "symmetric",
            f"max |f^-1 - f| = {symmetric_gap:.1e}",
            symmetric_gap < 1e-9,
            "max over the alpha grid of |f^{-1}(alpha) - f(alpha)| < 1e-9",
        ),
        claim_holds(
            "f-eps-delta-slopes",
            "f_{eps,delta} is piecewise linear with (nontrivial) slopes -e^{+-eps} "
            "and intercepts 1 - delta (Fig. 3 left)",
            "slopes -e^{+-eps}, intercepts 1 - delta",
            f"slopes {slope_l:.6f}, {slope_r:.6f}; intercepts {icpt_y:.6f} "
            f"(beta), {icpt_x:.6f} (alpha); max error {shape_err:.1e}",
            shape_err < 1e-9,
            "difference quotients on each piece equal -e^{eps} and -e^{-eps} "
            "(relative) and the lines meet the axes at 1 - delta, to 1e-9",
        ),
    )
    return Result({"data": table, "fixed_points": fp_table}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3.6))
    sel = data["curve"] == "f_eps_delta"
    left.plot(data["alpha"][sel], data["beta"][sel], color="C3")
    left.set_title(
        rf"$f_{{\varepsilon,\delta}}$, $\varepsilon={params['eps']:g}$, "
        rf"$\delta={params['delta']:g}$"
    )
    for k, mu in enumerate(params["mus"]):
        sel = (data["curve"] == "G_mu") & np.isclose(data["param"], mu)
        right.plot(
            data["alpha"][sel], data["beta"][sel], color=f"C{k}", label=rf"$\mu={mu:g}$"
        )
    fp = tables["fixed_points"]
    right.plot(
        fp["alpha_star"], fp["alpha_star"], "k.", label=r"fixed point $\alpha^*$"
    )
    right.set_title(r"$G_\mu$")
    right.legend()
    for ax in (left, right):
        ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
        _style.unit_square(ax, _style.SYMBOLS, legend=None)
    return fig
