"""The last-iterate heuristic pair (Steinke et al. 2024): the certified bracket
of ``A.Numerical`` contains epsilon(delta) of the exact (T+1)-term sum,
computed here in mpmath at 30 digits:

delta(eps) = max over the two directions of sum_k b_k Phibar((x* - k)/s)
- e^eps Phibar(x*/s) (and its mirror), b_k = Binomial(T, q), s = sigma sqrt(T),
x* the root of L(x) = eps, L increasing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M


def _exact_delta(steps: int, q: float, sigma: float) -> Callable[[Any], Any]:
    """eps -> delta(eps) of the pair, an mpmath sum of T + 1 terms per side."""
    qq = mpmath.mpf(q)
    s = mpmath.mpf(sigma) * mpmath.sqrt(steps)
    b = [
        mpmath.binomial(steps, k) * qq**k * (1 - qq) ** (steps - k)
        for k in range(steps + 1)
    ]

    def llr(x: mpmath.mpf) -> mpmath.mpf:  # log dP/dQ, P the binomial mixture
        return mpmath.log(
            mpmath.fsum(
                bk * mpmath.exp((k * x - k * k / 2) / s**2) for k, bk in enumerate(b)
            )
        )

    def root(level: mpmath.mpf) -> mpmath.mpf:
        lo, hi = mpmath.mpf(-50) * s, mpmath.mpf(50) * s + steps
        for _ in range(64):  # L is increasing
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if llr(mid) < level else (lo, mid)
        return (lo + hi) / 2

    def sf(x: mpmath.mpf, shift: int) -> mpmath.mpf:
        return mpmath.ncdf(-(x - shift) / s)

    def delta_of(eps: mpmath.mpf) -> mpmath.mpf:
        e = mpmath.exp(eps)
        x = root(eps)  # H(P || Q): P(L > eps) - e^eps Q(L > eps)
        d1 = mpmath.fsum(bk * sf(x, k) for k, bk in enumerate(b)) - e * sf(x, 0)
        d2 = mpmath.mpf(0)  # H(Q || P): Q(L < -eps) - e^eps P(L < -eps)
        if -eps > mpmath.log(b[0]):
            y = root(-eps)
            d2 = (1 - sf(y, 0)) - e * mpmath.fsum(
                bk * (1 - sf(y, k)) for k, bk in enumerate(b)
            )
        return max(d1, d2)

    return delta_of


def _exact_epsilon(steps: int, q: float, sigma: float, delta: float) -> float:
    with mpmath.workdps(20):
        delta_of = _exact_delta(steps, q, sigma)
        lo, hi = mpmath.mpf(0), mpmath.mpf(60)
        for _ in range(40):  # delta(eps) decreases
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if delta_of(mid) > delta else (lo, mid)
        return float((lo + hi) / 2)


@pytest.mark.parametrize(("steps", "q", "sigma"), [(10, 0.1, 1.0), (12, 0.5, 2.0)])
def test_delta_bracket_contains_exact_sum(steps: int, q: float, sigma: float) -> None:
    curve = A.Numerical().compose(M.last_iterate(steps, q, sigma), 1)
    with mpmath.workdps(30):
        delta_of = _exact_delta(steps, q, sigma)
        for eps in (0.25, 1.0, 2.5):
            lo, hi = curve.delta_bounds(eps)
            exact = float(delta_of(mpmath.mpf(eps)))
            assert lo * (1 - 1e-9) <= exact <= hi * (1 + 1e-9), (eps, lo, exact, hi)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("steps", "q", "sigma"),
    [
        (10, 0.1, 1.0),
        (12, 0.5, 2.0),
        pytest.param(60, 0.05, 0.8, marks=pytest.mark.slow),
    ],
)
def test_certified_bracket_contains_exact_sum(
    steps: int, q: float, sigma: float
) -> None:
    curve = A.Numerical().compose(M.last_iterate(steps, q, sigma), 1)
    for delta in (1e-3, 1e-6):
        lo, hi = curve.epsilon_bounds(delta)
        exact = _exact_epsilon(steps, q, sigma, delta)
        assert lo - 1e-9 <= exact <= hi + 1e-9, (delta, lo, exact, hi)


def test_full_participation_is_the_gaussian() -> None:
    # q = 1: K = T surely, the pair is N(T, s^2) vs N(0, s^2), mu = sqrt(T)/sigma.
    pair = M.last_iterate(9, 1.0, 1.5)
    want = A.Exact().compose(M.Gaussian(mu=3.0 / 1.5), 1).epsilon(1e-5)
    lo, hi = A.Numerical().compose(pair, 1).epsilon_bounds(1e-5)
    assert lo <= want <= hi


def test_last_iterate_is_below_the_composition_of_the_steps() -> None:
    # Releasing only the sum is post-processing of releasing every step.
    last = A.Numerical().compose(M.last_iterate(10, 0.1, 1.0), 1).epsilon_bounds(1e-6)
    every = A.Numerical().compose(M.SubsampledGaussian(p=0.1, sigma=1.0), 10)
    assert last[1] < every.epsilon_bounds(1e-6)[0]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"steps": 0, "q": 0.1, "sigma": 1.0}, "steps"),
        ({"steps": 5, "q": 0.0, "sigma": 1.0}, "q"),
        ({"steps": 5, "q": 1.5, "sigma": 1.0}, "q"),
        ({"steps": 5, "q": 0.1, "sigma": -1.0}, "sigma"),
        ({"steps": 5, "q": 0.1, "sigma": 1.0, "adjacency": "both"}, "adjacency"),
    ],
)
def test_bad_parameters(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        M.last_iterate(**kwargs)
