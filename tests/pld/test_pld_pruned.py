"""The pruned component spectra of many-component compositions: their values
and error bounds against mpmath, their flushing bounds against full FFTs, and
certified brackets of distinct Gaussians against the closed form."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import fft as sfft
from scipy.optimize import brentq
from scipy.stats import norm

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.pld import compose, pruned
from symfdp.pld.discretise import DiscretePLD


def _part(q: np.ndarray) -> DiscretePLD:
    return DiscretePLD(1e-3, 0.0, 0, q, 0.0, 0.0, True)


def _law(seed: int, m: int = 3000) -> np.ndarray:
    """A lumpy law with a long thin right tail."""
    rng = np.random.default_rng(seed)
    j = np.arange(m)
    q = np.exp(-0.5 * ((j - 200) / 25.0) ** 2) + 1e-6 * np.exp(-j / 400.0)
    q *= 1 + 0.5 * rng.random(m)
    return q / q.sum()


def _centred(q: np.ndarray, c: int, size: int, k: int) -> complex:
    with mp.workdps(40):
        total = mp.mpc(0)
        for j in np.flatnonzero(q):
            total += mp.mpf(float(q[j])) * mp.expjpi(
                -2 * mp.mpf(k * (int(j) - c)) / size
            )
        return complex(total)


@pytest.mark.parametrize("seed", [0, 1])
def test_values_within_their_bound(seed) -> None:
    q = _law(seed)
    parts = [(_part(q), 10)]
    stats = pruned._stats(parts)
    size = 388_800
    freqs = np.array([0, 1, 2, 17, 29, 400, 194_399, 194_400])
    spectra, devs = pruned._values(parts, stats, size, freqs)
    c = stats[0].centre
    for k, v, e in zip(freqs, spectra[0], devs[0], strict=True):
        assert abs(v - _centred(q, c, size, int(k))) <= e
    assert devs[0][1] <= 8 * 2.0**-53  # the low frequencies: a few u


@pytest.mark.parametrize("seed", [0, 1])
def test_flushing_bounds_hold(seed) -> None:
    """Both bounds on log |A(theta)| (sampled bins, quartic) are above the exact
    values at every frequency of a fine FFT."""
    q = _law(seed)
    st = pruned._stats([(_part(q), 2)])[0]
    length = 2048
    bins = pruned._sampled_bins([(_part(q), 2)], [st], length)
    fine = 64 * length
    exact = 2 * np.log(np.abs(sfft.rfft(q, fine)))  # n = 2
    k = np.arange(exact.size)
    at = np.minimum((k * length) // fine, bins.size - 1)
    assert np.all(exact <= bins[at] + 1e-12)
    theta = 2 * math.pi * k / fine
    quart = np.log(np.maximum(pruned._quartic(st, theta), 1e-300))
    assert np.all(exact <= np.minimum(quart, 2 * math.log(st.q0_hi)) + 1e-12)


@pytest.fixture
def pruned_calls(monkeypatch) -> list[bool]:
    """Records, per composition, whether the pruned spectra were used."""
    calls: list[bool] = []
    real = compose.pruned_spectra

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(compose, "pruned_spectra", spy)
    return calls


def test_pruned_and_full_compositions_agree(monkeypatch, pruned_calls) -> None:
    comp = [
        (M.SubsampledGaussian(sigma=1.0 + i / 10, p=0.01 + 0.002 * i), 1000)
        for i in range(10)
    ]
    curve = A.Numerical().compose(comp)
    assert pruned_calls and all(pruned_calls)
    lo, hi = curve.epsilon_bounds(1e-5)
    monkeypatch.setattr(compose, "_PRUNE_PARTS", 10**9)
    f_lo, f_hi = A.Numerical().compose(comp).epsilon_bounds(1e-5)
    # Both certified: the brackets overlap, and agree to well within their width.
    assert lo <= f_hi and f_lo <= hi
    assert abs(lo - f_lo) + abs(hi - f_hi) <= 0.05 * (hi - lo)


def test_distinct_gaussians_bracket_holds_closed_form(pruned_calls) -> None:
    """sum_i n_i mu_i^2 = mu^2: G_{mu_1}^{n_1} x ... = G_mu, composed through
    the pruned spectra."""
    mus = np.linspace(0.5, 1.5, 8) / math.sqrt(16_000 / 1.1)
    comp = [(M.Gaussian(mu=float(m)), 2000) for m in mus]
    mu = math.sqrt(2000 * float(np.sum(mus**2)))
    curve = A.Numerical().compose(comp)
    assert pruned_calls and all(pruned_calls)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 4.0])
    lo, hi = curve.delta_bounds(eps)
    truth = norm.cdf(-eps / mu + mu / 2) - np.exp(eps) * norm.cdf(-eps / mu - mu / 2)
    assert np.all(lo <= truth) and np.all(truth <= hi)
    e_lo, e_hi = curve.epsilon_bounds(1e-5)
    e_true = brentq(
        lambda e: (
            norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - 1e-5
        ),
        0.0,
        20.0,
        xtol=1e-12,
    )
    assert e_lo <= e_true <= e_hi


def test_parts_kept_as_a_recipe_give_the_same_tilted_answers(monkeypatch) -> None:
    """A large composition keeps the recipe of its discretised components, not
    the arrays; the tilted queries that need them rebuild the same parts."""
    import symfdp.accountants.numerical as numerical

    comp = [
        (M.SubsampledGaussian(sigma=1.0 + i / 10, p=0.01 + 0.002 * i), 100)
        for i in range(5)
    ]
    deltas = (1e-5, 1e-10, 1e-14)
    kept = A.Numerical().compose(comp)
    expected = [kept.epsilon_bounds(d) for d in deltas]
    monkeypatch.setattr(numerical, "_KEEP_PARTS_BYTES", 0)
    dropped = A.Numerical().compose(comp)
    assert all(not p.parts.ups for p in dropped.pairs)
    assert [dropped.epsilon_bounds(d) for d in deltas] == expected
    # Rebuilt for the tilts, one composition at a time.
    assert sum(bool(p.parts.ups) for p in dropped.pairs) == 1


def test_moment_bounds_of_many_parts_hold_exactly() -> None:
    """The moment sums of several parts computed together bracket the exact
    (rational) M2 = 2 (Q0 S2 - S1^2) and bound M4 and Q0, for parts of
    different sizes, a shifted one and one without mass; and each equals
    the part's own."""
    from fractions import Fraction

    laws = [_law(0), _law(1)[:300], np.r_[np.zeros(50), _law(2)[:40]], np.zeros(7)]
    parts = [(_part(q), 3) for q in laws]
    together = pruned._stats(parts)
    for q, st in zip(laws, together, strict=True):
        assert st == pruned._stats([(_part(q), 1)])[0]
        if not q.any():
            assert st.q0 == 0.0
            continue
        c = st.centre
        terms = [
            (Fraction(float(v)), Fraction(int(j) - c)) for j, v in enumerate(q) if v
        ]
        s = [sum(w * x**r for w, x in terms) for r in range(5)]
        m2 = 2 * (s[0] * s[2] - s[1] ** 2)
        m4 = 2 * s[0] * s[4] - 8 * s[1] * s[3] + 6 * s[2] ** 2
        assert Fraction(st.m2_lo) <= m2 <= Fraction(st.m2_hi)
        assert m4 <= Fraction(st.m4_hi)
        assert Fraction(st.q0_hi) >= s[0]
        assert abs(Fraction(st.q0) - s[0]) <= Fraction(st.q0_err)


@pytest.mark.parametrize("quartic_bins", [0, 16, 64])
def test_sampled_bins_of_many_parts_bound_the_exact_sums(
    monkeypatch, quartic_bins
) -> None:
    """With many parts, bins certified below the flush level early are left at
    that bound, and once few bins are left the later parts bound them by the
    quartic alone: every bin still bounds sum_i n_i log |A_i| from above at
    every frequency of a fine FFT."""
    monkeypatch.setattr(pruned, "_QUARTIC_BINS", quartic_bins)
    real, batches = pruned._sampled_squares, []

    def spy(*args):
        batches.append(1)
        return real(*args)

    monkeypatch.setattr(pruned, "_sampled_squares", spy)
    rng = np.random.default_rng(5)
    laws = []
    for i in range(300):
        q = _law(i % 4, 600)
        laws.append(np.roll(q, int(rng.integers(0, 40))))
    parts = [(_part(q), 3) for q in laws]
    stats = pruned._stats(parts)
    length = 512
    bins = pruned._sampled_bins(parts, stats, length)
    fine = 16 * length
    with np.errstate(divide="ignore"):
        exact = sum(3 * np.log(np.abs(sfft.rfft(q, fine))) for q in laws)
    k = np.arange(exact.size)
    at = np.minimum((k * length) // fine, bins.size - 1)
    assert np.all(exact <= bins[at] + 1e-9)
    assert np.any(bins <= pruned._KEEP - 1.0)  # some bins were left early
    assert np.any(bins > pruned._KEEP)
    # Without a threshold every batch is sampled; with one, only the first few.
    chunks = -(-len(parts) // pruned._BIN_CHUNK)
    assert (len(batches) == chunks) == (quartic_bins == 0)


def test_values_of_many_coarse_parts_within_their_bounds() -> None:
    """Parts with coarse tails on lattices of every residue (so chunks group
    them by the columns they keep, across several chunks): each part's values
    within its bound of the 40-digit sums, at low and high frequencies."""
    rng = np.random.default_rng(5)
    parts = []
    for i in range(150):
        k_lo = int(rng.integers(-500, 500))
        m = int(rng.integers(300, 700))
        k = k_lo + np.arange(m)
        core = np.abs(np.arange(m) - m // 3) < 40
        kept = np.flatnonzero(core | (k % (1 << int(rng.integers(1, 6))) == 0))
        q = np.zeros(m)
        bump = np.exp(-0.5 * ((kept - m / 3) / 30.0) ** 2)
        q[kept] = bump * (1 + rng.random(kept.size))
        q /= q.sum()
        parts.append((DiscretePLD(1e-3, 0.0, k_lo, q, 0.0, 0.0, False, kept), 3 + i))
    stats = pruned._stats(parts)
    size = 97_200
    freqs = np.array([0, 1, 5, 40, 48_600])
    spectra, devs = pruned._values(parts, stats, size, freqs)
    for i in range(0, 150, 7):
        q, c = parts[i][0].q, stats[i].centre
        for k, v, e in zip(freqs, spectra[i], devs[i], strict=True):
            assert abs(v - _centred(q, c, size, int(k))) <= e, (i, k)
