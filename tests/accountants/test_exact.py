"""``A.Exact``: closed-form compositions against independent references.

References: Dong et al. (2019) Fig. 5 (right) numbers (compared, not copied),
brute-force enumeration of randomised-response outcome sequences in mpmath, the
GDP closed forms evaluated here, and the certified brackets of ``A.Numerical``.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants import exact as X
from tests._answers import delta_of
from tests._tolerances import MP_DPS, RTOL_REF

#: Containment slack for float64 rounding of the compared values.
REF_RTOL = 1e-12


def gaussian_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong et al. 2019, Cor. 2.13)."""
    a = special.log_ndtr(-eps / mu + mu / 2)
    b = eps + special.log_ndtr(-eps / mu - mu / 2)
    return np.exp(a) * -np.expm1(np.minimum(b - a, 0.0))


def enumerated_delta(eps_list: list[float], eps: float) -> float:
    """sum over outcome sequences x of (Q(x) - e^eps P(x))_+, at MP_DPS digits."""
    with mpmath.workdps(MP_DPS):
        total = mpmath.mpf(0)
        for signs in itertools.product((0, 1), repeat=len(eps_list)):
            q = p = mpmath.mpf(1)
            for s, e in zip(signs, eps_list, strict=True):
                e = mpmath.mpf(e)
                plus_q, plus_p = mpmath.e**e / (1 + mpmath.e**e), 1 / (1 + mpmath.e**e)
                q *= plus_q if s else 1 - plus_q
                p *= plus_p if s else 1 - plus_p
            total += max(q - mpmath.e ** mpmath.mpf(eps) * p, 0)
        return float(total)


# ------------------------------------------------------------------ Dong Fig. 5
def test_dong_fig5_right():
    """n = 10 mechanisms of (1/sqrt(10), 0)-DP: eps(0.001) = 2.89 to two decimals,
    and the composition is within 0.013 of G_1 pointwise (Dong et al. 2019, Fig. 5
    right and Sec. 3.3)."""
    curve = A.Exact().compose(M.PureDP(eps=1 / math.sqrt(10)), n=10)
    assert round(curve.epsilon(1e-3), 2) == 2.89
    alpha = np.linspace(0.0, 1.0, 100_001)
    g1 = special.ndtr(special.ndtri(1 - alpha) - 1.0)
    gap = np.max(np.abs(curve.tradeoff(alpha) - g1))
    assert gap < 0.013
    assert gap > 0.005  # the composition is not G_1 (measured 0.0123)


# ------------------------------------------------------------------ pure DP
@pytest.mark.parametrize(
    "eps_list",
    [[0.3] * 6, [0.5, 0.5, 1.2, 1.2, 1.2, 0.1], [2.0, 0.05, 0.7]],
)
def test_pure_dp_profile_matches_enumeration(eps_list):
    groups: dict[float, int] = {}
    for e in eps_list:
        groups[e] = groups.get(e, 0) + 1
    curve = A.Exact().compose([(M.PureDP(eps=e), k) for e, k in groups.items()])
    for eps in (-1.5, -0.2, 0.0, 0.4, 1.0, 2.5, 4.0):
        want = enumerated_delta(eps_list, eps)
        got = float(delta_of(curve.pairs[0], np.array([eps]))[0])
        assert got == pytest.approx(want, rel=RTOL_REF, abs=1e-300)


def test_pure_dp_vertices_are_binomial_tails():
    eps0, n = 0.4, 25
    pair = A.Exact().compose(M.PureDP(eps=eps0), n=n).pairs[0]
    alpha, beta = pair.vertices()
    j = np.arange(n + 2)  # n + 1 atoms, n + 2 vertices
    p_eps, q_eps = 1 / (1 + math.exp(eps0)), math.exp(eps0) / (1 + math.exp(eps0))
    # Vertex j rejects the top j atoms, i.e. K >= n - j + 1 "+" outcomes.
    want_alpha = stats.binom.sf(n - j, n, p_eps)
    want_beta = stats.binom.cdf(n - j, n, q_eps)
    assert np.allclose(alpha, want_alpha, rtol=1e-12, atol=1e-15)
    assert np.allclose(beta, want_beta, rtol=1e-12, atol=1e-15)


@given(eps0=st.floats(0.01, 3.0), n=st.integers(1, 200))
def test_pure_dp_tradeoff_properties(eps0, n):
    curve = A.Exact().compose(M.PureDP(eps=eps0), n=n)
    alpha = np.linspace(0.0, 1.0, 401)
    f = curve.tradeoff(alpha)
    assert np.all(np.diff(f) <= 1e-15)
    assert np.all(f <= 1 - alpha + 1e-15) and np.all(f >= 0)
    assert f[0] == pytest.approx(1.0) and f[-1] == 0.0
    second = f[:-2] - 2 * f[1:-1] + f[2:]
    assert np.all(second >= -1e-12)  # convex
    # Symmetric: f(f(alpha)) = alpha wherever f is strictly decreasing.
    xs, ys = curve.pairs[0].vertices()
    assert np.allclose(curve.tradeoff(ys), xs, atol=1e-12)
    # Duality: delta(eps) = max_j 1 - beta_j - e^eps alpha_j (Dong et al. Prop. 2.4).
    for eps in (0.0, 0.5, 2.0):
        dual = np.max(1 - ys - math.exp(eps) * xs)
        # abs: the dual is a difference of O(1) binomial sums (eps0 = 0.0625,
        # n = 32 has delta(2) = 0 exactly and a dual of 1.4e-14).
        assert curve.delta(eps) == pytest.approx(max(dual, 0.0), rel=1e-10, abs=1e-13)


def test_large_eps_pure_dp_stays_exact():
    # n = 2, eps0 = 50:
    # delta(eps') = Q(k=2) (1 - e^{eps'-100}) + Q(k=1) (1 - e^{eps'})_+.
    eps0 = 50.0
    q = 1 / (1 + math.exp(-eps0))
    curve = A.Exact().compose(M.PureDP(eps=eps0), n=2)
    for e in (0.0, 1.0, 60.0, 99.0):
        want = q * q * -math.expm1(e - 100) + 2 * q * (1 - q) * max(-math.expm1(e), 0)
        assert curve.delta(e) == pytest.approx(want, rel=1e-12)


def test_too_many_atoms_raises():
    comps = [(M.PureDP(eps=0.1 + 0.01 * i), 40) for i in range(5)]
    with pytest.raises(ValueError, match="Numerical"):
        A.Exact().compose(comps)


# ------------------------------------------------------------------ Gaussian
def test_gaussian_composition():
    comps = [
        (M.Gaussian(mu=0.4), 7),
        (M.Gaussian(sigma=2.0), 3),
        (M.Gaussian(mu=1.1), 1),
    ]
    mu = math.sqrt(7 * 0.16 + 3 * 0.25 + 1.21)
    curve = A.Exact().compose(comps)
    assert curve.info["mu"] == pytest.approx(mu, rel=1e-15)
    eps = np.array([-2.0, 0.0, 0.5, 3.0, 10.0])
    assert np.allclose(
        delta_of(curve.pairs[0], eps), gaussian_delta(mu, eps), rtol=1e-14
    )
    alpha = np.array([1e-12, 1e-3, 0.2, 0.5, 0.9])
    want = special.ndtr(special.ndtri(1 - alpha) - mu)
    assert np.allclose(curve.tradeoff(alpha), want, rtol=1e-12)


def test_swapped_and_unsubsampled_gaussians_are_gaussian():
    base = M.Gaussian(mu=0.7)
    comps = [(base.swapped(), 2), (M.SubsampledGaussian(p=1.0, mu=0.7), 2)]
    curve = A.Exact().compose(comps)
    assert curve.info["mu"] == pytest.approx(1.4)


# ------------------------------------------------------------------ certification
def test_certified_zero_width():
    curve = A.Exact().compose(M.PureDP(eps=0.5), n=8)
    assert curve.certified and A.Exact.certified
    lo, hi = curve.delta_bounds([0.0, 1.0, 2.0])
    assert np.array_equal(lo, hi)
    flo, fhi = curve.tradeoff_bounds([0.1, 0.3])
    assert np.array_equal(flo, fhi)
    elo, ehi = curve.epsilon_bounds(1e-3)
    assert elo == ehi == curve.epsilon(1e-3)


@pytest.mark.parametrize(
    ("mech", "n"),
    [(M.PureDP(eps=0.3), 40), (M.Gaussian(mu=0.5), 25), (M.PureDP(eps=1.0), 3)],
)
def test_numerical_bracket_contains_exact(mech, n):
    eps = np.linspace(-3.0, 6.0, 37)
    exact = delta_of(A.Exact().compose(mech, n=n).pairs[0], eps)
    lo, hi = A.Numerical().compose(mech, n=n).pairs[0].delta_bounds(eps)
    slack = REF_RTOL * exact + 1e-15
    assert np.all(lo <= exact + slack) and np.all(exact <= hi + slack)


def test_single_mechanism_uses_its_closed_forms():
    m = M.SubsampledGaussian(sigma=1.0, p=0.1)
    curve = A.Exact().compose(m, n=1)
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    assert np.allclose(curve.delta(eps), m.privacy_profile(eps), rtol=1e-15)
    lo, hi = A.Numerical().compose(m, n=1).epsilon_bounds(1e-5)
    assert lo * (1 - 1e-9) <= curve.epsilon(1e-5) <= hi * (1 + 1e-9)


# ------------------------------------------------------------------ errors
def test_no_closed_form_raises_naming_the_mechanism():
    with pytest.raises(ValueError, match=r"SubsampledGaussian.*Numerical"):
        A.Exact().compose(M.SubsampledGaussian(sigma=1.0, p=0.1), n=3)
    with pytest.raises(ValueError, match="mix of Gaussian and finite laws"):
        A.Exact().compose([(M.PureDP(eps=0.5), 3), (M.Gaussian(mu=0.2), 5)])
    with pytest.raises(ValueError, match="Laplace"):
        A.Exact().compose(M.Laplace(mu=0.5), n=2)


def test_atoms_helper_is_normalised():
    loss, log_q, log_p = X.binomial_atoms(0.7, 30)
    assert np.exp(log_q).sum() == pytest.approx(1.0, rel=1e-13)
    assert np.exp(log_p).sum() == pytest.approx(1.0, rel=1e-13)
    assert np.allclose(log_q - log_p, loss, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("n", [1000, 3000])
def test_lattice_power_of_a_long_composition_is_the_trinomial_sum(n):
    """n-fold composition of a 3-point lattice law, against the trinomial sum
    over every count (a, b, c) computed in log space (scipy.special.gammaln):
    masses normalised to the largest atom overflowed past n ~ 800."""
    p = np.array([0.3, 0.3, 0.4])  # the swapped pair: P <- Q, Q <- P
    q = np.array([0.6, 0.3, 0.1])
    loss = np.log(q / p)
    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    c = n - a - b
    ok = c >= 0
    a, b, c = a[ok], b[ok], c[ok]
    g = special.gammaln
    log_coef = g(n + 1) - g(a + 1) - g(b + 1) - g(c + 1)
    log_q = log_coef + a * np.log(q[0]) + b * np.log(q[1]) + c * np.log(q[2])
    total = a * loss[0] + b * loss[1] + c * loss[2]
    curve = A.Exact().compose(M.from_pmfs(list(p), list(q)), n)
    for eps in (0.2 * n, 0.4 * n):
        want = float(np.sum(np.exp(log_q) * -np.expm1(np.minimum(eps - total, 0.0))))
        assert float(curve.delta(eps)) == pytest.approx(want, rel=1e-9, abs=1e-300)
