"""Samplers: how a training run picks the examples of each step.

* :mod:`~symfdp.samplers.average` -- two-sided certified laws of the average
  of independent likelihood ratios (the core of random allocation);
* :mod:`~symfdp.samplers.random_allocation` -- random allocation of ``k`` of
  ``t`` steps per epoch, certified on both sides;
* :mod:`~symfdp.samplers.limits` -- closed forms in the limits of large noise
  (a Gaussian trade-off) and small noise (a certified lower bound).
"""

from __future__ import annotations

from symfdp.samplers.random_allocation import RandomAllocationCurve, random_allocation

__all__ = ["RandomAllocationCurve", "random_allocation"]
