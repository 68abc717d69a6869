"""The sampling operator C_p (Dong et al. 2019, Def. 4.1, eq. (14), Cor. 4.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from symfdp import tradeoff as T
from symfdp.numeric.tabulate import alpha_grid

#: eq. (14) vs the generic hull: both evaluate min{f_p, f_p^{-1}} exactly off
#: the bridges, the diagonal bridge has slope -1 and an intercept found by a
#: golden-section minimum (insensitive to the tangent points' location), so the
#: two agree to rounding.
TOL_HULL = 1e-12
GRID = alpha_grid()

symmetric_bases = st.one_of(
    st.builds(T.Gaussian, st.floats(0.0, 6.0)),
    st.builds(T.Laplace, st.floats(0.0, 6.0)),
    st.builds(T.EpsDelta, st.floats(0.0, 4.0), st.floats(0.0, 0.9)),
    st.builds(
        T.GroupPrivacy, st.builds(T.EpsDelta, st.floats(0.0, 1.0)), st.integers(1, 3)
    ),
)


@given(symmetric_bases, st.floats(0.01, 1.0))
def test_eq14_equals_generic_hull(f, p):
    closed = T.Subsampled(f, p)
    generic = T.Symmetrized(T.Mixture(f, p))
    np.testing.assert_allclose(closed(GRID), generic(GRID), atol=TOL_HULL)
    assert closed.fixed_point() == pytest.approx(generic.fixed_point(), abs=TOL_HULL)


@pytest.mark.parametrize(
    ("eps", "delta", "p"),
    [(3.0, 0.1, 0.2), (1.0, 0.0, 0.5), (0.5, 0.3, 0.05), (6.0, 0.01, 0.9)],
)
def test_corollary_4_3_corrected_closed_form(eps, delta, p):
    # Three routes to C_p(f_{eps,delta}): the corrected Cor. 4.3 (closed form),
    # eq. (14) and the generic hull of min{f_p, f_p^{-1}}.
    closed = T.subsampled_eps_delta(eps, delta, p)
    via14 = T.Subsampled(T.EpsDelta(eps, delta), p)
    hull = T.Symmetrized(T.Mixture(T.EpsDelta(eps, delta), p))
    np.testing.assert_allclose(closed(GRID), via14(GRID), atol=TOL_HULL)
    np.testing.assert_allclose(closed(GRID), hull(GRID), atol=TOL_HULL)
    # The closed form written out here from eq. (14) with x* = (1-d)/(1+e^eps).
    eps_p = math.log(1 - p + p * math.exp(eps))
    x_star = (1 - delta) / (1 + math.exp(eps))
    line = 1 - p + 2 * p * x_star - GRID
    ref = np.maximum(T.EpsDelta(eps_p, p * delta)(GRID), line)
    np.testing.assert_allclose(closed(GRID), ref, atol=1e-15)


def test_corollary_4_3_as_printed_is_loose_when_delta_positive():
    # Eq. (15) as printed: max{f_{eps',delta'}, 1 - p delta - p (e^eps-1)/(e^eps+1)
    # - alpha}. For delta > 0 it is a valid but strictly smaller curve than
    # C_p(f_{eps,delta}) (by p delta tanh(eps/2) on the middle segment).
    eps, delta, p = 3.0, 0.1, 0.2  # dong2019-fig6-right
    eps_p = math.log(1 - p + p * math.exp(eps))
    printed_line = 1 - p * delta - p * math.tanh(eps / 2) - GRID
    printed = np.maximum(T.EpsDelta(eps_p, p * delta)(GRID), printed_line)
    true = T.Subsampled(T.EpsDelta(eps, delta), p)(GRID)
    assert np.all(printed <= true + 1e-15)
    gap = np.max(true - printed)
    assert gap == pytest.approx(p * delta * math.tanh(eps / 2), rel=1e-9)
    # With delta = 0 the printed form is exact.
    printed0 = np.maximum(
        T.EpsDelta(eps_p, 0.0)(GRID), 1 - p * math.tanh(eps / 2) - GRID
    )
    np.testing.assert_allclose(
        printed0, T.Subsampled(T.EpsDelta(eps, 0.0), p)(GRID), atol=1e-15
    )


def test_subsampling_improves_on_classical_bound():
    # Lemma `DPsubsamplerep` [Ull17]: C_p(f_{eps,delta}) >= f_{eps',delta'}.
    eps, delta, p = 3.0, 0.1, 0.2
    eps_p = math.log(1 - p + p * math.exp(eps))
    c = T.subsampled_eps_delta(eps, delta, p)
    classical = T.EpsDelta(eps_p, p * delta)
    assert np.all(c(GRID) >= classical(GRID) - 1e-15)
    assert np.max(c(GRID) - classical(GRID)) > 0.05  # the shaded triangle


def test_sampling_operator_facts():
    g = T.Gaussian(1.8)  # dong2019-fig6-left: f = G_1.8, p = 0.35
    c = T.Subsampled(g, 0.35)
    fp = T.Mixture(g, 0.35)
    lower = np.minimum(fp(GRID), fp.inverse()(GRID))
    # C_p(f) <= min{f_p, f_p^{-1}} <= f_p, and C_p(f) = f_p on [0, x*].
    assert np.all(c(GRID) <= lower + 1e-15)
    x_star = g.fixed_point()
    left = GRID <= x_star
    np.testing.assert_allclose(c(GRID)[left], fp(GRID)[left], atol=1e-15)
    # C_1(f) = f and C_p(Id) = Id.
    np.testing.assert_allclose(T.Subsampled(g, 1.0)(GRID), g(GRID), atol=1e-15)
    ident = T.Identity()
    np.testing.assert_allclose(T.Subsampled(ident, 0.3)(GRID), 1 - GRID, atol=1e-15)
    # Tightness (App. F): C_{1/n}(0) = f_{0,1/n}, with 0 = f_{0,1}.
    n = 7
    zero = T.EpsDelta(0.0, 1.0)
    np.testing.assert_allclose(
        T.Subsampled(zero, 1 / n)(GRID), T.EpsDelta(0.0, 1 / n)(GRID), atol=1e-15
    )


@pytest.mark.parametrize(("mu", "p"), [(1.0, 0.01), (1.8, 0.35), (4.0, 0.5)])
def test_subsampled_profile_eq_16(mu, p):
    # Dong et al. (2019), eq. (16) with (48): for eps' >= 0,
    # delta'(eps') = p delta_f(log(1 + (e^{eps'} - 1)/p)).
    from scipy import stats

    eps = np.linspace(0.0, 6.0, 25)
    et = np.log1p(np.expm1(eps) / p)
    ref = p * (
        stats.norm.cdf(-et / mu + mu / 2)
        - np.exp(et) * stats.norm.cdf(-et / mu - mu / 2)
    )
    c = T.Subsampled(T.Gaussian(mu), p)
    np.testing.assert_allclose(c.privacy_profile(eps), ref, atol=1e-12)
    np.testing.assert_allclose(c.privacy_profile(eps, method="grid"), ref, atol=1e-10)


def test_asymmetric_base_uses_generic_hull():
    f = T.Mixture(T.Gaussian(2.0), 0.4)
    c = T.Subsampled(f, 0.3)
    ref = T.Symmetrized(T.Mixture(f, 0.3))
    np.testing.assert_allclose(c(GRID), ref(GRID), atol=1e-15)
    assert c.is_symmetric


def test_subsampled_tails_are_finite_and_in_range():
    c = T.Subsampled(T.Gaussian(2.0), 0.05)
    a = np.array([0.0, 1e-300, 1e-13, 1e-12, 1 - 1e-12, 1 - 1e-13, 1.0])
    v = c(a)
    assert np.all(np.isfinite(v))
    assert np.all((v >= 0) & (v <= 1 - a))
    assert v[0] == 1.0 and v[-1] == 0.0
