"""PairMixture: the w-mixture of dominating pairs, against closed forms."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symfdp import mechanisms as M
from symfdp.mechanisms.pair_mixture import PairMixture, pair_mixture

W = (0.7, 0.3)
MUS = (0.5, 2.0)


def _mix() -> PairMixture:
    return PairMixture(
        tuple((w, M.Gaussian(mu=m)) for w, m in zip(W, MUS, strict=True))
    )


def test_profile_is_the_weighted_sum_of_gaussian_profiles() -> None:
    # delta_G(mu)(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
    eps = np.array([0.0, 0.5, 2.0])
    exact = [
        sum(
            w
            * float(
                mpmath.ncdf(-e / m + m / 2)
                - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            )
            for w, m in zip(W, MUS, strict=True)
        )
        for e in eps
    ]
    assert np.allclose(_mix().privacy_profile(eps), exact, rtol=1e-12, atol=0)


def test_cumulants_and_cgf_match_the_mixture_of_normals() -> None:
    # L under P for Gaussian(mu) is N(-mu^2/2, mu^2): raw moments of the mixture.
    mpmath.mp.dps = 30
    raw = [
        sum(
            w
            * mpmath.quad(
                lambda x, m=m, k=k: x**k * mpmath.npdf(x, -m * m / 2, m),
                [-mpmath.inf, mpmath.inf],
            )
            for w, m in zip(W, MUS, strict=True)
        )
        for k in range(1, 5)
    ]
    m1, m2, m3, m4 = raw
    k2 = m2 - m1**2
    k3 = m3 - 3 * m2 * m1 + 2 * m1**3
    k4 = m4 - 4 * m3 * m1 - 3 * m2**2 + 12 * m2 * m1**2 - 6 * m1**4
    got = _mix().cumulants(4)
    assert np.allclose(got, [float(v) for v in (m1, k2, k3, k4)], rtol=1e-10)
    t = 0.3
    k_exact = math.log(
        sum(w * math.exp(m * m * t * (t - 1) / 2) for w, m in zip(W, MUS, strict=True))
    )
    assert float(_mix().cgf(t)) == pytest.approx(k_exact, rel=1e-13)


def test_swapped_and_symmetry() -> None:
    mix = _mix()
    assert mix.is_symmetric
    eps = np.array([0.1, 1.0])
    assert np.allclose(mix.swapped().privacy_profile(eps), mix.privacy_profile(eps))


@pytest.mark.parametrize(
    ("components", "match"),
    [
        ((), "at least one"),
        (((0.5, M.Gaussian(mu=1.0)),), "sum to 1"),
        (((-0.5, M.Gaussian(mu=1.0)), (1.5, M.Gaussian(mu=1.0))), "positive"),
        (((1.0, M.SubsampledGaussian(p=0.1, mu=1.0)),), "one dominating pair"),
    ],
)
def test_bad_components(components, match) -> None:
    with pytest.raises(ValueError, match=match):
        PairMixture(components)


def test_single_component_is_returned_as_is() -> None:
    g = M.Gaussian(mu=1.0)
    assert pair_mixture([1.0, 0.0], [g, M.Gaussian(mu=3.0)]) is g


@settings(max_examples=25, deadline=None)
@given(
    parts=st.lists(
        st.tuples(st.floats(0.05, 1.0), st.floats(0.1, 3.0)), min_size=2, max_size=4
    ),
    eps=st.floats(-1.0, 3.0),
    t=st.floats(-1.5, 2.5),
)
def test_mixture_of_gaussians_laws(parts, eps, t) -> None:
    total = sum(w for w, _ in parts)
    comps = tuple((w / total, M.Gaussian(mu=m)) for w, m in parts)
    mix = PairMixture(comps)
    with mpmath.workdps(30):
        want = mpmath.fsum(
            w * (mpmath.ncdf(-eps / m.mu + m.mu / 2)
                 - mpmath.exp(eps) * mpmath.ncdf(-eps / m.mu - m.mu / 2))
            for w, m in comps
        )  # fmt: skip
        k_want = mpmath.log(
            mpmath.fsum(w * mpmath.exp(m.mu**2 * t * (t - 1) / 2) for w, m in comps)
        )
    assert float(mix.privacy_profile(eps)) == pytest.approx(
        float(want), rel=1e-9, abs=1e-15
    )
    assert float(mix.cgf(t)) == pytest.approx(float(k_want), rel=1e-12, abs=1e-14)
