"""The answer layer of PrivacyCurve: error propagation over pairs, one warning
per query (repairs or an error above the tolerance), the last answer kept per
query, certified half-widths and refusals."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve import (
    Answer,
    BoundedLossPair,
    PairCurve,
    PrivacyCurve,
    Query,
    Repair,
    max_with_error,
)
from symfdp.curve.bounded import clipped_error
from symfdp.curve.report import repairs_within


@dataclass(frozen=True)
class _FakePair(PairCurve):
    """delta(eps) = scale * e^{-eps}, with a fixed relative error estimate (and
    a repair record of each query when ``repair`` is set)."""

    scale: float
    rel: float
    repair: str = ""
    size: float = 0.1
    calls: list[Query] = field(default_factory=list, compare=False)

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query, points):
        self.calls.append(query)
        repairs = (
            (Repair(query, self.repair, float(points[0]), self.size),)
            if self.repair
            else ()
        )
        if query is Query.DELTA:
            v = self.scale * np.exp(-points)
        elif query is Query.EPSILON:
            v = np.maximum(np.log(self.scale / points), 0.0)
        else:
            v = 1.0 - points
        return Answer(v, self.rel * v, repairs=repairs)


def _curve(*pairs, warn=0.05):
    return PrivacyCurve(pairs, "Fake", symmetric=False, warn_rel_error=warn)


def test_max_with_error_interval_propagation():
    v, e = max_with_error(
        [np.array([1.0, 1.0]), np.array([0.5, 0.98])],
        [np.array([0.1, 0.01]), np.array([0.01, 0.1])],
    )
    # Pair 2 is far below pair 1 at the first point: only pair 1's error counts.
    # At the second, pair 2 could reach 1.08 and pair 1 could fall to 0.99.
    np.testing.assert_allclose(v, [1.0, 1.0])
    np.testing.assert_allclose(e, [0.1, 0.08])


def test_errors_and_one_warning_above_tolerance():
    curve = _curve(_FakePair(0.5, 0.2), _FakePair(0.1, 0.01))
    eps = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(curve.delta_error(eps), 0.2 * 0.5 * np.exp(-eps))
    with pytest.warns(ApproximationWarning, match=r"Fake.*20%.*Numerical") as rec:
        curve.delta(eps)
    assert len(rec) == 1
    assert rec[0].filename == __file__  # attributed to the caller
    with pytest.warns(ApproximationWarning, match="epsilon"):
        curve.epsilon(1e-3)


def test_no_warning_below_tolerance_or_when_disabled():
    quiet = _curve(_FakePair(0.5, 0.01))
    off = _curve(_FakePair(0.5, 0.5), warn=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet.delta([0.1, 1.0])
        quiet.epsilon([1e-5, 1e-2])
        off.epsilon(1e-5)
    assert off.epsilon_error(1e-5) == pytest.approx(0.5 * np.log(0.5e5))


def test_infinite_eps_has_exact_zero_error():
    curve = _curve(_FakePair(0.5, 0.01))
    np.testing.assert_array_equal(curve.delta_error([-np.inf, np.inf]), [0.0, 0.0])


def test_bounded_loss_pair_passes_the_estimate_through():
    pair = BoundedLossPair(_FakePair(0.5, 0.1), -1.0, 1.0, report=False)
    found = pair.answer(Query.DELTA, np.array([0.5]))
    assert found.values[0] == pytest.approx(0.5 * np.exp(-0.5))
    assert found.errors[0] == pytest.approx(0.1 * found.values[0])
    assert found.repairs == ()


def test_bounded_loss_pair_records_its_clip():
    # delta(eps) = 2 e^{-eps} exceeds the top (1 - e^{eps - 1})_+ of a loss in
    # [-1, 1]: clipped into it, with a record of where and by how much.
    pair = BoundedLossPair(_FakePair(2.0, 0.1), -1.0, 1.0)
    found = pair.answer(Query.DELTA, np.array([0.5, 2.0]))
    top = -np.expm1(np.minimum(np.array([0.5, 2.0]) - 1.0, 0.0))
    np.testing.assert_array_equal(found.values, top)
    (repair,) = found.repairs
    assert repair.query is Query.DELTA and "left the range" in repair.what
    assert repair.at == 0.5 and repair.size == pytest.approx(2 * np.exp(-0.5) - top[0])


def test_a_clip_moves_the_estimate_by_its_size_within_the_range():
    # delta(eps) = 0.5 e^{-eps} with a 10% estimate, clipped under the top
    # (1 - e^{eps - 0.6})_+ of a loss in [-1, 0.6]: the estimate is the
    # estimate plus the move, at most the width top - floor of the range.
    pair = BoundedLossPair(_FakePair(0.5, 0.1), -1.0, 0.6)
    e = np.array([0.1, 0.55, 1.0])
    found = pair.answer(Query.DELTA, e)
    raw = 0.5 * np.exp(-e)
    top = np.maximum(-np.expm1(e - 0.6), 0.0)
    np.testing.assert_allclose(found.values, top)
    assert found.errors[0] == pytest.approx(0.1 * raw[0] + raw[0] - top[0])
    assert found.errors[1] == pytest.approx(top[1])  # capped by the width
    assert found.errors[2] == 0.0  # beyond the loss's end delta is exactly 0


def test_clipped_error_is_the_move_plus_the_estimate_capped_by_the_width():
    raw = np.array([1.2, 0.5, -0.1])
    out = np.array([1.0, 0.5, 0.0])
    err = clipped_error(raw, out, np.full(3, 0.05), np.zeros(3), np.ones(3))
    np.testing.assert_allclose(err, [0.25, 0.05, 0.15])
    tight = clipped_error(raw, out, np.full(3, 0.05), np.zeros(3), np.full(3, 0.1))
    np.testing.assert_allclose(tight, [0.1, 0.05, 0.1])
    open_top = clipped_error(raw, out, np.full(3, np.inf), np.zeros(3), None)
    assert np.isinf(open_top).all()
    # An unknown estimate stays unknown inside a finite range too.
    unknown = clipped_error(raw, out, np.full(3, np.inf), np.zeros(3), np.ones(3))
    assert np.isinf(unknown).all()


def test_repairs_within_the_tolerance_are_left_to_the_estimate():
    points = np.array([0.5, 1.0])
    values = np.array([0.2, 1e-3])
    small = Repair(Query.DELTA, "small", 0.5, 0.005)  # 2.5% of 0.2
    large = Repair(Query.DELTA, "large", 1.0, 1e-4)  # 10% of 1e-3
    unsized = Repair(Query.DELTA, "unknown size")
    elsewhere = Repair(Query.DELTA, "off the points", 0.7, 1e-9)
    kept = repairs_within((small, large, unsized, elsewhere), points, values, 0.05)
    assert kept == (large, unsized, elsewhere)


def test_a_small_repair_does_not_warn_but_its_estimate_does():
    # A 1e-4 repair on an answer of 0.3: no warning with a 1% estimate ...
    quiet = _curve(_FakePair(0.5, 0.01, "x left y", size=1e-4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet.delta(0.5)
    # ... and the error warning (not the repair's) with a 10% one.
    loud = _curve(_FakePair(0.5, 0.1, "x left y", size=1e-4))
    with pytest.warns(ApproximationWarning, match="estimated relative error"):
        loud.delta(0.5)
    # A repair beyond the tolerance warns as before.
    big = _curve(_FakePair(0.5, 0.01, "x left y", size=0.1))
    with pytest.warns(ApproximationWarning, match="x left y"):
        big.delta(0.5)


def test_repairs_of_every_pair_make_one_warning_per_query():
    curve = _curve(_FakePair(0.5, 0.5, "x left y"), _FakePair(0.1, 0.5, "z left w"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        curve.delta(np.array([0.5, 1.0]))
    (w,) = caught
    text = str(w.message)
    assert issubclass(w.category, ApproximationWarning) and w.filename == __file__
    # Both records, the largest change, the regime and the certified method;
    # the error above warn_rel_error is not warned on top of the repairs.
    assert "x left y; z left w" in text and "0.1 at eps = 0.5" in text
    assert "valid regime" in text and "accountants.Numerical" in text


def test_last_answer_per_query_is_kept():
    pair = _FakePair(0.5, 0.01)
    curve = _curve(pair)
    curve.epsilon(1e-3)
    curve.epsilon_error(1e-3)
    curve.epsilon(1e-3)
    assert pair.calls == [Query.EPSILON]
    curve.delta([0.5, 1.0])
    curve.delta_error([0.5, 1.0])
    curve.delta_error([0.5, 2.0])  # other points: asked again
    assert pair.calls == [Query.EPSILON, Query.DELTA, Query.DELTA]


def test_refusal_of_a_pair_reaches_the_caller():
    class _Refusing(_FakePair):
        def answer(self, query, points):
            raise ValueError("cannot serve this; use accountants.Numerical")

    with pytest.raises(ValueError, match="Numerical"):
        _curve(_Refusing(0.5, 0.1)).epsilon(1e-5)


def test_certified_error_is_bracket_half_width():
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.05), n=50)
    lo, hi = curve.epsilon_bounds([1e-5, 1e-8])
    np.testing.assert_allclose(curve.epsilon_error([1e-5, 1e-8]), (hi - lo) / 2)
    exact = A.Exact().compose(M.Gaussian(mu=1.0), n=4)
    assert exact.delta_error(1.0) == 0.0


def test_methods_without_estimate_refuse():
    curve = A.BerryEsseen().compose(M.Gaussian(mu=0.1), n=100)
    with pytest.raises(NotImplementedError, match="error estimate"):
        curve.epsilon_error(0.5)


def test_warn_rel_error_is_validated():
    for bad in (0.0, -1.0, float("nan"), float("inf"), "0.1"):
        with pytest.raises((ValueError, TypeError), match="warn_rel_error"):
            A.base.check_warn_rel_error(bad)


def test_pair_answers_validate_as_their_query():
    curve = _curve(_FakePair(0.5, 0.1), _FakePair(0.1, 0.1))
    for query, bad, name in (
        (Query.DELTA, [np.inf], "eps"),
        (Query.EPSILON, [0.0], "delta"),
        (Query.TRADEOFF, [1.5], "alpha"),
    ):
        with pytest.raises(ValueError, match=name):
            curve.pair_answers(query, bad)
    add, remove = curve.pair_answers(Query.DELTA, [0.5, 1.0])
    np.testing.assert_allclose(add.values, 0.5 * np.exp(-np.array([0.5, 1.0])))
    np.testing.assert_allclose(remove.values, 0.1 * np.exp(-np.array([0.5, 1.0])))
