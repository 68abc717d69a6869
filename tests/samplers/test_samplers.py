"""Every sampler with a Gaussian, a Laplace, a discrete Gaussian and a
user-defined density inside: the certified bracket contains a reference
computed here from the noise densities (direct integration or sums over the
output space, binomial weights from their definitions), never from the code
under test."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from symfdp import mechanisms as M
from symfdp import samplers as S
from symfdp.mechanisms.base import Mechanism

#: Absolute error allowed to the quadrature references.
ATOL_QUAD = 1e-10
EPS = (0.2, 0.8, 1.5)

_x, _mu = sp.symbols("x mu", real=True)
_GG_C = 1.0 / (2 * math.gamma(1 + 1 / 1.5))


def _gg_expr(shift: float) -> sp.Expr:
    return sp.Float(_GG_C) * sp.exp(-(sp.Abs(_x - shift) ** sp.Rational(3, 2)))


def _gg_pair(s: int) -> Mechanism:
    return M.from_densities(_gg_expr(0), _gg_expr(float(s)), _x, budget=0)


@dataclass(frozen=True)
class Noise:
    """A location family written out here: the density of the noise (or its
    PMF on the integers) and the mechanism that describes it."""

    name: str
    mechanism: Mechanism
    density: Callable[[float], float]
    lattice: bool = False
    scale: Callable[[int], Mechanism] | None = None

    def hockey(self, r: float, s: int, eps: float, direction: str) -> float:
        """delta of the add pair ``(f, (1-r) f + r f(. - s))`` (``add``) or its
        swap (``remove``) at ``eps``."""
        f, c = self.density, math.exp(eps)

        def g(x: float) -> float:
            p, q = f(x), (1 - r) * f(x) + r * f(x - s)
            return max(q - c * p, 0.0) if direction == "add" else max(p - c * q, 0.0)

        if self.lattice:
            return math.fsum(g(float(k)) for k in range(-80, 81))
        total = 0.0
        for a, b in ((-math.inf, -1.0), (-1.0, 0.0), (0.0, s / 2), (s / 2, s),
                     (s, s + 1.0), (s + 1.0, math.inf)):  # fmt: skip
            val, _ = integrate.quad(g, a, b, epsabs=1e-13, epsrel=1e-12, limit=200)
            total += val
        return total


_DG_SIGMA = 1.5
_DG_Z = math.fsum(math.exp(-(k**2) / (2 * _DG_SIGMA**2)) for k in range(-200, 201))

NOISES = (
    Noise(
        "gaussian",
        M.Gaussian(mu=1.0),
        lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi),
    ),
    Noise("laplace", M.Laplace(mu=1.0), lambda x: math.exp(-abs(x)) / 2),
    Noise(
        "discrete-gaussian",
        M.DiscreteGaussian(sigma=_DG_SIGMA),
        lambda x: math.exp(-(x**2) / (2 * _DG_SIGMA**2)) / _DG_Z,
        lattice=True,
    ),
    Noise(
        "user-generalised-gaussian",
        _gg_pair(1),
        lambda x: _GG_C * math.exp(-(abs(x) ** 1.5)),
        scale=_gg_pair,
    ),
)


def _both(noise: Noise, r: float, s: int, eps: float) -> float:
    return max(noise.hockey(r, s, eps, d) for d in ("add", "remove"))


def _binom(n: int, k: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


def _truncated(noise: Noise, sampler: S.TruncatedPoisson, eps: float) -> float:
    """(1 - tau) Poisson + sum over K >= B of P(K) (replacement at rate
    qB/(K+1)), per direction, from the definition (the case K revealed)."""
    n, b, q = sampler.population, sampler.max_batch, sampler.rate
    ws = [(_binom(n - 1, k, q), q * b / (k + 1)) for k in range(b, n)]
    tau = math.fsum(w for w, _ in ws)
    return max(
        (1 - tau) * noise.hockey(q, 1, eps, d)
        + math.fsum(w * noise.hockey(r, 2, eps, d) for w, r in ws)
        for d in ("add", "remove")
    )


def _with_replacement(noise: Noise, sampler: S.FixedBatch, eps: float) -> float:
    b, n = sampler.batch_size, sampler.population
    return max(
        math.fsum(
            _binom(b, k, 1 / n) * noise.hockey(1.0, 2 * k, eps, d)
            for k in range(1, b + 1)
        )
        for d in ("add", "remove")
    )


CASES: dict[str, tuple[S.Sampler, Callable[[Noise, float], float]]] = {
    "none": (S.NoAmplification(), lambda nz, e: _both(nz, 1.0, 1, e)),
    "poisson": (S.Poisson(0.3), lambda nz, e: _both(nz, 0.3, 1, e)),
    # Three steps in three groups: each record is seen in one of them.
    "cyclic-poisson": (S.CyclicPoisson(0.3, 3), lambda nz, e: _both(nz, 0.3, 1, e)),
    "truncated-poisson": (
        S.TruncatedPoisson(0.4, 2, 6),
        lambda nz, e: _truncated(nz, S.TruncatedPoisson(0.4, 2, 6), e),
    ),
    "fixed-batch": (S.FixedBatch(2, 5), lambda nz, e: _both(nz, 0.4, 2, e)),
    "fixed-batch-replacement": (
        S.FixedBatch(3, 4, replacement=True),
        lambda nz, e: _with_replacement(nz, S.FixedBatch(3, 4, replacement=True), e),
    ),
}


#: Cases over ~2 s: a user density at sensitivity 2 is compiled afresh.
_SLOW = {"truncated-poisson", "fixed-batch", "fixed-batch-replacement"}
_ONE_STEP = [
    pytest.param(
        noise,
        name,
        id=f"{name}-{noise.name}",
        marks=[pytest.mark.slow] if noise.scale is not None and name in _SLOW else [],
    )
    for name in CASES
    for noise in NOISES
]


@pytest.mark.parametrize(("noise", "name"), _ONE_STEP)
def test_one_step_bracket_contains_reference(noise: Noise, name: str) -> None:
    sampler, reference = CASES[name]
    steps = getattr(sampler, "cycle_length", 1)
    got = S.account_sampler(
        noise.mechanism, sampler, steps=steps, at_sensitivity=noise.scale
    )
    assert got.certified
    lo, hi = got.curve.delta_bounds(np.array(EPS))
    ref = np.array([reference(noise, e) for e in EPS])
    assert np.all(lo <= ref + ATOL_QUAD), (lo, ref)
    assert np.all(ref <= hi + ATOL_QUAD), (ref, hi)
    # Informative as well as valid: one step of a law with atoms (lattice
    # losses, the null outcome of a mixture) keeps the engine's rounding width
    # (up to 7 per cent: Laplace pairs at sensitivities 2, 4, 6 mixed, each
    # with atoms at its ends); smooth laws are within 0.3 per cent.
    assert np.all(hi - lo <= 0.07 * ref + 1e-8)


@pytest.mark.parametrize("noise", NOISES, ids=lambda n: n.name)
def test_two_steps_compose_the_same_pairs(noise: Noise) -> None:
    """Two steps of Poisson: delta of the composition is the exact double sum
    (discrete) or a 2-d quadrature replaced by the composed one-step bracket's
    monotone bound: delta_2(eps) >= delta_1(eps) for every sampler."""
    one = S.account_sampler(noise.mechanism, S.Poisson(0.3), steps=1)
    two = S.account_sampler(noise.mechanism, S.Poisson(0.3), steps=2)
    e = np.array(EPS)
    assert np.all(two.curve.delta_bounds(e)[1] >= one.curve.delta_bounds(e)[0])


def test_guarantees_are_typed_and_bound_the_run() -> None:
    g = M.Gaussian(mu=1.0)
    up = S.account_sampler(g, S.FixedBatch(10, 1000), steps=5)
    assert up.guarantee is S.Guarantee.UPPER
    lo, hi = up.epsilon_bounds(1e-5)
    assert lo == 0.0 and hi == up.pair_bounds(1e-5)[1]
    sh = S.account_sampler(g, S.Shuffle(10, 100), steps=20)
    assert sh.guarantee is S.Guarantee.LOWER
    lo, hi = sh.epsilon_bounds(1e-5)
    assert hi == math.inf and lo == sh.pair_bounds(1e-5)[0]
    assert "Poisson numbers do not hold" in sh.statement
    assert "lower bound" in sh.statement
    two = S.account_sampler(g, S.Poisson(0.01), steps=5)
    assert two.guarantee is S.Guarantee.TWO_SIDED
    assert two.epsilon_bounds(1e-5) == two.pair_bounds(1e-5)


def test_random_allocation_record_serves_the_certified_curve() -> None:
    from tests.samplers._exact import gaussian_one_of_two

    got = S.account_sampler(M.Gaussian(mu=1.0), S.RandomAllocation(2), steps=2)
    assert got.guarantee is S.Guarantee.TWO_SIDED
    lo, hi = got.delta_bounds(np.array([0.3]))
    ref = max(float(gaussian_one_of_two(1.0, 0.3, d)) for d in ("add", "remove"))
    assert lo <= ref <= hi
    assert S.RandomAllocation(4, k=2).guarantee is S.Guarantee.UPPER


def test_analytic_accountant_serves_compositions_with_error_estimates() -> None:
    from symfdp import accountants as A

    g = M.Gaussian(mu=0.8)
    est = S.account_sampler(g, S.Poisson(0.05), steps=400, accountant=A.SaddlePoint())
    cert = S.account_sampler(g, S.Poisson(0.05), steps=400)
    assert not est.certified
    lo, hi = cert.epsilon_bounds(1e-5)
    e, err = float(est.epsilon(1e-5)), float(est.epsilon_error(1e-5))
    assert abs(e - (lo + hi) / 2) <= max(err, hi - lo) + 0.05 * hi
    with pytest.raises(ValueError, match="gives estimates"):
        est.epsilon_bounds(1e-5)
    with pytest.raises(ValueError, match="cannot serve shuffle"):
        S.account_sampler(g, S.Shuffle(5, 10), steps=2, accountant=A.SaddlePoint())


@pytest.mark.parametrize(
    ("build", "param"),
    [
        (lambda: S.Poisson(0.0), "rate"),
        (lambda: S.Poisson(float("nan")), "rate"),
        (lambda: S.Poisson(1.5), "rate"),
        (lambda: S.TruncatedPoisson(0.1, 0, 10), "max_batch"),
        (lambda: S.TruncatedPoisson(0.1, 11, 10), "max_batch"),
        (lambda: S.TruncatedPoisson(0.1, 2, 0), "population"),
        (lambda: S.FixedBatch(11, 10), "batch_size"),
        (lambda: S.FixedBatch(0, 10, replacement=True), "batch_size"),
        (lambda: S.FixedBatch(2, -1), "population"),
        (lambda: S.RandomAllocation(0), "steps"),
        (lambda: S.RandomAllocation(3, k=4), "k"),
        (lambda: S.Shuffle(3, 10), "population"),
        (lambda: S.Shuffle(0, 10), "batch_size"),
        (lambda: S.CyclicPoisson(0.1, 0), "cycle_length"),
        (lambda: S.CyclicPoisson(-0.1, 2), "rate"),
    ],
)
def test_bad_input_names_the_parameter(build: Callable[[], object], param: str) -> None:
    with pytest.raises(ValueError, match=param):
        build()


def test_bad_run_names_the_parameter() -> None:
    g = M.Gaussian(mu=1.0)
    with pytest.raises(ValueError, match="steps"):
        S.account_sampler(g, S.RandomAllocation(3), steps=4)
    with pytest.raises(ValueError, match="steps"):
        S.account_sampler(g, S.Poisson(0.1), steps=0)
    with pytest.raises(ValueError, match="at_sensitivity"):
        S.account_sampler(_gg_pair(1), S.FixedBatch(2, 10), steps=1)
    with pytest.raises(ValueError, match="sampler must be one of"):
        S.sampler_for("reservoir", S.RunShape(steps=1))
    with pytest.raises(ValueError, match="dataset_size"):
        S.sampler_for("shuffle", S.RunShape(steps=1, sample_rate=0.1))
    with pytest.raises(TypeError, match="sampler"):
        S.account_sampler(g, "poisson", steps=1)  # type: ignore[arg-type]


def test_registry_is_derived_from_the_classes() -> None:
    names = S.sampler_names()
    assert len(names) == len(set(names))
    for cls in S.sampler_classes():
        assert set(cls.NAMES) <= set(names)
    shape = S.RunShape(
        steps=100, batch_size=10, dataset_size=100, max_batch=12, cycle_length=2
    )
    for name in names:
        assert S.sampler_for(name, shape).name == name
