"""The step hint of the certified engine (``symfdp.pld.step``)."""

from __future__ import annotations

import math

import pytest
from scipy import optimize, special

from symfdp import mechanisms as M
from symfdp.pld.grid import choose_step
from symfdp.pld.step import STEP_RANGE, estimate, fills, step_hint


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """eps(delta) of G_mu (Dong et al. 2019, Cor. 2.13), by brentq."""

    def gap(e: float) -> float:
        return float(
            special.ndtr(-e / mu + mu / 2)
            - math.exp(e) * special.ndtr(-e / mu - mu / 2)
            - delta
        )

    return float(optimize.brentq(gap, 0.0, mu * mu + 10.0 * mu + 10.0, xtol=1e-14))


@pytest.mark.parametrize(
    ("mu", "delta", "rel"), [(0.5, 1e-5, 0.05), (3.0, 1e-5, 0.02), (20.0, 1e-10, 2e-3)]
)
def test_estimate_of_a_gaussian_loss(mu: float, delta: float, rel: float) -> None:
    # The leading saddle-point term errs by O(1/(mu s)^2) relative: a few per
    # cent for mu = 0.5, measured 0.9% (eps) and 2.6% (hazard).
    # H = phi(z) / (mu Phi(-z)), z = (eps + mu^2/2) / mu for N(-mu^2/2, mu^2).
    found = estimate([(M.Gaussian(mu=mu / math.sqrt(50)), 50)], delta)
    assert found is not None
    eps = _gaussian_epsilon(mu, delta)
    z = (eps + mu * mu / 2) / mu
    hazard = math.exp(-0.5 * z * z - 0.5 * math.log(2 * math.pi)) / (
        mu * special.ndtr(-z)
    )
    assert found.eps == pytest.approx(eps, rel=rel)
    assert found.hazard == pytest.approx(hazard, rel=rel)


def test_step_hint_stays_within_its_range_of_the_rule_step() -> None:
    comps = [(M.SubsampledGaussian(sigma=1.0, p=0.01), 1_000_000)]
    rule = choose_step(comps, 1e-3)
    hint = step_hint(comps, 1e-3, 1e-5, rule)
    assert hint is not None
    assert STEP_RANGE[0] * rule <= hint <= STEP_RANGE[1] * rule


def test_short_compositions_keep_the_rule_step() -> None:
    comps = [(M.SubsampledGaussian(sigma=1.0, p=0.01), 100)]
    assert not fills(comps, 1e-3, 1e-5)
    assert step_hint(comps, 1e-3, 1e-5, 0.01) is None
