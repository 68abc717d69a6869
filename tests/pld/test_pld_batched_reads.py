"""Reading the CDFs of many components at once gives what each gives alone.

The numerical accountant reads the PLRV CDFs of all components of a
composition in blocks (:func:`symfdp.pld.cells.pq_rows`, a family's members in
one NumPy pass) and builds their grids together
(:func:`symfdp.pld.grid.component_grids`); both must reproduce, bit for bit,
the one-mechanism methods, for every mix of families, adjacencies and
degenerate members. The cell masses themselves are checked against mpmath.
"""

from __future__ import annotations

import importlib
import itertools

import mpmath
import numpy as np
import pytest

from symfdp import mechanisms as M
from symfdp.pld.cells import (
    CellMasses,
    _split,
    cell_masses_pq,
    cell_masses_pq_many,
    pq_rows,
)
from symfdp.pld.grid import (
    barycentric_origins,
    component_grid,
    component_grids,
    fine_origins,
    lattices,
)


def _mixed() -> list[M.Mechanism]:
    """Subsampled Gaussians of both pairs and spread settings, interleaved with
    members a family does not serve (p = 1, mu = 0, other types, laws with
    atoms at finite support ends)."""
    rng = np.random.default_rng(7)
    out: list[M.Mechanism] = []
    for i in range(40):
        sigma = float(rng.uniform(0.3, 4.0))
        p = float(10 ** rng.uniform(-5, -0.05))
        pair = "remove" if i % 3 else "add"
        out.append(M.with_adjacency(M.SubsampledGaussian(sigma=sigma, p=p), pair))
    out.insert(5, M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=1.0), "add"))
    out.insert(9, M.with_adjacency(M.SubsampledGaussian(mu=0.0, p=0.1), "remove"))
    out.insert(13, M.Gaussian(mu=0.7))
    out.insert(21, M.with_adjacency(M.SubsampledLaplace(mu=1.0, p=0.05), "add"))
    out.insert(30, M.with_adjacency(M.SubsampledLaplace(mu=0.5, p=0.2), "remove"))
    # Atoms at both support ends, and discrete laws.
    out.insert(3, M.Laplace(mu=1.0))
    out.insert(17, M.RandomizedResponse(eps=1.0))
    out.insert(26, M.PureDP(eps=0.5))
    out.insert(35, M.DiscreteLaplace(a=0.8))
    return out


def _points(m: M.Mechanism, rng: np.random.Generator, size: int) -> np.ndarray:
    """Points over the body and far tails of L, with the support ends and
    infinities."""
    lo, hi = m.plrv_support()
    x = rng.normal(0.0, 1.0, size) * rng.choice([1e-3, 0.1, 3.0, 50.0], size)
    ends = [e for e in (lo, hi) if np.isfinite(e)]
    extra = [*ends, *(np.nextafter(e, e + 1) for e in ends), -np.inf, np.inf, 1e300]
    return np.concatenate([x, extra])


@pytest.mark.parametrize("sf", [False, True])
@pytest.mark.parametrize("inclusive", [False, True])
def test_pq_rows_equal_one_mechanism_at_a_time(sf: bool, inclusive: bool) -> None:
    mechs = _mixed()
    rng = np.random.default_rng(11)
    parts = [_points(m, rng, int(rng.integers(0, 60))) for m in mechs]
    sizes = np.array([x.size for x in parts])
    p, q = pq_rows(mechs, np.concatenate(parts), sizes, sf=sf, inclusive=inclusive)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    for m, x, a, b in zip(mechs, parts, bounds[:-1], bounds[1:], strict=True):
        both = m.plrv_sf_pq if sf else m.plrv_cdf_pq
        want_p, want_q = (v.reshape(-1) for v in both(x, inclusive=inclusive))
        np.testing.assert_array_equal(p[a:b], want_p, err_msg=repr(m))
        np.testing.assert_array_equal(q[a:b], want_q, err_msg=repr(m))


def _both_everywhere(m: M.Mechanism, sets: list[np.ndarray]) -> list[list[CellMasses]]:
    """Cell masses from both functions read at every edge (under P, Q)."""
    flat = np.concatenate(sets)
    cdf, sf = m.plrv_cdf_pq(flat), m.plrv_sf_pq(flat)
    sizes = [e.size for e in sets]
    return [
        _split(c.reshape(-1), s.reshape(-1), sizes)
        for c, s in zip(cdf, sf, strict=True)
    ]


def test_cell_masses_of_many_equal_both_functions_everywhere() -> None:
    """Blocks of many mechanisms read each function only where the cells use
    it: the cells equal those from both functions at every edge, bit for bit,
    for sets below, across and above the median, of one and two edges, and
    large ones (a block of their own)."""
    mechs = _mixed()
    rng = np.random.default_rng(3)
    edge_sets = []
    for i, m in enumerate(mechs):
        mean = float(m.cumulants(1, "Q")[0])
        sd = float(np.sqrt(max(m.cumulants(2, "Q")[1], 1e-12)))
        sizes = [1, 2, int(rng.integers(3, 400))]
        if i % 7 == 0:
            sizes.append(70_000)
        shift = [-4.0, 0.0, 4.0][i % 3] * sd  # mostly below, across, above
        edge_sets.append([np.sort(rng.normal(mean + shift, 3 * sd, k)) for k in sizes])
    many = cell_masses_pq_many(mechs, edge_sets)
    for m, sets, (cps, cqs) in zip(mechs, edge_sets, many, strict=True):
        want_p, want_q = _both_everywhere(m, sets)
        alone_p, alone_q = cell_masses_pq(m, sets)
        for got in ([*cps, *cqs], [*alone_p, *alone_q]):
            for cell, want in zip(got, [*want_p, *want_q], strict=True):
                np.testing.assert_array_equal(cell.cells, want.cells, err_msg=repr(m))
                assert (cell.below, cell.above) == (want.below, want.above), m


def _exact(mu: float, edges: np.ndarray) -> tuple[list[float], float, float]:
    """Cells of L ~ N(-mu^2/2, mu^2) (the Gaussian's loss under P), 40 digits."""
    mpmath.mp.dps = 40
    m = mpmath.mpf(mu)
    z = [(mpmath.mpf(float(e)) + m * m / 2) / m for e in edges]
    cdf = [mpmath.ncdf(v) for v in z]
    cells = [float(b - a) for a, b in itertools.pairwise(cdf)]
    return cells, float(cdf[0]), float(1 - cdf[-1])


def test_split_matches_exact_cells_across_concatenated_sets() -> None:
    """Sets below, across and above the median in one pass: each cell equals
    the exact mass to 1e-12 relative (the tail cells too)."""
    mu = 1.3
    g = M.Gaussian(mu=mu)
    sets = [
        np.linspace(-12.0, -3.0, 37),  # lower tail: G = CDF
        np.linspace(-2.0, 1.5, 50),  # across the median: the switch cell
        np.linspace(0.2, 14.0, 29),  # upper tail: G = 1 - SF
        np.array([0.4]),
        np.array([-0.9, 3.1]),
    ]
    flat = np.concatenate(sets)
    sizes = [s.size for s in sets]
    cells = _split(g.plrv_cdf(flat), g.plrv_sf(flat), sizes)
    for edges, got in zip(sets, cells, strict=True):
        want, below, above = _exact(mu, edges)
        np.testing.assert_allclose(got.cells, want, rtol=1e-12, atol=0.0)
        assert got.below == pytest.approx(below, rel=1e-12)
        assert got.above == pytest.approx(above, rel=1e-12)
    alone = [_split(g.plrv_cdf(e), g.plrv_sf(e), [e.size])[0] for e in sets]
    for got, want in zip(cells, alone, strict=True):
        assert isinstance(got, CellMasses)
        np.testing.assert_array_equal(got.cells, want.cells)


@pytest.mark.parametrize("coarse", [0.0, 0.05])
def test_component_grids_equal_one_by_one(coarse: float) -> None:
    """Tail searches, coarse levels, end cells and lattice origins of a batch
    are those of each component alone (singletons take the one-mechanism
    methods, the batch the family pass)."""
    mechs = _mixed()
    grids = component_grids(mechs, 2.7e-4, 2.5e-22, 2, 2**27, coarse)
    for m, grid in zip(mechs, grids, strict=True):
        assert grid == component_grid(m, 2.7e-4, 2.5e-22, 2, 2**27, coarse), m


def test_barycentric_origins_balance_the_end_cell() -> None:
    """The lower end cell of an add pair at the returned origin has its
    P-barycentre of V at or above its point, and one step lower it would not:
    Q(L <= x + h/2) <= e^x P(L <= x + h/2) at x, > one step of the second
    search pass lower (2.5 h / 64^2)."""
    h = 1e-3
    mechs = [
        M.with_adjacency(M.SubsampledGaussian(sigma=s, p=p), "add")
        for s, p in [(0.8, 0.01), (0.5, 0.1), (1.0, 1e-3), (3.0, 1e-4)]
    ]
    ends = np.array([m.plrv_support()[0] for m in mechs])
    found = barycentric_origins(mechs, ends, h, up=False)
    for m, x in zip(mechs, found.tolist(), strict=True):
        for at, ok in [(x, True), (x - 2.5 * h / 64**2, False)]:
            p, q = (float(v[0]) for v in m.plrv_cdf_pq(np.array([at + h / 2])))
            assert (q - np.exp(at) * p <= 0.0) == ok, (m, at)


def test_fine_origins_of_many_equal_one_by_one() -> None:
    """The finely located barycentric origins (both ends of the last search
    bracket) of a batch, found in one NumPy pass, are each component's alone,
    and lie within the coarse search's last step (2.5 h / 64^2) of the coarse
    origin."""
    mechs = _mixed()
    h = 2.7e-4
    grids = component_grids(mechs, h, 2.5e-22, 1, 2**27, 0.05)
    together = fine_origins(mechs, grids)
    assert sum(len(o) == 2 for o in together) > 8
    for m, g, o in zip(mechs, grids, together, strict=True):
        assert fine_origins([m], [g]) == [o], m
        for x in o:
            assert abs(x - g.lower_origins[0]) <= 2.5 * h / 64**2, m


def test_lattices_of_many_equal_one_by_one() -> None:
    """The lattices of many grids and origins built together (runs of every
    stride, ends added, points snapped onto support ends) are each one's."""
    mechs = _mixed()
    h = 2.7e-4
    grids = component_grids(mechs, h, 2.5e-22, 1, 2**27, 0.05)
    assert any(g.coarse_lo for g in grids) and any(g.coarse_hi for g in grids)
    items = [
        (g, o)
        for g in grids
        for o in (g.origin, *g.lower_origins, g.origin + 0.37 * h, g.origin - 5.5 * h)
    ]
    together = lattices([g for g, _ in items], [o for _, o in items])
    for (g, o), lat in zip(items, together, strict=True):
        alone = lattices([g], [o])[0]
        assert (lat.origin, lat.k_lo, lat.size) == (
            alone.origin,
            alone.k_lo,
            alone.size,
        )
        np.testing.assert_array_equal(lat.l, alone.l)
        if alone.kept is None:
            assert lat.kept is None
        else:
            assert lat.kept is not None
            np.testing.assert_array_equal(lat.kept, alone.kept)


def test_discretise_many_equals_each_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both measures of many components built in chunks (read in blocks,
    lattices and roundings concatenated, retried origins together) are each
    component's own, bit for bit, whatever the chunk and block sizes."""
    D = importlib.import_module("symfdp.pld.discretise")
    mechs = _mixed()
    grids = component_grids(mechs, 2.7e-4, 2.5e-22, 1, 2**27, 0.05)
    alone = [D.discretise(m, g) for m, g in zip(mechs, grids, strict=True)]
    for chunk, block in [(7, 1 << 11), (10**6, 1 << 15)]:
        monkeypatch.setattr(D, "COMPONENT_CHUNK", chunk)
        monkeypatch.setattr(D, "ROUNDING_BLOCK", block)
        together = D.discretise_many(mechs, grids)
        for pair, want in zip(together, alone, strict=True):
            for got, ref in zip(pair, want, strict=True):
                np.testing.assert_array_equal(got.q, ref.q)
                assert (got.origin, got.k_lo, got.inf_mass, got.dropped) == (
                    ref.origin,
                    ref.k_lo,
                    ref.inf_mass,
                    ref.dropped,
                )
