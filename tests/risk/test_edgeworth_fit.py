"""The Edgeworth prediction of the GDP fit against the certified one.

The prediction is first order in lambda_3 = O(n^{-1/2}): it is compared with
the certified brackets of accountants.Numerical within stated relative
tolerances on DP-SGD settings, not to round-off."""

from __future__ import annotations

import pytest
import sympy as sp

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import risk
from symfdp.risk.edgeworth_fit import predict_gdp_fit
from symfdp.symbolic import gdp_fit

#: Tail of the mu comparison: there the certified bracket is ~0.5% wide.
TAIL = 1e-5
#: Predicted mu vs the certified bracket (first order; measured <= 1.6%).
MU_RTOL = 0.03
#: Predicted regret at the reported mu vs the certified bracket (first order;
#: measured <= 10% at TAIL and <= 16% at the default tail 1e-10).
REGRET_RTOL = 0.2

DPSGD = [(1.0, 0.01, 1000), (2.0, 0.1, 100), (1.0, 0.01, 10_000)]


def test_symbolic_gaussian_is_constant():
    mu0, mu1 = gdp_fit.local_mu_terms()
    gauss = {gdp_fit.rho: 1, gdp_fit.lambda3_P: 0, gdp_fit.lambda3_Q: 0}
    assert sp.simplify((mu0 + mu1).subs(gauss) - gdp_fit.theta) == 0
    assert mu1.free_symbols >= {gdp_fit.lambda3_P, gdp_fit.lambda3_Q}


def test_gaussian_prediction_is_exact():
    fit = predict_gdp_fit(M.Gaussian(mu=0.5), 16)
    assert fit.mu == pytest.approx(2.0, rel=1e-12)
    assert fit.regret == pytest.approx(0.0, abs=1e-15)


def _outside(value: float, lo: float, hi: float) -> float:
    """Relative distance of ``value`` from ``[lo, hi]`` (0 inside)."""
    return max(lo - value, value - hi, 0.0) / hi


@pytest.mark.parametrize("setting", DPSGD, ids=lambda s: f"sigma{s[0]}-p{s[1]}-n{s[2]}")
def test_prediction_meets_the_certified_fit(setting):
    sigma, p, n = setting
    step = M.SubsampledGaussian(sigma=sigma, p=p)
    curve = A.Numerical().compose(step, n=n)
    for tail in (TAIL, risk.TAIL):
        fit = risk.gdp_fit(curve, tail=tail)
        predicted = predict_gdp_fit(step, n, tail=tail, reported_mu=fit.reported_mu)
        regret = fit.regret
        assert _outside(predicted.regret, regret.lower, regret.upper) < REGRET_RTOL
    mu = risk.gdp_mu(curve, tail=TAIL)
    predicted_mu = predict_gdp_fit(step, n, tail=TAIL).mu
    assert _outside(predicted_mu, mu.lower, mu.upper) < MU_RTOL
