"""The error-estimate layer of PrivacyCurve: propagation over pairs, warnings,
certified half-widths and refusals."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve import BoundedLossPair, PrivacyCurve, max_with_error


@dataclass(frozen=True)
class _FakePair:
    """delta(eps) = scale * e^{-eps}, with a fixed relative error estimate."""

    scale: float
    rel: float

    def delta(self, eps):
        return self.scale * np.exp(-np.asarray(eps, np.float64))

    def delta_and_error(self, eps):
        d = self.delta(eps)
        return d, self.rel * d

    def epsilon(self, delta):
        return np.maximum(np.log(self.scale / np.asarray(delta, np.float64)), 0.0)

    def epsilon_and_error(self, delta):
        e = self.epsilon(delta)
        return e, self.rel * e

    def tradeoff(self, alpha):
        return 1.0 - np.asarray(alpha, np.float64)


def _curve(*pairs, warn=0.05):
    return PrivacyCurve(pairs, "Fake", symmetric=False, warn_rel_error=warn)


def test_max_with_error_interval_propagation():
    v, e = max_with_error(
        [np.array([1.0, 1.0]), np.array([0.5, 0.98])],
        [np.array([0.1, 0.01]), np.array([0.01, 0.1])],
    )
    # Pair 2 is far below pair 1 at the first point: only pair 1's error counts.
    # At the second, pair 2 could reach 1.08 and pair 1 could fall to 0.99.
    np.testing.assert_allclose(v, [1.0, 1.0])
    np.testing.assert_allclose(e, [0.1, 0.08])


def test_errors_and_one_warning_above_tolerance():
    curve = _curve(_FakePair(0.5, 0.2), _FakePair(0.1, 0.01))
    eps = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(curve.delta_error(eps), 0.2 * 0.5 * np.exp(-eps))
    with pytest.warns(ApproximationWarning, match=r"Fake.*20%.*Numerical") as rec:
        curve.delta(eps)
    assert len(rec) == 1
    assert rec[0].filename == __file__  # attributed to the caller
    with pytest.warns(ApproximationWarning, match="epsilon"):
        curve.epsilon(1e-3)


def test_no_warning_below_tolerance_or_when_disabled():
    quiet = _curve(_FakePair(0.5, 0.01))
    off = _curve(_FakePair(0.5, 0.5), warn=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet.delta([0.1, 1.0])
        quiet.epsilon([1e-5, 1e-2])
        off.epsilon(1e-5)
    assert off.epsilon_error(1e-5) == pytest.approx(0.5 * np.log(0.5e5))


def test_infinite_eps_has_exact_zero_error():
    curve = _curve(_FakePair(0.5, 0.01))
    np.testing.assert_array_equal(curve.delta_error([-np.inf, np.inf]), [0.0, 0.0])


def test_bounded_loss_pair_passes_the_estimate_through():
    pair = BoundedLossPair(_FakePair(0.5, 0.1), -1.0, 1.0, "Fake", warn=False)
    d, err = pair.delta_and_error(np.array([0.5]))
    assert d[0] == pytest.approx(0.5 * np.exp(-0.5))
    assert err[0] == pytest.approx(0.1 * d[0])


def test_certified_error_is_bracket_half_width():
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.05), n=50)
    lo, hi = curve.epsilon_bounds([1e-5, 1e-8])
    np.testing.assert_allclose(curve.epsilon_error([1e-5, 1e-8]), (hi - lo) / 2)
    exact = A.Exact().compose(M.Gaussian(mu=1.0), n=4)
    assert exact.delta_error(1.0) == 0.0


def test_methods_without_estimate_refuse():
    curve = A.BerryEsseen().compose(M.Gaussian(mu=0.1), n=100)
    with pytest.raises(NotImplementedError, match="error estimate"):
        curve.epsilon_error(0.5)


def test_warn_rel_error_is_validated():
    for bad in (0.0, -1.0, float("nan"), float("inf"), "0.1"):
        with pytest.raises((ValueError, TypeError), match="warn_rel_error"):
            A.base.check_warn_rel_error(bad)
