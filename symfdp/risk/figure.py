r"""The one-page risk figure of a curve: its trade-off with the certified
bracket, the reported :math:`G_\mu`, and the operating points of a
:class:`~symfdp.risk.RiskReport`; the data as a tidy CSV beside it.

Left: :math:`\beta = f(\alpha)` on linear axes (the bracket shaded, the
advantage point where :math:`1 - \alpha - f(\alpha)` is largest). Right: the
same as a ROC curve, TPR :math:`1 - f(\alpha)` against FPR on log axes, where
the tails that decide :math:`\mu` and TPR at small FPR are visible, with the
TPR at each requested FPR and the ReRo point :math:`(\kappa, \gamma)` marked.
Matplotlib is imported when a figure is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import numpy as np

from symfdp.curve import PrivacyCurve
from symfdp.risk.report import RiskReport
from symfdp.risk.sampled import check_curve, sample
from symfdp.tradeoff import Gaussian

#: Points drawn per curve (every k-th point of the risk grid).
_DRAWN: Final = 1500


def write_report_figure(
    curve: PrivacyCurve, found: RiskReport, path: str | Path
) -> tuple[Path, Path]:
    """Draw ``found`` (the report of ``curve``) to ``path`` (.png, .pdf, .svg)
    and write the drawn curves to ``path`` with suffix ``.csv``.

    Returns:
        ``(figure, csv)``.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve.
        ValueError: ``path`` is not a .png/.pdf/.svg file in an existing directory.
    """
    from matplotlib.figure import Figure

    check_curve(curve)
    out = Path(path)
    if out.suffix.lower() not in (".png", ".pdf", ".svg") or not out.parent.is_dir():
        raise ValueError(
            "path must name a .png, .pdf or .svg file in an existing directory. "
            f"Found {str(path)!r}."
        )
    s = sample(curve, "report figure")
    step = max(len(s.alpha) // _DRAWN, 1)
    keep = np.unique(np.r_[np.arange(0, len(s.alpha), step), len(s.alpha) - 1])
    alpha, f, lo, hi = s.alpha[keep], s.f[keep], s.lower[keep], s.upper[keep]
    mu = found.gdp.reported_mu
    g = np.asarray(Gaussian(mu)(alpha), np.float64)

    fig = Figure(figsize=(10.0, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    left.fill_between(alpha, lo, hi, color="C0", alpha=0.25, lw=0, label="bracket")
    left.plot(alpha, f, color="C0", label=found.method)
    left.plot(alpha, g, color="C3", ls="--", label=rf"$G_\mu$, $\mu$ = {mu:.4g}")
    left.plot(alpha, 1 - alpha, color="0.6", lw=0.8, ls=":", label="perfect privacy")
    best = int(np.argmax(1.0 - s.alpha - s.f))
    a_star, f_star = float(s.alpha[best]), float(s.f[best])
    left.annotate(
        f"advantage {found.advantage.estimate:.4g}",
        (a_star, f_star),
        xytext=(a_star + 0.1, f_star + 0.15),
        arrowprops={"arrowstyle": "->", "color": "0.3"},
        fontsize=8,
    )
    left.set(xlabel=r"type I error $\alpha$", ylabel=r"type II error $\beta$",
             xlim=(0, 1), ylim=(0, 1), aspect="equal")  # fmt: skip
    left.legend(loc="upper right", fontsize=8)

    right.fill_between(alpha, 1 - hi, 1 - lo, color="C0", alpha=0.25, lw=0)
    right.plot(alpha, 1 - f, color="C0")
    right.plot(alpha, 1 - g, color="C3", ls="--")
    right.plot(alpha, alpha, color="0.6", lw=0.8, ls=":")
    for point in found.tpr:
        v = point.worst
        spread = [[v.estimate - v.lower], [v.upper - v.estimate]]
        right.errorbar(
            point.fpr, v.estimate, yerr=spread, marker="o", color="C1", ms=5,
            ls="none", zorder=5,
        )  # fmt: skip
        right.annotate(f"TPR {v.upper:.3g}", (point.fpr, v.upper), fontsize=7,
                       xytext=(4, 4), textcoords="offset points")  # fmt: skip
    gamma = found.rero_gamma
    label = rf"ReRo $\gamma$ at $\kappa$ = {found.kappa:g}"
    right.plot(found.kappa, gamma.upper, marker="s", color="C2", ms=6, ls="none",
               zorder=5, label=label)  # fmt: skip
    right.set(xscale="log", yscale="log", xlim=(1e-10, 1), ylim=(1e-10, 1.05),
              xlabel="false-positive rate", ylabel="true-positive rate")  # fmt: skip
    right.legend(loc="lower right", fontsize=8)
    bayes, regret = found.bayes_risk, found.gdp.regret
    guarantee = "certified brackets" if found.certified else "estimates"
    fig.suptitle(
        f"{found.method} ({guarantee}): mu <= {found.gdp.mu.upper:.4g}, regret "
        f"{regret.estimate:.3g}, advantage <= {found.advantage.upper:.4g}, Bayes "
        f"risk >= {bayes.lower:.4g} at prior {found.prior:g}",
        fontsize=9,
    )
    fig.savefig(out, dpi=150)
    csv = out.with_suffix(".csv")
    rows = ["curve,alpha,beta"]
    for name, ys in (("estimate", f), ("lower", lo), ("upper", hi), ("gdp", g)):
        pairs = zip(alpha.tolist(), ys.tolist(), strict=True)
        rows += [f"{name},{a!r},{b!r}" for a, b in pairs]
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return out, csv
