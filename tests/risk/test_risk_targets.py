"""Calibration to the risk measures: the certified end meets the target, and on
the Gaussian mechanism the answer is the closed form's (mpmath)."""

from __future__ import annotations

import math

import mpmath
import pytest

from symfdp import calibrate as C
from symfdp import risk

N = 4  # Gaussian mechanism composed 4 times: G_{2/sigma}


def _mu_for_advantage(a: float) -> float:
    # advantage of G_mu = delta(0) = 2 Phi(mu/2) - 1 (Dong et al. 2019, Cor. 2.13)
    return float(2 * mpmath.sqrt(2) * mpmath.erfinv(a))


def _mu_for_tpr(tpr: float, fpr: float) -> float:
    # 1 - G_mu(alpha) = Phi(mu - Phi^{-1}(1 - alpha))
    z = lambda x: mpmath.sqrt(2) * mpmath.erfinv(2 * x - 1)  # noqa: E731
    return float(z(tpr) + z(1 - fpr))


CASES = {
    "advantage": (risk.advantage_target(0.2), _mu_for_advantage(0.2)),
    "tpr": (risk.tpr_target(0.3, 0.05), _mu_for_tpr(0.3, 0.05)),
    "bayes": (risk.bayes_risk_target(0.4, 0.5), _mu_for_advantage(0.2)),
    "rero": (risk.rero_target(0.3, 0.05), _mu_for_tpr(0.3, 0.05)),
    "gdp": (risk.gdp_target(1.5), 1.5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gaussian_sigma_is_the_closed_form_and_the_certified_end_meets(name):
    target, mu = CASES[name]
    out = C.calibrate(target, "sigma", n=N, mechanism="gaussian", rtol=1e-3)
    b = out.bracket
    assert b.certified
    if target.larger_is_riskier:
        assert b.upper <= target.value and b.upper >= target.value * (1 - 0.01)
    else:
        assert b.lower >= target.value and b.lower <= target.value * (1 + 0.01)
    # sigma = sqrt(N) / mu, to the tolerance of the target (measures are smooth
    # in mu near these values) and the certified bracket's width.
    assert out.value == pytest.approx(math.sqrt(N) / mu, rel=1e-2)


def test_subsampled_run_meets_an_advantage_target():
    out = C.calibrate(risk.advantage_target(0.1), "sigma", p=0.01, n=200)
    assert out.bracket.certified and out.bracket.upper <= 0.1


@pytest.mark.parametrize(
    ("build", "param"),
    [
        (lambda: risk.advantage_target(1.5), "value"),
        (lambda: risk.advantage_target(float("nan")), "value"),
        (lambda: risk.tpr_target(0.5, 0.0), "fpr"),
        (lambda: risk.bayes_risk_target(0.4, 1.0), "prior"),
        (lambda: risk.rero_target(0.4, -0.1), "kappa"),
        (lambda: risk.gdp_target(-1.0), "value"),
        (lambda: risk.advantage_target("0.1"), "value"),
    ],
)
def test_bad_targets_name_the_parameter(build, param):
    with pytest.raises((ValueError, TypeError), match=param):
        build()
