"""Mechanisms with finitely many privacy losses (issue 13).

References are independent of the code under test: the multinomial law of a
composition of randomized response (enumerated exactly), closed forms of the
pure-DP pair and dp-accounting's PLDs of the discrete Laplace and Gaussian
mechanisms (pessimistic and optimistic, bracketing the truth).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special

from symfdp import accountants as A
from symfdp import mechanisms as M

#: Exact finite sums vs closed forms (a few ulps of O(1) numbers).
TOL_EXACT = 1e-13


def _rr_composed_delta(eps: float, k: int, n: int, e: float) -> float:
    """delta(e) of n-fold k-ary randomized response, by enumerating how many
    of the n outputs fall on category 0 (loss -eps), 1 (+eps) or elsewhere."""
    z = math.exp(eps) + k - 1
    p = (math.exp(eps) / z, 1 / z, (k - 2) / z)
    total = 0.0
    for a, b in itertools.product(range(n + 1), repeat=2):
        c = n - a - b
        if c < 0:
            continue
        loss = eps * (b - a)
        if loss <= e:
            continue
        coef = math.factorial(n) / (
            math.factorial(a) * math.factorial(b) * math.factorial(c)
        )
        prob_p = coef * p[0] ** a * p[1] ** b * p[2] ** c
        total += prob_p * (math.exp(loss) - math.exp(e))
    return total


@pytest.mark.parametrize("k", [2, 3, 7])
def test_randomized_response_composition_is_exact(k: int) -> None:
    m = M.RandomizedResponse(eps=0.8, k=k)
    eps = np.array([0.0, 0.5, 1.5, 3.0])
    lo, hi = A.Numerical().compose(m, 12).delta_bounds(eps)
    exact = np.array([_rr_composed_delta(0.8, k, 12, e) for e in eps])
    assert np.all(lo <= exact + 1e-12) and np.all(exact <= hi + 1e-12)
    np.testing.assert_allclose(hi, exact, rtol=1e-9)


def test_binary_randomized_response_is_pure_dp() -> None:
    rr, pure = M.RandomizedResponse(eps=1.3, k=2), M.PureDP(eps=1.3)
    for under in ("P", "Q"):
        np.testing.assert_allclose(
            rr.cumulants(6, under), pure.cumulants(6, under), atol=TOL_EXACT
        )
        t = np.array([-3.0, -0.5, 0.7, 5.0])
        np.testing.assert_allclose(
            rr.cgf_derivatives(t, under), pure.cgf_derivatives(t, under), atol=1e-12
        )
    e = np.linspace(-2, 2, 9)
    np.testing.assert_allclose(
        rr.privacy_profile(e), pure.privacy_profile(e), atol=1e-15
    )


def test_from_pmfs_matches_randomized_response() -> None:
    eps, k = 1.0, 4
    z = math.exp(eps) + k - 1
    p = np.array([math.exp(eps), 1, 1, 1]) / z
    q = np.array([1, math.exp(eps), 1, 1]) / z
    m = M.from_pmfs(p, q)
    assert m.is_symmetric
    ref = M.RandomizedResponse(eps=eps, k=k)
    np.testing.assert_allclose(m.cumulants(5, "Q"), ref.cumulants(5, "Q"), atol=1e-14)
    m2 = M.from_pmfs(p, q, losses=[-eps, eps, 0.0, 0.0])
    assert m2.plrv_support() == (-eps, eps)
    assert float(m2.log_likelihood_ratio(1)) == eps


def test_from_pmfs_refuses_bad_pairs() -> None:
    with pytest.raises(ValueError, match="not mutually absolutely continuous"):
        M.from_pmfs([0.5, 0.5, 0.0], [0.4, 0.4, 0.2])
    with pytest.raises(ValueError, match="must sum to 1"):
        M.from_pmfs([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ValueError, match="same length"):
        M.from_pmfs([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="is not log"):
        M.from_pmfs([0.5, 0.5], [0.25, 0.75], losses=[0.0, 0.0])
    with pytest.raises(ValueError, match="not that of -L"):
        M.from_pmfs([0.5, 0.5], [0.25, 0.75], symmetric=True)


def test_discrete_laplace_single_release() -> None:
    """delta(eps) of one release, summed by hand over the integers."""
    a, s = 0.5, 2
    m = M.DiscreteLaplace(a=a, sensitivity=s)
    xs = np.arange(-200, 200)
    c = math.tanh(a / 2)
    p = c * np.exp(-a * np.abs(xs))
    q = c * np.exp(-a * np.abs(xs - s))
    for e in (-0.5, 0.0, 0.3, 0.9):
        want = math.fsum(np.maximum(q - math.exp(e) * p, 0.0))
        assert float(m.privacy_profile(e)) == pytest.approx(want, rel=TOL_EXACT)
    assert m.plrv_support() == (-a * s, a * s)


@pytest.mark.parametrize(
    "mech",
    [
        M.DiscreteLaplace(a=0.5, sensitivity=2),
        M.DiscreteGaussian(sigma=2.0, sensitivity=1),
    ],
    ids=repr,
)
def test_against_dp_accounting(mech: M.Mechanism) -> None:
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    n, eps = 10, [0.5, 1.0, 2.0]
    refs = []
    for pessimistic in (True, False):
        kw = {
            "value_discretization_interval": 1e-4,
            "pessimistic_estimate": pessimistic,
        }
        if isinstance(mech, M.DiscreteLaplace):
            one = pld.from_discrete_laplace_mechanism(
                mech.a, sensitivity=mech.sensitivity, **kw
            )
        else:
            one = pld.from_discrete_gaussian_mechanism(
                mech.sigma, sensitivity=mech.sensitivity, **kw
            )
        comp = one.self_compose(n)
        refs.append([comp.get_delta_for_epsilon(e) for e in eps])
    pess, opt = np.array(refs[0]), np.array(refs[1])
    lo, hi = A.Numerical().compose(mech, n).delta_bounds(np.array(eps))
    # Certified and (on an aligned lattice) exact: inside dp-accounting's bracket.
    assert np.all(hi - lo <= 1e-9)
    assert np.all(opt - 1e-9 <= lo) and np.all(hi <= pess + 1e-9)


def test_discrete_gaussian_law() -> None:
    m = M.DiscreteGaussian(sigma=1.5)
    # Normalised, and E_P[e^L] = 1.
    assert float(m.plrv_sf(-np.inf, "P", inclusive=True)) == pytest.approx(
        1.0, abs=1e-15
    )
    assert float(m.cgf(1.0, "P")) == pytest.approx(0.0, abs=1e-15)
    # Symmetric: kappa_r(Q) = (-1)^r kappa_r(P).
    kp, kq = m.cumulants(5, "P"), m.cumulants(5, "Q")
    np.testing.assert_allclose(kq, kp * (-1.0) ** np.arange(1, 6), atol=1e-14)
    theta = special.logsumexp(-(np.arange(-50, 51) ** 2) / (2 * 1.5**2))
    assert m._grid[1] == pytest.approx(theta, rel=1e-15)


def test_poisson_subsampled_randomized_response() -> None:
    """Poisson subsampling of a finite pair is a finite pair: the built-in
    subsampling equals from_pmfs of the mixture, and the certified bracket
    contains the enumerated composition."""
    eps, k, p, n = 1.0, 3, 0.2, 8
    base = M.RandomizedResponse(eps=eps, k=k)
    sub = M.with_adjacency(M.PoissonSubsampled(base, p=p), "add")
    pp, qq = base.pdf(np.arange(k), "P"), base.pdf(np.arange(k), "Q")
    mix = M.from_pmfs(pp, (1 - p) * pp + p * qq)
    for under in ("P", "Q"):
        np.testing.assert_allclose(
            sub.cumulants(6, under), mix.cumulants(6, under), rtol=1e-12, atol=1e-15
        )
    losses = np.log(((1 - p) * pp + p * qq) / pp)
    e = np.array([0.0, 0.3, 0.8])
    exact = np.zeros(e.size)
    for counts in itertools.product(range(n + 1), repeat=k - 1):
        rest = n - sum(counts)
        if rest < 0:
            continue
        c = (*counts, rest)
        coef = math.factorial(n) / math.prod(math.factorial(v) for v in c)
        prob = coef * math.prod(pp[j] ** c[j] for j in range(k))
        loss = sum(c[j] * losses[j] for j in range(k))
        exact += prob * np.maximum(math.exp(loss) - np.exp(e), 0.0)
    for m in (sub, mix):
        lo, hi = A.Numerical().compose(m, n).delta_bounds(e)
        assert np.all(lo <= exact + 1e-15) and np.all(exact <= hi + 1e-15)
