"""kappa3-bar of C_p(G_mu): Dong et al. (2019), Lemma functionalGmurep, needs a term.

Definition (Dong et al. 2019, Sec. 3.2): kappa3_bar(f) = int_0^1 |log|f'| + kl(f)|^3
with kl(f) = -int_0^1 log|f'|. C_p(G_mu) = min{f_p, f_p^{-1}}** with
f_p = p G_mu + (1 - p) Id (Thm 4.2, eq. (14)) has three pieces:

* [0, x*], x* = Phi(-mu/2) the point where |f_p'| = 1: C = f_p, and with
  t = Phi^{-1}(1 - alpha), |f_p'| = p e^{mu t - mu^2/2} + 1 - p = e^{Z(t)};
* [x*, y*], y* = f_p(x*): the segment of slope -1 (log|C'| = 0), of length
  y* - x* = (1 - p)(1 - 2 Phi(-mu/2));
* [y*, 1]: C = f_p^{-1}; with alpha = f_p(s), log|C'| = -Z and
  d alpha = |f_p'(s)| ds.

So, in t (d alpha = phi(t) dt on the first piece, |f_p'| phi(t) dt =
(p phi(t - mu) + (1 - p) phi(t)) dt on the third),

    kappa3_bar = int_{mu/2}^oo |Z + kl|^3 phi + (y* - x*) kl^3
                 + int_{mu/2}^oo |Z - kl|^3 (p phi(t - mu) + (1 - p) phi(t)).

The lemma as printed has the two integrals and omits the middle term. The script
evaluates the definition piece by piece at 30 digits (mpmath), the printed lemma
(symfdp.reference.functionals), and symfdp.functionals' value for the
subsampled Gaussian (Gauss-Legendre on the loss law, ~1e-13), at mu = 1, p = 1/2.
"""

from __future__ import annotations

import sys

import mpmath
from _report import Report

from symfdp import functionals as F
from symfdp import mechanisms as M
from symfdp.reference import functionals as RF

FINDING = "dong2019-kappa3bar-flat-segment"
DPS = 30


def definition(mu: float, p: float) -> dict[str, mpmath.mpf]:
    """kl and kappa3_bar of C_p(G_mu) from the definition, piece by piece."""
    with mpmath.workdps(DPS + 10):
        m, pp = mpmath.mpf(mu), mpmath.mpf(p)

        def phi(t):
            return mpmath.exp(-t * t / 2) / mpmath.sqrt(2 * mpmath.pi)

        def z(t):
            return mpmath.log(pp * mpmath.exp(m * t - m * m / 2) + 1 - pp)

        def w3(t):  # |f_p'(s)| d s / dt on the third piece
            return pp * phi(t - m) + (1 - pp) * phi(t)

        def quad(fn, kinks=()):
            pts = sorted({m / 2, *(k for k in kinks if k > m / 2), m / 2 + 1})
            return mpmath.quad(fn, [*pts, m / 2 + 4, m / 2 + 16, mpmath.inf])

        x_star = mpmath.ncdf(-m / 2)
        g_at = mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * x_star) - m)
        y_star = pp * g_at + (1 - pp) * (1 - x_star)
        flat = y_star - x_star
        # kl = -[int z dalpha (piece 1) + 0 (flat) + int (-z) |f_p'| ds (piece 3)]
        kl = -(quad(lambda t: z(t) * phi(t)) - quad(lambda t: z(t) * w3(t)))
        kink = mpmath.findroot(lambda t: z(t) - kl, m / 2 + 0.5)
        piece1 = quad(lambda t: abs(z(t) + kl) ** 3 * phi(t))
        piece3 = quad(lambda t: abs(-z(t) + kl) ** 3 * w3(t), (kink,))
        return {
            "kl": kl,
            "flat_length": flat,
            "kappa3_bar": piece1 + flat * kl**3 + piece3,
        }


def main() -> int:
    report = Report(
        "Dong et al. (2019), Lemma functionalGmurep: kappa3-bar of C_p(G_mu)"
    )
    mu, p = 1.0, 0.5
    with mpmath.workdps(DPS):
        d = definition(mu, p)
        rep = RF.functional_gmu_rep(mu, p, dps=DPS)
        term = RF.flat_segment_term(mu, p, rep["kl"], dps=DPS)
        printed = rep["kappa3_bar_printed"]
        tol = mpmath.mpf(10) ** -(DPS - 2)
        report.show("kl (definition)", mpmath.nstr(d["kl"], DPS))
        report.show(
            "kappa3_bar (definition, three pieces)", mpmath.nstr(d["kappa3_bar"], DPS)
        )
        report.show("kappa3_bar (lemma as printed)", mpmath.nstr(printed, DPS))
        report.show("(1-p)(1-2Phi(-mu/2)) kl^3", mpmath.nstr(term, DPS))
        report.check(
            "kl: definition = lemma (p int Z (phi(x-mu) - phi(x))) to 28 digits",
            abs(d["kl"] - rep["kl"]) < tol * abs(rep["kl"]),
            mpmath.nstr(abs(d["kl"] - rep["kl"]), 3),
        )
        report.check(
            "flat segment length f_p(x*) - x* = (1-p)(1 - 2 Phi(-mu/2)) to 28 digits",
            abs(d["flat_length"] - (1 - p) * (1 - 2 * mpmath.ncdf(-mu / 2))) < tol,
        )
        report.check(
            "definition = printed + (1-p)(1-2Phi(-mu/2)) kl^3 to 28 digits",
            abs(d["kappa3_bar"] - printed - term) < tol * d["kappa3_bar"],
            mpmath.nstr(abs(d["kappa3_bar"] - printed - term), 3),
        )
        gap = abs(d["kappa3_bar"] / printed - 1)
        report.check(
            "the printed value differs from the definition (relative gap > 1e-6)",
            gap > 1e-6,
            f"relative gap {mpmath.nstr(gap, 4)}",
        )
        lib = F.kappa3_bar(M.SubsampledGaussian(mu=mu, p=p))
        report.check(
            "symfdp.functionals (loss law, Gauss-Legendre) = definition to 1e-12",
            abs(lib / float(d["kappa3_bar"]) - 1) < 1e-12,
            f"{lib!r}",
        )
    report.misprint(
        FINDING,
        "Dong et al. (2019), Sec. 5.3, Lemma functionalGmurep: kappa3_bar(C_p(G_mu))",
        "int_{mu/2}^oo |Z - kl|^3 (p phi(x-mu) + (1-p) phi(x)) dx "
        "+ int_{mu/2}^oo |Z + kl|^3 phi(x) dx",
        "the same + (1-p)(1 - 2 Phi(-mu/2)) kl^3 (the flat segment of C_p(G_mu))",
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
