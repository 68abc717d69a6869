r"""The Laplace mechanism, :math:`\mathrm{Lap}(0,1)` vs :math:`\mathrm{Lap}(\mu,1)`,
:math:`\mu = \Delta_1/b` (Kaissis et al. 2023, Cor. 1).

:math:`L(x) = |x| - |x - \mu|` has P-atoms :math:`1/2` at :math:`-\mu` and
:math:`e^{-\mu}/2` at :math:`+\mu` and the density :math:`e^{-(l+\mu)/2}/4` on
:math:`(-\mu, \mu)`; under Q everything is multiplied by :math:`e^{l}`.
Cumulants are the exact polynomials of
:func:`symfdp.symbolic.plrv.laplace_cumulant_polys`, evaluated in float64 where
their condition number allows, else in mpmath at the precision it requires."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import mpmath
import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from symfdp._validation import (
    check_array,
    check_choice,
    check_int,
    check_real,
    scalar_or_array,
)
from symfdp.mechanisms._panels import Rule, concat_rules, fixed_panels, split_rule
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    Under,
)
from symfdp.numeric.moments import EPS

#: Gauss–Legendre nodes on the continuous part (covers E[e^{tL}] for |t| <~ 60).
_GL_MIN = 64
_GL_MAX = 512

#: Required relative accuracy of a float64 closed-form evaluation.
_CLOSED_FORM_RTOL = 1e-14


@functools.cache
def _cumulant_terms(order: int) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
    """(i, j, numerator, denominator) of c * mu^i * exp(-j mu) for each cumulant."""
    from symfdp.symbolic.plrv import laplace_cumulant_polys

    out = []
    for poly in laplace_cumulant_polys(order, "P"):
        terms = []
        for (i, j), c in poly.terms():
            q = c.as_numer_denom()
            terms.append((int(i), int(j), int(q[0]), int(q[1])))
        out.append(tuple(terms))
    return tuple(out)


def _eval_terms(terms: tuple[tuple[int, int, int, int], ...], mu: float) -> float:
    vals = [n / d * mu**i * math.exp(-j * mu) for i, j, n, d in terms]
    value = math.fsum(vals)
    scale = math.fsum(abs(v) for v in vals)
    if scale == 0.0 or 8 * EPS * scale <= _CLOSED_FORM_RTOL * abs(value):
        return value
    # Extended precision: digits lost ~ log10(scale/|value|); retry until enough.
    dps = 30
    while True:
        with mpmath.workdps(dps):
            m = mpmath.mpf(mu)
            acc = mpmath.fsum(
                mpmath.mpf(n) / d * m**i * mpmath.exp(-j * m) for i, j, n, d in terms
            )
            lost = math.log10(scale / abs(float(acc))) if acc != 0 else dps
        if lost + 20 <= dps or dps >= 4000:
            return float(acc)
        dps = int(lost) + 30


@functools.cache
def _gauss_legendre(n: int) -> tuple[FloatArray, FloatArray]:
    x, w = special.roots_legendre(n)
    return np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)


def _h_series(b: FloatArray, which: int, terms: int = 30) -> FloatArray:
    r"""Small-``b`` Taylor series of :math:`h_0, h_1, h_2` (``Laplace._cgf_abc``)."""
    acc = np.zeros_like(b)
    for n in range(terms + 3, -1, -1):
        if which == 0:
            c = (-1) ** n * 2.0**n / math.factorial(n + 1)
            k = n
        elif which == 1:
            if n < 3:
                continue
            c = (-2.0) ** (n - 1) * (n - 2) / (2 * math.factorial(n))
            k = n - 2
        else:
            if n < 3:
                continue
            c = (
                -((-2.0) ** (n - 2)) / math.factorial(n - 2)
                - 2 * (-2.0) ** (n - 1) / math.factorial(n - 1)
                - 2 * (-2.0) ** n / math.factorial(n)
            ) / 2
            k = n - 3
        acc = acc + c * b**k
    return acc


@dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace mechanism ``Lap(0,1)`` vs ``Lap(mu,1)``.

    Args:
        mu: Effect size (sensitivity / scale), ``mu >= 0``.
    """

    mu: float

    name: ClassVar[str] = "laplace"
    PARAMS: ClassVar[dict[str, Param]] = {
        "mu": Param("effect size Delta_1 / b", (0.0, math.inf), (0.05, 5.0)),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, 0.0))

    def plrv_pieces(self, cuts: Sequence[float]) -> list[Rule]:
        r"""Panels on the density part (:math:`L \in (-\mu, \mu)`, P-density
        :math:`e^{-(l+\mu)/2}/4`) with an edge at every cut, plus the atoms at
        :math:`\pm\mu` (P-masses 1/2 and :math:`e^{-\mu}/2`)."""
        cuts = sorted(cuts)
        mu = self.mu
        if mu == 0.0:
            return split_rule((np.zeros(1), np.ones(1)), cuts)
        cs = [min(max(c, -mu), mu) for c in cuts]
        edges = [-mu, *cs, mu]
        out = []
        for a, b in itertools.pairwise(edges):
            l, w = fixed_panels(a, b)
            out.append((l, w * np.exp(-(l + mu) / 2) / 4))
        atoms = (np.array([-mu, mu]), np.array([0.5, 0.5 * math.exp(-mu)]))
        return [
            concat_rules([r, a])
            for r, a in zip(out, split_rule(atoms, cuts), strict=True)
        ]

    def replace_one(self) -> Laplace:
        """Replacing a record moves the location by twice the sensitivity:
        ``Laplace(2 mu)``."""
        return Laplace(mu=2.0 * self.mu)

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(np.abs(xs) - np.abs(xs - self.mu))

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        shift = 0.0 if under == "P" else self.mu
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(0.5 * np.exp(-np.abs(xs - shift)))

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        return scalar_or_array(self._tail(l, under, lower=True, inclusive=inclusive))

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        return scalar_or_array(self._tail(l, under, lower=False, inclusive=inclusive))

    def _tail(
        self, l: ArrayLike, under: Under, *, lower: bool, inclusive: bool
    ) -> FloatArray:
        """``P(L <= l)`` (``lower``) or ``P(L > l)``, each computed directly."""
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        m = self.mu
        if m == 0.0:
            hit = (ls >= 0) if inclusive else (ls > 0)
            if not lower:
                hit = (ls <= 0) if inclusive else (ls < 0)
            return hit.astype(np.float64)
        inner = np.clip(ls, -m, m)
        # Masses of the atoms at -mu and +mu, and the tails of the continuous part.
        if under == "P":
            a_lo, a_hi = 0.5, 0.5 * math.exp(-m)
            cont_le = 1.0 - 0.5 * np.exp(-(inner + m) / 2)  # P(L <= l), -mu <= l < mu
            cont_gt = 0.5 * np.exp(-(inner + m) / 2)
        else:
            a_lo, a_hi = 0.5 * math.exp(-m), 0.5
            cont_le = 0.5 * np.exp((inner - m) / 2)
            cont_gt = 1.0 - 0.5 * np.exp((inner - m) / 2)
        if lower:
            # P(L <= l) (inclusive) or P(L < l).
            out = np.where(ls < -m, 0.0, np.where(ls >= m, 1.0, cont_le))
            if not inclusive:
                out = np.where(ls == -m, 0.0, np.where(ls == m, 1.0 - a_hi, out))
            return out
        # P(L > l) or P(L >= l) (inclusive).
        out = np.where(ls < -m, 1.0, np.where(ls >= m, 0.0, cont_gt))
        if inclusive:
            out = np.where(ls == -m, 1.0, np.where(ls == m, a_hi, out))
        del a_lo
        return out

    def plrv_support(self) -> tuple[float, float]:
        return (-self.mu, self.mu)

    def plrv_quadrature(self) -> PLRVQuadrature:
        r"""The two atoms and a Gauss–Legendre rule on the continuous part."""
        m = self.mu
        if m == 0.0:
            return PLRVQuadrature(np.zeros(1), np.zeros(1))
        # Node counts come in powers of two so that the cached rules are reused.
        n = _GL_MIN
        while n < min(_GL_MAX, 60 * m):
            n *= 2
        xi, wi = _gauss_legendre(n)
        l = m * xi
        log_w = np.log(m * wi) - (l + m) / 2 - math.log(4)
        nodes = np.concatenate(([-m], l, [m]))
        logs = np.concatenate(([-math.log(2)], log_w, [-m - math.log(2)]))
        return PLRVQuadrature(nodes, logs)

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        r"""Exact cumulants (polynomials in :math:`\mu, e^{-\mu}` from SymPy), with
        :math:`\kappa_r(Q) = (-1)^r \kappa_r(P)`."""
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        if self.mu == 0.0:
            return np.zeros(order)
        terms = _cumulant_terms(order)
        out = np.array([_eval_terms(tr, self.mu) for tr in terms])
        if under == "Q":
            out = out * (-1.0) ** np.arange(1, order + 1)
        return out

    def cumulant_exprs(self, order: int, under: Under = "P") -> list[Any]:
        """Exact cumulants as SymPy expressions in the symbol ``mu``
        (:func:`symfdp.symbolic.plrv.laplace_cumulant_exprs`; imports SymPy)."""
        from symfdp.symbolic.plrv import laplace_cumulant_exprs

        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        return laplace_cumulant_exprs(order, check_choice("under", under, ("P", "Q")))

    def _cgf_abc(self, b: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""Scaled :math:`F, F', F''` of :math:`F(b) = \cosh b + \mu\sinh(b)/(2b)`:
        :math:`F^{(k)}(b) = \tfrac{e^b}{2} A_k(b)`, :math:`A_0 = 1 + e^{-2b} + \mu h_0`,
        :math:`A_1 = 1 - e^{-2b} + \mu h_1`, :math:`A_2 = 1 + e^{-2b} + \mu h_2`
        (the :math:`h_k` by Taylor series below ``b = 0.5``)."""
        m = self.mu
        e2 = np.exp(-2 * b)
        em = -np.expm1(-2 * b)
        small = b < 0.5
        bs = np.where(small, 1.0, b)
        h0 = np.where(small, _h_series(b, 0), em / (2 * bs))
        h1 = np.where(small, _h_series(b, 1), (bs * (1 + e2) - em) / (2 * bs**2))
        h2 = np.where(
            small,
            _h_series(b, 2),
            (bs**2 * em - 2 * bs * (1 + e2) + 2 * em) / (2 * bs**3),
        )
        return 1 + e2 + m * h0, em + m * h1, 1 + e2 + m * h2

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""Closed form :math:`K_P(t) = -\mu/2 + \log F(\mu(t-\frac12))`,
        :math:`F(a) = \cosh a + \mu\sinh(a)/(2a)` (even in :math:`a`), so with
        :math:`b = |a|`: :math:`K = -\mu/2 + b - \log 2 + \log A_0`,
        :math:`K' = \mu\,\mathrm{sign}(a) A_1/A_0`,
        :math:`K'' = \mu^2 (A_2/A_0 - (A_1/A_0)^2)`; :math:`K_Q(t) = K_P(t+1)`."""
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t) + (0.0 if under == "P" else 1.0)
        m = self.mu
        a = m * (ts - 0.5)
        b = np.abs(a)
        a0, a1, a2 = self._cgf_abc(b)
        k0 = -m / 2 + b - math.log(2) + np.log(a0)
        r1 = a1 / a0
        k1 = m * np.sign(a) * r1
        k2 = m * m * (a2 / a0 - r1 * r1)
        return scalar_or_array(k0), scalar_or_array(k1), scalar_or_array(k2)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r""":math:`1 - \alpha e^{\mu}` for :math:`\alpha < e^{-\mu}/2`,
        :math:`e^{-\mu}/(4\alpha)` on :math:`[e^{-\mu}/2, 1/2]` and
        :math:`(1-\alpha)e^{-\mu}` above: Kaissis et al. (2023), Cor. 1 = Dong et
        al. (2019), Lemma A.6."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        m = self.mu
        lo = 0.5 * math.exp(-m)
        with np.errstate(divide="ignore"):
            mid = math.exp(-m) / (4 * np.where(a > 0, a, 1.0))
        out = np.where(
            a < lo, 1 - a * math.exp(m), np.where(a <= 0.5, mid, (1 - a) * math.exp(-m))
        )
        return scalar_or_array(out)

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\delta(\varepsilon) = -\mathrm{expm1}((\varepsilon - \mu)/2)` for
        :math:`|\varepsilon| \le \mu`, :math:`1 - e^\varepsilon` below and 0 above."""
        e = check_array("eps", eps, allow_inf=True)
        m = self.mu
        with np.errstate(over="ignore", invalid="ignore"):
            mid = -np.expm1((e - m) / 2)
            low = -np.expm1(e)
        out = np.where(e >= m, 0.0, np.where(e < -m, low, mid))
        return scalar_or_array(np.clip(out, 0.0, 1.0))

    def __repr__(self) -> str:
        return f"Laplace(mu={self.mu!r})"
