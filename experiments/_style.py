"""Shared styling of the trade-off figures.

A trade-off curve lives on the unit square: type I error on the x axis, type
II error on the y axis, equal aspect (Dong et al. 2019, Fig. 1 and after).
"""

from __future__ import annotations

from typing import Any

#: Axis labels in words, and with the symbols of the papers.
PLAIN = ("type I error", "type II error")
SYMBOLS = (r"type I error $\alpha$", r"type II error $\beta$")


def unit_square(
    ax: Any,
    labels: tuple[str, str] = PLAIN,
    *,
    legend: str | None = "upper right",
    **props: Any,
) -> None:
    """Limits [0, 1] x [0, 1], equal aspect, the axis ``labels`` and further
    Axes properties (``title=...``), then a legend at ``legend`` (None: none)."""
    xlabel, ylabel = labels
    ax.set(
        xlim=(0, 1), ylim=(0, 1), aspect="equal", xlabel=xlabel, ylabel=ylabel, **props
    )
    if legend is not None:
        ax.legend(loc=legend)
