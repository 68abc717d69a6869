"""Bad input to symfdp.risk raises, naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import risk


@pytest.fixture(scope="module")
def curve():
    return A.Exact().compose(M.Gaussian(mu=1.0), n=1)


@pytest.mark.parametrize("bad", [math.nan, -0.1, 1.5, math.inf])
def test_fpr_range(curve, bad):
    with pytest.raises(ValueError, match="fpr"):
        risk.tpr_at_fpr(curve, bad)


@pytest.mark.parametrize("bad", [math.nan, 0.0, 1.0, -1.0, 2.0])
def test_prior_range(curve, bad):
    with pytest.raises(ValueError, match="prior"):
        risk.bayes_risk(curve, bad)


@pytest.mark.parametrize("bad", [math.nan, 0.0, 1.0])
def test_kappa_range(curve, bad):
    with pytest.raises(ValueError, match="kappa"):
        risk.rero_gamma(curve, bad)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda c: risk.tpr_at_fpr(c, np.array([0.1, 0.2])), "fpr"),
        (lambda c: risk.bayes_risk(c, [0.5]), "prior"),
        (lambda c: risk.rero_gamma(c, np.array([0.1, 0.2])), "kappa"),
        (lambda c: risk.gdp_mu(c, tail="1e-10"), "tail"),
    ],
)
def test_arrays_and_strings_where_scalars_are_expected(curve, call, name):
    with pytest.raises(TypeError, match=name):
        call(curve)


def test_tail_range(curve):
    with pytest.raises(ValueError, match="tail"):
        risk.gdp_mu(curve, tail=0.7)


def test_not_a_curve():
    with pytest.raises(TypeError, match="PrivacyCurve"):
        risk.advantage(M.Gaussian(mu=1.0))
    with pytest.raises(TypeError, match="reference"):
        risk.delta_divergence(
            A.Exact().compose(M.Gaussian(mu=1.0), n=1), lambda a: 1 - a
        )


def test_direction(curve):
    with pytest.raises(ValueError, match="direction"):
        risk.tpr_at_fpr(curve, 0.1, direction="sideways")
    one_way = A.Numerical().compose(
        M.SubsampledGaussian(sigma=1.0, p=0.1), n=1, adjacency="add"
    )
    with pytest.raises(ValueError, match="remove"):
        risk.tpr_at_fpr(one_way, 0.1, direction="remove")


def test_report_fpr_list(curve):
    with pytest.raises(ValueError, match="fpr"):
        risk.report(curve, fpr=[])
    with pytest.raises(ValueError, match="fpr"):
        risk.report(curve, fpr=[0.1, 2.0])


def test_risk_value_record():
    with pytest.raises(ValueError, match="lower <= estimate <= upper"):
        risk.RiskValue("advantage", 0.5, 0.6, 0.7, None, True)
    with pytest.raises(ValueError):
        risk.RiskValue("no_such_measure", 0.5, 0.5, 0.5, None, True)
