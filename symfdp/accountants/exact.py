r"""``Exact``: closed-form compositions, certified with zero-width bounds.

* **Gaussian** mechanisms (any mix of :math:`G_{\mu_i}` with counts):
  :math:`G_{\mu_1}\otimes\cdots = G_{\sqrt{\sum_i n_i\mu_i^2}}` (Dong et al. 2019,
  Cor. 3.3), with :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) -
  e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)` (Cor. 2.13).
* **Pure DP** (randomised response, :math:`f_{\varepsilon,0}`), homogeneous: the
  KOV representation :math:`f_{\varepsilon,0}^{\otimes n} = T(B(n, p_\varepsilon),
  B(n, q_\varepsilon))`, :math:`p_\varepsilon = 1/(1+e^\varepsilon)`,
  :math:`q_\varepsilon = e^\varepsilon/(1+e^\varepsilon)` (Dong et al. 2019,
  Sec. 3.3, Thm 3.4), :math:`L = \varepsilon(2k - n)`: :math:`\delta(\varepsilon')
  = \sum_k Q_k\,(1 - e^{\varepsilon' - L_k})_+` from log-probabilities, the
  Neyman–Pearson vertices :math:`(P[K \ge j], Q[K < j])` (ALG-9). Heterogeneous
  pure DP convolves the binomial laws of the distinct :math:`\varepsilon_i`.
* A **single mechanism** (``n = 1``) uses the mechanism's own closed forms
  (``privacy_profile``, ``tradeoff``).

Anything else raises ``ValueError``. The only approximation: atoms with P- and
Q-probabilities below :math:`e^{-745}` (float64 underflow) are dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from symfdp.accountants._exact_pairs import ExactGaussianPairCurve
from symfdp.accountants.base import Accountant, Components, pair_compositions
from symfdp.curve import Answer, PairCurve, Query, invert_profile
from symfdp.curve.answer import exact_answer
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.pure_dp import PureDP
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.swapped import Swapped
from symfdp.numeric.roots import monotone_bisect

#: Log-probability below which an atom is dropped (float64 underflow).
LOG_TINY: Final = -745.0
#: Largest number of atoms of an exact heterogeneous pure-DP convolution.
MAX_ATOMS: Final = 2_000_000
#: Entries per chunk of the (eps x atoms) profile sums.
_CHUNK: Final = 4_000_000


@dataclass(frozen=True)
class DiscretePairCurve(PairCurve):
    r"""Exact profile and trade-off of a finite privacy-loss law.

    Attributes:
        loss: Distinct loss values :math:`L_a`, in decreasing order.
        log_q: :math:`\log Q(L = L_a)`.
        log_p: :math:`\log P(L = L_a)` (:math:`= \log Q(L = L_a) - L_a`).
    """

    loss: FloatArray
    log_q: FloatArray
    log_p: FloatArray
    info: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_atoms(
        cls, loss: FloatArray, log_q: FloatArray, log_p: FloatArray
    ) -> DiscretePairCurve:
        """Sort by decreasing loss, merge equal losses, drop underflowing atoms."""
        loss, log_q, log_p = (
            np.asarray(a, dtype=np.float64) for a in (loss, log_q, log_p)
        )
        keep = (log_q > LOG_TINY) | (log_p > LOG_TINY)
        loss, log_q, log_p = loss[keep], log_q[keep], log_p[keep]
        order = np.argsort(-loss, kind="stable")
        loss, log_q, log_p = loss[order], log_q[order], log_p[order]
        uniq, start = np.unique(-loss, return_index=True)
        if uniq.size < loss.size:
            log_q = np.logaddexp.reduceat(log_q, start)
            log_p = np.logaddexp.reduceat(log_p, start)
            loss = -uniq
        for arr in (loss, log_q, log_p):
            arr.setflags(write=False)
        return cls(loss, log_q, log_p, {"atoms": int(loss.size)})

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """Exact values (zero error, zero-width bracket)."""
        if query is Query.DELTA:
            return exact_answer(self.delta(points))
        if query is Query.EPSILON:
            return exact_answer(self.epsilon(points))
        return exact_answer(self.tradeoff(points))

    def delta(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\sum_a Q_a (1 - e^{\varepsilon - L_a})_+`, chunked over eps."""
        e = np.asarray(eps, dtype=np.float64)
        flat = e.reshape(-1)
        out = np.empty(flat.shape)
        step = max(1, _CHUNK // max(self.loss.size, 1))
        for i in range(0, flat.size, step):
            ee = flat[i : i + step, None]
            gap = np.minimum(ee - self.loss[None, :], 0.0)
            with np.errstate(invalid="ignore"):
                terms = np.exp(self.log_q[None, :]) * -np.expm1(gap)
            out[i : i + step] = np.where(np.isnan(terms), 0.0, terms).sum(axis=1)
        return np.clip(out, 0.0, 1.0).reshape(e.shape)

    def epsilon(self, delta: ArrayLike) -> FloatArray:
        r""":math:`\inf\{\varepsilon \ge 0 : \delta(\varepsilon) \le d\}` by
        bisection on :math:`[0, \max_a L_a]`."""
        d = np.asarray(delta, dtype=np.float64)
        top = max(float(self.loss[0]), 0.0) if self.loss.size else 0.0
        return monotone_bisect(
            self.delta,
            d,
            np.zeros(d.shape),
            np.full(d.shape, top),
            xtol=1e-12,
            rtol=1e-13,
        )

    def vertices(self) -> tuple[FloatArray, FloatArray]:
        r"""Neyman–Pearson vertices :math:`(\alpha_j, \beta_j) = (P[\text{top } j],
        Q[\text{rest}])`, :math:`j = 0..A`; :math:`\beta` summed from the tail."""
        p = np.exp(self.log_p)
        q = np.exp(self.log_q)
        alpha = np.concatenate(([0.0], np.cumsum(p)))
        beta = np.concatenate((np.cumsum(q[::-1])[::-1], [0.0]))
        return np.minimum(alpha, 1.0), np.minimum(beta, 1.0)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        """The piecewise-linear Neyman–Pearson curve (randomised tests)."""
        a = np.asarray(alpha, dtype=np.float64)
        xs, ys = self.vertices()
        xs = np.maximum.accumulate(xs)
        return np.interp(a, xs, ys, right=0.0)


@dataclass(frozen=True)
class ClosedFormPairCurve(PairCurve):
    """A single mechanism's own closed forms (``n = 1``); its inverse profile by
    :func:`~symfdp.curve.invert_profile`."""

    mechanism: Mechanism

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """Exact values (zero error, zero-width bracket)."""
        if query is Query.DELTA:
            return exact_answer(self._delta(points))
        if query is Query.EPSILON:
            return exact_answer(invert_profile(self._delta, points))
        tradeoff = self.mechanism.tradeoff(points)
        return exact_answer(np.asarray(tradeoff, dtype=np.float64))

    def _delta(self, eps: FloatArray) -> FloatArray:
        return np.asarray(self.mechanism.privacy_profile(eps), dtype=np.float64)


def _law_of(m: Mechanism) -> Mechanism:
    """The Gaussian or pure-DP pair with the same privacy-loss law, if any."""
    if isinstance(m, Swapped) and m.base.is_symmetric:
        return _law_of(m.base)
    if isinstance(m, PoissonSubsampled) and m.p == 1.0 and m.base.is_symmetric:
        return _law_of(m.base)
    return m


def _has_closed_form(m: Mechanism) -> bool:
    return type(m).tradeoff is not Mechanism.tradeoff


def binomial_atoms(eps0: float, n: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Loss values and Q- and P-log-probabilities of
    :math:`f_{\varepsilon_0,0}^{\otimes n}`.

    :math:`k \sim B(n, q_\varepsilon)` under Q, :math:`B(n, p_\varepsilon)` under P,
    :math:`L = \varepsilon_0(2k - n)` (KOV; Dong et al. 2019, Sec. 3.3); both from
    :math:`p_\varepsilon` (exact for large :math:`\varepsilon_0`).
    """
    k = np.arange(n + 1, dtype=np.float64)
    p_eps = float(special.expit(-eps0))
    log_q = np.asarray(stats.binom.logpmf(n - k, n, p_eps), dtype=np.float64)
    log_p = np.asarray(stats.binom.logpmf(k, n, p_eps), dtype=np.float64)
    return eps0 * (2.0 * k - n), log_q, log_p


def pure_dp_pair(groups: list[tuple[float, int]]) -> DiscretePairCurve:
    """Exact composition of pure-DP mechanisms given as ``(eps_i, n_i)`` groups."""
    loss, log_q, log_p = np.zeros(1), np.zeros(1), np.zeros(1)
    for eps0, n in groups:
        l_g, q_g, p_g = binomial_atoms(eps0, n)
        keep = (q_g > LOG_TINY) | (p_g > LOG_TINY)
        l_g, q_g, p_g = l_g[keep], q_g[keep], p_g[keep]
        if loss.size * l_g.size > MAX_ATOMS:
            raise ValueError(
                f"exact pure-DP composition needs more than {MAX_ATOMS} atoms for "
                f"these {len(groups)} distinct epsilons; use accountants.Numerical()."
            )
        loss = (loss[:, None] + l_g[None, :]).reshape(-1)
        log_q = (log_q[:, None] + q_g[None, :]).reshape(-1)
        log_p = (log_p[:, None] + p_g[None, :]).reshape(-1)
        keep = (log_q > LOG_TINY) | (log_p > LOG_TINY)
        loss, log_q, log_p = loss[keep], log_q[keep], log_p[keep]
    return DiscretePairCurve.from_atoms(loss, log_q, log_p)


class Exact(Accountant):
    r"""Closed-form accountant (certified, zero-width bounds).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = Exact().compose(M.PureDP(eps=10 ** -0.5), n=10)
        >>> round(curve.epsilon(1e-3), 2)
        2.89
    """

    method = "Exact"
    certified = True
    identity_without_variance = False  # the closed forms are exact there too

    @classmethod
    def serves(cls, components: Components) -> bool:
        """Whether a closed form covers every direction of ``components`` (the
        cases of :meth:`compose_pair`)."""
        for c in pair_compositions(components):
            laws = [_law_of(m) for m, _ in c]
            if all(isinstance(m, Gaussian) for m in laws):
                continue
            if all(isinstance(m, PureDP) for m in laws):
                continue
            if len(c) == 1 and c[0][1] == 1 and _has_closed_form(c[0][0]):
                continue
            return False
        return True

    def compose_pair(self, components: Components) -> PairCurve:
        laws = [(_law_of(m), n) for m, n in components]
        if all(isinstance(m, Gaussian) for m, _ in laws):
            mu = math.sqrt(math.fsum(n * m.mu**2 for m, n in laws))  # type: ignore[attr-defined]
            return ExactGaussianPairCurve(mu)
        if all(isinstance(m, PureDP) for m, _ in laws):
            groups: dict[float, int] = {}
            for m, n in laws:
                groups[m.eps] = groups.get(m.eps, 0) + n  # type: ignore[attr-defined]
            return pure_dp_pair(sorted(groups.items()))
        if len(components) == 1 and components[0][1] == 1:
            m = components[0][0]
            if _has_closed_form(m):
                return ClosedFormPairCurve(m)
        missing = [
            f"{m!r} (n={n})"
            for (m, n), (law, _) in zip(components, laws, strict=True)
            if not isinstance(law, (Gaussian, PureDP))
        ]
        raise ValueError(
            "accountants.Exact has closed forms only for compositions of Gaussian "
            "mechanisms, compositions of pure-DP mechanisms, and a single mechanism "
            f"(n=1) with a closed-form trade-off. No closed form for: "
            f"{', '.join(missing) or 'this mix of Gaussian and pure-DP mechanisms'}. "
            "Use accountants.Numerical() (certified) instead."
        )

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        laws = [(_law_of(m), n) for m, n in components]
        if all(isinstance(m, Gaussian) for m, _ in laws):
            info["mu"] = math.sqrt(math.fsum(n * m.mu**2 for m, n in laws))  # type: ignore[attr-defined]
        return info

    def __repr__(self) -> str:
        return "Exact()"
