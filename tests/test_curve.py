"""PrivacyCurve: symmetrisation, certified bounds, profile inversion, validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.curve import (
    Answer,
    PairCurve,
    PrivacyCurve,
    Query,
    convex_lower_bound_points,
    invert_profile,
)

ALPHA = np.linspace(0.0, 1.0, 4001)


class _ExactPair(PairCurve):
    """A pair curve with the exact add-pair trade-off p G_mu + (1-p) Id."""

    def __init__(self, mu: float, p: float, swapped: bool = False) -> None:
        base = T.Mixture(T.Gaussian(mu), p)
        self.f = base.inverse() if swapped else base

    def answer(self, query, points):
        if query is Query.TRADEOFF:
            return Answer(np.asarray(self.f(points), dtype=np.float64))
        assert query is Query.DELTA
        return Answer(np.asarray(self.f.privacy_profile(points), dtype=np.float64))


@pytest.mark.parametrize(("mu", "p"), [(1.8, 0.35), (1.0, 0.01), (3.0, 0.5)])
def test_symmetrised_equals_cp_closed_form(mu: float, p: float) -> None:
    # min{g, g^{-1}}** of the exact mixture is C_p(G_mu) (Dong et al. 2019, eq. 14).
    curve = PrivacyCurve(
        (_ExactPair(mu, p), _ExactPair(mu, p, swapped=True)), "exact", symmetric=False
    )
    expected = T.Subsampled(T.Gaussian(mu), p)(ALPHA)
    # Tolerance: chord error of the tabulated hull on the standard alpha grid.
    np.testing.assert_allclose(curve.tradeoff(ALPHA), expected, atol=2e-5)
    raw = curve.tradeoff(ALPHA, symmetric=False)
    np.testing.assert_allclose(raw, T.Mixture(T.Gaussian(mu), p)(ALPHA), atol=1e-12)


@pytest.mark.parametrize(("mu", "p", "n"), [(1.8, 0.35, 1), (1.0, 0.2, 5)])
def test_certified_symmetrised_bounds_contain_truth(
    mu: float, p: float, n: int
) -> None:
    m = M.SubsampledGaussian(mu=mu, p=p)
    curve = A.Numerical().compose(m, n)
    lo, hi = curve.tradeoff_bounds(ALPHA)
    if n == 1:
        truth = T.Subsampled(T.Gaussian(mu), p)(ALPHA)
        assert np.all(lo <= truth + 1e-12)
        assert np.all(hi >= truth - 1e-12)
    else:
        # Two certified brackets of different resolution both contain the truth,
        # so they must intersect everywhere.
        fine = A.Numerical(eps_rel_tol=1e-5).compose(m, n)
        f_lo, f_hi = fine.tradeoff_bounds(ALPHA)
        assert np.all(np.maximum(lo, f_lo) <= np.minimum(hi, f_hi) + 1e-12)
        assert np.max(f_hi - f_lo) < np.max(hi - lo)
    assert np.all((lo >= 0) & (hi <= 1 - ALPHA + 1e-15))


@given(
    mu=st.floats(0.2, 4.0),
    shift=st.floats(0.0, 0.01),
    n_grid=st.integers(5, 60),
)
def test_convex_lower_bound_points_is_a_lower_bound(
    mu: float, shift: float, n_grid: int
) -> None:
    f = T.Gaussian(mu)
    x = np.sort(np.concatenate(([0.0, 1.0], np.linspace(0.01, 0.99, n_grid))))
    exact = f(x)
    lo = np.maximum(exact - shift, 0.0)
    hi = np.minimum(exact + shift, 1.0)
    xv, yv = convex_lower_bound_points(x, lo, hi)
    dense = np.linspace(0.0, 1.0, 5001)
    assert np.all(np.interp(dense, xv, yv) <= f(dense) + 1e-12)


def test_invert_profile_matches_gaussian_closed_form() -> None:
    mu = 1.3
    g = T.Gaussian(mu)
    deltas = np.array([1e-2, 1e-5, 1e-10])
    eps = invert_profile(lambda e: g.privacy_profile(e), deltas)
    np.testing.assert_allclose(g.privacy_profile(eps), deltas, rtol=1e-9)


def test_validation_and_scalars() -> None:
    curve = A.Exact().compose(M.Gaussian(mu=1.0), 4)
    assert isinstance(curve.delta(1.0), float)
    assert isinstance(curve.epsilon(1e-5), float)
    assert curve.tradeoff([0.1, 0.2]).shape == (2,)
    with pytest.raises(ValueError, match="delta"):
        curve.epsilon(1.5)
    with pytest.raises(ValueError, match="eps"):
        curve.delta(np.nan)
    assert curve.delta([-np.inf, np.inf]).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="alpha"):
        curve.tradeoff(np.array([0.5, np.nan]))
    approx = A.CLT().compose(M.Gaussian(mu=1.0), 4)
    with pytest.raises(NotImplementedError, match="certified"):
        approx.delta_bounds(1.0)


def test_negative_eps_symmetric_identity() -> None:
    # For a symmetric pair, delta(-e) = 1 - e^{-e} + e^{-e} delta(e): the profile of
    # the swapped pair at -eps (Zheng et al. 2020, Lemma 5.1 applied to (Q, P)).
    curve = A.Exact().compose(M.Gaussian(mu=1.5), 3)
    eps = np.array([0.1, 0.7, 2.0])
    lhs = curve.delta(-eps)
    rhs = 1 - np.exp(-eps) + np.exp(-eps) * curve.delta(eps)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    lo, hi = curve.delta_bounds(-eps)
    np.testing.assert_allclose(lo, lhs, rtol=1e-12)
    np.testing.assert_allclose(hi, lhs, rtol=1e-12)


def test_raw_removes_only_the_loss_range_repair() -> None:
    """``raw()`` unwraps the loss-range clip, not the exact blatant mass 1 - c
    of (eps, delta) events: delta(eps) >= 1 - c stays, far beyond the loss."""
    comp = [(M.EpsilonDelta(eps=0.5, delta=1e-3), 10), (M.Gaussian(mu=1.0), 5)]
    curve = A.Edgeworth(order=2).compose(comp)
    blatant = -np.expm1(10 * np.log1p(-1e-3))
    with pytest.warns(ApproximationWarning, match="NOT a privacy guarantee"):
        assert curve.raw().delta(60.0) == pytest.approx(blatant, rel=1e-12)
