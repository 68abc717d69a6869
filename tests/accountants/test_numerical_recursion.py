"""``Numerical(method="recursion")``: Zheng et al. (2020), Sec. 5.1.

The recursion is not certified; it is checked against the certified FFT bracket.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.recursion import PAPER_EPS_GRID, zheng_recursion
from symfdp.numeric.tabulate import alpha_grid
from tests._answers import delta_of, tradeoff_of

#: Fine eps grid for accuracy checks (the paper's has 100 points on [-6, 6]).
FINE = np.linspace(-6.0, 6.0, 1201)
#: Allowed deviation of the linear recursion from the certified bracket: its
#: quadrature and interpolation errors. The grid step is 0.01; interpolation is
#: O(step^2) where the profile is smooth but O(step x atom mass) at the kinks that
#: atoms of the composed loss put into the profile (Laplace pairs): 1.1e-4 seen.
RECURSION_ATOL = 5e-4
#: Floor rounding is pessimistic up to the quadrature error of the rule.
QUADRATURE_ATOL = 1e-8

CASES = [
    (M.Gaussian(mu=1.0), 3),
    (M.Laplace(mu=1.0), 3),
    (M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.3), "add"), 5),
    (M.with_adjacency(M.SubsampledLaplace(p=0.3, mu=1.0), "remove"), 4),
]


@pytest.mark.parametrize(("m", "n"), CASES)
def test_linear_recursion_matches_certified_bracket(m, n: int) -> None:
    ref = A.Numerical(eps_rel_tol=1e-5).compose(m, n=n).pairs[0]
    rec = A.Numerical(method="recursion", eps_grid=FINE, rounding="linear")
    pair = rec.compose(m, n=n).pairs[0]
    lo, hi = ref.delta_bounds(FINE)
    with warnings.catch_warnings():
        # The uncertified recursion may cross a loss-range limit by its quadrature
        # error (m3, n = 4); BoundedLossPair reports and clips that.
        warnings.simplefilter("ignore", ApproximationWarning)
        d = delta_of(pair, FINE)
    assert np.all(d >= lo - RECURSION_ATOL) and np.all(d <= hi + RECURSION_ATOL)


@pytest.mark.parametrize(("m", "n"), CASES)
def test_floor_recursion_is_pessimistic(m, n: int) -> None:
    ref = A.Numerical(eps_rel_tol=1e-5).compose(m, n=n).pairs[0]
    pair = (
        A.Numerical(method="recursion", eps_grid=FINE, rounding="floor")
        .compose(m, n=n)
        .pairs[0]
    )
    lo, _ = ref.delta_bounds(FINE)
    alpha = alpha_grid()
    _, f_hi = ref.tradeoff_bounds(alpha)
    with warnings.catch_warnings():
        # The uncertified recursion may cross a loss-range limit by its quadrature
        # error (m2, m3); BoundedLossPair reports and clips that.
        warnings.simplefilter("ignore", ApproximationWarning)
        d = delta_of(pair, FINE)
        f = tradeoff_of(pair, alpha)
    assert np.all(d >= lo - QUADRATURE_ATOL)
    assert np.all(f <= f_hi + QUADRATURE_ATOL)


def test_symmetric_recursion_uses_mirrored_lines() -> None:
    pair = A.Numerical(method="recursion").compose(M.Gaussian(mu=1.0), n=2).pairs[0]
    assert pair.symmetric
    alpha = alpha_grid()
    beta = tradeoff_of(pair, alpha)
    assert np.all((beta >= 0) & (beta <= 1 - alpha))


def test_recursion_curve_is_not_certified() -> None:
    curve = A.Numerical(method="recursion").compose(M.Gaussian(mu=1.0), n=2)
    assert not curve.certified
    assert curve.method == "Numerical(recursion)"
    assert curve.info["eps_grid_size"] == PAPER_EPS_GRID.size
    with pytest.raises(NotImplementedError):
        curve.delta_bounds(1.0)


def test_heterogeneous_recursion_runs_in_order() -> None:
    g1, g2 = M.Gaussian(mu=0.5), M.Gaussian(mu=1.0)
    a = zheng_recursion([(g1, 2), (g2, 1)], FINE, "linear")
    b = zheng_recursion([(g2, 1), (g1, 2)], FINE, "linear")
    # Composition commutes; the two orders differ only by interpolation error.
    assert np.max(np.abs(a - b)) < RECURSION_ATOL


def test_heterogeneous_fft_matches_sequential_recursion() -> None:
    """Heterogeneous FFT composition = composing the steps one after another."""
    comps = [
        (M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.2), "add"), 4),
        (M.with_adjacency(M.SubsampledGaussian(sigma=0.8, p=0.5), "add"), 2),
    ]
    ref = A.Numerical(eps_rel_tol=1e-5).compose(comps).pairs[0]
    seq = zheng_recursion(comps, FINE, "linear")
    lo, hi = ref.delta_bounds(FINE)
    assert np.all(seq >= lo - RECURSION_ATOL) and np.all(seq <= hi + RECURSION_ATOL)
