r"""A mixture of dominating pairs that reveals its component.

With weights :math:`w_i` (summing to at most 1), pairs :math:`(P_i, Q_i)`, a
null weight :math:`w_0` (an outcome both datasets give alike, loss 0) and a
blatant weight :math:`w_\infty = 1 - w_0 - \sum_i w_i` (an outcome only Q
gives, loss :math:`+\infty`), the pair is

.. math::  P = \textstyle\bigoplus_i w_i P_i \oplus w_0 \mathbb 1_0
               \oplus w_\infty \mathbb 1_A, \qquad
           Q = \textstyle\bigoplus_i w_i Q_i \oplus w_0 \mathbb 1_0
               \oplus w_\infty \mathbb 1_B

on the disjoint union of the outcome spaces (the component is part of the
outcome). Its loss law is the mixture of the components' laws. Revealing the
component only helps the adversary, so by joint convexity of the hockey-stick
divergence it dominates the mixture :math:`(\sum w_i P_i, \sum w_i Q_i)` of
pairs on one space (post-processing: forgetting the component; the same
construction as dp-accounting's ``PrivacyLossDistribution.compute_mixture``).
A sampler whose randomness splits a step into cases (the multiplicity of a
record in a batch drawn with replacement, whether a truncated batch is full)
is accounted by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, NoReturn

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_choice, check_instance, check_real
from symfdp.mechanisms.base import FloatArray, Mechanism, Param, PLRVQuadrature, Under

#: Weights may exceed a sum of 1 by this much (round-off of binomial masses).
_SUM_TOL = 1e-12


@dataclass(frozen=True)
class PairMixture(Mechanism):
    """The disjoint mixture of single dominating pairs (module docstring).

    Args:
        components: Single pairs (each with ``pairs == (itself,)``), at least one.
        weights: Their weights, in [0, 1], as many as ``components``.
        null_weight: Weight of the outcome with loss 0.
        blatant_weight: Weight of the outcome with loss :math:`+\\infty` (read
            as ``blatant_mass`` by the accountants); the weights sum to 1.

    Raises:
        ValueError: a weight outside [0, 1], lengths that differ, weights that
            do not sum to 1, or a component covering several pairs.
    """

    components: tuple[Mechanism, ...]
    weights: tuple[float, ...]
    null_weight: float = 0.0
    blatant_weight: float = 0.0

    name: ClassVar[str] = "pair-mixture"
    PARAMS: ClassVar[dict[str, Param]] = {}

    def __post_init__(self) -> None:
        comps = tuple(self.components)
        if not comps:
            raise ValueError("components must hold at least one pair. Found none.")
        for c in comps:
            check_instance("components", c, Mechanism)
            if len(c.pairs) != 1 or float(getattr(c, "blatant_mass", 0.0)) > 0:
                raise ValueError(
                    "components must be single pairs without blatant mass. "
                    f"Found {c!r}."
                )
        if len(self.weights) != len(comps):
            raise ValueError(
                f"weights must have one entry per component ({len(comps)}). "
                f"Found {len(self.weights)}."
            )
        ws = tuple(check_real("weights", w, 0.0, 1.0) for w in self.weights)
        w0 = check_real("null_weight", self.null_weight, 0.0, 1.0)
        winf = check_real("blatant_weight", self.blatant_weight, 0.0, 1.0)
        total = math.fsum(ws) + w0 + winf
        if abs(total - 1.0) > _SUM_TOL:
            raise ValueError(
                "weights, null_weight and blatant_weight must sum to 1. "
                f"Found {total!r}."
            )
        object.__setattr__(self, "components", comps)
        object.__setattr__(self, "weights", ws)
        object.__setattr__(self, "null_weight", w0)
        object.__setattr__(self, "blatant_weight", winf)

    @property
    def is_symmetric(self) -> bool:
        return self.blatant_weight == 0.0 and all(
            c.is_symmetric for c in self.components
        )

    @property
    def continuous_loss(self) -> bool:
        return self.null_weight == 0.0 and all(
            c.continuous_loss for c in self.components
        )

    @property
    def blatant_mass(self) -> float:
        """Weight of the infinite-loss outcome."""
        return self.blatant_weight

    def finite_part(self) -> PairMixture:
        """The mixture conditioned on a finite loss."""
        keep = 1.0 - self.blatant_weight
        return PairMixture(
            self.components,
            tuple(w / keep for w in self.weights),
            null_weight=max(0.0, 1.0 - math.fsum(w / keep for w in self.weights)),
        )

    def swapped(self) -> Mechanism:
        """The mixture of the swapped pairs (the blatant outcome is refused:
        its swap has loss :math:`-\\infty`, which is no blatant mass)."""
        if self.blatant_weight > 0.0:
            raise ValueError(
                "PairMixture with blatant_weight > 0 has no swapped pair in this "
                "form; swap the components and mix those."
            )
        return PairMixture(
            tuple(c.swapped() for c in self.components),
            self.weights,
            null_weight=self.null_weight,
        )

    def _law(self, fn: str, l: FloatArray, under: Under, inclusive: bool) -> FloatArray:
        out = np.zeros_like(l)
        for c, w in zip(self.components, self.weights, strict=True):
            if w > 0.0:
                out += w * np.asarray(
                    getattr(c, fn)(l, under, inclusive=inclusive), dtype=np.float64
                )
        return out

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        out = self._law("plrv_cdf", ls, under, inclusive)
        out += self.null_weight * ((ls >= 0) if inclusive else (ls > 0))
        return out

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        out = self._law("plrv_sf", ls, under, inclusive)
        out += self.null_weight * ((ls <= 0) if inclusive else (ls < 0))
        if under == "Q":
            out += self.blatant_weight
        return out

    def plrv_support(self) -> tuple[float, float]:
        los, his = zip(*(c.plrv_support() for c in self.components), strict=True)
        lo, hi = min(los), max(his)
        if self.null_weight > 0:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        return lo, hi

    def plrv_quadrature(self) -> PLRVQuadrature:
        """The components' rules with their log weights shifted by
        :math:`\\log w_i`, plus the null atom."""
        nodes, logw = [], []
        for c, w in zip(self.components, self.weights, strict=True):
            if w > 0.0:
                r = c.plrv_quadrature()
                nodes.append(r.nodes)
                logw.append(r.log_weights + math.log(w))
        if self.null_weight > 0.0:
            nodes.append(np.zeros(1))
            logw.append(np.array([math.log(self.null_weight)]))
        return PLRVQuadrature(np.concatenate(nodes), np.concatenate(logw))

    def _refuse(self) -> NoReturn:
        raise NotImplementedError(
            "PairMixture is defined through its privacy-loss law; it has no "
            "output space of its own."
        )

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        self._refuse()

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        self._refuse()


__all__ = ["PairMixture"]
