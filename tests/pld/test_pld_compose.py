"""The direct spectra of the FFT composition: values and error bounds against
an mpmath evaluation of the same sums at 40 digits."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.stats import norm

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.pld.compose import direct_spectrum


def _reference(q: np.ndarray, size: int, k: int) -> complex:
    with mp.workdps(40):
        total = mp.mpc(0)
        for j in np.flatnonzero(q):
            total += mp.mpf(float(q[j])) * mp.expjpi(-2 * mp.mpf(k * int(j)) / size)
        return complex(total)


@pytest.mark.parametrize("seed", [0, 1])
def test_direct_spectrum_within_its_bound(seed) -> None:
    rng = np.random.default_rng(seed)
    q = np.zeros(3000)
    q[rng.integers(0, 3000, 300)] = rng.random(300) ** 6
    q /= q.sum()
    size = 388_800
    ks = np.array([0, 1, 2, 17, 29, 1000, 194_399, 194_400])
    vals, dev = direct_spectrum(q, size, ks)
    for k, v, e in zip(ks, vals, dev, strict=True):
        assert abs(v - _reference(q, size, int(k))) <= e
        assert e <= 4 * 2.0**-53  # far below the FFT's 16u(log2 N + 1) = 320u


def test_long_composition_bracket_holds_gaussian_closed_form() -> None:
    """G_{1/sqrt(n)}^{n} = G_1: the bracket (now without the n x FFT round-off
    of the low frequencies) still contains the closed form, and is narrow."""
    n = 10**6
    curve = A.Numerical().compose(M.Gaussian(mu=1 / math.sqrt(n)), n)
    eps = np.array([0.0, 0.5, 1.0, 2.0, 3.0])
    lo, hi = curve.delta_bounds(eps)
    truth = norm.cdf(-eps + 0.5) - np.exp(eps) * norm.cdf(-eps - 0.5)
    assert np.all(lo <= truth) and np.all(truth <= hi)
    e_lo, e_hi = curve.epsilon_bounds(1e-5)  # the default eps_rel_tol is met
    assert e_hi - e_lo <= 1e-3 * max(float(e_lo), 1.0)


def test_streamed_spectra_give_the_same_composition(monkeypatch) -> None:
    """Many distinct components: the spectra kept only at candidate frequencies
    (pass 1) compose exactly as the whole spectra kept in memory."""
    import symfdp.pld.compose as compose

    comp = [
        (M.SubsampledGaussian(sigma=1.0 + i / 10, p=0.01 + 0.002 * i), 100)
        for i in range(10)
    ]
    whole = A.Numerical().compose(comp).epsilon_bounds(1e-5)
    monkeypatch.setattr(compose, "_SPEC_CACHE_BYTES", 2**12)
    streamed = A.Numerical().compose(comp).epsilon_bounds(1e-5)
    assert np.array_equal(np.asarray(whole), np.asarray(streamed))
