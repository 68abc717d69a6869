r"""A mixture of dominating pairs on disjoint output spaces.

With weights :math:`w_j > 0`, :math:`\sum_j w_j = 1`, and pairs
:math:`(P_j, Q_j)`, the pair

.. math::  P = \sum_j w_j\, P_j \otimes \delta_j, \qquad
           Q = \sum_j w_j\, Q_j \otimes \delta_j

(the label :math:`j` is part of the output) has the privacy loss of component
:math:`j` with probability :math:`w_j`, so every law, profile and hockey-stick
divergence is the :math:`w`-mixture of the components':

.. math::  \delta(\varepsilon) = \sum_j w_j\, \delta_j(\varepsilon), \qquad
           K_P(t) = \log \sum_j w_j e^{K_{P_j}(t)}.

By the joint convexity of the hockey-stick divergence, a mechanism whose
output laws are :math:`\sum_j w_j A_j` and :math:`\sum_j w_j B_j` with each
:math:`(A_j, B_j)` dominated by :math:`(P_j, Q_j)` is dominated by this pair
(Zhu, Dong & Wang 2022, Def. 7 and Lemma 8 for dominance; used by
dp-accounting's ``PrivacyLossDistribution.compute_mixture`` for truncated
Poisson sampling, Ganesh 2025, arXiv 2508.15089). Accuracy: that of the
components (sums of positive terms)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_choice, check_int, scalar_or_array
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    Under,
)
from symfdp.numeric.moments import cumulants_from_moments, moments_from_cumulants

#: Tolerance on the total weight before it is renormalised to 1.
WEIGHT_TOL = 1e-9


@dataclass(frozen=True)
class PairMixture(Mechanism):
    r"""The :math:`w`-mixture of dominating pairs on disjoint outputs.

    Args:
        components: ``((w_1, pair_1), ...)``: positive weights summing to 1
            (within :data:`WEIGHT_TOL`; renormalised) and single dominating
            pairs (a mechanism whose ``pairs`` is itself).
    """

    components: tuple[tuple[float, Mechanism], ...]

    name: ClassVar[str] = "pair-mixture"
    PARAMS: ClassVar[dict[str, Param]] = {}

    def __post_init__(self) -> None:
        if isinstance(self.components, (str, bytes)) or not hasattr(
            self.components, "__iter__"
        ):
            raise TypeError(
                "components must be a sequence of (weight, Mechanism) pairs. "
                f"Found {self.components!r}."
            )
        comps = tuple(self.components)
        if not comps:
            raise ValueError("components must hold at least one (weight, pair).")
        weights, pairs = [], []
        for item in comps:
            try:
                w, m = item
            except (TypeError, ValueError):
                raise TypeError(
                    f"components must be (weight, Mechanism) pairs. Found {item!r}."
                ) from None
            if not isinstance(m, Mechanism):
                raise TypeError(
                    f"components must hold Mechanisms. Found {type(m).__name__}."
                )
            if len(m.pairs) != 1:
                raise ValueError(
                    f"each component must be one dominating pair; {m!r} covers "
                    f"{len(m.pairs)} (take its .pairs)."
                )
            w = float(w)
            if not (math.isfinite(w) and w > 0.0):
                raise ValueError(
                    f"components: weights must be positive and finite. Found {w!r}."
                )
            weights.append(w)
            pairs.append(m)
        total = math.fsum(weights)
        if abs(total - 1.0) > WEIGHT_TOL:
            raise ValueError(
                f"components: weights must sum to 1 (within {WEIGHT_TOL:g}). "
                f"Found {total!r}."
            )
        object.__setattr__(
            self,
            "components",
            tuple((w / total, m) for w, m in zip(weights, pairs, strict=True)),
        )

    @property
    def _weights(self) -> FloatArray:
        return np.array([w for w, _ in self.components])

    @property
    def _pairs(self) -> tuple[Mechanism, ...]:
        return tuple(m for _, m in self.components)

    @property
    def is_symmetric(self) -> bool:
        return all(m.is_symmetric for m in self._pairs)

    @property
    def continuous_loss(self) -> bool:
        return all(m.continuous_loss for m in self._pairs)

    def swapped(self) -> Mechanism:
        """The mixture of the swapped components (same weights)."""
        return PairMixture(tuple((w, m.swapped()) for w, m in self.components))

    def _mix(self, fn: str, *args: Any, **kwargs: Any) -> FloatArray:
        return np.asarray(
            sum(
                w * np.asarray(getattr(m, fn)(*args, **kwargs), dtype=np.float64)
                for w, m in self.components
            ),
            dtype=np.float64,
        )

    def _law(self, fn: str, l: ArrayLike, under: Under, inclusive: bool) -> FloatArray:
        """The w-mixture of the components' ``fn`` (a CDF or survival function)."""
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        return scalar_or_array(
            np.clip(self._mix(fn, ls, under, inclusive=inclusive), 0.0, 1.0)
        )

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        return self._law("plrv_cdf", l, under, inclusive)

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        return self._law("plrv_sf", l, under, inclusive)

    def _mix_pq(
        self, fn: str, l: ArrayLike, inclusive: bool
    ) -> tuple[FloatArray, FloatArray]:
        ls = check_array("l", l, allow_inf=True)
        p = np.zeros(ls.shape)
        q = np.zeros(ls.shape)
        for w, m in self.components:
            a, b = getattr(m, fn)(ls, inclusive=inclusive)
            p = p + w * np.asarray(a, dtype=np.float64)
            q = q + w * np.asarray(b, dtype=np.float64)
        return np.clip(p, 0.0, 1.0), np.clip(q, 0.0, 1.0)

    def plrv_cdf_pq(
        self, l: ArrayLike, *, inclusive: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        return self._mix_pq("plrv_cdf_pq", l, inclusive)

    def plrv_sf_pq(
        self, l: ArrayLike, *, inclusive: bool = False
    ) -> tuple[FloatArray, FloatArray]:
        return self._mix_pq("plrv_sf_pq", l, inclusive)

    def plrv_support(self) -> tuple[float, float]:
        ends = [m.plrv_support() for m in self._pairs]
        return min(e[0] for e in ends), max(e[1] for e in ends)

    def plrv_quadrature(self) -> PLRVQuadrature:
        """The components' rules, their log-weights shifted by ``log w_j``."""
        rules = [(w, m.plrv_quadrature()) for w, m in self.components]
        return PLRVQuadrature(
            np.concatenate([r.nodes for _, r in rules]),
            np.concatenate([r.log_weights + math.log(w) for w, r in rules]),
        )

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\sum_j w_j \delta_j(\varepsilon)`."""
        e = check_array("eps", eps, allow_inf=True)
        return scalar_or_array(np.clip(self._mix("privacy_profile", e), 0.0, 1.0))

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        """Cumulants of the mixture from the components': raw moments about the
        mixture mean, mixed, and turned back into cumulants."""
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        w = self._weights
        kap = np.array(
            [
                np.asarray(m.cumulants(order, under), dtype=np.float64)
                for m in self._pairs
            ]
        )
        mean = float(w @ kap[:, 0])
        shifted = kap.copy()
        shifted[:, 0] -= mean
        moments = w @ np.array([moments_from_cumulants(k) for k in shifted])
        out = cumulants_from_moments(moments)
        out[0] += mean
        return out

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r""":math:`K = \log\sum_j w_j e^{K_j}`, :math:`K' = \sum_j \pi_j K_j'`,
        :math:`K'' = \sum_j \pi_j (K_j'' + K_j'^2) - K'^2` with
        :math:`\pi_j \propto w_j e^{K_j}` (normalised in log space)."""
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t)
        parts = [m.cgf_derivatives(ts, under) for m in self._pairs]
        k0 = np.array([np.asarray(p[0], dtype=np.float64) for p in parts])
        k1 = np.array([np.asarray(p[1], dtype=np.float64) for p in parts])
        k2 = np.array([np.asarray(p[2], dtype=np.float64) for p in parts])
        logw = np.log(self._weights).reshape((-1,) + (1,) * ts.ndim)
        a = k0 + logw
        top = a.max(axis=0)
        pi = np.exp(a - top)
        s = pi.sum(axis=0)
        pi = pi / s
        m1 = (pi * k1).sum(axis=0)
        m2 = (pi * (k2 + (k1 - m1) ** 2)).sum(axis=0)
        return (
            scalar_or_array(top + np.log(s)),
            scalar_or_array(m1),
            scalar_or_array(m2),
        )

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        raise NotImplementedError(
            "PairMixture is defined through its privacy-loss law (its output is "
            "a component label and that component's output)."
        )

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        raise NotImplementedError(
            "PairMixture is defined through its privacy-loss law (its output is "
            "a component label and that component's output)."
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"({w:.6g}, {m!r})" for w, m in self.components)
        return f"PairMixture({inner})"


def pair_mixture(weights: Sequence[float], pairs: Sequence[Mechanism]) -> Mechanism:
    """:class:`PairMixture` of ``pairs`` with ``weights``, components of weight 0
    dropped, and the single pair itself when one remains."""
    comps = tuple(
        (float(w), m) for w, m in zip(weights, pairs, strict=True) if float(w) > 0.0
    )
    if len(comps) == 1:
        return comps[0][1]
    return PairMixture(comps)
