"""Mechanisms as dominating pairs (P, Q) with PLRV ``L = log dQ/dP``.

``REGISTRY`` maps each mechanism's ``name`` to its class. User-defined pairs
are built by ``from_densities`` (SymPy), ``from_log_likelihood_ratio``
(callables) and ``from_pmfs`` (finite PMFs); their classes (``DensityPair``,
``FinitePair``, the base ``FiniteLoss``) are importable for ``isinstance``.
"""

from __future__ import annotations

from symfdp.mechanisms.adjacency import ADJACENCIES, BothDirections, with_adjacency
from symfdp.mechanisms.base import (
    Mechanism,
    Param,
    PLRVQuadrature,
    QuadratureLimitError,
)
from symfdp.mechanisms.discrete import (
    DiscreteGaussian,
    DiscreteLaplace,
    RandomizedResponse,
    from_pmfs,
)
from symfdp.mechanisms.discrete import (
    FiniteLoss as FiniteLoss,
)
from symfdp.mechanisms.discrete import (
    FinitePair as FinitePair,
)
from symfdp.mechanisms.fixed_batch import SampledWithoutReplacement
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.laplace import Laplace
from symfdp.mechanisms.pure_dp import PureDP
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian
from symfdp.mechanisms.subsampled_laplace import SubsampledLaplace
from symfdp.mechanisms.swapped import Swapped
from symfdp.mechanisms.symbolic_pair import from_densities
from symfdp.mechanisms.user_defined import (
    CGFDomainError,
    from_log_likelihood_ratio,
)
from symfdp.mechanisms.user_defined import (
    DensityPair as DensityPair,
)

REGISTRY: dict[str, type[Mechanism]] = {
    cls.name: cls
    for cls in (Gaussian, Laplace, PureDP, SubsampledGaussian, SubsampledLaplace)
}

__all__ = [
    "ADJACENCIES",
    "REGISTRY",
    "BothDirections",
    "CGFDomainError",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "PLRVQuadrature",
    "Param",
    "PoissonSubsampled",
    "PureDP",
    "QuadratureLimitError",
    "RandomizedResponse",
    "SampledWithoutReplacement",
    "SubsampledGaussian",
    "SubsampledLaplace",
    "Swapped",
    "from_densities",
    "from_log_likelihood_ratio",
    "from_pmfs",
    "with_adjacency",
]
