"""Primal-dual conversions (Zheng et al. 2020, Prop. 2.3/2.4; Dong et al. 2019)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import tradeoff as T

ALPHA = np.linspace(0.0, 1.0, 501)


def _eps_delta_max(eps, delta, a):
    # sup_i f_{eps_i, delta_i}(a), by brute force from eq. (5).
    lines = [
        np.maximum.reduce(
            [np.zeros_like(a), 1 - d - math.exp(e) * a, math.exp(-e) * (1 - d - a)]
        )
        for e, d in zip(eps, delta, strict=True)
    ]
    return np.max(lines, axis=0)


def test_from_privacy_profile_single_pair_is_f_eps_delta():
    f = T.FromPrivacyProfile([1.3], [0.02])
    np.testing.assert_allclose(f(ALPHA), T.EpsDelta(1.3, 0.02)(ALPHA), atol=1e-15)
    assert f.is_symmetric


def test_from_privacy_profile_is_upper_envelope():
    rng = np.random.default_rng(7)
    eps = rng.uniform(0, 4, 40)
    delta = rng.uniform(0, 0.3, 40)
    f = T.FromPrivacyProfile(eps, delta)
    np.testing.assert_allclose(f(ALPHA), _eps_delta_max(eps, delta, ALPHA), atol=1e-15)
    # Its profile is exact at the vertices (piecewise-linear conjugate) and
    # every input pair is implied: delta(eps_i) <= delta_i.
    assert np.all(np.asarray(f.privacy_profile(eps)) <= delta + 1e-15)


def test_prop_2_8_recovers_gaussian_from_its_profile_on_a_grid():
    # Dong et al. (2019), Prop. 2.8 with the (eps, delta(eps)) of G_1 on a grid:
    # a valid lower bound of G_1 that converges as the grid is refined.
    g = T.Gaussian(1.0)
    gaps = []
    for n in (20, 80, 320):
        eps = np.linspace(0.0, 12.0, n)
        f = T.FromPrivacyProfile(eps, g.privacy_profile(eps))
        diff = g(ALPHA) - f(ALPHA)
        assert np.all(diff >= -1e-14)
        gaps.append(diff.max())
    assert gaps[1] < gaps[0] / 8 and gaps[2] < gaps[1] / 8  # second order in spacing


def test_tradeoff_from_profile_without_refinement_is_conservative():
    g = T.Gaussian(2.0)
    eps = np.linspace(0.0, 20.0, 41)
    coarse = T.tradeoff_from_profile(
        lambda e: g.privacy_profile(e), ALPHA, eps, symmetric=True, refine=False
    )
    assert np.all(coarse <= g(ALPHA) + 1e-15)
    # Equal to Prop. 2.8 on the same pairs (the envelope of the same lines).
    env = T.FromPrivacyProfile(eps, g.privacy_profile(eps))
    np.testing.assert_allclose(coarse, env(ALPHA), atol=1e-15)
    fine = T.tradeoff_from_profile(
        lambda e: g.privacy_profile(e), ALPHA, eps, symmetric=True
    )
    np.testing.assert_allclose(fine, g(ALPHA), atol=1e-12)


def test_tradeoff_from_profile_scalar_and_validation():
    g = T.Gaussian(1.0)
    v = T.tradeoff_from_profile(
        lambda e: g.privacy_profile(e), 0.2, np.linspace(0, 30, 61), symmetric=True
    )
    assert isinstance(v, float)
    assert v == pytest.approx(g(0.2), abs=1e-12)
    with pytest.raises(ValueError, match="eps_grid"):
        T.tradeoff_from_profile(lambda e: e * 0, 0.5, [-1.0, 1.0], symmetric=True)
    with pytest.raises(ValueError, match="delta_fn"):
        T.tradeoff_from_profile(lambda e: e * np.nan, 0.5, [0.0, 1.0])


def test_tradeoff_from_profile_warns_when_delta_is_impossible():
    # delta = 0 everywhere is below every profile (delta(eps) >= 1 - e^eps):
    # the lines exceed 1 - alpha, which is repaired with a warning.
    with pytest.warns(ApproximationWarning, match="1 - alpha"):
        out = T.tradeoff_from_profile(
            lambda e: np.zeros_like(e), ALPHA, [-1.0, 0.0, 1.0]
        )
    assert np.all(out <= 1 - ALPHA)


def test_profile_of_asymmetric_pair_both_directions():
    # f_p = T(P, Q_p) and f_p^{-1} = T(Q_p, P): delta_{f^{-1}}(eps) equals the
    # complement identity 1 - e^eps + e^eps delta_f(-eps) for every real eps.
    f = T.Mixture(T.Gaussian(1.5), 0.25)
    eps = np.linspace(-6.0, 6.0, 49)
    inv = T.inverse(f)
    lhs = inv.privacy_profile(eps)
    rhs = -np.expm1(eps) + np.exp(eps) * f.privacy_profile(-eps)
    np.testing.assert_allclose(lhs, rhs, atol=1e-12)
    # The symmetrised curve's profile is the max of the two directions.
    s = T.symmetrize(f)
    np.testing.assert_allclose(
        s.privacy_profile(eps), np.maximum(f.privacy_profile(eps), lhs), atol=1e-15
    )
    np.testing.assert_allclose(
        s.privacy_profile(eps, method="grid"), s.privacy_profile(eps), atol=1e-10
    )


def test_conjugate_is_convex_and_bounded():
    f = T.Subsampled(T.Laplace(2.0), 0.3)
    y = np.linspace(-50.0, 5.0, 221)
    c = np.asarray(T.conjugate(f, y))
    assert np.all(np.diff(c, 2) >= -1e-12)  # convex
    # f^*(y) >= -f(0) (x = 0) and >= y (x = 1, f(1) = 0); f^*(0) = 0.
    assert np.all(c >= -f(0.0) - 1e-15)
    assert np.all(c >= y - 1e-15)
    assert T.conjugate(f, 0.0) == pytest.approx(0.0, abs=1e-15)


def test_tabulated_curve():
    a = np.linspace(0, 1, 11)
    g = T.Gaussian(1.0)
    tab = T.Tabulated(a, g(a), symmetric=True)
    mid = np.linspace(0, 1, 101)
    np.testing.assert_allclose(tab(mid), np.interp(mid, a, g(a)), atol=1e-15)
    # Its profile is exact for the interpolant: the max over the nodes.
    eps = np.array([0.0, 0.5, 2.0])
    ref = [np.max(1 - g(a) - math.exp(e) * a) for e in eps]
    np.testing.assert_allclose(tab.privacy_profile(eps), ref, atol=1e-15)
    assert tab.auc() == pytest.approx(np.trapezoid(g(a), a), abs=1e-15)
    # An asymmetric table inverts by reflection.
    m = T.Mixture(T.Gaussian(2.0), 0.4)
    t = T.Tabulated(a, m(a))
    np.testing.assert_allclose(t.inverse()(m(a)), a, atol=1e-12)
