"""Smooth approximations of lattice and finite-atom losses: right or warned.

Every discrete law declares its lattice (``Mechanism.loss_lattice``) and every
accountant's error model adds the lattice floor. References are exact sums,
independent of the code under test: the composed law of a finite loss by
convolution of its atoms in mpmath (30 digits), keyed by the outcome counts
(randomized response, PMF pairs) or by the lattice index (discrete Gaussian and
Laplace, whose masses are summed from their definitions), and the profile
:math:`\\delta(\\varepsilon) = \\sum_j q_j (1 - e^{\\varepsilon - l_j})_+`.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import mpmath as mp
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from tests._tolerances import MP_DPS

#: A silent answer may be this far off (issue 32's bar).
SILENT_REL = 0.05
#: Query points.
EPS_POINTS = (0.5, 1.0, 2.0)
DELTA_POINTS = (1e-3, 1e-6)

#: A law: atoms (key, loss, P-mass); keys add under composition.
Atoms = tuple[tuple[tuple[int, ...], mp.mpf, mp.mpf], ...]


@dataclass(frozen=True)
class Law:
    name: str
    build: Callable[[], M.Mechanism]
    atoms: Callable[[], Atoms]


def _rr_atoms(eps: float, k: int) -> Atoms:
    e = mp.mpf(eps)
    z = mp.exp(e) + k - 1
    out = [((1, 0, 0), -e, mp.exp(e) / z), ((0, 1, 0), e, 1 / z)]
    if k > 2:
        out.append(((0, 0, 1), mp.mpf(0), mp.mpf(k - 2) / z))
    return tuple(out)


def _dg_atoms(sigma: float, s: int) -> Atoms:
    """Discrete Gaussian: x in [-R, R] (mass beyond below e^-80); key x."""
    s2 = mp.mpf(sigma) ** 2
    reach = math.ceil(13 * sigma) + s
    xs = range(-reach, reach + 1)
    w = [mp.exp(-(x**2) / (2 * s2)) for x in xs]
    norm = mp.fsum(w)
    return tuple(
        ((x,), (2 * s * x - s * s) / (2 * s2), wi / norm)
        for x, wi in zip(xs, w, strict=True)
    )


def _dl_atoms(a: float, s: int) -> Atoms:
    """Discrete Laplace: masses summed over x in [-R, R], keyed by the lattice
    index j of the loss -a s + 2 a j."""
    am = mp.mpf(a)
    reach = math.ceil(90 / a) + s
    xs = range(-reach, reach + 1)
    w = [mp.exp(-am * abs(x)) for x in xs]
    norm = mp.fsum(w)
    by_j: dict[int, mp.mpf] = {}
    for x, wi in zip(xs, w, strict=True):
        j = min(max(x, 0), s)  # L = a(|x| - |x - s|) = -a s + 2 a j
        by_j[j] = by_j.get(j, mp.mpf(0)) + wi / norm
    return tuple(((j,), -am * s + 2 * am * j, pj) for j, pj in sorted(by_j.items()))


PMF_P, PMF_Q = (0.5, 0.3, 0.2), (0.3, 0.3, 0.4)


def _pmf_atoms() -> Atoms:
    return tuple(
        (tuple(int(i == j) for i in range(3)), mp.log(mp.mpf(q) / p), mp.mpf(p))
        for j, (p, q) in enumerate(zip(PMF_P, PMF_Q, strict=True))
    )


LAWS = [
    Law("dgauss-1", lambda: M.DiscreteGaussian(sigma=1.0), lambda: _dg_atoms(1.0, 1)),
    Law("dgauss-2", lambda: M.DiscreteGaussian(sigma=2.0), lambda: _dg_atoms(2.0, 1)),
    Law("dlaplace-0.5", lambda: M.DiscreteLaplace(a=0.5), lambda: _dl_atoms(0.5, 1)),
    Law(
        "dlaplace-1-s2",
        lambda: M.DiscreteLaplace(a=1.0, sensitivity=2),
        lambda: _dl_atoms(1.0, 2),
    ),
    *(
        Law(
            f"rr-{k}",
            (lambda k=k: M.RandomizedResponse(eps=1.0, k=k)),
            (lambda k=k: _rr_atoms(1.0, k)),
        )
        for k in range(2, 11)
    ),
    Law("pmfs", lambda: M.from_pmfs(PMF_P, PMF_Q), _pmf_atoms),
]


@cache
def _composed(law: Law, n: int) -> tuple[tuple[mp.mpf, mp.mpf], ...]:
    """``(loss, Q-mass)`` of the n-fold composition, exactly (mpmath)."""
    with mp.workdps(MP_DPS):
        base = law.atoms()
        acc: dict[tuple[int, ...], tuple[mp.mpf, mp.mpf]] = {
            key: (l, p) for key, l, p in base
        }
        for _ in range(n - 1):
            nxt: dict[tuple[int, ...], tuple[mp.mpf, mp.mpf]] = {}
            for k1, (l1, p1) in acc.items():
                for k2, l2, p2 in base:
                    key = tuple(a + b for a, b in zip(k1, k2, strict=True))
                    old = nxt.get(key)
                    mass = p1 * p2
                    nxt[key] = (l1 + l2, mass if old is None else old[1] + mass)
            acc = nxt
        return tuple((l, p * mp.exp(l)) for l, p in acc.values())


def _exact_delta(law: Law, n: int, eps: float) -> float:
    with mp.workdps(MP_DPS):
        e = mp.mpf(eps)
        return float(
            mp.fsum(q * (1 - mp.exp(e - l)) for l, q in _composed(law, n) if l > e)
        )


def _exact_epsilon(law: Law, n: int, delta: float) -> float:
    """The root of the decreasing exact profile, by bisection to 1e-12."""
    lo, hi = 0.0, float(max(l for l, _ in _composed(law, n)))
    if _exact_delta(law, n, 0.0) <= delta:
        return 0.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _exact_delta(law, n, mid) > delta else (lo, mid)
    return 0.5 * (lo + hi)


ACCOUNTANTS = {
    "clt": A.CLT,
    "edgeworth4": lambda: A.Edgeworth(order=4),
    "saddlepoint3": lambda: A.SaddlePoint(order=3),
    "auto": A.Auto,
}


def _right_or_warned(query: Callable[[], float], truth: float) -> tuple[bool, bool]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ApproximationWarning)
        value = query()
    warned = any(issubclass(w.category, ApproximationWarning) for w in seen)
    right = abs(value - truth) <= SILENT_REL * abs(truth)
    return right, warned


@pytest.mark.parametrize("n", [1, 10])
@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
@pytest.mark.parametrize("method", sorted(ACCOUNTANTS))
def test_lattice_answers_are_right_or_warned(method: str, law: Law, n: int) -> None:
    curve = ACCOUNTANTS[method]().compose(law.build(), n)
    for e in EPS_POINTS:
        truth = _exact_delta(law, n, e)
        if truth < 1e-12:
            continue
        right, warned = _right_or_warned(lambda e=e: float(curve.delta(e)), truth)
        assert right or warned, f"delta({e}) silently off: truth {truth}"
        if method == "auto":
            assert right, f"Auto delta({e}) off: truth {truth}"
    for d in DELTA_POINTS:
        truth = _exact_epsilon(law, n, d)
        if truth <= 0.0:
            continue
        right, warned = _right_or_warned(lambda d=d: float(curve.epsilon(d)), truth)
        assert right or warned, f"epsilon({d}) silently off: truth {truth}"


def test_every_discrete_law_declares_its_lattice() -> None:
    """Spans from the definitions: the discrete Gaussian's L = (2 s x - s^2) /
    (2 sigma^2) steps by s / sigma^2; the discrete Laplace's by 2a; randomized
    response's by 2 eps (k = 2) or eps; a PMF pair off any lattice by its
    widest gap; swaps keep the base's; a Poisson-subsampled finite law has
    its own atoms'; a law with a density has none."""
    assert M.DiscreteGaussian(sigma=0.5, sensitivity=3).loss_lattice() == (
        pytest.approx(3 / 0.25)
    )
    assert M.DiscreteLaplace(a=0.7, sensitivity=2).loss_lattice() == pytest.approx(1.4)
    assert M.RandomizedResponse(eps=0.9, k=2).loss_lattice() == pytest.approx(1.8)
    assert M.RandomizedResponse(eps=0.9, k=5).loss_lattice() == pytest.approx(0.9)
    pmf = M.from_pmfs(PMF_P, PMF_Q)
    gaps = sorted(math.log(q / p) for p, q in zip(PMF_P, PMF_Q, strict=True))
    widest = max(b - a for a, b in itertools.pairwise(gaps))
    assert pmf.loss_lattice() == pytest.approx(widest)
    rr = M.RandomizedResponse(eps=0.9, k=5)
    assert rr.swapped().loss_lattice() == pytest.approx(0.9)
    # Subsampled at p: the atoms -0.9, 0, 0.9 map to log(1 - p + p e^l), off any
    # lattice, so the widest gap between neighbours.
    mapped = [math.log(0.9 + 0.1 * math.exp(l)) for l in (-0.9, 0.0, 0.9)]
    widest = max(b - a for a, b in itertools.pairwise(mapped))
    assert M.PoissonSubsampled(rr, p=0.1).loss_lattice() == pytest.approx(widest)
    # Two atoms lie on the lattice of their gap.
    rr2 = M.RandomizedResponse(eps=1.0, k=2)
    gap = math.log(0.99 + 0.01 * math.e) - math.log(0.99 + 0.01 / math.e)
    assert M.PoissonSubsampled(rr2, p=0.01).loss_lattice() == pytest.approx(gap)
    assert M.EpsilonDelta(eps=0.4, delta=1e-6).loss_lattice() == pytest.approx(0.8)
    assert M.Gaussian(mu=1.0).loss_lattice() is None
    assert M.SubsampledGaussian(sigma=1.0, p=0.1).loss_lattice() is None


def test_discrete_gaussian_single_release_is_warned_with_the_true_error_size() -> None:
    """Issue 32: DiscreteGaussian(sigma=1), n = 1. The smooth methods return the
    continuous-Gaussian answer; they must say so, with an error estimate within
    3x of the true error, and Auto must answer from the certified method."""
    law = LAWS[0]
    m = law.build()
    truth = _exact_delta(law, 1, 0.5)
    for make in (A.CLT, lambda: A.Edgeworth(order=4), lambda: A.SaddlePoint(order=3)):
        curve = make().compose(m, 1)
        with pytest.warns(ApproximationWarning):
            value = float(curve.delta(0.5))
        err = float(curve.delta_error(0.5))
        assert abs(value - truth) / 3 <= err <= 3 * abs(value - truth)
        with pytest.warns(ApproximationWarning):
            curve.epsilon(1e-6)
    auto = A.Auto().compose(m, 1)
    assert float(auto.delta(0.5)) == pytest.approx(truth, rel=1e-6)
    assert float(auto.epsilon(1e-6)) == pytest.approx(
        _exact_epsilon(law, 1, 1e-6), rel=1e-6
    )


@pytest.mark.parametrize("n", [1, 10])
@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
def test_exact_composes_finite_laws_to_the_exact_sums(law: Law, n: int) -> None:
    """Exact serves every finite law (binomial for two atoms, the multinomial
    sum by lattice convolution otherwise): equal to the mpmath sums."""
    curve = A.Exact().compose(law.build(), n)
    for e in EPS_POINTS:
        assert float(curve.delta(e)) == pytest.approx(
            _exact_delta(law, n, e), rel=1e-9, abs=1e-15
        )
    for d in DELTA_POINTS:
        assert float(curve.epsilon(d)) == pytest.approx(
            _exact_epsilon(law, n, d), rel=1e-9, abs=1e-9
        )


def test_exact_binomial_tail_of_large_pure_dp_compositions() -> None:
    """Randomized response with two buckets, n = 500: the binomial sum
    (Kairouz, Oh, Viswanath 2015, Thm 3.3) in mpmath, deep in the tail."""
    eps0, n = 0.3, 500
    curve = A.Exact().compose(M.RandomizedResponse(eps=eps0, k=2), n)
    with mp.workdps(MP_DPS):
        q = mp.exp(eps0) / (1 + mp.exp(eps0))
        for e in (10.0, 30.0):
            ref = mp.fsum(
                mp.binomial(n, j)
                * (q ** (n - j) * (1 - q) ** j - mp.exp(e) * q**j * (1 - q) ** (n - j))
                for j in range(n + 1)
                if eps0 * (n - 2 * j) > e
            )
            assert float(curve.delta(e)) == pytest.approx(float(ref), rel=1e-9)
