"""Pictures of the appendix of Dong et al. (2019).

* :func:`draw_diagram`: the proof diagrams of Figs. 10-12 ("Solid arrows
  indicate (random) mapping and dashed arrows indicate the trade-off function of
  the two ends"): labelled boxes, solid arrows between them and dashed
  double arrows with the trade-off function written beside them;
* :func:`symm_panels`: the two cases of the symmetrisation Symm(f) of App. F
  (Figs. 13, 14), x_bar <= f(x_bar) on the left and x_bar > f(x_bar) on the
  right, each panel on the unit square with the diagonal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import _style
import _tables
import matplotlib.pyplot as plt

#: A box: (x, y, text) in axes coordinates.
Node = tuple[float, float, str]


def draw_diagram(
    ax: Any,
    nodes: dict[str, Node],
    solid: Iterable[tuple[str, str]],
    dashed: Iterable[tuple[str, str, str, float]],
    *,
    fontsize: float = 9,
    clip: bool = True,
) -> None:
    """Boxes at ``nodes``; solid arrows = (random) maps, dashed = trade-offs.

    Args:
        ax: The Axes (its frame is switched off).
        nodes: key -> (x, y, text) in [0, 1]^2.
        solid: (from, to) keys of the solid arrows.
        dashed: (from, to, label, dx) of the dashed double arrows; the label
            sits at the midpoint moved by dx.
        fontsize: Of the boxes' texts (labels: 8).
        clip: Clip the arrows at the boxes (``patchA``/``patchB``); otherwise
            shrink them by a fixed 14 (solid) or 12 (dashed) points.
    """
    boxes = {}
    for key, (x, y, text) in nodes.items():
        boxes[key] = ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=fontsize,
            bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.6"},
        )
    if clip:
        ax.figure.canvas.draw()  # the box patches get their extents here

    def arrow(a: str, b: str, shrink: float, **props: Any) -> None:
        (xa, ya, _), (xb, yb, _) = nodes[a], nodes[b]
        ends = (
            {
                "patchA": boxes[a].get_bbox_patch(),
                "patchB": boxes[b].get_bbox_patch(),
                "shrinkA": 2,
                "shrinkB": 2,
            }
            if clip
            else {"shrinkA": shrink, "shrinkB": shrink}
        )
        ax.annotate("", xy=(xb, yb), xytext=(xa, ya), arrowprops={**ends, **props})

    for a, b in solid:
        arrow(a, b, 14, arrowstyle="->", lw=1.2)
    for a, b, text, side in dashed:
        arrow(a, b, 12, arrowstyle="<->", lw=1.0, ls="--", color="C3")
        (xa, ya, _), (xb, yb, _) = nodes[a], nodes[b]
        ax.text(
            0.5 * (xa + xb) + side,
            0.5 * (ya + yb),
            text,
            color="C3",
            ha="center",
            va="center",
            fontsize=8,
        )
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.axis("off")


def symm_panels(
    data: _tables.Table,
    draw: Callable[[Any, str, Callable[[str], tuple[Any, ...]]], None],
) -> plt.Figure:
    """The left and right cases of Symm(f), side by side.

    Args:
        data: Tidy (panel, curve, alpha, beta) rows.
        draw: (ax, panel, sel) -> draws the panel's curves; ``sel(curve)``
            gives the (alpha, beta) of a curve of that panel.
    """
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.9))
    for ax, panel in zip(axes, ("left", "right"), strict=True):

        def sel(curve: str, panel: str = panel) -> tuple[Any, ...]:
            return _tables.select(data, "alpha", "beta", panel=panel, curve=curve)

        draw(ax, panel, sel)
        ax.plot([0, 1], [0, 1], color="0.8", lw=0.6)
        _style.unit_square(
            ax,
            title=r"$\bar x\leq f(\bar x)$"
            if panel == "left"
            else r"$\bar x>f(\bar x)$",
        )
    return fig
