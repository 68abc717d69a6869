"""A certified trade-off answer whose bracket is too loose to use says so.

G_mu with mu = 0.5 sqrt(1000) = 15.8 has f(alpha) < 1e-50 for alpha >= 1e-3
(Dong et al. 2019, f = Phi(Phi^-1(1 - alpha) - mu)), while the bracket of the
default grid is a few 1e-6 wide: the point estimate is then 100% off relative
and warns; a bracket narrow relative to its answer stays silent."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M


def test_relatively_wide_tradeoff_bracket_warns() -> None:
    curve = A.Numerical().compose(M.Gaussian(mu=0.5), 1000)
    alpha = np.array([1e-3, 0.1])
    with pytest.warns(ApproximationWarning, match="trade-off is wider"):
        beta = curve.tradeoff(alpha)
    lo, hi = curve.tradeoff_bounds(alpha)
    exact = stats.norm.cdf(stats.norm.isf(alpha) - 0.5 * np.sqrt(1000))
    assert np.all(lo <= exact) and np.all(exact <= hi)
    assert np.all(0.5 * (hi - lo) > 0.05 * beta)


def test_relatively_narrow_tradeoff_bracket_is_silent() -> None:
    curve = A.Numerical().compose(M.Gaussian(mu=2.0), 10)
    alpha = np.array([1e-3, 1e-2, 0.1, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        beta = curve.tradeoff(alpha)
    lo, hi = curve.tradeoff_bounds(alpha)
    assert np.all(0.5 * (hi - lo) <= 0.05 * beta + 1e-6)
