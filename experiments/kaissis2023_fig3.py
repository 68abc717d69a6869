"""Kaissis et al. (2023), appendix Figure 3: one SGM step calibrated to (4, 1e-5).

"Comparing mechanisms at p = 0.1, 0.5, 0.9, where we find sigma for (eps = 4,
delta = 10^-5)-DP with the number of steps set to N = 1. The mechanisms only
intersect at (eps = 4, delta = 10^-5)-DP, meaning they are distinct and thus also
result in distinct trade-off curves. The add and remove relations are also
distinct, giving asymmetric trade-off functions." The text (App. 4.4) adds that
"the upper bounds for ReRo are different" and that the add and remove curves are
plotted "along with their symmetrised version (see Definition F.1 in [3])".

Everything is in closed form for N = 1: sigma from the exact hockey-stick profile
of both pairs (ALG-16), the add curve f_p = p G_{1/sigma} + (1-p) Id (Zheng et
al. 2020, Lemma C.1; the ReRo add-one pair), the remove curve f_p^{-1} and the
symmetrised C_p(G_{1/sigma}) (Dong et al. 2019, eq. (14)).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import _kaissis
import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np
from scipy import optimize

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import rero
from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

#: A difference between two trade-off curves that is visible on the unit square.
VISIBLE = 0.01
#: Profiles below this are round-off (a crossing there is not counted).
DELTA_FLOOR = 1e-12

SPEC = Spec(
    id="kaissis2023-fig3",
    title="One SGM step at p = 0.1, 0.5, 0.9 calibrated to (4, 1e-5): add, remove "
    "and symmetrised trade-off curves",
    source="Kaissis et al. (2023), App. 4.4, Fig. 3",
    params={
        "eps": 4.0,
        "delta": 1e-5,
        "ps": [0.1, 0.5, 0.9],
        "n_steps": 1,
        "kappa": 0.1,
        "n_alpha": 2001,
        "eps_max": 12.0,
        "n_eps": 2401,
    },
    quick={"n_alpha": 401, "n_eps": 601},
    notes=(
        "sigma is solved (Brent, rtol 1e-12) for eps(1e-5) = 4 of the exact "
        "single-step profile, the maximum over the add and remove pairs (Exact "
        "accountant with pair='both'); the sensitivity is 1, so mu = 1/sigma.",
        "'Only intersect at (4, 1e-5)' is checked on the privacy profiles: every "
        "pair of profiles changes sign exactly once on [0, 12] (where both exceed "
        "1e-12) and the crossing, refined by Brent's method, is at eps = 4; in "
        "trade-off space every symmetrised curve touches f_{4, 1e-5} from above.",
        "The ReRo bound uses the add pair (Kaissis et al. Sec. 2); kappa = 0.1.",
    ),
)


def _crossings(f: Any, g: Any, eps: np.ndarray) -> list[float]:
    """Points where the profiles f and g cross on the grid, refined by brentq."""
    d = f(eps) - g(eps)
    live = (f(eps) > DELTA_FLOOR) & (g(eps) > DELTA_FLOOR)
    idx = np.where((np.sign(d[:-1]) != np.sign(d[1:])) & live[:-1] & live[1:])[0]
    return [
        optimize.brentq(lambda e: float(f(e) - g(e)), eps[i], eps[i + 1], xtol=1e-13)
        for i in idx
    ]


def compute(params: dict[str, Any]) -> Result:
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    eps = np.linspace(0.0, params["eps_max"], params["n_eps"])
    table = _tables.Rows("p", "curve", "alpha", "beta")
    profiles = _tables.Rows("p", "eps", "delta")
    summary = _tables.Rows(
        "p", "sigma", "eps_check", "gamma_add", "gamma_remove", "asym", "touch"
    )
    sym, prof = {}, {}
    line = T.EpsDelta(params["eps"], params["delta"])
    for p in params["ps"]:
        sigma = _kaissis.calibrated_sigma(
            params["eps"],
            params["delta"],
            p,
            params["n_steps"],
            (0.3, 30.0),
            accountant=A.Exact(),
            rtol=1e-12,
        )
        mu = 1.0 / sigma
        add = T.Mixture(T.Gaussian(mu), p)
        curves = {
            "add": add,
            "remove": add.inverse(),
            "sym": T.Subsampled(T.Gaussian(mu), p),
        }
        for name, f in curves.items():
            table.add(p, name, alpha, f(alpha))
        m = M.SubsampledGaussian(sigma=sigma, p=p)
        prof[p] = m.privacy_profile
        sym[p] = curves["sym"](alpha)
        profiles.add(p, eps, m.privacy_profile(eps))
        # The tangency with f_{eps,delta} sits at tiny alpha (~5e-7 for p = 0.1):
        # a log grid away from alpha = 1, where both curves vanish trivially.
        a_log = np.logspace(-12, -0.5, 20001)
        summary.add(
            p=p,
            sigma=sigma,
            eps_check=float(
                A.Exact().compose(m, params["n_steps"]).epsilon(params["delta"])
            ),
            gamma_add=float(rero.gamma(add, params["kappa"])),
            gamma_remove=float(rero.gamma(curves["remove"], params["kappa"])),
            asym=float(np.max(np.abs(add(alpha) - curves["remove"](alpha)))),
            touch=float(np.min(curves["sym"](a_log) - line(a_log))),
        )
    crossings = {
        (a, b): _crossings(prof[a], prof[b], eps)
        for a, b in combinations(params["ps"], 2)
    }
    tables = {
        "data": table.table(),
        "profiles": profiles.table(),
        "summary": summary.table(),
    }
    claims = _claims(params, tables["summary"], sym, crossings)
    info = {"crossings": {f"{a}-{b}": v for (a, b), v in crossings.items()}}
    return Result(tables, claims, info)


def _claims(params: dict, s: dict, sym: dict, crossings: dict) -> tuple:
    eps0 = params["eps"]
    once = all(len(v) == 1 and abs(v[0] - eps0) <= 1e-6 for v in crossings.values())
    gaps = {
        (a, b): float(np.max(np.abs(sym[a] - sym[b])))
        for a, b in combinations(params["ps"], 2)
    }
    ps = list(s["p"])
    g = dict(zip(ps, s["gamma_add"], strict=True))
    return (
        claim_holds(
            "calibrated",
            "sigma found for (eps = 4, delta = 1e-5)-DP at N = 1 for each p",
            "(4, 1e-5)",
            ", ".join(
                f"p={p:g}: sigma={sg:.6f}, eps(1e-5)={e:.9f}"
                for p, sg, e in zip(ps, s["sigma"], s["eps_check"], strict=True)
            ),
            bool(np.all(np.abs(s["eps_check"] - eps0) <= 1e-8)),
            "|eps(1e-5) - 4| <= 1e-8 for the exact profile (both pairs) at each sigma",
        ),
        claim_holds(
            "intersect-only-at-calibration",
            "The mechanisms only intersect at (eps = 4, delta = 1e-5)",
            "single intersection at (4, 1e-5)",
            "profile crossings on [0, 12]: "
            + ", ".join(
                f"p={a:g}/{b:g}: {[round(x, 9) for x in v]}"
                for (a, b), v in crossings.items()
            )
            + "; min(C_p - f_{4,1e-5}) = "
            + ", ".join(f"{t:.1e}" for t in s["touch"]),
            once and bool(np.all(np.abs(s["touch"]) <= 1e-8)),
            "each pair of profiles changes sign exactly once, at |eps - 4| <= 1e-6, "
            "and every symmetrised curve touches f_{4,1e-5} (min of C_p - f_{4,1e-5} "
            "over alpha in [1e-12, 10^-0.5], log-spaced, within 1e-8 of 0)",
        ),
        claim_holds(
            "distinct-tradeoffs",
            "They are distinct and thus also result in distinct trade-off curves",
            "distinct curves",
            "max |C_p - C_p'|: "
            + ", ".join(f"{a:g}/{b:g}: {v:.3f}" for (a, b), v in gaps.items()),
            min(gaps.values()) > VISIBLE,
            f"max over alpha of the difference of the symmetrised curves > {VISIBLE} "
            "for every pair of p",
        ),
        claim_holds(
            "add-remove-distinct",
            "The add and remove relations are also distinct, giving asymmetric "
            "trade-off functions",
            "asymmetric",
            "max |f_add - f_remove|: "
            + ", ".join(
                f"p={p:g}: {v:.3f}" for p, v in zip(ps, s["asym"], strict=True)
            ),
            bool(np.all(s["asym"] > VISIBLE)),
            f"max over alpha of |f_p - f_p^(-1)| > {VISIBLE} for every p",
        ),
        claim_holds(
            "rero-differs",
            "When the CLT does not apply ... the upper bounds for ReRo are different",
            "different gamma",
            f"gamma_add(kappa={params['kappa']:g}): "
            + ", ".join(f"p={p:g}: {v:.4f}" for p, v in g.items()),
            min(abs(a - b) for a, b in combinations(g.values(), 2)) > VISIBLE,
            f"every pair of p differs by > {VISIBLE} in gamma at kappa = "
            f"{params['kappa']:g} (add pair)",
        ),
    )


COLOURS = {0.1: "tab:blue", 0.5: "tab:green", 0.9: "#9467bd"}
STYLES = {"add": "-", "remove": "--", "sym": ":"}


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data, prof = tables["data"], tables["profiles"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 5.0))
    for p in params["ps"]:
        for name in ("add", "remove", "sym"):
            sel = np.isclose(data["p"], p) & (data["curve"] == name)
            label = {"add": "add", "remove": "remove", "sym": "symmetrised"}[name]
            left.plot(
                data["alpha"][sel],
                data["beta"][sel],
                STYLES[name],
                color=COLOURS[p],
                lw=1.5,
                label=f"$p={p:g}$ {label}",
            )
        sel = np.isclose(prof["p"], p)
        right.semilogy(
            prof["eps"][sel], prof["delta"][sel], color=COLOURS[p], label=f"$p={p:g}$"
        )
    a = np.linspace(0, 1, 401)
    line = np.maximum.reduce(
        [
            np.zeros_like(a),
            1 - params["delta"] - np.exp(params["eps"]) * a,
            np.exp(-params["eps"]) * (1 - params["delta"] - a),
        ]
    )
    left.plot(a, line, color="0.6", lw=0.9, label=r"$f_{4,10^{-5}}$")
    _style.unit_square(left, _style.SYMBOLS, legend=None)
    left.set_title(
        "$N=1$, $\\sigma$ for $(4, 10^{-5})$-DP: trade-off curves", fontsize=10
    )
    left.legend(fontsize=7, ncol=1, loc="upper right")
    right.plot([params["eps"]], [params["delta"]], "ko", ms=5, label=r"$(4, 10^{-5})$")
    right.set(
        xlabel=r"$\varepsilon$",
        ylabel=r"$\delta(\varepsilon)$ (both pairs)",
        ylim=(1e-12, 1),
    )
    right.set_title(
        "privacy profiles: one crossing, at the calibration point", fontsize=10
    )
    right.legend(fontsize=8)
    fig.tight_layout()
    return fig
