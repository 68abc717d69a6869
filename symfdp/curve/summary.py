"""What a curve is, in words: its composition and a short Markdown summary (no
evaluation; the notebook display of :class:`~symfdp.curve.PrivacyCurve` and
:func:`symfdp.export.markdown`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def composition_text(info: Mapping[str, Any]) -> str:
    """The composition recorded in a curve's ``info`` as text, e.g.
    ``SubsampledGaussian(p=0.01, sigma=1.1, pair='both') x 1000``; ``n = 1000``
    when only the count is known."""
    comp = info.get("composition")
    if comp:
        return " + ".join(f"{m} x {k}" for m, k in comp)
    return f"n = {info.get('n', '?')}"


def markdown(
    label: str, certified: bool, symmetric: bool, info: Mapping[str, Any]
) -> str:
    """A short Markdown summary: method, guarantee, composition, relation and
    the queries the curve answers."""
    kind = "certified bracket" if certified else "approximation"
    lines = [
        f"**PrivacyCurve** — {label} ({kind})",
        "",
        f"- composition: {composition_text(info)}",
        "- relation: " + ("symmetric pair" if symmetric else "add and remove pairs"),
        "- query: `epsilon(delta)`, `delta(eps)`, `tradeoff(alpha)`"
        + (", `epsilon_bounds(delta)`" if certified else ""),
    ]
    return "\n".join(lines)
