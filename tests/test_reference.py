"""Self-consistency of the mpmath references (they are the ground truth of other
tests, so they are checked against independent closed forms and each other)."""

from __future__ import annotations

import mpmath
import pytest

from symfdp import mechanisms as M
from symfdp.reference import plrv as R
from symfdp.reference import profile as RP

#: Digits to which two routes of a 30-digit reference must agree.
REF_DIGITS = 25


def _close(a: mpmath.mpf, b: mpmath.mpf, scale: mpmath.mpf | None = None) -> bool:
    s = abs(b) if scale is None else scale
    return abs(a - b) <= mpmath.mpf(10) ** (-REF_DIGITS) * s


@pytest.mark.parametrize(
    "mech",
    [
        M.with_adjacency(M.SubsampledGaussian(sigma=0.3, p=1e-6), "add"),
        M.with_adjacency(M.SubsampledGaussian(sigma=20.0, p=0.5), "remove"),
        M.with_adjacency(M.SubsampledLaplace(p=0.01, mu=2.0), "add"),
        M.Laplace(0.5),
        M.PureDP(1.0),
    ],
)
def test_rules_are_probability_and_likelihood_ratio(mech: M.Mechanism) -> None:
    assert _close(R.plrv_total_mass(mech, "P"), mpmath.mpf(1))
    assert _close(R.plrv_total_mass(mech, "Q"), mpmath.mpf(1))


def test_gaussian_reference_cumulants_and_cgf_are_exact() -> None:
    k = R.plrv_cumulants(M.Gaussian(mu=0.7), 4, "Q")
    kk = R.plrv_cgf_derivatives(M.Gaussian(mu=0.7), 2.5, "P")
    with mpmath.workdps(40):
        mu = mpmath.mpf(0.7)
        assert _close(k[0], mu**2 / 2) and _close(k[1], mu**2)
        assert abs(k[2]) < 1e-40 and abs(k[3]) < 1e-40
        # K_P(t) = mu^2 t (t - 1) / 2.
        assert _close(kk[0], mu**2 * mpmath.mpf(2.5) * mpmath.mpf(1.5) / 2)
        assert _close(kk[1], mu**2 * (2 * mpmath.mpf(2.5) - 1) / 2)
        assert _close(kk[2], mu**2)


def test_subsampled_reference_is_stable_in_precision() -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=20.0, p=1e-6), "add")
    a = R.plrv_cumulants(m, 8, "P", dps=30)
    b = R.plrv_cumulants(m, 8, "P", dps=45)
    assert all(_close(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("t", [-1.5, 0.3, 4.0])
def test_direct_cgf_derivatives_equal_mpmath_finite_differences(t: float) -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.3), "add")
    direct = R.plrv_cgf_derivatives(m, t, "Q")
    diff = R.plrv_cgf_derivatives(m, t, "Q", method="diff")
    for a, b in zip(direct, diff, strict=True):
        assert _close(a, b)


@pytest.mark.parametrize("eps", [-0.5, 0.0, 1.0, 4.0])
def test_profile_quadrature_against_closed_forms(eps: float) -> None:
    with mpmath.workdps(40):
        mu, e = mpmath.mpf(1.3), mpmath.mpf(eps)
        # Dong et al. (2019), Cor. 2.13.
        gdp = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(
            -e / mu - mu / 2
        )
        assert _close(RP.privacy_profile(M.Gaussian(mu=1.3), eps), gdp)
        # Laplace: 1 - e^{(eps - mu)/2} on [-mu, mu].
        lap = (
            1 - mpmath.exp((e - mu) / 2)
            if abs(e) <= mu
            else (1 - mpmath.exp(e) if e < -mu else 0)
        )
        assert _close(
            RP.privacy_profile(M.Laplace(1.3), eps), mpmath.mpf(lap), mpmath.mpf(1)
        )


def test_profile_of_a_tiny_tail_keeps_relative_precision() -> None:
    # Deep tail (~1e-91): mpmath.quad on an unscaled integrand returns a wrong value.
    m = M.with_adjacency(M.SubsampledGaussian(sigma=5.0, p=1e-4), "add")
    with mpmath.workdps(40):
        mu, p, e = mpmath.mpf(0.2), mpmath.mpf(1e-4), mpmath.mpf(0.005)
        b = mpmath.log((mpmath.exp(e) - 1 + p) / p)
        exact = p * (
            mpmath.ncdf(-b / mu + mu / 2)
            - mpmath.exp(b) * mpmath.ncdf(-b / mu - mu / 2)
        )
        assert _close(RP.privacy_profile(m, 0.005), exact)
