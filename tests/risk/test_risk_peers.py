"""symfdp.risk against the peers riskcal and gdpnum (dp-accounting PLDs).

The peers discretise the privacy loss pessimistically (dp-accounting's
``value_discretization_interval=1e-4``, connect-the-dots): their values may leave
a certified bracket by that discretisation, ``PEER_TOL``, never by more."""

from __future__ import annotations

import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import risk
from symfdp import tradeoff as T

pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
riskcal_analysis = pytest.importorskip("riskcal.analysis")
gdpnum = pytest.importorskip("gdpnum")

#: dp-accounting's loss discretisation (1e-4) moves delta by up to ~1e-5 here.
PEER_TOL = 1e-5

SETTINGS = [(1.0, 0.01, 1000), (2.0, 0.1, 100), (0.8, 1.0, 1)]


def _pair(sigma: float, p: float, n: int):
    step = M.SubsampledGaussian(sigma=sigma, p=p) if p < 1 else M.Gaussian(sigma=sigma)
    curve = A.Numerical().compose(step, n=n)
    pld = pld_module.from_gaussian_mechanism(
        standard_deviation=sigma,
        sampling_prob=p,
        use_connect_dots=True,
        value_discretization_interval=1e-4,
    ).self_compose(n)
    return curve, pld


def _setting_id(setting: tuple[float, float, int]) -> str:
    return "sigma{:g}-p{:g}-n{:d}".format(*setting)


@pytest.fixture(scope="module", params=SETTINGS, ids=_setting_id)
def pair(request):
    return _pair(*request.param)


def near(value: risk.RiskValue, peer: float) -> bool:
    return value.lower - PEER_TOL <= float(peer) <= value.upper + PEER_TOL


def test_advantage_riskcal(pair):
    curve, pld = pair
    assert near(risk.advantage(curve), riskcal_analysis.get_advantage_from_pld(pld))


@pytest.mark.parametrize("prior", (0.1, 0.5, 0.9))
def test_bayes_risk_riskcal(pair, prior):
    curve, pld = pair
    peer = riskcal_analysis.get_bayes_risk_from_pld(pld, prior)
    assert near(risk.bayes_risk(curve, prior), peer)


def test_regret_gdpnum(pair):
    """gdpnum's regret is Delta(f || G_mu) at its mu: the same quantity as
    ``delta_divergence`` to ``T.Gaussian(mu)``."""
    curve, pld = pair
    mu, regret = gdpnum.PLDConverter(pld).get_mu_and_regret()
    value = risk.delta_divergence(curve, T.Gaussian(float(mu)))
    assert near(value, regret)


def test_gdp_mu_gdpnum_gaussian():
    """Without subsampling both read the same G_mu: mu = 1/sigma."""
    curve, pld = _pair(0.8, 1.0, 1)
    mu, _ = gdpnum.PLDConverter(pld).get_mu_and_regret()
    value = risk.gdp_mu(curve)
    assert value.lower - 1e-6 <= mu <= value.upper
