"""Samplers: how a training run picks the examples of each step.

* :mod:`~symfdp.samplers.records` -- the samplers as typed records (Poisson,
  truncated Poisson, cyclic Poisson, fixed batches with and without
  replacement, random allocation, shuffling, no amplification) and what each guarantees;
* :mod:`~symfdp.samplers.account` -- any mechanism inside any sampler,
  accounted (:func:`account_sampler`), and all samplers side by side
  (:func:`compare_samplers`);
* :mod:`~symfdp.samplers.average` -- two-sided certified laws of the average
  of independent likelihood ratios (the core of random allocation);
* :mod:`~symfdp.samplers.random_allocation` -- random allocation of ``k`` of
  ``t`` steps per epoch, certified on both sides;
* :mod:`~symfdp.samplers.shuffle` -- the certified lower bound of shuffling;
* :mod:`~symfdp.samplers.sensitivity` -- a mechanism's pair at a multiple of
  its sensitivity;
* :mod:`~symfdp.samplers.limits` -- closed forms in the limits of large noise
  (a Gaussian trade-off) and small noise (a certified lower bound).
"""

from __future__ import annotations

from symfdp.samplers.account import (
    ComparisonRow,
    SampledPrivacy,
    account_sampler,
    compare_samplers,
)
from symfdp.samplers.random_allocation import RandomAllocationCurve, random_allocation
from symfdp.samplers.records import (
    CyclicPoisson,
    FixedBatch,
    Guarantee,
    NoAmplification,
    Poisson,
    RandomAllocation,
    RunShape,
    Sampler,
    Shuffle,
    TruncatedPoisson,
    sampler_classes,
    sampler_for,
    sampler_names,
)

__all__ = [
    "ComparisonRow",
    "CyclicPoisson",
    "FixedBatch",
    "Guarantee",
    "NoAmplification",
    "Poisson",
    "RandomAllocation",
    "RandomAllocationCurve",
    "RunShape",
    "SampledPrivacy",
    "Sampler",
    "Shuffle",
    "TruncatedPoisson",
    "account_sampler",
    "compare_samplers",
    "random_allocation",
    "sampler_classes",
    "sampler_for",
    "sampler_names",
]
