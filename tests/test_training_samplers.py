"""TrainingAccountant(sampler=...): the training loop under any batch sampler."""

from __future__ import annotations

import json
import math

import pytest

from symfdp import TrainingAccountant
from symfdp import mechanisms as M
from symfdp import samplers as S


def test_random_allocation_matches_the_sampler_api() -> None:
    acc = TrainingAccountant(sampler=S.RandomAllocation(50))
    acc.step(noise_multiplier=1.0, num_steps=60)
    acc.step(noise_multiplier=1.0, num_steps=40)
    ref = S.account_sampler(M.Gaussian(sigma=1.0), S.RandomAllocation(50), steps=100)
    assert acc.get_epsilon_bounds(1e-5) == tuple(map(float, ref.epsilon_bounds(1e-5)))
    assert acc.guarantee is S.Guarantee.TWO_SIDED
    assert acc.history == ((1.0, None, 100),)
    with pytest.raises(ValueError, match="mu"):
        acc.get_mu()


def test_shuffle_answers_one_sided() -> None:
    acc = TrainingAccountant(sampler=S.Shuffle(10, 100))
    acc.step(noise_multiplier=1.0, num_steps=20)
    lo, hi = acc.get_epsilon_bounds(1e-5)
    assert hi == math.inf and lo > 0
    assert acc.get_epsilon(1e-5) == lo
    assert acc.guarantee is S.Guarantee.LOWER
    assert 0 < acc.get_delta(lo) <= 1


def test_poisson_sampler_equals_the_poisson_accountant_with_mixed_noise() -> None:
    plain = TrainingAccountant()
    sampled = TrainingAccountant(sampler=S.Poisson(0.02))
    for sigma, k in ((1.2, 300), (0.9, 200)):
        plain.step(noise_multiplier=sigma, sample_rate=0.02, num_steps=k)
        sampled.step(noise_multiplier=sigma, num_steps=k)
    assert sampled.get_epsilon_bounds(1e-5) == pytest.approx(
        plain.get_epsilon_bounds(1e-5), rel=1e-9
    )


def test_epoch_sampler_refuses_mixed_noise() -> None:
    acc = TrainingAccountant(sampler=S.RandomAllocation(10))
    acc.step(noise_multiplier=1.0, num_steps=10)
    acc.step(noise_multiplier=2.0, num_steps=10)
    with pytest.raises(ValueError, match="one noise multiplier"):
        acc.get_epsilon(1e-5)


def test_state_round_trip_keeps_the_sampler() -> None:
    acc = TrainingAccountant(sampler=S.FixedBatch(8, 400, replacement=True))
    acc.step(noise_multiplier=1.5, num_steps=30)
    state = json.loads(json.dumps(acc.state_dict()))
    assert state["version"] == 3
    back = TrainingAccountant.from_state_dict(state)
    assert back.sampler == acc.sampler
    assert back.get_epsilon_bounds(1e-5) == acc.get_epsilon_bounds(1e-5)
    assert TrainingAccountant().state_dict()["version"] == 2


@pytest.mark.parametrize(
    ("make", "param"),
    [
        (lambda: TrainingAccountant(sampler="poisson"), "sampler"),
        (lambda: TrainingAccountant(sampler=S.Poisson(0.1), adjacency="add"),
         "adjacency"),
    ],
)  # fmt: skip
def test_bad_construction_names_the_parameter(make, param) -> None:
    with pytest.raises((TypeError, ValueError), match=param):
        make()


def test_step_rate_belongs_to_the_sampler() -> None:
    acc = TrainingAccountant(sampler=S.Poisson(0.1))
    with pytest.raises(ValueError, match="sample_rate"):
        acc.step(noise_multiplier=1.0, sample_rate=0.1)
    with pytest.raises(TypeError, match="sample_rate"):
        TrainingAccountant().step(noise_multiplier=1.0)


def test_cyclic_poisson_sees_each_record_in_its_group_only() -> None:
    cyclic = TrainingAccountant(sampler=S.CyclicPoisson(0.04, 4))
    cyclic.step(noise_multiplier=1.0, num_steps=401)
    poisson = TrainingAccountant(sampler=S.Poisson(0.04))
    poisson.step(noise_multiplier=1.0, num_steps=101)
    assert cyclic.get_epsilon_bounds(1e-5) == poisson.get_epsilon_bounds(1e-5)
    # The sampler-free accountant builds the same law as SubsampledGaussian, whose
    # grid differs: the two certified brackets agree far inside their width.
    plain = TrainingAccountant()
    plain.step(noise_multiplier=1.0, sample_rate=0.04, num_steps=101)
    lo, hi = plain.get_epsilon_bounds(1e-5)
    assert cyclic.get_epsilon_bounds(1e-5) == pytest.approx((lo, hi), rel=1e-8)
