r"""The privacy of a composition (:class:`PrivacyCurve`) and the protocol by which it
asks each composed dominating pair (:class:`PairCurve`) for an answer.

Modules, one job each:

* :mod:`~symfdp.curve.answer` -- the pair protocol: :class:`Query`,
  :class:`Repair`, :class:`Answer`, :class:`PairCurve`;
* :mod:`~symfdp.curve.privacy` -- :class:`PrivacyCurve`: validation, the
  queries, the last answer per query;
* :mod:`~symfdp.curve.bounded` -- the loss-range repair (:class:`BoundedLossPair`);
* :mod:`~symfdp.curve.combine` -- the maximum over pairs with its error, the
  symmetric hull, certified lower-bound vertices;
* :func:`invert_profile` -- profile inversion (from :mod:`symfdp.numeric.roots`);
* :mod:`~symfdp.curve.mu_star` -- the GDP summary mu* with its error or bracket;
* :mod:`~symfdp.curve.report` -- the one warning of a query;
* :mod:`~symfdp.curve.summary` -- what a curve is, in words.
"""

from __future__ import annotations

from symfdp.curve.answer import Answer, FloatArray, PairCurve, Query, Repair
from symfdp.curve.bounded import BoundedLossPair
from symfdp.curve.combine import (
    convex_lower_bound_points,
    max_over_pairs,
    max_with_error,
    symmetric_hull,
)
from symfdp.curve.mu_star import MU_STAR_RTOL, MuStarAnswer
from symfdp.curve.privacy import PrivacyCurve
from symfdp.numeric.roots import EPS_SEARCH_LIMIT, invert_profile

__all__ = [
    "EPS_SEARCH_LIMIT",
    "MU_STAR_RTOL",
    "Answer",
    "BoundedLossPair",
    "FloatArray",
    "MuStarAnswer",
    "PairCurve",
    "PrivacyCurve",
    "Query",
    "Repair",
    "convex_lower_bound_points",
    "invert_profile",
    "max_over_pairs",
    "max_with_error",
    "symmetric_hull",
]
