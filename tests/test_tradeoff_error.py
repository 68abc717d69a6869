"""Error estimates of trade-off curves and ReRo gamma from the profile's
(:mod:`symfdp.curve.tradeoff_error`), against closed forms and the certified
bracket."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from symfdp import ApproximationWarning, rero
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve.tradeoff_error import supporting_eps, tradeoff_errors

ALPHA = np.array([1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.6])


def _g(mu: float):  # type: ignore[no-untyped-def]
    return lambda a: special.ndtr(special.ndtri(1.0 - a) - mu)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_supporting_eps_of_gaussian_tradeoff(mu: float) -> None:
    # G_mu: f'(a) = -exp(mu z - mu^2/2), z = Phi^{-1}(1 - a) (Dong et al. 2019).
    z = special.ndtri(1.0 - ALPHA)
    expected = mu * z - mu**2 / 2
    np.testing.assert_allclose(supporting_eps(ALPHA, _g(mu)), expected, atol=1e-6)


def test_supporting_eps_ends() -> None:
    eps = supporting_eps(np.array([0.0, 1.0]), _g(1.0))
    assert eps[0] == np.inf and eps[1] == -np.inf


def test_errors_follow_the_profile_error_at_the_supporting_eps() -> None:
    mu = 1.0
    z = special.ndtri(1.0 - ALPHA)
    eps = mu * z - mu**2 / 2

    def profile_errors(e: np.ndarray) -> np.ndarray:
        return 1e-4 * np.exp(-np.abs(e))

    raw = tradeoff_errors(ALPHA, _g(mu), profile_errors, symmetric=False)
    assert raw is not None
    np.testing.assert_allclose(raw, 1e-4 * np.exp(-np.abs(eps)), rtol=1e-5)
    sym = tradeoff_errors(ALPHA, _g(mu), profile_errors, symmetric=True)
    assert sym is not None
    # Past the fixed point (eps* < 0): e^{eps*} times the error at -eps*.
    expected = np.where(eps < 0, np.exp(eps), 1.0) * 1e-4 * np.exp(-np.abs(eps))
    np.testing.assert_allclose(sym, expected, rtol=1e-5)


def test_no_profile_estimate_no_tradeoff_estimate() -> None:
    assert tradeoff_errors(ALPHA, _g(1.0), lambda e: None, symmetric=False) is None


def test_estimates_are_capped_by_the_valid_range() -> None:
    errors = tradeoff_errors(
        ALPHA, _g(1.0), lambda e: np.full(e.shape, 10.0), symmetric=False
    )
    assert errors is not None
    beta = _g(1.0)(ALPHA)
    assert np.all(errors <= np.maximum(beta, 1 - ALPHA - beta) + 1e-15)


def test_gaussian_composition_estimates_zero() -> None:
    curve = A.CLT().compose(M.Gaussian(mu=0.5), 10)
    np.testing.assert_array_equal(curve.tradeoff_error(ALPHA), 0.0)
    np.testing.assert_array_equal(rero.gamma_error(curve, [0.01, 0.1]), 0.0)


@pytest.mark.parametrize("method", [A.CLT(), A.Edgeworth(order=2)])
def test_laplace_tradeoff_warns_and_its_estimate_covers_the_error(method) -> None:  # type: ignore[no-untyped-def]
    """Issue 32: Laplace x3 trade-off curves were 14-131% off without a word."""
    m = M.Laplace(mu=1.0)
    alpha = np.array([1e-3, 1e-2, 0.1])
    lo, hi = A.Numerical(eps_rel_tol=1e-5).compose(m, 3).tradeoff_bounds(alpha)
    curve = method.compose(m, 3)
    with pytest.warns(ApproximationWarning, match="trade-off"):
        beta = curve.tradeoff(alpha)
    true = np.abs(beta - 0.5 * (lo + hi))
    assert np.all(true <= 3.0 * curve.tradeoff_error(alpha) + (hi - lo))


def test_rero_gamma_of_subsampled_gaussian_warns() -> None:
    """Issue 32: gamma of mu = 2, p = 0.1, N = 100 was 224% off (CLT), silent."""
    m = M.SubsampledGaussian(mu=2.0, p=0.1)
    curve = rero.add_pair_curve(m, 100, A.CLT())
    with pytest.warns(ApproximationWarning, match="ReRo gamma"):
        gamma = rero.gamma(curve, 0.1)
    estimate = rero.gamma_error(curve, 0.1)
    lo, hi = rero.gamma_bounds(rero.add_pair_curve(m, 100), 0.1)
    assert abs(gamma - 0.5 * (lo + hi)) <= 3.0 * estimate + (hi - lo)


def test_gamma_error_of_a_certified_curve_is_the_half_width() -> None:
    curve = rero.add_pair_curve(M.SubsampledGaussian(sigma=1.0, p=0.1), 10)
    lo, hi = rero.gamma_bounds(curve, 0.1)
    assert rero.gamma_error(curve, 0.1) == pytest.approx(0.5 * (hi - lo))


def test_gamma_error_needs_an_estimating_method() -> None:
    curve = A.RDP().compose(M.Gaussian(mu=1.0), 4)
    with pytest.raises(NotImplementedError, match="gamma_bounds"):
        rero.gamma_error(curve, 0.1)
