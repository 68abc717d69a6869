"""Slow checks of ``A.Numerical()``: DP-SGD at n = 10^5 (run with --run-slow)."""

from __future__ import annotations

import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M

#: The issue: eps(delta) brackets of relative width <= 1e-3 up to n = 10^5.
EPS_REL_WIDTH = 1e-3


@pytest.mark.slow
@pytest.mark.parametrize(("sigma", "p"), [(1.0, 0.01), (0.8, 0.02), (2.0, 0.05)])
def test_dp_sgd_1e5_steps(sigma: float, p: float) -> None:
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=sigma, p=p), n=100_000)
    lo, hi = curve.epsilon_bounds(1e-5)
    est = curve.epsilon(1e-5)
    assert lo <= est <= hi
    assert (hi - lo) / max(est, 1.0) <= EPS_REL_WIDTH
