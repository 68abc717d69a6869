r"""Samplers as typed records: how a run picks the records of each step.

Each record describes a batch sampler; with a mechanism (the dominating pair of
*adding* one record to a batch, sensitivity 1) and the run's number of steps it
says what the accountants compose (:meth:`Sampler.composition`: one-step pairs
that any accountant serves) or gives its own certified curve
(:meth:`Sampler.certified_curve`: random allocation, shuffling), and how far the
numbers go (:class:`Guarantee`):

=====================  ====================================================  ===========
sampler                what is accounted                                     guarantee
=====================  ====================================================  ===========
``NoAmplification``    the mechanism itself, ``steps`` times                 two-sided
``Poisson``            :math:`(P, (1-q)P + qQ)` and its swap (Zheng et al.   two-sided
                       2020, Lemma C.1; Dong et al. 2019, Def. 4.1)
``TruncatedPoisson``   Ganesh (arXiv 2508.15089): Poisson when the batch     upper
                       is not truncated, a replacement otherwise (below)
``FixedBatch``         without replacement: :math:`C_{b/N}(f)` of the        upper
                       replace-one pair (Dong et al. 2019, Thm 4.2); with
                       replacement: the mixture over the record's count
``CyclicPoisson``      Poisson, in the steps of the record's residue class   two-sided
``RandomAllocation``   Feldman & Shenfeld (arXiv 2502.08202, 2602.17284)     two-sided
                                                                             (k = 1)
``Shuffle``            Chua et al. (arXiv 2403.17673): an instance           lower
=====================  ====================================================  ===========

*Two-sided*: the bracket contains the privacy of the run's worst case (the
pairs are attained when the mechanism's own pair is). *Upper*: the run is at
most this private-loss (the pair dominates the sampler but may not be
attained). *Lower*: the run is at least this private-loss; upper numbers of
another sampler (e.g. Poisson's) do not hold for it.

**Truncated Poisson** (Ganesh 2025, arXiv 2508.15089; dp-accounting 0.6,
``from_truncated_subsampled_gaussian_mechanism``). Records are sampled with
probability :math:`q` and a batch larger than :math:`B` is cut to a uniform
:math:`B`-subset. Let :math:`K \sim \mathrm{Bin}(N-1, q)` count the other
records sampled. If :math:`K < B` the step is Poisson's pair. If :math:`K \ge B`
the batch holds :math:`B` records either way and the record is in it with
probability :math:`r_K = qB/(K+1)` in place of another (coupling the two
batches, the sums differ by one record replaced): the add pair of Poisson
subsampling at rate :math:`r_K` of the noise at sensitivity 2. Revealing the
case (:class:`~symfdp.mechanisms.pair_mixture.PairMixture`, joint convexity of
the hockey-stick divergence) gives the dominating mixture; the counts are
grouped, each group at its largest rate
(:func:`~symfdp.mechanisms.truncated_poisson.truncation_cases`). dp-accounting
averages the rate over :math:`K \ge B` and takes the replace-one pair there.

**Cyclic Poisson** (Choquette-Choo et al., NeurIPS 2023, arXiv 2306.08153, the
sampling of banded matrix factorisation; JAX Privacy's ``CyclicPoissonSampling``).
The records are split into ``cycle_length`` groups and step :math:`i` samples,
with probability :math:`q`, from group :math:`i \bmod b` only. With independent
noise at each step a record is seen only in the
:math:`\lceil n/b\rceil` (at most) steps of its group, each Poisson's pair,
and the other steps do not depend on it: the run is Poisson's over
:math:`\lceil n/b\rceil` steps. Correlated noise across steps (banded matrix
mechanisms) is another mechanism, not accounted here.

**Fixed batch with replacement** (replace-one neighbours). The :math:`b` draws
from :math:`N` records hold the changed record :math:`K \sim \mathrm{Bin}(b,
1/N)` times; given :math:`K = k` the sums differ by at most :math:`2k`
(the pair at sensitivity :math:`2k`), and :math:`K = 0` leaves them equal.
Revealing :math:`K` gives the mixture over :math:`k` (dp-accounting describes
this sampler by ``SampledWithReplacementDpEvent`` but none of its accountants
serves it).
"""

from __future__ import annotations

import enum
import math
from abc import ABC
from dataclasses import dataclass
from typing import Any, ClassVar

from symfdp._validation import check_bool, check_int, check_real
from symfdp.mechanisms import PoissonSubsampled, SampledWithoutReplacement
from symfdp.mechanisms.base import Mechanism
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.pair_mixture import pair_mixture
from symfdp.mechanisms.sampled_with_replacement import sampled_with_replacement
from symfdp.mechanisms.truncated_poisson import TruncationCases, truncation_cases
from symfdp.samplers.random_allocation import random_allocation
from symfdp.samplers.sensitivity import Scale, at_sensitivity
from symfdp.samplers.shuffle import shuffle_lower_bound

#: The pair of an outcome both datasets give alike (loss 0): the case in which
#: a truncated batch can hold the record with probability 0.
NULL_PAIR = Gaussian(mu=0.0)


class Guarantee(str, enum.Enum):
    """How far a sampler's numbers go (module docstring)."""

    TWO_SIDED = "two-sided"
    UPPER = "upper bound"
    LOWER = "lower bound"

    def __str__(self) -> str:
        return self.value

    @property
    def statement(self) -> str:
        """What a reader may conclude, in one sentence."""
        return _STATEMENTS[self]


_STATEMENTS = {
    Guarantee.TWO_SIDED: "certified bracket: the run's privacy lies inside",
    Guarantee.UPPER: "upper bound: the run is at most this private-loss",
    Guarantee.LOWER: (
        "lower bound: the run is at least this private-loss; Poisson numbers "
        "do not hold"
    ),
}

#: What each sampler's composition is accounted under.
Composition = tuple[tuple[tuple[Mechanism, int], ...], str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunShape:
    """What a run says about its batches (any field may be missing).

    Attributes:
        steps: Total number of steps.
        sample_rate: Poisson rate (or the fraction ``batch_size/dataset_size``).
        batch_size: Batch size (expected size for Poisson).
        dataset_size: Number of records.
        max_batch: Largest batch of truncated Poisson sampling.
        cycle_length: Groups of cyclic Poisson sampling (the rate within a
            group is ``cycle_length`` times the overall rate, so that the
            expected batch is unchanged).
    """

    steps: int
    sample_rate: float | None = None
    batch_size: int | None = None
    dataset_size: int | None = None
    max_batch: int | None = None
    cycle_length: int | None = None

    def rate(self) -> float:
        """``sample_rate``, or ``batch_size / dataset_size``."""
        if self.sample_rate is not None:
            return self.sample_rate
        if self.batch_size is not None and self.dataset_size is not None:
            return self.batch_size / self.dataset_size
        raise ValueError("sample_rate (or batch_size and dataset_size) is needed.")

    def need(self, *names: str) -> tuple[int, ...]:
        """The named integer fields, each required."""
        missing = [n for n in names if getattr(self, n) is None]
        if missing:
            raise ValueError(f"{' and '.join(missing)} needed by this sampler.")
        return tuple(int(getattr(self, n)) for n in names)


class Sampler(ABC):
    """A batch sampler. Subclasses are frozen dataclasses with literal
    ``NAMES`` (their command-line spellings)."""

    NAMES: ClassVar[tuple[str, ...]]

    @property
    def name(self) -> str:
        """The command-line name of this record."""
        return self.NAMES[0]

    @property
    def guarantee(self) -> Guarantee:
        """How far its numbers go."""
        return Guarantee.TWO_SIDED

    @property
    def epoch_length(self) -> int | None:
        """Steps per epoch, for samplers that work in epochs."""
        return None

    def epochs(self, steps: int) -> int:
        """The number of whole epochs in ``steps``.

        Raises:
            ValueError: ``steps`` is not a multiple of the epoch length.
        """
        length = self.epoch_length
        steps = check_int("steps", steps, lo=1)
        if length is None:
            return steps
        if steps % length:
            raise ValueError(
                f"steps must be a multiple of the epoch length {length} of "
                f"{self.name}. Found {steps}."
            )
        return steps // length

    def composition(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Composition | None:
        """The one-step pairs to compose (any accountant), and the relation;
        None when the sampler has its own curve (:meth:`certified_curve`)."""
        return None

    def certified_curve(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Any:
        """The sampler's own certified curve (``delta_bounds``,
        ``epsilon_bounds``), for samplers without :meth:`composition`."""
        raise NotImplementedError

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> Sampler:
        """The record named ``name`` (one of ``NAMES``) for a run's shape.

        Raises:
            ValueError: a field the sampler needs is missing or out of range.
        """
        raise NotImplementedError


@dataclass(frozen=True)
class NoAmplification(Sampler):
    """Every step sees the record: no amplification."""

    NAMES: ClassVar[tuple[str, ...]] = ("none",)

    def composition(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Composition:
        return ((mechanism, steps),), "add_or_remove"

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> NoAmplification:
        return cls()


@dataclass(frozen=True)
class Poisson(Sampler):
    """Each record joins each step's batch with probability ``rate``.

    Args:
        rate: Sampling probability in (0, 1].
    """

    rate: float
    NAMES: ClassVar[tuple[str, ...]] = ("poisson",)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "rate", check_real("rate", self.rate, 0.0, 1.0, lo_open=True)
        )

    def composition(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Composition:
        return ((PoissonSubsampled(mechanism, p=self.rate), steps),), None

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> Poisson:
        return cls(shape.rate())


@dataclass(frozen=True)
class TruncatedPoisson(Sampler):
    """Poisson sampling at ``rate`` from ``population`` records, batches cut to
    at most ``max_batch`` (module docstring).

    Args:
        rate: Sampling probability in (0, 1].
        max_batch: Largest batch, in [1, population].
        population: Number of records, >= 1.
    """

    rate: float
    max_batch: int
    population: int
    NAMES: ClassVar[tuple[str, ...]] = ("truncated-poisson",)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "rate", check_real("rate", self.rate, 0.0, 1.0, lo_open=True)
        )
        n = check_int("population", self.population, lo=1)
        object.__setattr__(self, "population", n)
        object.__setattr__(
            self, "max_batch", check_int("max_batch", self.max_batch, lo=1, hi=n)
        )

    @property
    def guarantee(self) -> Guarantee:
        return Guarantee.UPPER

    def truncation(self) -> TruncationCases:
        """The revealed cases of a cut batch
        (:func:`symfdp.mechanisms.truncated_poisson.truncation_cases`)."""
        return truncation_cases(self.population, self.rate, self.max_batch)

    def composition(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Composition:
        cases = self.truncation()
        if not cases.weights:
            return ((PoissonSubsampled(mechanism, p=self.rate), steps),), None
        full = PoissonSubsampled(mechanism, p=self.rate).with_pair("add")
        swap = at_sensitivity(mechanism, 2, scale)
        cut = [PoissonSubsampled(swap, p=r).with_pair("add") for r in cases.rates]
        weights = (1.0 - math.fsum(cases.weights), *cases.weights)
        mixture = pair_mixture(weights, (full, *cut))
        return ((mixture, steps),), "add_or_remove"

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> TruncatedPoisson:
        max_batch, population = shape.need("max_batch", "dataset_size")
        return cls(shape.rate(), max_batch, population)


@dataclass(frozen=True)
class CyclicPoisson(Sampler):
    """Poisson sampling at ``rate`` from group ``i mod cycle_length`` at step
    ``i`` (module docstring).

    Args:
        rate: Sampling probability within the group, in (0, 1].
        cycle_length: Number of groups ``b >= 1`` (1 is Poisson sampling).
    """

    rate: float
    cycle_length: int
    NAMES: ClassVar[tuple[str, ...]] = ("cyclic-poisson",)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "rate", check_real("rate", self.rate, 0.0, 1.0, lo_open=True)
        )
        object.__setattr__(
            self, "cycle_length", check_int("cycle_length", self.cycle_length, lo=1)
        )

    def composition(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Composition:
        seen = -(-steps // self.cycle_length)  # the busiest group's steps
        return ((PoissonSubsampled(mechanism, p=self.rate), seen),), None

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> CyclicPoisson:
        (cycle,) = shape.need("cycle_length")
        return cls(min(1.0, shape.rate() * cycle), cycle)


@dataclass(frozen=True)
class FixedBatch(Sampler):
    """Batches of exactly ``batch_size`` of ``population`` records, drawn
    without (or with) replacement; replace-one neighbours (module docstring).

    Args:
        batch_size: Records per batch, >= 1 (at most ``population`` without
            replacement).
        population: Number of records, >= 1.
        replacement: Whether the draws are with replacement.
    """

    batch_size: int
    population: int
    replacement: bool = False
    NAMES: ClassVar[tuple[str, ...]] = ("fixed-batch", "fixed-batch-replacement")

    def __post_init__(self) -> None:
        n = check_int("population", self.population, lo=1)
        replacement = check_bool("replacement", self.replacement)
        hi = math.inf if replacement else n
        object.__setattr__(self, "population", n)
        object.__setattr__(self, "replacement", replacement)
        object.__setattr__(
            self, "batch_size", check_int("batch_size", self.batch_size, lo=1, hi=hi)
        )

    @property
    def name(self) -> str:
        return self.NAMES[1] if self.replacement else self.NAMES[0]

    @property
    def guarantee(self) -> Guarantee:
        return Guarantee.UPPER

    def composition(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Composition:
        if not self.replacement:
            swap = at_sensitivity(mechanism, 2, scale)
            m: Mechanism = SampledWithoutReplacement(
                swap, self.batch_size, self.population
            )
            return ((m, steps),), None
        mixture = sampled_with_replacement(
            lambda k: at_sensitivity(mechanism, 2 * k, scale),
            self.batch_size,
            self.population,
        )
        return ((mixture, steps),), "add_or_remove"

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> FixedBatch:
        batch, population = shape.need("batch_size", "dataset_size")
        return cls(batch, population, replacement=name == cls.NAMES[1])


@dataclass(frozen=True)
class RandomAllocation(Sampler):
    """Each record joins exactly ``k`` of every ``steps`` steps (an epoch),
    uniformly; balls in bins is ``k = 1``.

    Args:
        steps: Steps per epoch, >= 1.
        k: Steps per record per epoch, in [1, steps].
    """

    steps: int
    k: int = 1
    NAMES: ClassVar[tuple[str, ...]] = ("random-allocation",)

    def __post_init__(self) -> None:
        t = check_int("steps", self.steps, lo=1)
        object.__setattr__(self, "steps", t)
        object.__setattr__(self, "k", check_int("k", self.k, lo=1, hi=t))

    @property
    def guarantee(self) -> Guarantee:
        return Guarantee.TWO_SIDED if self.k == 1 else Guarantee.UPPER

    @property
    def epoch_length(self) -> int:
        return self.steps

    def certified_curve(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Any:
        return random_allocation(
            mechanism, t=self.steps, k=self.k, epochs=self.epochs(steps)
        )

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> RandomAllocation:
        if shape.batch_size is not None and shape.dataset_size is not None:
            return cls(max(1, shape.dataset_size // shape.batch_size))
        return cls(_steps_per_epoch(shape.rate()))


@dataclass(frozen=True)
class Shuffle(Sampler):
    """Each epoch shuffles the ``population`` records into batches of
    ``batch_size`` (``population / batch_size`` steps); a certified lower
    bound only (:mod:`symfdp.samplers.shuffle`).

    Args:
        batch_size: Records per batch, >= 1, dividing ``population``.
        population: Number of records, >= 1.
    """

    batch_size: int
    population: int
    NAMES: ClassVar[tuple[str, ...]] = ("shuffle",)

    def __post_init__(self) -> None:
        n = check_int("population", self.population, lo=1)
        b = check_int("batch_size", self.batch_size, lo=1, hi=n)
        if n % b:
            raise ValueError(
                f"population must be a multiple of batch_size ({b}) for shuffled "
                f"batches of equal size. Found {n}."
            )
        object.__setattr__(self, "population", n)
        object.__setattr__(self, "batch_size", b)

    @property
    def guarantee(self) -> Guarantee:
        return Guarantee.LOWER

    @property
    def epoch_length(self) -> int:
        return self.population // self.batch_size

    def certified_curve(
        self, mechanism: Mechanism, steps: int, scale: Scale | None = None
    ) -> Any:
        return shuffle_lower_bound(
            mechanism,
            steps_per_epoch=self.epoch_length,
            epochs=self.epochs(steps),
        )

    @classmethod
    def from_shape(cls, name: str, shape: RunShape) -> Shuffle:
        batch, population = shape.need("batch_size", "dataset_size")
        return cls(batch, population - population % batch)


def _steps_per_epoch(rate: float) -> int:
    """``1/rate`` as a whole number of steps.

    Raises:
        ValueError: ``1/rate`` is not (within 1e-9) an integer.
    """
    t = round(1.0 / rate)
    if t < 1 or abs(t * rate - 1.0) > 1e-9:
        raise ValueError(
            f"sample_rate must be 1/t for a whole number t of steps per epoch "
            f"(or give batch_size and dataset_size). Found {rate!r}."
        )
    return t


def sampler_classes() -> tuple[type[Sampler], ...]:
    """Every sampler record, in declaration order (derived from the classes)."""
    return tuple(Sampler.__subclasses__())


def sampler_names() -> tuple[str, ...]:
    """Every command-line spelling, from the classes' ``NAMES``."""
    return tuple(n for cls in sampler_classes() for n in cls.NAMES)


def sampler_for(name: str, shape: RunShape) -> Sampler:
    """The record named ``name`` for a run's shape.

    Raises:
        ValueError: an unknown name (the message lists them), or a field the
            sampler needs.
    """
    for cls in sampler_classes():
        if name in cls.NAMES:
            return cls.from_shape(name, shape)
    raise ValueError(
        f"sampler must be one of {', '.join(sampler_names())}. Found {name!r}."
    )


__all__ = [
    "CyclicPoisson",
    "FixedBatch",
    "Guarantee",
    "NoAmplification",
    "Poisson",
    "RandomAllocation",
    "RunShape",
    "Sampler",
    "Shuffle",
    "TruncatedPoisson",
    "sampler_classes",
    "sampler_for",
    "sampler_names",
]
