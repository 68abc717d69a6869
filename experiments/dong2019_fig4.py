"""Dong et al. (2019), Figure 4: "Each (eps, delta(eps))-DP guarantee corresponds to
two supporting linear functions (symmetric to each other) to the trade-off
function describing the complete f-DP guarantee. In general, characterizing a
privacy guarantee using only a subset of (eps, delta)-DP guarantees (for example,
only those with small delta) would result in information loss."

Drawn for f = G_1 (Cor. ``GDPtoDPrep``: delta(eps) = Phi(-eps/mu + mu/2) -
e^eps Phi(-eps/mu - mu/2)). Checked: the lines 1 - delta - e^eps alpha and
e^{-eps}(1 - delta - alpha) touch f and lie below it, they are mirror images about
y = x, the supremum of the whole family recovers f (Prop. 2.8), and the family
restricted to small delta does not.
"""

from __future__ import annotations

from typing import Any

import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np
from scipy import special

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig4",
    title="(eps, delta(eps)) guarantees as pairs of supporting lines of G_mu",
    source="Dong et al. (2019), Fig. 4, Prop. 2.8, Prop. ftoDPrep, Cor. GDPtoDPrep",
    params={
        "mu": 1.0,
        "eps": [0.5, 1.0, 2.0],
        "n_alpha": 2001,
        "family_eps_max": 12.0,
        "family_size": 400,
        "small_delta": 1e-3,
    },
    quick={"n_alpha": 501, "family_size": 200},
    notes=(
        "The source draws an unspecified trade-off function; f = G_1 and eps = "
        "0.5, 1, 2 are used.",
        "delta(eps) is evaluated from the closed form of Cor. GDPtoDPrep (scipy "
        "ndtr) and compared with T.privacy_profile (1 + f*(-e^eps), Prop. "
        "ftoDPrep). The tangent point of 1 - delta - e^eps alpha is where "
        "G_mu' = -e^eps, i.e. alpha_t = Phi(-eps/mu - mu/2).",
        "Prop. 2.8 is checked with the family on a grid of family_size eps values "
        "in [0, family_eps_max]; 'only small delta' keeps those with delta(eps) <= "
        "small_delta. 'Information loss' means the restricted envelope's largest "
        "gap to f is at least 100 times the full family's (grid) gap.",
    ),
)


def _delta(mu: float, eps: np.ndarray) -> np.ndarray:
    # Dong et al. (2019), Cor. GDPtoDPrep.
    return special.ndtr(-eps / mu + mu / 2) - np.exp(eps) * special.ndtr(
        -eps / mu - mu / 2
    )


def compute(params: dict[str, Any]) -> Result:
    mu = params["mu"]
    f = T.Gaussian(mu)
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    fa = f(alpha)
    rows = _tables.Rows("curve", "eps", "alpha", "beta")
    add = rows.add

    add("f", 0.0, alpha, fa)
    eps = np.asarray(params["eps"], dtype=float)
    delta = _delta(mu, eps)
    profile_gap = float(np.max(np.abs(delta - np.asarray(T.privacy_profile(f, eps)))))
    touch = _tables.Rows("eps", "alpha_t", "beta_t")
    below, tangent, mirror = 0.0, 0.0, 0.0
    for e, d in zip(eps, delta, strict=True):
        line = 1 - d - np.exp(e) * alpha
        mirrored = np.exp(-e) * (1 - d - alpha)
        add("line", e, alpha, line)
        add("mirror", e, alpha, mirrored)
        below = min(below, float(np.min(fa - np.maximum(line, mirrored))))
        a_t = float(special.ndtr(-e / mu - mu / 2))
        b_t = float(f(a_t))
        tangent = max(tangent, abs(b_t - (1 - d - np.exp(e) * a_t)))
        # The mirror line touches at the reflected point (b_t, a_t).
        tangent = max(tangent, abs(a_t - np.exp(-e) * (1 - d - b_t)))
        # Reflection about y = x: the inverse of the line is the mirrored line.
        y = alpha[alpha <= 1 - d]
        mirror = max(
            mirror,
            float(np.max(np.abs((1 - d - y) / np.exp(e) - np.exp(-e) * (1 - d - y)))),
        )
        touch.add(e, a_t, b_t)
        touch.add(e, b_t, a_t)

    grid = np.linspace(0.0, params["family_eps_max"], params["family_size"])
    d_grid = _delta(mu, grid)
    full_gap = float(np.max(fa - T.FromPrivacyProfile(grid, d_grid)(alpha)))
    keep = d_grid <= params["small_delta"]
    small = T.FromPrivacyProfile(grid[keep], d_grid[keep])(alpha)
    add("small_delta_envelope", params["small_delta"], alpha, small)
    small_gap = float(np.max(fa - small))

    claims = (
        claim_holds(
            "supporting-lines",
            "each (eps, delta(eps)) guarantee gives two supporting linear functions "
            "of the trade-off function",
            "supporting lines",
            f"min(f - lines) = {below:.1e}; |f - line| at the tangent points <= "
            f"{tangent:.1e}; delta vs 1 + f*(-e^eps): {profile_gap:.1e}",
            below >= -1e-12 and tangent <= 1e-12 and profile_gap <= 1e-12,
            "both lines <= f on the grid (to 1e-12) and equal to f at "
            "alpha_t = Phi(-eps/mu - mu/2) and its mirror image (to 1e-12)",
        ),
        claim_holds(
            "lines-symmetric",
            "the two supporting lines are symmetric to each other",
            "symmetric about y = x",
            f"max |line^-1 - mirror| = {mirror:.1e}",
            mirror <= 1e-12,
            "the inverse of 1 - delta - e^eps alpha equals e^{-eps}(1 - delta - "
            "alpha) to 1e-12",
        ),
        claim_holds(
            "family-recovers-f",
            "f-DP is equivalent to the whole collection of (eps, delta(eps))-DP "
            "guarantees (Prop. 2.8 / ftoDPrep)",
            "lossless",
            f"max(f - sup of the family) = {full_gap:.1e} ({params['family_size']} "
            "eps values)",
            full_gap <= 1e-3,
            "the envelope of the family on the eps grid is within 1e-3 of f",
        ),
        claim_holds(
            "small-delta-loses",
            "using only the guarantees with small delta results in information loss",
            "information loss",
            f"max(f - envelope of delta <= {params['small_delta']:g}) = "
            f"{small_gap:.3f} vs {full_gap:.1e} for the full family",
            small_gap >= 100 * full_gap,
            "the restricted envelope's largest gap to f >= 100 x the full family's",
        ),
    )
    tables = {
        "data": rows.table(),
        "touch": touch.table(),
    }
    return Result(tables, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data, touch = tables["data"], tables["touch"]
    fig, ax = plt.subplots(figsize=(4.2, 4.2))
    sel = data["curve"] == "f"
    ax.plot(data["alpha"][sel], data["beta"][sel], color="k", lw=2, label=r"$G_1$")
    for i, e in enumerate(params["eps"]):
        for curve, ls in (("line", "-"), ("mirror", "--")):
            s = (data["curve"] == curve) & np.isclose(data["eps"], e)
            ax.plot(
                data["alpha"][s],
                data["beta"][s],
                color=f"C{i}",
                ls=ls,
                lw=1.0,
                label=rf"$\varepsilon={e:g}$" if curve == "line" else None,
            )
        s = np.isclose(touch["eps"], e)
        ax.plot(touch["alpha_t"][s], touch["beta_t"][s], "o", color=f"C{i}", ms=4)
    s = data["curve"] == "small_delta_envelope"
    ax.plot(
        data["alpha"][s],
        data["beta"][s],
        color="0.5",
        ls=":",
        label=rf"only $\delta\leq{params['small_delta']:g}$",
    )
    ax.plot([0, 1], [0, 1], color="0.8", lw=0.6)
    _style.unit_square(ax)
    return fig
