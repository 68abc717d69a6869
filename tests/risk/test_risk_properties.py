"""Invariants of the risk measures (hypothesis), on closed-form curves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import risk
from symfdp import tradeoff as T

mus = st.floats(0.1, 4.0)
rates = st.floats(1e-8, 1.0 - 1e-8)
priors = st.floats(1e-4, 1.0 - 1e-4)


def gauss(mu: float):
    return A.Exact().compose(M.Gaussian(mu=mu), n=1)


@settings(max_examples=25, deadline=None)
@given(mu=mus, a=rates, b=rates)
def test_tpr_monotone_in_fpr(mu, a, b):
    lo, hi = sorted((a, b))
    curve = gauss(mu)
    assert risk.tpr_at_fpr(curve, lo).upper <= risk.tpr_at_fpr(curve, hi).upper + 1e-15
    assert risk.tpr_at_fpr(curve, lo).estimate >= lo


@settings(max_examples=25, deadline=None)
@given(mu=mus, a=rates)
def test_tpr_monotone_in_mu(mu, a):
    weak, strong = gauss(mu), gauss(mu + 0.5)
    assert risk.tpr_at_fpr(weak, a).estimate <= risk.tpr_at_fpr(strong, a).estimate


@settings(max_examples=15, deadline=None)
@given(mu=mus)
def test_advantage_is_max_tpr_minus_fpr(mu):
    curve = gauss(mu)
    alpha = np.linspace(0.0, 1.0, 20001)
    gaps = 1.0 - np.asarray(curve.tradeoff(alpha)) - alpha
    value = risk.advantage(curve)
    assert gaps.max() <= value.upper + 1e-12
    assert value.lower - gaps.max() < 1e-7  # the grid's resolution at the maximum


@settings(max_examples=25, deadline=None)
@given(mu=mus, a=priors, b=priors)
def test_bayes_risk_shape(mu, a, b):
    """R(pi) is concave and symmetric for a symmetric curve, and below
    min(pi, 1 - pi) (guessing)."""
    curve = gauss(mu)
    ra, rb = risk.bayes_risk(curve, a).estimate, risk.bayes_risk(curve, b).estimate
    mid = risk.bayes_risk(curve, 0.5 * (a + b)).estimate
    assert mid >= 0.5 * (ra + rb) - 1e-12
    assert ra <= min(a, 1 - a) + 1e-15
    assert abs(ra - risk.bayes_risk(curve, 1 - a).estimate) < 1e-12


@settings(max_examples=25, deadline=None)
@given(mu=mus, prior=priors)
def test_bayes_risk_decreases_with_mu(mu, prior):
    weak, strong = gauss(mu), gauss(mu + 0.5)
    assert risk.bayes_risk(strong, prior).upper <= risk.bayes_risk(weak, prior).upper


@settings(max_examples=10, deadline=None)
@given(mu=mus)
def test_divergence_to_itself_is_zero(mu):
    curve = gauss(mu)
    value = risk.delta_divergence(curve, T.Gaussian(mu))
    assert value.lower == 0.0
    assert value.upper < 1e-3


@settings(max_examples=10, deadline=None)
@given(mu=mus)
def test_gdp_mu_grows_with_composition(mu):
    """sqrt(n)-scaling of the Gaussian: mu(G_mu^{(x)4}) = 2 mu."""
    one, four = risk.gdp_mu(gauss(mu)), risk.gdp_mu(gauss(2 * mu))
    assert one.upper < four.lower
    assert four.lower <= 2 * mu * (1 + 1e-12) <= four.upper + 1e-12


def test_orientation():
    assert risk.RiskMeasure.BAYES_RISK.larger_is_riskier is False
    riskier = [m for m in risk.RiskMeasure if m.larger_is_riskier]
    assert risk.RiskMeasure.TPR_AT_FPR in riskier and risk.RiskMeasure.GDP_MU in riskier
    value = risk.bayes_risk(gauss(1.0), 0.5)
    assert value.riskiest == value.lower


def test_directions_differ_for_subsampling():
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=100)
    add = risk.tpr_at_fpr(curve, 1e-3, direction="add")
    remove = risk.tpr_at_fpr(curve, 1e-3, direction="remove")
    worst = risk.tpr_at_fpr(curve, 1e-3)
    assert remove.upper < add.lower  # the add relation is the weaker one here
    assert worst == add


def test_analytic_estimate_with_error():
    """An analytic curve gives estimate -+ error, not certified, for profile
    measures and for trade-off measures alike (the trade-off's error comes from
    the profile's through the duality)."""
    curve = A.Edgeworth(order=2).compose(
        M.SubsampledGaussian(sigma=1.0, p=0.01), n=1000
    )
    value = risk.advantage(curve)
    assert not value.certified and value.error is not None
    assert value.lower == pytest.approx(value.estimate - value.error)
    tpr = risk.tpr_at_fpr(curve, 0.01)
    assert not tpr.certified and tpr.error is not None
    assert tpr.lower == pytest.approx(tpr.estimate - tpr.error)


@settings(max_examples=10, deadline=None)
@given(mu=mus, gap=st.floats(0.05, 2.0))
def test_divergence_grows_as_the_reference_gets_riskier(mu, gap):
    """Delta(f || g) is monotone in g: a smaller reference needs a longer
    shift (G_a is below G_b for a > b)."""
    curve = gauss(mu)
    near = risk.delta_divergence(curve, T.Gaussian(mu + gap))
    far = risk.delta_divergence(curve, T.Gaussian(mu + 2 * gap))
    assert near.lower <= far.upper
    assert near.estimate <= far.estimate + 1e-12


def test_subsampled_advantage_bracket_holds_the_curve_maximum():
    """A certified subsampled curve: the advantage bracket (from delta(0))
    contains the largest 1 - alpha - f(alpha) of the certified trade-off
    bracket up to the grid's resolution."""
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=300)
    alpha = np.linspace(0.0, 1.0, 200001)
    lo, hi = curve.tradeoff_bounds(alpha)
    value = risk.advantage(curve)
    assert np.max(1.0 - alpha - np.asarray(hi)) <= value.upper + 1e-12
    assert np.max(1.0 - alpha - np.asarray(lo)) >= value.lower - 1e-6
