r"""Edgeworth evaluators: one Horner kernel, one law, the two laws of a pair.

- :mod:`.horner`: the polynomial kernel every evaluator below uses.
- :mod:`.distribution`: :class:`EdgeworthDistribution`, the repaired order-``J``
  Edgeworth distribution of one standardised sum (CDF, survival function,
  density, quantiles; Zheng et al. (2020), eqs. (3.7)/(3.8)).
- :mod:`.pair_tails`: :class:`TailKernel`, both laws of a dominating pair in one
  pass for the two-sided tail formula (Zheng et al. (2020), Lemma 5.1), with the
  next-order terms of its error estimate.
"""

from __future__ import annotations

from symfdp.numeric.edgeworth.distribution import (
    X_BRACKET,
    X_CLIP,
    EdgeworthDistribution,
    correction_polynomial,
)
from symfdp.numeric.edgeworth.pair_tails import (
    TailKernel,
    reference_kernel,
    series_diverges,
)

__all__ = [
    "X_BRACKET",
    "X_CLIP",
    "EdgeworthDistribution",
    "TailKernel",
    "correction_polynomial",
    "reference_kernel",
    "series_diverges",
]
