"""The neighbouring relation as a transform of a mechanism (issue 13).

``with_adjacency`` picks the dominating pairs a relation needs; the results are
checked against dp-accounting's PLD accountant on the same events, and the
two-direction container refuses single-law queries.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from tests._answers import delta_of

dpa = pytest.importorskip("dp_accounting")
NR = dpa.NeighboringRelation
EPS = [0.5, 1.0, 2.0]


def _dp_accounting(event: object, relation: object) -> np.ndarray:
    acc = dpa.pld.PLDAccountant(relation, value_discretization_interval=1e-4)
    acc.compose(event)
    return np.array([acc.get_delta(e) for e in EPS])


def test_add_or_remove_subsampled_gaussian_matches_dp_accounting() -> None:
    p, sigma, n = 0.05, 1.0, 50
    m = M.with_adjacency(
        M.PoissonSubsampled(M.Gaussian(sigma=sigma), p=p), "add_or_remove"
    )
    lo, hi = A.Numerical().compose(m, n).delta_bounds(np.array(EPS))
    event = dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n
    )
    ref = _dp_accounting(event, NR.ADD_OR_REMOVE_ONE)
    # dp-accounting's (pessimistic) PLD is an upper bound on the truth.
    assert np.all(lo <= ref + 1e-12)
    np.testing.assert_allclose(hi, ref, rtol=2e-3)


def test_replace_one_randomized_response_matches_dp_accounting() -> None:
    eps, k = 1.0, 4
    m = M.with_adjacency(M.RandomizedResponse(eps=eps, k=k), "replace_one")
    noise = k / (math.exp(eps) + k - 1)  # probability of a uniform output
    # One release through the accountant's REPLACE_ONE relation ...
    ref = _dp_accounting(dpa.RandomizedResponseDpEvent(noise, k), NR.REPLACE_ONE)
    lo, hi = A.Numerical().compose(m, 1).delta_bounds(np.array(EPS))
    assert np.all(lo <= hi)
    np.testing.assert_allclose(hi, ref, rtol=1e-9, atol=1e-12)
    # ... and ten through its PLD (the accountant drops self-composition counts
    # of randomized response in the installed version).
    pld = dpa.pld.privacy_loss_distribution.from_randomized_response(
        noise, k, value_discretization_interval=1e-4
    ).self_compose(10)
    ref = np.array([pld.get_delta_for_epsilon(e) for e in EPS])
    _, hi = A.Numerical().compose(m, 10).delta_bounds(np.array(EPS))
    # Its losses are rounded up to the 1e-4 grid: an upper bound, within 1e-3.
    assert np.all(hi <= ref) and np.all(hi >= ref * (1 - 1e-3))


def test_directions_of_an_asymmetric_pair() -> None:
    base = M.from_pmfs([0.6, 0.3, 0.1], [0.2, 0.3, 0.5])
    assert not base.is_symmetric
    both = M.with_adjacency(base, "add_or_remove")
    assert isinstance(both, M.BothDirections) and len(both.pairs) == 2
    assert M.with_adjacency(base, "add") is base
    assert isinstance(M.with_adjacency(base, "remove"), M.Swapped)
    e = np.array([-0.5, 0.0, 0.5])
    curves = [A.Numerical().compose(pr, 5).delta_bounds(e) for pr in both.pairs]
    lo, hi = A.Numerical().compose(both, 5).delta_bounds(e)
    np.testing.assert_allclose(lo, np.maximum(curves[0][0], curves[1][0]))
    np.testing.assert_allclose(hi, np.maximum(curves[0][1], curves[1][1]))
    with pytest.raises(TypeError, match=r"Ask \.pairs\[0\]"):
        both.cumulants(2)
    # Symmetric mechanisms are their own add/remove relations; replacing a
    # record moves a Gaussian by twice the sensitivity.
    g = M.Gaussian(mu=1.0)
    assert all(M.with_adjacency(g, r) is g for r in M.ADJACENCIES if r != "replace_one")
    assert M.with_adjacency(g, "replace_one") == M.Gaussian(mu=2.0)
    with pytest.raises(ValueError, match=r"M\.from_pmfs or M\.from_densities"):
        M.with_adjacency(base, "replace_one")


def test_relations_of_poisson_subsampling() -> None:
    s = M.PoissonSubsampled(M.Gaussian(mu=1.0), p=0.1)
    assert M.with_adjacency(s, "add_or_remove").pair == "both"
    assert M.with_adjacency(s, "remove").pair == "remove"
    # A Gaussian (Laplace) base is served by SubsampledGaussian's
    # (SubsampledLaplace's) replace-one pair; other bases are refused.
    e = np.array([0.5, 2.0])
    for base, form in (
        (M.Gaussian(mu=1.0), M.SubsampledGaussian(mu=1.0, p=0.1)),
        (M.Laplace(mu=1.0), M.SubsampledLaplace(mu=1.0, p=0.1)),
    ):
        got = M.with_adjacency(M.PoissonSubsampled(base, p=0.1), "replace_one")
        want = M.with_adjacency(form, "replace_one")
        np.testing.assert_array_equal(got.privacy_profile(e), want.privacy_profile(e))
    rr = M.PoissonSubsampled(M.RandomizedResponse(eps=1.0), p=0.1)
    with pytest.raises(M.UndefinedRelationError, match=r"M\.from_pmfs"):
        M.with_adjacency(rr, "replace_one")
    with pytest.raises(ValueError, match="adjacency"):
        M.with_adjacency(s, "neighbours")


@pytest.mark.parametrize("acc", [A.Numerical(), A.CLT(), A.SaddlePoint()], ids=repr)
def test_compose_takes_the_relation(acc: A.Accountant) -> None:
    """``compose(..., adjacency=...)`` is ``compose(with_adjacency(...))``, for
    single mechanisms and composition lists."""
    base = M.from_pmfs([0.6, 0.3, 0.1], [0.2, 0.3, 0.5])
    e = np.array([0.0, 1.0])
    with warnings.catch_warnings():
        # Only the two routes are compared: 5 steps of a 3-point pmf is too few for
        # CLT and SaddlePoint, whose error estimates (5-15% at eps = 1) then warn.
        warnings.simplefilter("ignore", ApproximationWarning)
        for rel in M.ADJACENCIES:
            if rel == "replace_one":  # a PMF pair cannot say what it means
                with pytest.raises(ValueError, match="replace_one"):
                    acc.compose(base, 5, adjacency=rel)
                continue
            got = acc.compose(base, 5, adjacency=rel).delta(e)
            want = acc.compose(M.with_adjacency(base, rel), 5).delta(e)
            np.testing.assert_array_equal(got, want)
        got = acc.compose([(base, 3), (M.Gaussian(mu=0.5), 2)], adjacency="remove")
        want = acc.compose([(base.swapped(), 3), (M.Gaussian(mu=0.5), 2)])
        np.testing.assert_array_equal(got.delta(e), want.delta(e))
    with pytest.raises(ValueError, match="adjacency"):
        acc.compose(base, 5, adjacency="neighbours")


#: Accountants whose add-or-remove answer is, by construction, the worse of the
#: two directions' answers (Auto may answer the directions from different tiers;
#: bounds fold the directions into one bound).
_PER_DIRECTION = ("numerical", "clt", "contour", "edgeworth", "saddlepoint")


@pytest.mark.parametrize("name", _PER_DIRECTION)
def test_add_or_remove_is_the_worse_direction_for_every_query(name: str) -> None:
    from symfdp.accountants.registry import accountant_classes

    acc = accountant_classes()[name]()
    m, n = M.SubsampledGaussian(sigma=0.8, p=0.05), 300
    e = np.array([0.25, 1.0, 2.0])
    d = np.array([1e-3, 1e-6])
    alpha = np.linspace(0.0, 1.0, 21)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        both = acc.compose(m, n, adjacency="add_or_remove")
        add = acc.compose(m, n, adjacency="add")
        rem = acc.compose(m, n, adjacency="remove")
        np.testing.assert_allclose(
            both.delta(e), np.maximum(add.delta(e), rem.delta(e)), rtol=1e-12
        )
        np.testing.assert_allclose(
            both.epsilon(d), np.maximum(add.epsilon(d), rem.epsilon(d)), rtol=1e-9
        )
        f = both.tradeoff(alpha)
        assert np.all(f <= np.minimum(add.tradeoff(alpha), rem.tradeoff(alpha)) + 1e-9)
        # Each direction of the add-or-remove curve is that direction's own (CLT
        # folds both into one symmetric G_mu).
        for k, one in enumerate((add, rem)[: len(both.pairs)]):
            np.testing.assert_allclose(
                delta_of(both.pairs[k], e), delta_of(one.pairs[0], e), rtol=1e-12
            )


def test_each_direction_has_its_own_cumulants_and_cgf() -> None:
    """L_remove = -L_add with P_remove = Q_add, so kappa_j of the remove pair
    under P is (-1)^j kappa_j of the add pair under Q, and
    K_remove,P(t) = K_add,Q(-t) = K_add,P(1 - t)."""
    m = M.SubsampledGaussian(sigma=0.8, p=0.05)
    add, rem = M.with_adjacency(m, "add"), M.with_adjacency(m, "remove")
    assert M.with_adjacency(m, "add_or_remove").pairs == (add, rem)
    sign = (-1.0) ** np.arange(1, 7)
    np.testing.assert_allclose(
        rem.cumulants(6, "P"), sign * add.cumulants(6, "Q"), rtol=1e-9, atol=1e-15
    )
    t = np.array([-0.5, 0.3, 1.7])
    np.testing.assert_allclose(rem.cgf(t, "P"), add.cgf(1.0 - t, "P"), rtol=1e-9)
    assert not np.allclose(rem.cumulants(3, "P"), add.cumulants(3, "P"))


def test_replace_one_subsampled_gaussian_matches_dp_accounting() -> None:
    """The replace-one pair of Poisson sampling, (1-p) N(0) + p N(+-mu), against
    dp-accounting's REPLACE_ONE relation on the same events; it lies above the
    add-or-remove answer (two records move) and is symmetric."""
    p, sigma, n = 0.05, 1.0, 50
    m = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), "replace_one")
    assert m.is_symmetric and m.pairs == (m,)
    lo, hi = A.Numerical().compose(m, n).delta_bounds(np.array(EPS))
    event = dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(p, dpa.GaussianDpEvent(sigma)), n
    )
    ref = _dp_accounting(event, NR.REPLACE_ONE)
    assert np.all(lo <= ref + 1e-12)
    np.testing.assert_allclose(hi, ref, rtol=2e-3)
    aor = _dp_accounting(event, NR.ADD_OR_REMOVE_ONE)
    assert np.all(lo > aor)
    # p = 1: the Gaussian pair of effect size 2 mu (Dong et al. 2019, Cor. 2.13).
    full = M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=1.0), "replace_one")
    np.testing.assert_allclose(
        full.privacy_profile(np.array(EPS)),
        M.Gaussian(mu=2 / sigma).privacy_profile(np.array(EPS)),
        rtol=1e-9,
    )
