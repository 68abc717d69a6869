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


@pytest.mark.parametrize("adversarial", [False, True])
def test_log_powers_of_many_parts_within_their_round_off_bound(adversarial) -> None:
    """The log of the composed spectrum of 1,000 parts is within its stated
    round-off bound of the exact sum of n_i log A_i (mpmath, 40 digits): for
    moduli near 1 (the frequencies that carry a composition) and far below,
    and for terms of 3/4 ulp of the running sum, each of which a sum in double
    precision would round the same way (1,000 of them: about 100 times 4u
    sum n |log A|)."""
    from symfdp.pld.compose import _log_powers, _stacked

    rng = np.random.default_rng(2)
    m, size = 1000, 7
    if adversarial:
        spec = np.full((m, size), np.nextafter(1.0, 0.0), dtype=np.complex128)
        counts = np.full(m, 3)
        spec[0] = np.exp(-2.5 / 3)
    else:
        mod = np.exp(-rng.exponential(1e-3, (m, size)))
        mod[:, -1] = np.exp(-rng.exponential(5.0, m))
        spec = mod * np.exp(1j * rng.uniform(-0.1, 0.1, (m, size)))
        counts = rng.integers(1, 500, m)
    terms = [(int(n), s, np.zeros(size)) for n, s in zip(counts, spec, strict=True)]
    log_pi, err, _ = _log_powers(_stacked(terms), size, m)
    with mp.workdps(40):
        for k in range(size):
            exact = mp.fsum(
                int(n) * mp.log(mp.mpc(complex(s[k])))
                for n, s in zip(counts, spec, strict=True)
            )
            assert float(abs(mp.mpc(complex(log_pi[k])) - exact)) <= err[k]


def test_log_spectra_within_their_error_bounds() -> None:
    """log |A| and arg A of spectra near 1 (moduli 1 - 1e-12 and closer, where
    log |A| is tiny), across [1/sqrt 2, sqrt 2], far below and above it, on the
    negative axis and subnormal: within the stated bound of the exact complex
    logarithm (mpmath, 40 digits); a zero spectrum gives -inf with no error."""
    from symfdp.pld.compose import _log_spectra

    rng = np.random.default_rng(5)
    k = 400
    spec = np.concatenate(
        [
            np.exp(-rng.exponential(1e-3, k)) * np.exp(1j * rng.uniform(-0.1, 0.1, k)),
            np.exp(-rng.exponential(1e-8, k))
            * np.exp(1j * rng.uniform(-1e-5, 1e-5, k)),
            1 - rng.exponential(1e-12, k) + 1j * rng.normal(0, 1e-9, k),
            np.exp(-rng.exponential(5.0, k)) * np.exp(1j * rng.uniform(-3, 3, k)),
            rng.uniform(0.7, 1.42, k) * np.exp(1j * rng.uniform(-3.14, 3.14, k)),
            [np.nextafter(1.0, 0.0), 1e-300, 1e-310 + 1e-311j, -1.0, 1j, -0.3 + 1e-20j],
        ]
    ).reshape(-1, 2)
    mod, arg, err = _log_spectra(spec)
    assert mod.shape == arg.shape == err.shape == spec.shape
    with mp.workdps(40):
        for z, m, a, e in zip(
            spec.ravel(), mod.ravel(), arg.ravel(), err.ravel(), strict=True
        ):
            exact = mp.log(mp.mpc(complex(z)))
            assert float(abs(mp.mpc(float(m), float(a)) - exact)) <= e
            assert e <= 1e-14 * (1 + float(abs(exact)))  # a few u
    zero_mod, _, zero_err = _log_spectra(np.zeros((1, 2), dtype=np.complex128))
    assert np.all(np.isneginf(zero_mod)) and np.all(zero_err == 0.0)
