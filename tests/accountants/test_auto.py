"""Auto: each query from the fastest tier whose error estimate meets rel_tol."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import rero


def test_gaussian_answered_by_the_first_tier_exactly():
    curve = A.Auto().compose(M.Gaussian(mu=0.5), n=16)
    exact = M.Gaussian(mu=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = curve.delta([0.5, 1.0, 2.0])
    np.testing.assert_allclose(d, exact.privacy_profile([0.5, 1.0, 2.0]), rtol=1e-10)
    assert curve.last_answer.method == ("CLT",) * 3
    assert curve.last_answer.summary() == "CLT x3"


@pytest.mark.parametrize(
    ("sigma", "p", "n", "delta"),
    [(0.8, 0.01, 1000, 1e-5), (1.0, 0.01, 1000, 1e-12), (1.0, 0.05, 50, 1e-6)],
)
def test_answers_within_twice_rel_tol_of_the_certified_bracket(sigma, p, n, delta):
    m = M.SubsampledGaussian(sigma=sigma, p=p)
    lo, hi = A.Numerical().compose(m, n).epsilon_bounds(delta)
    curve = A.Auto(rel_tol=1e-2).compose(m, n)
    eps = curve.epsilon(delta)
    mid = 0.5 * (lo + hi)
    assert abs(eps - mid) <= 2e-2 * mid + (hi - lo)
    assert curve.last_answer.error[0] <= max(1e-2 * eps, 0.5 * (hi - lo) + 1e-12)


def test_falls_back_to_numerical_with_its_bracket():
    m = M.SubsampledGaussian(sigma=0.5, p=1e-3)  # few effective samples: skewed
    curve = A.Auto(rel_tol=1e-6).compose(m, n=3)
    eps = curve.epsilon(1e-5)
    assert curve.last_answer.method == ("Numerical",)
    lo, hi = A.Numerical().compose(m, n=3).epsilon_bounds(1e-5)
    assert lo <= eps <= hi
    assert curve.epsilon_error(1e-5) == pytest.approx(0.5 * (hi - lo), rel=1e-6)


def test_tier_validation():
    with pytest.raises(ValueError, match="certified"):
        A.Auto(tiers=(A.CLT(),))
    with pytest.raises(TypeError, match="tiers"):
        A.Auto(tiers=("clt",))
    with pytest.raises(ValueError, match="rel_tol"):
        A.Auto(rel_tol=0.0)


def test_tradeoff_and_mu_star():
    curve = A.Auto().compose(M.Gaussian(mu=1.0), n=4)
    alpha = np.linspace(0, 1, 11)
    np.testing.assert_allclose(
        curve.tradeoff(alpha), M.Gaussian(mu=2.0).tradeoff(alpha), atol=1e-9
    )
    assert curve.mu_star_gamma()[0] == pytest.approx(2.0, rel=1e-6)


def test_rero_gamma_within_rel_tol_of_the_certified_bracket():
    m = M.SubsampledGaussian(sigma=1.0, p=0.01)
    kappa = np.array([1e-3, 1e-2, 0.1])
    curve = rero.add_pair_curve(m, 1000, A.Auto(rel_tol=1e-2))
    gamma = rero.gamma(curve, kappa)
    lo, hi = rero.gamma_bounds(rero.add_pair_curve(m, 1000), kappa)
    mid = 0.5 * (lo + hi)
    assert np.all(np.abs(gamma - mid) <= 2e-2 * mid + (hi - lo))


def test_tradeoff_error_meets_rel_tol_or_is_the_bracket():
    m = M.Laplace(mu=0.5)
    curve = A.Auto(rel_tol=1e-2).compose(m, 10)
    alpha = np.array([1e-3, 1e-2, 0.1, 0.3])
    beta = curve.tradeoff(alpha)
    err = curve.tradeoff_error(alpha)
    lo, hi = A.Numerical().compose(m, 10).tradeoff_bounds(alpha)
    if curve.last_answer.method[0] == "Numerical":
        np.testing.assert_allclose(err, 0.5 * (hi - lo), rtol=1e-9)
    else:
        assert np.all(err <= 1e-2 * beta + 1e-12)
    assert np.all(np.abs(beta - 0.5 * (lo + hi)) <= 2e-2 * beta + (hi - lo))
