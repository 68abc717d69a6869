r"""Poisson subsampling of a base dominating pair :math:`(P_b, Q_b)`.

For the *add* relation the dominating pair is

.. math::  P = P_b, \qquad Q = (1-p) P_b + p\, Q_b,

with trade-off :math:`f_p = p f_b + (1-p)\,\mathrm{Id}` (Zheng et al. 2020,
Lemma C.1; Dong et al. 2019, Def. 4.1; the ReRo "add one" pair, Kaissis et al.
2023, Sec. 2) and PLRV :math:`L = \ell(L_b) = \log(1 - p + p\, e^{L_b})`, a
monotone function of the base PLRV, so :math:`E_P[h(L)] = \sum_i w_i\, h(\ell(l_i))`
on the base quadrature rule.

The *remove* relation is the swapped pair :math:`(Q, P)` (trade-off
:math:`f_p^{-1}`); ``pair="both"`` (add/remove adjacency) has ``pairs`` ``(add,
remove)``, trade-off :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}` (Dong et al.
2019, eq. (14)) and the larger of the two profiles. **The PLRV methods of a
"both" object describe its add pair.**"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import (
    check_array,
    check_choice,
    check_int,
    check_real,
    scalar_or_array,
)
from symfdp._warnings import warn_pair_deprecated
from symfdp.mechanisms import _logmix as lm
from symfdp.mechanisms._complex_mgf import LogMGF
from symfdp.mechanisms._errors import QuadratureLimitError, UndefinedRelationError
from symfdp.mechanisms._panels import Rule
from symfdp.mechanisms._rdp import rdp_subsampled_gaussian
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Pair,
    Param,
    PLRVQuadrature,
    Under,
    tilted_abs_moment3,
    tilted_cgf,
)
from symfdp.mechanisms.discrete import atom_lattice
from symfdp.numeric.moments import weighted_cumulants
from symfdp.numeric.roots import monotone_bisect

PAIRS: tuple[str, ...] = ("add", "remove", "both")


def _other(under: Under) -> Under:
    return "Q" if under == "P" else "P"


def _check_under(under: Any) -> Under:
    check_choice("under", under, ("P", "Q"))
    return cast(Under, under)


@dataclass(frozen=True)
class PoissonSubsampled(Mechanism):
    """Poisson subsampling with probability ``p`` of a base mechanism.

    Args:
        base: The base dominating pair (a :class:`Mechanism`).
        p: Sampling probability, ``0 < p <= 1``; ``p = 1`` is the base mechanism.
        pair: Deprecated (a ``DeprecationWarning``): choose the relation with
            ``compose(..., adjacency=)`` or :func:`~symfdp.mechanisms.with_adjacency`.
            ``"add"``, ``"remove"`` or ``"both"`` (the default, add-or-remove):
            see the module docstring.
    """

    base: Mechanism
    p: float
    # None only until __post_init__ resolves the default adjacency.
    pair: Pair = None  # type: ignore[assignment]
    _cache: dict[Any, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    name: ClassVar[str] = "poisson-subsampled"
    PARAMS: ClassVar[dict[str, Param]] = {
        "p": Param("sampling probability", (0.0, 1.0), (1e-4, 1.0), lo_open=True),
    }

    #: Per base family, the subclass that knows its replace-one pair under
    #: Poisson subsampling (filled by subclasses declaring ``base_family``).
    _REPLACE_ONE_FORMS: ClassVar[
        dict[type[Mechanism], Callable[[Mechanism, float], Mechanism]]
    ] = {}

    def __init_subclass__(
        cls, base_family: type[Mechanism] | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        if base_family is not None:
            PoissonSubsampled._REPLACE_ONE_FORMS[base_family] = cls._from_base

    @classmethod
    def _from_base(cls, base: Mechanism, p: float) -> Mechanism:
        """The subclass's mechanism for ``base`` (of its ``base_family``) at ``p``."""
        raise NotImplementedError

    def __post_init__(self) -> None:
        if not isinstance(self.base, Mechanism):
            raise TypeError(f"base must be a Mechanism. Found {self.base!r}.")
        if getattr(self.base, "blatant_mass", 0.0) > 0.0:
            raise ValueError(
                f"base={self.base!r} has an infinite privacy loss with positive "
                "probability; its Poisson subsampling is not served (the blatant "
                "mass is then Q-only and shifts the finite loss). Account the "
                "subsampled event by its own (eps', delta') guarantee."
            )
        object.__setattr__(self, "p", check_real("p", self.p, 0.0, 1.0, lo_open=True))
        if self.pair is None:
            object.__setattr__(self, "pair", "both")
        else:
            check_choice("pair", self.pair, PAIRS)
            warn_pair_deprecated(type(self).__name__, self.pair)

    @property
    def is_symmetric(self) -> bool:
        return self.p == 1.0 and self.base.is_symmetric

    @property
    def continuous_loss(self) -> bool:
        """L is a smooth monotone function of the base loss: continuous iff it is."""
        return self.base.continuous_loss

    def replace_one(self) -> Mechanism:
        """The base's replace-one mechanism at ``p = 1``; for ``p < 1``, the
        replace-one pair of the subclass that serves the base's family
        (:class:`~symfdp.mechanisms.SubsampledGaussian` for a Gaussian base,
        :class:`~symfdp.mechanisms.SubsampledLaplace` for a Laplace base).

        Raises:
            UndefinedRelationError: ``p < 1`` and a base of another family:
                under replace-one neighbours Poisson subsampling has its own
                dominating pair, a mixture over the replaced and the replacing
                record, which the base's pair alone does not determine.
        """
        if self.p == 1.0:
            return self.base.replace_one()
        form = self._REPLACE_ONE_FORMS.get(type(self.base))
        if form is not None:
            return form(self.base, self.p).replace_one()
        raise UndefinedRelationError(
            f"adjacency='replace_one' is not defined for {self!r}: under "
            "replace-one neighbours Poisson subsampling has its own dominating "
            "pair, (1-p) M(D) + p M(D+x) against (1-p) M(D) + p M(D+x'), which "
            f"the base's pair alone does not determine (known for the "
            f"{', '.join(sorted(c.__name__ for c in self._REPLACE_ONE_FORMS))} "
            "bases, through SubsampledGaussian and SubsampledLaplace). Build that "
            "pair with M.from_pmfs or M.from_densities and compose it with "
            "adjacency='add_or_remove', or use SampledWithoutReplacement for a "
            "fixed batch under replace-one."
        )

    def plrv_pieces(self, cuts: Sequence[float]) -> list[Rule]:
        r"""The base's pieces at :math:`\ell^{-1}` of the cuts, values mapped by
        :math:`\ell` (add pair); the remove pair's mirror those of the add pair
        (as :class:`~symfdp.mechanisms.Swapped`)."""
        cuts = sorted(cuts)
        if self.p == 1.0:
            ident = self._identity()
            assert ident is not None
            return ident.plrv_pieces(cuts)
        if self.pair == "remove":
            rules = self._paired("add").plrv_pieces([-c for c in reversed(cuts)])
            return [(-v, w * np.exp(v)) for v, w in reversed(rules)]
        ys = lm.log_mix_inverse(np.array(cuts, dtype=np.float64), self.p)
        rules = self.base.plrv_pieces([float(y) for y in ys])
        return [(lm.log_mix(v, self.p), w) for v, w in rules]

    def complex_log_mgf(self) -> LogMGF | None:
        """The base's at ``p = 1`` (the base pair or its swap), else None
        (families with a closed form override)."""
        ident = self._identity()
        return None if ident is None else ident.complex_log_mgf()

    def symmetric_minorant(self) -> Mechanism | None:
        r"""Itself when symmetric, else the add-or-remove mechanism: :math:`C_p(f)
        \le f_p, f_p^{-1}` (Dong et al. 2019, eq. (14)) is a symmetric
        minorant."""
        return self if self.is_symmetric else self.with_pair("both")

    def rdp(self, orders: FloatArray) -> FloatArray | None:
        """:func:`~symfdp.mechanisms._rdp.rdp_subsampled_gaussian` for a
        Gaussian base, the base's at ``p = 1``, else None."""
        mu = self.base.gaussian_mu()
        if mu is not None:
            return rdp_subsampled_gaussian(self.p, mu, orders, self.pair)
        ident = self._identity()
        return None if ident is None else ident.rdp(orders)

    def gaussian_mu(self) -> float | None:
        """The base's at ``p = 1`` (the base pair or its swap), else None."""
        ident = self._identity()
        return None if ident is None else ident.gaussian_mu()

    def finite_loss_law(self) -> tuple[FloatArray, FloatArray] | None:
        r"""For a finite base law: the base atoms mapped by the monotone
        :math:`\ell` (this pair's rule on the base atoms is exact)."""
        if self.base.finite_loss_law() is None:
            return None
        rule = self.plrv_quadrature()
        return rule.nodes, rule.log_weights

    def loss_lattice(self) -> float | None:
        r"""For a finite base law, that of this pair's own atoms (the base atoms
        mapped by :math:`\ell(l) = \log(1 - p + p e^{l})`; two atoms lie on the
        lattice of their gap, more lie off any lattice for :math:`0 < p < 1` and
        give their widest gap); otherwise the base's span, a bound: :math:`\ell`
        is increasing with slope below 1, so neighbouring atoms lie at most the
        base span apart."""
        law = self.finite_loss_law()
        if law is None:
            return self.base.loss_lattice()
        return atom_lattice(np.unique(law[0]))

    @property
    def pairs(self) -> tuple[Mechanism, ...]:
        """``(add, remove)`` for ``"both"`` (built once), else ``(self,)``."""
        if self.pair == "both" and not self.is_symmetric:
            hit = self._cache.get("pairs")
            if hit is None:
                hit = (self._paired("add"), self._paired("remove"))
                self._cache["pairs"] = hit
            return hit
        return (self,)

    def swapped(self) -> Mechanism:
        """The swapped pair of the pair the PLRV methods describe.

        ``add`` and ``remove`` swap into each other; ``both`` (whose PLRV methods
        describe the add pair) swaps into ``remove``.
        """
        return self.with_pair("add" if self.pair == "remove" else "remove")

    def with_pair(self, pair: Pair) -> PoissonSubsampled:
        """The same mechanism with another adjacency ``pair`` (fresh caches)."""
        check_choice("pair", pair, PAIRS)
        return self._paired(pair)

    def _paired(self, pair: Pair) -> PoissonSubsampled:
        """:meth:`with_pair` of a valid ``pair``."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__, pair=pair, _cache={})
        return new

    @property
    def _q(self) -> float:
        return 1.0 - self.p

    @property
    def _log_q(self) -> float:
        return math.log1p(-self.p) if self.p < 1 else -math.inf

    def _identity(self) -> Mechanism | None:
        """The base pair when ``p == 1`` (exact reduction), else ``None``."""
        if self.p != 1.0:
            return None
        # A symmetric pair and its swap have the same PLRV law (T determines it).
        if self.pair == "remove" and not self.base.is_symmetric:
            return self.base.swapped()
        return self.base

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        lb = np.asarray(self.base.log_likelihood_ratio(x), dtype=np.float64)
        out = lm.log_mix(lb, self.p)
        return -out if self.pair == "remove" else out

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        under = _check_under(under)
        if self.pair == "remove":
            under = _other(under)
        pb = np.asarray(self.base.pdf(x, "P"), dtype=np.float64)
        if under == "P":
            return pb
        qb = np.asarray(self.base.pdf(x, "Q"), dtype=np.float64)
        return self._q * pb + self.p * qb

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        under = _check_under(under)
        ls = check_array("l", l, allow_inf=True)
        if self.pair == "remove":
            return self._add_sf(-ls, _other(under), inclusive=inclusive)
        return self._add_cdf(ls, under, inclusive=inclusive)

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        under = _check_under(under)
        ls = check_array("l", l, allow_inf=True)
        if self.pair == "remove":
            return self._add_cdf(-ls, _other(under), inclusive=inclusive)
        return self._add_sf(ls, under, inclusive=inclusive)

    def plrv_cdf_pq(
        self, l: ArrayLike, *, inclusive: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        r"""Both CDFs from one inversion :math:`\ell^{-1}` (:meth:`_pq`)."""
        return self._pq(l, inclusive, sf=False)

    def plrv_sf_pq(
        self, l: ArrayLike, *, inclusive: bool = False
    ) -> tuple[FloatArray, FloatArray]:
        r"""Both survival functions from one inversion :math:`\ell^{-1}`."""
        return self._pq(l, inclusive, sf=True)

    def _pq(
        self, l: ArrayLike, inclusive: bool, *, sf: bool
    ) -> tuple[FloatArray, FloatArray]:
        """CDFs (``sf``: survival functions) under P and Q; the remove pair's
        are the add pair's other function at ``-l`` with P and Q swapped."""
        ls = check_array("l", l, allow_inf=True)
        if self.pair == "remove":
            first, second = self._add_pq(-ls, inclusive, sf=not sf)
            return second, first
        return self._add_pq(ls, inclusive, sf=sf)

    def _add_pq(
        self, s: FloatArray, inclusive: bool, *, sf: bool
    ) -> tuple[FloatArray, FloatArray]:
        """Add-pair CDFs (``sf``: survival functions) under P and Q at ``s``."""
        y = self._to_base(s)
        fn = self.base.plrv_sf_pq if sf else self.base.plrv_cdf_pq
        bp, bq = fn(y, inclusive=inclusive)
        return bp, self._q * bp + self.p * bq

    def _to_base(self, s: FloatArray) -> FloatArray:
        r""":math:`\ell^{-1}(s) = \log((e^s - 1 + p)/p)`, with :math:`s = \ell(b)`
        mapped to the base support end :math:`b` exactly (atoms sit there) and
        :math:`s \gtrless \ell(b)` to the same side of :math:`b`."""
        y = lm.log_mix_inverse(s, self.p)
        for b in self.base.plrv_support():
            if math.isfinite(b):
                e = float(lm.log_mix(np.array(b), self.p))
                y = np.where(s == e, b, y)
                y = np.where((s > e) & (y <= b), np.nextafter(b, math.inf), y)
                y = np.where((s < e) & (y >= b), np.nextafter(b, -math.inf), y)
        return y

    def _add_cdf(self, s: FloatArray, under: Under, *, inclusive: bool) -> FloatArray:
        # P(L <= s) = P_b(L_b <= ell^{-1}(s)); ell is strictly increasing.
        y = self._to_base(s)
        cp = np.asarray(self.base.plrv_cdf(y, "P", inclusive=inclusive), np.float64)
        if under == "P":
            return scalar_or_array(cp)
        cq = np.asarray(self.base.plrv_cdf(y, "Q", inclusive=inclusive), np.float64)
        return scalar_or_array(self._q * cp + self.p * cq)

    def _add_sf(self, s: FloatArray, under: Under, *, inclusive: bool) -> FloatArray:
        y = self._to_base(s)
        sp_ = np.asarray(self.base.plrv_sf(y, "P", inclusive=inclusive), np.float64)
        if under == "P":
            return scalar_or_array(sp_)
        sq = np.asarray(self.base.plrv_sf(y, "Q", inclusive=inclusive), np.float64)
        return scalar_or_array(self._q * sp_ + self.p * sq)

    def plrv_support(self) -> tuple[float, float]:
        hit: tuple[float, float] | None = self._cache.get("support")
        if hit is None:
            lo_b, hi_b = self.base.plrv_support()
            lo, hi = (_log_mix_end(lo_b, self.p), _log_mix_end(hi_b, self.p))
            hit = (-hi, -lo) if self.pair == "remove" else (lo, hi)
            self._cache["support"] = hit
        return hit

    def plrv_quadrature(self) -> PLRVQuadrature:
        rule = self._add_quadrature()
        if self.pair == "remove":
            # E_{P'}[h(L')] = E_Q[h(-L)] = sum_i w_i e^{l_i} h(-l_i).
            return PLRVQuadrature(
                -rule.nodes[::-1], (rule.log_weights + rule.nodes)[::-1]
            )
        return rule

    def _add_quadrature(self) -> PLRVQuadrature:
        rule = self.base.plrv_quadrature()
        return PLRVQuadrature(lm.log_mix(rule.nodes, self.p), rule.log_weights)

    def _base_rule(self) -> tuple[FloatArray, FloatArray]:
        """Base nodes :math:`l_i` and the logarithms of their P-weights."""
        rule = self.base.plrv_quadrature()
        return rule.nodes, rule.log_weights

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        r"""Cumulants of L under P or Q (``"both"``: of the add pair).

        ``p = 1`` returns the base closed forms. Otherwise the add-pair cumulants
        come from :meth:`_add_cumulants`; the remove pair uses
        :math:`\kappa_r(L' \mid P') = (-1)^r \kappa_r(L \mid Q)`.
        """
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        under = _check_under(under)
        ident = self._identity()
        if ident is not None:
            return np.asarray(ident.cumulants(order, under), dtype=np.float64)
        if self.pair == "remove":
            kappa = self._cached_add_cumulants(order, _other(under))
            return kappa * (-1.0) ** np.arange(1, order + 1)
        return self._cached_add_cumulants(order, under)

    def _cached_add_cumulants(self, order: int, under: Under) -> FloatArray:
        key = ("cumulants", under)
        hit = self._cache.get(key)
        if hit is None or hit.size < order:
            hit = np.asarray(self._add_cumulants(order, under), dtype=np.float64)
            hit.setflags(write=False)
            self._cache[key] = hit
        return np.array(hit[:order])

    def _add_cumulants(self, order: int, under: Under) -> FloatArray:
        r"""Add-pair cumulants from the base rule (central moments).

        :math:`\kappa_1` is computed without cancellation from
        :math:`E_P[u] = 0`, :math:`u = p(e^{L_b} - 1)`:
        :math:`E_P[L] = E_P[\log(1+u) - u]` and
        :math:`E_Q[L] = E_P[(1+u)\log(1+u) - u]`.
        """
        nodes, log_w = self._base_rule()
        vals = lm.log_mix(nodes, self.p)
        w = np.exp(log_w)
        weights = w if under == "P" else np.exp(log_w + vals)
        kappa, _ = weighted_cumulants(vals, weights, order)
        kappa[0] = self._add_mean(nodes, w, under)
        return kappa

    def _add_mean(self, nodes: FloatArray, w: FloatArray, under: Under) -> float:
        with np.errstate(over="ignore"):
            u = self.p * np.expm1(nodes)
        v = lm.log1p_minus(u) if under == "P" else lm.xlog1p_minus(u)
        return float(w @ v)

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""``(K, K', K'')`` of L under P or Q, vectorised in ``t``.

        Add pair: :math:`K_Q(t) = K_P(t+1)`. Remove pair (Swapped relations):
        :math:`K_{P'}(t) = K_P(1-t)`, :math:`K_{Q'}(t) = K_P(-t)`.
        """
        under = _check_under(under)
        ts = check_array("t", t)
        ident = self._identity()
        if ident is not None:
            return ident.cgf_derivatives(ts, under)
        if self.pair == "remove":
            s = (1.0 if under == "P" else 0.0) - ts
            k0, k1, k2 = self._add_cgf_p(s)
            return scalar_or_array(k0), scalar_or_array(-k1), scalar_or_array(k2)
        s = ts + (0.0 if under == "P" else 1.0)
        k0, k1, k2 = self._add_cgf_p(s)
        return scalar_or_array(k0), scalar_or_array(k1), scalar_or_array(k2)

    def _tilted_base_rule(self, s: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Base nodes and log P-weights that resolve the add-pair law tilted by
        every entry of ``s`` (default: the base rule)."""
        return self._base_rule()

    def _add_cgf_p(self, s: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        nodes, log_w = self._tilted_rule_for_t(s)
        return subsampled_cgf_p(nodes, log_w, self.p, s)

    def _tilted_rule_for_t(self, s: FloatArray) -> tuple[FloatArray, FloatArray]:
        """:meth:`_tilted_base_rule`, its memory-guard error naming ``t`` (the
        public argument the tilts ``s`` come from)."""

        try:
            return self._tilted_base_rule(s)
        except QuadratureLimitError as exc:
            far = float(np.max(np.abs(s))) if np.size(s) else 0.0
            raise QuadratureLimitError(
                f"t is too far in the tail (a tilt of {far:.4g}): {exc}"
            ) from None

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        r"""Mean and third absolute central moment of the tilted loss, on the rule
        of :meth:`_tilted_base_rule` (which follows the tilt). Add pair: the
        law under Q tilted by :math:`t` is the P-law tilted by :math:`s = t + 1`;
        remove pair (:math:`L' = -L`): :math:`s = 1 - t` under P', :math:`-t`
        under Q'."""

        under = _check_under(under)
        ts = check_array("t", t)
        ident = self._identity()
        if ident is not None:
            return ident.tilted_abs_moment3(ts, under)
        if self.pair == "remove":
            s = (1.0 if under == "P" else 0.0) - ts
        else:
            s = ts + (0.0 if under == "P" else 1.0)
        nodes, log_w = self._tilted_rule_for_t(s)
        mean, m3 = tilted_abs_moment3(lm.log_mix(nodes, self.p), log_w, s)
        return (-mean if self.pair == "remove" else mean), m3

    def expect(self, fn: Any, under: Under = "P") -> Any:
        ident = self._identity()
        if ident is not None:
            return ident.expect(fn, under)
        return super().expect(fn, under)

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r"""Exact trade-off of the pair (``"both"``: of the mechanism).

        * add: :math:`f_p(\alpha) = p f_b(\alpha) + (1-p)(1-\alpha)`
          (Zheng et al. 2020, Lemma C.1);
        * remove: :math:`f_p^{-1}`, by vectorised bisection
          (:math:`f_p` is strictly decreasing for :math:`p < 1`);
        * both: :math:`C_p(f_b)` of Dong et al. (2019), eq. (14), for a
          symmetric base with fixed point :math:`x^* = P_b(L_b > 0)`.
        """
        a = check_array("alpha", alpha, 0.0, 1.0)
        ident = self._identity()
        if ident is not None:
            return ident.tradeoff(a)
        if self.pair == "add":
            return scalar_or_array(self._f_p(a))
        if self.pair == "remove":
            return scalar_or_array(self._f_p_inverse(a))
        return scalar_or_array(self._c_p(a))

    def _f_p(self, a: FloatArray) -> FloatArray:
        fb = np.asarray(self.base.tradeoff(a), dtype=np.float64)
        return self.p * fb + self._q * (1.0 - a)

    def _f_p_inverse(self, a: FloatArray) -> FloatArray:

        shape = a.shape
        flat = a.reshape(-1)
        x = monotone_bisect(
            self._f_p,
            flat,
            np.zeros_like(flat),
            np.ones_like(flat),
            decreasing=True,
            xtol=1e-30,
        )
        return x.reshape(shape)

    def _c_p(self, a: FloatArray) -> FloatArray:
        if not self.base.is_symmetric:
            raise NotImplementedError(
                "the symmetrised trade-off C_p(f) of eq. (14) needs a symmetric base; "
                "use the add and remove pairs separately."
            )
        x_star = float(self.base.plrv_sf(0.0, "P"))
        f_star = float(self._f_p(np.array([x_star]))[0])
        out = np.empty_like(a)
        left = a <= x_star
        right = a >= f_star
        mid = ~left & ~right
        out[left] = self._f_p(a[left])
        out[mid] = x_star + f_star - a[mid]
        out[right] = self._f_p_inverse(a[right])
        return out

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\delta(\varepsilon)` of the pair (``"both"``: the larger of the two).

        * add: :math:`p\,\delta_b(\ell^{-1}(\varepsilon))` for
          :math:`\varepsilon > \log(1-p)`, else :math:`1 - e^\varepsilon`;
        * remove: :math:`(1 - (1-p)e^{\varepsilon})\,
          \delta_{b'}(-\ell^{-1}(-\varepsilon))` for
          :math:`\varepsilon < -\log(1-p)`, else 0, with :math:`\delta_{b'}` the
          profile of the swapped base pair.

        Both follow from :math:`\delta = P_Q(L>\varepsilon) - e^\varepsilon
        P_P(L>\varepsilon)` by the monotone change of variable (no difference of
        small numbers is formed)."""
        e = check_array("eps", eps, allow_inf=True)
        ident = self._identity()
        if ident is not None:
            return ident.privacy_profile(e)
        if self.pair == "add":
            return scalar_or_array(self._delta_add(e))
        if self.pair == "remove":
            return scalar_or_array(self._delta_remove(e))
        return scalar_or_array(np.maximum(self._delta_add(e), self._delta_remove(e)))

    def _delta_add(self, e: FloatArray) -> FloatArray:
        out = np.empty(e.shape)
        low = e <= self._log_q
        out[low] = -np.expm1(e[low])
        b = lm.log_mix_inverse(e[~low], self.p)
        out[~low] = self.p * np.asarray(self.base.privacy_profile(b), np.float64)
        return np.clip(out, 0.0, 1.0)

    def _delta_remove(self, e: FloatArray) -> FloatArray:
        out = np.zeros(e.shape)
        act = e < -self._log_q
        ea = e[act]
        b = lm.log_mix_inverse(-ea, self.p)
        base_sw = self.base if self.base.is_symmetric else self.base.swapped()
        db = np.asarray(base_sw.privacy_profile(-b), np.float64)
        out[act] = -np.expm1(ea + self._log_q) * db
        return np.clip(out, 0.0, 1.0)

    def __repr__(self) -> str:
        return f"PoissonSubsampled({self.base!r}, p={self.p!r}, pair={self.pair!r})"


def _log_mix_end(y: float, p: float) -> float:
    r""":math:`\ell(y)` at an end ``y`` of a base support:
    :math:`\ell(-\infty) = \log(1-p)`, :math:`\ell(\infty) = \infty` (the
    values :func:`~symfdp.mechanisms._logmix.log_mix` gives there), else
    ``log_mix``."""
    if y == -math.inf:
        return -math.inf if p == 1.0 else float(np.log1p(-p))
    if y == math.inf:
        return math.inf
    return float(lm.log_mix(np.array(y), p))


def subsampled_cgf_p(
    nodes: FloatArray, log_w: FloatArray, p: float, s: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""``(K_P, K_P', K_P'')`` at ``s`` of the add-pair loss, from a base rule.

    With :math:`u = p(e^{L_b} - 1)` (so :math:`E_P[u] = 0` exactly),
    :math:`a = \log(1+u)` and :math:`\varphi_s(u) = (1+u)^s - 1 - s u`:

    .. math::  K_P(s) = \log\bigl(1 + E_P[\varphi_s(u)]\bigr), \qquad
               K_P'(s) = \frac{E_P[(e^{s a} - 1)\,a + \log(1+u) - u]}{e^{K_P(s)}},

    summed without cancellation where :math:`|K| \le 0.05` (small values keep their
    relative precision), else in log-sum-exp form; :math:`K''` is the variance of
    the tilted rule about :math:`K'`."""

    a = lm.log_mix(nodes, p)
    k0, k1, k2 = (v.reshape(-1) for v in tilted_cgf(a, log_w, s))
    flat = np.asarray(s, dtype=np.float64).reshape(-1)
    small = np.abs(k0) < 0.05
    if small.any():
        w = np.exp(log_w)
        with np.errstate(over="ignore"):
            u = p * np.expm1(nodes)
        lm1 = lm.log1p_minus(u)
        xl = lm.xlog1p_minus(u)
        ss = flat[small][:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            phi_a = lm.expm1_minus(ss * a) + ss * lm1
            phi_b = (1 + u) * lm.expm1_minus((ss - 1) * a) + (ss - 1) * xl
            phi = np.where(ss <= 0.5, phi_a, phi_b)
            big_s = phi @ w
            dnum = (np.expm1(ss * a) * a + lm1) @ w
        ok = np.isfinite(big_s) & np.isfinite(dnum) & (big_s > -1)
        idx = np.flatnonzero(small)[ok]
        k0[idx] = np.log1p(big_s[ok])
        k1[idx] = dnum[ok] / (1 + big_s[ok])
    shape = np.shape(s)
    return k0.reshape(shape), k1.reshape(shape), k2.reshape(shape)
