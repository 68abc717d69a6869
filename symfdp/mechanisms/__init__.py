"""Mechanisms as dominating pairs (P, Q) with PLRV ``L = log dQ/dP``.

``REGISTRY`` maps each mechanism's ``name`` to its class. User-defined pairs
are built by ``from_densities`` (SymPy), ``from_log_likelihood_ratio``
(callables) and ``from_pmfs`` (finite PMFs); their classes (``DensityPair``,
``FinitePair``, the base ``FiniteLoss``) are importable for ``isinstance``.
"""

from __future__ import annotations

from typing import Any

from symfdp.mechanisms._errors import UndefinedRelationError
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
from symfdp.mechanisms.epsilon_delta import BlatantLossError, EpsilonDelta
from symfdp.mechanisms.fixed_batch import SampledWithoutReplacement
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.laplace import Laplace
from symfdp.mechanisms.last_iterate import last_iterate
from symfdp.mechanisms.mixture_of_gaussians import mixture_of_gaussians
from symfdp.mechanisms.pair_mixture import PairMixture, pair_mixture
from symfdp.mechanisms.pure_dp import PureDP
from symfdp.mechanisms.sampled_with_replacement import sampled_with_replacement
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian
from symfdp.mechanisms.subsampled_laplace import SubsampledLaplace
from symfdp.mechanisms.swapped import Swapped
from symfdp.mechanisms.symbolic_pair import from_densities
from symfdp.mechanisms.truncated_poisson import (
    TruncationOdds,
    truncated_subsampled_gaussian,
    truncation_odds,
)
from symfdp.mechanisms.user_defined import (
    CGFDomainError,
    from_log_likelihood_ratio,
)
from symfdp.mechanisms.user_defined import (
    DensityPair as DensityPair,
)

#: Constructor arguments outside ``PARAMS`` that a family may take: the other
#: parametrisation (``sigma = 1/mu``) and the deprecated adjacency ``pair``.
FAMILY_EXTRA_ARGS: tuple[str, ...] = ("mu", "sigma", "pair")


def _subclasses(cls: type[Any]) -> list[type[Any]]:
    out: list[type[Any]] = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def _families() -> dict[str, type[Mechanism]]:
    """Every parametric family of this package, by ``name``: a concrete public
    class with ``PARAMS`` whose constructor takes nothing but its ``PARAMS``
    and :data:`FAMILY_EXTRA_ARGS`. Wrappers (of another mechanism) and
    user-defined pairs have no ``PARAMS``; families with an integer argument
    (``RandomizedResponse(k=)``) take it outside ``PARAMS``."""
    import inspect

    out: dict[str, type[Mechanism]] = {}
    for cls in _subclasses(Mechanism):
        if (
            not cls.__module__.startswith(__name__ + ".")
            or cls.__name__.startswith("_")
            or inspect.isabstract(cls)
            or not cls.__dict__.get("PARAMS")
        ):
            continue
        args = set(inspect.signature(cls).parameters)
        if args <= set(cls.PARAMS) | set(FAMILY_EXTRA_ARGS):
            out[cls.name] = cls
    return dict(sorted(out.items()))


#: The parametric families by ``name`` (derived: :func:`_families`).
REGISTRY: dict[str, type[Mechanism]] = _families()

__all__ = [
    "ADJACENCIES",
    "REGISTRY",
    "BlatantLossError",
    "BothDirections",
    "CGFDomainError",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "EpsilonDelta",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "PLRVQuadrature",
    "PairMixture",
    "Param",
    "PoissonSubsampled",
    "PureDP",
    "QuadratureLimitError",
    "RandomizedResponse",
    "SampledWithoutReplacement",
    "SubsampledGaussian",
    "SubsampledLaplace",
    "Swapped",
    "TruncationOdds",
    "UndefinedRelationError",
    "from_densities",
    "from_log_likelihood_ratio",
    "from_pmfs",
    "last_iterate",
    "mixture_of_gaussians",
    "pair_mixture",
    "sampled_with_replacement",
    "truncated_subsampled_gaussian",
    "truncation_odds",
    "with_adjacency",
]
