r"""Monte Carlo estimate of the ReRo bound (Hayes et al. 2023, Algorithm 1).

Kaissis et al. (2023), Remark 1: the algorithm estimates the complementary
trade-off :math:`1 - f(\kappa)` of the *add one* pair of the subsampled
Gaussian mechanism, :math:`N(0,1)^{\otimes N}` against
:math:`((1-p)N(0,1) + pN(\mu,1))^{\otimes N}` (:math:`\mu = \Delta_2/\sigma`):
draw :math:`S` samples under each hypothesis, compute the likelihood-ratio
statistic :math:`\sum_{t=1}^N \log(1 - p + p\, e^{\mu x_t - \mu^2/2})` (TARGETS
ALG-14), threshold at the upper :math:`\lceil\kappa S\rceil`-th null order
statistic and return the fraction of alternative statistics at or above it.
``mechanism="laplace"`` uses :math:`(\mathrm{Lap}(0,1), \mathrm{Lap}(\mu,1))`
(the SLM of Sec. 2), per-step loss :math:`|x| - |x - \mu|`.

Samples are drawn in chunks, keeping a running top-:math:`K` of the null
statistics (memory :math:`O(\text{chunk} + \kappa S)`, not :math:`S \times N`
as in CF-K9), from three independent streams spawned from ``seed`` (results do
not depend on the chunk size). Tied statistics are split by the randomised
Neyman–Pearson test, so the empirical level is exactly :math:`\lceil\kappa S\rceil/S`.

Intervals at level ``confidence``: ``naive`` is the Clopper–Pearson interval
of the power at the empirical threshold (ignores the threshold's sampling
error). ``ci`` (conservative): with :math:`a = 1 - \text{confidence}`, the
order-statistic interval :math:`[Y_{(r_2)}, Y_{(r_1)}]` holds the null
:math:`(1-\kappa)`-quantile with probability :math:`\ge 1 - a/2`, hence
:math:`P_Q(T > Y_{(r_1)}) \le \gamma \le P_Q(T \ge Y_{(r_2)})`; one-sided
Clopper–Pearson bounds at :math:`a/4` on the two counts give coverage
:math:`\ge 1 - a` (union bound), also with ties or atoms.
The estimator needs :math:`\kappa S \ge 1` (else a warning; ``ci`` stays valid)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._progress import Progress
from symfdp._validation import (
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_real,
    scalar_or_array,
)
from symfdp._warnings import warn_approximation

FloatArray = NDArray[np.float64]

MECHANISMS: Final = ("gaussian", "laplace")
#: Default number of random numbers drawn per chunk (8 MiB of float64).
CHUNK_ELEMENTS: Final = 2**20
#: Beyond this per-step log-likelihood ratio, expm1 would overflow.
_EXP_SAFE: Final = 700.0


@dataclass(frozen=True)
class MonteCarloGamma:
    r"""Result of :func:`monte_carlo_gamma`.

    Array fields have shape ``mu.shape + kappa.shape`` (scalars for scalar
    inputs).

    Attributes:
        gamma: The estimate of :math:`\gamma = 1 - f(\kappa)`.
        ci_low, ci_high: Conservative interval (accounts for the threshold's
            sampling error; module docstring).
        naive_low, naive_high: Clopper–Pearson interval of the power at the
            empirical threshold (ignores the threshold's sampling error).
        std_error: Binomial standard error :math:`\sqrt{\gamma(1-\gamma)/S}` of
            the power part alone.
        kept: :math:`\lceil\kappa S\rceil`, the null samples beyond the threshold.
        kappa, mu, p, n, samples, mechanism, confidence: The inputs.
        seed_entropy: Entropy of the seed sequence (reproduces the run).
        seconds: Wall time.
        elements: Random numbers drawn (all passes).
        peak_elements: Largest number of float64 values held at once.
        recounted: Whether a second null pass counted ties at the threshold.
    """

    gamma: Any
    ci_low: Any
    ci_high: Any
    naive_low: Any
    naive_high: Any
    std_error: Any
    kept: Any
    kappa: Any
    mu: Any
    p: float
    n: int
    samples: int
    mechanism: str
    confidence: float
    seed_entropy: Any
    seconds: float
    elements: int
    peak_elements: int
    recounted: bool
    info: dict[str, Any] = field(default_factory=dict, compare=False)


def _base_loss(x: FloatArray, mu: float, base: str, hit: Any = None) -> FloatArray:
    r"""Base-pair loss at ``x + mu * hit`` (``hit`` a mask or None), as a new array:
    :math:`\mu x - \mu^2/2` (Gaussian), :math:`|x| - |x - \mu|` (Laplace)."""
    if base == "gaussian":
        y = x * mu
        if hit is not None:
            np.add(y, mu * mu, out=y, where=hit)
        y -= 0.5 * mu * mu
        return y
    # |x| - |x - mu| = 2 clip(x, 0, mu) - mu: exact at the atoms +-mu (keeps ties).
    shifted = x if hit is None else np.add(x, mu, out=x.copy(), where=hit)
    y = np.clip(shifted, 0.0, mu)
    y *= 2.0
    y -= mu
    return y


def _subsampled_sum(y: FloatArray, p: float) -> FloatArray:
    """Row sums of ``log(1 - p + p e^y)``, overwriting ``y``."""
    if p == 1.0:
        total: FloatArray = y.sum(axis=1)
        return total
    big = y > _EXP_SAFE if y.max(initial=-np.inf) > _EXP_SAFE else None
    if big is not None:
        # log(1 - p + p e^y) = y + log p + log1p((1-p)/p e^{-y}) = y + log p here.
        large = y[big] + math.log(p)
        np.minimum(y, _EXP_SAFE, out=y)
    np.expm1(y, out=y)
    y *= p
    np.log1p(y, out=y)
    if big is not None:
        y[big] = large
    sums: FloatArray = y.sum(axis=1)
    return sums


def _chunks(samples: int, rows: int) -> Iterator[int]:
    done = 0
    while done < samples:
        size = min(rows, samples - done)
        done += size
        yield size


class _Sampler:
    """The three independent streams and the statistic of the add pair."""

    def __init__(
        self, seed: np.random.SeedSequence, mus: FloatArray, p: float, n: int, base: str
    ) -> None:
        self.null_seq, self.alt_seq, self.mask_seq = seed.spawn(3)
        self.mus, self.p, self.n, self.base = mus, p, n, base

    def _noise(self, rng: np.random.Generator, rows: int) -> FloatArray:
        if self.base == "gaussian":
            return rng.standard_normal((rows, self.n))
        return rng.laplace(0.0, 1.0, (rows, self.n))

    def null_stream(self, samples: int, rows: int) -> Iterator[FloatArray]:
        """Statistics under P, shape ``(n_mu, rows)`` per chunk."""
        rng = np.random.default_rng(self.null_seq)
        for size in _chunks(samples, rows):
            x = self._noise(rng, size)
            yield np.stack(
                [_subsampled_sum(_base_loss(x, m, self.base), self.p) for m in self.mus]
            )

    def alt_stream(self, samples: int, rows: int) -> Iterator[FloatArray]:
        """Statistics under Q (each step includes the record w.p. ``p``)."""
        rng = np.random.default_rng(self.alt_seq)
        mask_rng = np.random.default_rng(self.mask_seq)
        for size in _chunks(samples, rows):
            z = self._noise(rng, size)
            hit = mask_rng.random((size, self.n)) < self.p if self.p < 1.0 else None
            out = []
            for m in self.mus:
                if hit is None:  # p = 1: every step includes the record
                    y = _base_loss(z + m, m, self.base)
                else:
                    y = _base_loss(z, m, self.base, hit)
                out.append(_subsampled_sum(y, self.p))
            yield np.stack(out)


def _top_k(stream: Iterator[FloatArray], k: int, bar: Progress) -> FloatArray:
    """The ``k`` largest values per row over the stream, sorted descending."""
    kept: FloatArray | None = None
    pending: list[FloatArray] = []
    size = 0
    for block in stream:
        pending.append(block)
        size += block.shape[1]
        bar.update()
        if size >= 2 * k:
            kept, pending, size = _merge(kept, pending, k), [], 0
    kept = _merge(kept, pending, k)
    return -np.sort(-kept, axis=1)


def _merge(kept: FloatArray | None, pending: list[FloatArray], k: int) -> FloatArray:
    parts = ([] if kept is None else [kept]) + pending
    cat = np.concatenate(parts, axis=1)
    if cat.shape[1] <= k:
        return cat
    return np.partition(cat, cat.shape[1] - k, axis=1)[:, -k:]


def _clopper_pearson(
    x: FloatArray, s: int, tail: float, side: str
) -> FloatArray:  # side: "lower" | "upper"
    from scipy import stats

    x = np.asarray(x, dtype=np.float64)
    if side == "lower":
        with np.errstate(invalid="ignore"):
            v = stats.beta.ppf(tail, np.maximum(x, 1e-300), s - x + 1)
        return np.where(x <= 0, 0.0, v)
    with np.errstate(invalid="ignore"):
        v = stats.beta.ppf(1 - tail, x + 1, np.maximum(s - x, 1e-300))
    return np.where(x >= s, 1.0, v)


def _order_indices(
    kappa: FloatArray, s: int, tail: float
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """``(k, r1, r2)``: the point index and the conservative quantile indices."""
    from scipy import stats

    k = np.ceil(kappa * s - 1e-9 * kappa * s).astype(np.int64)
    k = np.clip(k, 1, s)
    # P(Bin(S, kappa) <= r1 - 1) <= tail  and  P(Bin(S, kappa) <= r2 - 1) >= 1 - tail.
    r1 = stats.binom.ppf(tail, s, kappa).astype(np.int64)
    r2 = stats.binom.ppf(1 - tail, s, kappa).astype(np.int64) + 1
    return k, np.clip(r1, 0, s), np.clip(r2, 1, s + 1)


def _pick(ordered: FloatArray, r: NDArray[np.int64], fill: float) -> FloatArray:
    """``Y_(r)`` per (mu, kappa), ``fill`` where ``r`` is out of the kept range."""
    inside = (r >= 1) & (r <= ordered.shape[1])
    idx = np.clip(r - 1, 0, ordered.shape[1] - 1)
    return np.where(inside[None, :], ordered[:, idx], fill)


def monte_carlo_gamma(
    kappa: ArrayLike,
    *,
    mu: ArrayLike | None = None,
    sigma: float | None = None,
    p: float = 1.0,
    n: int = 1,
    samples: int = 100_000,
    mechanism: str = "gaussian",
    seed: int | np.random.SeedSequence | None = None,
    confidence: float = 0.95,
    chunk_elements: int = CHUNK_ELEMENTS,
    progress: bool | None = None,
) -> MonteCarloGamma:
    r"""Monte Carlo estimate of :math:`\gamma = 1 - f(\kappa)` for the add pair
    of the ``n``-fold subsampled Gaussian (or Laplace) mechanism.

    Hayes et al. (2023), Algorithm 1, as Kaissis et al. (2023), Remark 1
    describes it; streaming, ties and intervals as in the module docstring.

    Args:
        kappa: Prior(s) :math:`\kappa \in (0, 1)`; all share the same samples.
        mu: Effect size(s) :math:`\mu = \Delta/\sigma \ge 0` of one step
            (:math:`\Delta_1/b` for Laplace); a 1-D array is evaluated with
            common random numbers (each estimate is valid on its own; estimates
            at different ``mu`` are correlated).
        sigma: Noise multiplier at unit sensitivity (``mu = 1/sigma``); give
            ``mu`` or ``sigma``.
        p: Sampling probability in (0, 1]; 1 is the plain mechanism.
        n: Number of steps :math:`N \ge 1`.
        samples: :math:`S \ge 1`, samples per hypothesis.
        mechanism: ``"gaussian"`` (default) or ``"laplace"``.
        seed: Seed (int or ``SeedSequence``); ``None`` draws fresh entropy,
            recorded in ``seed_entropy``.
        confidence: Level of both intervals, in (0, 1).
        chunk_elements: Random numbers drawn per chunk (memory bound).
        progress: Draw a progress bar (``None``: when stderr is a terminal or
            ``SYMFDP_PROGRESS=1``).

    Returns:
        A :class:`MonteCarloGamma`.

    Raises:
        ValueError: ``kappa`` outside (0, 1), ``samples < 1``, ``n < 1``, ``p``
            outside (0, 1], a negative ``mu`` or a bad ``confidence``.

    Example:
        >>> r = monte_carlo_gamma(0.1, mu=1.0, samples=20_000, seed=1)
        >>> bool(r.ci_low <= 0.389144 <= r.ci_high)
        True
    """
    start = time.perf_counter()
    k_arr = check_array("kappa", kappa, 0.0, 1.0, lo_open=True, hi_open=True)
    if k_arr.ndim > 1:
        raise ValueError(f"kappa must be a scalar or 1-D. Found shape {k_arr.shape}.")
    if (mu is None) == (sigma is None):
        raise ValueError("give monte_carlo_gamma either mu or sigma.")
    if sigma is not None:
        mu = 1.0 / check_real("sigma", sigma, 0.0, math.inf, lo_open=True)
    mu_arr = check_array("mu", cast("ArrayLike", mu), 0.0, math.inf)
    if mu_arr.ndim > 1:
        raise ValueError(f"mu must be a scalar or 1-D. Found shape {mu_arr.shape}.")
    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    n = check_int("n", n, lo=1)
    s = check_int("samples", samples, lo=1)
    base = check_choice("mechanism", mechanism, MECHANISMS)
    conf = check_real("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True)
    chunk = check_int("chunk_elements", chunk_elements, lo=1)
    progress = check_bool("progress", progress, allow_none=True)
    if isinstance(seed, np.random.SeedSequence):
        seq = seed
    elif seed is None:
        seq = np.random.SeedSequence()
    else:
        seq = np.random.SeedSequence(check_int("seed", seed, lo=0))

    kappas, mus = np.atleast_1d(k_arr), np.atleast_1d(mu_arr)
    if np.any(kappas * s < 1):
        warn_approximation(
            f"monte_carlo_gamma: kappa * samples < 1 (kappa = {kappas.min():g}, "
            f"samples = {s}); the threshold is the largest null sample, the level "
            "is 1/samples > kappa and the estimate is biased upwards (the "
            "conservative interval stays valid). Use more samples or rero.gamma."
        )
    tail = (1.0 - conf) / 4.0
    k_idx, r1, r2 = _order_indices(kappas, s, tail)
    keep = int(min(s, max(int(k_idx.max()), int(r2.max())) + 1))
    rows = max(1, chunk // n)
    n_chunks = -(-s // rows)
    sampler = _Sampler(seq, mus, p, n, base)

    bar = Progress(2 * n_chunks, "Monte Carlo gamma", enabled=progress)
    with bar, np.errstate(over="ignore", invalid="ignore"):
        ordered = _top_k(sampler.null_stream(s, rows), keep, bar)
        t_point = _pick(ordered, k_idx, -np.inf)
        t_hi = _pick(ordered, r1, np.inf)
        t_lo = _pick(ordered, r2, -np.inf)
        null_gt, null_eq = _counts_at(ordered[:, ::-1], t_point)
        truncated = (keep < s) & (ordered[:, -1][:, None] == t_point)
        recounted = bool(truncated.any())
        if recounted:
            null_gt, null_eq = _recount(sampler, s, rows, t_point, bar)
        counts = _alt_counts(sampler.alt_stream(s, rows), t_point, t_hi, t_lo, bar)
    alt_gt, alt_eq, alt_above_hi, alt_from_lo = counts

    lam = np.where(null_eq > 0, (k_idx[None, :] - null_gt) / np.maximum(null_eq, 1), 0)
    lam = np.clip(lam, 0.0, 1.0)
    hits = alt_gt + lam * alt_eq
    est = hits / s
    ci_low = _clopper_pearson(alt_above_hi, s, tail, "lower")
    ci_high = _clopper_pearson(alt_from_lo, s, tail, "upper")
    half = (1.0 - conf) / 2.0
    naive_low = _clopper_pearson(np.floor(hits), s, half, "lower")
    naive_high = _clopper_pearson(np.ceil(hits), s, half, "upper")
    std = np.sqrt(est * (1.0 - est) / s)

    def shape(a: Any) -> Any:
        arr = np.asarray(a, dtype=np.float64)
        if np.ndim(mu_arr) == 0:
            arr = arr[0]
        if np.ndim(k_arr) == 0:
            arr = arr[..., 0]
        return scalar_or_array(arr)

    passes = 3 if recounted else 2
    return MonteCarloGamma(
        gamma=shape(est),
        ci_low=shape(ci_low),
        ci_high=shape(ci_high),
        naive_low=shape(naive_low),
        naive_high=shape(naive_high),
        std_error=shape(std),
        kept=k_idx if np.ndim(k_arr) else int(k_idx[0]),
        kappa=scalar_or_array(k_arr),
        mu=scalar_or_array(mu_arr),
        p=p,
        n=n,
        samples=s,
        mechanism=base,
        confidence=conf,
        seed_entropy=seq.entropy,
        seconds=time.perf_counter() - start,
        elements=passes * s * n + (s * n if p < 1 else 0),
        peak_elements=3 * rows * n + 3 * len(mus) * keep,
        recounted=recounted,
        info={"r1": r1, "r2": r2, "rows_per_chunk": rows, "chunks": n_chunks},
    )


def _counts_at(ascending: FloatArray, t: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per row ``i``: counts of ``ascending[i] > t[i]`` and ``== t[i]``."""
    size = ascending.shape[1]
    gt = np.empty(t.shape)
    eq = np.empty(t.shape)
    for i in range(ascending.shape[0]):  # one row per effect size
        right = np.searchsorted(ascending[i], t[i], side="right")
        left = np.searchsorted(ascending[i], t[i], side="left")
        gt[i] = size - right
        eq[i] = right - left
    return gt, eq


def _recount(
    sampler: _Sampler, s: int, rows: int, t_point: FloatArray, bar: Progress
) -> tuple[FloatArray, FloatArray]:
    """Second null pass: exact counts above and at the point thresholds."""
    bar.total += -(-s // rows)
    gt = np.zeros(t_point.shape)
    eq = np.zeros(t_point.shape)
    for block in sampler.null_stream(s, rows):
        g, e = _counts_at(np.sort(block, axis=1), t_point)
        gt += g
        eq += e
        bar.update()
    return gt, eq


def _alt_counts(
    stream: Iterator[FloatArray],
    t_point: FloatArray,
    t_hi: FloatArray,
    t_lo: FloatArray,
    bar: Progress,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Counts of alternative statistics: ``> t``, ``== t`` (point threshold),
    ``> t_hi`` and ``>= t_lo``, per (mu, kappa)."""
    gt = np.zeros(t_point.shape)
    eq = np.zeros(t_point.shape)
    above_hi = np.zeros(t_point.shape)
    from_lo = np.zeros(t_point.shape)
    for block in stream:
        srt = np.sort(block, axis=1)
        size = srt.shape[1]
        g, e = _counts_at(srt, t_point)
        gt += g
        eq += e
        for i in range(srt.shape[0]):  # one row per effect size
            above_hi[i] += size - np.searchsorted(srt[i], t_hi[i], side="right")
            from_lo[i] += size - np.searchsorted(srt[i], t_lo[i], side="left")
        bar.update()
    return gt, eq, above_hi, from_lo
