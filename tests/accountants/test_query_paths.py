"""One-point queries and the pair-identity term of the Edgeworth error estimate.

The identity term's Gauss–Laguerre sum from Taylor coefficients is checked
against the rule's sum written out node by node here (``np.polyval`` of the
density polynomial of :class:`~symfdp.numeric.edgeworth.EdgeworthDistribution`
at every node) and the integral it approximates (SciPy ``quad``); a one-point
query (a float, answered through the same array code at size 1) against the
closed-form Gaussian profile and against the same point asked within a larger
array (batch independence), with the warnings it emits; and the last answer
kept per query.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import integrate, special

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.edgeworth import EdgeworthPairCurve
from symfdp.curve import Query
from symfdp.numeric.edgeworth import series_diverges

SQRT_2PI = math.sqrt(2.0 * math.pi)
NODES, WEIGHTS = np.polynomial.laguerre.laggauss(24)


def _pair(mech: M.Mechanism, n: int, order: int) -> EdgeworthPairCurve:
    """The Q-law fit of the add pair of ``n`` steps of ``mech``."""
    m = M.with_adjacency(mech, "add") if hasattr(mech, "p") else mech
    k_p = n * np.asarray(m.cumulants(order + 4, "P"))
    k_q = n * np.asarray(m.cumulants(order + 4, "Q"))
    return EdgeworthPairCurve.from_cumulants(k_p, k_q, order)


def _rule_by_nodes(pair: EdgeworthPairCurve, e: float) -> float:
    r""":math:`e^\varepsilon S_P` from the Q-expansion (pair identity), the
    24-node Gauss–Laguerre rule summed node by node: normal part in closed form,
    correction :math:`\phi(x)/c \sum_i w_i e^{v_i(1 - \beta/c) - v_i^2/2c^2}
    (q_J - 1)(x + v_i/c)`, :math:`\beta = x + s`, :math:`c = \max(\beta, 1)`."""
    law = pair.law_q
    s = law.sd
    x = (e - law.mean) / s
    beta = x + s
    q = np.array(law.dist.polynomials[1], dtype=np.float64)
    q[0] -= 1.0
    phi = math.exp(-0.5 * x * x) / SQRT_2PI
    if beta > 0.0:
        normal = phi * math.sqrt(math.pi / 2.0) * special.erfcx(beta / math.sqrt(2.0))
    else:
        normal = math.exp(x * s + 0.5 * s * s) * special.ndtr(-beta)
    c = max(beta, 1.0)
    y = x + NODES / c
    shape = np.exp(NODES * (1.0 - beta / c) - NODES**2 / (2.0 * c * c))
    return float(normal + phi / c * np.sum(WEIGHTS * shape * np.polyval(q[::-1], y)))


def _integral(pair: EdgeworthPairCurve, e: float) -> float:
    r""":math:`\int_x^\infty e^{-(y - x)s}\phi(y) q_J(y)\,dy` by adaptive quadrature
    (the quantity the rule approximates)."""
    law = pair.law_q
    s = law.sd
    x = (e - law.mean) / s
    q = np.array(law.dist.polynomials[1], dtype=np.float64)[::-1]

    def f(y: float) -> float:
        return math.exp(-(y - x) * s - 0.5 * y * y) / SQRT_2PI * np.polyval(q, y)

    return float(integrate.quad(f, x, x + 60.0, epsabs=0.0, epsrel=1e-12, limit=200)[0])


CASES = [
    (M.SubsampledGaussian(sigma=1.0, p=0.01), 1000, 2),
    (M.SubsampledGaussian(sigma=1.0, p=0.01), 10_000, 4),
    (M.SubsampledGaussian(sigma=0.8, p=0.02), 3000, 4),
    (M.Laplace(mu=1.0), 200, 2),
]


@pytest.mark.parametrize(("mech", "n", "order"), CASES)
def test_identity_term_is_the_rule_summed_node_by_node(
    mech: M.Mechanism, n: int, order: int
) -> None:
    """The Taylor-coefficient form (x + s >= 1) and the node-by-node form
    (below) give the rule's sum written out here, on standardised points on
    both sides of x + s = 1, also one point at a time."""
    pair = _pair(mech, n, order)
    law = pair.law_q
    x = np.concatenate((np.linspace(-6.0, 12.0, 73), [1.0 - law.sd]))
    e = law.mean + law.sd * x
    expected = np.array([_rule_by_nodes(pair, float(v)) for v in e])
    np.testing.assert_allclose(pair.kernel.p_term_from_q(e), expected, rtol=1e-12)
    point = np.array([pair.kernel.p_term_from_q(np.array([v]))[0] for v in e])
    np.testing.assert_allclose(point, expected, rtol=1e-12)


@pytest.mark.parametrize(("mech", "n", "order"), CASES[:2])
def test_identity_term_approximates_its_integral(
    mech: M.Mechanism, n: int, order: int
) -> None:
    """The rule's value is the integral of the pair identity (to the rule's
    accuracy, far below the estimate's scale)."""
    pair = _pair(mech, n, order)
    law = pair.law_q
    for x in (-0.5, 1.0, 3.0, 6.0):
        e = law.mean + law.sd * x
        got = float(pair.kernel.p_term_from_q(np.array([e]))[0])
        assert got == pytest.approx(_integral(pair, e), rel=1e-7)


def test_divergence_check_is_its_formula() -> None:
    """``series_diverges`` (with its shortcut where no point reaches the level)
    against the ratio test written out: c_R > 1.5 c_{R-1} and c_R > 1e-2."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        lams = rng.normal(size=int(rng.integers(2, 6))) * 10 ** rng.uniform(-6, 1)
        x = rng.uniform(-5.0, 10 ** rng.uniform(0, 3), size=40)
        r = lams.size + 2
        xp = np.maximum(x, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            last = abs(lams[-1]) * xp**r / math.factorial(r)
            before = abs(lams[-2]) * xp ** (r - 1) / math.factorial(r - 1)
        expected = (last > 1.5 * before) & (last > 1e-2)
        np.testing.assert_array_equal(series_diverges(lams, x), expected)


# ------------------------------------------------------- one-point queries
def _record(fn: Any, *args: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [str(w.message) for w in caught]


def _compare(curve: Any, kind: str, at: float) -> list[str]:
    """The float query equals the one-element array query (value and warnings)
    and the same point within a larger array (to rounding: the batch can take
    another bracket of a root finder)."""
    query = curve.delta if kind == "delta" else curve.epsilon
    other = 2.0 * at if kind == "delta" else 0.5 * at
    one, w_one = _record(query, at)
    arr, w_arr = _record(query, np.array([at]))
    batch, _ = _record(query, np.array([other, at, other]))
    assert isinstance(one, float)
    assert one == float(arr[0])
    assert one == pytest.approx(float(batch[1]), rel=1e-12, abs=1e-300)
    assert w_one == w_arr
    return w_one


def test_one_point_delta_is_the_gaussian_closed_form() -> None:
    """Gaussian mechanism: every Edgeworth order is exact (Dong et al. 2019,
    Cor. 2.13), also on the one-point path, and no estimate warns."""
    mu = 0.5 * math.sqrt(8.0)
    curve = A.Edgeworth(order=2).compose(M.Gaussian(mu=0.5), 8)
    for eps in (0.0, 0.5, 1.0, 3.0):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = curve.delta(eps)
        exact = special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(
            -eps / mu - mu / 2
        )
        assert got == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(
    ("make", "n", "kind", "at", "warns"),
    [
        # Below the threshold (estimated relative error < 5%): no warning.
        (lambda: A.Edgeworth(order=4), 10_000, "delta", 1.0, False),
        (lambda: A.Edgeworth(order=4), 10_000, "epsilon", 1e-5, False),
        # Above it: the estimate's warning.
        (lambda: A.Edgeworth(order=2), 1000, "delta", 1.0, True),
        (lambda: A.Edgeworth(order=2), 1000, "epsilon", 1e-5, True),
        # The add pair warns its tilted skewness (not the estimate).
        (lambda: A.SaddlePoint(order=2), 1000, "epsilon", 1e-5, False),
        (lambda: A.CLT(), 1000, "delta", 1.0, True),
    ],
)
def test_one_point_query_matches_the_array_query(
    make: Any, n: int, kind: str, at: float, warns: bool
) -> None:
    curve = make().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n)
    messages = _compare(curve, kind, at)
    assert any("estimated relative error" in m for m in messages) == warns


@pytest.mark.parametrize(
    ("make", "mech", "n", "kind", "at"),
    [
        # Clipped into the loss range (BoundedLossPair reports it).
        (lambda: A.CLT(), M.Laplace(mu=20.0), 1, "epsilon", 1e-9),
        (lambda: A.Edgeworth(order=2), M.Laplace(mu=1.0), 3, "delta", 2.5),
        (lambda: A.Edgeworth(order=2), M.Laplace(mu=1.0), 3, "epsilon", 1e-3),
        # A lattice loss (the lattice floor of the estimate; array pair path).
        (lambda: A.Edgeworth(order=2), M.RandomizedResponse(eps=1.0), 50, "delta", 1.0),
        # A blatant part (the wrapper maps the wrapped pair's answers).
        (
            lambda: A.Edgeworth(order=2),
            M.EpsilonDelta(eps=0.5, delta=1e-6),
            50,
            "epsilon",
            1e-3,
        ),
        # A negative eps (on the table of the majorant).
        (
            lambda: A.Edgeworth(order=2),
            M.SubsampledGaussian(sigma=1.0, p=0.01),
            1000,
            "delta",
            -0.5,
        ),
    ],
)
def test_one_point_repairs_match_the_array_query(
    make: Any, mech: M.Mechanism, n: int, kind: str, at: float
) -> None:
    _compare(make().compose(mech, n), kind, at)


@pytest.mark.parametrize(
    "make", [A.SaddlePoint, lambda: A.Edgeworth(order=4)], ids=["sp", "ew"]
)
def test_error_after_its_value_reuses_the_pairs_answers(
    make: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``epsilon(d)`` then ``epsilon_error(d)`` (and ``delta`` then
    ``delta_error``) at one float ask each pair once; the errors equal the
    one-element array query's, and a new point is computed afresh."""
    curve = make().compose(M.SubsampledGaussian(sigma=1.0, p=0.05), 10_000)
    kind = type(curve.pairs[0])
    calls: list[Query] = []
    inner = kind.answer

    def counted(self: Any, query: Query, points: Any) -> Any:
        calls.append(query)
        return inner(self, query, points)

    monkeypatch.setattr(kind, "answer", counted)
    pairs = len(curve.pairs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve.epsilon(1e-5)
        assert len(calls) == pairs
        err = curve.epsilon_error(1e-5)
        assert len(calls) == pairs
        assert err == float(curve.epsilon_error(np.array([1e-5]))[0])
        curve.epsilon_error(1e-6)
        assert len(calls) == 2 * pairs
        curve.delta(1.0)
        d_err = curve.delta_error(1.0)
        assert calls.count(Query.DELTA) == pairs
        assert d_err == float(curve.delta_error(np.array([1.0]))[0])
