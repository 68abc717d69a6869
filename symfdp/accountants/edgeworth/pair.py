r"""The Edgeworth pair curve: the answers of one composed pair (a
:class:`~symfdp.curve.PairCurve`), from its two laws (:mod:`.law`), the tail
kernel of :mod:`symfdp.numeric.edgeworth`, the profile's shape (:mod:`.profile`),
its inverse (:mod:`.inverse`) and the records of its repairs (:mod:`.repairs`);
the method and its repairs are described in :mod:`symfdp.accountants.edgeworth`."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Final, Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp._validation import check_array, check_choice, check_order
from symfdp.accountants.edgeworth.inverse import Eval, solve
from symfdp.accountants.edgeworth.law import (
    EdgeworthLaw,
    check_cumulants,
    cornish_fisher_coefficients,
    increasing_range,
)
from symfdp.accountants.edgeworth.profile import (
    NEGLIGIBLE_DELTA,
    SLOPE_RTOL,
    MonotoneCheck,
    ProfileTable,
    monotone_check,
    profile_table,
    tail_formula,
)
from symfdp.accountants.edgeworth.repairs import (
    delta_repairs,
    empty_tail_repairs,
    tail_end_error,
    valid_eps,
)
from symfdp.accountants.edgeworth.tradeoff import EdgeworthTradeoff
from symfdp.curve import Answer, PairCurve, Query, Repair
from symfdp.curve.tradeoff_error import tradeoff_errors
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.edgeworth import TailKernel, series_diverges
from symfdp.numeric.roots import expand_bracket_up
from symfdp.numeric.tabulate import alpha_grid

INVERSES: tuple[str, ...] = ("numerical", "cornish_fisher")
#: Safety factor of the error estimates on the gap between consecutive orders.
ERROR_SAFETY: Final = 3.0


@dataclass(frozen=True)
class EdgeworthPairCurve(PairCurve):
    """Two-sided Edgeworth approximation of one composed pair (a
    :class:`~symfdp.curve.PairCurve`; build it with :meth:`from_cumulants`).

    Attributes:
        order: Expansion order ``J``.
        inverse: ``"numerical"`` or ``"cornish_fisher"``.
        law_p, law_q: The fitted laws of the loss under P and Q.
        kernel: The tail formula's Horner coefficients (both laws, and their
            next-order terms when the cumulants reach :math:`K_{J+4}`).
        info: Diagnostics (means, standard deviations, lambdas, valid intervals,
            ``zero_mass_tail_eps``, ``loss_upper``).
    """

    order: int
    inverse: str
    law_p: EdgeworthLaw
    law_q: EdgeworthLaw
    kernel: TailKernel = field(repr=False, compare=False)
    info: dict[str, Any] = field(default_factory=dict, compare=False)
    #: The Q-law's standardised cumulants lambda_3 .. lambda_{J+4} (empty when
    #: fitted without them): the divergence check of the error estimate.
    series_q: FloatArray = field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )

    @classmethod
    def from_cumulants(
        cls,
        cumulants_p: ArrayLike,
        cumulants_q: ArrayLike,
        order: int,
        inverse: str = "numerical",
        loss_upper: float = math.inf,
    ) -> EdgeworthPairCurve:
        r"""Fit from the summed cumulants :math:`K_1..K_{J+2}` under P and Q
        (:math:`K_{J+4}` for finite error estimates); ``loss_upper``, the end of
        the composed loss's support, decides whether an empty upper tail warns.

        Raises:
            ValueError: bad ``order``/``inverse``, too few cumulants or a
                non-positive variance.
        """
        order = check_order(order)
        inverse = check_choice("inverse", inverse, INVERSES)
        k_p = check_cumulants("cumulants_p", cumulants_p, order)
        k_q = check_cumulants("cumulants_q", cumulants_q, order)
        return cls._fit(k_p, k_q, order, inverse, loss_upper)

    @classmethod
    def _fit(
        cls,
        k_p: FloatArray,
        k_q: FloatArray,
        order: int,
        inverse: str,
        loss_upper: float,
    ) -> EdgeworthPairCurve:
        """:meth:`from_cumulants` for checked input (``Edgeworth.compose_pair``)."""
        law_p = EdgeworthLaw.fit(k_p, order)
        law_q = EdgeworthLaw.fit(k_q, order)
        gap_q = law_q.order_terms(k_q, order)
        gap_p = law_p.order_terms(k_p, order)
        kernel = TailKernel.build(
            (law_q.mean, law_p.mean),
            (law_q.sd, law_p.sd),
            (law_q.dist.polynomials, law_p.dist.polynomials),
            None if gap_q is None or gap_p is None else (gap_q, gap_p),
            (law_q.interval, law_p.interval),
            (law_q.dist.tail_log_masses, law_p.dist.tail_log_masses),
        )
        info = {
            "mean_p": law_p.mean,
            "sd_p": law_p.sd,
            "mean_q": law_q.mean,
            "sd_q": law_q.sd,
            "mu_n": (law_q.mean - law_p.mean) / law_p.sd,
            "lambdas_p": law_p.dist.lambdas,
            "lambdas_q": law_q.dist.lambdas,
            "valid_interval_p": law_p.interval,
            "valid_interval_q": law_q.interval,
            "zero_mass_tail_eps": (
                law_q.mean + law_q.sd * law_q.interval[1] if law_q.empty_above else None
            ),
            "loss_upper": float(loss_upper),
        }
        top = order + 4 if k_q.size >= order + 4 else 0
        series_q = np.array(
            [float(k_q[r - 1]) / float(k_q[1]) ** (r / 2) for r in range(3, top + 1)]
        )
        if inverse == "cornish_fisher":
            cf = cornish_fisher_coefficients(law_p.dist.lambdas, order)
            info["cornish_fisher_monotone_z"] = increasing_range(cf)
        return cls(order, inverse, law_p, law_q, kernel, info, series_q)

    @functools.cached_property
    def _tradeoff(self) -> EdgeworthTradeoff:
        """The trade-off side of this pair (:mod:`.tradeoff`)."""
        return EdgeworthTradeoff(self.order, self.inverse, self.law_p, self.law_q)

    @property
    def cf(self) -> FloatArray:
        """Ascending coefficients of the Cornish–Fisher quantile :math:`x(z)` of
        the P-law (used with ``inverse="cornish_fisher"``)."""
        return self._tradeoff.cf

    @property
    def cf_range(self) -> tuple[float, float]:
        """The interval :math:`[z_-, z_+]` on which :math:`x(z)` increases."""
        return self._tradeoff.cf_range

    def raw_tradeoff(self, alpha: ArrayLike) -> FloatArray:
        """The unrepaired two-sided formula (3.5), e.g. for Zheng et al. (2020),
        Fig. 3.1; it need not be a trade-off function."""
        return self._tradeoff.raw(check_array("alpha", alpha, 0.0, 1.0))

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """The repaired profile with its error estimate (:meth:`_delta_answer`),
        its inverse (:meth:`_epsilon_answer`) or the repaired trade-off
        (:meth:`_tradeoff_answer`)."""
        if query is Query.DELTA:
            return self._delta_answer(points)
        if query is Query.EPSILON:
            return self._epsilon_answer(points)
        return self._tradeoff_answer(points)

    def _tradeoff_answer(self, a: FloatArray) -> Answer:
        """The repaired trade-off (:meth:`.tradeoff.EdgeworthTradeoff.answer`)
        and the estimate of its absolute error: the profile's estimate
        (:meth:`_delta_answer`) carried through the duality
        (:func:`~symfdp.curve.tradeoff_error.tradeoff_errors`) plus the
        distance the repairs moved the value. On
        :func:`~symfdp.numeric.tabulate.alpha_grid` (the tabulation from which a
        curve of several pairs forms its symmetrised trade-off, whose estimate
        comes from the maximum profile) only the moves."""
        found = self._tradeoff.answer(a)
        if a is alpha_grid():
            return found
        dual = tradeoff_errors(
            a,
            lambda x: self._tradeoff.answer(x).values,
            lambda e: self._delta_answer(e).errors,
            symmetric=False,
        )
        moved = found.errors
        assert dual is not None and moved is not None  # both always estimate
        return Answer(found.values, dual + moved, repairs=found.repairs)

    # ------------------------------------------------------------ profile
    @overload
    def _terms(
        self, e: FloatArray, densities: Literal[True] = ...
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]: ...

    @overload
    def _terms(
        self, e: FloatArray, densities: Literal[False]
    ) -> tuple[FloatArray, FloatArray, None, None]: ...

    def _terms(
        self, e: FloatArray, densities: bool = True
    ) -> tuple[FloatArray, FloatArray, FloatArray | None, FloatArray | None]:
        r"""Survival function (and density) of L under Q and, times
        :math:`e^\varepsilon`, under P at the 1-d ``e`` (spliced laws, no warnings)."""
        sf, dens = self.kernel.survival(e, densities)
        if dens is None:
            return sf[0], sf[1], None, None
        return sf[0], sf[1], dens[0], dens[1]

    def _raw_delta(self, e: FloatArray) -> tuple[FloatArray, FloatArray]:
        sf_q, sf_p, _, _ = self._terms(np.ravel(e), densities=False)
        out, scale = tail_formula(sf_q, sf_p)
        return out.reshape(np.shape(e)), scale.reshape(np.shape(e))

    def _slope_value(self, e: FloatArray) -> FloatArray:
        r""":math:`\tilde\delta'(\varepsilon) = e^\varepsilon(\tilde p - \tilde S_P)
        - \tilde q` (densities of L: standardised pdf / sd)."""
        _, sf_p, dens_q, dens_p = self._terms(e)
        return dens_p - sf_p - dens_q

    def _profile_and_rise(
        self, e: FloatArray
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], FloatArray]:
        r"""``(raw, scale, rising, slope)`` at the 1-d ``e``: the tail formula,
        its term scale, where it rises (:math:`\tilde\delta' > 0` beyond
        round-off, at values above :math:`10^{-250}`) and its slope."""
        sf_q, sf_p, dens_q, dens_p = self._terms(e)
        raw, scale = tail_formula(sf_q, sf_p)
        up = dens_p - sf_p
        slope = up - dens_q
        rising = (slope > SLOPE_RTOL * (np.abs(up) + dens_q)) & (raw > NEGLIGIBLE_DELTA)
        return raw, scale, rising, slope

    @functools.cached_property
    def _check(self) -> MonotoneCheck:
        """:func:`~.profile.monotone_check` (built on the first profile or
        inverse query; see :meth:`_delta_parts`)."""
        return monotone_check(self.law_p, self.law_q, self._profile_and_rise)

    @functools.cached_property
    def _table(self) -> ProfileTable:
        """:func:`~.profile.profile_table` (built where the check finds a rise)."""
        return profile_table(
            self.law_p, self.law_q, self._terms, self._slope_value, self._raw_delta
        )

    def _delta_parts(self, e: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""(repaired, raw, term scale) of the profile at ``e``. Where the raw
        profile rises nowhere on the check grid (:math:`\varepsilon \ge 0`) it is
        its own majorant (module docstring, item 4); otherwise the table is used.
        A rise narrower than the check grid's spacing could be missed."""
        raw, scale = self._raw_delta(e)
        if not self._check.rises and np.all(e >= 0.0):
            return np.clip(raw, 0.0, 1.0), raw, scale
        table = self._table
        later = table.suffix_max[np.searchsorted(table.peaks, e, side="right")]
        repaired = np.clip(np.maximum(raw, later), 0.0, 1.0)
        return repaired, raw, scale

    def _delta_answer(self, e: FloatArray) -> Answer:
        r"""The repaired tail-formula profile (module docstring, items 1 and 4)
        and the estimate of its absolute error: ``ERROR_SAFETY`` times the
        largest change of the tail formula between consecutive orders ``J - 1
        .. J + 2``, plus the distance between the P- and the Q-expansion
        (:math:`dP = e^{-L}dQ`) of :math:`e^\varepsilon S_P`, plus the repairs;
        ``inf`` where the cumulant series diverges or without :math:`K_{J+4}`.
        An estimate, not a bound (calibration: ``benchmarks/analytic_error_cases.py``
        and its results); one above the value flags a broken-down expansion."""
        if self.kernel.full is not None and not self._check.rises and e.min() >= 0:
            # The monotone path of _delta_parts, with the order gaps from the
            # same Horner pass.
            sf, _, gaps = self.kernel.survival_and_gaps(e, densities=False)
            raw = sf[0] - sf[1]  # the tail formula (_tail_formula)
            repaired = np.minimum(np.maximum(raw, 0.0), 1.0)
            # The gaps carry no NaN (inf where they leave the float range).
            err = np.abs(gaps).max(axis=0)
            err *= ERROR_SAFETY
            err += np.abs(repaired - raw)
            diverges = self._diverges(e)
            if diverges.any():
                # The estimate is inf there: the identity term only elsewhere.
                keep = ~diverges
                err[keep] += np.abs(sf[1][keep] - self.kernel.p_term_from_q(e[keep]))
                err[diverges] = np.inf
            else:
                err += np.abs(sf[1] - self.kernel.p_term_from_q(e))
            lo, hi = valid_eps(self.law_p, self.law_q)
            repairs: tuple[Repair, ...] = ()
            if (
                raw.min() < 0.0
                or lo > -np.inf
                or hi < np.inf
                or self.info["zero_mass_tail_eps"] is not None
            ):
                # Otherwise _delta_repairs has nothing to report on this path.
                scale = np.maximum(sf[0], sf[1])
                repairs = self._delta_repairs(e, repaired, raw, scale)
            return Answer(repaired, err, repairs=repairs)
        repaired, raw, scale = self._delta_parts(e)
        repairs = self._delta_repairs(e, repaired, raw, scale)
        return Answer(repaired, self._delta_error(e, repaired, raw), repairs=repairs)

    def _order_gap(
        self, e: FloatArray, known: tuple[FloatArray, FloatArray] | None = None
    ) -> FloatArray:
        """The order-gap and pair-identity terms of :meth:`_delta_answer` at the
        finite ``e`` (``known``: the kernel's survival functions and order gaps
        there, when already evaluated)."""
        if self.kernel.gaps is None:
            return np.full(e.shape, np.inf)
        if known is None:
            sf, _, gaps = self.kernel.survival_and_gaps(e, densities=False)
        else:
            sf, gaps = known
        # The gaps carry no NaN (inf where they leave the float range).
        out: FloatArray = np.abs(gaps).max(axis=0)
        out *= ERROR_SAFETY
        out += np.abs(sf[1] - self.kernel.p_term_from_q(e))
        diverges = self._diverges(e)
        if diverges.any():
            out[diverges] = np.inf
        return out

    def _diverges(self, e: FloatArray) -> NDArray[np.bool_]:
        """Where the Q-law's cumulant series diverges at ``e`` (estimate ``inf``)."""
        return series_diverges(self.series_q, self.law_q.standardise(e))

    def _delta_error(
        self, e: FloatArray, repaired: FloatArray, raw: FloatArray
    ) -> FloatArray:
        return self._order_gap(e) + np.abs(repaired - raw)

    def _delta_repairs(
        self, e: FloatArray, repaired: FloatArray, raw: FloatArray, scale: FloatArray
    ) -> tuple[Repair, ...]:
        """:func:`~.repairs.delta_repairs` of this pair (read from the table
        where the profile rises or ``e`` reaches below 0)."""
        on_table = bool(self._check.rises or (e.size and not e.min() >= 0.0))
        return delta_repairs(
            self.law_p, self.law_q, self.info, on_table, e, repaired, raw, scale
        )

    # ------------------------------------------------------------ inverse
    def _epsilon_answer(self, d: FloatArray) -> Answer:
        r""":math:`\inf\{\varepsilon \ge 0 : \hat\delta(\varepsilon) \le d\}`, by
        Newton on :math:`\log\tilde\delta` in a bracketing cell of the check grid
        or of the tabulated majorant, and the estimate of its absolute error:
        the delta estimate of :meth:`_delta_answer` at :math:`\hat\varepsilon`
        divided by :math:`|\tilde\delta'(\hat\varepsilon)|` (the closed-form
        slope, from the root's last Newton step); ``inf`` where the slope
        vanishes, and where the error band :math:`\hat\varepsilon` + estimate
        reaches the end :math:`\varepsilon^*` of an empty upper tail of the
        Q-expansion below the loss's own end (:func:`~.repairs.tail_end_error`)."""
        eps, slope, on_table, last = self._epsilon(d)
        # The gap at the root from the root finder's last evaluation, when that
        # was at the root itself (the same values as a new evaluation).
        known = None
        if last is not None and np.array_equal(last[0], eps):
            known = last[1:]
        gap = self._order_gap(eps, known)
        if on_table:
            # The majorant replaced the raw profile: its size there counts too.
            raw, _ = self._raw_delta(eps)
            gap = gap + np.abs(d - raw)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            err = np.where(gap > 0.0, gap / np.abs(slope), 0.0)
        err[np.isnan(err)] = np.inf
        err = tail_end_error(self.info, eps, err)
        repairs: tuple[Repair, ...] = ()
        star = self.info["zero_mass_tail_eps"]
        if star is not None:
            # A target below the profile's last positive values converges onto
            # the cut-off eps* from below (to the solver's tolerance).
            atol = 1e-9 * max(1.0, abs(star))
            repairs = empty_tail_repairs(self.info, Query.EPSILON, eps, atol)
        return Answer(eps, err, repairs=repairs)

    def _epsilon(self, d: FloatArray) -> tuple[FloatArray, FloatArray, bool, Eval]:
        """``(eps, delta'(eps), solved on the table, the root finder's last
        evaluation)`` for the targets ``d``."""
        check = self._check
        if check.rises:
            eps, slope = self._epsilon_on_table(d)
            return eps, slope, True, None
        eps, slope, last = self._epsilon_on_grid(d, check)
        return eps, slope, False, last

    def _epsilon_on_grid(
        self, d: FloatArray, check: MonotoneCheck
    ) -> tuple[FloatArray, FloatArray, Eval]:
        """``(eps, delta'(eps), last evaluation)`` for a profile without rises:
        the cell of the check grid where the raw profile crosses ``d`` (it is
        non-increasing there), then Newton; targets beyond the grid go to the
        table."""
        vals = check.raw
        j = np.searchsorted(check.neg_raw, -d, side="left")  # grid points above d
        n = vals.size
        if j.min() > 0 and j.max() < n:
            slopes = (check.slope[j - 1], check.slope[j])
            return solve(
                self.kernel,
                d,
                check.grid[j - 1],
                check.grid[j],
                vals[j - 1],
                vals[j],
                slopes,
            )
        inside = (j > 0) & (j < n)
        eps = np.zeros(d.shape)
        slope = np.zeros(d.shape)
        if inside.any():
            jj = j[inside]
            eps[inside], slope[inside], _ = solve(
                self.kernel,
                d[inside],
                check.grid[jj - 1],
                check.grid[jj],
                vals[jj - 1],
                vals[jj],
            )
        zero = j == 0
        if zero.any():
            slope[zero] = self._slope_value(eps[zero])
        far = j >= n
        if far.any():
            eps[far], slope[far] = self._epsilon_on_table(d[far])
        return eps, slope, None

    def _epsilon_on_table(self, d: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(eps, delta'(eps))`` on the tabulated majorant (inside a bracket the
        repaired and raw profiles coincide)."""
        table = self._table
        out = np.zeros(d.shape)
        slope = np.zeros(d.shape)
        vals = table.grid_delta
        # vals is non-increasing: j = number of grid points with value > d.
        j = np.searchsorted(-vals, -d, side="left")
        todo = j > 0
        if not todo.all():
            slope[~todo] = self._slope_value(out[~todo])
        if not todo.any():
            return out, slope
        jj = j[todo]
        dd = d[todo]
        beyond = jj >= vals.size
        lo = table.grid[jj - 1]
        hi = table.grid[np.minimum(jj, vals.size - 1)]
        if beyond.any():
            hi = hi.copy()
            hi[beyond] = expand_bracket_up(
                lambda x: self._delta_parts(x)[0],
                dd[beyond],
                lo[beyond],
                lo[beyond] + 1.0,
            )
        d_lo, _ = self._raw_delta(lo)
        d_hi, _ = self._raw_delta(hi)
        out[todo], slope[todo], _ = solve(
            self.kernel, dd, lo, hi, np.maximum(d_lo, dd), d_hi
        )
        return out, slope
