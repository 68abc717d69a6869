"""PairMixture: the loss law of a disjoint mixture is the mixture of the laws,
so one step's delta(eps) is the weighted sum of the components' profiles
(closed forms here: the Gaussian profile of Dong et al. 2019, Cor. 2.13)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.mechanisms.pair_mixture import PairMixture


def _gauss_delta(mu: float, eps: float) -> float:
    return float(
        special.ndtr(-eps / mu + mu / 2)
        - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
    )


@given(
    w=st.lists(st.floats(0.05, 1.0), min_size=1, max_size=3),
    null=st.floats(0.0, 0.5),
    eps=st.floats(0.0, 3.0),
)
def test_profile_is_the_weighted_sum(w: list[float], null: float, eps: float) -> None:
    mus = (0.5, 1.5, 3.0)[: len(w)]
    total = sum(w) / (1 - null)
    weights = tuple(x / total for x in w)
    m = PairMixture(
        tuple(M.Gaussian(mu=mu) for mu in mus),
        weights,
        null_weight=1.0 - math.fsum(weights),
    )
    want = math.fsum(
        x * _gauss_delta(mu, eps) for x, mu in zip(weights, mus, strict=True)
    )
    assert float(m.privacy_profile(eps)) == pytest.approx(want, rel=1e-10, abs=1e-15)


def test_certified_bracket_of_one_step_contains_the_sum() -> None:
    m = PairMixture((M.Gaussian(mu=1.0), M.Gaussian(mu=4.0)), (0.7, 0.2), 0.1)
    eps = np.array([0.1, 1.0, 3.0])
    lo, hi = A.Numerical().compose(m, 1).delta_bounds(eps)
    want = np.array(
        [0.7 * _gauss_delta(1.0, e) + 0.2 * _gauss_delta(4.0, e) for e in eps]
    )
    assert np.all(lo <= want) and np.all(want <= hi)


def test_swap_mixes_the_swapped_pairs() -> None:
    add = M.PoissonSubsampled(M.Gaussian(mu=1.0), p=0.3).with_pair("add")
    m = PairMixture((add,), (0.6,), null_weight=0.4)
    eps = np.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(
        m.swapped().privacy_profile(eps), 0.6 * add.swapped().privacy_profile(eps),
        rtol=1e-12,
    )  # fmt: skip
    assert not m.is_symmetric


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"components": (), "weights": ()}, "components"),
        ({"components": (M.Gaussian(mu=1.0),), "weights": (0.5, 0.5)}, "weights"),
        ({"components": (M.Gaussian(mu=1.0),), "weights": (0.5,)}, "sum to 1"),
        ({"components": (M.Gaussian(mu=1.0),), "weights": (1.5,)}, "weights"),
        ({"components": (M.Gaussian(mu=1.0),), "weights": (float("nan"),)}, "weights"),
        ({"components": (M.SubsampledGaussian(mu=1.0, p=0.1),), "weights": (1.0,)},
         "single pairs"),
    ],
)  # fmt: skip
def test_bad_input_names_the_parameter(kwargs: dict, param: str) -> None:
    with pytest.raises(ValueError, match=param):
        PairMixture(**kwargs)
