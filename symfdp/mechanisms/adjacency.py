r"""The neighbouring relation as a transform of a mechanism.

A mechanism is the dominating pair :math:`(P, Q)` of its *add* direction. The
relation (as dp-accounting's ``NeighboringRelation``) decides the pairs a
composition must cover: ``"add"``, the pair; ``"remove"``, the swapped pair;
``"add_or_remove"``, both directions, :math:`\delta` the larger;
``"replace_one"``, the mechanism's own replace-one pair
(:meth:`~symfdp.mechanisms.Mechanism.replace_one`: a shift family's shift
doubles, a guarantee stays, Poisson subsampling has its own mixture pair, a
user pair is refused), both directions when it is asymmetric.
:class:`BothDirections` answers no PLRV query itself; ask ``pairs[0]`` (add) or
``pairs[1]`` (remove)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn, cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_choice, scalar_or_array
from symfdp.adjacency import ADJACENCIES as _ADJACENCIES
from symfdp.mechanisms.base import FloatArray, Mechanism, Param, PLRVQuadrature

#: The neighbouring relations, in dp-accounting's terms
#: (:class:`symfdp.adjacency.Adjacency`).
ADJACENCIES: tuple[str, ...] = _ADJACENCIES


@dataclass(frozen=True)
class BothDirections(Mechanism):
    """Both directions ``(base, base.swapped())`` of an asymmetric pair.

    Args:
        base: The add pair.
    """

    base: Mechanism

    name: ClassVar[str] = "both-directions"
    PARAMS: ClassVar[dict[str, Param]] = {}

    def __post_init__(self) -> None:
        if not isinstance(self.base, Mechanism):
            raise TypeError(
                f"base must be a Mechanism. Found {type(self.base).__name__}."
            )

    @property
    def is_symmetric(self) -> bool:
        return False

    @property
    def pairs(self) -> tuple[Mechanism, ...]:
        return (self.base, self.base.swapped())

    def replace_one(self) -> Mechanism:
        """The base's (replace-one is its own relation, not a direction)."""
        return self.base.replace_one()

    def loss_lattice(self) -> float | None:
        """Both directions share the base's lattice (reflected)."""
        return self.base.loss_lattice()

    def _refuse(self, what: str) -> NoReturn:
        raise TypeError(
            f"{self!r} covers two dominating pairs (add, remove), so it has no "
            f"single {what}. Ask .pairs[0] (add) or .pairs[1] (remove)."
        )

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        self._refuse("log-likelihood ratio")

    def pdf(self, x: ArrayLike, under: Any = "P") -> FloatArray:
        self._refuse("density")

    def plrv_cdf(
        self, l: ArrayLike, under: Any = "P", *, inclusive: bool = True
    ) -> Any:
        self._refuse("privacy-loss law")

    def plrv_sf(
        self, l: ArrayLike, under: Any = "P", *, inclusive: bool = False
    ) -> Any:
        self._refuse("privacy-loss law")

    def plrv_quadrature(self) -> PLRVQuadrature:
        self._refuse("privacy-loss law")

    def plrv_support(self) -> tuple[float, float]:
        self._refuse("privacy-loss support")

    def cumulants(self, order: int, under: Any = "P") -> FloatArray:
        self._refuse("cumulants")

    def cgf_derivatives(self, t: ArrayLike, under: Any = "P") -> Any:
        self._refuse("CGF")

    def tilted_abs_moment3(self, t: ArrayLike, under: Any = "Q") -> Any:
        self._refuse("CGF")

    def expect(self, fn: Any, under: Any = "P") -> Any:
        self._refuse("expectations")

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        """The larger of the two directions' profiles."""
        e = check_array("eps", eps, allow_inf=True)
        add, remove = self.pairs
        return scalar_or_array(
            np.maximum(
                np.asarray(add.privacy_profile(e)),
                np.asarray(remove.privacy_profile(e)),
            )
        )

    def __repr__(self) -> str:
        return f"BothDirections({self.base!r})"


def with_adjacency(mechanism: Mechanism, adjacency: str) -> Mechanism:
    """``mechanism`` under the neighbouring relation ``adjacency``.

    Args:
        mechanism: A mechanism (its add pair, or a Poisson-subsampled one).
        adjacency: One of :data:`ADJACENCIES`.

    Returns:
        A mechanism whose ``pairs`` cover the relation: pass it to any
        accountant's ``compose``.

    Raises:
        TypeError: ``mechanism`` is not a Mechanism.
        ValueError: unknown ``adjacency``, or ``"replace_one"`` for a
            mechanism that cannot say what it means
            (:meth:`~symfdp.mechanisms.Mechanism.replace_one`).
    """
    if not isinstance(mechanism, Mechanism):
        raise TypeError(
            f"mechanism must be a Mechanism. Found {type(mechanism).__name__}."
        )
    rel = check_choice("adjacency", adjacency, ADJACENCIES)
    if rel == "replace_one":
        one = mechanism.replace_one()
        return one if one.is_symmetric else BothDirections(one)
    with_pair = getattr(mechanism, "with_pair", None)
    if with_pair is not None:
        return cast(
            Mechanism, with_pair({"add": "add", "remove": "remove"}.get(rel, "both"))
        )
    if rel == "add" or mechanism.is_symmetric:
        return mechanism
    if rel == "remove":
        return mechanism.swapped()
    return BothDirections(mechanism)
