r"""Sampling without replacement (fixed batch size) and the symmetrised pair.

The symmetrised trade-off :math:`C(f) = \min\{f, f^{-1}\}^{**}` (Dong et al.
2019, eq. (14)) has the profile :math:`\delta_C = \max\{\delta_f,
\delta_{f^{-1}}\}` for every real :math:`\varepsilon` (conjugate of a hull of a
minimum). The profile determines the loss law, :math:`P_P(L > \varepsilon) =
-e^{-\varepsilon}\delta'(\varepsilon)` (Zheng et al. 2020, Lemma 5.1), so
:class:`SymmetrisedPair`'s law is that of the direction with the larger profile,
with atoms where the profiles cross. Its CDFs are tail-stable; its quadrature
rule (cumulants, CGF) takes each direction's rule on the intervals it wins, with
panel edges at the crossings.

A batch of fixed size :math:`m` drawn uniformly from :math:`N` records, with
replace-one neighbours, makes an :math:`f`-DP mechanism :math:`C_p(f)`-DP,
:math:`p = m/N`, :math:`C_p(f) = C(f_p)`, :math:`f_p = p f + (1 - p)\mathrm{Id}`
(Dong et al. 2019, Thm 4.2; NoisySGD, Sec. 5): :class:`SampledWithoutReplacement`
symmetrises the add pair of :class:`~symfdp.mechanisms.PoissonSubsampled`."""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from symfdp._validation import (
    check_array,
    check_choice,
    check_instance,
    check_int,
    scalar_or_array,
)
from symfdp.mechanisms.base import (
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    Under,
)
from symfdp.mechanisms.subsampled import PoissonSubsampled

#: Points of the scan for crossings of the two profiles.
_SCAN = 2001


class SymmetrisedPair(Mechanism):
    r"""The dominating pair of :math:`\min\{f, f^{-1}\}^{**}`, :math:`f` the
    trade-off of :meth:`_add` (abstract: subclasses give the add pair)."""

    name: ClassVar[str] = "symmetrised"
    PARAMS: ClassVar[dict[str, Param]] = {}

    def _add(self) -> Mechanism:
        raise NotImplementedError

    @functools.cached_property
    def _dirs(self) -> tuple[Mechanism, Mechanism]:
        add = self._add()
        return add, add.swapped()

    @functools.cached_property
    def _crossings(self) -> FloatArray:
        """Losses where the larger of the two profiles changes."""
        add, rem = self._dirs
        lo = max(min(add.plrv_support()[0], rem.plrv_support()[0]), -60.0)
        hi = min(max(add.plrv_support()[1], rem.plrv_support()[1]), 60.0)
        grid = np.linspace(lo, hi, _SCAN)

        def gap(e: FloatArray) -> FloatArray:
            return np.asarray(rem.privacy_profile(e)) - np.asarray(
                add.privacy_profile(e)
            )

        g = gap(grid)
        # Equal profiles (e.g. both 0 beyond the support) are no crossing.
        idx = np.flatnonzero(
            np.abs(g) > 1e-15 * np.abs(np.asarray(add.privacy_profile(grid)))
        )
        out = []
        for i, j in itertools.pairwise(idx):
            if g[i] * g[j] < 0:
                f = lambda x: float(gap(np.array([x]))[0])  # noqa: E731
                out.append(optimize.brentq(f, grid[i], grid[j], xtol=1e-15))
        return np.array(sorted(out))

    def _remove_wins(self, l: FloatArray) -> NDArray[np.bool_]:
        add, rem = self._dirs
        with np.errstate(invalid="ignore"):
            return np.asarray(rem.privacy_profile(l)) > np.asarray(
                add.privacy_profile(l)
            )

    def _pick(
        self, l: FloatArray, fn: str, under: Under, inclusive: bool
    ) -> FloatArray:
        add, rem = self._dirs
        a = np.asarray(
            getattr(add, fn)(l, under, inclusive=inclusive), dtype=np.float64
        )
        r = np.asarray(
            getattr(rem, fn)(l, under, inclusive=inclusive), dtype=np.float64
        )
        return np.where(self._remove_wins(l), r, a)

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        return scalar_or_array(self._pick(ls, "plrv_cdf", under, bool(inclusive)))

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        return scalar_or_array(self._pick(ls, "plrv_sf", under, bool(inclusive)))

    def replace_one(self) -> Mechanism:
        """Itself: a pair symmetrised over its two directions, as replace-one
        neighbours need (:class:`SampledWithoutReplacement` is defined for
        them)."""
        return self

    def loss_lattice(self) -> float | None:
        """The coarser of the two directions' (None when either has a density)."""
        spans = [m.loss_lattice() for m in self._dirs]
        return None if None in spans else max(s for s in spans if s is not None)

    def plrv_support(self) -> tuple[float, float]:
        add, rem = self._dirs
        a, b = add.plrv_support(), rem.plrv_support()
        return min(a[0], b[0]), max(a[1], b[1])

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        """The larger of the two directions' profiles."""
        e = check_array("eps", eps, allow_inf=True)
        add, rem = self._dirs
        return scalar_or_array(
            np.maximum(
                np.asarray(add.privacy_profile(e)), np.asarray(rem.privacy_profile(e))
            )
        )

    @functools.cached_property
    def _rule(self) -> PLRVQuadrature:
        """On each interval between crossings, the winning direction's rule for
        that interval (:meth:`~symfdp.mechanisms.Mechanism.plrv_pieces`: panel
        edges at the crossings), plus the atoms at the crossings (the jumps of
        ``P_P(L > .)``)."""
        add, rem = self._dirs
        cuts = [float(c) for c in self._crossings]
        pieces = {False: add.plrv_pieces(cuts), True: rem.plrv_pieces(cuts)}
        edges = [-math.inf, *cuts, math.inf]
        nodes, weights = [], []
        for i, (a, b) in enumerate(itertools.pairwise(edges)):
            inside = (
                0.5 * (a + b)
                if math.isfinite(a + b)
                else (
                    b - 1.0
                    if math.isfinite(b)
                    else (a + 1.0 if math.isfinite(a) else 0.0)
                )
            )
            wins = bool(self._remove_wins(np.array([inside]))[0])
            l, w = pieces[wins][i]
            nodes.append(l)
            weights.append(w)
        for c in self._crossings:
            left = float(self._pick(np.array([c - 1e-9]), "plrv_sf", "P", False)[0])
            right = float(self._pick(np.array([c + 1e-9]), "plrv_sf", "P", False)[0])
            jump = left - right
            if jump > 0:
                nodes.append(np.array([c]))
                weights.append(np.array([jump]))
        w = np.concatenate(weights)
        keep = w > 0
        with np.errstate(divide="ignore"):
            return PLRVQuadrature(np.concatenate(nodes)[keep], np.log(w[keep]))

    def plrv_quadrature(self) -> PLRVQuadrature:
        return self._rule

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        raise NotImplementedError(
            f"{type(self).__name__} is defined through its privacy-loss law; it "
            "has no output space of its own."
        )

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        raise NotImplementedError(
            f"{type(self).__name__} is defined through its privacy-loss law; it "
            "has no output space of its own."
        )


@dataclass(frozen=True)
class SampledWithoutReplacement(SymmetrisedPair):
    r"""A batch of ``batch_size`` records drawn uniformly without replacement
    from ``dataset_size``, then ``base``; replace-one neighbours.

    Trade-off :math:`C_p(f)` with :math:`p = m/N` (Dong et al. 2019, Thm 4.2).

    Args:
        base: The mechanism applied to the batch (its pair at replace-one
            sensitivity).
        batch_size: ``m``, an integer in ``[1, dataset_size]``.
        dataset_size: ``N``, an integer ``>= 1``.
    """

    base: Mechanism
    batch_size: int
    dataset_size: int

    name: ClassVar[str] = "sampled-without-replacement"

    def __post_init__(self) -> None:
        check_instance("base", self.base, Mechanism)
        n = check_int("dataset_size", self.dataset_size, lo=1)
        check_int("batch_size", self.batch_size, lo=1, hi=n)

    @property
    def p(self) -> float:
        """The sampling fraction ``batch_size / dataset_size``."""
        return self.batch_size / self.dataset_size

    def _add(self) -> Mechanism:
        if self.batch_size == self.dataset_size:
            return self.base
        return PoissonSubsampled(self.base, p=self.p).with_pair("add")

    def __repr__(self) -> str:
        return (
            f"SampledWithoutReplacement({self.base!r}, batch_size={self.batch_size}, "
            f"dataset_size={self.dataset_size})"
        )
