"""The (mu*, gamma) interpreter (Zheng et al. 2020, Sec. 4), fixed points, areas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from symfdp import tradeoff as T
from symfdp.curve import Answer, PairCurve, PrivacyCurve, Query

#: Quadrature of a generic callable (composite Gauss-Legendre on 300 panels).
TOL_AREA = 1e-10


@pytest.mark.parametrize("mu", [0.0, 0.5, 1.0, 2.0, 4.0])
def test_gaussian_interpreter_recovers_mu(mu):
    # G_mu meets the diagonal at Phi(-mu/2), so mu* = mu; gamma = Phi(-mu/sqrt 2).
    g = T.Gaussian(mu)
    mu_star, gamma = T.mu_star_gamma(g)
    assert mu_star == pytest.approx(mu, abs=1e-12)
    assert gamma == pytest.approx(special.ndtr(-mu / math.sqrt(2)), abs=1e-15)
    # The same through a plain callable (bisection and quadrature).
    mu_c, gamma_c = T.mu_star_gamma(lambda a: special.ndtr(special.ndtri(1 - a) - mu))
    assert mu_c == pytest.approx(mu, abs=1e-9)
    assert gamma_c == pytest.approx(gamma, abs=TOL_AREA)


def test_interpreter_domain_and_identity():
    # AUC(Id) = 1/2 and mu*(Id) = 0: the corner of the domain {mu >= 0, gamma <= 1/2}.
    assert T.mu_star_gamma(T.Identity()) == pytest.approx((0.0, 0.5))
    # The blatantly non-private curve f = 0 has alpha* = 0, mu* = inf, gamma = 0.
    assert T.mu_star_gamma(T.EpsDelta(0.0, 1.0)) == (math.inf, 0.0)


def test_interpreter_on_subsampled_curve():
    f = T.Subsampled(T.Gaussian(1.8), 0.35)
    a_star = f.fixed_point()
    assert f(a_star) == pytest.approx(a_star, abs=1e-15)
    mu_star, gamma = T.mu_star_gamma(f)
    # G_{mu*} shares the fixed point (Sec. 4, left panel of Fig. 4.1).
    assert T.Gaussian(mu_star).fixed_point() == pytest.approx(a_star, abs=1e-14)
    assert gamma == pytest.approx(T.auc(lambda a: f(a)), abs=TOL_AREA)


def test_comparison_rule():
    g1, g2 = T.Gaussian(2.0), T.Gaussian(1.0)
    # G_1 dominates G_2, so f2 = G_1 is "more private" than f1 = G_2.
    assert T.compare_mu_star_gamma(g1, g2) == 1
    assert T.compare_mu_star_gamma(g2, g1) == -1
    assert T.compare_mu_star_gamma(g1, g1) == 0
    # Summaries may be given directly; crossing summaries are not ordered.
    assert T.compare_mu_star_gamma((1.0, 0.3), (0.5, 0.2)) == 0
    assert T.compare_mu_star_gamma((1.0, 0.3), (0.5, 0.35)) == 1
    with pytest.raises(ValueError, match="two entries"):
        T.compare_mu_star_gamma((1.0,), (0.5, 0.2))


def test_comparison_on_subsampling_is_consistent_with_dominance():
    # C_p(f) >= C_q(f) for p <= q (Dong et al. 2019, Sec. 4.1), so the rule must
    # call C_p more private.
    f = T.Laplace(2.0)
    assert T.compare_mu_star_gamma(T.subsample(f, 0.6), T.subsample(f, 0.2)) == 1


class _GaussianPair(PairCurve):
    """A minimal PairCurve for G_mu (delta from CF-D3, tradeoff from eq. (6))."""

    def __init__(self, mu: float) -> None:
        self.mu = mu

    def answer(self, query, points):
        f = T.Gaussian(self.mu)
        if query is Query.DELTA:
            return Answer(np.asarray(f.privacy_profile(points), dtype=np.float64))
        assert query is Query.TRADEOFF
        return Answer(np.asarray(f(points), dtype=np.float64))


def test_privacy_curve_uses_the_interpreter():
    # symfdp.curve.PrivacyCurve.mu_star_gamma calls T.mu_star_gamma(callable).
    curve = PrivacyCurve(pairs=(_GaussianPair(1.3),), method="test")
    mu_star, gamma = curve.mu_star_gamma()
    assert mu_star == pytest.approx(1.3, abs=1e-9)
    assert gamma == pytest.approx(special.ndtr(-1.3 / math.sqrt(2)), abs=TOL_AREA)


def test_fixed_point_and_auc_of_generic_callables():
    f = T.Laplace(1.0)
    assert T.fixed_point(lambda a: f(a)) == pytest.approx(
        0.5 * math.exp(-0.5), abs=1e-15
    )
    # Laplace AUC e^{-mu}(1/2 + mu/4); the kinks at e^{-mu}/2 and 1/2 are not
    # given to the generic quadrature, hence the looser tolerance (C^1 curve).
    assert T.auc(lambda a: f(a)) == pytest.approx(math.exp(-1.0) * 0.75, abs=1e-9)
    assert T.auc(f) == pytest.approx(math.exp(-1.0) * 0.75, abs=1e-15)
