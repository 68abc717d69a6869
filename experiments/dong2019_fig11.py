"""Dong et al. (2019), Figure 11: "Lemma C.1 implies well-definedness of (x)."

Lemma C.2: if T(P, Q) >= T(P~, Q~) then T(P x P', Q x Q') >= T(P~ x P', Q~ x Q'),
with equality when the assumption holds with equality; so f (x) g does not depend
on the distributions representing f, and (25): g_1 >= g_2 implies
f (x) g_1 >= f (x) g_2. (In the figure the algorithms ignore their input y and
output Q, Q~ or P, P~.)

Instance: T(P, Q) = G_0.5 >= T(P~, Q~) = G_1, and (P', Q') = (Lap(0,1), Lap(1,1)).
The products are computed twice: from the definition, through the privacy profile
of the product, E_{e^eps}(Q x Q' || P x P') = E_{y ~ Q'}[delta_G(eps - L'(y))]
(integrated over the Laplace coordinate), converted with Prop. 2.8; and with the
certified A.Numerical composition. The equality case uses a second representation
of G_0.5: P~ = N(0.5, 1), Q~ = N(0, 1) (the swapped pair).
"""

from __future__ import annotations

import math
from typing import Any

import _diagrams
import _style
import _tables
import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.mechanisms.gaussian import gaussian_privacy_profile
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="dong2019-fig11",
    title="Lemma C.2 (well-definedness and monotonicity of (x)): diagram and instance",
    source="Dong et al. (2019), Fig. 11, App. C, Lemma C.2 and (25)",
    params={
        "mu_f": 0.5,
        "mu_f_tilde": 1.0,
        "lap_mu": 1.0,
        "n_alpha": 401,
        "n_eps": 1201,
        "gl_nodes": 64,
    },
    quick={"n_alpha": 201, "n_eps": 601},
    notes=(
        "Instance chosen by us (the lemma is qualitative): G_0.5 >= G_1 composed "
        "with the Laplace pair T(Lap(0,1), Lap(1,1)).",
        "Definition route: the Laplace privacy loss is L' = -1 on y <= 0 "
        "(Q'-mass e^{-1}/2), 2y - 1 on (0, 1) (Q'-density e^{y-1}/2) and +1 on "
        "y >= 1 (mass 1/2); the middle part is integrated with Gauss-Legendre "
        "(gl_nodes points); the trade-off is T.tradeoff_from_profile with "
        "symmetric=True on n_eps eps values in [0, 12] (the product of symmetric "
        "trade-offs is symmetric).",
        "Numerical route: A.Numerical on [(Gaussian, 1), (Laplace, 1)], whose "
        "certified bracket must contain the definition route (up to 1e-6 for the "
        "finite eps grid).",
    ),
)


def _product_profile(mu: float, lap_mu: float, nodes: int):
    """eps -> E_{e^eps}(Q x Q' || P x P') for G_mu (x) T(Lap(0,1), Lap(lap_mu,1))."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    y = 0.5 * lap_mu * (x + 1)
    wy = 0.5 * lap_mu * w * 0.5 * np.exp(y - lap_mu)

    def delta(eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, dtype=float)[..., None]
        mid = np.sum(wy * gaussian_privacy_profile(mu, e - (2 * y - lap_mu)), axis=-1)
        lo = 0.5 * math.exp(-lap_mu) * gaussian_privacy_profile(mu, e[..., 0] + lap_mu)
        hi = 0.5 * gaussian_privacy_profile(mu, e[..., 0] - lap_mu)
        return lo + mid + hi

    return delta


def compute(params: dict[str, Any]) -> Result:
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    eps = np.linspace(0.0, 12.0, params["n_eps"])
    lap = M.Laplace(mu=params["lap_mu"])
    rows = _tables.Rows("curve", "alpha", "beta")

    def add(name: str, beta: np.ndarray) -> None:
        rows.add(name, alpha, beta)

    results = {}
    for key, mu in (("f", params["mu_f"]), ("f_tilde", params["mu_f_tilde"])):
        delta = _product_profile(mu, params["lap_mu"], params["gl_nodes"])
        by_def = np.asarray(T.tradeoff_from_profile(delta, alpha, eps, symmetric=True))
        num = A.Numerical().compose([(M.Gaussian(mu=mu), 1), (lap, 1)])
        lo, hi = (np.asarray(b) for b in num.tradeoff_bounds(alpha))
        results[key] = (by_def, lo, hi)
        add(f"{key}_single", T.Gaussian(mu)(alpha))
        add(f"{key}_product", by_def)
    swapped = A.Numerical().compose(
        [(M.Swapped(M.Gaussian(mu=params["mu_f"])), 1), (lap, 1)]
    )
    s_lo, s_hi = (np.asarray(b) for b in swapped.tradeoff_bounds(alpha))
    add("g", T.Laplace(params["lap_mu"])(alpha))

    inside = max(
        float(np.max(np.maximum(lo - d, d - hi))) for d, lo, hi in results.values()
    )
    f_def, f_lo, _ = results["f"]
    t_def, _, t_hi = results["f_tilde"]
    order = float(np.min(f_lo - t_hi))
    order_def = float(np.min(f_def - t_def))
    _, f_lo, f_hi = results["f"]
    overlap = float(np.max(np.maximum(s_lo - f_hi, f_lo - s_hi)))
    width = float(np.max(np.maximum(s_hi - s_lo, f_hi - f_lo)))

    claims = (
        claim_holds(
            "product-routes-agree",
            "f (x) g = T(P x P', Q x Q') (Def. 3.1), here by the definition and by "
            "numerical composition",
            "T(P x P', Q x Q')",
            f"definition route outside the certified bracket by at most {inside:.1e}",
            inside <= 1e-6,
            "the definition route lies in A.Numerical's certified bracket up to 1e-6",
        ),
        claim_holds(
            "lemma-c2-order",
            "Lemma C.2 / (25): T(P,Q) >= T(P~,Q~) implies T(P x P', Q x Q') >= "
            "T(P~ x P', Q~ x Q')",
            "monotone",
            f"min(lower(G_0.5 (x) g) - upper(G_1 (x) g)) = {order:.2e}; by "
            f"definition {order_def:.2e}",
            order >= -1e-12 and order_def >= -1e-12,
            "the certified lower bound of the first product is >= the certified "
            "upper bound of the second at every alpha (to 1e-12 rounding at the "
            "ends, where both are 0 or 1)",
        ),
        claim_holds(
            "lemma-c2-equality",
            "equality is inherited: the product does not depend on the "
            "representation of f (well-definedness of (x))",
            "well defined",
            f"brackets of the two representations overlap (gap {overlap:.1e} <= 0); "
            f"widths <= {width:.1e}",
            overlap <= 0,
            "the certified brackets for (N(0,1), N(0.5,1)) and (N(0.5,1), N(0,1)) "
            "intersect at every alpha",
        ),
    )
    return Result({"data": rows.table()}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
    fig, axes = plt.subplots(2, 2, figsize=(7.5, 7.2))
    _diagrams.draw_diagram(
        axes[0, 0],
        {
            "y1": (0.12, 0.8, r"$y$"),
            "Q": (0.55, 0.88, r"$Q$"),
            "Qt": (0.88, 0.72, r"$\tilde Q$"),
            "y0": (0.12, 0.2, r"$y$"),
            "P": (0.55, 0.28, r"$P$"),
            "Pt": (0.88, 0.12, r"$\tilde P$"),
        },
        [("y1", "Q"), ("y1", "Qt"), ("y0", "P"), ("y0", "Pt")],
        [("P", "Q", "$T(P,Q)$", -0.12), ("Pt", "Qt", r"$T(\tilde P,\tilde Q)$", -0.14)],
        fontsize=10,
        clip=False,
    )
    axes[0, 0].set_title(r"algorithms ignoring $y$")
    _diagrams.draw_diagram(
        axes[0, 1],
        {
            "Qp": (0.1, 0.8, r"$Q'$"),
            "QQ": (0.52, 0.88, r"$Q\times Q'$"),
            "QtQ": (0.85, 0.72, r"$\tilde Q\times Q'$"),
            "Pp": (0.1, 0.2, r"$P'$"),
            "PP": (0.52, 0.28, r"$P\times P'$"),
            "PtP": (0.85, 0.12, r"$\tilde P\times P'$"),
        },
        [("Qp", "QQ"), ("Qp", "QtQ"), ("Pp", "PP"), ("Pp", "PtP")],
        [
            ("PP", "QQ", r"$f\otimes g$", -0.11),
            ("PtP", "QtQ", r"$\tilde f\otimes g$", -0.12),
        ],
        fontsize=10,
        clip=False,
    )
    axes[0, 1].set_title(r"joint laws: products")

    def sel(name: str) -> tuple[np.ndarray, ...]:
        return _tables.select(data, "alpha", "beta", curve=name)

    p = params
    axes[1, 0].plot(*sel("f_single"), color="C0", label=rf"$f=G_{{{p['mu_f']:g}}}$")
    axes[1, 0].plot(
        *sel("f_tilde_single"),
        color="C1",
        label=rf"$\tilde f=G_{{{p['mu_f_tilde']:g}}}$",
    )
    axes[1, 0].plot(
        *sel("g"),
        color="0.4",
        ls="--",
        label=rf"$g=T(\mathrm{{Lap}}(0,1),\mathrm{{Lap}}({p['lap_mu']:g},1))$",
    )
    axes[1, 1].plot(*sel("f_product"), color="C0", label=r"$f\otimes g$")
    axes[1, 1].plot(*sel("f_tilde_product"), color="C1", label=r"$\tilde f\otimes g$")
    for ax in axes[1]:
        ax.plot([0, 1], [1, 0], color="0.8", lw=0.6, ls=":")
        _style.unit_square(ax)
    axes[1, 0].set_title(r"$f\geq\tilde f$")
    axes[1, 1].set_title(r"$f\otimes g\geq\tilde f\otimes g$")
    return fig
