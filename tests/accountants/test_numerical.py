"""Certified brackets of ``A.Numerical()`` against exact answers.

Exact references are computed here, independently of the code under test:
closed-form Gaussian profiles (Dong et al. 2019, Cor. 2.13) and G_mu, the
binomial formula for pure DP (Kairouz-Oh-Viswanath, as in Dong et al. 2019,
Thm 3.4 / ALG-9), direct enumeration of heterogeneous pure-DP products and an
mpmath integral for the Laplace pair.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, special, stats

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.numeric.tabulate import alpha_grid
from symfdp.pld.certified import CertifiedPairCurve
from tests._answers import delta_of, epsilon_of, tradeoff_of
from tests._tolerances import MP_DPS

#: Slack for float64 rounding of the *reference* values when testing containment:
#: the bracket may touch the exact value (connect the dots is exact at lattice
#: points for n = 1), so equality must pass.
REF_RTOL = 1e-12
REF_ATOL = 1e-15
#: Required relative width of eps(1e-5) brackets in DP-SGD settings (the issue).
EPS_REL_WIDTH = 1e-3

EPS = np.array([-2.0, -0.5, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0])


def gaussian_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong et al. 2019, Cor. 2.13)."""
    a = special.log_ndtr(-eps / mu + mu / 2)
    b = eps + special.log_ndtr(-eps / mu - mu / 2)
    return np.exp(a) * -np.expm1(np.minimum(b - a, 0.0))


def gaussian_eps(mu: float, delta: float) -> float:
    return optimize.brentq(
        lambda e: gaussian_delta(mu, np.array(e)) - delta, 0.0, 200.0, xtol=1e-14
    )


def pure_dp_delta(eps0: float, n: int, eps: np.ndarray) -> np.ndarray:
    """delta(eps') = sum_k (Q_k - e^eps' P_k)_+ over K ~ Bin(n, .) (ALG-9)."""
    k = np.arange(n + 1)
    p_plus = 1.0 / (1.0 + math.exp(eps0))
    q = stats.binom.pmf(k, n, 1.0 - p_plus)  # L = eps0 (2k - n) under Q
    p = stats.binom.pmf(k, n, p_plus)
    return np.array([np.sum(np.maximum(q - math.exp(e) * p, 0.0)) for e in eps])


def enumerated_delta(atoms: list[tuple[np.ndarray, np.ndarray]], eps) -> np.ndarray:
    """Exact profile of a product of discrete pairs by enumeration of (L, Q-mass)."""
    loss, qmass = np.array([0.0]), np.array([1.0])
    for values, masses in atoms:
        loss = (loss[:, None] + values[None, :]).ravel()
        qmass = (qmass[:, None] * masses[None, :]).ravel()
    return np.array([np.sum(qmass * np.maximum(-np.expm1(e - loss), 0.0)) for e in eps])


def laplace_delta_mp(mu: float, eps: float) -> float:
    """int (q - e^eps p)_+ dx for p = Lap(0,1), q = Lap(mu,1), by mpmath."""
    with mpmath.workdps(MP_DPS):
        m, e = mpmath.mpf(mu), mpmath.mpf(eps)

        def f(x):
            q = mpmath.exp(-abs(x - m)) / 2
            p = mpmath.exp(-abs(x)) / 2
            return max(q - mpmath.exp(e) * p, 0)

        # q - e^eps p changes sign once, where |x| - |x - mu| = eps inside (0, mu).
        cross = (e + m) / 2
        pts = [-mpmath.inf, 0, cross, m, mpmath.inf]
        if not 0 < cross < m:
            pts = [-mpmath.inf, 0, m, mpmath.inf]
        return float(mpmath.quad(f, pts))


def contains(lo, ref, hi) -> np.ndarray:
    ref = np.asarray(ref, dtype=np.float64)
    slack = REF_RTOL * np.abs(ref) + REF_ATOL
    return (np.asarray(lo) <= ref + slack) & (ref - slack <= np.asarray(hi))


@pytest.mark.parametrize("n", [1, 10, 1000])
@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0])
def test_gaussian_bracket_contains_exact_delta(mu: float, n: int) -> None:
    curve = A.Numerical().compose(M.Gaussian(mu=mu), n=n)
    total = mu * math.sqrt(n)
    pair = curve.pairs[0]
    lo, hi = pair.delta_bounds(EPS)
    exact = gaussian_delta(total, EPS)
    assert np.all(contains(lo, exact, hi)), (lo, exact, hi)
    est = delta_of(pair, EPS)
    assert np.all((lo <= est) & (est <= hi))


@pytest.mark.parametrize(("mu", "n"), [(1.0, 1), (0.5, 10), (0.03, 1000)])
def test_gaussian_epsilon_bracket(mu: float, n: int) -> None:
    curve = A.Numerical().compose(M.Gaussian(mu=mu), n=n)
    total = mu * math.sqrt(n)
    for delta in (1e-3, 1e-5, 1e-8):
        lo, hi = curve.epsilon_bounds(delta)
        exact = gaussian_eps(total, delta)
        assert lo <= exact * (1 + REF_RTOL) and exact <= hi * (1 + REF_RTOL)
        assert lo <= curve.epsilon(delta) <= hi


@pytest.mark.parametrize(("mu", "n"), [(1.0, 1), (0.5, 10), (0.05, 1000)])
def test_gaussian_tradeoff_bounds_contain_g_mu(mu: float, n: int) -> None:
    curve = A.Numerical().compose(M.Gaussian(mu=mu), n=n)
    alpha = alpha_grid()
    exact = special.ndtr(-special.ndtri(alpha) - mu * math.sqrt(n))
    lo, hi = curve.tradeoff_bounds(alpha)
    assert np.all(contains(lo, exact, hi))
    pair = curve.pairs[0]
    lo, hi = pair.tradeoff_bounds(alpha)
    assert np.all(contains(lo, exact, hi))
    est = tradeoff_of(pair, alpha)
    assert np.all((lo <= est) & (est <= hi))
    # Second-order discretisation: the bracket is narrow everywhere.
    assert np.max(hi - lo) < 1e-3


@given(
    mu=st.floats(0.05, 3.0),
    n=st.integers(1, 300),
    eps=st.floats(-3.0, 10.0),
)
def test_gaussian_property_bracket(mu: float, n: int, eps: float) -> None:
    curve = A.Numerical(eps_rel_tol=1e-2).compose(M.Gaussian(mu=mu), n=n)
    lo, hi = curve.pairs[0].delta_bounds(np.array([eps]))
    assert contains(lo, gaussian_delta(mu * math.sqrt(n), np.array([eps])), hi).all()


@pytest.mark.parametrize("n", [1, 5, 20])
@pytest.mark.parametrize("eps0", [0.3, 1.0, 2.5])
def test_pure_dp_bracket_contains_binomial_formula(eps0: float, n: int) -> None:
    curve = A.Numerical().compose(M.PureDP(eps=eps0), n=n)
    eps = np.linspace(-1.0, eps0 * n + 0.5, 41)
    lo, hi = curve.pairs[0].delta_bounds(eps)
    exact = pure_dp_delta(eps0, n, eps)
    assert np.all(contains(lo, exact, hi))
    # Atoms sit on the lattice: only round-off allowances remain.
    assert np.max(hi - lo) < 1e-9


def test_heterogeneous_pure_dp_matches_enumeration() -> None:
    comps = [(M.PureDP(eps=0.5), 3), (M.PureDP(eps=1.0), 2)]
    curve = A.Numerical().compose(comps)
    atoms = []
    for m, k in comps:
        e0 = m.eps
        q_plus = math.exp(e0) / (1 + math.exp(e0))
        atoms += [(np.array([e0, -e0]), np.array([q_plus, 1 - q_plus]))] * k
    eps = np.linspace(-0.5, 4.0, 19)
    lo, hi = curve.delta_bounds(np.clip(eps, 0, None))
    exact = enumerated_delta(atoms, np.clip(eps, 0, None))
    assert np.all(contains(lo, exact, hi))
    assert np.max(hi - lo) < 1e-9


@given(
    mus=st.lists(st.floats(0.05, 2.0), min_size=2, max_size=3, unique=True),
    counts=st.lists(st.integers(1, 50), min_size=3, max_size=3),
    eps=st.floats(-2.0, 8.0),
)
def test_heterogeneous_gaussian_property(mus, counts, eps: float) -> None:
    comps = [(M.Gaussian(mu=m), k) for m, k in zip(mus, counts, strict=False)]
    total = math.sqrt(sum(k * m**2 for m, k in zip(mus, counts, strict=False)))
    curve = A.Numerical(eps_rel_tol=1e-2).compose(comps)
    lo, hi = curve.pairs[0].delta_bounds(np.array([eps]))
    assert contains(lo, gaussian_delta(total, np.array([eps])), hi).all()


def test_heterogeneous_gaussian_equals_single_gaussian() -> None:
    comps = [(M.Gaussian(mu=0.3), 40), (M.Gaussian(mu=1.0), 3)]
    curve = A.Numerical().compose(comps)
    total = math.sqrt(40 * 0.3**2 + 3 * 1.0**2)
    lo, hi = curve.pairs[0].delta_bounds(EPS)
    assert np.all(contains(lo, gaussian_delta(total, EPS), hi))


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
def test_laplace_single_bracket_contains_mpmath(mu: float) -> None:
    curve = A.Numerical().compose(M.Laplace(mu=mu), n=1)
    eps = np.array([-0.5 * mu, 0.0, 0.25 * mu, 0.5 * mu, 0.9 * mu, mu, mu + 0.5])
    lo, hi = curve.pairs[0].delta_bounds(eps)
    exact = np.array([laplace_delta_mp(mu, e) for e in eps])
    assert np.all(contains(lo, exact, hi)), (lo, exact, hi)
    assert np.max(hi - lo) < 1e-3


def test_laplace_change_point() -> None:
    """CF-Z20: |L_i| <= theta, so delta(eps) = 0 for eps >= n theta."""
    n, theta = 5, 3 / math.sqrt(5)
    curve = A.Numerical().compose(M.Laplace(mu=theta), n=n)
    lo, hi = curve.delta_bounds([n * theta, n * theta + 1])
    assert np.all(lo == 0.0)
    assert np.all(hi < 1e-9)


@pytest.mark.parametrize("pair", ["add", "remove", "both"])
@pytest.mark.parametrize(
    "make",
    [
        lambda pair: M.SubsampledGaussian(sigma=1.0, p=0.05).with_pair(pair),
        lambda pair: M.SubsampledLaplace(mu=1.0, p=0.1).with_pair(pair),
    ],
    ids=["gaussian", "laplace"],
)
def test_subsampled_single_step_contains_closed_form(make, pair: str) -> None:
    m = make(pair)
    curve = A.Numerical().compose(m, n=1)
    eps = np.linspace(0.0, 3.0, 13)
    lo, hi = curve.delta_bounds(eps)
    assert np.all(contains(lo, m.privacy_profile(eps), hi))


@pytest.mark.parametrize("n", [1000, 10000])
def test_dp_sgd_epsilon_bracket_width(n: int) -> None:
    m = M.SubsampledGaussian(sigma=1.0, p=0.01)
    curve = A.Numerical().compose(m, n=n)
    lo, hi = curve.epsilon_bounds(1e-5)
    est = curve.epsilon(1e-5)
    assert lo <= est <= hi
    assert (hi - lo) / est <= EPS_REL_WIDTH


@pytest.mark.parametrize(("sigma", "p"), [(0.7, 0.01), (0.5, 0.1), (2.0, 0.01)])
def test_rough_losses_are_refined_to_the_target(sigma: float, p: float) -> None:
    """Small sigma: the bulk of the loss is much narrower than its sd; the step
    is refined until the eps bracket meets eps_rel_tol * max(eps, 1)."""
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=sigma, p=p), n=2000)
    lo, hi = curve.epsilon_bounds(1e-5)
    assert (hi - lo) <= EPS_REL_WIDTH * max(lo, 1.0)


def test_fast_epsilon_bounds_agree_with_bisection() -> None:
    """The closed-form inverse is valid (never tighter than inverting the
    certified profile bounds by bisection) and nearly as tight."""
    from symfdp.curve import invert_profile

    pair = (
        A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.02), n=300).pairs[0]
    )
    d = np.array([1e-2, 1e-4, 1e-6, 1e-8])
    lo, hi = pair.epsilon_bounds(d)
    slow_lo = invert_profile(lambda e: pair.delta_bounds(e)[0], d)
    slow_hi = invert_profile(lambda e: pair.delta_bounds(e)[1], d)
    assert np.all(lo <= slow_lo + 1e-9) and np.all(hi >= slow_hi - 1e-9)
    assert np.all(slow_lo - lo <= 1e-6 * (1 + slow_lo))
    assert np.all(hi - slow_hi <= 1e-6 * (1 + slow_hi))


def test_more_composition_never_helps() -> None:
    m = M.SubsampledGaussian(sigma=1.0, p=0.05)
    eps = np.linspace(0.0, 6.0, 25)
    prev = None
    for n in (10, 50, 200):
        curve = A.Numerical().compose(m, n=n)
        lo, hi = curve.delta_bounds(eps)
        # delta_10(6) ~ 1e-15 is near the truncation level; its bracket is
        # [7.9e-16, 1.5e-15] (the tail allowance shifted by half the composed
        # sd; shifted by 1 it was [0, 2e-13] at some eps, and warned).
        point = curve.delta(eps)
        if prev is not None:
            # delta_n <= delta_{n'} for n < n': certified brackets must agree.
            assert np.all(prev[0] <= hi)
            assert np.all(point >= prev[2] - (prev[1] - prev[0]) - (hi - lo))
        prev = (lo, hi, point)


def test_profile_is_a_profile() -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=0.8, p=0.1), "add")
    pair = A.Numerical().compose(m, n=30).pairs[0]
    eps = np.linspace(-8.0, 15.0, 2001)
    for values in (delta_of(pair, eps), *pair.delta_bounds(eps)):
        assert np.all((values >= 0.0) & (values <= 1.0))
        assert np.all(np.diff(values) <= 0.0)
    alpha = alpha_grid()
    for beta in (tradeoff_of(pair, alpha), *pair.tradeoff_bounds(alpha)):
        assert np.all((beta >= 0.0) & (beta <= 1.0 - alpha))
        assert np.all(np.diff(beta) <= 1e-15)


def test_asymmetric_tradeoff_bounds_bracket_single_step() -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.2), "add")
    pair = A.Numerical().compose(m, n=1).pairs[0]
    alpha = alpha_grid()
    lo, hi = pair.tradeoff_bounds(alpha)
    assert np.all(contains(lo, m.tradeoff(alpha), hi))


def test_epsilon_of_estimate_inverts_delta() -> None:
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.02), n=500)
    deltas = np.array([1e-2, 1e-5, 1e-9])
    eps = curve.epsilon(deltas)
    assert np.all(np.abs(curve.delta(eps) / deltas - 1.0) < 1e-9)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="eps_rel_tol"):
        A.Numerical(eps_rel_tol=0.0)
    with pytest.raises(ValueError, match="grid_step"):
        A.Numerical(grid_step=-1.0)
    with pytest.raises(ValueError, match="method"):
        A.Numerical(method="monte-carlo")
    with pytest.raises(ValueError, match="tail_mass"):
        A.Numerical(tail_mass=0.5)
    with pytest.raises(ValueError, match="eps_grid"):
        A.Numerical(method="recursion", eps_grid=[1.0, 0.0])
    with pytest.raises(ValueError, match="max_fft_size"):
        A.Numerical(grid_step=1e-7, max_fft_size=1024).compose(M.Gaussian(mu=1.0), n=10)
    curve = A.Numerical().compose(M.Gaussian(mu=1.0), n=2)
    with pytest.raises(ValueError, match="resolution"):
        epsilon_of(curve.pairs[0], np.array([1e-300]))


def test_curve_metadata() -> None:
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=100)
    assert curve.certified and curve.method == "Numerical"
    assert len(curve.pairs) == 2 and not curve.symmetric
    for info in curve.info["pairs"]:
        assert info["grid_step"] > 0 and info["fft_size"] >= 16


@pytest.mark.parametrize("p", [1e-3, 0.1])
def test_step_hint_with_few_expected_samples_meets_the_tolerance(p: float) -> None:
    """With n p = 10 expected samples (the add direction's tilted loss far
    from normal) the step hint still gives a bracket of the target width."""
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=2.0, p=p), n=10_000)
    lo, hi = curve.epsilon_bounds(1e-5)
    assert 0.0 < hi - lo <= EPS_REL_WIDTH * max(float(lo), 1.0)


def test_many_distinct_components_loosen_the_lower_direction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beyond ``MAX_COMPONENTS`` distinct components the saddle-point estimates
    still plan the directions: the direction with the smaller eps is composed
    to a looser tolerance (its upper eps stays below the other's), the top
    direction at the rule step, bit for bit as without the plan, and the
    curve's bracket keeps the target width and meets the plan-free bracket."""
    from symfdp.accountants.base import pair_compositions
    from symfdp.accountants.numerical import Numerical
    from symfdp.pld import step as step_rule
    from symfdp.pld.grid import choose_step

    settings = [(1.0 + 0.05 * i, 0.01 + 0.002 * (i % 5)) for i in range(24)]
    assert len(settings) > step_rule.MAX_COMPONENTS
    comp = [(M.SubsampledGaussian(sigma=s, p=q), 2_000) for s, q in settings]
    planned = A.Numerical().compose(comp)
    tols = sorted(p.eps_rel_tol for p in planned.pairs)
    assert tols[0] == 1e-3 < tols[1]
    top = max(planned.pairs, key=lambda p: p.eps_rel_tol == 1e-3)
    loose = min(planned.pairs, key=lambda p: p.eps_rel_tol == 1e-3)
    assert loose.epsilon_bounds(1e-5)[1] <= top.epsilon_bounds(1e-5)[1]
    rules = {choose_step(d, 1e-3) for d in pair_compositions(comp)}
    assert top.info["grid_step"] in rules
    monkeypatch.setattr(Numerical, "_directions", lambda self, c: None)
    plain = A.Numerical().compose(comp)
    plain_top = [p for p in plain.pairs if p.info["grid_step"] == top.info["grid_step"]]
    assert len(plain_top) == 1
    assert np.array_equal(plain_top[0].epsilon_bounds(1e-5), top.epsilon_bounds(1e-5))
    lo, hi = planned.epsilon_bounds(1e-5)
    p_lo, p_hi = plain.epsilon_bounds(1e-5)
    assert (lo, hi) == (p_lo, p_hi)
    assert 0.0 < hi - lo <= EPS_REL_WIDTH * max(float(lo), 1.0)


def test_epsilon_then_its_bracket_computes_the_bracket_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``epsilon(d)`` then ``epsilon_bounds(d)`` / ``epsilon_error(d)``: one
    certified bracket per direction (the curve keeps the last answer)."""
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=200)
    calls: list[int] = []
    inner = CertifiedPairCurve._epsilon_bounds_refined

    def counted(self, d):
        calls.append(d.size)
        return inner(self, d)

    monkeypatch.setattr(CertifiedPairCurve, "_epsilon_bounds_refined", counted)
    eps = curve.epsilon(1e-5)
    lo, hi = curve.epsilon_bounds(1e-5)
    err = curve.epsilon_error(1e-5)
    assert len(calls) == len(curve.pairs)
    assert lo <= eps <= hi and err == pytest.approx(0.5 * (hi - lo), rel=1e-15)


def test_epsilon_and_its_bounds_compute_each_bracket_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bracket the accountant checks at ``delta_ref`` while composing is
    the one ``epsilon`` and ``epsilon_bounds`` read there; at another delta
    each direction computes its bracket once for both queries."""
    from symfdp.pld.certified import CertifiedPairCurve

    calls: list[int] = []
    local = CertifiedPairCurve._local_bound

    def counted(self: CertifiedPairCurve, *args: Any, **kwargs: Any) -> Any:
        calls.append(id(self))
        return local(self, *args, **kwargs)

    monkeypatch.setattr(CertifiedPairCurve, "_local_bound", counted)
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 100_000)
    calls.clear()
    eps = curve.epsilon(1e-5)
    lo, hi = curve.epsilon_bounds(1e-5)
    assert calls == []
    assert lo <= eps <= hi
    curve.epsilon(1e-6)
    curve.epsilon(1e-7)  # the curve keeps the last answer only
    first = len(calls)
    lo, hi = curve.epsilon_bounds(1e-6)
    assert len(calls) == first
    assert first == 2 * 2 * len(curve.pairs)  # two bounds, two deltas per pair
