r"""Dominating pairs whose privacy loss takes finitely many values.

The law of :math:`L` is stored as its sorted distinct values :math:`l_j` and
their log P-masses; :math:`q_j = e^{l_j} p_j` (:math:`dQ_L = e^{l} dP_L`). CDFs
are prefix and suffix sums (each tail from its own end), cumulants the central
moments of the atoms, the CGF a log-sum-exp for every real :math:`t`, and the
profile :math:`\delta(\varepsilon) = \sum_{l_j > \varepsilon} q_j(1 -
e^{\varepsilon - l_j})` (Zheng et al. 2020, Lemma 5.1), a sum of positive terms:
exact up to floating point."""

from __future__ import annotations

import functools
import math
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import (
    check_array,
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_real,
    scalar_or_array,
)
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    Under,
    tilted_abs_moment3,
    tilted_cgf,
)
from symfdp.numeric.moments import weighted_cumulants

#: Atoms of a truncated infinite law are kept while their log P-mass exceeds this.
TRUNCATION_LOG_MASS = -800.0
#: Largest number of atoms of a truncated law (memory guard).
MAX_ATOMS = 4_000_000


class FiniteLoss(Mechanism):
    """A mechanism whose privacy loss has finitely many values (abstract).

    Subclasses implement :meth:`_atoms` (sorted distinct losses and their log
    P-masses) and the output-space methods.
    """

    @abstractmethod
    def _atoms(self) -> tuple[FloatArray, FloatArray]:
        """``(losses, log_p)``: sorted distinct values of L and log P-masses."""

    @functools.cached_property
    def _law(self) -> dict[str, Any]:
        l, log_p = self._atoms()
        out: dict[str, Any] = {"l": l}
        for u, lw in (("P", log_p), ("Q", log_p + l)):
            # Totals pinned to 1 so that the CDF ends at 1 exactly.
            w = np.exp(lw - special.logsumexp(lw))
            out[u] = w
            prefix = np.concatenate(([0.0], np.cumsum(w)))
            suffix = np.concatenate((np.cumsum(w[::-1])[::-1], [0.0]))
            prefix[-1] = suffix[0] = 1.0
            out[u + "_prefix"] = prefix
            out[u + "_suffix"] = suffix
        out["log_p"] = log_p
        return out

    def finite_loss_law(self) -> tuple[FloatArray, FloatArray]:
        """The atoms (:meth:`_atoms`)."""
        law = self._law
        return law["l"], law["log_p"]

    def loss_lattice(self) -> float | None:
        """The span of the coarsest lattice holding every atom (a divisor of the
        smallest gap by at most :data:`LATTICE_DIVISORS`, to 1e-9), else the
        widest gap between neighbouring atoms; None for a single atom
        (see :meth:`Mechanism.loss_lattice`)."""
        return self._lattice

    @functools.cached_property
    def _lattice(self) -> float | None:
        return atom_lattice(self._law["l"])

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        law = self._law
        idx = np.searchsorted(law["l"], ls, side="right" if inclusive else "left")
        return scalar_or_array(np.clip(law[under + "_prefix"][idx], 0.0, 1.0))

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        law = self._law
        idx = np.searchsorted(law["l"], ls, side="left" if inclusive else "right")
        return scalar_or_array(np.clip(law[under + "_suffix"][idx], 0.0, 1.0))

    def plrv_support(self) -> tuple[float, float]:
        l = self._law["l"]
        return float(l[0]), float(l[-1])

    def plrv_quadrature(self) -> PLRVQuadrature:
        """The atoms themselves (exact for every function of L)."""
        law = self._law
        return PLRVQuadrature(law["l"], law["log_p"])

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        """Cumulants of the finite law (central moments of the atoms)."""
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        law = self._law
        kappa, _ = weighted_cumulants(law["l"], law[under], order)
        return kappa

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""Exact :math:`(K, K', K'')` of the finite law, any real ``t``."""
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t)
        law = self._law
        logw = law["log_p"] + (law["l"] if under == "Q" else 0.0)
        k0, k1, k2 = tilted_cgf(law["l"], logw, ts)
        return scalar_or_array(k0), scalar_or_array(k1), scalar_or_array(k2)

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t)
        law = self._law
        logw = law["log_p"] + (law["l"] if under == "Q" else 0.0)
        return tilted_abs_moment3(law["l"], logw, ts)

    def expect(self, fn: Callable[[FloatArray], ArrayLike], under: Under = "P") -> Any:
        check_callable("fn", fn)
        return super().expect(fn, under)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r"""The exact trade-off :math:`T(P, Q)` (Dong et al. (2019), Def. 2.1): linear
        between the vertices :math:`(\sum_{j \ge k} p_j,\ 1 - \sum_{j \ge k} q_j)`."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        law = self._law
        # Suffix sums from the top atom down: alpha_k and beta_k, increasing.
        xa = law["P_suffix"][::-1]
        yb = 1.0 - law["Q_suffix"][::-1]
        xa = np.concatenate((xa, [1.0]))
        yb = np.concatenate((yb, [0.0]))
        xa[0], yb[0] = 0.0, 1.0
        out = np.interp(a, xa, np.clip(yb, 0.0, 1.0))
        return scalar_or_array(np.clip(out, 0.0, 1.0 - a))

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\sum_{l_j > \varepsilon} q_j (1 - e^{\varepsilon - l_j})`."""
        e = check_array("eps", eps, allow_inf=True)
        law = self._law
        flat = e.reshape(-1)
        out = np.zeros(flat.size)
        step = max(1, 2_000_000 // max(law["l"].size, 1))
        for s in range(0, flat.size, step):
            ee = flat[s : s + step, None]
            with np.errstate(over="ignore", invalid="ignore"):
                gain = np.where(
                    law["l"][None, :] > ee, -np.expm1(ee - law["l"][None, :]), 0.0
                )
            out[s : s + step] = gain @ law["Q"]
        return scalar_or_array(np.clip(out, 0.0, 1.0).reshape(e.shape))


#: Largest divisor ``j`` of the smallest gap tried as a lattice span ``d / j``.
LATTICE_DIVISORS = 64


def atom_lattice(l: FloatArray) -> float | None:
    """:meth:`FiniteLoss.loss_lattice` of the sorted distinct atoms ``l`` (None
    for fewer than two)."""
    if l.size < 2:
        return None
    gaps = np.diff(l)
    offsets = l - l[0]
    smallest = float(np.min(gaps))
    head = offsets[:256]
    for j in range(1, LATTICE_DIVISORS + 1):
        if _on_lattice(head, smallest / j) and _on_lattice(offsets, smallest / j):
            return smallest / j
    return float(np.max(gaps))


def _on_lattice(offsets: FloatArray, d: float) -> bool:
    """Whether every offset is an integer multiple of ``d`` (to 1e-9)."""
    k = offsets / d
    return bool(np.all(np.abs(k - np.round(k)) <= 1e-9 * np.maximum(1.0, k)))


def _merge(l: FloatArray, log_p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Sort the atoms and merge equal losses (log-sum-exp of their masses)."""
    order = np.argsort(l, kind="stable")
    l, log_p = l[order], log_p[order]
    uniq, start = np.unique(l, return_index=True)
    merged = np.array(
        [special.logsumexp(g) for g in np.split(log_p, start[1:])], dtype=np.float64
    )
    return uniq, merged


def _symmetric_law(l: FloatArray, log_p: FloatArray, rtol: float = 1e-12) -> bool:
    """Whether the law of -L under Q is that of L under P."""
    if not np.allclose(l, -l[::-1], rtol=rtol, atol=rtol):
        return False
    log_q_neg = (log_p + l)[::-1]
    return bool(np.allclose(log_p, log_q_neg, rtol=0.0, atol=1e-11))


@dataclass(frozen=True, eq=False)
class FinitePair(FiniteLoss):
    r"""A dominating pair on the outcomes ``0 .. K-1`` given by two PMFs.

    Build one with :func:`from_pmfs`. ``x`` in :meth:`pdf` and
    :meth:`log_likelihood_ratio` is an outcome's index.
    """

    p_values: FloatArray
    q_values: FloatArray
    losses: FloatArray
    label: str = "finite pair"
    symmetric: bool = False

    name: ClassVar[str] = "finite-pair"
    PARAMS: ClassVar[dict[str, Param]] = {}

    @property
    def is_symmetric(self) -> bool:
        return self.symmetric

    def _atoms(self) -> tuple[FloatArray, FloatArray]:
        keep = self.p_values > 0
        return _merge(self.losses[keep], np.log(self.p_values[keep]))

    def _outcome(
        self, x: ArrayLike
    ) -> tuple[FloatArray, NDArray[np.int64], NDArray[np.bool_]]:
        xs = check_array("x", x, allow_inf=True)
        k = self.p_values.size
        ok = (xs == np.floor(xs)) & (xs >= 0) & (xs < k)
        return xs, np.where(ok, xs, 0).astype(np.int64), ok

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        """``L`` of outcome ``x`` (NaN for a non-outcome or a null outcome)."""
        _, idx, ok = self._outcome(x)
        vals = np.where(self.p_values[idx] > 0, self.losses[idx], np.nan)
        return scalar_or_array(np.where(ok, vals, np.nan))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        """Probability of outcome ``x`` under P or Q (0 off the outcomes)."""
        check_choice("under", under, ("P", "Q"))
        _, idx, ok = self._outcome(x)
        vals = (self.p_values if under == "P" else self.q_values)[idx]
        return scalar_or_array(np.where(ok, vals, 0.0))

    def __repr__(self) -> str:
        return f"FinitePair({self.label})"


def _probabilities(name: str, values: Any) -> FloatArray:
    arr = check_array(name, values, 0.0, 1.0)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(
            f"{name} must be a non-empty 1-d array. Found shape {arr.shape}."
        )
    total = math.fsum(arr)
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1 (within 1e-9). Found sum {total!r}.")
    return arr / total


def from_pmfs(
    p_values: ArrayLike,
    q_values: ArrayLike,
    losses: ArrayLike | None = None,
    *,
    name: str = "finite pair",
    symmetric: bool | None = None,
) -> FinitePair:
    r"""A mechanism from the PMFs of P and Q on a finite set of outcomes,
    :math:`L_j = \log q_j/p_j` (or ``losses``, checked against the ratios to
    :math:`10^{-9}`).

    Args:
        p_values, q_values: Probabilities of the outcomes, each summing to 1.
        losses: The privacy losses of the outcomes, if known exactly.
        name: Label of the mechanism.
        symmetric: Whether ``T(P, Q) = T(Q, P)``; detected from the law of L
            when None.

    Raises:
        ValueError: the vectors differ in length, are not probabilities, or are
            not mutually absolutely continuous.
    """
    p = _probabilities("p_values", p_values)
    q = _probabilities("q_values", q_values)
    if p.shape != q.shape:
        raise ValueError(
            f"p_values and q_values must have the same length. Found {p.size} "
            f"and {q.size}."
        )
    bad = np.flatnonzero((p > 0) != (q > 0))
    if bad.size:
        raise ValueError(
            "p_values and q_values are not mutually absolutely continuous: "
            f"outcome {int(bad[0])} has p = {p[bad[0]]:g}, q = {q[bad[0]]:g} (an "
            "infinite privacy loss). Such pairs are (eps, delta) events; give a "
            "pair with the same support."
        )
    keep = p > 0
    with np.errstate(divide="ignore"):
        ratio = np.where(
            keep, np.log(np.where(keep, q, 1.0)) - np.log(np.where(keep, p, 1.0)), 0.0
        )
    if losses is None:
        l = ratio
    else:
        l = check_array("losses", losses)
        if l.shape != p.shape:
            raise ValueError(
                f"losses must have the length of p_values ({p.size}). Found {l.size}."
            )
        off = np.abs(l - ratio) > 1e-9 * (1.0 + np.abs(ratio))
        if np.any(off & keep):
            j = int(np.flatnonzero(off & keep)[0])
            raise ValueError(
                f"losses[{j}] = {l[j]!r} is not log(q/p) = {ratio[j]!r} (1e-9)."
            )
        l = np.where(keep, l, 0.0)
    m = FinitePair(p, q, l, name, False)
    if symmetric is None:
        sym = _symmetric_law(*m._atoms())
    else:
        sym = check_bool("symmetric", symmetric)
        if sym and not _symmetric_law(*m._atoms(), rtol=1e-9):
            raise ValueError(
                f"symmetric=True, but the law of L under P of {name} is not that "
                "of -L under Q."
            )
    return FinitePair(p, q, l, name, sym)


@dataclass(frozen=True)
class RandomizedResponse(FiniteLoss):
    r"""k-ary randomised response: the true category w.p.
    :math:`e^\varepsilon/(e^\varepsilon + k - 1)`, each other one w.p.
    :math:`1/(e^\varepsilon + k - 1)`.

    The worst pair of neighbours (true category 0 vs 1) has
    :math:`L = -\varepsilon` on output 0, :math:`+\varepsilon` on output 1 and 0
    on the :math:`k - 2` others (Kairouz et al. 2016; dp-accounting's
    ``RandomizedResponsePrivacyLoss``); :math:`k = 2` is
    :class:`~symfdp.mechanisms.PureDP`.

    Args:
        eps: Privacy parameter, ``eps >= 0``.
        k: Number of categories, an integer ``>= 2``.
    """

    eps: float
    k: int = 2

    name: ClassVar[str] = "randomized-response"
    PARAMS: ClassVar[dict[str, Param]] = {
        "eps": Param("privacy parameter epsilon", (0.0, math.inf), (0.05, 5.0)),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_real("eps", self.eps, 0.0))
        object.__setattr__(self, "k", check_int("k", self.k, lo=2))

    def replace_one(self) -> RandomizedResponse:
        """Itself: its pair (true category 0 vs 1) is the replace-one pair
        (dp-accounting's ``REPLACE_ONE`` for ``RandomizedResponseDpEvent``)."""
        return self

    def _atoms(self) -> tuple[FloatArray, FloatArray]:
        e, k = self.eps, self.k
        log_z = np.logaddexp(e, math.log(k - 1))
        if e == 0.0:
            return np.zeros(1), np.zeros(1)
        l = [-e, e]
        lw = [e - log_z, -log_z]
        if k > 2:
            l.insert(1, 0.0)
            lw.insert(1, math.log(k - 2) - log_z)
        return np.array(l), np.array(lw)

    def _row(self, under: Under) -> FloatArray:
        e, k = self.eps, self.k
        z = math.exp(e) + k - 1
        row = np.full(k, 1.0 / z)
        row[0 if under == "P" else 1] = math.exp(e) / z
        return row

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        """``-eps`` on output 0, ``eps`` on 1, 0 on the others (NaN off 0..k-1)."""
        xs = check_array("x", x, allow_inf=True)
        ok = (xs == np.floor(xs)) & (xs >= 0) & (xs < self.k)
        out = np.where(xs == 0, -self.eps, np.where(xs == 1, self.eps, 0.0))
        return scalar_or_array(np.where(ok, out, np.nan))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        xs = check_array("x", x, allow_inf=True)
        ok = (xs == np.floor(xs)) & (xs >= 0) & (xs < self.k)
        idx = np.where(ok, xs, 0).astype(np.int64)
        return scalar_or_array(np.where(ok, self._row(under)[idx], 0.0))


@dataclass(frozen=True)
class DiscreteLaplace(FiniteLoss):
    r"""Discrete Laplace noise on the integers, :math:`P(x) \propto e^{-a|x|}`,
    against its shift by the sensitivity :math:`s`.

    :math:`L(x) = a(|x| - |x - s|)`: :math:`-as` for :math:`x \le 0` (P-mass
    :math:`1/(1 + e^{-a})`), :math:`as` for :math:`x \ge s` (P-mass
    :math:`e^{-as}/(1+e^{-a})`) and :math:`a(2x - s)` in between (P-mass
    :math:`\tanh(a/2) e^{-ax}`): a finite law, exact (dp-accounting's
    ``DiscreteLaplacePrivacyLoss``).

    Args:
        a: Noise parameter, ``a > 0`` (the mechanism is ``a s``-DP).
        sensitivity: Integer sensitivity ``s >= 1``.
    """

    a: float
    sensitivity: int = 1

    name: ClassVar[str] = "discrete-laplace"
    PARAMS: ClassVar[dict[str, Param]] = {
        "a": Param(
            "noise parameter a of exp(-a|x|)",
            (0.0, math.inf),
            (0.05, 5.0),
            lo_open=True,
        ),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", check_real("a", self.a, 0.0, lo_open=True))
        object.__setattr__(
            self, "sensitivity", check_int("sensitivity", self.sensitivity, lo=1)
        )

    def replace_one(self) -> DiscreteLaplace:
        """Replacing a record moves the value by twice the sensitivity."""
        return DiscreteLaplace(self.a, 2 * self.sensitivity)

    def _atoms(self) -> tuple[FloatArray, FloatArray]:
        a, s = self.a, self.sensitivity
        log_norm = -np.logaddexp(0.0, -a)  # log 1/(1 + e^{-a})
        log_tanh = math.log(math.tanh(a / 2))
        mid = np.arange(1, s)
        l = np.concatenate(([-a * s], a * (2 * mid - s), [a * s]))
        lw = np.concatenate(([log_norm], log_tanh - a * mid, [log_norm - a * s]))
        return l, lw

    def _log_pmf(self, xs: FloatArray, under: Under) -> FloatArray:
        shift = 0 if under == "P" else self.sensitivity
        return math.log(math.tanh(self.a / 2)) - self.a * np.abs(xs - shift)

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(self.a * (np.abs(xs) - np.abs(xs - self.sensitivity)))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        xs = check_array("x", x, allow_inf=True)
        ok = xs == np.floor(xs)
        with np.errstate(invalid="ignore"):
            vals = np.exp(self._log_pmf(np.where(ok, xs, 0.0), under))
        return scalar_or_array(np.where(ok, vals, 0.0))


@dataclass(frozen=True)
class DiscreteGaussian(FiniteLoss):
    r"""Discrete Gaussian noise on the integers, :math:`P(x) \propto
    e^{-x^2/(2\sigma^2)}` (Canonne, Kamath, Steinke 2020), against its shift by
    the sensitivity :math:`s`: :math:`L(x) = (2sx - s^2)/(2\sigma^2)`, truncated
    where log masses fall below :data:`TRUNCATION_LOG_MASS` (dropped mass below
    :math:`e^{-790}`).

    Args:
        sigma: Noise scale, ``sigma > 0``.
        sensitivity: Integer sensitivity ``s >= 1``.
    """

    sigma: float
    sensitivity: int = 1

    name: ClassVar[str] = "discrete-gaussian"
    PARAMS: ClassVar[dict[str, Param]] = {
        "sigma": Param("noise scale", (0.0, math.inf), (0.3, 20.0), lo_open=True),
    }

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "sigma", check_real("sigma", self.sigma, 0.0, lo_open=True)
        )
        object.__setattr__(
            self, "sensitivity", check_int("sensitivity", self.sensitivity, lo=1)
        )

    def replace_one(self) -> DiscreteGaussian:
        """Replacing a record moves the value by twice the sensitivity."""
        return DiscreteGaussian(self.sigma, 2 * self.sensitivity)

    @functools.cached_property
    def _grid(self) -> tuple[FloatArray, float]:
        s2 = self.sigma**2
        reach = (
            math.ceil(math.sqrt(-2 * s2 * TRUNCATION_LOG_MASS)) + self.sensitivity + 1
        )
        if 2 * reach + 1 > MAX_ATOMS:
            raise ValueError(
                f"DiscreteGaussian(sigma={self.sigma:g}) needs {2 * reach + 1} atoms, "
                f"more than {MAX_ATOMS}; use the Gaussian mechanism as its "
                "continuous limit."
            )
        xs = np.arange(-reach, reach + 1, dtype=np.float64)
        log_norm = float(special.logsumexp(-(xs**2) / (2 * s2)))
        return xs, log_norm

    def _atoms(self) -> tuple[FloatArray, FloatArray]:
        xs, log_norm = self._grid
        s, s2 = self.sensitivity, self.sigma**2
        lp = -(xs**2) / (2 * s2) - log_norm
        keep = (lp > TRUNCATION_LOG_MASS) | (
            -((xs - s) ** 2) / (2 * s2) - log_norm > TRUNCATION_LOG_MASS
        )
        l = (2 * s * xs - s * s) / (2 * s2)
        return l[keep], lp[keep]

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        xs = check_array("x", x, allow_inf=True)
        s = self.sensitivity
        return scalar_or_array((2 * s * xs - s * s) / (2 * self.sigma**2))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        xs = check_array("x", x, allow_inf=True)
        shift = 0 if under == "P" else self.sensitivity
        ok = xs == np.floor(xs)
        _, log_norm = self._grid
        with np.errstate(invalid="ignore"):
            vals = np.exp(
                -((np.where(ok, xs, 0.0) - shift) ** 2) / (2 * self.sigma**2) - log_norm
            )
        return scalar_or_array(np.where(ok, vals, 0.0))


__all__ = [
    "DiscreteGaussian",
    "DiscreteLaplace",
    "FiniteLoss",
    "FinitePair",
    "RandomizedResponse",
    "from_pmfs",
]
