"""The fast slice of the conformance matrix (:mod:`tests.conformance.matrix`):
every family at one typical point, n = 10, add/remove, plus the cases of issue 32,
against every accountant of the registry (the cells too slow for the default
run are left to ``benchmarks/conformance.py``, which runs the full matrix).

A cell passes when none of its answers is silent and more than 5% off the truth,
no certified bracket misses an exact value and every refusal is a clear
``ValueError``/``TypeError`` naming the method that serves the case.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import special

from symfdp import mechanisms as M
from symfdp.accountants.registry import accountant_classes
from tests.conformance import matrix as X
from tests.conformance.exact_laws import ExactTruth, FiniteLaw

#: Cells whose cost is seconds to minutes (the full benchmark runs them), by
#: (family, accountant registry name).
SLOW: frozenset[tuple[str, str]] = frozenset(
    {
        ("SubsampledGaussian", "contour"),
        ("SubsampledLaplace", "contour"),
        ("PoissonSubsampled", "contour"),
        ("from_densities", "saddlepoint"),
        ("from_densities", "edgeworth"),
        ("from_densities", "clt"),
        ("from_densities", "auto"),
        ("from_log_likelihood_ratio", "saddlepoint"),
    }
)


def _cases() -> list[X.Case]:
    return X.family_cases() + X.issue_cases()


_CASES = _cases()


def _case_id(i: int, case: X.Case) -> str:
    return f"{i:02d}-{case.family}-n{case.n}-{case.adjacency}"


@functools.cache
def _truth(i: int) -> X.Truth:
    return X.truth_for(_CASES[i], X.Grid())


def _known(case: X.Case, method: X.Method) -> str | None:
    """Why a cell is known to fail (None: it must pass)."""
    return KNOWN_OPEN.get((repr(case.mechanism), case.n, method.label))


#: Cells still failing, by (mechanism, n, method label), from the matrix's own
#: findings (none at present; an entry is a strict xfail with its reason).
KNOWN_OPEN: dict[tuple[str, int, str], str] = {}


def _params() -> list[object]:
    out = []
    for i, case in enumerate(_CASES):
        for method in X.methods():
            marks = []
            if (case.family, method.name) in SLOW:
                continue
            reason = _known(case, method)
            if reason is not None:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            out.append(
                pytest.param(
                    i, method, id=f"{_case_id(i, case)}-{method.label}", marks=marks
                )
            )
    return out


@pytest.mark.parametrize(("i", "method"), _params())
def test_cell(i: int, method: X.Method) -> None:
    records = X.run_cell(_CASES[i], method, _truth(i))
    failing = [r for r in records if X.Outcome(r.outcome).fails]
    assert not failing, "\n".join(
        f"{r.outcome}: {r.ask} at {r.point:g}: {r.value:.6g} vs truth "
        f"[{r.truth_lo:.6g}, {r.truth_hi:.6g}] {r.message}"
        for r in failing
    )


def test_every_family_enters_the_matrix() -> None:
    assert X.unbuilt() == []
    built = {family for family, _ in X.family_mechanisms()}
    assert {cls.__name__ for cls in M.REGISTRY.values()} <= built
    assert set(X.user_constructors()) <= built


def test_every_accountant_enters_the_matrix() -> None:
    assert {m.name for m in X.methods()} == set(accountant_classes())


# ------------------------------------------------------------------ the truth
def test_finite_law_randomized_response_closed_form() -> None:
    # One step of binary randomized response: delta(e) = (e^eps - e^e)/(1 + e^eps)
    # for 0 <= e <= eps (Dong et al. 2019, f_{eps,0}).
    eps = 0.7
    law = FiniteLaw(
        np.array([-eps, eps]),
        np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps)),
        np.array([1.0, math.exp(eps)]) / (1 + math.exp(eps)),
    )
    e = np.array([0.0, 0.3, 0.69])
    expected = (math.exp(eps) - np.exp(e)) / (1 + math.exp(eps))
    np.testing.assert_allclose(law.delta(e), expected, rtol=1e-14)


def test_finite_law_composition_binomial() -> None:
    # Two steps: L in {-2eps, 0, 2eps} with P-masses (a^2, 2ab, b^2).
    eps = 0.5
    a, b = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    law = FiniteLaw(np.array([-eps, eps]), np.array([a, b]), np.array([b, a]))
    two = law.compose(2)
    np.testing.assert_allclose(two.l, [-1.0, 0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(two.p, [a * a, 2 * a * b, b * b], rtol=1e-14)
    np.testing.assert_allclose(two.q, [b * b, 2 * a * b, a * a], rtol=1e-14)


def test_exact_truth_gaussian() -> None:
    truth = ExactTruth(gaussian_mu=1.0)
    d = truth.delta(np.array([1.0]))[0]
    expected = special.ndtr(-0.5) - math.e * special.ndtr(-1.5)
    assert d == pytest.approx(expected, rel=1e-14)
    assert truth.epsilon(np.array([d]))[0] == pytest.approx(1.0, rel=1e-10)
    assert truth.mu_star() == 1.0


def test_exact_truth_polygon_mu_star_of_gaussian_like_law() -> None:
    # The symmetrised polygon of a symmetric law has the fixed point where
    # f(a) = a; check against bisection on the law's own vertices.
    eps = 1.0
    a, b = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    truth = ExactTruth(
        (FiniteLaw(np.array([-eps, eps]), np.array([a, b]), np.array([b, a])),)
    )
    # f_{eps,0}: fixed point alpha* = 1 / (1 + e^eps).
    a_star = 1 / (1 + math.exp(eps))
    assert truth.mu_star() == pytest.approx(
        special.ndtri(1 - a_star) - special.ndtri(a_star), rel=1e-10
    )


def test_judge_rules() -> None:
    ask = X.Ask.DELTA
    assert X.judge(ask, 1.06, False, 1.0, 1.0, "estimate") is X.Outcome.SILENT_OFF
    assert X.judge(ask, 1.06, True, 1.0, 1.0, "estimate") is X.Outcome.WARNED
    assert X.judge(ask, 1.04, False, 1.0, 1.0, "estimate") is X.Outcome.OK
    assert X.judge(ask, 1.5, False, 1.0, 1.0, "bound") is X.Outcome.LOOSE_BOUND
    assert X.judge(ask, 0.5, False, 1.0, 1.0, "bound") is X.Outcome.SILENT_OFF
    miss = X.judge(ask, 1.0, False, 1.0, 1.0, "certified", 0.9, 0.99, 1.0)
    assert miss is X.Outcome.CERTIFIED_MISS
