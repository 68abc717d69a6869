"""Random allocation against the reference implementation ``pld-accounting``
(arXiv 2602.17284): the two certified brackets must overlap, and ours must be
no wider. Skipped when the package is not installed."""

from __future__ import annotations

import pytest

from symfdp import mechanisms as M
from symfdp.samplers import random_allocation


@pytest.mark.parametrize(
    ("sigma", "t", "k", "epochs"),
    [(1.0, 10, 1, 1), (1.0, 20, 2, 1), (2.0, 16, 1, 4), (0.5, 8, 1, 1)],
)
def test_brackets_overlap_and_ours_is_no_wider(
    sigma: float, t: int, k: int, epochs: int
) -> None:
    peer = pytest.importorskip("PLD_accounting")
    delta = 1e-5
    p_hi, p_lo = peer.gaussian_allocation_epsilon_range(
        delta=delta, sigma=sigma, num_steps=t, num_selected=k, num_epochs=epochs
    )
    curve = random_allocation(M.Gaussian(sigma=sigma), t=t, k=k, epochs=epochs)
    lo, hi = (float(x) for x in curve.epsilon_bounds(delta))
    assert lo <= p_hi and p_lo <= hi, ((lo, hi), (p_lo, p_hi))
    assert hi - lo <= p_hi - p_lo
