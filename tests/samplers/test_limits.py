"""Closed forms in the limits of large and small noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy import optimize

from symfdp import mechanisms as M
from symfdp.samplers import limits, random_allocation


def test_chi_square_of_the_gaussian_pair_is_exact() -> None:
    mu = sp.Symbol("mu", positive=True)
    assert sp.simplify(limits.chi_square_expr() - (sp.exp(mu**2) - 1)) == 0


def test_gdp_delta_matches_the_mechanism() -> None:
    eps = np.array([0.0, 0.5, 2.0, 8.0])
    np.testing.assert_allclose(
        limits.gdp_delta(1.7, eps),
        M.Gaussian(mu=1.7).privacy_profile(eps),
        rtol=1e-12,
    )


@pytest.mark.parametrize(
    ("sigma", "t", "epochs"), [(0.5, 2, 1), (1.0, 10, 2), (2.0, 100, 1)]
)
def test_small_noise_bound_is_below_the_certified_upper_end(
    sigma: float, t: int, epochs: int
) -> None:
    curve = random_allocation(M.Gaussian(sigma=sigma), t=t, epochs=epochs)
    remove = next(p.curve for p in curve.pairs if p.name == "remove")
    eps = np.linspace(0.0, 4.0, 9)
    _, hi = remove.delta_bounds(eps)
    assert np.all(limits.small_noise_lower_delta(sigma, t, eps, epochs) <= hi)


def test_small_noise_bound_is_tight_as_sigma_falls() -> None:
    shares = []
    for sigma in (1.0, 0.6, 0.4):
        curve = random_allocation(M.Gaussian(sigma=sigma), t=10)
        remove = next(p.curve for p in curve.pairs if p.name == "remove")
        # At the certified upper end delta <= 1e-5, so the bound's share <= 1.
        _, hi = remove.epsilon_bounds(1e-5)
        shares.append(float(limits.small_noise_lower_delta(sigma, 10, hi)) / 1e-5)
    assert shares[0] < shares[1] < shares[2] <= 1.0 + 1e-9
    assert shares[2] > 0.99


def _gdp_eps(mu: float, delta: float) -> float:
    return float(
        optimize.brentq(lambda e: float(limits.gdp_delta(mu, e)) - delta, 0.0, 50.0)
    )


def test_gdp_limit_error_falls_as_sigma_grows() -> None:
    errors = []
    for sigma in (1.0, 2.0, 4.0):
        lo, hi = random_allocation(M.Gaussian(sigma=sigma), t=16).epsilon_bounds(1e-5)
        mid = 0.5 * float(lo + hi)
        approx = _gdp_eps(limits.gdp_mu(sigma, 16), 1e-5)
        errors.append(abs(approx - mid) / mid)
    assert errors[0] > errors[1] > errors[2]


def test_gdp_mu_is_poisson_equivalent() -> None:
    # Dong et al. (2019), Cor. 5.4 at rate k/t over epochs * t steps.
    sigma, t, k, epochs = 1.3, 100, 4, 3
    p = k / t
    expect = p * math.sqrt(epochs * t * math.expm1(sigma**-2))
    assert limits.gdp_mu(sigma, t, k, epochs) == pytest.approx(expect, rel=1e-14)
    with pytest.raises(ValueError, match="sigma"):
        limits.gdp_mu(0.0, t)
