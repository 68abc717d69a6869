"""SubsampledGaussian: cumulants, CGF, profile and trade-off against mpmath.

Issue requirements checked here: cumulants to order 8 under P and Q within 1e-10
relative of a 30-digit mpmath reference over sigma in [0.3, 20] and p in
[1e-6, 1] (a representative subset by default including the box corners, the
full grid with ``--run-slow``); K, K', K'' against finite differences of the
mpmath CGF; p = 1 reduces exactly to the Gaussian mechanism; bad input raises
ValueError naming the parameter.
"""

from __future__ import annotations

import functools
import itertools

import mpmath
import numpy as np
import pytest
from scipy import special

from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.reference import plrv as R
from symfdp.reference import profile as RP
from tests._tolerances import RTOL_CUMULANT

#: CGF and its derivatives vs mpmath finite differences (float64 log-sum-exp and
#: tilted moments; observed ~1e-15).
RTOL_CGF = 1e-10
#: Hockey-stick profile vs mpmath quadrature, relative (tail-stable closed form).
RTOL_PROFILE = 1e-10
#: Trade-off identities evaluated in float64 (values of size 1).
ATOL_TRADEOFF = 1e-12
#: C_p(G_mu) against the trade-off module's Subsampled (an independent route
#: through a tabulated inverse; its documented accuracy is ~1e-9).
ATOL_PEER = 1e-8

SIGMAS_FAST = (0.3, 1.0, 20.0)
PS_FAST = (1e-6, 0.01, 0.5, 1 - 1e-6)
SIGMAS_FULL = (0.3, 0.4, 0.5, 0.7, 1.0, 2.0, 5.0, 10.0, 20.0)
PS_FULL = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 1 - 1e-6)


@functools.cache
def _reference(sigma: float, p: float, under: str) -> np.ndarray:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "add")
    return np.array([float(v) for v in R.plrv_cumulants(m, 8, under)])


def _check_cumulants(sigma: float, p: float, under: str) -> None:
    ref = _reference(sigma, p, under)
    got = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "add").cumulants(
        8, under
    )
    rel = np.abs(got / ref - 1)
    assert np.all(rel <= RTOL_CUMULANT), (sigma, p, under, rel)


@pytest.mark.parametrize("under", ["P", "Q"])
@pytest.mark.parametrize(("sigma", "p"), list(itertools.product(SIGMAS_FAST, PS_FAST)))
def test_cumulants_match_mpmath(sigma: float, p: float, under: str) -> None:
    _check_cumulants(sigma, p, under)


@pytest.mark.slow
@pytest.mark.parametrize("under", ["P", "Q"])
@pytest.mark.parametrize(("sigma", "p"), list(itertools.product(SIGMAS_FULL, PS_FULL)))
def test_cumulants_match_mpmath_full_grid(sigma: float, p: float, under: str) -> None:
    _check_cumulants(sigma, p, under)


def test_issue_example_sigma1_p001() -> None:
    """Subsampled Gaussian (sigma=1, p=0.01): orders 1..8, both P and Q."""
    for under in ("P", "Q"):
        _check_cumulants(1.0, 0.01, under)


def test_remove_and_both_pairs_use_the_swap_relations() -> None:
    add = M.with_adjacency(M.SubsampledGaussian(sigma=2.0, p=0.05), "add")
    rem = M.with_adjacency(M.SubsampledGaussian(sigma=2.0, p=0.05), "remove")
    both = M.SubsampledGaussian(sigma=2.0, p=0.05)
    signs = (-1.0) ** np.arange(1, 9)
    for under, other in (("P", "Q"), ("Q", "P")):
        ref = np.array([float(v) for v in R.plrv_cumulants(rem, 8, under)])
        np.testing.assert_allclose(rem.cumulants(8, under), ref, rtol=RTOL_CUMULANT)
        np.testing.assert_allclose(
            rem.cumulants(8, under), signs * add.cumulants(8, other)
        )
        np.testing.assert_array_equal(both.cumulants(8, under), add.cumulants(8, under))
    assert both.pairs == (add, rem)
    assert not both.is_symmetric


@pytest.mark.parametrize("under", ["P", "Q"])
@pytest.mark.parametrize("t", [-2.0, -0.5, 0.25, 0.5, 1.0, 3.0, 10.0, 50.0])
def test_cgf_matches_mpmath_finite_differences(t: float, under: str) -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.01), "add")
    k, k1, k2 = (float(v) for v in R.plrv_cgf_derivatives(m, t, under, method="diff"))
    got = m.cgf_derivatives(t, under)
    scale = float(m.cumulants(2, under)[1])  # K' crosses zero near t = 1/2
    assert abs(got[0] - k) <= RTOL_CGF * abs(k) + 1e-16 * scale
    assert abs(got[1] - k1) <= RTOL_CGF * (abs(k1) + scale)
    assert abs(got[2] - k2) <= RTOL_CGF * abs(k2)


@pytest.mark.parametrize(("sigma", "p"), [(0.3, 0.5), (20.0, 1e-6), (2.0, 0.999)])
def test_cgf_vectorised_against_direct_reference(sigma: float, p: float) -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "remove")
    t = np.array([-3.0, 0.1, 0.9, 4.0, 30.0])
    got = m.cgf_derivatives(t, "Q")
    for i, ti in enumerate(t):
        ref = [float(v) for v in R.plrv_cgf_derivatives(m, float(ti), "Q")]
        scale = float(m.cumulants(2, "Q")[1])
        assert abs(got[0][i] - ref[0]) <= RTOL_CGF * abs(ref[0]) + 1e-16 * scale
        assert abs(got[1][i] - ref[1]) <= RTOL_CGF * (abs(ref[1]) + scale)
        assert abs(got[2][i] - ref[2]) <= RTOL_CGF * abs(ref[2])
    assert got[0].shape == t.shape
    assert isinstance(m.cgf(0.5), float)


def test_p_one_is_exactly_the_gaussian_mechanism() -> None:
    g = M.Gaussian(sigma=1.7)
    for pair in ("add", "remove", "both"):
        m = M.SubsampledGaussian(sigma=1.7, p=1.0).with_pair(pair)
        assert m.is_symmetric and m.pairs == (m,)
        for under in ("P", "Q"):
            np.testing.assert_array_equal(m.cumulants(6, under), g.cumulants(6, under))
        t = np.linspace(-2, 3, 7)
        for a, b in zip(m.cgf_derivatives(t), g.cgf_derivatives(t), strict=True):
            np.testing.assert_array_equal(a, b)
        a = np.linspace(0, 1, 11)
        np.testing.assert_array_equal(m.tradeoff(a), g.tradeoff(a))
        e = np.linspace(-1, 4, 11)
        np.testing.assert_array_equal(m.privacy_profile(e), g.privacy_profile(e))


@pytest.mark.parametrize(
    ("sigma", "p", "pair"),
    [
        (1.0, 0.01, "add"),
        (0.5, 0.3, "remove"),
        (5.0, 1e-4, "add"),
        (5.0, 1e-4, "remove"),
    ],
)
def test_privacy_profile_matches_hockey_stick_quadrature(
    sigma: float, p: float, pair: str
) -> None:
    m = M.SubsampledGaussian(sigma=sigma, p=p).with_pair(pair)
    eps = np.array([-1.0, 0.005, 1.0, 6.0])
    ref = np.array([float(RP.privacy_profile(m, e)) for e in eps])
    got = m.privacy_profile(eps)
    np.testing.assert_allclose(got, ref, rtol=RTOL_PROFILE, atol=1e-300)
    both = M.SubsampledGaussian(sigma=sigma, p=p).privacy_profile(eps)
    assert np.all(both >= got)


def test_tradeoffs_add_remove_both() -> None:
    mu, p = 1.3, 0.2
    add = M.with_adjacency(M.SubsampledGaussian(mu=mu, p=p), "add")
    rem = M.with_adjacency(M.SubsampledGaussian(mu=mu, p=p), "remove")
    both = M.SubsampledGaussian(mu=mu, p=p)
    a = np.concatenate(([0.0, 1e-10], np.linspace(0.001, 0.999, 97), [1.0]))
    # Zheng et al. (2020), Lemma C.1: beta = p Phi(h - mu) + (1-p) Phi(h).
    h = special.ndtri(1 - a)
    lemma = p * special.ndtr(h - mu) + (1 - p) * special.ndtr(h)
    np.testing.assert_allclose(add.tradeoff(a), lemma, atol=ATOL_TRADEOFF)
    np.testing.assert_allclose(rem.tradeoff(add.tradeoff(a)), a, atol=1e-9)
    peer = T.Subsampled(T.Gaussian(mu), p)
    np.testing.assert_allclose(both.tradeoff(a), peer(a), atol=ATOL_PEER)
    assert np.all(
        both.tradeoff(a) <= np.minimum(add.tradeoff(a), rem.tradeoff(a)) + 1e-15
    )


def test_plrv_law_is_the_transformed_gaussian() -> None:
    mu, p = 0.8, 0.05
    m = M.with_adjacency(M.SubsampledGaussian(mu=mu, p=p), "add")
    x = np.linspace(-4, 6, 41)
    s = m.log_likelihood_ratio(x)
    # L is increasing in x, so P(L <= L(x)) = Phi(x) and Q(L <= L(x)) is the mixture.
    np.testing.assert_allclose(m.plrv_cdf(s, "P"), special.ndtr(x), rtol=1e-13)
    q = (1 - p) * special.ndtr(x) + p * special.ndtr(x - mu)
    np.testing.assert_allclose(m.plrv_cdf(s, "Q"), q, rtol=1e-13)
    np.testing.assert_allclose(m.plrv_sf(s, "P"), special.ndtr(-x), rtol=1e-12)
    lo, hi = m.plrv_support()
    assert lo == pytest.approx(np.log1p(-p)) and hi == np.inf
    assert m.plrv_cdf(np.log1p(-p), "P") == 0.0


def test_tiny_p_keeps_relative_precision() -> None:
    m = M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=1e-12), "add")
    ref = [float(v) for v in R.plrv_cumulants(m, 3, "P")]
    np.testing.assert_allclose(m.cumulants(3, "P"), ref, rtol=RTOL_CUMULANT)
    k = m.cgf(np.array([0.5, 2.0]))
    ref_k = [float(R.plrv_cgf_derivatives(m, t, "P")[0]) for t in (0.5, 2.0)]
    np.testing.assert_allclose(k, ref_k, rtol=RTOL_CGF)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p": 0.0, "sigma": 1.0}, "p"),
        ({"p": 1.5, "sigma": 1.0}, "p"),
        ({"p": -0.1, "sigma": 1.0}, "p"),
        ({"p": 0.1, "sigma": 0.0}, "sigma"),
        ({"p": 0.1, "sigma": -2.0}, "sigma"),
        ({"p": 0.1, "mu": -1.0}, "mu"),
        ({"p": 0.1, "sigma": 1.0, "pair": "neither"}, "pair"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        M.SubsampledGaussian(**kwargs)


def test_needs_exactly_one_of_sigma_or_mu() -> None:
    with pytest.raises(ValueError, match="sigma or mu"):
        M.SubsampledGaussian(p=0.1)
    with pytest.raises(ValueError, match="not both"):
        M.SubsampledGaussian(p=0.1, sigma=1.0, mu=1.0)
    with pytest.raises(TypeError):
        M.SubsampledGaussian(p="0.1", sigma=1.0)


def test_supports_of_many_settings_are_those_of_each() -> None:
    """The family's supports in one pass, bit for bit against each mechanism's
    own: both pairs and "both", p = 1, mu = 0; and the composed loss range
    against the sum of the supports one by one (other families alongside)."""
    import math

    from symfdp.accountants.base import loss_range

    mechs = [
        M.SubsampledGaussian(sigma=s, p=q).with_pair(pair)
        for s, q in [(0.5, 0.3), (2.0, 1.0), (1.0, 1e-6), (3.0, 0.999)]
        for pair in ("add", "remove", "both")
    ] + [M.SubsampledGaussian(mu=0.0, p=0.2).with_pair("remove")]
    got = M.SubsampledGaussian._plrv_supports_many(mechs)
    want = np.array([m.plrv_support() for m in mechs])
    np.testing.assert_array_equal(got, want)
    comps = tuple((m, 3 + i) for i, m in enumerate(mechs[::3]))
    comps += ((M.Laplace(mu=1.0), 2), (M.Gaussian(mu=0.5), 1))
    lo = math.fsum(n * m.plrv_support()[0] for m, n in comps)
    hi = math.fsum(n * m.plrv_support()[1] for m, n in comps)
    assert loss_range(comps) == (lo, hi)


@pytest.mark.parametrize("t", [-1.0, -0.5, 0.5, 2.5])
@pytest.mark.parametrize("mu", [0.05, 0.5, 0.8, 0.9, 1.8])
def test_trapezoid_step_keeps_the_error_near_1e18(mu: float, t: float) -> None:
    """The x-grid (step from ``x_grid_steps``: 1/2 up to mu = 0.8, where the
    strip bound with the Gaussian factor's growth reaches 1e-18) integrates
    E[(1 - p + p e^Y)^t], Y = mu X - mu^2/2, whose branch points lie on
    Im(mu x) = pi, to 1e-17 relative (measured at most 2.6e-18; a step of 1/2
    at mu = 0.9, which mu h <= 0.45 alone would allow, is off by 4.7e-17): the
    rule summed at 40 digits on its nodes against mpmath's quadrature."""
    from symfdp.mechanisms._gaussian_mixture import x_grid

    p = mpmath.mpf("0.5")
    grid = x_grid(mu, 0.0, 0.0, neg_tilt=max(-t, 0.0))
    with mpmath.workdps(40):
        m, tt = mpmath.mpf(mu), mpmath.mpf(t)

        def f(x: mpmath.mpf) -> mpmath.mpf:
            y = m * x - m * m / 2
            return mpmath.exp(tt * mpmath.log(1 - p + p * mpmath.exp(y)) - x * x / 2)

        rule = mpmath.mpf(grid.step) * mpmath.fsum(f(mpmath.mpf(x)) for x in grid.x)
        cuts = [-mpmath.inf, -8, -2, 0, 2, 8, 8 + 4 * m, mpmath.inf]
        exact = mpmath.quad(f, cuts)
        rel = abs(rule / exact - 1)
    assert grid.step == (0.5 if mu <= 0.8 else 0.25)
    assert rel < 1e-17, (mu, t, grid.step, float(rel))
