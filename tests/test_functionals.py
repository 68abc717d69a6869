"""Moment functionals: three routes agree; known values; NoisySGD CLT and BE.

Routes: (1) the mechanism's PLRV law, (2) quadrature of f' for a symmetric
trade-off callable (Dong et al. 2019, Lemmas G.2/G.3), (3) closed forms for G_mu
(symbolic) and, for C_p(G_mu), Lemma ``functionalGmurep`` evaluated in mpmath.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import special

from symfdp import functionals as F
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.reference import functionals as RF
from symfdp.symbolic import functionals as SF
from symfdp.symbolic.symbols import mu as MU

#: Routes evaluated in float64 on spectrally accurate rules (observed ~1e-15).
RTOL_ROUTES = 1e-12
#: The trade-off route with a numerically differentiated slope (5-point stencil
#: in the probit variable, step 1e-3: truncation ~1e-13, rounding amplified by
#: 1/h; observed <= 7e-9).
RTOL_NUMERIC_SLOPE = 1e-7
#: Float64 vs a 30-digit mpmath evaluation.
RTOL_REF = 1e-12

NAMES = ("kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus")


def _gmu(mu: float):
    return lambda x: special.ndtr(-special.ndtri(x) - mu)


def _gmu_slope(mu: float):
    # |G_mu'(x)| = exp(mu y - mu^2/2) at x = Phi(-y) (Dong et al. 2019, proof of
    # Cor. SGDlimitrep).
    return lambda y: np.exp(mu * y - mu * mu / 2)


def _close(a: F.MomentFunctionals, b: F.MomentFunctionals, rtol: float) -> None:
    for name in NAMES:
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=rtol), name


def test_symbolic_closed_forms_for_gmu() -> None:
    exprs = SF.gmu_functional_exprs()
    assert sp.simplify(exprs["kl"] - MU**2 / 2) == 0
    assert sp.simplify(exprs["kappa2"] - (MU**2 + MU**4 / 4)) == 0
    assert sp.simplify(exprs["kappa3_bar"] - 2 * sp.sqrt(2 / sp.pi) * MU**3) == 0
    diff = exprs["kappa3"] - SF.kappa3_gmu_closed_expr()
    assert sp.simplify(diff.rewrite(sp.erf)) == 0
    # Dong et al. (2019), Lemma chirep, holds as printed.
    chi = exprs["chi2_plus"] - SF.chi2_plus_gmu_dong_expr()
    assert sp.simplify(chi.rewrite(sp.erf)) == 0


@pytest.mark.parametrize("mu", [0.05, 0.5, 1.0, 3.0])
def test_three_routes_agree_for_gmu(mu: float) -> None:
    closed = F.gmu_functionals(mu)
    _close(F.moment_functionals(M.Gaussian(mu=mu)), closed, RTOL_ROUTES)
    _close(F.moment_functionals(_gmu(mu), slope=_gmu_slope(mu)), closed, 1e-10)
    _close(F.moment_functionals(T.Gaussian(mu)), closed, RTOL_NUMERIC_SLOPE)
    assert closed.chi2_plus == pytest.approx(float(RF.chi2_plus_gmu(mu)), rel=RTOL_REF)
    assert F.chi2_plus_gmu(mu) == pytest.approx(closed.chi2_plus, rel=RTOL_REF)


@pytest.mark.parametrize(("mu", "p"), [(1.0, 0.01), (2.0, 0.3), (0.5, 0.9)])
def test_three_routes_agree_for_cp_gmu(mu: float, p: float) -> None:
    mech = F.moment_functionals(M.SubsampledGaussian(mu=mu, p=p))
    lemma_g3 = F.moment_functionals(_gmu(mu), p=p, slope=_gmu_slope(mu))
    _close(lemma_g3, mech, RTOL_ROUTES)
    numeric = F.moment_functionals(T.Subsampled(T.Gaussian(mu), p))
    _close(numeric, mech, RTOL_NUMERIC_SLOPE)
    rep = RF.functional_gmu_rep(mu, p)
    assert mech.kl == pytest.approx(float(rep["kl"]), rel=RTOL_REF)
    assert mech.kappa2 == pytest.approx(float(rep["kappa2"]), rel=RTOL_REF)
    # Lemma functionalGmurep's kappa3_bar omits the flat segment of C_p(G_mu).
    full = rep["kappa3_bar_printed"] + RF.flat_segment_term(mu, p, rep["kl"])
    assert mech.kappa3_bar == pytest.approx(float(full), rel=RTOL_REF)
    assert abs(float(rep["kappa3_bar_printed"]) / mech.kappa3_bar - 1) > 1e-9
    # chi2_+(C_p f) = p^2 chi2_+(f).
    assert mech.chi2_plus == pytest.approx(p * p * F.chi2_plus_gmu(mu), rel=RTOL_ROUTES)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_pure_dp_lemma_d8(eps: float) -> None:
    # Dong et al. (2019), Lemma D.8 with t = tanh(eps/2).
    t = math.tanh(eps / 2)
    f = F.moment_functionals(M.PureDP(eps))
    assert f.kl == pytest.approx(eps * t, rel=RTOL_ROUTES)
    assert f.kappa2 == pytest.approx(eps**2, rel=RTOL_ROUTES)
    assert f.kappa3 == pytest.approx(eps**3, rel=RTOL_ROUTES)
    assert f.kappa3_bar == pytest.approx(eps**3 * (1 - t**4), rel=RTOL_ROUTES)
    # Corollary D.7: mu = 2 sqrt(n) sinh(eps/2),
    # gamma = 0.56 cosh(eps) / (sqrt(n) cosh(eps/2)).
    n = 50
    mu, gamma = F.berry_esseen_mu_gamma([f.kl], [f.kappa2], [f.kappa3_bar], [n])
    assert mu == pytest.approx(2 * math.sqrt(n) * math.sinh(eps / 2), rel=RTOL_ROUTES)
    assert gamma == pytest.approx(
        0.56 * math.cosh(eps) / (math.sqrt(n) * math.cosh(eps / 2)), rel=RTOL_ROUTES
    )
    # Heterogeneous input without counts equals the expanded list.
    mu2, gamma2 = F.berry_esseen_mu_gamma(
        [f.kl] * n, [f.kappa2] * n, [f.kappa3_bar] * n
    )
    assert (mu2, gamma2) == pytest.approx((mu, gamma), rel=1e-13)


def test_laplace_and_symmetric_mechanisms() -> None:
    mu = 0.8
    f = F.moment_functionals(M.Laplace(mu))
    assert f.kl == pytest.approx(mu - 1 + math.exp(-mu), rel=RTOL_ROUTES)  # KL(P||Q)
    # For a symmetric mechanism the symmetrised formulas give the same numbers.
    sl = M.SubsampledLaplace(p=1.0, mu=mu)
    _close(F.moment_functionals(sl), f, RTOL_ROUTES)
    with mpmath.workdps(40):
        m = mpmath.mpf(mu)
        cont = mpmath.quad(
            lambda l: abs(l) ** 3 * mpmath.exp(-(l + m) / 2) / 4, [-m, 0, m]
        )
        k3 = m**3 / 2 + mpmath.exp(-m) * m**3 / 2 + cont
    assert f.kappa3 == pytest.approx(float(k3), rel=RTOL_REF)


def test_small_p_limits_of_lemma_g3() -> None:
    # kl(C_p f)/p^2 -> chi2_+(f) and kappa2(C_p f)/p^2 -> 2 chi2_+(f) (proof of
    # Thm 5.2): the relative gap shrinks linearly in p.
    mu = 1.0
    chi = F.chi2_plus_gmu(mu)
    gaps = []
    for p in (1e-2, 1e-3):
        f = F.moment_functionals(M.SubsampledGaussian(mu=mu, p=p))
        gaps.append((abs(f.kl / p**2 / chi - 1), abs(f.kappa2 / p**2 / (2 * chi) - 1)))
    assert gaps[1][0] < gaps[0][0] / 5 and gaps[1][1] < gaps[0][1] / 5


def test_noisy_sgd_clt_forms() -> None:
    p, sigma, n = 0.01, 1.0, 10_000
    c = p * math.sqrt(n)
    # Dong et al. (2019), Cor. SGDlimitrep, as printed.
    s_inv = 1 / sigma
    printed = (
        math.sqrt(2)
        * c
        * math.sqrt(
            math.exp(s_inv**2) * special.ndtr(1.5 * s_inv)
            + 3 * special.ndtr(-0.5 * s_inv)
            - 2
        )
    )
    assert F.noisy_sgd_mu_chi2(p, sigma, n) == pytest.approx(printed, rel=1e-14)
    assert F.noisy_sgd_mu_exp(p, sigma, n) == pytest.approx(
        c * math.sqrt(math.e - 1), rel=1e-14
    )
    # Both forms agree to first order when 1/sigma -> 0 (2 chi2_+(G_mu) ~ mu^2).
    ratio = F.noisy_sgd_mu_chi2(p, 50.0, n) / F.noisy_sgd_mu_exp(p, 50.0, n)
    assert ratio == pytest.approx(1.0, abs=0.02)
    # The Berry-Esseen mu tends to the CLT mu of the chi2 form as p -> 0 with
    # c = p sqrt(n) fixed (Thm 5.2): the gap shrinks about linearly in p.
    gaps = []
    for pp in (1e-2, 1e-3):
        nn = round((10 / pp) ** 2)
        mu_be, gamma = F.noisy_sgd_berry_esseen(pp, sigma, nn)
        gaps.append(abs(mu_be / F.noisy_sgd_mu_chi2(pp, sigma, nn) - 1))
        assert 0 < gamma < 0.5
    assert gaps[1] < gaps[0] / 5 and gaps[1] < 5e-3


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="p"):
        F.noisy_sgd_mu_chi2(0.0, 1.0, 10)
    with pytest.raises(ValueError, match="sigma"):
        F.noisy_sgd_mu_exp(0.1, -1.0, 10)
    with pytest.raises(ValueError, match="n"):
        F.noisy_sgd_berry_esseen(0.1, 1.0, 0)
    with pytest.raises(ValueError, match="mu"):
        F.gmu_functionals(-1.0)
    with pytest.raises(ValueError, match="p"):
        F.moment_functionals(_gmu(1.0), p=1.5)
    with pytest.raises(ValueError, match="trade-off"):
        F.moment_functionals(M.Gaussian(mu=1.0), p=0.5)
    with pytest.raises(TypeError):
        F.moment_functionals(3.0)
    with pytest.raises(ValueError, match="kappa2 - kl"):
        F.berry_esseen_mu_gamma([1.0], [0.5], [1.0])
