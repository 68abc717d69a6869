"""SaddlePoint one-point queries (:mod:`symfdp.accountants.saddlepoint.scalar`).

The float path is checked against the array path of the same pair (a different
code path: batched Taylor/Newton solve, vectorised estimates) — values,
estimates and warnings — and against the Gaussian closed form (Dong et al.
2019, Cor. 2.13), which every order J >= 2 reproduces exactly.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import special

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.saddlepoint import scalar as S
from symfdp.curve import BoundedLossPair

EPS_GRID = (0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 15.0)
DELTA_GRID = (0.3, 1e-2, 1e-5, 1e-8, 1e-12, 1e-15)


def _record(fn: Any, *args: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [str(w.message) for w in caught]


def _pairs(curve: Any) -> list[Any]:
    return [p._pair if isinstance(p, BoundedLossPair) else p for p in curve.pairs]


def _same_estimate(one: float, arr: float, rel: float = 1e-6) -> bool:
    """Equal to 1e-6 relative. The two paths' saddle points differ by rounding
    (~1e-16 relative); the estimates amplify that: the spread of nearly equal
    orders over a forward difference at relative step 1e-5 (up to ~1e-9), and
    the atom term, whose excess modulus moves by ~2e-7 relative for a 1e-15
    relative change of the tilt (Laplace). At the same saddle point the two
    agree to 1e-9 (next test)."""
    if not math.isfinite(arr):
        return one == arr
    return one == pytest.approx(arr, rel=rel, abs=1e-300)


CURVES = [
    ("gaussian", [(M.Gaussian(mu=1.0), 10)], (1, 2, 3, 4)),
    ("sgd-1e3", [(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000)], (1, 2, 3, 4)),
    ("sgd-1e4", [(M.SubsampledGaussian(sigma=1.0, p=0.01), 10_000)], (2, 3, 4)),
    ("sgd-0.8", [(M.SubsampledGaussian(sigma=0.8, p=0.02), 3000)], (1, 4)),
    ("laplace", [(M.Laplace(mu=1.0), 200)], (2, 4)),
    (
        "mixed",
        [
            (M.SubsampledGaussian(sigma=1.0, p=0.01), 500),
            (M.Gaussian(mu=0.5), 3),
            (M.Laplace(mu=0.3), 20),
        ],
        (2, 3),
    ),
]


@pytest.mark.parametrize(("name", "comp", "orders"), CURVES, ids=[c[0] for c in CURVES])
def test_one_point_pair_answers_equal_the_array_path(
    name: str, comp: Any, orders: tuple[int, ...]
) -> None:
    """Every pair, orders 1..4, eps and delta across the range incl. the
    tails: the float answer (where it serves) equals the array answer (values
    to 1e-12 relative, estimates to 1e-6) with the same warnings."""
    served = 0
    for order in orders:
        curve = A.SaddlePoint(order=order).compose(comp)
        for pair in _pairs(curve):
            for eps in EPS_GRID:
                one, w_one = _record(pair.delta_and_error_scalar, eps)
                if one is None:
                    assert w_one == []
                    continue
                served += 1
                (value, err), w_arr = _record(pair.delta_and_error, np.array([eps]))
                # Rounding of log delta (a sum of terms ~|K| that cancel)
                # grows relative to it in the deep tail: 1e-11 below 1e-20.
                rel = 1e-12 if value[0] > 1e-20 else 1e-11
                assert one[0] == pytest.approx(float(value[0]), rel=rel, abs=1e-300)
                assert _same_estimate(one[1], float(err[0])), (order, eps, one, err)
                assert w_one == w_arr
            for d in DELTA_GRID:
                one, w_one = _record(pair.epsilon_and_error_scalar, d)
                if one is None:
                    assert w_one == []
                    continue
                served += 1
                (value, err), w_arr = _record(pair.epsilon_and_error, np.array([d]))
                assert one[0] == pytest.approx(float(value[0]), rel=1e-12)
                assert _same_estimate(one[1], float(err[0])), (order, d, one, err)
                assert w_one == w_arr
    # The float path serves most points (the lower side and the exact regions
    # are the array path's).
    assert served >= 8 * len(orders)


def _spy(seen: dict[str, Any], fn: Any, *args: Any) -> Any:
    """Record the saddle point and rows passed to ``fn``, then call it."""
    seen.update(s=args[1], rows=args[2])
    return fn(*args)


@pytest.mark.parametrize(
    ("name", "comp", "orders"), CURVES[3:], ids=[c[0] for c in CURVES[3:]]
)
def test_one_point_error_estimate_at_the_same_saddle_point_is_identical(
    name: str, comp: Any, orders: tuple[int, ...]
) -> None:
    """Given the saddle point of an eps(delta) answer, the float path's eps
    and error estimate (orders, skewness floor, atom term) equal the array
    path's ``_error_at_saddle`` there (1e-14 and 1e-9 relative)."""
    compared = 0
    for order in orders:
        for pair in _pairs(A.SaddlePoint(order=order).compose(comp)):
            for d in (1e-2, 1e-5, 1e-10):
                seen: dict[str, Any] = {}
                spy = functools.partial(_spy, seen, S._error_at_saddle)

                with pytest.MonkeyPatch.context() as mp:
                    mp.setattr(S, "_error_at_saddle", spy)
                    one, _ = _record(pair.epsilon_and_error_scalar, d)
                if one is None:
                    continue
                rows = np.array(seen["rows"])[:, None]
                (vals, _, err), _ = _record(
                    pair._error_at_saddle, np.array([seen["s"]]), 3, rows
                )
                assert one[0] == pytest.approx(float(vals.eps[0]), rel=1e-14)
                assert _same_estimate(one[1], float(err[0]), rel=1e-9)
                compared += 1
    assert compared >= 3 * len(orders)


@pytest.mark.parametrize(
    ("order", "n", "kind", "at"),
    [
        (2, 1000, "epsilon", 1e-5),  # the add pair warns (tilted skewness > 1)
        (2, 1000, "delta", 1.0),
        (4, 10_000, "epsilon", 1e-5),
        (4, 10_000, "delta", 1.0),
        (3, 10_000, "epsilon", 1e-12),
        (2, 10_000, "delta", 0.01),  # near the split point
        (1, 10_000, "delta", 6.0),
    ],
)
def test_public_float_query_equals_the_array_query(
    order: int, n: int, kind: str, at: float
) -> None:
    curve = A.SaddlePoint(order=order).compose(
        M.SubsampledGaussian(sigma=1.0, p=0.01), n
    )
    query = curve.delta if kind == "delta" else curve.epsilon
    one, w_one = _record(query, at)
    arr, w_arr = _record(query, np.array([at]))
    assert isinstance(one, float)
    assert one == pytest.approx(float(arr[0]), rel=1e-12)
    assert w_one == w_arr


@pytest.mark.parametrize("order", [2, 3, 4, 6])
def test_one_point_path_is_the_gaussian_closed_form(order: int) -> None:
    r"""Eight Gaussian mechanisms of mu = 1/2 (mu = sqrt(8)/2 composed), whose
    profile is
    :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) -
    e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`: every order J >= 2 is exact
    on the float path, with error estimate 0 and no warning."""
    mu = 0.5 * math.sqrt(8.0)
    curve = A.SaddlePoint(order=order).compose(M.Gaussian(mu=0.5), 8)
    (pair,) = _pairs(curve)

    def exact(eps: float) -> float:
        return float(
            special.ndtr(-eps / mu + mu / 2)
            - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
        )

    for eps in (0.0, 0.5, 1.0, 3.0, 6.0):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            one = pair.delta_and_error_scalar(eps)
            public = curve.delta(eps)
        assert one is not None
        assert one[0] == pytest.approx(exact(eps), rel=1e-12)
        assert one[1] == 0.0 or one[1] <= 1e-12 * one[0]
        assert public == pytest.approx(exact(eps), rel=1e-12)
    for eps in (0.5, 2.0, 5.0):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            found = pair.epsilon_and_error_scalar(exact(eps))
        assert found is not None
        assert found[0] == pytest.approx(eps, rel=1e-12)
