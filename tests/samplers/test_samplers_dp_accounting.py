"""Samplers against dp-accounting's PLD accountant where it serves the case
(Poisson and truncated Poisson of a Gaussian; its answers are pessimistic, so
they bound the truth from above)."""

from __future__ import annotations

import pytest

from symfdp import mechanisms as M
from symfdp import samplers as S

dp = pytest.importorskip("dp_accounting")
pld = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")

#: dp-accounting's discretisation; its pessimistic eps exceeds the truth by
#: about the composed rounding, below this.
STEP = 1e-4
SLACK = 2e-3


def _peer(event: object, steps: int) -> float:
    acc = pld.PLDAccountant(value_discretization_interval=STEP)
    acc.compose(event, steps)
    return float(acc.get_epsilon(1e-5))


def test_poisson_gaussian_bracket_meets_peer() -> None:
    got = S.account_sampler(M.Gaussian(sigma=1.0), S.Poisson(0.01), steps=1000)
    lo, hi = got.epsilon_bounds(1e-5)
    peer = _peer(dp.PoissonSampledDpEvent(0.01, dp.GaussianDpEvent(1.0)), 1000)
    assert lo <= peer <= hi + SLACK


@pytest.mark.slow
def test_truncated_poisson_is_at_most_the_peer_bound() -> None:
    """dp-accounting bounds the truncated case by the replace-one pair, which
    dominates ours: our certified upper end lies below its answer, and both
    above Poisson's lower end when truncation is likely."""
    sampler = S.TruncatedPoisson(0.01, 14, 1000)
    got = S.account_sampler(M.Gaussian(sigma=1.0), sampler, steps=200)
    _, hi = got.epsilon_bounds(1e-5)
    peer = _peer(dp.TruncatedSubsampledGaussianDpEvent(1000, 0.01, 14, 1.0), 200)
    poisson = S.account_sampler(M.Gaussian(sigma=1.0), S.Poisson(0.01), steps=200)
    assert poisson.epsilon_bounds(1e-5)[0] < hi <= peer + SLACK
