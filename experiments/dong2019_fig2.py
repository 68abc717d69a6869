"""Dong et al. (2019), Figure 2: "Three different examples of T(M(S), M(S')).
Only the dashed line corresponds to a trade-off function satisfying f-DP."

Qualitative diagram (Def. 2.2: M is f-DP iff T(M(S), M(S')) >= f pointwise). The
source does not say which curves it draws; we take f = G_1 and three trade-off
functions: G_0.5 (dashed, above f everywhere), G_1.5 (below everywhere) and
f_{0.2,0.2} (crosses f), and check which of them satisfy f-DP and that each is a
trade-off function (Prop. 2.2: convex, continuous, non-increasing, <= 1 - x).
"""

from __future__ import annotations

from typing import Any

import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig2",
    title="f-DP as a pointwise bound: three example trade-off curves against f",
    source="Dong et al. (2019), Fig. 2 and Def. 2.2",
    params={
        "f_mu": 1.0,
        "examples": [["G", 0.5], ["G", 1.5], ["epsdelta", 0.2, 0.2]],
        "dashed": 0,
        "n_alpha": 2001,
    },
    quick={"n_alpha": 501},
    notes=(
        "The curves of the source's figure are not specified; f = G_1 and the "
        "examples G_0.5 (dashed), G_1.5 and f_{0.2,0.2} are our choice, picked so "
        "that one lies above f, one below, and one crosses it.",
        "f-DP is checked pointwise on a uniform alpha grid (n_alpha points) with "
        "tolerance 1e-12.",
    ),
)


def _example(spec: list[Any]) -> T.TradeOff:
    if spec[0] == "G":
        return T.Gaussian(spec[1])
    return T.EpsDelta(spec[1], spec[2])


def _label(spec: list[Any]) -> str:
    if spec[0] == "G":
        return f"G_{spec[1]:g}"
    return f"f_{{{spec[1]:g},{spec[2]:g}}}"


def _tex(spec: list[Any]) -> str:
    if spec[0] == "G":
        return f"G_{{{spec[1]:g}}}"
    return f"f_{{{spec[1]:g},{spec[2]:g}}}"


def compute(params: dict[str, Any]) -> Result:
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    f = T.Gaussian(params["f_mu"])(alpha)
    rows = _tables.Rows("curve", "alpha", "beta")
    rows.add("f", alpha, f)
    satisfies, valid = [], []
    for spec in params["examples"]:
        beta = _example(spec)(alpha)
        rows.add(_label(spec), alpha, beta)
        satisfies.append(bool(np.all(beta >= f - 1e-12)))
        valid.append(
            bool(
                np.all(np.diff(beta) <= 1e-15)
                and np.all(np.diff(beta, 2) >= -1e-12)
                and np.all(beta <= 1 - alpha + 1e-15)
            )
        )
    names = [_label(s) for s in params["examples"]]
    claims = (
        claim_holds(
            "only-dashed-satisfies",
            "only the dashed line corresponds to a trade-off function satisfying f-DP",
            "only the dashed one",
            ", ".join(
                f"{nm}: {'>= f' if ok else 'not >= f'}"
                for nm, ok in zip(names, satisfies, strict=True)
            ),
            satisfies == [i == params["dashed"] for i in range(len(satisfies))],
            "T >= f at every grid point for the dashed example and fails somewhere "
            "for each other example",
        ),
        claim_holds(
            "examples-are-tradeoffs",
            "each example is a trade-off function T(M(S), M(S')) (Prop. 2.2)",
            "trade-off functions",
            ", ".join(f"{nm}: {ok}" for nm, ok in zip(names, valid, strict=True)),
            all(valid),
            "non-increasing, convex (second differences >= -1e-12) and <= 1 - alpha "
            "on the grid",
        ),
    )
    return Result({"data": rows.table()}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    fig, ax = plt.subplots(figsize=(3.8, 3.8))
    sel = data["curve"] == "f"
    ax.plot(data["alpha"][sel], data["beta"][sel], color="k", lw=2.2, label="$f$")
    for i, spec in enumerate(params["examples"]):
        name = _label(spec)
        sel = data["curve"] == name
        ax.plot(
            data["alpha"][sel],
            data["beta"][sel],
            color=f"C{i}",
            ls="--" if i == params["dashed"] else "-",
            label=rf"$T(M(S),M(S'))={_tex(spec)}$",
        )
    ax.plot([0, 1], [1, 0], color="0.7", lw=0.8, ls=":")
    _style.unit_square(ax)
    return fig
