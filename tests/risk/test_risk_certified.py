"""Every certified bracket of symfdp.risk contains an independent value: mpmath
closed forms at 30 digits for G_mu and the Laplace trade-off, on grids."""

from __future__ import annotations

import mpmath as mp
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import risk
from symfdp import tradeoff as T
from tests.risk._closed_forms import (
    divergence,
    gauss_delta,
    gauss_divergence,
    gauss_tpr,
    gauss_tradeoff,
    gdp_mu_of,
    laplace_delta,
    laplace_tradeoff,
)

#: mpmath values are exact to ~1e-25; the comparison slack is float round-off.
SLACK = 1e-12

FPRS = (1e-9, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.9)
PRIORS = (0.01, 0.2, 0.5, 0.7, 0.99)


def contains(value: risk.RiskValue, exact: mp.mpf) -> bool:
    x = float(exact)
    return value.certified and value.lower - SLACK <= x <= value.upper + SLACK


@pytest.fixture(scope="module")
def gauss() -> tuple[float, object]:
    """G_2 as four Gaussian steps of mu = 1 (accountants.Exact)."""
    return 2.0, A.Exact().compose(M.Gaussian(mu=1.0), n=4)


@pytest.fixture(scope="module")
def laplace() -> tuple[float, object]:
    """One Laplace step, mu = 1, from the certified FFT accountant."""
    return 1.0, A.Numerical().compose(M.Laplace(mu=1.0), n=1)


@pytest.mark.parametrize("fpr", FPRS)
@pytest.mark.parametrize("direction", ["add", "remove", "worst"])
def test_tpr_gaussian(gauss, fpr, direction):
    mu, curve = gauss
    value = risk.tpr_at_fpr(curve, fpr, direction=direction)
    assert contains(value, gauss_tpr(mu, fpr))


@pytest.mark.parametrize("fpr", FPRS)
def test_tpr_laplace(laplace, fpr):
    mu, curve = laplace
    value = risk.tpr_at_fpr(curve, fpr)
    assert contains(value, 1 - laplace_tradeoff(mu, mp.mpf(fpr)))
    assert value.upper - value.lower < 1e-3


def test_advantage(gauss, laplace):
    mu, curve = gauss
    assert contains(risk.advantage(curve), 2 * mp.ncdf(mp.mpf(mu) / 2) - 1)
    mu, curve = laplace
    assert contains(risk.advantage(curve), 1 - mp.exp(-mp.mpf(mu) / 2))


@pytest.mark.parametrize("prior", PRIORS)
def test_bayes_risk(gauss, laplace, prior):
    pi = mp.mpf(prior)
    eps = mp.log(pi / (1 - pi))
    mu, curve = gauss
    exact = (1 - pi) * (1 - gauss_delta(mu, eps))
    assert contains(risk.bayes_risk(curve, prior), exact)
    mu, curve = laplace
    if abs(eps) <= mu:  # laplace_delta's closed form covers |eps| <= mu
        exact = min(
            (1 - pi) * (1 - laplace_delta(mu, eps)), pi * (1 - laplace_delta(mu, -eps))
        )
        assert contains(risk.bayes_risk(curve, prior), exact)


@pytest.mark.parametrize("kappa", (1e-4, 0.01, 0.1, 0.5))
def test_rero_gamma(gauss, kappa):
    mu, curve = gauss
    assert contains(risk.rero_gamma(curve, kappa), gauss_tpr(mu, kappa))


def test_gdp_mu_gaussian(gauss):
    mu, curve = gauss
    value = risk.gdp_mu(curve)
    assert contains(value, mp.mpf(mu))
    assert value.upper - value.lower < 1e-3


def test_gdp_mu_laplace(laplace):
    mu, curve = laplace
    exact = gdp_mu_of(lambda a: laplace_tradeoff(mu, a))
    value = risk.gdp_mu(curve)
    assert contains(value, exact)
    assert value.upper - value.lower < 0.05


def test_gdp_regret_of_gaussian(gauss):
    """G_2 reported as G_mu at the certified upper end mu >= 2: the regret is
    the (small) divergence between the two Gaussians."""
    mu, curve = gauss
    fit = risk.gdp_fit(curve)
    exact = gauss_divergence(mu, fit.reported_mu)
    assert contains(fit.regret, exact)
    assert fit.regret.upper < 1e-3


def test_gdp_regret_laplace(laplace):
    mu, curve = laplace
    fit = risk.gdp_fit(curve)
    reported = fit.reported_mu
    exact = divergence(
        lambda a: laplace_tradeoff(mu, a), lambda a: gauss_tradeoff(reported, a)
    )
    assert contains(fit.regret, exact)


@pytest.mark.parametrize("reference_mu", (2.5, 4.0))
def test_delta_divergence_gaussians(gauss, reference_mu):
    mu, curve = gauss
    exact = gauss_divergence(mu, reference_mu)
    value = risk.delta_divergence(curve, T.Gaussian(reference_mu))
    assert contains(value, exact)
    assert exact > 0.01  # a test that can fail: the curves differ
    # The other way round G_2 lies above nothing: G_3 <= G_2 needs no shift.
    back = risk.delta_divergence(
        A.Exact().compose(M.Gaussian(mu=reference_mu), n=1), T.Gaussian(mu)
    )
    assert contains(back, mp.mpf(0))
