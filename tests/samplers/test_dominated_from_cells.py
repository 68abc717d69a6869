"""pld.discretise.dominated_from_cells: barycentric rounding of given cells."""

from __future__ import annotations

import numpy as np

from symfdp import mechanisms as M
from symfdp.pld.cells import cell_masses_pq
from symfdp.pld.discretise import dominated_from_cells


def _profile(q: np.ndarray, points: np.ndarray, eps: np.ndarray) -> np.ndarray:
    return np.sum(q[:, None] * np.maximum(1.0 - np.exp(eps - points[:, None]), 0.0), 0)


def test_rounding_of_gaussian_cells_is_below_the_profile_and_close() -> None:
    mu, h, k_lo, n = 1.0, 0.02, -400, 801
    pts = (k_lo + np.arange(n)) * h
    edges = pts[:-1] + h / 2
    (cp,), (cq,) = cell_masses_pq(M.Gaussian(mu=mu), [edges])
    pb = np.concatenate(([cp.below], cp.cells, [cp.above]))
    qb = np.concatenate(([cq.below], cq.cells, [cq.above]))
    low = dominated_from_cells(h, k_lo, pb, qb)
    assert not low.dominating and low.origin == 0.0 and low.k_lo == k_lo
    eps = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    exact = M.Gaussian(mu=mu).privacy_profile(eps)
    ours = _profile(low.q, low.points, eps)
    assert np.all(ours <= exact)
    assert np.all(exact - ours <= 1e-3 * exact)
    assert 0.0 <= low.dropped <= 1e-3
