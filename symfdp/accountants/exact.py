r"""``Exact``: closed-form compositions, certified with zero-width bounds.

* **Gaussian** mechanisms (any mix of :math:`G_{\mu_i}` with counts):
  :math:`G_{\mu_1}\otimes\cdots = G_{\sqrt{\sum_i n_i\mu_i^2}}` (Dong et al. 2019,
  Cor. 3.3), with :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) -
  e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)` (Cor. 2.13).
* **Finite laws** (pure DP, randomized response, discrete Laplace and Gaussian,
  PMF pairs: every mechanism declaring ``finite_loss_law``). A two-point law
  :math:`L \in \{l_0, l_1\}` composes into a binomial: :math:`L = n l_0 + k(l_1
  - l_0)`, :math:`k \sim B(n, P[l_1])` under P and :math:`B(n, Q[l_1])` under Q
  (for pure DP the KOV representation :math:`f_{\varepsilon,0}^{\otimes n} =
  T(B(n, p_\varepsilon), B(n, q_\varepsilon))`, Kairouz, Oh, Viswanath 2015,
  Thm 3.3; Dong et al. 2019, Sec. 3.3, Thm 3.4), from log-probabilities. A law
  of :math:`K > 2` atoms on a lattice composes into the multinomial sum over
  the counts of each atom, computed as the n-fold convolution of its P- and
  Q-mass vectors by repeated squaring (direct sums of positive terms: each
  mass to :math:`O(nK)` ulps relative). :math:`\delta(\varepsilon') = \sum_k
  Q_k\,(1 - e^{\varepsilon' - L_k})_+`, the Neyman–Pearson vertices
  :math:`(P[L \ge L_j], Q[L < L_j])` (ALG-9). Atoms off any lattice and
  distinct laws are convolved atom by atom.
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
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from symfdp.accountants._exact_pairs import ExactGaussianPairCurve
from symfdp.accountants.base import Accountant, Components, pair_compositions
from symfdp.curve import Answer, PairCurve, Query, invert_profile
from symfdp.curve.answer import exact_answer
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.numeric.roots import monotone_bisect

#: Log-probability below which an atom is dropped (float64 underflow).
LOG_TINY: Final = -745.0
#: Largest number of atoms of an exact heterogeneous convolution.
MAX_ATOMS: Final = 2_000_000
#: Largest number of lattice points of an n-fold lattice convolution.
MAX_LATTICE: Final = 20_001
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


def _has_closed_form(m: Mechanism) -> bool:
    return type(m).tradeoff is not Mechanism.tradeoff


def _lattice_index(l: FloatArray) -> tuple[float, float, NDArray[np.int64]] | None:
    """``(origin, span, index)`` with ``l = origin + span * index`` (1e-9), or
    None when the atoms lie on no lattice of at most :data:`MAX_LATTICE`
    points (one step of the law)."""
    span = float(np.min(np.diff(l)))
    k = (l - l[0]) / span
    idx = np.round(k)
    if np.any(np.abs(k - idx) > 1e-9 * np.maximum(1.0, k)) or idx[-1] >= MAX_LATTICE:
        return None
    return float(l[0]), span, idx.astype(np.int64)


def binomial_atoms(eps0: float, n: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""Loss values and Q- and P-log-probabilities of
    :math:`f_{\varepsilon_0,0}^{\otimes n}` (:func:`two_point_atoms` of
    :math:`\pm\varepsilon_0`)."""
    log_p_top = float(-np.logaddexp(0.0, eps0))  # P(L = eps0) = 1/(1+e^eps0)
    loss = np.array([-eps0, eps0])
    log_p = np.array([float(-np.logaddexp(0.0, -eps0)), log_p_top])
    return two_point_atoms(loss, log_p, n)


def two_point_atoms(
    loss: FloatArray, log_p: FloatArray, n: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""The binomial law of :math:`n` compositions of :math:`L \in \{l_0, l_1\}`:
    :math:`L = n l_0 + k (l_1 - l_0)`, :math:`k \sim B(n, P[l_1])` under P and
    :math:`B(n, Q[l_1])` under Q, :math:`Q[l_1] = P[l_1] e^{l_1}` (both from
    log-probabilities: exact for large losses)."""
    k = np.arange(n + 1, dtype=np.float64)
    lo, hi = float(loss[0]), float(loss[1])
    log_q = (float(log_p[0]) + lo, float(log_p[1]) + hi)
    return (
        n * lo + k * (hi - lo),
        _binomial_logpmf(k, n, log_q),
        _binomial_logpmf(k, n, (float(log_p[0]), float(log_p[1]))),
    )


def _binomial_logpmf(
    k: FloatArray, n: int, log_mass: tuple[float, float]
) -> FloatArray:
    """``log P[k draws of the second atom]``, from the smaller of the two masses
    (no precision lost to ``1 - p``)."""
    first, second = math.exp(log_mass[0]), math.exp(log_mass[1])
    if second <= first:
        return np.asarray(stats.binom.logpmf(k, n, second), dtype=np.float64)
    return np.asarray(stats.binom.logpmf(n - k, n, first), dtype=np.float64)


def lattice_power_atoms(
    loss: FloatArray, log_p: FloatArray, n: int
) -> tuple[FloatArray, FloatArray, FloatArray] | None:
    r"""The multinomial law of :math:`n` compositions of a lattice law (atoms
    ``loss`` = origin + span * index): the n-fold convolution of its P- and
    Q-mass vectors by repeated squaring, each a direct sum of positive terms.
    None when the atoms are on no lattice.

    Raises:
        ValueError: the result would exceed :data:`MAX_LATTICE` points."""
    grid = _lattice_index(loss)
    if grid is None:
        return None
    origin, span, idx = grid
    if n * int(idx[-1]) + 1 > MAX_LATTICE:
        raise ValueError(
            f"accountants.Exact: {n} compositions of a lattice law of "
            f"{int(idx[-1]) + 1} points need {n * int(idx[-1]) + 1} lattice points, "
            f"more than the {MAX_LATTICE} of an exact sum. Use "
            "accountants.Numerical() (certified) instead."
        )
    p = np.zeros(int(idx[-1]) + 1)
    q = np.zeros_like(p)
    # Normalised to total mass 1 (not to the largest atom), so that the n-fold
    # convolution stays in [0, 1]: (sum/max)^n overflows for n in the thousands.
    shift_p = float(special.logsumexp(log_p))
    shift_q = float(special.logsumexp(log_p + loss))
    p[idx] = np.exp(log_p - shift_p)
    q[idx] = np.exp(log_p + loss - shift_q)
    out_p, out_q = np.ones(1), np.ones(1)
    k = n
    while k:
        if k & 1:
            out_p, out_q = np.convolve(out_p, p), np.convolve(out_q, q)
        k >>= 1
        if k:
            p, q = np.convolve(p, p), np.convolve(q, q)
    with np.errstate(divide="ignore"):
        log_out_p = np.log(out_p) + n * shift_p
        log_out_q = np.log(out_q) + n * shift_q
    values = n * origin + span * np.arange(out_p.size, dtype=np.float64)
    return values, log_out_q, log_out_p


def _atom_power(
    m: Mechanism, loss: FloatArray, log_p: FloatArray, n: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The multinomial law of ``n`` compositions of atoms off any lattice, by
    repeated squaring of the atom set (sums of losses equal to 1e-12 merged).

    Raises:
        ValueError: more than :data:`MAX_ATOMS` atoms on the way.
    """

    def combine(
        a: tuple[FloatArray, FloatArray], b: tuple[FloatArray, FloatArray]
    ) -> tuple[FloatArray, FloatArray]:
        if a[0].size * b[0].size > MAX_ATOMS:
            raise ValueError(
                f"accountants.Exact: {m!r} x {n} has a privacy loss of "
                f"{loss.size} values off any lattice whose composition needs more "
                f"than {MAX_ATOMS} atoms. Use accountants.Numerical() (certified) "
                "instead."
            )
        l = (a[0][:, None] + b[0][None, :]).reshape(-1)
        w = (a[1][:, None] + b[1][None, :]).reshape(-1)
        order = np.argsort(l, kind="stable")
        l, w = l[order], w[order]
        new = np.concatenate(
            ([True], np.diff(l) > 1e-12 * np.maximum(1.0, np.abs(l[1:])))
        )
        start = np.flatnonzero(new)
        return l[start], np.logaddexp.reduceat(w, start)

    out = (np.zeros(1), np.zeros(1))
    base = (loss, log_p)
    k = n
    while k:
        if k & 1:
            out = combine(out, base)
        k >>= 1
        if k:
            base = combine(base, base)
    return out[0], out[1] + out[0], out[1]


def finite_pair(groups: list[tuple[Mechanism, int]]) -> DiscretePairCurve:
    """Exact composition of finite laws given as ``(mechanism, n_i)`` groups.

    Raises:
        ValueError: more atoms than :data:`MAX_ATOMS`.
    """
    loss, log_q, log_p = np.zeros(1), np.zeros(1), np.zeros(1)
    for m, n in groups:
        law = m.finite_loss_law()
        assert law is not None  # checked by the caller
        l0, p0 = law
        if l0.size == 1:
            atoms = (n * l0, np.zeros(1), np.zeros(1))
        elif l0.size == 2:
            atoms = two_point_atoms(l0, p0, n)
        else:
            found = lattice_power_atoms(l0, p0, n)
            atoms = found if found is not None else _atom_power(m, l0, p0, n)
        l_g, q_g, p_g = atoms
        keep = (q_g > LOG_TINY) | (p_g > LOG_TINY)
        l_g, q_g, p_g = l_g[keep], q_g[keep], p_g[keep]
        if loss.size * l_g.size > MAX_ATOMS:
            raise ValueError(
                f"exact composition needs more than {MAX_ATOMS} atoms for these "
                f"{len(groups)} distinct laws; use accountants.Numerical()."
            )
        loss = (loss[:, None] + l_g[None, :]).reshape(-1)
        log_q = (log_q[:, None] + q_g[None, :]).reshape(-1)
        log_p = (log_p[:, None] + p_g[None, :]).reshape(-1)
        keep = (log_q > LOG_TINY) | (log_p > LOG_TINY)
        loss, log_q, log_p = loss[keep], log_q[keep], log_p[keep]
    return DiscretePairCurve.from_atoms(loss, log_q, log_p)


def _total_mu(components: Components) -> float:
    r""":math:`\sqrt{\sum_i n_i \mu_i^2}` (Dong et al. 2019, Cor. 3.3)."""
    return math.sqrt(
        math.fsum(n * (m.gaussian_mu() or 0.0) ** 2 for m, n in components)
    )


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
        cases of :meth:`compose_pair`; a finite law may still be refused for
        its size)."""
        for c in pair_compositions(components):
            if all(m.gaussian_mu() is not None for m, _ in c):
                continue
            if all(m.finite_loss_law() is not None for m, _ in c):
                continue
            if len(c) == 1 and c[0][1] == 1 and _has_closed_form(c[0][0]):
                continue
            return False
        return True

    def compose_pair(self, components: Components) -> PairCurve:
        mus = [m.gaussian_mu() for m, _ in components]
        if all(mu is not None for mu in mus):
            return ExactGaussianPairCurve(_total_mu(components))
        if all(m.finite_loss_law() is not None for m, _ in components):
            return finite_pair(list(components))
        if len(components) == 1 and components[0][1] == 1:
            m = components[0][0]
            if _has_closed_form(m):
                return ClosedFormPairCurve(m)
        missing = [
            f"{m!r} (n={n})"
            for m, n in components
            if m.gaussian_mu() is None and m.finite_loss_law() is None
        ]
        raise ValueError(
            "accountants.Exact has closed forms only for compositions of Gaussian "
            "mechanisms, compositions of mechanisms with finitely many privacy "
            "losses (pure DP, randomized response, discrete Laplace and Gaussian, "
            "PMF pairs), and a single mechanism (n=1) with a closed-form "
            f"trade-off. No closed form for: "
            f"{', '.join(missing) or 'this mix of Gaussian and finite laws'}. "
            "Use accountants.Numerical() (certified) instead."
        )

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        if all(m.gaussian_mu() is not None for m, _ in components):
            info["mu"] = _total_mu(components)
        return info

    def __repr__(self) -> str:
        return "Exact()"
