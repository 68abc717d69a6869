"""C_p(f_{eps,delta}) in closed form: Dong et al. (2019), Cor. 4.3 / eq. (15).

Derivation (SymPy, exact): apply eq. (14) to the symmetric f = f_{eps,delta}.

1. the fixed point is x* = (1 - delta)/(1 + e^eps);
2. on [0, x*], f_p = p f + (1 - p) Id is the line 1 - delta' - e^{eps'} alpha with
   eps' = log(1 - p + p e^eps), delta' = p delta;
3. the middle segment x* + f_p(x*) - alpha of eq. (14) is 1 - delta'' - alpha
   with delta'' = p (e^eps - 1 + 2 delta)/(e^eps + 1) = p TV(f_{eps,delta});
4. on [f_p(x*), 1], f_p^{-1} is the mirrored line e^{-eps'}(1 - delta' - alpha);
   hence C_p(f_{eps,delta}) = max{f_{eps',delta'}, 1 - delta'' - alpha}.

Eq. (15) as printed has 1 - p delta - p (e^eps - 1)/(e^eps + 1) - alpha for the
middle line; the script reports the difference as a misprint and checks which
form the numeric C_p of ``symfdp.tradeoff`` (the generic hull of
min{f_p, f_p^{-1}}, Def. 4.1) reproduces, at the Fig. 6 (right) parameters
eps = 3, delta = 0.1, p = 0.2 and on a grid of parameters.
"""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import sympy as sp
from _report import Report

from symfdp import tradeoff as T
from symfdp.numeric.tabulate import alpha_grid

eps = sp.Symbol("epsilon", positive=True)
delta = sp.Symbol("delta", nonnegative=True)
p = sp.Symbol("p", positive=True)
a = sp.Symbol("alpha", real=True)
t = sp.Symbol("t", real=True)


def symbolic(report: Report) -> dict[str, sp.Expr]:
    upper = 1 - delta - sp.exp(eps) * a  # f_{eps,delta}, first line (eq. (5))
    lower = sp.exp(-eps) * (1 - delta - a)  # its mirror image
    x_star = sp.solve(sp.Eq(upper, a), a)[0]
    report.show("x* (fixed point of f_{eps,delta})", x_star)
    report.check(
        "both lines of f_{eps,delta} cross the diagonal at x* = (1-delta)/(1+e^eps)",
        sp.simplify(x_star - (1 - delta) / (1 + sp.exp(eps))) == 0
        and sp.simplify(lower.subs(a, x_star) - x_star) == 0,
    )

    eps_p = sp.log(1 - p + p * sp.exp(eps))
    delta_p = p * delta
    f_p_left = p * upper + (1 - p) * (1 - a)  # f_p on [0, x*]
    report.check(
        "f_p = 1 - delta' - e^{eps'} alpha on [0, x*] (delta' = p delta, "
        "eps' = log(1 - p + p e^eps))",
        sp.simplify(f_p_left - (1 - delta_p - sp.exp(eps_p) * a)) == 0,
    )

    y_star = f_p_left.subs(a, x_star)
    middle = sp.simplify(x_star + y_star - a)  # eq. (14), middle segment
    delta_pp = p * (sp.exp(eps) - 1 + 2 * delta) / (sp.exp(eps) + 1)
    report.show("eq. (14) middle segment", sp.factor(middle + a) - a)
    report.check(
        "middle segment = 1 - delta'' - alpha, delta'' = p (e^eps - 1 + 2 delta)/"
        "(e^eps + 1)",
        sp.simplify(middle - (1 - delta_pp - a)) == 0,
    )
    tv = 1 - 2 * x_star  # 1 - min_x (x + f(x)) (CF-D23), attained at x*
    report.check(
        "delta'' = p TV(f_{eps,delta}) with TV = 1 - 2 x*",
        sp.simplify(delta_pp - p * tv) == 0,
    )

    # Third segment: f_p^{-1} of the first line is its mirror image.
    inv = sp.solve(sp.Eq(f_p_left.subs(a, t), a), t)[0]
    report.check(
        "f_p^{-1}(alpha) = e^{-eps'}(1 - delta' - alpha) on [f_p(x*), 1 - delta']",
        sp.simplify(inv - sp.exp(-eps_p) * (1 - delta_p - a)) == 0,
    )
    report.check(
        "the max form is continuous at x*: f_{eps',delta'}(x*) = middle(x*)",
        sp.simplify((1 - delta_p - sp.exp(eps_p) * a - middle).subs(a, x_star)) == 0,
    )

    printed = 1 - p * delta - p * (sp.exp(eps) - 1) / (sp.exp(eps) + 1) - a
    gap = sp.simplify(middle - printed)
    report.show("(eq. (14) middle line) - (eq. (15) printed line)", sp.factor(gap))
    report.check(
        "the printed line lies below the true one by p delta tanh(eps/2) >= 0",
        sp.simplify((gap - p * delta * sp.tanh(eps / 2)).rewrite(sp.exp)) == 0,
    )
    if sp.simplify(gap) != 0:
        report.misprint(
            "dong2019-eq15-middle-line",
            "Dong et al. (2019), Cor. 4.3, eq. (15): the middle line",
            "max{f_{eps',delta'}(alpha), "
            "1 - p delta - p (e^eps - 1)/(e^eps + 1) - alpha}",
            "max{f_{eps',delta'}(alpha), "
            "1 - p (e^eps - 1 + 2 delta)/(e^eps + 1) - alpha}"
            " (the printed curve is a valid but loose bound when delta > 0; the two "
            "agree for delta = 0)",
        )
    report.show("LaTeX", sp.latex(sp.Eq(sp.Symbol("delta''"), delta_pp)))
    return {"delta_pp": delta_pp}


def _printed(eps_v: float, delta_v: float, p_v: float, x: np.ndarray) -> np.ndarray:
    eps_p = math.log(1 - p_v + p_v * math.exp(eps_v))
    line = 1 - p_v * delta_v - p_v * math.tanh(eps_v / 2) - x
    return np.maximum(T.EpsDelta(eps_p, p_v * delta_v)(x), line)


def numeric(report: Report) -> None:
    x = alpha_grid()
    worst_closed = worst_14 = 0.0
    for eps_v, delta_v, p_v in itertools.product(
        (0.0, 0.5, 1.0, 3.0, 6.0), (0.0, 0.01, 0.1, 0.4), (0.02, 0.2, 0.5, 1.0)
    ):
        hull = T.Symmetrized(T.Mixture(T.EpsDelta(eps_v, delta_v), p_v))(x)
        closed = T.subsampled_eps_delta(eps_v, delta_v, p_v)(x)
        via14 = T.Subsampled(T.EpsDelta(eps_v, delta_v), p_v)(x)
        worst_closed = max(worst_closed, float(np.max(np.abs(closed - hull))))
        worst_14 = max(worst_14, float(np.max(np.abs(via14 - hull))))
    report.check(
        "corrected Cor. 4.3 = numeric C_p (hull of min{f_p, f_p^{-1}}) on 80 cases",
        worst_closed < 1e-12,
        f"max |diff| = {worst_closed:.1e}",
    )
    report.check(
        "eq. (14) with the fixed point = numeric C_p on the same cases",
        worst_14 < 1e-12,
        f"max |diff| = {worst_14:.1e}",
    )

    # dong2019-fig6-right: eps = 3, delta = 0.1, p = 0.2.
    eps_v, delta_v, p_v = 3.0, 0.1, 0.2
    hull = T.Symmetrized(T.Mixture(T.EpsDelta(eps_v, delta_v), p_v))(x)
    printed = _printed(eps_v, delta_v, p_v, x)
    gap = float(np.max(hull - printed))
    report.show("Fig. 6 (right): max(numeric C_p - printed eq. (15))", f"{gap:.6f}")
    report.check(
        "Fig. 6 (right): the printed eq. (15) is below C_p by p delta tanh(eps/2)",
        abs(gap - p_v * delta_v * math.tanh(eps_v / 2)) < 1e-12
        and bool(np.all(printed <= hull + 1e-15)),
        f"p delta tanh(eps/2) = {p_v * delta_v * math.tanh(eps_v / 2):.6f}",
    )
    eps_p = math.log(1 - p_v + p_v * math.exp(eps_v))
    classical = T.EpsDelta(eps_p, p_v * delta_v)(x)
    report.check(
        "C_p(f_{eps,delta}) >= f_{eps',delta'} (Lemma `DPsubsamplerep`, [Ull17])",
        bool(np.all(hull >= classical - 1e-15)),
        f"largest improvement {float(np.max(hull - classical)):.4f} (shaded triangle)",
    )


def main() -> int:
    report = Report("Dong et al. (2019), Cor. 4.3: subsampled (eps, delta)-DP")
    symbolic(report)
    numeric(report)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
