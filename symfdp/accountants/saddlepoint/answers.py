"""What every answer of the SaddlePoint pair shares: the notes of its repairs
and their records (:class:`~symfdp.curve.Repair`), the error spread over the
orders, and the values at an upper-side
saddle point from the rows of the cumulant generating function there."""

from __future__ import annotations

import numpy as np

from symfdp.accountants.saddlepoint import formulas as F
from symfdp.accountants.saddlepoint.records import SaddleValues
from symfdp.curve import Query, Repair
from symfdp.mechanisms.base import FloatArray

#: A query's notes: what its repairs changed (one sentence each), or None
#: where nobody listens (diagnostics, tables built for the grid).
Notes = list[str] | None

#: Relative disagreement of the two sides at the split point that warns.
SPLIT_RTOL = 0.1
#: Orders >= 3 below this fraction of delta_hat_2 count as diverged.
RHO_FLOOR = 0.01
#: Factor on the spread of the orders in the error estimates.
ERROR_SAFETY = 1.0
#: Validity floor of the error estimates: SKEW_ERROR_COEF * lambda_3^4 relative
#: (calibrated by benchmarks/saddlepoint_orders.py).
SKEW_ERROR_COEF = 0.05
#: The error estimates compare the chosen order J with orders J+1..J+ERROR_ORDERS.
ERROR_ORDERS = 3
#: Relative step of the forward difference giving d delta/d eps.
EPS_STEP = 1e-5
#: Newton steps per pass over the rules in the epsilon(delta) solve.
NEWTON_STEPS = 12


def note_repairs(r: F.IntegralRepairs, notes: Notes) -> None:
    """The notes of the repairs :func:`~.formulas.log_integrals` reports (a
    Chernoff cap is no note: the capped value is an upper bound, and its error
    estimate is the bracket down to the pair's ``delta_floor``)."""
    if notes is None:
        return
    if r.terms_lost:
        notes.append(
            "the two Gaussian terms of delta_hat_2 agree to 8 digits (degenerate "
            "tilted law); delta_hat_1 used instead"
        )


def query_repairs(query: Query, notes: list[str]) -> tuple[Repair, ...]:
    """The records of a query's notes (each once)."""
    return tuple(Repair(query, what) for what in dict.fromkeys(notes))


def pack3(s: FloatArray, d: FloatArray) -> SaddleValues:
    """Upper-side values at ``s`` from the rows of K and its derivatives there
    (at least three; ``eps(s)`` explicit, ``k3`` set)."""
    eps = d[1] - (1.0 / s + 1.0 / (1.0 + s))
    return SaddleValues(s, s, d[0], d[1], d[2], eps, d[3])


def spread(rows: FloatArray, lam3: FloatArray, atom: FloatArray) -> FloatArray:
    """``ERROR_SAFETY`` times the spread of the orders' estimates (rows), at
    least ``SKEW_ERROR_COEF * lam3**4`` times the chosen one, plus ``atom`` (the
    atom term of :mod:`~.atom_term`). Beyond ``F.SKEWNESS_MAX`` the floor
    exceeds 5% of delta: the valid range is read from the estimate."""
    spread = ERROR_SAFETY * (rows.max(axis=0) - rows.min(axis=0))
    with np.errstate(over="ignore", invalid="ignore"):
        floor = SKEW_ERROR_COEF * lam3**4 * np.abs(rows[0])
    out: FloatArray = np.maximum(spread, floor) + atom
    return out
