"""Dong et al. (2019), Figure 14: "Symm explained. Left panel: x_bar <= f(x_bar).
Right panel: x_bar > f(x_bar)."

Proof of Prop. F.2: a mechanism that is (eps, 1 + f*(-e^eps))-DP for all eps >= 0
is f_env-DP with f_env(x) = max{0, sup_{eps >= 0} 1 - delta(eps) - e^eps x}, and

    f_env = f on [0, x_bar], x_bar + f(x_bar) - x on [x_bar, x_bar + f(x_bar)],
            0 on [x_bar + f(x_bar), 1];

then max{f_env, f_env^{-1}} = Symm(f) (Def. F.1), which proves the proposition.

Computed for the two curves of dong2019-fig13 (g = 0.5 G_2 + 0.5 Id and g^{-1}):
f_env from the privacy profile by Prop. 2.8's envelope of lines (only eps >= 0),
against the piecewise formula, and max{f_env, f_env^{-1}} against Symm(g).
"""

from __future__ import annotations

from typing import Any

import _diagrams
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import tradeoff as T
from symfdp.numeric.tabulate import alpha_grid, tabulated_inverse
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig14",
    title="Symm explained: the envelope f_env of the eps >= 0 guarantees (Prop. F.2)",
    source="Dong et al. (2019), Fig. 14, App. F, Prop. F.2",
    params={"mu": 2.0, "p": 0.5, "n_alpha": 4001, "n_eps": 2001, "eps_max": 15.0},
    quick={"n_alpha": 1001, "n_eps": 801},
    notes=(
        "Same curves as dong2019-fig13. x_bar is known in closed form for them: "
        "the fixed point x* of G_mu for g = f_p, and f_p(x*) for g^{-1} (the "
        "numerical search is in dong2019-fig13).",
        "f_env is T.tradeoff_from_profile(delta, alpha, eps >= 0 grid, "
        "symmetric=False) with delta(eps) = 1 + g*(-e^eps) = T.privacy_profile(g, "
        "eps): lines of slope -e^eps <= -1 only. f_env^{-1} is the tabulated "
        "inverse on the alpha grid joined with numeric.tabulate.alpha_grid "
        "(log-spaced tails), so max{f_env, f_env^{-1}} is compared with Symm(g) "
        "to grid accuracy (1e-4).",
    ),
)


def _symm(g: T.TradeOff, xb: float, alpha: np.ndarray) -> np.ndarray:
    """Def. F.1 with the App. F formula for the first case."""
    gxb = float(g(xb))
    gi = T.inverse(g)(alpha)
    if xb <= gxb:
        return np.where(
            alpha <= xb, g(alpha), np.where(alpha <= gxb, xb + gxb - alpha, gi)
        )
    return np.maximum(g(alpha), gi)


def compute(params: dict[str, Any]) -> Result:
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    eps = np.linspace(0.0, params["eps_max"], params["n_eps"])
    base = T.Gaussian(params["mu"])
    g_left = T.Mixture(base, params["p"])
    x_star = T.fixed_point(base)
    cases = {
        "left": (g_left, x_star),
        "right": (T.inverse(g_left), float(g_left(x_star))),
    }
    rows = _tables.Rows("panel", "curve", "alpha", "beta")
    env_err, symm_err, case_ok = {}, {}, {}
    for panel, (g, xb) in cases.items():
        gxb = float(g(xb))

        def envelope(x: np.ndarray, g: T.TradeOff = g) -> np.ndarray:
            return np.asarray(
                T.tradeoff_from_profile(
                    lambda e: np.asarray(T.privacy_profile(g, e)), x, eps
                )
            )

        env = envelope(alpha)
        # The inverse is tabulated on a grid refined towards both ends, where
        # the curve is steep.
        fine = np.union1d(alpha, alpha_grid())
        env_inv = tabulated_inverse(fine, envelope(fine), alpha)
        formula = np.where(alpha <= xb, g(alpha), np.maximum(xb + gxb - alpha, 0.0))
        env_err[panel] = float(np.max(np.abs(env - formula)))
        sym_env = np.maximum(env, env_inv)
        target = _symm(g, xb, alpha)
        symm_err[panel] = float(np.max(np.abs(sym_env - target)))
        case_ok[panel] = (xb <= gxb) == (panel == "left")
        for name, beta in (
            ("g", g(alpha)),
            ("f_env", env),
            ("f_env_inv", env_inv),
            ("symm", target),
        ):
            rows.add(panel, name, alpha, beta)

    claims = (
        claim_holds(
            "f-env",
            "f_env = f on [0, x_bar], x_bar + f(x_bar) - x on [x_bar, x_bar + "
            "f(x_bar)], 0 beyond (proof of Prop. F.2)",
            "piecewise form of f_env",
            f"max |envelope of eps >= 0 lines - formula|: left {env_err['left']:.1e}, "
            f"right {env_err['right']:.1e}",
            max(env_err.values()) <= 1e-6,
            "the envelope of the eps >= 0 guarantees equals the formula to 1e-6 in "
            "both cases",
        ),
        claim_holds(
            "symm-from-env",
            "max{f_env, f_env^{-1}} = Symm(f) (Prop. F.2), in both cases of Def. F.1",
            "max{f_env, f_env^-1} = Symm(f)",
            f"max difference: left {symm_err['left']:.1e}, right "
            f"{symm_err['right']:.1e}; cases as labelled: {all(case_ok.values())}",
            max(symm_err.values()) <= 1e-4 and all(case_ok.values()),
            "equal to 1e-4 (tabulated inverse on the grid) in both panels",
        ),
    )
    return Result({"data": rows.table()}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    def draw(ax: Any, panel: str, sel: Any) -> None:
        ax.plot(*sel("g"), color="C0", ls="--", lw=1, label="$f$")
        ax.plot(*sel("f_env"), color="C3", label=r"$f_{\mathrm{env}}$")
        ax.plot(*sel("f_env_inv"), color="C2", label=r"$f_{\mathrm{env}}^{-1}$")
        ax.plot(*sel("symm"), color="k", lw=1.0, ls=":", label=r"$\mathrm{Symm}(f)$")

    return _diagrams.symm_panels(tables["data"], draw)
