"""Every ``DpEvent`` class of the installed dp-accounting: served or refused by name.

The classes are enumerated from ``dp_accounting.dp_event``. A served event's
certified bracket (``A.Numerical``) is checked against an independent value:
dp-accounting's own PLD accountant at a fine discretisation where it serves the
event (its pessimistic epsilon lies above the exact one and at most ``n``
discretisation steps above it, so it lies in ``[lower, upper + n h]``), or an
mpmath sum/integral of the pair's hockey-stick divergence at ``n = 1`` where it
does not (fixed batches; dp-accounting's RDP bound uses another sensitivity
convention under replace-one, so it is no bracket for these pairs).
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import mpmath
import pytest

dpa = pytest.importorskip("dp_accounting")

from dp_accounting import dp_event as de  # noqa: E402
from dp_accounting import privacy_accountant  # noqa: E402
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant  # noqa: E402

from symfdp import accountants as A  # noqa: E402
from symfdp.interop import (  # noqa: E402
    NonPrivateEventError,
    UnsupportedEventError,
    from_dp_event,
)
from symfdp.interop.dp_events import refusal_reason, served_event_names  # noqa: E402
from symfdp.mechanisms.truncated_poisson import truncation_odds  # noqa: E402

NR = privacy_accountant.NeighboringRelation
mpmath.mp.dps = 30

#: Every event class of the installed library.
EVENT_CLASSES = sorted(
    (c for c in vars(de).values() if inspect.isclass(c) and issubclass(c, de.DpEvent)),
    key=lambda c: c.__name__,
)

G = de.GaussianDpEvent


def _gauss_profile(mu: Any, eps: Any) -> Any:
    """delta(eps) of N(0,1) vs N(mu,1) (Balle & Wang 2018, Thm 8), mpmath."""
    if mu == 0:
        return mpmath.mpf(0)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(
        -eps / mu - mu / 2
    )


def _with_replacement_delta(nm: float, m: int, n: int, eps: float) -> float:
    """sum_k Bin(m, 1/N)(k) delta_{G(2k/nm)}(eps), all k (no truncation)."""
    r = mpmath.mpf(1) / n
    return float(
        mpmath.fsum(
            mpmath.binomial(m, k) * r**k * (1 - r) ** (m - k)
            * _gauss_profile(2 * mpmath.mpf(k) / nm, mpmath.mpf(eps))
            for k in range(m + 1)
        )
    )  # fmt: skip


def _without_replacement_delta(nm: float, m: int, n: int, eps: float) -> float:
    """max over directions of the hockey-stick divergence of N(0,1) vs
    (1-p)N(0,1) + p N(mu,1), p = m/N, mu = 2/nm (Dong et al. 2019, Thm 4.2), by
    mpmath quadrature split at the crossing of the densities."""
    p, mu, e = mpmath.mpf(m) / n, 2 / mpmath.mpf(nm), mpmath.mpf(eps)

    def dens(x: Any, shift: Any) -> Any:
        return mpmath.npdf(x - shift)

    def mix(x: Any) -> Any:
        return (1 - p) * dens(x, 0) + p * dens(x, mu)

    out = []
    for top, bottom in ((mix, lambda x: dens(x, 0)), (lambda x: dens(x, 0), mix)):
        # top/bottom is monotone in x: one crossing of top = e^eps bottom.
        def gap(x: Any, top: Any = top, bottom: Any = bottom) -> Any:
            return mpmath.log(top(x)) - mpmath.log(bottom(x)) - e

        lo, hi = gap(mpmath.mpf(-40)), gap(mpmath.mpf(40))
        if lo < 0 and hi < 0:
            out.append(mpmath.mpf(0))  # top < e^eps bottom everywhere
            continue
        up = hi > 0
        a, b = mpmath.mpf(-40), mpmath.mpf(40)
        for _ in range(120):  # bisection of the monotone gap
            mid = (a + b) / 2
            if (gap(mid) > 0) == up:
                b = mid
            else:
                a = mid
        x0 = (a + b) / 2

        def integrand(x: Any, top: Any = top, bottom: Any = bottom) -> Any:
            return top(x) - mpmath.exp(e) * bottom(x)

        rng = [x0, mpmath.inf] if up else [-mpmath.inf, x0]
        out.append(mpmath.quad(integrand, rng))
    return float(max(out))


def _truncation_odds_mpmath(n: int, q: float, b: int) -> tuple[float, float]:
    qq = mpmath.mpf(q)

    def sf(k: int, size: int) -> Any:  # P(Bin(size, q) > k)
        return mpmath.fsum(
            mpmath.binomial(size, j) * qq**j * (1 - qq) ** (size - j)
            for j in range(k + 1, size + 1)
        )

    t = sf(b - 1, n - 1)
    return float(t), float(sf(b, n) * b / (t * n))


# ------------------------------------------------------------------ examples
# (event, adjacency, count, reference): reference "pld" = dp-accounting's PLD
# accountant; a callable eps -> delta = an independent n = 1 value.
Served = tuple[Any, str, int, Any]

SERVED: dict[str, Served] = {
    "GaussianDpEvent": (G(2.0), "add_or_remove", 5, "pld"),
    "LaplaceDpEvent": (de.LaplaceDpEvent(2.0), "add_or_remove", 5, "pld"),
    "DiscreteLaplaceDpEvent": (
        de.DiscreteLaplaceDpEvent(0.5, 1),
        "add_or_remove",
        5,
        "pld",
    ),
    "PoissonSampledDpEvent": (
        de.PoissonSampledDpEvent(0.1, G(1.0)),
        "add_or_remove",
        10,
        "pld",
    ),
    "RandomizedResponseDpEvent": (
        de.RandomizedResponseDpEvent(0.3, 4),
        "replace_one",
        1,  # dp-accounting's PLD composes an RR event once whatever its count
        "pld",
    ),
    "MixtureOfGaussiansDpEvent": (
        de.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2]),
        "add_or_remove",
        3,
        "pld",
    ),
    "TruncatedSubsampledGaussianDpEvent": (
        de.TruncatedSubsampledGaussianDpEvent(200, 0.05, 12, 1.0),
        "add_or_remove",
        4,
        "pld",
    ),
    "SampledWithoutReplacementDpEvent": (
        de.SampledWithoutReplacementDpEvent(100, 10, G(2.0)),
        "replace_one",
        1,
        lambda eps: _without_replacement_delta(2.0, 10, 100, eps),
    ),
    "SampledWithReplacementDpEvent": (
        de.SampledWithReplacementDpEvent(100, 10, G(2.0)),
        "replace_one",
        1,
        lambda eps: _with_replacement_delta(2.0, 10, 100, eps),
    ),
    "ComposedDpEvent": (
        de.ComposedDpEvent([G(2.0), de.LaplaceDpEvent(3.0)]),
        "add_or_remove",
        1,
        "pld",
    ),
    "SelfComposedDpEvent": (
        de.SelfComposedDpEvent(G(3.0), 4),
        "add_or_remove",
        1,
        "pld",
    ),
}

#: Examples of the event types refused (or not private, or of no cost).
OTHERS: dict[str, Any] = {
    "DpEvent": de.DpEvent(),
    "UnsupportedDpEvent": de.UnsupportedDpEvent(),
    "ZCDpEvent": de.ZCDpEvent(0.5),
    "RepeatAndSelectDpEvent": de.RepeatAndSelectDpEvent(G(1.0), 2.0, 1.0),
    "SingleEpochTreeAggregationDpEvent": de.SingleEpochTreeAggregationDpEvent(1.0, 8),
    "NoOpDpEvent": de.NoOpDpEvent(),
    "NonPrivateDpEvent": de.NonPrivateDpEvent(),
}

SLOW = {"TruncatedSubsampledGaussianDpEvent", "MixtureOfGaussiansDpEvent"}

#: dp-accounting's discretisation interval for the comparison (coarser where
#: its PLD construction is slow: 54 s for the mixture at 1e-4).
STEP = 1e-4
STEPS = {"MixtureOfGaussiansDpEvent": 1e-3}


def test_every_class_has_an_example() -> None:
    names = {c.__name__ for c in EVENT_CLASSES}
    missing = names - set(SERVED) - set(OTHERS)
    assert not missing, f"dp-accounting event classes without a parity case: {missing}"
    assert set(SERVED) <= served_event_names()


def _params() -> list[Any]:
    out = []
    for cls in EVENT_CLASSES:
        marks = [pytest.mark.slow] if cls.__name__ in SLOW else []
        out.append(pytest.param(cls, marks=marks, id=cls.__name__))
    return out


@pytest.mark.parametrize("cls", _params())
def test_served_or_named_refusal(cls: type) -> None:
    name = cls.__name__
    if name in OTHERS:
        event = OTHERS[name]
        if name == "NoOpDpEvent":
            assert from_dp_event(event) == []
        elif name == "NonPrivateDpEvent":
            with pytest.raises(NonPrivateEventError, match="not private"):
                from_dp_event(event)
        else:
            for adjacency in ("add_or_remove", "replace_one"):
                with pytest.raises(UnsupportedEventError, match=name) as info:
                    from_dp_event(event, adjacency)
                assert isinstance(info.value, ValueError)
                assert refusal_reason(cls) in str(info.value)
        return
    event, adjacency, count, reference = SERVED[name]
    comp = from_dp_event(de.SelfComposedDpEvent(event, count), adjacency)
    curve = A.Numerical().compose(comp)
    if reference == "pld":
        relation = (
            NR.REPLACE_ONE if adjacency == "replace_one" else NR.ADD_OR_REMOVE_ONE
        )
        step = STEPS.get(name, STEP)
        pld = PLDAccountant(relation, value_discretization_interval=step)
        pld.compose(event, count)
        for delta in (1e-3, 1e-6):
            lo, hi = curve.epsilon_bounds(delta)
            theirs = pld.get_epsilon(delta)
            assert lo - 1e-9 <= theirs <= hi + count * step + 1e-9, (lo, theirs, hi)
    else:
        for eps in (0.25, 1.0):
            lo, hi = curve.delta_bounds(eps)
            exact = reference(eps)
            assert lo * (1 - 1e-9) <= exact <= hi * (1 + 1e-9), (lo, exact, hi)


@pytest.mark.parametrize(
    ("n", "q", "b"), [(200, 0.05, 12), (1000, 0.01, 5), (50, 0.3, 20), (10, 0.9, 9)]
)
def test_truncation_odds_match_binomial_sums(n: int, q: float, b: int) -> None:
    t, cond = _truncation_odds_mpmath(n, q, b)
    got = truncation_odds(n, q, b)
    assert got.truncation == pytest.approx(t, rel=1e-12)
    assert got.conditional_sampling == pytest.approx(cond, rel=1e-12)


@pytest.mark.parametrize(("n", "q", "b"), [(10, 0.2, 12), (10, 0.2, 10), (1, 0.5, 1)])
def test_no_truncation_when_the_others_cannot_fill_the_batch(
    n: int, q: float, b: int
) -> None:
    got = truncation_odds(n, q, b)
    assert (got.truncation, got.conditional_sampling) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("event", "adjacency", "reason"),
    [
        (
            de.MixtureOfGaussiansDpEvent(1.0, [1.0], [1.0]),
            "replace_one",
            "add_or_remove",
        ),
        (
            de.SampledWithReplacementDpEvent(10, 2, G(1.0)),
            "add_or_remove",
            "replace_one",
        ),
        (
            de.SampledWithoutReplacementDpEvent(10, 2, G(1.0)),
            "add_or_remove",
            "replace_one",
        ),
        (
            de.SampledWithReplacementDpEvent(
                10, 2, de.RandomizedResponseDpEvent(0.5, 3)
            ),
            "replace_one",
            "group",
        ),
        (
            de.PoissonSampledDpEvent(0.1, de.LaplaceDpEvent(1.0)),
            "replace_one",
            "Gaussian",
        ),
    ],
)
def test_unserved_parameters_are_named(event: Any, adjacency: str, reason: str) -> None:
    with pytest.raises(UnsupportedEventError, match=reason):
        from_dp_event(event, adjacency)


@pytest.mark.parametrize(
    ("event", "name"),
    [
        (de.MixtureOfGaussiansDpEvent(1.0, [1.0, 2.0], [0.5, 0.6]), "probs"),
        (de.TruncatedSubsampledGaussianDpEvent(10, 1.5, 2, 1.0), "sampling_prob"),
        (de.DiscreteLaplaceDpEvent(0.5, -1), "sensitivity"),
        (de.SampledWithoutReplacementDpEvent(10, 11, G(1.0)), "sample_size"),
    ],
)
def test_bad_parameters_name_the_field(event: Any, name: str) -> None:
    adjacency = "replace_one" if "Sampled" in type(event).__name__ else "add_or_remove"
    with pytest.raises(ValueError, match=name):
        from_dp_event(event, adjacency)


@pytest.mark.parametrize(
    ("event", "adjacency"),
    [
        (de.MixtureOfGaussiansDpEvent(1.0, [0.0], [1.0]), "add_or_remove"),
        (de.TruncatedSubsampledGaussianDpEvent(10, 0.0, 2, 1.0), "add_or_remove"),
        (de.SampledWithReplacementDpEvent(10, 0, G(1.0)), "replace_one"),
        (de.DiscreteLaplaceDpEvent(0.5, 0), "add_or_remove"),
    ],
)
def test_events_of_no_cost(event: Any, adjacency: str) -> None:
    assert from_dp_event(event, adjacency) == []


def test_k_ary_randomized_response_profile() -> None:
    # keep w.p. 1 - p + p/k = 0.775, each other bucket 0.075: the worst outputs
    # give delta(eps) = (0.775 - e^eps 0.075)_+, zero from eps = log(31/3).
    comp = from_dp_event(de.RandomizedResponseDpEvent(0.3, 4), "replace_one")
    curve = A.Numerical().compose(comp)
    for eps in (0.5, 1.0, 2.0):
        lo, hi = curve.delta_bounds(eps)
        assert lo - 1e-12 <= 0.775 - math.exp(eps) * 0.075 <= hi + 1e-12
    assert curve.delta(math.log(0.775 / 0.075) + 1e-9) == pytest.approx(0.0, abs=1e-12)
