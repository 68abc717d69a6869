"""Mechanisms as dominating pairs (P, Q) with PLRV ``L = log dQ/dP``.

``REGISTRY`` maps each mechanism's ``name`` to its class.
"""

from __future__ import annotations

from symfdp.mechanisms.base import Mechanism, Param, PLRVQuadrature
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian
from symfdp.mechanisms.swapped import Swapped

REGISTRY: dict[str, type[Mechanism]] = {
    cls.name: cls for cls in (Gaussian, SubsampledGaussian)
}

__all__ = [
    "REGISTRY",
    "Gaussian",
    "Mechanism",
    "PLRVQuadrature",
    "Param",
    "PoissonSubsampled",
    "SubsampledGaussian",
    "Swapped",
]
