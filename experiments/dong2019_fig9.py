"""Dong et al. (2019), Figure 9: "Graph of T(Lap(0,1), Lap(mu,1)) with mu = 1. It
agrees with the reciprocal function in the middle." Lemma A.6:

    f(alpha) = 1 - e^mu alpha            for alpha < e^{-mu}/2,
               e^{-mu}/(4 alpha)         for e^{-mu}/2 <= alpha <= 1/2,
               e^{-mu}(1 - alpha)        for alpha > 1/2,

"two symmetric line segments ... connected by the reciprocal function. It is easy
to check that this function is C^1."

The curve is computed independently from Prop. A.3 (log-concave noise:
T(xi, t + xi)(alpha) = F(F^{-1}(1 - alpha) - t)) with scipy's Laplace cdf and
quantile, and compared with Lemma A.6 (T.Laplace).
"""

from __future__ import annotations

import math
from typing import Any

import _style
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig9",
    title="T(Lap(0,1), Lap(1,1)): linear, reciprocal, linear; C^1",
    source="Dong et al. (2019), Fig. 9, Lemma A.6, Prop. A.3",
    params={"mu": 1.0, "n_alpha": 20001, "fd_step": 1e-7},
    quick={"n_alpha": 4001},
    notes=(
        "The independent curve is Prop. A.3 with F = scipy.stats.laplace.cdf: "
        "F(F^{-1}(1 - alpha) - mu), evaluated as the survival function at "
        "F^{-1}(alpha) + mu for accuracy.",
        "C^1 is checked with one-sided difference quotients (step fd_step) of the "
        "independent curve at the two junctions alpha = e^{-mu}/2 and 1/2: the "
        "left and right slopes must agree to 1e-5 relative (the quotients' "
        "truncation error is about step x |f''|).",
    ),
)


def _np_curve(mu: float, a: np.ndarray) -> np.ndarray:
    """Prop. A.3 for Laplace noise (tail-stable form)."""
    lap = stats.laplace
    return lap.sf(lap.ppf(a) + mu)


def compute(params: dict[str, Any]) -> Result:
    mu = params["mu"]
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    lo, hi = math.exp(-mu) / 2, 0.5
    alpha = np.union1d(alpha, [lo, hi])
    f_np = _np_curve(mu, alpha)
    f_lemma = T.Laplace(mu)(alpha)
    lemma_gap = float(np.max(np.abs(f_np - f_lemma)))

    middle = (alpha >= lo) & (alpha <= hi)
    prod = alpha[middle] * f_np[middle]
    c = math.exp(-mu) / 4
    recip_err = float(np.max(np.abs(prod / c - 1)))
    # Outside the middle: the two line segments, where the reciprocal differs.
    left, right = alpha < lo, alpha > hi
    line_err = max(
        float(np.max(np.abs(f_np[left] - (1 - math.exp(mu) * alpha[left])))),
        float(np.max(np.abs(f_np[right] - math.exp(-mu) * (1 - alpha[right])))),
    )
    probe = np.array([lo / 2, (1 + hi) / 2])
    recip_off = float(np.min(np.abs(c / probe - _np_curve(mu, probe))))

    h = params["fd_step"]
    jumps = []
    for x in (lo, hi):
        left = (_np_curve(mu, np.array([x])) - _np_curve(mu, np.array([x - h]))) / h
        right = (_np_curve(mu, np.array([x + h])) - _np_curve(mu, np.array([x]))) / h
        jumps.append(float(abs(right[0] - left[0]) / abs(left[0])))
    # The three pieces' exact slopes at the junctions: -e^mu, -e^{-mu}/(4 a^2).
    exact_slopes = (
        -math.exp(mu),
        -math.exp(-mu) / (4 * lo * lo),
        -math.exp(-mu) / (4 * hi * hi),
        -math.exp(-mu),
    )
    pos = alpha[(f_np > 0) & (alpha > 0)]
    sym = float(np.max(np.abs(T.Laplace(mu)(T.Laplace(mu)(pos)) - pos)))

    rows = {
        "curve": np.array(["laplace"] * alpha.size + ["reciprocal"] * alpha.size),
        "alpha": np.concatenate((alpha, alpha)),
        "beta": np.concatenate(
            (f_np, np.where(alpha > 0, c / np.maximum(alpha, 1e-300), np.inf))
        ),
    }
    rows["beta"] = np.minimum(rows["beta"], 2.0)
    claims = (
        claim_holds(
            "lemma-a6",
            "Lemma A.6: the closed form of T(Lap(0,1), Lap(mu,1))",
            "Lemma A.6",
            f"max |Lemma A.6 - Prop. A.3 (scipy)| = {lemma_gap:.1e}",
            lemma_gap <= 1e-12,
            "the piecewise formula equals F(F^{-1}(1-alpha) - mu) to 1e-12",
        ),
        claim_holds(
            "reciprocal-middle",
            "it agrees with the reciprocal function in the middle",
            "reciprocal in the middle",
            f"max |alpha f(alpha)/(e^-mu/4) - 1| = {recip_err:.1e} on "
            f"[e^-mu/2, 1/2]; outside, line segments to {line_err:.1e} and "
            f"|reciprocal - f| >= {recip_off:.3f} at the segments' midpoints",
            recip_err <= 1e-12 and line_err <= 1e-12 and recip_off > 1e-2,
            "alpha f(alpha) is the constant e^{-mu}/4 on [e^{-mu}/2, 1/2] (to "
            "1e-12); outside, f is the two line segments (to 1e-12) and differs "
            "from the reciprocal by > 0.01 at their midpoints",
        ),
        claim_holds(
            "c1",
            "the function is C^1 (continuous derivative)",
            "C^1",
            f"relative slope jumps at e^-mu/2 and 1/2: {jumps[0]:.1e}, "
            f"{jumps[1]:.1e}; exact one-sided slopes "
            + ", ".join(f"{s:.6f}" for s in exact_slopes),
            max(jumps) <= 1e-5
            and math.isclose(exact_slopes[0], exact_slopes[1], rel_tol=1e-12)
            and math.isclose(exact_slopes[2], exact_slopes[3], rel_tol=1e-12),
            "one-sided difference quotients agree to 1e-5 relative and the pieces' "
            "exact slopes match at both junctions",
        ),
        claim_holds(
            "symmetric",
            "two symmetric line segments joined by the reciprocal (f = f^{-1})",
            "symmetric",
            f"max |f(f(alpha)) - alpha| = {sym:.1e} where f > 0",
            sym <= 1e-12,
            "f o f = id where f > 0, to 1e-12",
        ),
    )
    return Result({"data": rows}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    mu = params["mu"]
    fig, ax = plt.subplots(figsize=(4.0, 4.0))
    s = data["curve"] == "reciprocal"
    ax.plot(
        data["alpha"][s],
        data["beta"][s],
        color="0.6",
        ls="--",
        lw=1.0,
        label=r"$e^{-\mu}/(4\alpha)$",
    )
    s = data["curve"] == "laplace"
    ax.plot(
        data["alpha"][s],
        data["beta"][s],
        color="C0",
        lw=2,
        label=rf"$T(\mathrm{{Lap}}(0,1),\mathrm{{Lap}}({mu:g},1))$",
    )
    lo = math.exp(-mu) / 2
    ax.plot([lo, 0.5], [0.5, lo], "ko", ms=4, label="junctions")
    ax.plot([0, 1], [1, 0], color="0.8", lw=0.6, ls=":")
    _style.unit_square(ax)
    return fig
