"""Property tests (hypothesis) for the trade-off calculus over random parameters.

Invariants of every trade-off function (Dong et al. 2019, Prop. `tradeoffthm`):
values in [0, 1 - alpha], non-increasing; symmetrised curves convex and self-inverse;
C_p(f) >= f and monotone in p; delta(eps) in [0, 1] and non-increasing; the
closed forms agree with the generic grid methods.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from symfdp import tradeoff as T
from symfdp.tradeoff._numeric import integrate_unit

#: Rounding slack of float64 evaluations of curves with values in [0, 1].
TOL_ROUND = 1e-15
#: Convexity of a curve from second differences on a uniform grid (rounding of
#: values of size 1 divided by nothing: second differences are O(1e-16)).
TOL_CONVEX = 1e-12
#: Self-inverse check S(S(t)) = t: the rounding of S(t) is amplified by |S'|,
#: which is unbounded near t = 0.
TOL_SELF_INVERSE = 1e-9
#: Closed-form hooks vs the generic grid methods (golden-section refinement to
#: ~1e-14 in x; the grid's smallest positive point is 1e-15).
TOL_METHODS = 1e-9
#: Round trip f -> delta(eps) -> f (issue requirement).
TOL_ROUND_TRIP = 1e-9

ALPHA = np.unique(
    np.concatenate(
        (
            np.linspace(0.0, 1.0, 401),
            [1e-12, 1e-9, 1e-6, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12],
        )
    )
)
UNIFORM = np.linspace(0.0, 1.0, 501)
EPS = np.linspace(-10.0, 30.0, 161)

mus = st.floats(0.0, 6.0)
small_eps = st.floats(0.0, 5.0)
deltas = st.floats(0.0, 1.0)
rates = st.floats(0.01, 1.0)

symmetric_primitives = st.one_of(
    st.builds(T.Gaussian, mus),
    st.builds(T.EpsDelta, small_eps, deltas),
    st.builds(T.Laplace, mus),
    st.just(T.Identity()),
)
asymmetric = st.one_of(
    st.builds(T.Mixture, st.builds(T.Gaussian, mus), st.floats(0.01, 0.99)),
    st.builds(T.Mixture, st.builds(T.Laplace, mus), st.floats(0.01, 0.99)),
    st.builds(
        T.Inverse,
        st.builds(T.Mixture, st.builds(T.Gaussian, mus), st.floats(0.01, 0.99)),
    ),
)
compound = st.one_of(
    asymmetric,
    st.builds(T.Subsampled, symmetric_primitives, rates),
    st.builds(T.ScaledByDelta, st.one_of(symmetric_primitives, asymmetric), deltas),
    st.builds(T.GroupPrivacy, symmetric_primitives, st.integers(1, 4)),
    st.builds(T.Symmetrized, asymmetric),
)
any_tradeoff = st.one_of(symmetric_primitives, compound)


def _is_tradeoff_curve(v: np.ndarray, a: np.ndarray) -> None:
    assert np.all(np.isfinite(v))
    assert np.all(v >= 0.0)
    assert np.all(v <= 1.0 - a + TOL_ROUND)
    assert np.all(np.diff(v) <= TOL_ROUND)


@given(any_tradeoff)
def test_every_tradeoff_is_in_range_and_non_increasing(f):
    _is_tradeoff_curve(np.asarray(f(ALPHA)), ALPHA)
    # Scalar in, float out.
    assert isinstance(f(0.3), float)


@given(any_tradeoff)
def test_inverse_is_a_tradeoff_and_inverts(f):
    g = T.inverse(f)
    _is_tradeoff_curve(np.asarray(g(ALPHA)), ALPHA)
    # g(f(t)) = t wherever f is strictly decreasing with f(0) = 1 there.
    t = np.linspace(0.05, 0.95, 19)
    ft = f(t)
    strict = (ft > 1e-6) & (np.asarray(f(t - 1e-3)) > ft + 1e-7)
    np.testing.assert_allclose(g(ft)[strict], t[strict], atol=1e-8)


@given(asymmetric)
def test_symmetrised_curve_is_convex_and_self_inverse(g):
    s = T.symmetrize(g)
    assert s.is_symmetric
    v = np.asarray(s(UNIFORM))
    _is_tradeoff_curve(v, UNIFORM)
    assert np.all(np.diff(v, 2) >= -TOL_CONVEX)
    # Its own inverse: these curves are strictly decreasing with S(0) = 1, so
    # S(S(t)) = t on [0, 1] (Dong et al. 2019, eq. (4) and footnote 8).
    np.testing.assert_allclose(s(v), UNIFORM, atol=TOL_SELF_INVERSE)
    # It lies below both f and f^{-1} (a convex minorant of their minimum).
    assert np.all(v <= np.minimum(g(UNIFORM), T.inverse(g)(UNIFORM)) + TOL_ROUND)


@given(symmetric_primitives, rates, rates)
def test_subsampling_improves_and_is_monotone_in_p(f, p1, p2):
    lo, hi = min(p1, p2), max(p1, p2)
    c_lo, c_hi = T.subsample(f, lo), T.subsample(f, hi)
    v_lo, v_hi, v_f = c_lo(ALPHA), c_hi(ALPHA), f(ALPHA)
    # Dong et al. (2019), Sec. 4.1, fact 1: f = C_1(f) <= C_q(f) <= C_p(f) <= Id.
    assert np.all(v_hi >= v_f - TOL_ROUND)
    assert np.all(v_lo >= v_hi - TOL_ROUND)
    assert np.all(v_lo <= 1.0 - ALPHA + TOL_ROUND)
    _is_tradeoff_curve(np.asarray(v_lo), ALPHA)


@given(any_tradeoff)
def test_privacy_profile_in_unit_interval_and_non_increasing(f):
    d = np.asarray(f.privacy_profile(EPS))
    assert np.all((d >= 0.0) & (d <= 1.0))
    assert np.all(np.diff(d) <= 1e-14)
    # delta(eps) >= 1 - f(0) (the point x = 0) and >= 1 - e^eps (x = 1).
    assert np.all(d >= 1.0 - f(0.0) - TOL_ROUND)
    assert np.all(d >= -np.expm1(EPS) - TOL_ROUND)


@given(any_tradeoff)
def test_closed_form_hooks_agree_with_grid_methods(f):
    np.testing.assert_allclose(
        f.privacy_profile(EPS), f.privacy_profile(EPS, method="grid"), atol=TOL_METHODS
    )
    y = -np.logspace(-3, 3, 25)
    np.testing.assert_allclose(
        f.conjugate(y), f.conjugate(y, method="grid"), atol=TOL_METHODS
    )
    # Inverse profile: closed form (complement identity / eq. (48) analogue) vs grid.
    g = T.Inverse(f)
    np.testing.assert_allclose(
        g.privacy_profile(EPS), g.privacy_profile(EPS, method="grid"), atol=TOL_METHODS
    )
    # Fixed point and area: closed forms vs bisection / quadrature of the values.
    fp = T.fixed_point(f)
    assert abs(f(fp) - fp) <= 1e-12
    assert T.fixed_point(lambda a: f(a)) == pytest.approx(fp, abs=1e-12)
    assert T.auc(f) == pytest.approx(
        integrate_unit(lambda a: f(a), f._breakpoints()), abs=TOL_METHODS
    )


@given(st.one_of(st.builds(T.Gaussian, mus), st.builds(T.EpsDelta, small_eps, deltas)))
def test_round_trip_profile_to_tradeoff(f):
    # f -> delta(eps) (Prop. 2.3) -> sup_eps f_{eps, delta(eps)} (Prop. 2.4).
    eps_grid = np.linspace(0.0, 100.0, 501)
    back = T.tradeoff_from_profile(
        lambda e: f.privacy_profile(e), ALPHA, eps_grid, symmetric=True
    )
    np.testing.assert_allclose(back, f(ALPHA), atol=TOL_ROUND_TRIP)


@given(asymmetric)
def test_round_trip_asymmetric_uses_negative_eps(f):
    eps_grid = np.linspace(-40.0, 100.0, 701)
    back = T.tradeoff_from_profile(lambda e: f.privacy_profile(e), ALPHA, eps_grid)
    np.testing.assert_allclose(back, f(ALPHA), atol=TOL_ROUND_TRIP)


@given(any_tradeoff)
def test_mu_star_gamma_domain(f):
    mu_star, gamma = T.mu_star_gamma(f)
    assert mu_star >= 0.0
    assert 0.0 <= gamma <= 0.5 + 1e-15
