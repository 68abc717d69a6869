"""Replace-one neighbours mean the same for every mechanism.

A shift family's shift doubles (a replaced record moves the output by twice
the sensitivity), a guarantee family is its own replace-one pair, Poisson
subsampling has its own mixture pair (continuous in the sample rate: ``p -> 1``
gives the plain mechanism's replace-one answer), and a user pair is refused
with a message naming what serves. Peers: dp-accounting's ``REPLACE_ONE``
relation (Gaussian, subsampled Gaussian) and its Laplace PLD at sensitivity 2;
independent quadrature (mpmath) of the replace-one subsampled Laplace profile.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from tests._tolerances import MP_DPS

DELTA = 1e-5
N = 10


def _eps(m: M.Mechanism, adjacency: str = "replace_one") -> float:
    return float(A.Numerical().compose(m, N, adjacency=adjacency).epsilon(DELTA))


@pytest.mark.parametrize(
    ("plain", "doubled"),
    [
        (M.Gaussian(mu=0.5), M.Gaussian(mu=1.0)),
        (M.Laplace(mu=0.5), M.Laplace(mu=1.0)),
        (M.DiscreteGaussian(sigma=2.0), M.DiscreteGaussian(sigma=2.0, sensitivity=2)),
        (M.DiscreteLaplace(a=0.4), M.DiscreteLaplace(a=0.4, sensitivity=2)),
    ],
    ids=repr,
)
def test_a_shift_family_doubles_its_shift(
    plain: M.Mechanism, doubled: M.Mechanism
) -> None:
    assert M.with_adjacency(plain, "replace_one") == doubled
    assert _eps(plain) == _eps(doubled, "add_or_remove")


@pytest.mark.parametrize(
    "m",
    [
        M.PureDP(eps=0.7),
        M.RandomizedResponse(eps=0.7, k=4),
        M.EpsilonDelta(eps=0.7, delta=1e-7),
    ],
    ids=repr,
)
def test_a_guarantee_family_is_its_own_replace_one_pair(m: M.Mechanism) -> None:
    assert M.with_adjacency(m, "replace_one") is m


def test_the_issue_case_no_longer_answers_the_add_remove_value() -> None:
    """Issue 32: Gaussian(mu=0.5) under replace-one answered the add/remove
    7.5115; replace-one is the doubled shift, dp-accounting's 17.8566."""
    dpa = pytest.importorskip("dp_accounting")
    rel = dpa.NeighboringRelation.REPLACE_ONE
    pld = dpa.pld.privacy_loss_distribution.from_gaussian_mechanism(
        2.0, value_discretization_interval=1e-4, neighboring_relation=rel
    ).self_compose(N)
    got = _eps(M.Gaussian(mu=0.5))
    assert got == pytest.approx(pld.get_epsilon_for_delta(DELTA), rel=2e-3)
    assert got > 2 * _eps(M.Gaussian(mu=0.5), "add_or_remove")


@pytest.mark.parametrize("p", [1.0, 0.5, 0.05])
def test_subsampled_gaussian_replace_one_matches_dp_accounting(p: float) -> None:
    dpa = pytest.importorskip("dp_accounting")
    rel = dpa.NeighboringRelation.REPLACE_ONE
    pld = dpa.pld.privacy_loss_distribution.from_gaussian_mechanism(
        2.0, value_discretization_interval=1e-4, sampling_prob=p,
        neighboring_relation=rel,
    ).self_compose(N)  # fmt: skip
    got = _eps(M.SubsampledGaussian(sigma=2.0, p=p))
    assert got == pytest.approx(pld.get_epsilon_for_delta(DELTA), rel=2e-3)


def test_replace_one_laplace_matches_dp_accounting_at_twice_the_sensitivity() -> None:
    dpa = pytest.importorskip("dp_accounting")
    pld = dpa.pld.privacy_loss_distribution.from_laplace_mechanism(
        2.0, sensitivity=2.0, value_discretization_interval=1e-4
    ).self_compose(N)
    got = _eps(M.Laplace(mu=0.5))
    assert got == pytest.approx(pld.get_epsilon_for_delta(DELTA), rel=2e-3)


@pytest.mark.parametrize(
    ("plain", "sampled"),
    [
        (M.Gaussian(mu=0.5), lambda p: M.SubsampledGaussian(sigma=2.0, p=p)),
        (M.Laplace(mu=0.5), lambda p: M.SubsampledLaplace(mu=0.5, p=p)),
        (
            M.RandomizedResponse(eps=0.8, k=3),
            lambda p: M.PoissonSubsampled(M.RandomizedResponse(eps=0.8, k=3), p=p),
        ),
    ],
    ids=["gaussian", "laplace", "randomized-response"],
)
def test_replace_one_is_continuous_in_the_sample_rate(plain, sampled) -> None:  # type: ignore[no-untyped-def]
    """``p = 1`` is the plain mechanism's replace-one answer and ``p -> 1``
    approaches it from below (a family without a mixture pair refuses
    ``p < 1`` clearly)."""
    want = _eps(plain)
    assert _eps(sampled(1.0)) == want
    try:
        near = _eps(sampled(1.0 - 1e-4))
        far = _eps(sampled(0.9))
    except ValueError as exc:
        assert "SubsampledGaussian and SubsampledLaplace" in str(exc)
        return
    assert far < near <= want * (1 + 1e-6)
    assert near == pytest.approx(want, rel=1e-3)


def test_subsampled_laplace_replace_one_profile_against_quadrature() -> None:
    """delta(eps) of one step, (q - e^eps p)_+ integrated by mpmath (30 digits)
    between the kinks of P = (1-p) Lap(0) + p Lap(mu), Q = (1-p) Lap(0) + p
    Lap(-mu) and the crossing q = e^eps p: inside the certified bracket, and
    the pair's own profile equal to it."""
    p, mu = 0.3, 1.2

    def dens(x: mp.mpf, shift: float) -> mp.mpf:
        return ((1 - p) * mp.exp(-abs(x)) + p * mp.exp(-abs(x - shift))) / 2

    m = M.with_adjacency(M.SubsampledLaplace(mu=mu, p=p), "replace_one")
    curve = A.Numerical().compose(m, 1)
    with mp.workdps(MP_DPS):
        for eps in (0.0, 0.2, 0.5):
            gap = lambda x, e=eps: dens(x, -mu) - mp.exp(e) * dens(x, mu)  # noqa: E731
            cross = mp.findroot(gap, (-mu + 1e-9, mu - 1e-9), solver="bisect")
            cuts = sorted([-80, -mu, 0, mu, 80, cross])
            ref = float(mp.quad(lambda x, g=gap: max(g(x), 0), cuts))
            lo, hi = curve.delta_bounds(eps)
            assert lo <= ref <= hi
            assert float(m.privacy_profile(eps)) == pytest.approx(ref, rel=1e-10)


def test_user_pairs_and_sampled_pairs_without_a_mixture_refuse_clearly() -> None:
    pmf = M.from_pmfs([0.6, 0.4], [0.3, 0.7])
    with pytest.raises(ValueError, match=r"does not say how replacing a record"):
        A.Numerical().compose(pmf, 3, adjacency="replace_one")
    rr = M.PoissonSubsampled(M.RandomizedResponse(eps=0.8, k=3), p=0.5)
    with pytest.raises(ValueError, match=r"SubsampledGaussian and SubsampledLaplace"):
        A.Numerical().compose(rr, 3, adjacency="replace_one")


def test_events_take_the_relation_through_compose() -> None:
    """``compose(event, adjacency="replace_one")`` applies the relation (it was
    ignored for events)."""
    dpa = pytest.importorskip("dp_accounting")
    event = dpa.GaussianDpEvent(2.0)
    got = A.Numerical().compose(event, N, adjacency="replace_one").epsilon(DELTA)
    np.testing.assert_allclose(got, _eps(M.Gaussian(mu=0.5)), rtol=1e-12)
