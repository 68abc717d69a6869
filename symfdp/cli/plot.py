"""``symfdp account --plot``: the methods' trade-off curves and privacy profiles
in one figure, with the data as a tidy CSV beside it.

A method whose curve cannot be drawn (no trade-off curve, a query it refuses) is
left out of the figure and named, with the reason; the others are drawn.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from symfdp.cli.common import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.runs.records import MethodResult

#: Line style and marker per method (methods that agree draw on top of each
#: other; the dashes and sparse markers keep each one visible).
PLOT_STYLES: Final = (
    ("-", ""),
    ("--", "o"),
    ("-.", "s"),
    (":", "^"),
    ((0, (5, 1.5)), "D"),
    ((0, (3, 1, 1, 1, 1, 1)), "v"),
    ((0, (1, 1)), "x"),
    ((0, (8, 2)), "P"),
    ((0, (2, 2)), "*"),
)


@dataclass(frozen=True, slots=True)
class Drawn:
    """What :func:`write_plot` wrote.

    Attributes:
        figure: The image.
        data: The CSV of the drawn curves.
        left_out: ``(method, reason)`` of each method not drawn.
    """

    figure: str
    data: str
    left_out: tuple[tuple[str, str], ...]


def check_plot_path(path: str, flag: str = "--plot") -> Path:
    """The figure target of ``flag`` as a Path; its directory must exist."""
    out = Path(path)
    if out.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise UsageError(f"{flag} must name a .png, .pdf or .svg file. Found {path!r}.")
    if not out.parent.is_dir():
        raise UsageError(f"{flag}: directory {out.parent} does not exist.")
    return out


def _reason(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text or type(exc).__name__


def write_plot(
    path: str, results: list[MethodResult], title: str, delta: float | None
) -> Drawn:
    """Overlay the methods' trade-off curves (left) and privacy profiles on a log
    axis (right), each method in its own line style and marker, the point
    (epsilon(delta), delta) where each method's answer is read marked on the
    profile; write ``path`` and the data as a tidy CSV beside it.

    Raises:
        ValueError: no method has a curve that can be drawn.
    """
    import numpy as np
    from matplotlib.figure import Figure

    from symfdp import plotting

    out = check_plot_path(path)
    finite = [r.epsilon for r in results if r.epsilon is not None]
    finite += [a.eps for r in results for a in r.at_eps]
    top = 1.3 * max(finite) if finite and max(finite) > 0 else 10.0
    alpha = plotting.default_alpha_grid()
    eps = np.linspace(0.0, top, 240)
    drawable: list[tuple[MethodResult, Any, Any]] = []
    left_out: list[tuple[str, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # already reported with the numbers
        for r in results:
            if r.curve is None:
                left_out.append((r.method, r.error or "no curve was composed"))
                continue
            try:
                beta = np.asarray(r.curve.tradeoff(alpha), dtype=np.float64)
                profile = np.asarray(r.curve.delta(eps), dtype=np.float64)
            except Exception as exc:  # a method that cannot draw is named, not fatal
                left_out.append((r.method, _reason(exc)))
                continue
            drawable.append((r, beta, profile))
    if not drawable:
        reasons = "; ".join(f"{m}: {why}" for m, why in left_out)
        raise ValueError(f"--plot: no method produced a curve to draw ({reasons}).")
    fig = Figure(figsize=(9.0, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    for k, (r, beta, profile) in enumerate(drawable):
        ls, marker = PLOT_STYLES[k % len(PLOT_STYLES)]
        style: dict[str, Any] = {
            "color": f"C{k}",
            "ls": ls,
            "marker": marker,
            "markevery": (0.02 * k, 0.12),
            "markersize": 5,
            "fillstyle": "none",
            "lw": 1.6 if k == 0 else 1.3,
        }
        plotting.plot_tradeoff(
            lambda a, beta=beta: beta,
            ax=left,
            alpha=alpha,
            label=r.method,
            identity=k == len(drawable) - 1,
            **style,
        )
        right.plot(eps, np.ma.masked_less_equal(profile, 0.0), label=r.method, **style)
        points = [(a.epsilon, a.delta) for a in r.by_delta[:1]]
        points += [(a.eps, a.delta) for a in r.at_eps]
        for x, y in points:
            right.plot(
                x, y, marker=marker or "o", color=f"C{k}", markersize=8, ls="none",
                zorder=5,
            )  # fmt: skip
    right.set_yscale("log")
    right.set(xlabel=r"$\varepsilon$", ylabel=r"$\delta(\varepsilon)$")
    if delta is not None:
        right.axhline(delta, color="0.5", lw=0.8, ls=":")
        right.annotate(
            f"delta = {delta:g}: eps read here", (0.0, delta), fontsize=8, va="bottom"
        )
    for ax in (left, right):
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
    handles, labels = left.get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(labels), 5),
        fontsize=8,
        frameon=False,
    )
    if left_out:
        title += "\nnot drawn: " + ", ".join(m for m, _ in left_out)
    fig.suptitle(title, fontsize=9)
    fig.savefig(out, dpi=150)
    csv = out.with_suffix(".csv")
    with open(csv, "w", encoding="utf-8") as fh:
        fh.write("panel,method,x,y\n")
        for r, beta, profile in drawable:
            for panel, xs, ys in (("tradeoff", alpha, beta), ("profile", eps, profile)):
                for x, y in zip(xs, ys, strict=True):
                    fh.write(f"{panel},{r.method},{float(x)!r},{float(y)!r}\n")
    return Drawn(str(out), str(csv), tuple(left_out))
