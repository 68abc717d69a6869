"""Random allocation: the certified bracket contains exact references."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.samplers import random_allocation
from tests.samplers import _exact

EPS = (0.1, 0.5, 1.0, 2.0)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_one_of_two_contains_quadrature(mu: float, direction: str) -> None:
    curve = random_allocation(M.Gaussian(mu=mu), t=2)
    pair = next(p.curve for p in curve.pairs if p.name == direction)
    lo, hi = pair.delta_bounds(np.array(EPS))
    exact = np.array([float(_exact.gaussian_one_of_two(mu, e, direction)) for e in EPS])
    assert np.all(lo <= exact) and np.all(exact <= hi), (lo, exact, hi)
    # Second-order discretisation at the default step: a narrow bracket (1%
    # relative in the far tail, delta ~ 1e-8, much less in the bulk).
    assert np.all(hi - lo <= 1e-2 * exact)


@pytest.mark.parametrize(
    ("eps0", "t", "epochs"), [(1.0, 3, 1), (0.5, 3, 2), (2.0, 4, 1)]
)
def test_randomized_response_contains_enumeration(
    eps0: float, t: int, epochs: int
) -> None:
    curve = random_allocation(M.PureDP(eps=eps0), t=t, epochs=epochs)
    atoms = _exact.compose(_exact.two_point_allocation(eps0, t), epochs)
    lo, hi = curve.delta_bounds(np.array(EPS))
    exact = np.array(_exact.both(atoms, EPS))
    assert np.all(lo <= exact) and np.all(exact <= hi), (lo, exact, hi)
    assert curve.lower_is_certified


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_laplace_one_of_two_contains_quadrature(direction: str) -> None:
    mu = 1.0
    curve = random_allocation(M.Laplace(mu=mu), t=2)
    pair = next(p.curve for p in curve.pairs if p.name == direction)
    eps = np.array([0.05, 0.2, 0.5])
    lo, hi = pair.delta_bounds(eps)
    exact = np.array([float(_exact.laplace_one_of_two(mu, e, direction)) for e in eps])
    assert np.all(lo <= exact) and np.all(exact <= hi), (lo, exact, hi)


def test_user_defined_pmfs_contain_enumeration() -> None:
    p, q = ("0.5", "0.3", "0.2"), ("0.2", "0.3", "0.5")
    m = M.from_pmfs([float(x) for x in p], [float(x) for x in q])
    curve = random_allocation(m, t=3, epochs=2)
    atoms = _exact.compose(_exact.finite_allocation(p, q, 3), 2)
    lo, hi = curve.delta_bounds(np.array(EPS))
    exact = np.array(_exact.both(atoms, EPS))
    assert np.all(lo <= exact) and np.all(exact <= hi), (lo, exact, hi)


def test_k_of_t_upper_end_bounds_the_scheme() -> None:
    # k > 1: the decomposition into k allocations of one of t/k steps is an upper
    # bound (Feldman & Shenfeld 2025), so its upper end bounds the exact scheme.
    curve = random_allocation(M.PureDP(eps=1.0), t=4, k=2)
    exact = np.array(_exact.both(_exact.two_point_allocation(1.0, 4, 2), EPS))
    _, hi = curve.delta_bounds(np.array(EPS))
    assert np.all(exact <= hi)
    assert not curve.lower_is_certified
    # ... and it is the composition of two allocations of one of two steps.
    two = random_allocation(M.PureDP(eps=1.0), t=2, epochs=2)
    np.testing.assert_allclose(
        curve.delta_bounds(np.array(EPS)), two.delta_bounds(np.array(EPS)), rtol=1e-12
    )


@pytest.mark.parametrize(("sigma", "t"), [(0.5, 10), (1.0, 100)])
def test_upper_end_is_above_the_max_coordinate_lower_bound(
    sigma: float, t: int
) -> None:
    # An independent certified lower bound (test sets {max_i x_i > C}); our
    # upper end must be above it, and it is nearly tight for small sigma.
    curve = random_allocation(M.Gaussian(sigma=sigma), t=t)
    remove = next(p.curve for p in curve.pairs if p.name == "remove")
    eps_hi = float(curve.epsilon_bounds(1e-5)[1])
    caps = np.arange(0.0, 8.0, 0.02)
    for eps in (0.5 * eps_hi, eps_hi):
        bound = float(_exact.max_coordinate_lower(sigma, t, eps, caps))
        hi = float(remove.delta_bounds(eps)[1])
        assert bound <= hi
        if sigma <= 0.5:
            assert bound >= 0.99 * hi


@pytest.mark.parametrize("epochs", [1, 3])
def test_one_step_is_the_plain_mechanism(epochs: int) -> None:
    curve = random_allocation(M.Gaussian(mu=1.0), t=1, epochs=epochs)
    exact = M.Gaussian(mu=math.sqrt(epochs)).privacy_profile(np.array(EPS))
    lo, hi = curve.delta_bounds(np.array(EPS))
    assert np.all(lo <= exact) and np.all(exact <= hi)


def test_between_plain_mechanism_and_near_poisson() -> None:
    # Allocation of one of t steps is at least as private as one step of the
    # mechanism alone (the other steps are post-processing); with Gaussian noise
    # it is more private than Poisson subsampling at rate 1/t over t steps
    # (arXiv 2602.17284) and approaches it as t grows (arXiv 2502.08202: rate
    # (1 + o(1))/t).
    sigma, delta = 1.0, 1e-5
    plain = A.Exact().compose(M.Gaussian(sigma=sigma), n=1).epsilon(delta)
    ratios = []
    for t in (64, 1024):
        _, hi = random_allocation(M.Gaussian(sigma=sigma), t=t).epsilon_bounds(delta)
        assert hi < plain
        sub = M.SubsampledGaussian(sigma=sigma, p=1 / t)
        p_lo, _ = A.Numerical().compose(sub, n=t).epsilon_bounds(delta)
        assert hi < p_lo
        ratios.append(hi / p_lo)
    assert ratios[0] < ratios[1] and ratios[1] > 0.9


def test_more_steps_more_privacy() -> None:
    eps = [
        random_allocation(M.Gaussian(sigma=1.0), t=t).epsilon_bounds(1e-5)
        for t in (4, 16, 64)
    ]
    assert eps[0][0] > eps[1][1] and eps[1][0] > eps[2][1]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"t": 0}, "t must"),
        ({"t": 4, "k": 5}, "k must"),
        ({"t": 4, "epochs": 0}, "epochs must"),
        ({"t": 4, "grid_step": 0.0}, "grid_step must"),
        ({"t": 4, "grid_step": math.nan}, "grid_step"),
        ({"t": 4, "tail_mass": 1.0}, "tail_mass must"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        random_allocation(M.Gaussian(mu=1.0), **kwargs)  # type: ignore[arg-type]


def test_queries_validate_and_keep_shapes() -> None:
    curve = random_allocation(M.Gaussian(mu=1.0), t=4)
    lo, hi = curve.epsilon_bounds(1e-5)
    assert isinstance(lo, float) and isinstance(hi, float) and 0.0 < lo <= hi
    lo_a, hi_a = curve.delta_bounds([[0.5, 1.0]])
    assert lo_a.shape == hi_a.shape == (1, 2) and np.all(lo_a <= hi_a)
    with pytest.raises(ValueError, match="delta must lie in"):
        curve.epsilon_bounds(1.0)
    with pytest.raises(ValueError, match="eps must"):
        curve.delta_bounds(math.nan)
    with pytest.raises(TypeError, match="eps"):
        curve.delta_bounds("1.0")


def test_not_a_mechanism_or_blatant() -> None:
    with pytest.raises(TypeError, match="mechanism"):
        random_allocation("gaussian", t=4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="blatant"):
        random_allocation(M.EpsilonDelta(eps=1.0, delta=1e-3), t=4)
