"""Shared settings of the Kaissis et al. (2023) experiments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symfdp import accountants as A
from symfdp import calibrate


def calibrated_sigma(
    eps: float,
    delta: float,
    p: float,
    n: int,
    bracket: Sequence[float],
    *,
    accountant: Any = None,
    **tolerances: Any,
) -> float:
    """The noise multiplier sigma of n SGM steps at sampling rate p that is
    (eps, delta)-DP for both adjacency pairs, calibrated with ``accountant``
    (default: the certified Numerical accountant) and searched in ``bracket``;
    ``tolerances`` (e.g. ``rtol``) go to ``calibrate.sigma_for_epsilon``."""
    return calibrate.sigma_for_epsilon(
        eps,
        delta,
        p=p,
        n=n,
        accountant=A.Numerical() if accountant is None else accountant,
        pair="both",
        sigma_bracket=tuple(bracket),
        **tolerances,
    )
