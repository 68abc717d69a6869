"""The two discretisations of one PLD bracket its hockey-stick curve.

psi(t) = E_P[(V - t)_+] = delta(log t) (the mechanism's own privacy profile);
the dominated measure Y must have psi_Y <= psi and the dominating Z psi_Z >=
psi at every t > 0, and Y should keep (almost) all the Q-mass of a smooth law:
a lost mass m shifts the composed loss by about n m.
"""

from __future__ import annotations

import importlib
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


def test_barycentric_roundings_in_blocks_match_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The barycentric rounding of many lattices in concatenated passes (no
    loan crosses from one lattice to the next) gives each lattice the measure
    it gets alone, bit for bit: atoms at the ends, coarse tails, several
    origins, blocks of one lattice and of all of them."""
    from symfdp.pld.cells import cell_masses_pq

    # The module (the package exports a function of the same name).
    D = importlib.import_module("symfdp.pld.discretise")

    items = []
    for mech, h, coarse in [
        (M.SubsampledGaussian(sigma=1.0, p=0.01), 0.01, 0.0),
        (M.SubsampledGaussian(sigma=0.6, p=0.2).pairs[1], 0.02, 0.25),
        (M.Laplace(mu=1.0), 0.05, 0.0),
        (M.RandomizedResponse(eps=1.0), 0.1, 0.0),
        (M.SubsampledLaplace(mu=2.0, p=0.1), 0.03, 0.25),
    ]:
        grid = component_grid(mech, h, 1e-20, coarse=coarse)
        for origin in grid.lower_origins:
            lat = grid.lattice(origin)
            (cp,), (cq,) = cell_masses_pq(mech, [D._dual_edges(lat.l, grid)])
            items.append((grid, lat, cp, cq))
    alone = [D._barycentric_roundings([item])[0] for item in items]
    for block in (1, 10**9):
        monkeypatch.setattr(D, "ROUNDING_BLOCK", block)
        together = D._barycentric_roundings(items)
        for a, b in zip(alone, together, strict=True):
            np.testing.assert_array_equal(a.q, b.q)
            assert (a.dropped, a.origin, a.k_lo) == (b.dropped, b.origin, b.k_lo)
    assert any(g.atom_lo or g.atom_hi for g, _, _, _ in items)


def test_barycentric_masses_of_concatenated_lattices_match_each_alone() -> None:
    """With ``first`` marking where each lattice begins, no loan crosses into
    the next one: random atoms with pulls of both signs at every end."""
    D = importlib.import_module("symfdp.pld.discretise")
    rng = np.random.default_rng(11)
    parts = []
    for size in (1, 2, 7, 40, 3):
        gam = np.exp(np.sort(rng.uniform(-2.0, 2.0, size)))
        pb = rng.uniform(0.1, 1.0, size)
        qb = pb * gam * np.exp(rng.normal(0.0, 0.3, size))
        parts.append((pb, qb, gam))
    first = np.concatenate([np.arange(p[0].size) == 0 for p in parts])
    together = D.barycentric_masses(
        *(np.concatenate([p[i] for p in parts]) for i in range(3)), first
    )
    alone = np.concatenate([D.barycentric_masses(*p) for p in parts])
    np.testing.assert_array_equal(together, alone)


def test_end_merges_of_concatenated_lattices_match_each_alone() -> None:
    """The end merges of many lattices in one pass (a window of cells at each
    end, the whole lattice where the merge point lies beyond it) give each
    lattice what ``_merge_bottom`` / ``_merge_top`` give it alone, bit for bit:
    merge points inside and far beyond the window, lattices shorter than it,
    and ends left unmerged."""
    D = importlib.import_module("symfdp.pld.discretise")
    rng = np.random.default_rng(3)
    parts, lows, highs = [], [], []
    for size in (1, 2, 5, 16, 17, 40, 90, 300, 33, 8, 120, 64, 200, 25, 70):
        l = np.sort(rng.uniform(-1.0, 1.0, size))
        gam = np.exp(l)
        pb = rng.uniform(0.1, 1.0, size)
        # Pulls q - gam p positive over a random run at the bottom and
        # negative over one at the top: the merge points lie that deep.
        j = np.arange(size)
        tilt = rng.choice([0.7, 1.5], size)
        tilt[j < rng.integers(0, size + 1)] = 1.5
        tilt[j[::-1] < rng.integers(0, size + 1)] = 0.6
        qb = pb * gam * tilt * rng.uniform(0.9, 1.1, size)
        parts.append((pb, qb, gam))
        lows.append(bool(rng.random() < 0.8))
        highs.append(bool(rng.random() < 0.8))
    alone = []
    for (pb, qb, gam), low, high in zip(parts, lows, highs, strict=True):
        pb, qb = pb.copy(), qb.copy()
        if low:
            D._merge_bottom(pb, qb, gam)
        if high:
            D._merge_top(pb, qb, gam)
        alone.append((pb, qb))
    sizes = np.array([p[0].size for p in parts], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pb, qb, gam = (np.concatenate([p[i] for p in parts]) for i in range(3))
    D._merge_ends(pb, qb, gam, starts, sizes, np.array(lows), np.array(highs))
    for (a_pb, a_qb), start, size in zip(alone, starts, sizes, strict=True):
        np.testing.assert_array_equal(pb[start : start + size], a_pb)
        np.testing.assert_array_equal(qb[start : start + size], a_qb)


def test_supports_known_to_the_builders_equal_those_found_in_q() -> None:
    """The supports and their masses that the batched builders hand to each
    measure equal those found in its masses (coarse and full lattices, atoms
    at the ends, both measures)."""
    import dataclasses

    from symfdp.accountants.base import pair_compositions
    from symfdp.pld.discretise import discretise_many
    from symfdp.pld.grid import component_grids

    comp = [
        (M.SubsampledGaussian(sigma=1.0 + i / 10, p=0.01 + i / 200), 1)
        for i in range(12)
    ]
    comp += [(M.SubsampledLaplace(mu=1.0, p=0.1), 1), (M.Laplace(mu=0.5), 1)]
    comp += [(M.RandomizedResponse(eps=1.0), 1)]
    for d in pair_compositions(comp):
        mechs = [m for m, _ in d]
        for coarse in (0.0, 0.05):
            grids = component_grids(mechs, 1e-3, 1e-20, 1, 2**27, coarse)
            for pair in discretise_many(mechs, grids):
                for x in pair:
                    assert x.known_support is not None
                    lazy = dataclasses.replace(x, known_support=None)
                    np.testing.assert_array_equal(x.support, lazy.support)
                    np.testing.assert_array_equal(x.support_masses, lazy.support_masses)


#: Add pairs whose P-mass sits within 1e-8 (relative) of the lower support end
#: log(1 - p), or within one cell: the end cell's deficit at a coarsely located
#: origin cannot be borrowed from the next cell, and a quarter to a whole step
#: of that mass went one step down (Q-mass h/4 lost per component; 6e4 such
#: components of the first drop all their lattice mass).
CONCENTRATED_CASES = [
    (M.with_adjacency(M.SubsampledGaussian(sigma=0.1, p=0.004), "add"), 0.0644),
    (M.with_adjacency(M.SubsampledGaussian(sigma=0.1, p=0.5), "add"), 1e-2),
    (M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=1e-4), "add"), 1e-2),
    (M.with_adjacency(M.SubsampledGaussian(sigma=2.0, p=1e-3), "add"), 1e-2),
    # All the mass in one cell, nothing above it to cover a deficit.
    (M.with_adjacency(M.SubsampledGaussian(sigma=1.38, p=1.4e-5), "add"), 0.17),
]


@pytest.mark.parametrize(("mech", "h"), CONCENTRATED_CASES, ids=repr)
def test_dominated_measure_of_a_concentrated_end_keeps_the_q_mass(mech, h) -> None:
    """The retried origins include both ends of the end cell's barycentric
    origin located to about 1e-14 h: the measure keeps the mass (<= 0.3 h^2
    lost, as for smooth laws; 0.25 h to h before) and stays below the true
    curve."""
    grid = component_grid(mech, h, 1e-20)
    y = discretise(mech, grid)[1]
    assert y.dropped <= 0.3 * h**2
    t = _probe_points(y)
    truth = np.asarray(mech.privacy_profile(np.log(t)), dtype=np.float64)
    assert np.all(_psi(y, t) <= truth + 1e-13 + 1e-9 * truth)
