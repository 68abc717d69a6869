"""Properties of the certified FFT composition over random settings.

``A.Numerical().compose(...)`` of subsampled Gaussians (sigma in [0.05, 50],
sampling rate in [1e-5, 1], 1 to 1e7 steps, one mechanism or several distinct
ones, with other laws mixed in) and its queries ``epsilon`` / ``epsilon_bounds``
/ ``delta`` / ``delta_bounds`` at delta in [1e-12, 0.5], and noise calibration:
each answers (finite, the estimate inside a bracket ``lo <= hi`` that contains
an independent value where one is cheap: the exact Gaussian profile when every
component is a Gaussian, RDP's certified upper bound otherwise) or refuses with
a ValueError that names the method (FFT size, round-off range, a delta below the
resolution). Any other exception fails.

Every example records which paths of ``symfdp.pld`` it took (full or pruned
spectra, direct sums, spectra streamed between the passes, batched grids and
discretisations, extended-precision log sums, tilts, the fine origin retry, the
planned directions); explicit examples force each path, and the last test checks
that the examples of this module reached all of them.

Examples per property: a fraction of the active hypothesis profile's (``ci``:
a few, seconds per property; ``HYPOTHESIS_PROFILE=dev`` five times more).
"""

from __future__ import annotations

import contextlib
import importlib
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from unittest import mock

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

from symfdp import accountants as A
from symfdp import calibrate
from symfdp import mechanisms as M
from symfdp._warnings import ApproximationWarning
from symfdp.accountants import numerical as numerical_module
from symfdp.pld import certified, compose
from tests._tolerances import MP_DPS

discretise = importlib.import_module("symfdp.pld.discretise")
grid = importlib.import_module("symfdp.pld.grid")

#: FFT length allowed in the properties (a larger lattice is refused with
#: FFTSizeError, a named ValueError): seconds per example at most.
MAX_FFT = 2**20
#: Relative precision of the mpmath references (bisection to 1e-15).
REF_RTOL = 1e-13

#: The paths of symfdp.pld the examples must reach (see _recording).
PATHS = (
    "full spectra",
    "pruned spectra",
    "direct sums",
    "streamed spectra",
    "batched grids",
    "extended log sums",
    "tilted",
    "fine origins",
    "planned directions",
)
SEEN: Counter[str] = Counter()

Composition = list[tuple[M.Mechanism, int]]


def _examples(fraction: float, least: int = 3) -> Any:
    """``settings`` running ``fraction`` of the active profile's examples."""
    count = int(settings.default.max_examples * fraction)
    return settings(max_examples=max(least, count))


def _log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(math.log(lo), math.log(hi)).map(math.exp)


SIGMAS = _log_uniform(0.05, 50.0)
RATES = st.one_of(st.just(1.0), _log_uniform(1e-5, 1.0))
COUNTS = st.floats(0.0, math.log(1e7)).map(lambda x: max(1, round(math.exp(x))))
DELTAS = _log_uniform(1e-12, 0.5)
OTHERS = st.one_of(
    st.builds(M.Laplace, mu=_log_uniform(0.01, 5.0)),
    st.builds(M.RandomizedResponse, eps=_log_uniform(0.01, 3.0)),
    st.builds(M.SubsampledLaplace, mu=_log_uniform(0.05, 5.0), p=_log_uniform(1e-4, 1)),
)


@contextlib.contextmanager
def _recording() -> Iterator[set[str]]:
    """Record the paths of symfdp.pld that the calls made inside take."""
    seen: set[str] = set()

    def spy(target: Any, name: str, path: Callable[..., str | None]) -> Any:
        inner = getattr(target, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            out = inner(*args, **kwargs)
            hit = path(out, *args, **kwargs)
            if hit:
                seen.add(hit)
            return out

        return mock.patch.object(target, name, wrapper)

    def live_spectrum(out: Any, cached: Any, whole: bool, *_: Any) -> str | None:
        return "streamed spectra" if not whole else None

    def log_powers(out: Any, chunks: Any, size: int, count: int) -> str | None:
        return "extended log sums" if count > compose._DOUBLE_PARTS else None

    def grids(out: Any, mechanisms: Sequence[Any], *_: Any) -> str | None:
        return "batched grids" if len(mechanisms) >= grid._GRID_BATCH else None

    patches = [
        spy(compose, "_full_powers", lambda *_: "full spectra"),
        spy(compose, "_pruned", lambda out, *_: "pruned spectra" if out else None),
        spy(compose, "_hot_frequencies", lambda out, *_: out.size and "direct sums"),
        spy(compose, "_live_spectrum", live_spectrum),
        spy(compose, "_log_powers", log_powers),
        spy(numerical_module, "component_grids", grids),
        spy(certified, "compose_tilted", lambda *_: "tilted"),
        spy(discretise, "fine_origins", lambda out, *_: any(out) and "fine origins"),
        spy(
            numerical_module.Numerical,
            "_directions",
            lambda out, *_: out and "planned directions",
        ),
    ]
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        yield seen
    SEEN.update(seen)


def _gaussian_delta(mu: float, eps: float) -> float:
    """delta(eps) of G_mu, 40 digits (Dong et al. 2019, Cor. 2.13)."""
    with mp.workdps(MP_DPS + 10):
        m, e = mp.mpf(mu), mp.mpf(eps)
        return float(mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2))


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """The eps >= 0 with delta(eps) = delta for G_mu (bisection, 1e-15)."""
    if _gaussian_delta(mu, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, mu * mu / 2 + 50 * mu + 50
    while hi - lo > 1e-15 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _gaussian_delta(mu, mid) > delta else (lo, mid)
    return hi


def _gaussian_mu(comp: Composition) -> float | None:
    """mu of the composition when every component is a Gaussian (p = 1):
    sqrt(sum n mu^2) (Dong et al. 2019, Cor. 3.3)."""
    total = 0.0
    for m, n in comp:
        if isinstance(m, M.Gaussian):
            total += n * m.mu**2
        elif isinstance(m, M.SubsampledGaussian) and m.p == 1.0:
            total += n / m.sigma**2
        else:
            return None
    return math.sqrt(total)


def _rdp_applies(comp: Composition) -> bool:
    return all(isinstance(m, M.SubsampledGaussian | M.Gaussian) for m, _ in comp)


def _named_refusal(exc: ValueError) -> None:
    """A refusal must say which method refused and why."""
    assert "Numerical" in str(exc), str(exc)


def _check_composition(comp: Composition, delta: float, stream: bool = False) -> None:
    """Compose, query, and check the answers (module docstring)."""
    note(f"composition {comp}, delta {delta:g}, streamed {stream}")
    cache = 2**12 if stream else compose._SPEC_CACHE_BYTES
    with (
        _recording() as seen,
        warnings.catch_warnings(),
        mock.patch.object(compose, "_SPEC_CACHE_BYTES", cache),
    ):
        # Wide brackets are reported by warnings, not under test here.
        warnings.simplefilter("ignore", ApproximationWarning)
        try:
            curve = A.Numerical(max_fft_size=MAX_FFT).compose(comp)
            eps = float(curve.epsilon(delta))
            lo, hi = (float(x) for x in curve.epsilon_bounds(delta))
            grid_eps = np.array([0.0, 0.5 * eps, eps, 2.0 * eps + 1.0])
            d = np.asarray(curve.delta(grid_eps))
            d_lo, d_hi = (np.asarray(x) for x in curve.delta_bounds(grid_eps))
        except ValueError as exc:
            note(f"refused: {exc}")
            _named_refusal(exc)
            return
        finally:
            note(f"paths {sorted(seen)}")
    assert math.isfinite(eps) and math.isfinite(hi), (lo, eps, hi)
    assert 0.0 <= lo <= eps <= hi, (lo, eps, hi)
    assert np.all(np.isfinite(d) & np.isfinite(d_lo) & np.isfinite(d_hi))
    assert np.all((0.0 <= d_lo) & (d_lo <= d) & (d <= d_hi) & (d_hi <= 1.0))
    mu = _gaussian_mu(comp)
    if mu is not None:
        exact = np.array([_gaussian_delta(mu, e) for e in grid_eps])
        slack = REF_RTOL * exact + 1e-300
        assert np.all((d_lo <= exact + slack) & (exact <= d_hi + slack)), exact
        e_exact = _gaussian_epsilon(mu, delta)
        assert lo <= e_exact * (1 + REF_RTOL) and e_exact <= hi * (1 + REF_RTOL)
    elif _rdp_applies(comp):
        # RDP's bounds are certified upper bounds on eps(delta) and delta(eps).
        rdp = A.RDP().compose(comp)
        assert lo <= float(rdp.epsilon(delta)) * (1 + 1e-12)
        assert np.all(d_lo <= np.asarray(rdp.delta(grid_eps)) * (1 + 1e-12))


SG = M.SubsampledGaussian


@_examples(0.12)
@given(sigma=SIGMAS, p=RATES, n=COUNTS, delta=DELTAS)
# Direct sums, tilts, the fine origin retry, planned directions.
@example(sigma=2.0, p=0.01, n=60_000, delta=1e-5)
# A long Gaussian composition against the closed form, direct sums.
@example(sigma=0.3, p=1.0, n=50_000, delta=1e-10)
def test_one_subsampled_gaussian_answers_or_refuses(
    sigma: float, p: float, n: int, delta: float
) -> None:
    _check_composition([(SG(sigma=sigma, p=p), n)], delta)


@_examples(0.08)
@given(
    parts=st.lists(st.tuples(SIGMAS, RATES, COUNTS), min_size=2, max_size=12),
    others=st.lists(st.tuples(OTHERS, COUNTS), max_size=2),
    delta=DELTAS,
    stream=st.booleans(),
)
# Pruned (one direction) and full spectra, streamed, batched grids, extended
# log sums.
@example(
    parts=[(2.0 + i, 0.05, 200) for i in range(9)], others=[], delta=1e-5, stream=True
)
# Distinct Gaussians through the pruned spectra, against the closed form.
@example(
    parts=[(20.0 + 4 * i, 1.0, 2000) for i in range(8)],
    others=[],
    delta=1e-8,
    stream=False,
)
def test_heterogeneous_compositions_answer_or_refuse(
    parts: list[tuple[float, float, int]],
    others: Composition,
    delta: float,
    stream: bool,
) -> None:
    comp: Composition = [(SG(sigma=s, p=p), n) for s, p, n in parts]
    _check_composition(comp + others, delta, stream)


@_examples(0.05, least=2)
@given(
    target=_log_uniform(0.1, 50.0), p=_log_uniform(1e-4, 1.0), n=COUNTS, delta=DELTAS
)
def test_calibration_answers_or_refuses(
    target: float, p: float, n: int, delta: float
) -> None:
    """sigma in [0.05, 50] whose certified eps(delta) meets the target, or a
    named ValueError (target unreachable in the bracket, lattice too large);
    a certified eps that grows with sigma would be refused by another
    message and fail here."""
    acc = A.Numerical(eps_rel_tol=1e-2, max_fft_size=MAX_FFT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        try:
            sigma = calibrate.sigma_for_epsilon(
                target,
                delta,
                p=p,
                n=n,
                accountant=acc,
                sigma_bracket=(0.05, 50.0),
                rtol=0.05,
            )
        except ValueError as exc:
            note(f"refused: {exc}")
            assert "Numerical" in str(exc) or "unreachable" in str(exc), str(exc)
            return
        curve = acc.compose(SG(sigma=sigma, p=p), n)
        assert 0.05 <= sigma <= 50.0
        assert calibrate.epsilon_upper(curve, delta) <= target


def test_the_examples_reached_every_path() -> None:
    """Over this module's examples (the explicit ones force each path), every
    path of symfdp.pld was taken."""
    if not SEEN:
        pytest.skip("run with the property tests of this module")
    assert set(PATHS) <= set(SEEN), sorted(set(PATHS) - set(SEEN))
