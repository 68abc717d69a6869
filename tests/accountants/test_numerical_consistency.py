"""Numerical's point estimates: monotone and mutually consistent.

``epsilon(delta)`` is non-increasing in delta, ``delta(eps)`` non-increasing in
eps, and ``delta(epsilon(d)) <= d`` (the estimate of eps reaches the target delta
by the estimate of delta), up to the float tolerances below; every estimate lies
in its certified bracket.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from symfdp import accountants as A
from symfdp import mechanisms as M

#: Relative slack of delta(eps(d)) <= d: the Newton/bisection inverse stops
#: within 1e-12 relative of the crossing.
REL = 1e-9


def _mechanism(kind: str, a: float, p: float) -> M.Mechanism:
    if kind == "gaussian":
        return M.Gaussian(mu=a)
    if kind == "laplace":
        return M.Laplace(mu=a)
    if kind == "subsampled-gaussian":
        return M.SubsampledGaussian(sigma=1.0 / a, p=p)
    return M.SubsampledLaplace(mu=a, p=p)


@settings(max_examples=12, deadline=None)
@given(
    kind=st.sampled_from(
        ["gaussian", "laplace", "subsampled-gaussian", "subsampled-laplace"]
    ),
    a=st.floats(0.2, 1.5),
    p=st.floats(0.01, 0.3),
    n=st.integers(1, 300),
    logs=st.lists(st.floats(-10.0, -1.0), min_size=2, max_size=6, unique=True),
)
def test_estimates_are_monotone_and_consistent(kind, a, p, n, logs) -> None:
    curve = A.Numerical().compose(_mechanism(kind, a, p), n)
    d = np.sort(10.0 ** np.asarray(logs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eps = np.array([curve.epsilon(x) for x in d])  # one query each
        lo, hi = curve.epsilon_bounds(d)
        assert np.all((lo <= eps) & (eps <= hi))
        # eps non-increasing in delta
        assert np.all(np.diff(eps) <= 1e-12 * np.maximum(1.0, eps[:-1]))
        back = np.array([curve.delta(e) for e in eps])
        assert np.all(back <= d * (1 + REL) + 1e-300)
        grid = np.sort(eps)
        dl = np.array([curve.delta(e) for e in grid])
        assert np.all(np.diff(dl) <= REL * dl[:-1] + 1e-300)
