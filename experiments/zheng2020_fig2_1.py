"""Zheng et al. (2020), Figure 2.1: a trade-off function and the two supporting lines
of one (eps, delta(eps))-DP guarantee.

Caption: "An example of a trade-off function and two supporting lines induced by
the associated (eps, delta(eps))-DP guarantees. These lines have slopes -e^{+-eps},
respectively, and intercepts 1 - delta." With delta(eps) = 1 + f^*(-e^eps)
(Prop. 2.3) the lines are

    beta = 1 - delta - e^eps alpha    and    beta = e^{-eps} (1 - delta - alpha),

the second the mirror image of the first in y = x (f symmetric); the first meets
the alpha = 0 axis and the second the beta = 0 axis at 1 - delta.
"""

from __future__ import annotations

import math
from typing import Any

import _style
import matplotlib.pyplot as plt
import numpy as np
from scipy import special

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="zheng2020-fig2.1",
    title="A trade-off function G_1 and the supporting lines of its (eps, delta(eps)) "
    "guarantee at eps = 1",
    source="Zheng et al. (2020), Fig. 2.1 and Prop. 2.3",
    params={"mu": 1.0, "eps": 1.0, "n_alpha": 20001},
    quick={"n_alpha": 4001},
    notes=(
        "The figure is qualitative and gives no parameters; f = G_1 (the GDP curve "
        "that the paper's CLT approximations take) and eps = 1 are used.",
        "delta(eps) is computed from f by the generic conjugate 1 + f^*(-e^eps) "
        "(T.privacy_profile(..., method='grid'), Prop. 2.3) and compared with the "
        "closed form Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong et al. "
        "2019, Cor. 2.13).",
        "The touching point of the steep line is where f'(alpha) = -e^eps, i.e. "
        "alpha_t = Phi(-eps/mu - mu/2) for G_mu; the shallow line touches at the "
        "mirror point (f(alpha_t), alpha_t).",
    ),
)


def compute(params: dict[str, Any]) -> Result:
    mu, eps = params["mu"], params["eps"]
    f = T.Gaussian(mu)
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    beta = np.asarray(f(alpha))
    # Zheng et al. (2020), Prop. 2.3: delta(eps) = 1 + f^*(-e^eps), generic conjugate.
    delta = float(T.privacy_profile(f, eps, method="grid"))
    # Dong et al. (2019), Cor. 2.13: the closed form for G_mu.
    closed = float(
        special.ndtr(-eps / mu + mu / 2)
        - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
    )
    steep = 1.0 - delta - math.exp(eps) * alpha
    shallow = math.exp(-eps) * (1.0 - delta - alpha)
    a_t = float(special.ndtr(-eps / mu - mu / 2))
    b_t = float(f(a_t))
    gap_steep = b_t - (1.0 - delta - math.exp(eps) * a_t)
    gap_shallow = a_t - math.exp(-eps) * (1.0 - delta - b_t)
    above = float(np.max(np.maximum(steep, shallow) - beta))

    names = ["f", "steep line", "shallow line"]
    table = {
        "curve": np.repeat(names, alpha.size),
        "alpha": np.tile(alpha, 3),
        "beta": np.concatenate((beta, steep, shallow)),
    }
    points = {
        "label": np.array(["touch (steep)", "touch (shallow)", "1 - delta"]),
        "alpha": np.array([a_t, b_t, 0.0]),
        "beta": np.array([b_t, a_t, 1.0 - delta]),
        "eps": np.full(3, eps),
        "delta": np.full(3, delta),
    }
    claims = (
        claim_holds(
            "delta-is-conjugate",
            "delta(eps) = 1 + f^*(-e^eps) (Prop. 2.3) gives the intercept 1 - delta",
            "1 - delta(eps) from the conjugate of f",
            f"delta(1) = {delta:.15f} (conjugate) vs {closed:.15f} (closed form)",
            abs(delta - closed) <= 1e-12,
            "|conjugate - closed form| <= 1e-12",
        ),
        claim_holds(
            "lines-support-f",
            "Two supporting lines with slopes -e^{+-eps} and intercepts 1 - delta",
            "both lines lie below f and touch it",
            f"max over alpha of (line - f) = {above:.1e}; gap at the touching points "
            f"{gap_steep:.1e} (alpha = {a_t:.4f}) and {gap_shallow:.1e} "
            f"(alpha = {b_t:.4f})",
            above <= 1e-12 and abs(gap_steep) <= 1e-12 and abs(gap_shallow) <= 1e-12,
            f"max(line - f) <= 1e-12 on {alpha.size} alpha points in [0, 1] and "
            "|f - line| <= 1e-12 at the touching points",
        ),
    )
    info = {"delta": delta, "delta_closed_form": closed, "touch_alpha": a_t}
    return Result({"data": table, "points": points}, claims, info)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data, pts = tables["data"], tables["points"]
    eps = params["eps"]
    fig, ax = plt.subplots(figsize=(4.6, 4.6))
    styles = {
        "f": {"color": "k", "lw": 2.2, "label": rf"$f = G_{{{params['mu']:g}}}$"},
        "steep line": {
            "color": "C3",
            "ls": "--",
            "label": r"slope $-e^{\varepsilon}$, intercept $1-\delta$",
        },
        "shallow line": {
            "color": "C0",
            "ls": "--",
            "label": r"slope $-e^{-\varepsilon}$, intercept $1-\delta$",
        },
    }
    for name, style in styles.items():
        sel = data["curve"] == name
        keep = sel & (data["beta"] >= 0)
        ax.plot(data["alpha"][keep], data["beta"][keep], **style)
    touch = pts["label"] != "1 - delta"
    ax.plot(
        pts["alpha"][touch], pts["beta"][touch], "ko", ms=4, label="touching points"
    )
    one_minus = float(pts["beta"][~touch][0])
    ax.plot([0, one_minus], [one_minus, 0], "s", color="0.3", ms=5, clip_on=False)
    ax.annotate(
        r"$1-\delta(\varepsilon)$",
        (0, one_minus),
        xytext=(0.06, one_minus + 0.04),
        fontsize=9,
    )
    ax.annotate(
        r"$1-\delta(\varepsilon)$", (one_minus, 0), xytext=(one_minus - 0.1, 0.04)
    )
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    _style.unit_square(
        ax,
        _style.SYMBOLS,
        title=rf"supporting lines at $\varepsilon = {eps:g}$, "
        rf"$\delta = {float(pts['delta'][0]):.3f}$",
    )
    return fig
