"""truncation_cases: the revealed cases of truncated Poisson sampling."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from symfdp.mechanisms.truncated_poisson import truncation_cases, truncation_odds


@given(
    n=st.integers(2, 3000),
    q=st.floats(1e-4, 1.0),
    frac=st.floats(0.0, 1.0),
    groups=st.integers(1, 20),
)
def test_cases_cover_the_truncation_at_their_largest_rate(n, q, frac, groups):
    b = max(1, min(n, round(frac * n)))
    cases = truncation_cases(n, q, b, groups)
    tau = truncation_odds(n, q, b).truncation
    assert len(cases.weights) <= groups
    assert math.fsum(cases.weights) == pytest.approx(tau, rel=1e-9, abs=1e-40)
    # Rates fall with the count and never exceed the first case's q B / (B + 1).
    assert all(a >= c for a, c in zip(cases.rates, cases.rates[1:], strict=False))
    assert all(0.0 < r <= min(1.0, q * b / (b + 1)) for r in cases.rates)


def test_small_populations_reveal_every_count():
    # N = 6, q = 0.4, B = 2: K ~ Bin(5, 0.4) >= 2, each count its own case.
    cases = truncation_cases(6, 0.4, 2)
    want = [math.comb(5, k) * 0.4**k * 0.6 ** (5 - k) for k in range(2, 6)]
    assert cases.weights == pytest.approx(want, rel=1e-12)
    assert cases.rates == pytest.approx([0.4 * 2 / (k + 1) for k in range(2, 6)])


@pytest.mark.parametrize("bad", [0, -1, 1.5, float("nan")])
def test_groups_must_be_a_positive_integer(bad):
    with pytest.raises((ValueError, TypeError), match="groups"):
        truncation_cases(100, 0.1, 5, bad)
