"""Dong et al. (2019), Figure 10: "Assumption (left) and conclusion (right) of
Lemma C.1. Solid arrows indicate (random) mapping and dashed arrows indicate the
trade-off function of the two ends."

Lemma C.1: if f_1^y = T(K_1(y), K_1'(y)) >= f_2^y = T(K_2(y), K_2'(y)) for every
input y, then f_1 >= f_2 for the joint input-output laws, f_i =
T((P, K_i(P)), (P', K_i'(P'))).

The diagram is drawn together with a computed instance: P = N(0,1), P' = N(m,1),
K_i(y) = N(b y, 1), K_i'(y) = N(b y + a_i, 1) with a_1 < a_2, so f_i^y = G_{a_i}
for every y (b couples output and input). The joint laws are Gaussian with the
same covariance Sigma = [[1, b], [b, 1 + b^2]] and mean shift
Delta_i = (m, b m + a_i), hence f_i = G_{d_i} with d_i^2 = Delta_i' Sigma^{-1}
Delta_i (computed by linear algebra, not by the composition theorem).
"""

from __future__ import annotations

from typing import Any

import _diagrams
import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig10",
    title="Lemma C.1 (comparison of joint testing problems): diagram and an instance",
    source="Dong et al. (2019), Fig. 10, App. C, Lemma C.1",
    params={"m": 0.8, "b": 1.5, "a1": 0.6, "a2": 1.2, "n_alpha": 1001},
    quick={"n_alpha": 401},
    notes=(
        "The lemma is qualitative; the instance (m, b, a1, a2) is our choice. "
        "Checked: the assumption f_1^y >= f_2^y (the same for every y), the joint "
        "trade-offs from the Mahalanobis distance of the Gaussian joint laws "
        "(equal to sqrt(m^2 + a_i^2), i.e. G_m (x) G_{a_i}), the conclusion "
        "f_1 >= f_2, and that observing the input makes each test easier "
        "(f_i <= f_i^y).",
    ),
)


def _joint_mu(m: float, b: float, a: float) -> float:
    cov = np.array([[1.0, b], [b, 1.0 + b * b]])
    shift = np.array([m, b * m + a])
    return float(np.sqrt(shift @ np.linalg.solve(cov, shift)))


def compute(params: dict[str, Any]) -> Result:
    m, b, a1, a2 = params["m"], params["b"], params["a1"], params["a2"]
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    d1, d2 = _joint_mu(m, b, a1), _joint_mu(m, b, a2)
    curves = {
        "f1y": T.Gaussian(a1)(alpha),
        "f2y": T.Gaussian(a2)(alpha),
        "f1": T.Gaussian(d1)(alpha),
        "f2": T.Gaussian(d2)(alpha),
    }
    rows = _tables.Rows("curve", "alpha", "beta")
    for name, beta in curves.items():
        rows.add(name, alpha, beta)
    closed = max(abs(d1 - np.hypot(m, a1)), abs(d2 - np.hypot(m, a2)))
    assumption = bool(np.all(curves["f1y"] >= curves["f2y"]))
    conclusion = bool(np.all(curves["f1"] >= curves["f2"]))
    easier = bool(
        np.all(curves["f1"] <= curves["f1y"]) and np.all(curves["f2"] <= curves["f2y"])
    )
    claims = (
        claim_holds(
            "lemma-c1",
            "Lemma C.1: if f_1^y >= f_2^y for all y, then f_1 >= f_2",
            "f_1 >= f_2",
            f"f_1^y = G_{a1:g} >= f_2^y = G_{a2:g}: {assumption}; joint f_i = G_d "
            f"with d = {d1:.6f}, {d2:.6f}; f_1 >= f_2: {conclusion}",
            assumption and conclusion,
            "assumption and conclusion hold at every grid point",
        ),
        claim_holds(
            "joint-is-tensor",
            "the joint test of (P, K(P)) vs (P', K'(P')) with input-independent "
            "f^y is T(P, P') (x) f^y (Lemma C.2 / Thm 3.2 for this instance)",
            "G_m (x) G_a = G_sqrt(m^2 + a^2)",
            f"max |d_i - sqrt(m^2 + a_i^2)| = {closed:.1e}",
            closed <= 1e-12,
            "the Mahalanobis distance of the joint Gaussian laws equals "
            "sqrt(m^2 + a_i^2) to 1e-12",
        ),
        claim_holds(
            "inputs-inform",
            "with the inputs drawn from P and P', both joint problems become easier "
            "than with the input fixed: f_i <= f_i^y",
            "f_i <= f_i^y",
            f"{easier}",
            easier,
            "f_i <= f_i^y at every grid point",
        ),
    )
    return Result({"data": rows.table()}, claims, {"d1": d1, "d2": d2})


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    fig, axes = plt.subplots(2, 2, figsize=(7.5, 7.2))
    left = {
        "y1": (0.12, 0.8, r"$y$"),
        "K1p": (0.55, 0.88, r"$K_1'(y)$"),
        "K2p": (0.88, 0.72, r"$K_2'(y)$"),
        "y0": (0.12, 0.2, r"$y$"),
        "K1": (0.55, 0.28, r"$K_1(y)$"),
        "K2": (0.88, 0.12, r"$K_2(y)$"),
    }
    _diagrams.draw_diagram(
        axes[0, 0],
        left,
        [("y1", "K1p"), ("y1", "K2p"), ("y0", "K1"), ("y0", "K2")],
        [
            ("K1", "K1p", "$f_1^y$\n(harder)", -0.11),
            ("K2", "K2p", "$f_2^y$\n(easier)", -0.11),
        ],
        fontsize=10,
        clip=False,
    )
    axes[0, 0].set_title("assumption: $f_1^y \\geq f_2^y$ for every $y$")
    right = {
        "P1": (0.12, 0.8, r"$P'$"),
        "K1p": (0.55, 0.88, r"$K_1'(P')$"),
        "K2p": (0.88, 0.72, r"$K_2'(P')$"),
        "P0": (0.12, 0.2, r"$P$"),
        "K1": (0.55, 0.28, r"$K_1(P)$"),
        "K2": (0.88, 0.12, r"$K_2(P)$"),
    }
    _diagrams.draw_diagram(
        axes[0, 1],
        right,
        [("P1", "K1p"), ("P1", "K2p"), ("P0", "K1"), ("P0", "K2")],
        [
            ("K1", "K1p", "$f_1$\n(harder)", -0.11),
            ("K2", "K2p", "$f_2$\n(easier)", -0.11),
        ],
        fontsize=10,
        clip=False,
    )
    axes[0, 1].set_title("conclusion: $f_1 \\geq f_2$")

    def sel(name: str) -> tuple[np.ndarray, ...]:
        return _tables.select(data, "alpha", "beta", curve=name)

    p = params
    axes[1, 0].plot(*sel("f1y"), color="C0", label=rf"$f_1^y=G_{{{p['a1']:g}}}$")
    axes[1, 0].plot(*sel("f2y"), color="C1", label=rf"$f_2^y=G_{{{p['a2']:g}}}$")
    axes[1, 1].plot(*sel("f1"), color="C0", label=r"$f_1$ (joint)")
    axes[1, 1].plot(*sel("f2"), color="C1", label=r"$f_2$ (joint)")
    axes[1, 1].plot(*sel("f1y"), color="C0", ls=":", lw=0.9, label=r"$f_1^y$")
    axes[1, 1].plot(*sel("f2y"), color="C1", ls=":", lw=0.9, label=r"$f_2^y$")
    for ax in axes[1]:
        ax.plot([0, 1], [1, 0], color="0.8", lw=0.6, ls=":")
        _style.unit_square(ax)
    axes[1, 0].set_title(rf"$K_i(y)=N(by,1)$, $K_i'(y)=N(by+a_i,1)$, $b={p['b']:g}$")
    axes[1, 1].set_title(rf"$P=N(0,1)$, $P'=N({p['m']:g},1)$")
    return fig
