"""``symfdp.calibrate``: closed-form answers, round trips and bad targets."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import optimize, special

from symfdp import ApproximationWarning, calibrate
from symfdp import accountants as A
from symfdp import mechanisms as M

#: Tolerance on sigma passed to the solver in these tests.
RTOL = 1e-8


def gaussian_delta(mu: float, eps: float) -> float:
    """Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong et al. 2019, Cor. 2.13)."""
    a = special.log_ndtr(-eps / mu + mu / 2)
    b = eps + special.log_ndtr(-eps / mu - mu / 2)
    return float(np.exp(a) * -np.expm1(min(b - a, 0.0)))


def gaussian_sigma(eps: float, delta: float, n: int) -> float:
    """sigma = sqrt(n)/mu with mu solving delta_mu(eps) = delta (GDP composition)."""
    mu = optimize.brentq(
        lambda m: gaussian_delta(m, eps) - delta, 1e-3, 50.0, xtol=1e-14, rtol=1e-15
    )
    return math.sqrt(n) / mu


@pytest.mark.parametrize(("eps", "delta", "n"), [(1.0, 1e-5, 1), (3.0, 1e-6, 50)])
def test_gaussian_closed_form_is_recovered(eps, delta, n):
    got = calibrate.sigma_for_epsilon(
        eps, delta, p=1.0, n=n, accountant=A.Exact(), mechanism="gaussian", rtol=RTOL
    )
    assert got == pytest.approx(gaussian_sigma(eps, delta, n), rel=1e-7)


def test_default_two_stage_search_on_unsubsampled_gaussian():
    """SaddlePoint search, Numerical refinement; p = 1 is the plain Gaussian."""
    got = calibrate.sigma_for_epsilon(2.0, 1e-5, p=1.0, n=10)
    # Numerical's point estimate of eps is accurate to ~1e-4 here (eps_rel_tol).
    assert got == pytest.approx(gaussian_sigma(2.0, 1e-5, 10), rel=1e-3)


def test_calibrated_sigma_reproduces_the_target_with_the_same_accountant():
    acc = A.SaddlePoint()
    # n p = 10: the add pair's tilted loss is skewed, and SaddlePoint's estimate
    # (under warn_rel_error here, so no warning) covers its distance to the
    # certified value.
    sigma = calibrate.sigma_for_epsilon(
        2.0, 1e-5, p=0.01, n=1000, accountant=acc, rtol=1e-6
    )
    m = M.SubsampledGaussian(p=0.01, sigma=sigma)
    curve = acc.compose(m, n=1000)
    eps = curve.epsilon(1e-5)
    assert eps == pytest.approx(2.0, rel=1e-5)
    lo, hi = A.Numerical().compose(m, n=1000).epsilon_bounds(1e-5)
    assert max(lo - eps, eps - hi) <= curve.epsilon_error(1e-5)


def test_sigma_for_mu_gaussian():
    got = calibrate.sigma_for_mu(
        1.5, p=1.0, n=9, accountant=A.Exact(), mechanism="gaussian", rtol=RTOL
    )
    assert got == pytest.approx(3.0 / 1.5, rel=1e-7)


def test_sigma_for_mu_uses_the_interpreter_without_closed_mu():
    # Pure DP with eps = 1/sigma: mu* comes from the (mu*, gamma) interpreter.
    def make(sigma: float) -> M.PureDP:
        return M.PureDP(eps=1.0 / sigma)

    sigma = calibrate.sigma_for_mu(
        1.0, p=1.0, n=10, accountant=A.Exact(), mechanism=make, rtol=1e-6
    )
    mu_star = A.Exact().compose(make(sigma), n=10).mu_star_gamma()[0]
    assert mu_star == pytest.approx(1.0, rel=1e-5)


def test_generic_noise_for():
    # delta(1.0) of n Gaussian steps, solved in closed form by the test.
    n, target = 4, 1e-3
    sigma = calibrate.noise_for(
        lambda curve: curve.delta(1.0),
        target,
        p=1.0,
        n=n,
        accountant=A.Exact(),
        mechanism="gaussian",
        rtol=RTOL,
    )
    mu = optimize.brentq(lambda m: gaussian_delta(m, 1.0) - target, 1e-3, 20.0)
    assert sigma == pytest.approx(math.sqrt(n) / mu, rel=1e-7)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target_eps": 0.0}, "target_eps"),
        ({"target_eps": -1.0}, "target_eps"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"p": 1.5}, "p must"),
        ({"p": 0.0}, "p must"),
        ({"n": 0}, "n must"),
        ({"mechanism": "laplace-ish"}, "mechanism"),
        ({"pair": "sideways"}, "pair"),
        ({"mechanism": "gaussian", "p": 0.5}, "p must be 1"),
        ({"sigma_bracket": (2.0, 1.0)}, "sigma_bracket"),
        ({"rtol": 0.0}, "rtol"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"target_eps": 1.0, "delta": 1e-5, "p": 1.0, "n": 1}
    extra = {"accountant": A.Exact(), "mechanism": "gaussian"}
    extra.update({k: v for k, v in kwargs.items() if k not in args})
    args.update({k: v for k, v in kwargs.items() if k in args})
    with pytest.raises(ValueError, match=match):
        calibrate.sigma_for_epsilon(**args, **extra)


def test_unreachable_targets():
    exact = {"accountant": A.Exact(), "mechanism": "gaussian"}
    # eps = 1e-6 needs sigma ~ 4e5, beyond the searched range.
    with pytest.raises(ValueError, match=r"unreachable by sigma in sigma_bracket"):
        calibrate.sigma_for_epsilon(1e-6, 1e-5, p=1.0, n=1, **exact)
    # eps = 500 is met already at sigma ~ 0.03, below the searched range.
    with pytest.raises(ValueError, match=r"met throughout sigma in sigma_bracket"):
        calibrate.sigma_for_epsilon(500.0, 1e-5, p=1.0, n=1, **exact)


def test_a_target_of_the_wrong_orientation_is_refused():
    with pytest.raises(ValueError, match="unreachable"):
        calibrate.noise_for(
            lambda curve: -curve.epsilon(1e-5),
            -1.0,
            p=1.0,
            n=1,
            accountant=A.Exact(),
            mechanism="gaussian",
        )


def test_target_fn_must_be_callable():
    with pytest.raises(TypeError, match="target_fn"):
        calibrate.noise_for(1.0, 1.0, p=1.0, n=1)  # type: ignore[arg-type]


def test_subsampled_search_with_saddlepoint_is_quiet_enough():
    # Short runs trigger the saddle point's documented repairs; no NaN escapes.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        sigma = calibrate.sigma_for_epsilon(
            3.0, 1e-5, p=0.05, n=20, accountant=A.SaddlePoint()
        )
    assert math.isfinite(sigma) and 0.1 < sigma < 100


@pytest.mark.parametrize(("p", "n", "target"), [(0.01, 100, 1.0), (1.0, 4, 2.0)])
def test_calibrated_sigma_meets_the_target_with_its_certified_upper_bound(p, n, target):
    """The default search returns a sigma whose certified upper eps is at most
    the target (publishable), and close to it."""
    mech = "gaussian" if p == 1.0 else "subsampled-gaussian"
    sigma = calibrate.sigma_for_epsilon(
        target, 1e-5, p=p, n=n, mechanism=mech, first_stage=A.SaddlePoint(), rtol=1e-5
    )
    m = M.Gaussian(sigma=sigma) if p == 1.0 else M.SubsampledGaussian(p=p, sigma=sigma)
    hi = A.Numerical().compose(m, n).epsilon_bounds(1e-5)[1]
    assert hi <= target
    assert hi >= target * (1 - 1e-3)


def test_calibrated_sigma_for_mu_meets_the_target_with_its_certified_upper_bound():
    """G_mu composed 4 times is G_{2 mu}: sigma = 2/target exactly; the certified
    upper mu* of the calibrated sigma meets the target, and sigma is close."""
    sigma = calibrate.sigma_for_mu(
        1.0, p=1.0, n=4, mechanism="gaussian", first_stage=A.SaddlePoint(), rtol=1e-4
    )
    curve = A.Numerical().compose(M.Gaussian(sigma=sigma), 4)
    assert calibrate.mu_upper(curve) <= 1.0
    assert sigma == pytest.approx(2.0, rel=1e-2)
    assert sigma >= 2.0 * (1 - 1e-4)
