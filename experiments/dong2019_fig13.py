"""Dong et al. (2019), Figure 13: "Action of Symm. Left panel: x_bar <= f(x_bar).
Right panel: x_bar > f(x_bar). For both panels the effective parts (red bars on
x-axes) are [0, x_bar] of f and [f(x_bar), 1] of f^{-1}. No overlap in the left
panel since x_bar < f(x_bar), so interpolate with straight line; overlap in the
right panel so the max is taken."

Def. F.1: x_bar = inf{x : -1 in the subdifferential of f at x};
Symm(f) = min{f, f^{-1}}** if x_bar <= f(x_bar), max{f, f^{-1}} otherwise, and in
the first case min{f, f^{-1}}** = f on [0, x_bar], x_bar + f(x_bar) - x on
[x_bar, f(x_bar)], f^{-1} on [f(x_bar), 1] (App. F).

Curves: left g = p G_mu + (1 - p) Id (the add pair of a subsampled Gaussian),
right its inverse g^{-1} (the remove pair), mu = 2, p = 0.5.
"""

from __future__ import annotations

from typing import Any

import _diagrams
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig13",
    title="The symmetrisation Symm (Def. F.1): x_bar <= f(x_bar) and x_bar > f(x_bar)",
    source="Dong et al. (2019), Fig. 13, App. F, Def. F.1",
    params={"mu": 2.0, "p": 0.5, "n_alpha": 4001, "fd_step": 1e-6},
    quick={"n_alpha": 1001},
    notes=(
        "The curves of the source's figure are not given; g = 0.5 G_2 + 0.5 Id and "
        "its inverse are used (for g = f_p with symmetric f, x_bar is the fixed "
        "point x* of f and g(x_bar) = f_p(x*) >= x*; for the inverse the roles "
        "swap, so x_bar > g(x_bar)).",
        "x_bar is found numerically as the first point where the central difference "
        "quotient of g (step fd_step) reaches -1 (bisection), then compared with "
        "the closed-form expectation.",
        "Left: the piecewise formula (built here from g and T.inverse(g)) against "
        "the refined hull T.Symmetrized(g). Right: max{g, g^{-1}} must equal g on "
        "[0, g(x_bar)] and g^{-1} on [x_bar, 1] (the effective parts overlap on "
        "[g(x_bar), x_bar]), and be a symmetric convex trade-off function.",
    ),
)


def _x_bar(g: T.TradeOff, h: float) -> float:
    """inf{x : g'(x) <= -1} for a convex g, by bisection on the slope."""

    def slope(x: float) -> float:
        return float((g(min(x + h, 1.0)) - g(max(x - h, 0.0))) / (2 * h))

    lo, hi = h, 1.0 - h
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if slope(mid) <= -1.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def compute(params: dict[str, Any]) -> Result:
    mu, p = params["mu"], params["p"]
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    base = T.Gaussian(mu)
    g_left = T.Mixture(base, p)
    g_right = T.inverse(g_left)
    x_star = T.fixed_point(base)
    rows = _tables.Rows("panel", "curve", "alpha", "beta")
    marks = _tables.Rows("panel", "x_bar", "g_x_bar")

    def add(panel: str, curve: str, beta: np.ndarray) -> None:
        rows.add(panel, curve, alpha, beta)

    # ---------------------------------------------------------------- left
    xb = _x_bar(g_left, params["fd_step"])
    gxb = float(g_left(xb))
    g, gi = g_left(alpha), T.inverse(g_left)(alpha)
    formula = np.where(alpha <= xb, g, np.where(alpha <= gxb, xb + gxb - alpha, gi))
    hull = T.Symmetrized(g_left)(alpha)
    gap_left = float(np.max(np.abs(formula - hull)))
    add("left", "g", g)
    add("left", "g_inv", gi)
    add("left", "symm", hull)
    marks.add("left", xb, gxb)
    left_case = xb <= gxb
    xb_err_left = abs(xb - x_star)

    # ---------------------------------------------------------------- right
    xb_r = _x_bar(g_right, params["fd_step"])
    gxb_r = float(g_right(xb_r))
    g2, g2i = g_right(alpha), T.inverse(g_right)(alpha)
    symm = np.maximum(g2, g2i)
    add("right", "g", g2)
    add("right", "g_inv", g2i)
    add("right", "symm", symm)
    marks.add("right", xb_r, gxb_r)
    right_case = xb_r > gxb_r
    xb_err_right = abs(xb_r - float(g_left(x_star)))
    first = alpha <= gxb_r
    last = alpha >= xb_r
    parts = max(
        float(np.max(np.abs(symm[first] - g2[first]))),
        float(np.max(np.abs(symm[last] - g2i[last]))),
    )
    mid = (alpha > gxb_r) & (alpha < xb_r)
    switches = bool(np.any(g2[mid] > g2i[mid]) and np.any(g2i[mid] > g2[mid]))

    def symm_fn(x: np.ndarray) -> np.ndarray:
        return np.maximum(g_right(x), T.inverse(g_right)(x))

    pos = alpha[(symm > 0) & (alpha > 0)]
    sym = float(np.max(np.abs(symm_fn(symm_fn(pos)) - pos)))
    convex = float(np.min(np.diff(symm, 2)))

    claims = (
        claim_holds(
            "left-interpolate",
            "x_bar <= f(x_bar): no overlap, Symm(f) = min{f, f^{-1}}** interpolates "
            "with a straight line between x_bar and f(x_bar)",
            "f on [0, x_bar], line, f^{-1} on [f(x_bar), 1]",
            f"x_bar = {xb:.6f} (x* = {x_star:.6f}), f(x_bar) = {gxb:.6f}; "
            f"max |formula - hull| = {gap_left:.1e}",
            left_case and xb_err_left <= 1e-6 and gap_left <= 1e-6,
            "x_bar <= f(x_bar); x_bar = x* to 1e-6 (finite differences); the "
            "piecewise formula equals the convex hull to 1e-6 (x_bar's accuracy)",
        ),
        claim_holds(
            "right-max",
            "x_bar > f(x_bar): the effective parts [0, x_bar] of f and [f(x_bar), 1] "
            "of f^{-1} overlap and the max is taken",
            "Symm(f) = max{f, f^{-1}}",
            f"x_bar = {xb_r:.6f} > f(x_bar) = {gxb_r:.6f}; max{{f, f^-1}} = f on "
            f"[0, f(x_bar)] and f^-1 on [x_bar, 1] to {parts:.1e}; the max switches "
            f"inside the overlap: {switches}; symmetric to {sym:.1e}; min second "
            f"difference {convex:.1e}",
            right_case
            and xb_err_right <= 1e-6
            and parts <= 1e-12
            and switches
            and sym <= 1e-9
            and convex >= -1e-12,
            "x_bar > f(x_bar) (x_bar = f_p(x*) to 1e-6); the max is f and f^{-1} on "
            "the non-overlapping parts (1e-12) and switches inside the overlap; it "
            "is symmetric (s(s(x)) = x where s > 0, to 1e-9) and convex",
        ),
    )
    return Result({"data": rows.table(), "marks": marks.table()}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    marks = tables["marks"]

    def draw(ax: Any, panel: str, sel: Any) -> None:
        ax.plot(*sel("g"), color="C0", ls="--", label="$f$")
        ax.plot(*sel("g_inv"), color="C2", ls="--", label="$f^{-1}$")
        ax.plot(*sel("symm"), color="k", lw=1.8, label=r"$\mathrm{Symm}(f)$")
        i = int(np.flatnonzero(marks["panel"] == panel)[0])
        xb, gxb = marks["x_bar"][i], marks["g_x_bar"][i]
        ax.plot([0, xb], [0.012, 0.012], color="C3", lw=5, solid_capstyle="butt")
        ax.plot(
            [gxb, 1], [0.03, 0.03], color="C3", lw=5, alpha=0.5, solid_capstyle="butt"
        )
        ax.plot([xb], [gxb], "ko", ms=4)
        ax.annotate(
            r"$(\bar x, f(\bar x))$",
            (xb, gxb),
            textcoords="offset points",
            xytext=(6, 6),
            fontsize=8,
        )

    return _diagrams.symm_panels(tables["data"], draw)
