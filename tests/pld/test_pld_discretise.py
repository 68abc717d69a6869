"""The two discretisations of one PLD bracket its hockey-stick curve.

psi(t) = E_P[(V - t)_+] = delta(log t) (the mechanism's own privacy profile);
the dominated measure Y must have psi_Y <= psi and the dominating Z psi_Z >=
psi at every t > 0, and Y should keep (almost) all the Q-mass of a smooth law:
a lost mass m shifts the composed loss by about n m.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from symfdp import mechanisms as M
from symfdp.pld.discretise import DiscretePLD, discretise
from symfdp.pld.grid import component_grid

CASES = [
    (M.Gaussian(mu=1.0), 1e-2),
    (M.with_adjacency(M.SubsampledGaussian(sigma=0.6, p=1e-3), "add"), 1.7e-4),
    (M.with_adjacency(M.SubsampledGaussian(sigma=0.6, p=1e-3), "remove"), 1.7e-4),
    (M.with_adjacency(M.SubsampledGaussian(sigma=2.0, p=1e-3), "add"), 3e-5),
    (M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.1), "remove"), 2e-3),
]


def _psi(d: DiscretePLD, t: np.ndarray) -> np.ndarray:
    """E[(V - t)_+] of the measure with Q-masses q on log V = points."""
    gam = np.exp(d.points)
    w = np.clip(1.0 - t[:, None] / gam[None, :], 0.0, None)
    return (w * d.q[None, :]).sum(axis=1)


def _probe_points(d: DiscretePLD) -> np.ndarray:
    """Lattice points, cell midpoints and quarter points where the mass is."""
    heavy = d.points[d.q > 1e-12]
    lo, hi = heavy[0], heavy[-1]
    pts = d.points[(d.points >= lo) & (d.points <= hi)]
    pts = pts[:: max(1, pts.size // 400)]
    return np.exp(np.concatenate([pts, pts + d.h / 4, pts + d.h / 2]))


@pytest.mark.parametrize(("mech", "h"), CASES, ids=repr)
def test_dominated_below_and_dominating_above_the_true_curve(mech, h) -> None:
    grid = component_grid(mech, h, 1e-20)
    z, y = discretise(mech, grid)
    for d in (y, z):
        t = _probe_points(d)
        truth = np.asarray(mech.privacy_profile(np.log(t)), dtype=np.float64)
        tol = 1e-13 + 1e-9 * truth
        if d.dominating:
            assert np.all(_psi(d, t) + d.inf_mass >= truth - tol)
        else:
            assert np.all(_psi(d, t) <= truth + tol)


@pytest.mark.parametrize(("mech", "h"), CASES, ids=repr)
def test_dominated_measure_keeps_the_q_mass(mech, h) -> None:
    """The balanced loans of the barycentric rounding lose at most a small
    second-order mass (where the law turns from rising to falling) besides the
    cut tails (<= 2e-20): at most 0.3 h^2 (the unbalanced loans lost 1e-7 =
    4.3 h^2 for SubsampledGaussian(0.6, 1e-3, 'add'))."""
    y = discretise(mech, component_grid(mech, h, 1e-20))[1]
    assert y.dropped <= 0.3 * h**2
    assert math.isclose(float(y.q.sum()), 1.0, abs_tol=1e-12)


COARSE_CASES = [
    (M.with_adjacency(M.SubsampledGaussian(sigma=0.6, p=1e-3), "add"), 1.7e-4),
    (M.with_adjacency(M.SubsampledGaussian(sigma=0.6, p=1e-3), "remove"), 1.7e-4),
    (M.Gaussian(mu=1.0), 1e-2),
]


@pytest.mark.parametrize(("mech", "h"), COARSE_CASES, ids=repr)
def test_coarse_lattice_keeps_the_core_and_every_2j_th_tail_point(mech, h) -> None:
    """ComponentGrid.lattice against its definition, point by point: every
    lattice point of the core, every 2**j-th (by index) at and beyond tail
    level j, both ends; at two origins."""
    grid = component_grid(mech, h, 1e-20, coarse=0.25)
    assert grid.coarse_lo or grid.coarse_hi
    for origin in (grid.origin, grid.origin + 0.37 * h):
        lat = grid.lattice(origin)
        k_lo, l = grid.points(origin)
        stride = np.ones(l.size, dtype=np.int64)
        for j, level in enumerate(grid.coarse_hi, 1):
            stride[l >= level] = 2**j
        for j, level in enumerate(grid.coarse_lo, 1):
            stride[l <= level] = 2**j
        keep = (k_lo + np.arange(l.size)) % stride == 0
        keep[[0, -1]] = True
        assert (lat.k_lo, lat.size) == (k_lo, l.size)
        assert lat.kept is not None
        np.testing.assert_array_equal(lat.kept, np.flatnonzero(keep))
        np.testing.assert_array_equal(lat.l, l[keep])


@pytest.mark.parametrize(("mech", "h"), COARSE_CASES, ids=repr)
def test_coarse_tails_dominate_and_are_dominated_far_out(mech, h) -> None:
    """The two measures bound the true curve in the coarse tails too, down to
    curve values of 1e-250 (relative tolerance only), at the kept points,
    midpoints and quarter points of the coarse cells."""
    grid = component_grid(mech, h, 1e-20, coarse=0.25)
    z, y = discretise(mech, grid)
    for d in (y, z):
        pts = d.points[d.kept] if d.kept is not None else d.points
        pts = pts[:: max(1, pts.size // 300)]
        t = np.exp(np.concatenate([pts, pts + d.h / 4, pts + d.h]))
        truth = np.asarray(mech.privacy_profile(np.log(t)), dtype=np.float64)
        t, truth = t[truth > 1e-250], truth[truth > 1e-250]
        if d.dominating:
            assert np.all(_psi(d, t) + d.inf_mass >= truth * (1 - 1e-9))
        else:
            assert np.all(_psi(d, t) <= truth * (1 + 1e-9))
    # The coarse cells lose more Q-mass than the fine ones, still second order.
    assert y.dropped <= 0.3 * h**2
    assert abs(1.0 - float(y.q.sum())) <= y.dropped + 1e-12
