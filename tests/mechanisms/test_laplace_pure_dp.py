"""Laplace, PureDP and SubsampledLaplace against mpmath references and identities.

Closed forms (Laplace, PureDP) are held to RTOL_EVAL-level accuracy against
30-digit references; the quadrature cumulants of SubsampledLaplace to the issue's
1e-10 relative.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from symfdp import mechanisms as M
from symfdp.reference import plrv as R
from symfdp.reference import profile as RP
from tests._tolerances import RTOL_CUMULANT

#: Closed-form cumulants vs mpmath (float64 evaluation, extended precision when
#: the polynomial cancels; a few ulps).
RTOL_CLOSED = 1e-13
#: Closed-form CGF and derivatives (scaled cosh/sinh forms; a few ulps of K).
RTOL_CGF = 1e-12
#: Closed-form profile vs mpmath quadrature.
RTOL_PROFILE = 1e-12


@functools.cache
def _ref_cumulants(mech: M.Mechanism, under: str) -> np.ndarray:
    return np.array([float(v) for v in R.plrv_cumulants(mech, 8, under)])


@pytest.mark.parametrize("under", ["P", "Q"])
@pytest.mark.parametrize("mu", [1e-6, 1e-3, 0.05, 1.0, 5.0])
def test_laplace_cumulants_closed_form(mu: float, under: str) -> None:
    m = M.Laplace(mu)
    np.testing.assert_allclose(
        m.cumulants(8, under), _ref_cumulants(m, under), rtol=RTOL_CLOSED
    )


def test_laplace_kl_is_the_known_divergence() -> None:
    # KL(Lap(0,1) || Lap(mu,1)) = mu - 1 + e^{-mu} = -kappa_1 under P.
    for mu in (1e-4, 0.3, 2.0):
        assert -M.Laplace(mu).cumulants(1)[0] == pytest.approx(
            mu + np.expm1(-mu), rel=1e-14
        )


@pytest.mark.parametrize("t", [-3.0, -0.5, 0.0, 0.3, 0.5, 1.0, 5.0])
@pytest.mark.parametrize("mu", [0.05, 1.0, 4.0])
def test_laplace_cgf_closed_form(mu: float, t: float) -> None:
    m = M.Laplace(mu)
    for under in ("P", "Q"):
        ref = [float(v) for v in R.plrv_cgf_derivatives(m, t, under)]
        got = m.cgf_derivatives(t, under)
        scale = m.cumulants(2)[1]
        assert abs(got[0] - ref[0]) <= RTOL_CGF * (abs(ref[0]) + scale)
        assert abs(got[1] - ref[1]) <= RTOL_CGF * (abs(ref[1]) + scale)
        assert abs(got[2] - ref[2]) <= RTOL_CGF * abs(ref[2])


def test_laplace_tradeoff_is_the_neyman_pearson_curve() -> None:
    # Kaissis et al. (2023), Cor. 1 = Dong et al. (2019), Lemma A.6: at the
    # threshold tau of the continuous part, f(P(L > tau)) = Q(L <= tau).
    m = M.Laplace(1.7)
    tau = np.linspace(-1.69, 1.69, 41)
    alpha = m.plrv_sf(tau, "P")
    np.testing.assert_allclose(m.tradeoff(alpha), m.plrv_cdf(tau, "Q"), rtol=1e-14)
    # The linear pieces join the atoms: f(0) = 1, f(1) = 0, slope -e^mu at 0.
    assert m.tradeoff(0.0) == 1.0 and m.tradeoff(1.0) == 0.0
    assert (1 - m.tradeoff(1e-9)) / 1e-9 == pytest.approx(np.exp(1.7), rel=1e-6)


@pytest.mark.parametrize(
    "mech", [M.Laplace(0.3), M.Laplace(2.0), M.PureDP(0.7), M.PureDP(3.0)]
)
def test_closed_form_profiles(mech: M.Mechanism) -> None:
    eps = [-4.0, -0.5, 0.2, 0.69, 2.9]
    ref = np.array([float(RP.privacy_profile(mech, e)) for e in eps])
    np.testing.assert_allclose(
        mech.privacy_profile(eps), ref, rtol=RTOL_PROFILE, atol=1e-300
    )


@pytest.mark.parametrize("eps", [0.0, 1e-8, 0.4, 2.0, 12.0])
def test_pure_dp_cumulants_and_cgf(eps: float) -> None:
    m = M.PureDP(eps)
    for under in ("P", "Q"):
        np.testing.assert_allclose(
            m.cumulants(8, under),
            _ref_cumulants(m, under),
            rtol=RTOL_CLOSED,
            atol=1e-300,
        )
        for t in (-1.0, 0.25, 2.0):
            ref = [float(v) for v in R.plrv_cgf_derivatives(m, t, under)]
            # K_Q(-1) = K_P(0) = 0 exactly: compare on the scale eps^2 there.
            np.testing.assert_allclose(
                m.cgf_derivatives(t, under), ref, rtol=RTOL_CGF, atol=1e-15 * eps**2
            )


def test_pure_dp_law_and_tradeoff() -> None:
    e = 1.3
    m = M.PureDP(e)
    # Dong et al. (2019), eq. (5): f_{eps,0}(alpha) = max(0, 1 - e^eps a, e^-eps (1-a)).
    a = np.linspace(0, 1, 101)
    f = np.maximum.reduce([np.zeros_like(a), 1 - np.exp(e) * a, np.exp(-e) * (1 - a)])
    np.testing.assert_allclose(m.tradeoff(a), f, atol=1e-15)
    assert m.plrv_cdf(-e, "P") == pytest.approx(1 / (1 + np.exp(-e)))
    assert m.plrv_cdf(-e, "P", inclusive=False) == 0.0
    assert m.plrv_sf(e, "Q", inclusive=True) == pytest.approx(1 / (1 + np.exp(-e)))
    assert m.pdf(0.5) == 0.0


def test_pure_dp_bad_input() -> None:
    with pytest.raises(ValueError, match="eps"):
        M.PureDP(-0.1)
    with pytest.raises(ValueError, match="mu"):
        M.Laplace(-1.0)
    with pytest.raises(ValueError, match="mu"):
        M.SubsampledLaplace(p=0.1, mu=-1.0)
    with pytest.raises(ValueError, match="p"):
        M.SubsampledLaplace(p=0.0, mu=1.0)


@pytest.mark.parametrize("under", ["P", "Q"])
@pytest.mark.parametrize(
    ("mu", "p"), list(itertools.product([0.05, 1.0, 3.0], [1e-6, 0.01, 0.5, 0.99]))
)
def test_subsampled_laplace_cumulants(mu: float, p: float, under: str) -> None:
    for pair in ("add", "remove"):
        m = M.SubsampledLaplace(p=p, mu=mu).with_pair(pair)
        np.testing.assert_allclose(
            m.cumulants(8, under), _ref_cumulants(m, under), rtol=RTOL_CUMULANT
        )


def test_subsampled_laplace_profile_and_tradeoff() -> None:
    mu, p = 1.2, 0.3
    add = M.with_adjacency(M.SubsampledLaplace(p=p, mu=mu), "add")
    rem = M.with_adjacency(M.SubsampledLaplace(p=p, mu=mu), "remove")
    eps = [-1.0, 0.05, 0.8]
    for m in (add, rem):
        ref = np.array([float(RP.privacy_profile(m, e)) for e in eps])
        np.testing.assert_allclose(m.privacy_profile(eps), ref, rtol=1e-12, atol=1e-300)
    a = np.linspace(0, 1, 51)
    lap = M.Laplace(mu).tradeoff(a)
    np.testing.assert_allclose(add.tradeoff(a), p * lap + (1 - p) * (1 - a), atol=1e-15)
    np.testing.assert_allclose(rem.tradeoff(add.tradeoff(a)), a, atol=1e-9)
    m1 = M.SubsampledLaplace(p=1.0, mu=mu)
    np.testing.assert_array_equal(m1.cumulants(5), M.Laplace(mu).cumulants(5))
