"""Zheng et al. (2020), Figure 4.1: the two-parameter (mu*, gamma) interpreter.

Sec. 4: alpha* is the fixed point f_EW(alpha*) = alpha*, mu* = Phi^{-1}(1 - alpha*)
- Phi^{-1}(alpha*) and gamma = int_0^1 f_EW. Left panel: "The Edgeworth
approximation f_EW, the CLT approximation G_{mu*}, and the line y = x intersect at
the point (alpha*, alpha*)". Right panel: f_EW^(2) upper bounds f_EW^(1), so it is
more private, and indeed mu*^(2) < mu*^(1) and gamma^(2) > gamma^(1); the
parameters live in {mu >= 0, 0 <= gamma <= 1/2}.
"""

from __future__ import annotations

from typing import Any

import _style
import _zheng
import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp import tradeoff as T
from symfdp.reproduce import Result, Spec, claim_holds

SPEC = Spec(
    id="zheng2020-fig4.1",
    title="(mu*, gamma) interpreter on symmetrised Edgeworth curves of noisy SGD",
    source="Zheng et al. (2020), Fig. 4.1 and Sec. 4",
    params={
        "sigma": 1.0,
        "p0": 0.5,
        "p_power": 0.25,
        "n_left": 10,
        "n_f1": 500,
        "n_f2": 50,
        "n_alpha": 1001,
    },
    quick={"n_alpha": 401},
    notes=(
        "The figure is qualitative and gives no parameters. Curves are taken from the "
        "noisy-SGD experiment of Sec. 5.3 (sigma = 1, p = 0.5/n^{1/4}): f_EW is the "
        "symmetrised degree-2 Edgeworth curve min{g, g^{-1}}** "
        "(PrivacyCurve.tradeoff(alpha, symmetric=True)). Left: n = 10. Right: "
        "f^(1) for n = 500 and f^(2) for n = 50 (fewer compositions, more private). "
        "Pairs with a small n (5 or 10) against a larger one are not ordered "
        "everywhere: the small-n Edgeworth curve reaches 0 for alpha > ~0.98 while "
        "the other is still ~1e-6 (e.g. n = 10 vs 100: min(f2 - f1) = -3.6e-6 at "
        "alpha = 0.9875; the true curves are ordered there), an artefact of the "
        "expansion's tail; such pairs were therefore not used for the illustration.",
        "(mu*, gamma) from PrivacyCurve.mu_star_gamma(): fixed point by bisection of "
        "f(alpha) - alpha, mu* = -2 Phi^{-1}(alpha*), gamma by Gauss-Legendre "
        "quadrature of the curve.",
    ),
)


def _curve(params: dict[str, Any], n: int) -> Any:
    return A.Edgeworth(order=2).compose(_zheng.noisy_sgd(params, n), n)


def compute(params: dict[str, Any]) -> Result:
    alpha = np.linspace(0.0, 1.0, params["n_alpha"])
    left = _curve(params, params["n_left"])
    mu_l, gamma_l = left.mu_star_gamma()
    a_star = T.fixed_point(lambda x: np.asarray(left.tradeoff(x)))
    g_star = T.Gaussian(mu_l)
    res_ew = float(left.tradeoff(a_star)) - a_star
    res_g = float(g_star(a_star)) - a_star

    f1, f2 = _curve(params, params["n_f1"]), _curve(params, params["n_f2"])
    (mu1, gamma1), (mu2, gamma2) = f1.mu_star_gamma(), f2.mu_star_gamma()
    b1, b2 = np.asarray(f1.tradeoff(alpha)), np.asarray(f2.tradeoff(alpha))
    order = T.compare_mu_star_gamma((mu1, gamma1), (mu2, gamma2))
    a1 = T.fixed_point(lambda x: np.asarray(f1.tradeoff(x)))
    a2 = T.fixed_point(lambda x: np.asarray(f2.tradeoff(x)))

    names = ["f_EW (left)", "G_mu* (left)", "f_EW^(1)", "f_EW^(2)"]
    values = [np.asarray(left.tradeoff(alpha)), np.asarray(g_star(alpha)), b1, b2]
    table = {
        "curve": np.repeat(names, alpha.size),
        "alpha": np.tile(alpha, len(names)),
        "beta": np.concatenate(values),
    }
    summary = {
        "curve": np.array(["f_EW (left)", "f_EW^(1)", "f_EW^(2)"]),
        "n": np.array([params["n_left"], params["n_f1"], params["n_f2"]], dtype=float),
        "alpha_star": np.array([a_star, a1, a2]),
        "mu_star": np.array([mu_l, mu1, mu2]),
        "gamma": np.array([gamma_l, gamma1, gamma2]),
    }
    gap = float(np.min(b2 - b1))
    in_domain = all(m >= 0 and 0 <= g <= 0.5 for m, g in ((mu1, gamma1), (mu2, gamma2)))
    claims = (
        claim_holds(
            "left-common-point",
            "f_EW, the CLT approximation G_{mu*} and the line y = x intersect at "
            "(alpha*, alpha*)",
            "f_EW(alpha*) = G_{mu*}(alpha*) = alpha*",
            f"alpha* = {a_star:.6f}, mu* = {mu_l:.6f}: f_EW(alpha*) - alpha* = "
            f"{res_ew:.1e}, G_mu*(alpha*) - alpha* = {res_g:.1e}",
            abs(res_ew) <= 1e-9 and abs(res_g) <= 1e-9,
            "|f_EW(alpha*) - alpha*| <= 1e-9 and |G_{mu*}(alpha*) - alpha*| <= 1e-9",
        ),
        claim_holds(
            "right-more-private",
            "f_EW^(2) upper bounds f_EW^(1) and thus it is more private: "
            "mu*^(2) < mu*^(1) and gamma^(2) > gamma^(1)",
            "f^(2) >= f^(1), mu*^(2) < mu*^(1), gamma^(2) > gamma^(1)",
            f"min(f2 - f1) = {gap:.3g}; (mu*, gamma)^(1) = ({mu1:.4f}, {gamma1:.4f}), "
            f"(mu*, gamma)^(2) = ({mu2:.4f}, {gamma2:.4f}); compare_mu_star_gamma = "
            f"{order}",
            gap >= -1e-12 and mu2 < mu1 and gamma2 > gamma1 and order == 1,
            "f^(2) - f^(1) >= -1e-12 on the alpha grid, mu*^(2) < mu*^(1), "
            "gamma^(2) > gamma^(1), and T.compare_mu_star_gamma(f1, f2) == 1",
        ),
        claim_holds(
            "domain",
            "The parameterisation lives in {(mu, gamma): mu >= 0, 0 <= gamma <= 1/2}",
            "mu* >= 0 and 0 <= gamma <= 1/2",
            f"(mu*, gamma) = ({mu1:.4f}, {gamma1:.4f}), ({mu2:.4f}, {gamma2:.4f})",
            in_domain,
            "both curves' (mu*, gamma) in the stated domain",
        ),
    )
    return Result({"data": table, "summary": summary}, claims)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data, summ = tables["data"], tables["summary"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.0, 4.2))

    def draw(ax: Any, name: str, **style: Any) -> None:
        sel = data["curve"] == name
        ax.plot(data["alpha"][sel], data["beta"][sel], **style)

    a_star, mu_star = float(summ["alpha_star"][0]), float(summ["mu_star"][0])
    draw(left, "f_EW (left)", color="r", lw=1.8, label=r"$f_{\mathtt{EW}}$")
    draw(
        left,
        "G_mu* (left)",
        color="b",
        ls="--",
        lw=1.5,
        label=rf"$G_{{\mu^*}}$, $\mu^* = {mu_star:.3f}$",
    )
    left.plot([0, 1], [0, 1], color="0.5", lw=0.9, ls=":", label=r"$y = x$")
    left.plot([a_star], [a_star], "ko", ms=5)
    left.annotate(
        rf"$(\alpha^*, \alpha^*)$, $\alpha^* = {a_star:.3f}$",
        (a_star, a_star),
        xytext=(a_star + 0.06, a_star + 0.06),
    )
    left.set_title(rf"$n = {params['n_left']}$: the $(\mu^*, \gamma)$ parameters")

    for k, (name, colour) in enumerate((("f_EW^(1)", "C0"), ("f_EW^(2)", "C3"))):
        mu, gamma, n = (float(summ[c][k + 1]) for c in ("mu_star", "gamma", "n"))
        draw(
            right,
            name,
            color=colour,
            lw=1.8,
            label=rf"$f^{{({k + 1})}}_{{\mathtt{{EW}}}}$ ($n={n:g}$): "
            rf"$\mu^*={mu:.2f}$, $\gamma={gamma:.3f}$",
        )
        a = float(summ["alpha_star"][k + 1])
        right.plot([a], [a], "o", color=colour, ms=5)
        sel = data["curve"] == name
        right.fill_between(
            data["alpha"][sel], 0, data["beta"][sel], color=colour, alpha=0.08
        )
    right.plot([0, 1], [0, 1], color="0.5", lw=0.9, ls=":")
    right.set_title(
        r"$f^{(2)}_{\mathtt{EW}}$ is more private than $f^{(1)}_{\mathtt{EW}}$"
    )
    for ax in (left, right):
        _style.unit_square(ax, _style.SYMBOLS)
    fig.tight_layout()
    return fig
