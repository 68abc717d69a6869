r"""What the Edgeworth pair repairs, and the records it gives (module docstring
of :mod:`symfdp.accountants.edgeworth`, items 1-4).

Each function returns :class:`~symfdp.curve.Repair` records for the queried
points (never a warning: the curve turns the records into one); the
validity ranges (:func:`valid_eps`) and the end :math:`\varepsilon^*` of an
empty upper tail of the Q-expansion (:func:`tail_end_error`) decide where an
answer is repaired or no guarantee."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
from scipy import special

from symfdp.accountants.edgeworth.law import EdgeworthLaw
from symfdp.curve import Query, Repair
from symfdp.mechanisms.base import FloatArray

#: Repairs that change a trade-off value by less than this are round-off.
TRADEOFF_TOL: Final = 1e-9
#: Relative size (w.r.t. the two terms of the tail formula) of a negligible
#: negative profile value, and of a negligible monotone repair.
PROFILE_RTOL: Final = 1e-9


def splice_note(side: str, law: EdgeworthLaw) -> str:
    """The record's text for a query that reached the spliced tails of ``law``."""
    a, b = law.interval
    empty = []
    if law.empty_below:
        empty.append("below")
    if law.empty_above:
        empty.append("above")
    note = (
        f"the {side}-law expansion is not a valid CDF outside the standardised "
        f"interval [{a:.4g}, {b:.4g}] (normal tail spliced there"
    )
    if empty:
        note += f"; the tail {' and '.join(empty)} it carries no mass"
    return note + ")"


def valid_eps(law_p: EdgeworthLaw, law_q: EdgeworthLaw) -> tuple[float, float]:
    """The eps range where neither law is spliced."""
    ends = [
        (law.mean + law.sd * law.interval[0], law.mean + law.sd * law.interval[1])
        for law in (law_p, law_q)
    ]
    return max(lo for lo, _ in ends), min(hi for _, hi in ends)


def tradeoff_repairs(
    law_p: EdgeworthLaw,
    law_q: EdgeworthLaw,
    cf_range: tuple[float, float] | None,
    a: FloatArray,
    x: FloatArray,
    raw: FloatArray,
    clipped: FloatArray,
    out: FloatArray,
) -> tuple[Repair, ...]:
    """The records of the trade-off's repairs (items 1-3): splices (of the
    P-law unless the Cornish–Fisher quantile, increasing on ``cf_range``, is
    used), clipping at :math:`1 - \\alpha`, the convex minorant."""
    found: list[Repair] = []
    p, q = law_p, law_q
    finite = np.isfinite(x)
    xs = x[finite]
    if cf_range is not None:
        with np.errstate(divide="ignore"):
            z = -special.ndtri(a[finite])
        lo, hi = cf_range
        if np.any((z < lo) | (z > hi)):
            found.append(
                Repair(
                    Query.TRADEOFF,
                    "the Cornish-Fisher quantile is not monotone beyond z in "
                    f"[{lo:.4g}, {hi:.4g}] and was continued with unit slope "
                    "there",
                )
            )
    elif np.any(p.outside(xs)):
        found.append(Repair(Query.TRADEOFF, splice_note("P", p)))
    y = (p.mean + p.sd * xs - q.mean) / q.sd
    if np.any(q.outside(y)):
        found.append(Repair(Query.TRADEOFF, splice_note("Q", q)))
    for change, note in (
        (raw - clipped, "values above 1 - alpha were clipped"),
        (
            clipped - out,
            "the curve is not convex; it was replaced by its convex minorant",
        ),
    ):
        k = int(np.argmax(change)) if change.size else 0
        if change.size and change[k] > TRADEOFF_TOL:
            found.append(Repair(Query.TRADEOFF, note, float(a[k]), float(change[k])))
    return tuple(found)


def delta_repairs(
    law_p: EdgeworthLaw,
    law_q: EdgeworthLaw,
    info: Mapping[str, Any],
    on_table: bool,
    e: FloatArray,
    repaired: FloatArray,
    raw: FloatArray,
    scale: FloatArray,
) -> tuple[Repair, ...]:
    """The records of the profile's repairs (items 1 and 4): splices, negative
    values set to 0, the non-increasing majorant (``on_table``: the profile was
    read from the tabulated majorant), the empty upper tail."""
    found: list[Repair] = []
    p, q = law_p, law_q
    lo, hi = valid_eps(p, q)
    if e.size and (lo > -np.inf or hi < np.inf) and (e.min() < lo or e.max() > hi):
        if np.any(p.outside(p.standardise(e))):
            found.append(Repair(Query.DELTA, splice_note("P", p)))
        if np.any(q.outside(q.standardise(e))):
            found.append(Repair(Query.DELTA, splice_note("Q", q)))
    if raw.size and raw.min() < 0.0 and np.any(raw < -PROFILE_RTOL * scale):
        k = int(np.argmin(raw))
        found.append(
            Repair(
                Query.DELTA,
                "negative values of the tail formula were set to 0",
                float(e[k]),
                float(-raw[k]),
            )
        )
    lifted = repaired - np.maximum(raw, 0.0)
    if on_table and np.any(lifted > PROFILE_RTOL * scale):
        k = int(np.argmax(lifted))
        found.append(
            Repair(
                Query.DELTA,
                "the tail formula is not non-increasing here; its smallest "
                "non-increasing majorant was used",
                float(e[k]),
                float(lifted[k]),
            )
        )
    if info["zero_mass_tail_eps"] is not None:
        found.extend(empty_tail_repairs(info, Query.DELTA, e))
    return tuple(found)


def empty_tail_repairs(
    info: Mapping[str, Any], query: Query, e: FloatArray, atol: float = 0.0
) -> tuple[Repair, ...]:
    """A record when some ``e`` is at least ``eps* - atol`` (below the
    loss's end): beyond the empty tail of the Q-expansion the answer is not
    a guarantee (its error is unknown)."""
    star = info["zero_mass_tail_eps"]
    upper = info["loss_upper"]
    if star is None or star >= upper:
        return ()
    if not np.any((e >= star - atol) & (e < upper)):
        return ()
    return (
        Repair(
            query,
            "the expansion of the Q-law of the privacy loss has no mass above "
            f"eps* = {star:.6g} while the loss itself reaches {upper:.6g}, so "
            "delta(eps) for eps >= eps* (and epsilon(delta) near it) is NOT a "
            "privacy guarantee and is likely too small (anti-conservative)",
        ),
    )


def tail_end_error(
    info: Mapping[str, Any], eps: FloatArray, err: FloatArray
) -> FloatArray:
    r"""``err``, or ``inf`` where :math:`\hat\varepsilon + \text{err} \ge
    \varepsilon^*` (``zero_mass_tail_eps``) while the composed loss reaches
    beyond :math:`\varepsilon^*`.

    Above :math:`\varepsilon^*` the Q-expansion has no mass, so its profile
    falls to 0 there however heavy the true tail is; an answer whose error
    band reaches :math:`\varepsilon^*` is set by the end of the expansion,
    not by the law. Atom-dominated compositions put answers exactly there:
    Laplace steps (atoms at :math:`\pm\mu`, a bounded loss) make the
    Q-law strongly left-skewed, its order-2 expansion reaches 1 at
    :math:`\varepsilon^*`, and deep-tail targets all solve to
    :math:`\varepsilon^*` (Laplace(2.84) x 30 with rare subsampled-Gaussian
    steps, delta = 2.4e-10: 79.39 where the certified value is 85.11, the
    delta-error estimate there 3e6 times delta, its linearisation 3.3).
    The true eps may lie anywhere beyond: the estimate cannot tell."""
    star = info["zero_mass_tail_eps"]
    if star is None or star >= info["loss_upper"]:
        return err
    return np.where(eps + err >= star, np.inf, err)
