"""Auto: each query from the fastest tier whose error estimate meets rel_tol."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symfdp import ApproximationWarning, rero
from symfdp import accountants as A
from symfdp import mechanisms as M


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


def test_plain_dp_sgd_is_answered_by_numerical():
    # The certified composition is predicted cheap (tens of ms): after the CLT
    # (whose estimate misses rel_tol on this skewed law) no other approximation
    # is tried, and Numerical answers.
    curve = A.Auto().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=1000)
    curve.epsilon(1e-5)
    assert curve.last_answer.method == ("Numerical",)
    assert "Edgeworth(order=4, inverse='numerical')" in curve.skipped
    assert "cheaper" in curve.skipped["Edgeworth(order=4, inverse='numerical')"]


def test_blatant_mass_does_not_hide_a_cheap_certified_composition():
    # (eps, delta) events: the cost is predicted on the finite part, as
    # Numerical composes it, so the approximations beyond the first are skipped.
    curve = A.Auto().compose(M.EpsilonDelta(eps=0.5, delta=1e-7), n=10)
    curve.delta(1.0)
    assert curve.last_answer.method == ("Numerical",)
    assert any("cheaper" in why for why in curve.skipped.values())


def _warned_or_within(curve, name, points, lo, hi, rel_tol):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ApproximationWarning)
        values = np.atleast_1d(getattr(curve, name)(points))
    warned = any(issubclass(w.category, ApproximationWarning) for w in caught)
    mid = 0.5 * (lo + hi)
    within = np.abs(values - mid) <= rel_tol * np.abs(mid) + 0.5 * (hi - lo)
    return warned or bool(np.all(within))


@pytest.mark.parametrize(
    ("mechanism", "n"),
    [
        # The CLT answers the continuous Gaussian: 17% off delta(0.5).
        (M.DiscreteGaussian(sigma=1.0), 1),
        # Edgeworth(4)'s estimate of delta(1) is 6% (a two-point lattice).
        (M.PureDP(eps=0.5), 10),
        # The CLT is 7.6% off delta(2).
        (M.RandomizedResponse(eps=0.5, k=10), 10),
        (M.SampledWithoutReplacement(M.Gaussian(sigma=1.0), 100, 1000), 100),
        # Edgeworth(4) on the finite part: f(0.1) 3.8% off.
        (M.EpsilonDelta(eps=0.5, delta=1e-7), 10),
    ],
)
def test_within_rel_tol_or_warned_where_an_approximation_misses(mechanism, n):
    rel_tol = 1e-2
    certified = A.Numerical().compose(mechanism, n)
    curve = A.Auto(rel_tol=rel_tol).compose(mechanism, n)
    eps = np.array([0.5, 1.0, 2.0])
    deltas = np.array([1e-2, 1e-4, 1e-6])
    alpha = np.array([1e-3, 1e-2, 0.1, 0.3])
    lo, hi = certified.delta_bounds(eps)
    assert _warned_or_within(curve, "delta", eps, lo, hi, rel_tol)
    lo, hi = certified.epsilon_bounds(deltas)
    assert _warned_or_within(curve, "epsilon", deltas, lo, hi, rel_tol)
    lo, hi = certified.tradeoff_bounds(alpha)
    assert _warned_or_within(curve, "tradeoff", alpha, lo, hi, rel_tol)


def test_a_tier_that_missed_is_not_asked_again():
    # The CLT misses rel_tol on the discrete Gaussian's delta(0.5) (a lattice
    # law); the next delta query on the same composition skips it.
    curve = A.Auto().compose(M.DiscreteGaussian(sigma=1.0), n=1)
    curve.delta(0.5)
    assert curve.last_answer.method[0] != "CLT"
    assert (0, "delta(eps)") in curve._state.missed
    curve.delta([1.0, 2.0])
    assert "CLT" not in curve.last_answer.method
