r"""The GDP summary mu* of a curve with its error estimate or certified bracket
(:mod:`symfdp.curve.mu_star`): closed forms within the estimate, far-off
answers warned, brackets containing the closed form.

References: a composition of :math:`G_{\mu_i}` is :math:`G_\mu` with
:math:`\mu^2 = \sum_i \mu_i^2` (Dong et al. 2019, Cor. 3.3), whose fixed point
is :math:`\Phi(-\mu/2)`, so :math:`\mu^* = \mu` (Zheng et al. 2020, Sec. 4).
"""

from __future__ import annotations

import math
import warnings

import pytest
from scipy import stats

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve.mu_star import propagate

GAUSSIAN_COMPOSITION = [(M.Gaussian(mu=0.5), 10), (M.Gaussian(mu=1.0), 3)]
#: sqrt(10 * 0.25 + 3 * 1.0)
GAUSSIAN_MU = math.sqrt(5.5)


@pytest.mark.parametrize(
    "accountant",
    [A.CLT(), A.Edgeworth(order=4), A.SaddlePoint(order=3), A.Auto()],
    ids=repr,
)
def test_gaussian_composition_within_estimate(accountant: A.Accountant) -> None:
    curve = accountant.compose(GAUSSIAN_COMPOSITION)
    mu = curve.mu_star()
    err = curve.mu_star_error()
    assert abs(mu - GAUSSIAN_MU) <= err + 1e-9 * GAUSSIAN_MU


@pytest.mark.parametrize("accountant", [A.Numerical(), A.Exact()], ids=repr)
def test_certified_bracket_contains_closed_form(accountant: A.Accountant) -> None:
    curve = accountant.compose(GAUSSIAN_COMPOSITION)
    lo, hi = curve.mu_star_bounds()
    assert lo <= GAUSSIAN_MU * (1 + 1e-12) and GAUSSIAN_MU <= hi * (1 + 1e-12)
    assert lo <= curve.mu_star() <= hi
    assert curve.mu_star_error() == pytest.approx(0.5 * (hi - lo))
    assert hi - lo < 1e-2 * GAUSSIAN_MU


def test_subsampled_p1_is_the_gaussian() -> None:
    """SubsampledGaussian(sigma, p=1) is G_{1/sigma}: mu* = sqrt(n)/sigma."""
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=2.0, p=1.0), 16)
    lo, hi = curve.mu_star_bounds()
    assert lo <= 2.0 * (1 + 1e-12) and 2.0 <= hi * (1 + 1e-12)


@pytest.mark.parametrize(
    ("mechanism", "n"),
    [
        (M.Laplace(mu=2.0), 3),  # CLT 10% above the certified mu* ~ 2.798
        (M.SubsampledGaussian(sigma=0.5, p=0.1), 10),  # CLT 78% above
    ],
)
def test_clt_far_off_warns_once(mechanism: M.Mechanism, n: int) -> None:
    truth = A.Numerical().compose(mechanism, n).mu_star_bounds()
    curve = A.CLT().compose(mechanism, n)
    with pytest.warns(ApproximationWarning, match=r"error of mu\*") as record:
        mu = curve.mu_star()
    assert len([w for w in record if w.category is ApproximationWarning]) == 1
    off = abs(mu - 0.5 * (truth[0] + truth[1]))
    assert off > 0.05 * truth[0]  # the case is indeed far off
    # The estimate is of the size of the true error (within 3x).
    assert off / 3 <= curve.mu_star_error() <= 3 * off


def test_accurate_answer_does_not_warn() -> None:
    """Edgeworth(4) on a Poisson-subsampled Laplace x 10: within 0.3% of the
    certified mu*, estimate below 5%: silent."""
    m = M.PoissonSubsampled(M.Laplace(mu=1.0), p=0.1)
    lo, hi = A.Numerical().compose(m, 10).mu_star_bounds()
    curve = A.Edgeworth(order=4).compose(m, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        mu = curve.mu_star()
    # An estimate, not a bound: within 3x of the true error.
    assert abs(mu - 0.5 * (lo + hi)) <= 3 * curve.mu_star_error() + 0.5 * (hi - lo)


def test_auto_answers_from_a_tier_meeting_rel_tol() -> None:
    curve = A.Auto().compose(M.Laplace(mu=2.0), 3)
    lo, hi = A.Numerical().compose(M.Laplace(mu=2.0), 3).mu_star_bounds()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        mu = curve.mu_star()
    assert curve.mu_star_error() <= 1e-2 * mu
    assert lo - 1e-2 * mu <= mu <= hi + 1e-2 * mu
    assert curve.last_answer is not None and curve.last_answer.query == "mu*"


def test_mu_star_beyond_floor_warns() -> None:
    """alpha* below 5e-14 (mu* > 14.9) from an inexact approximation."""
    curve = A.CLT().compose(M.Laplace(mu=4.0), 20)
    with pytest.warns(ApproximationWarning, match=r"mu\*"):
        mu = curve.mu_star()
    assert mu > 14.9


def test_no_estimate_raises() -> None:
    curve = A.RDP().compose(M.Gaussian(mu=1.0), 4)
    with pytest.raises(NotImplementedError, match="Numerical"):
        curve.mu_star_error()
    with pytest.raises(NotImplementedError, match="Numerical"):
        curve.mu_star_bounds()


@pytest.mark.parametrize("mu", [0.3, 1.0, 4.0])
def test_propagate_first_order(mu: float) -> None:
    r"""For a smooth symmetric curve (f' = -1 at alpha*), an error e moves mu*
    by e / phi(mu/2) to first order."""
    a_star = float(stats.norm.cdf(-mu / 2))
    e = 1e-9 * a_star
    expected = e / float(stats.norm.pdf(mu / 2))
    assert propagate(a_star, e, -1.0) == pytest.approx(expected, rel=1e-6)
    # A flat right slope doubles the move of alpha*.
    assert propagate(a_star, e, 0.0) == pytest.approx(2 * expected, rel=1e-6)
    assert propagate(a_star, 2 * a_star, -1.0) == math.inf
    assert propagate(a_star, 0.0, -1.0) == 0.0


def test_runs_mu_star_warns_from_the_profile_error() -> None:
    """symfdp.runs.mu_star (from delta(0)) carries the same first-order error:
    CLT on Laplace(mu=2) x 3 is 10% above the certified mu*, and warns."""
    from symfdp.runs import mu_star

    lo, hi = A.Numerical().compose(M.Laplace(mu=2.0), 3).mu_star_bounds()
    curve = A.CLT().compose(M.Laplace(mu=2.0), 3)
    with pytest.warns(ApproximationWarning, match=r"mu\*") as record:
        mu = mu_star(curve)
    assert len([w for w in record if w.category is ApproximationWarning]) == 1
    assert abs(mu - 0.5 * (lo + hi)) > 0.05 * lo
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        exact = mu_star(A.CLT().compose(GAUSSIAN_COMPOSITION))
    assert exact == pytest.approx(GAUSSIAN_MU, rel=1e-12)


def test_deep_fixed_point_of_an_approximation_warns() -> None:
    """Gaussian(mu=0.5) x 1000 under replace-one is G_{31.6}: SaddlePoint's
    trade-off meets the diagonal at alpha* ~ 8e-15 (mu* = 15.4, half the
    truth) with an estimate of ~1e-12 there; below the floor alpha* < 5e-14 the
    estimate is not trusted and the answer warns."""
    m = M.Gaussian(mu=0.5)
    curve = A.SaddlePoint(order=3).compose(m, 1000, adjacency="replace_one")
    with pytest.warns(ApproximationWarning, match=r"below 5e-14"):
        curve.mu_star()
    # An exact trade-off (error 0) is resolved at any depth: CLT's G_mu.
    exact = A.CLT().compose(m, 1000, adjacency="replace_one")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        assert exact.mu_star() == pytest.approx(math.sqrt(1000), rel=1e-9)
