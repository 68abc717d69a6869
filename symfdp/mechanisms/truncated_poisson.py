r"""Truncated Poisson sampling of a Gaussian (Ganesh 2025, arXiv 2508.15089).

Each of :math:`N` records is sampled with probability :math:`q`; a batch
larger than :math:`B` is cut to a uniformly random subset of :math:`B`; the
clipped sum gets :math:`N(0, \sigma^2)` noise (noise multiplier
:math:`\sigma`, sensitivity 1). Conditioning on the other :math:`N - 1`
records (dp-accounting 0.6, ``from_truncated_subsampled_gaussian_mechanism``):

* with probability :math:`1 - t`, :math:`t = P(\mathrm{Bin}(N-1, q) \ge B)`, no
  truncation can involve the record: the Poisson-subsampled Gaussian pair
  (:math:`q`, :math:`\mu = 1/\sigma`) of the relation;
* with probability :math:`t` the batch is truncated, the record is in it with
  probability :math:`q' = P(\mathrm{Bin}(N, q) > B)\,B / (t N)`, and it may
  displace another record: the replace-one subsampled pair at sensitivity 2
  (:math:`q'`, :math:`\mu = 2/\sigma`), an upper bound in every case.

The dominating pair is the :math:`(1 - t, t)`-mixture of the two
(:class:`~symfdp.mechanisms.pair_mixture.PairMixture`, joint convexity), as
dp-accounting's ``compute_mixture`` of the two privacy-loss distributions."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from symfdp._validation import check_choice, check_int, check_real
from symfdp.mechanisms.adjacency import with_adjacency
from symfdp.mechanisms.base import Mechanism
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.pair_mixture import pair_mixture
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian


@dataclass(frozen=True)
class TruncationOdds:
    """Probabilities of truncated Poisson sampling (module docstring).

    Attributes:
        truncation: ``t``, the probability that the other records alone fill
            the batch (so the record's presence can change who is dropped).
        conditional_sampling: ``q'``, the probability that the record is in the
            truncated batch given truncation (0 when ``t = 0``).
    """

    truncation: float
    conditional_sampling: float


def truncation_odds(
    dataset_size: int, sampling_probability: float, truncated_batch_size: int
) -> TruncationOdds:
    r""":math:`t = P(\mathrm{Bin}(N-1, q) \ge B)` and :math:`q' =
    P(\mathrm{Bin}(N, q) > B)\,B/(tN)` (binomial tails from SciPy, full
    relative precision)."""
    n = check_int("dataset_size", dataset_size, lo=1)
    q = check_real("sampling_probability", sampling_probability, 0.0, 1.0)
    b = check_int("truncated_batch_size", truncated_batch_size, lo=1)
    if b > n - 1:  # the other N - 1 records never fill the batch
        return TruncationOdds(0.0, 0.0)
    t = float(special.bdtrc(b - 1, n - 1, q))
    if t == 0.0:
        return TruncationOdds(0.0, 0.0)
    tail = float(special.bdtrc(b, n, q)) if b < n else 0.0
    cond = tail * b / (t * n)
    return TruncationOdds(t, min(cond, 1.0))


@dataclass(frozen=True)
class TruncationCases:
    """The cases of truncated Poisson sampling that a dominating mixture reveals.

    Attributes:
        weights: Probability of each case (they sum to 1).
        rates: In each case, the largest probability that the record displaces
            another in the batch: ``q B / (k + 1)`` at the smallest count ``k``
            of other records sampled in that case.
    """

    weights: tuple[float, ...]
    rates: tuple[float, ...]


#: Binomial mass of the other records' count below which the upper tail joins
#: the last case (whose displacement rate is the largest of the tail's).
CASE_TAIL = 1e-40


def truncation_cases(
    dataset_size: int,
    sampling_probability: float,
    truncated_batch_size: int,
    groups: int = 16,
) -> TruncationCases:
    r"""Cases :math:`K \ge B` of the other records' count, in ``groups`` groups.

    With :math:`K \sim \mathrm{Bin}(N-1, q)` other records sampled and
    :math:`K \ge B`, the record is sampled and kept with probability
    :math:`r_K = qB/(K+1)`, in place of another record. Each group of counts
    :math:`k_0 \le K < k_1` is given its largest rate :math:`r_{k_0}` (the
    profile of a subsampled pair grows with its rate), the upper tail beyond
    :data:`CASE_TAIL` joins the last group, so the revealed mixture of these
    cases dominates the sampler by joint convexity; it is never below the
    averaged-rate pair :func:`truncation_odds` describes, which has no such
    argument, and tends to it as ``groups`` grows.

    Returns:
        The cases of :math:`K \ge B` only; their weights sum to
        ``truncation_odds(...).truncation``.
    """
    n = check_int("dataset_size", dataset_size, lo=1)
    q = check_real("sampling_probability", sampling_probability, 0.0, 1.0)
    b = check_int("truncated_batch_size", truncated_batch_size, lo=1)
    g = check_int("groups", groups, lo=1)
    if b > n - 1:
        return TruncationCases((), ())
    ks = np.arange(b, n)
    pmf = stats.binom.pmf(ks, n - 1, q)
    tail = stats.binom.sf(ks, n - 1, q)  # P(K > k)
    live = np.flatnonzero(pmf > 0.0)
    if live.size == 0:
        return TruncationCases((), ())
    last = int(live[-1])
    over = np.flatnonzero(tail[: last + 1] < CASE_TAIL)
    if over.size:
        last = int(over[0])
    cum = np.cumsum(pmf[: last + 1])
    cum[-1] += float(tail[last])
    if last + 1 <= g:  # every count its own case
        starts = np.arange(last + 1)
    else:  # cuts at equal steps of probability mass
        edges = np.searchsorted(
            cum, np.linspace(0.0, cum[-1], g + 1)[1:-1], side="right"
        )
        starts = np.unique(np.concatenate(([0], edges[edges <= last])))
    stops = np.concatenate((starts[1:], [last + 1]))
    weights = []
    rates = []
    for lo, hi in zip(starts, stops, strict=True):
        w = float(cum[hi - 1] - (cum[lo - 1] if lo > 0 else 0.0))
        if w > 0.0:
            weights.append(w)
            rates.append(min(1.0, q * b / (int(ks[lo]) + 1)))
    return TruncationCases(tuple(weights), tuple(rates))


def truncated_subsampled_gaussian(
    dataset_size: int,
    sampling_probability: float,
    truncated_batch_size: int,
    sigma: float,
    adjacency: str = "add_or_remove",
) -> Mechanism:
    r"""The dominating pair(s) of truncated Poisson sampling with Gaussian noise.

    Args:
        dataset_size: ``N >= 1``.
        sampling_probability: ``q`` in ``(0, 1]``.
        truncated_batch_size: ``B >= 1``.
        sigma: Noise multiplier, ``sigma > 0``.
        adjacency: ``"add_or_remove"`` (both directions of the first
            component) or ``"replace_one"`` (its replace-one pair).

    Returns:
        A mechanism whose ``pairs`` cover ``adjacency`` (pass to ``compose``).
    """
    odds = truncation_odds(dataset_size, sampling_probability, truncated_batch_size)
    q = check_real("sampling_probability", sampling_probability, 0.0, 1.0, lo_open=True)
    s = check_real("sigma", sigma, 0.0, lo_open=True)
    rel = check_choice("adjacency", adjacency, ("add_or_remove", "replace_one"))
    first = SubsampledGaussian(p=q, mu=1.0 / s)
    if odds.truncation == 0.0:
        return with_adjacency(first, rel)
    cond = odds.conditional_sampling
    # q' underflows to 0 only when the record is (almost) never kept.
    second = (
        SubsampledGaussian(p=cond, mu=2.0 / s).replace_one()
        if cond > 0.0
        else Gaussian(mu=0.0)
    )
    if rel == "replace_one":
        return pair_mixture(
            (1.0 - odds.truncation, odds.truncation), (first.replace_one(), second)
        )
    mix = pair_mixture(
        (1.0 - odds.truncation, odds.truncation), (first.pairs[0], second)
    )
    return with_adjacency(mix, "add_or_remove")
