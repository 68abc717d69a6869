"""``A.CLT``: the GDP limit in its four forms, against formulas evaluated here.

The expected values are written out from the papers (Zheng et al. 2020, eq. (3.4)
and Sec. 5.3; Dong et al. 2019, Lemma ``chirep``, Cor. ``SGDlimitrep``, Thm
``DPCLTrep``, Cor. D.7) with SciPy/mpmath, not taken from the code under test.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, special

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from tests._answers import delta_and_error, epsilon_and_error
from tests._tolerances import MP_DPS, RTOL_REF

ALPHA = np.concatenate(([0.0, 1e-10], np.linspace(0.01, 0.99, 25), [1.0]))


def g_mu(mu: float, alpha: np.ndarray) -> np.ndarray:
    return special.ndtr(-special.ndtri(alpha) - mu)


def gdp_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """Dong et al. (2019), Cor. 2.13."""
    return special.ndtr(-eps / mu + mu / 2) - np.exp(eps) * special.ndtr(
        -eps / mu - mu / 2
    )


def chi2_plus_gmu_mp(mu: float) -> float:
    """Dong et al. (2019), Lemma chirep, at 30 digits."""
    with mpmath.workdps(MP_DPS):
        m = mpmath.mpf(mu)
        return float(
            mpmath.exp(m**2) * mpmath.ncdf(1.5 * m) + 3 * mpmath.ncdf(-m / 2) - 2
        )


def laplace_loss_moments_mp(theta: float) -> tuple[float, float]:
    """E_P L and Var_P L for L = |x| - |x - theta|, x ~ Lap(0, 1), by mpmath."""
    with mpmath.workdps(MP_DPS):
        t = mpmath.mpf(theta)

        def moment(k: int):
            def f(x):
                return (abs(x) - abs(x - t)) ** k * mpmath.exp(-abs(x)) / 2

            return mpmath.quad(f, [-mpmath.inf, 0, t, mpmath.inf])

        m1, m2 = moment(1), moment(2)
        return float(m1), float(m2 - m1**2)


def test_gaussian_is_exact() -> None:
    curve = A.CLT().compose(M.Gaussian(mu=0.6), n=9)
    assert curve.info["mu"] == pytest.approx(1.8, rel=1e-14)
    np.testing.assert_allclose(curve.tradeoff(ALPHA), g_mu(1.8, ALPHA), atol=1e-15)
    eps = np.array([0.0, 0.3, 1.0, 4.0])
    np.testing.assert_allclose(curve.delta(eps), gdp_delta(1.8, eps), rtol=1e-12)


def test_epsilon_inverts_the_gdp_profile() -> None:
    curve = A.CLT().compose(M.Gaussian(mu=0.5), n=16)
    for d in (0.3, 1e-3, 1e-5, 1e-12):
        ref = optimize.brentq(lambda e, d=d: gdp_delta(2.0, e) - d, 0, 200, xtol=1e-14)
        assert curve.epsilon(d) == pytest.approx(ref, rel=1e-10)
    np.testing.assert_allclose(
        curve.epsilon([1e-3, 1e-5]), [curve.epsilon(1e-3), curve.epsilon(1e-5)]
    )


def test_moments_form_is_zhengs_mu_n_for_laplace() -> None:
    """mu_n = (E_Q T - E_P T)/sd_P(T) = 2 sqrt(n) (-E_P L)/sd_P(L) (symmetric pair),
    Zheng et al. (2020), eq. (3.4)."""
    n, theta = 7, 3 / math.sqrt(7)
    mean, var = laplace_loss_moments_mp(theta)
    expected = 2 * math.sqrt(n) * -mean / math.sqrt(var)
    curve = A.CLT().compose(M.Laplace(mu=theta), n)
    assert curve.info["mu"] == pytest.approx(expected, rel=RTOL_REF)
    assert curve.info["form"] == "moments"


def test_moments_form_for_pure_dp_is_berry_esseen_mu() -> None:
    """For f_{eps,0}: mu_n = 2 sqrt(n) sinh(eps/2) (Dong et al. 2019, Cor. D.7)."""
    curve = A.CLT().compose(M.PureDP(eps=0.3), 50)
    assert curve.info["mu"] == pytest.approx(2 * math.sqrt(50) * math.sinh(0.15))


def test_moments_form_takes_the_larger_direction() -> None:
    """Add/remove adjacency: each direction has mu = (E_Q - E_P)/sd_P of its own
    pair; the curve uses the larger one."""
    m, n = M.SubsampledGaussian(sigma=1.0, p=0.1), 40
    add, remove = m.pairs
    mus = []
    for pair in (add, remove):
        kp, kq = pair.cumulants(2, "P"), pair.cumulants(1, "Q")
        mus.append(n * (kq[0] - kp[0]) / math.sqrt(n * kp[1]))
    curve = A.CLT().compose(m, n)
    assert curve.info["mu"] == pytest.approx(max(mus), rel=1e-12)
    np.testing.assert_allclose(curve.info["mu_directions"], mus, rtol=1e-12)


def test_exp_form_noisy_sgd() -> None:
    """Zheng et al. (2020), Sec. 5.3: mu = p sqrt(n (e^{1/sigma^2} - 1))."""
    p, sigma, n = 0.5 / 300**0.25, 1.0, 300
    curve = A.CLT(form="exp").compose(M.SubsampledGaussian(sigma=sigma, p=p), n)
    assert curve.info["mu"] == pytest.approx(p * math.sqrt(n * (math.e - 1)))


def test_chi2_form_noisy_sgd() -> None:
    """Dong et al. (2019), Cor. SGDlimitrep:
    mu = sqrt(2) p sqrt(n) sqrt(chi2_+(G_{1/sigma}))."""
    p, sigma, n = 0.02, 0.8, 5000
    chi2 = chi2_plus_gmu_mp(1 / sigma)
    curve = A.CLT(form="chi2").compose(M.SubsampledGaussian(sigma=sigma, p=p), n)
    assert curve.info["mu"] == pytest.approx(
        math.sqrt(2) * p * math.sqrt(n) * math.sqrt(chi2), rel=1e-12
    )


def test_per_component_forms_add_mu_squared() -> None:
    """Heterogeneous composition: sum of the components' mu_i^2, a Gaussian
    component contributing its exact n mu^2 (GDP composition, Cor. 3.3)."""
    comp = [
        (M.SubsampledGaussian(sigma=1.0, p=0.01), 1000),
        (M.with_adjacency(M.SubsampledGaussian(sigma=2.0, p=0.05), "add"), 200),
        (M.Gaussian(mu=0.3), 4),
    ]
    mu2_exp = 1000 * 0.01**2 * math.expm1(1.0) + 200 * 0.05**2 * math.expm1(0.25)
    mu2_chi = 2 * 1000 * 0.01**2 * chi2_plus_gmu_mp(1.0) + 2 * 200 * 0.05**2 * (
        chi2_plus_gmu_mp(0.5)
    )
    gauss = 4 * 0.09
    exp_mu = A.CLT(form="exp").compose(comp).info["mu"]
    chi_mu = A.CLT(form="chi2").compose(comp).info["mu"]
    assert exp_mu == pytest.approx(math.sqrt(mu2_exp + gauss), rel=1e-12)
    assert chi_mu == pytest.approx(math.sqrt(mu2_chi + gauss), rel=1e-12)


def test_dp_form_and_eps_delta_composition() -> None:
    """Dong et al. (2019), Thm DPCLTrep with the exact delta part (eq. (12)):
    G_mu (x) f_{0, delta0}, mu^2 = sum n eps^2, delta0 = 1 - prod (1 - delta)^n."""
    pure = A.CLT(form="dp").compose([(M.PureDP(eps=0.1), 100), (M.PureDP(eps=0.2), 25)])
    assert pure.info["mu"] == pytest.approx(math.sqrt(100 * 0.01 + 25 * 0.04))
    assert pure.info["delta0"] == 0.0
    curve = A.CLT().compose_eps_delta([(0.1, 1e-6, 100), (0.2, 1e-7, 25)])
    mu = math.sqrt(100 * 0.01 + 25 * 0.04)
    delta0 = 1 - (1 - 1e-6) ** 100 * (1 - 1e-7) ** 25
    assert curve.info["mu"] == pytest.approx(mu)
    assert curve.info["delta0"] == pytest.approx(delta0, rel=1e-12)
    ref = T.ScaledByDelta(T.Gaussian(mu), delta0)
    # Its trade-off error, from the profile's, is unknown too.
    with pytest.warns(ApproximationWarning, match="CLT: .* trade-off is unknown"):
        beta = curve.tradeoff(ALPHA)
    np.testing.assert_allclose(beta, ref(ALPHA), atol=1e-15)
    eps = np.array([0.0, 0.5, 1.0, 3.0])
    # The CLT error estimate does not cover the (eps, delta) form: it is unknown.
    with pytest.warns(ApproximationWarning, match="CLT: .* delta\\(eps\\) is unknown"):
        delta = curve.delta(eps)
    np.testing.assert_allclose(delta, ref.privacy_profile(eps), rtol=1e-12)
    d = 1e-3
    with pytest.warns(
        ApproximationWarning, match=r"CLT: .* epsilon\(delta\) is unknown"
    ):
        eps_d = curve.epsilon(d)
    with pytest.warns(ApproximationWarning, match=r"CLT: .* delta\(eps\) is unknown"):
        assert curve.delta(eps_d) == pytest.approx(d, rel=1e-10)
    with pytest.raises(ValueError, match="delta0"):
        curve.epsilon(delta0 / 2)


def test_forms_that_do_not_apply_raise() -> None:
    with pytest.raises(ValueError, match="SubsampledGaussian"):
        A.CLT(form="exp").compose(M.Laplace(mu=0.3), 10)
    with pytest.raises(ValueError, match="SubsampledGaussian"):
        A.CLT(form="chi2").compose(M.PureDP(eps=0.3), 10)
    with pytest.raises(ValueError, match="PureDP"):
        A.CLT(form="dp").compose(M.SubsampledGaussian(sigma=1.0, p=0.1), 10)
    with pytest.raises(ValueError, match="form"):
        A.CLT(form="limit")


def test_bad_eps_delta_input_raises() -> None:
    with pytest.raises(ValueError, match="delta"):
        A.CLT().compose_eps_delta([(0.1, 1.0, 3)])
    with pytest.raises(ValueError, match="eps"):
        A.CLT().compose_eps_delta([(-0.1, 0.0, 3)])
    with pytest.raises(ValueError):
        A.CLT().compose_eps_delta([])


def test_curve_is_symmetric_gdp() -> None:
    curve = A.CLT(form="exp").compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 10_000)
    assert curve.symmetric and len(curve.pairs) == 1 and not curve.certified
    mu = curve.info["mu"]
    # Far in the tail (alpha = 0.99, beta ~ 1.3e-4) the CLT is ~5% off (the
    # certified bracket), and its estimate says so.
    with pytest.warns(ApproximationWarning, match="CLT: .* trade-off"):
        beta = curve.tradeoff(ALPHA)
    np.testing.assert_allclose(beta, g_mu(mu, ALPHA), atol=1e-15)


# --------------------------------------------------------------- error estimate
def test_clt_error_estimate_is_zero_for_gaussian_compositions() -> None:
    curve = A.CLT().compose([(M.Gaussian(mu=0.3), 4), (M.Gaussian(mu=1.1), 1)])
    pair = curve.pairs[0]
    _, err = epsilon_and_error(pair, np.array([1e-5, 1e-10]))
    np.testing.assert_array_equal(err, 0.0)
    _, d_err = delta_and_error(pair, np.array([0.0, 1.0, 3.0]))
    np.testing.assert_array_equal(d_err, 0.0)


@pytest.mark.parametrize(
    ("n", "delta"), [(1_000, 1e-5), (10_000, 1e-5), (1_000, 1e-10)]
)
def test_clt_error_estimate_covers_the_certified_truth(n: int, delta: float) -> None:
    """DP-SGD sigma = 1, p = 0.01: the error of the GDP value against the
    midpoint of Numerical's certified bracket is at most 3x the estimate, and
    the estimate flags (> 5%) an error above 5%."""
    m = M.SubsampledGaussian(sigma=1.0, p=0.01)
    lo, hi = A.Numerical().compose(m, n).epsilon_bounds(delta)
    truth = 0.5 * (lo + hi)
    pair = A.CLT().compose(m, n).pairs[0]
    eps, err = epsilon_and_error(pair, np.array([delta]))
    true_err = abs(float(eps[0]) - truth)
    assert hi - lo < 0.1 * true_err
    assert true_err <= 3.0 * float(err[0])
    if true_err > 0.05 * truth:
        assert float(err[0]) > 0.05 * float(eps[0])


def test_clt_error_estimate_unknown_for_eps_delta_lists() -> None:
    pair = A.CLT().compose_eps_delta([(0.1, 1e-6, 10)]).pairs[0]
    _, err = epsilon_and_error(pair, np.array([1e-3]))
    assert np.isinf(err).all()
