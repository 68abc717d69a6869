r"""``Edgeworth``: the two-sided Edgeworth approximation of Zheng et al. (2020), Sec. 3.

The composed loss :math:`T_n = \sum_i L_i` has summed cumulants :math:`K^P_r`,
:math:`K^Q_r` under P and Q (Zheng et al. (2020), eq. (A.2);
:mod:`symfdp.accountants._cumulant_sums`). With :math:`m = K_1`, :math:`s =
\sqrt{K_2}` per law, the standardised laws are replaced by their order-``J``
Edgeworth expansions :math:`\tilde F_P, \tilde F_Q` in :math:`\lambda_r =
K_r/K_2^{r/2}` (:class:`~symfdp.numeric.edgeworth.EdgeworthDistribution`):

* **trade-off** (eq. (3.5), the two-sided formula), with :math:`\alpha = P_P(T_n >
  \tau)`,

  .. math::  f(\alpha) = \tilde F_Q\Big(\frac{m_P + s_P\, x(\alpha) - m_Q}{s_Q}\Big),
             \qquad x(\alpha) = \tilde F_P^{-1}(1 - \alpha),

  :math:`x` from the inverse survival function (``inverse="numerical"``, Method
  (i)) or the Cornish–Fisher polynomial in :math:`z = \Phi^{-1}(1-\alpha)`
  (``inverse="cornish_fisher"``, Method (ii), eq. (3.9) for ``J = 2``);
* **profile** (the tail formula, Zheng et al. (2020), Lemma 5.1):

  .. math::  \tilde\delta(\varepsilon) = \tilde S_Q\Big(\frac{\varepsilon -
             m_Q}{s_Q}\Big) - e^{\varepsilon}\, \tilde S_P\Big(\frac{\varepsilon -
             m_P}{s_P}\Big),

  from the Horner coefficients of :mod:`symfdp.numeric.edgeworth`; it
  is never larger than the conjugate :math:`1 + f^*(-e^\varepsilon)` of the
  approximate trade-off, and equal where the approximate likelihood ratio is exact;
* **error estimate** (:meth:`EdgeworthPairCurve._delta_answer`): three times the
  largest change of the tail formula between consecutive orders ``J - 1 .. J + 2``
  plus the size of any repair; for epsilon divided by :math:`|\tilde\delta'|`, and
  ``inf`` where that band reaches the end of an empty upper tail of the
  Q-expansion (:meth:`EdgeworthPairCurve._tail_end_error`).

Order 0 is the two-sided normal approximation (:math:`G_\mu` when :math:`s_P =
s_Q`); for the Gaussian mechanism every order is exact. Cost independent of ``n``
for a homogeneous composition.

**Repairs** (each recorded in the answer, :class:`~symfdp.curve.Repair`; the
curve warns):

1. *Invalid CDFs.* Outside :meth:`EdgeworthDistribution.valid_interval` each law
   uses the normal-tail splice of :mod:`symfdp.numeric.edgeworth`. If the
   expansion reaches 0 or 1 before its density vanishes, the spliced tail is empty
   and :math:`\tilde\delta = 0` beyond :math:`\varepsilon^* = m_Q + s_Q b_Q`:
   anti-conservative wherever the composed loss
   (:meth:`~symfdp.mechanisms.Mechanism.plrv_support`) can exceed it (not for the
   bounded Laplace pair of Zheng et al. Sec. 5.2). Queries there
   warn separately and ``info["zero_mass_tail_eps"]`` records :math:`\varepsilon^*`;
   :class:`~symfdp.accountants.Numerical` is the method for such (strongly skewed,
   short) compositions.
2. *Trade-off.* Values above :math:`1 - \alpha` are clipped, and the curve is
   replaced by its greatest convex minorant (lower convex hull of the hull's nodes
   on :func:`~symfdp.numeric.tabulate.alpha_grid` and the queried points); both
   only lower :math:`f`. :meth:`EdgeworthPairCurve.raw_tradeoff` is unrepaired.
3. *Cornish–Fisher.* Beyond the interval :math:`[z_-, z_+] \ni 0` where :math:`x(z)`
   increases, :math:`x(z) = x(z_\pm) + (z - z_\pm)` (Zheng et al. (2020), Fig. 3.1:
   the raw polynomial is non-monotone for small ``n``).
4. *Profile.* Negative values are set to 0; a profile that is not non-increasing is
   replaced by its smallest non-increasing majorant :math:`\hat\delta(\varepsilon) =
   \sup_{s \ge \varepsilon}\tilde\delta(s)` (conservative). Maxima are located on a
   grid of spacing 1/15 over :math:`\pm 40` standard deviations (valid-interval ends
   as nodes) from the sign changes of :math:`\tilde\delta'(\varepsilon) = -\tilde
   q(\varepsilon) + e^\varepsilon(\tilde p(\varepsilon) - \tilde S_P(\varepsilon))`;
   a wiggle narrower than the grid could be missed.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast, overload

import numpy as np
from numpy.polynomial.polynomial import polyval
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.optimize import isotonic_regression

from symfdp._validation import check_array, check_choice, check_order
from symfdp.accountants._cumulant_sums import summed_cumulants, surely_varies
from symfdp.accountants.base import (
    DEFAULT_WARN_REL_ERROR,
    Accountant,
    Components,
    loss_range,
)
from symfdp.curve import Answer, PairCurve, Query, Repair
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.compile import _evaluator
from symfdp.numeric.edgeworth import (
    EdgeworthDistribution,
    TailKernel,
    correction_polynomial,
    series_diverges,
)
from symfdp.numeric.roots import expand_bracket_up, newton_on_bracket, regula_falsi
from symfdp.numeric.tabulate import alpha_grid, lower_convex_hull

INVERSES: tuple[str, ...] = ("numerical", "cornish_fisher")
#: Repairs that change a trade-off value by less than this are round-off.
TRADEOFF_TOL: Final = 1e-9
#: Relative size (w.r.t. the two terms of the tail formula) of a negligible
#: negative profile value, and of a negligible monotone repair.
PROFILE_RTOL: Final = 1e-9
#: Three-point convexity violations below this are round-off (no hull needed).
_CONVEX_ATOL: Final = 1e-12
#: Half-width, in standard deviations, and points per side of the profile table.
_TABLE_SPAN: Final = 40.0
_TABLE_POINTS: Final = 1201
_ROOT_RTOL: Final = 1e-9
#: A spliced tail with less than this fraction of the normal tail mass is empty.
_EMPTY_RTOL: Final = 1e-9
#: Profile values below this are round-off in the far tails, never refined.
_NEGLIGIBLE_DELTA: Final = 1e-250
#: Safety factor of the error estimates on the gap between consecutive orders.
ERROR_SAFETY: Final = 3.0
#: Relative size of a positive slope of the raw profile that counts as a rise.
_SLOPE_RTOL: Final = 1e-9
#: The monotonicity check's grid: every 1/8 standard deviation of either law from
#: -8 to +40 standard deviations around its mean (eps >= 0 only).
_CHECK_STEPS: Final = np.arange(-64, 321) / 8.0


#: A root finder's last evaluation: its points, the kernel's survival functions
#: and order gaps there (None where not kept).
_Eval = tuple[FloatArray, FloatArray, FloatArray] | None


def _convex_through(
    a: FloatArray, beta: FloatArray, grid: FloatArray, hull: FloatArray
) -> FloatArray:
    """Lower convex hull of the tabulated hull's nodes and the points
    ``(a, beta)``, evaluated at ``a`` (a convex minorant of both)."""
    x = np.concatenate((grid, a.ravel()))
    y = np.concatenate((hull, beta.ravel()))
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    first = np.concatenate(([True], np.diff(x) > 0))  # lowest value per abscissa
    xv, yv = lower_convex_hull(x[first], y[first])
    return np.interp(a, xv, yv)


def _cf_coefficients(lambdas: tuple[float, ...], order: int) -> FloatArray:
    """Ascending coefficients of the order-``J`` Cornish–Fisher polynomial x(z)."""
    kwargs = {
        f"lambda{r}": v for r, v in zip(range(3, order + 3), lambdas, strict=True)
    }
    ev = _evaluator("cornish_fisher_poly_coeffs", order)
    return np.atleast_1d(np.asarray(ev(**kwargs), dtype=np.float64))


def _increasing_range(coeffs: FloatArray) -> tuple[float, float]:
    """Maximal interval around 0 on which the polynomial has a positive slope."""
    slope = np.polynomial.polynomial.polyder(coeffs)
    if slope.size == 0 or not np.any(slope):
        return (0.0, 0.0)
    if polyval(0.0, slope) <= 0:
        return (0.0, 0.0)
    roots: ArrayLike = (
        np.polynomial.polynomial.polyroots(slope) if slope.size > 1 else []
    )
    real = np.array(
        [r.real for r in np.atleast_1d(roots) if abs(r.imag) <= 1e-9 * max(1, abs(r))]
    )
    lo = float(real[real < 0].max()) if np.any(real < 0) else -math.inf
    hi = float(real[real > 0].min()) if np.any(real > 0) else math.inf
    return (lo, hi)


def _check_cumulants(name: str, cumulants: ArrayLike, order: int) -> FloatArray:
    """Finite :math:`K_1..K_{J+2}` (or more) with :math:`K_2 > 0`."""
    k = check_array(name, np.atleast_1d(cumulants))
    if k.ndim != 1 or k.size < order + 2:
        raise ValueError(
            f"{name} must hold the cumulants kappa_1..kappa_{order + 2}; "
            f"found {k.size}."
        )
    if not k[1] > 0.0:
        raise ValueError(f"{name}[1] (the variance) must be > 0. Found {k[1]:g}.")
    return k


@dataclass(frozen=True)
class _Law:
    """The Edgeworth law of one side: mean, standard deviation and distribution."""

    mean: float
    sd: float
    dist: EdgeworthDistribution
    interval: tuple[float, float]
    empty_below: bool  # the spliced lower tail carries no mass
    empty_above: bool  # the spliced upper tail carries no mass

    @classmethod
    def fit(cls, cumulants: FloatArray, order: int) -> _Law:
        # The lambdas of EdgeworthDistribution.from_cumulants (n = 1); the
        # cumulants were validated by the caller.
        k2 = float(cumulants[1])
        lams = ()
        if k2 > 0.0 and cumulants.size >= order + 2:
            lams = tuple(
                float(cumulants[r - 1] / k2 ** (r / 2)) for r in range(3, order + 3)
            )
        if len(lams) == order and all(map(math.isfinite, lams)):
            dist = EdgeworthDistribution._trusted(lams, order)
        else:  # raises its ValueError
            dist = EdgeworthDistribution.from_cumulants(cumulants[: order + 2], order)
        a, b = dist.valid_interval()
        log_fa, log_sb = dist.tail_log_masses
        log_rtol = math.log(_EMPTY_RTOL)
        empty_below = bool(
            np.isfinite(a) and log_fa <= log_rtol + float(special.log_ndtr(a))
        )
        empty_above = bool(
            np.isfinite(b) and log_sb <= log_rtol + float(special.log_ndtr(-b))
        )
        return cls(
            float(cumulants[0]),
            math.sqrt(float(cumulants[1])),
            dist,
            (float(a), float(b)),
            empty_below,
            empty_above,
        )

    def standardise(self, t: FloatArray) -> FloatArray:
        return (t - self.mean) / self.sd

    def outside(self, x: FloatArray) -> NDArray[np.bool_]:
        return (x < self.interval[0]) | (x > self.interval[1])

    def order_terms(
        self, cumulants: FloatArray, order: int
    ) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        r""":math:`(R_J - R_{J-1}, R_{J+1} - R_J, R_{J+2} - R_{J+1})` (the first
        is 0 for ``J = 0``) from the cumulants up to :math:`K_{J+4}` (None when
        fewer are given): the terms of the error estimate."""
        if cumulants.size < order + 4:
            return None
        k2 = float(cumulants[1])
        lams = tuple(
            float(cumulants[r - 1]) / k2 ** (r / 2) for r in range(3, order + 5)
        )
        orders = (max(order - 1, 0), order, order + 1, order + 2)
        polys = [correction_polynomial(lams, j) for j in orders]
        table = np.zeros((4, max(len(c) for c in polys)))
        for row, c in zip(table, polys, strict=True):
            row[: len(c)] = c
        r0, r1, r2, r3 = table
        return r1 - r0, r2 - r1, r3 - r2


@dataclass(frozen=True)
class _ProfileTable:
    """Local maxima of the raw profile and the repaired profile on a grid."""

    peaks: FloatArray  # sorted locations of local maxima (and grid points)
    suffix_max: FloatArray  # max of the raw profile at peaks[k:], length + 1
    grid: FloatArray  # increasing eps >= 0 for the inverse (starts at 0)
    grid_delta: FloatArray  # repaired profile on ``grid`` (non-increasing)


@dataclass(frozen=True)
class _MonotoneCheck:
    """The raw profile on the check grid (see ``EdgeworthPairCurve._delta_parts``)."""

    grid: FloatArray  # increasing eps >= 0, starting at 0
    raw: FloatArray  # the raw profile there, clipped at 0
    rises: bool  # it rises somewhere on the grid (where it is positive)
    neg_raw: FloatArray  # -raw (increasing: searchsorted's order)
    slope: FloatArray  # the raw profile's slope there (the start of the inverse)


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
    law_p: _Law
    law_q: _Law
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
        k_p = _check_cumulants("cumulants_p", cumulants_p, order)
        k_q = _check_cumulants("cumulants_q", cumulants_q, order)
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
        law_p = _Law.fit(k_p, order)
        law_q = _Law.fit(k_q, order)
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
            cf = _cf_coefficients(law_p.dist.lambdas, order)
            info["cornish_fisher_monotone_z"] = _increasing_range(cf)
        return cls(order, inverse, law_p, law_q, kernel, info, series_q)

    @functools.cached_property
    def cf(self) -> FloatArray:
        """Ascending coefficients of the Cornish–Fisher quantile :math:`x(z)` of
        the P-law (used with ``inverse="cornish_fisher"``)."""
        return _cf_coefficients(self.law_p.dist.lambdas, self.order)

    @functools.cached_property
    def cf_range(self) -> tuple[float, float]:
        """The interval :math:`[z_-, z_+]` on which :math:`x(z)` increases."""
        return _increasing_range(self.cf)

    # ------------------------------------------------------------ trade-off
    def _threshold(self, a: FloatArray, repair: bool) -> FloatArray:
        """Standardised P-threshold x(alpha) with P_P(X > x) = alpha."""
        if self.inverse == "numerical":
            return self.law_p.dist.isf_values(a)
        with np.errstate(divide="ignore"):
            z = -special.ndtri(a)
        finite = np.isfinite(z)
        zc = np.where(finite, z, 0.0)
        if repair:
            lo, hi = self.cf_range
            inner = np.clip(zc, lo, hi)
            x = polyval(inner, self.cf) + (zc - inner)
        else:
            x = polyval(zc, self.cf)
        return np.where(finite, x, z)

    def _tradeoff_of_threshold(self, x: FloatArray) -> FloatArray:
        p, q = self.law_p, self.law_q
        with np.errstate(invalid="ignore"):
            y = (p.mean + p.sd * x - q.mean) / q.sd
        return q.dist.cdf_values(y)

    def raw_tradeoff(self, alpha: ArrayLike) -> FloatArray:
        """The unrepaired two-sided formula (3.5), e.g. for Zheng et al. (2020),
        Fig. 3.1; it need not be a trade-off function."""
        a = check_array("alpha", alpha, 0.0, 1.0)
        return self._tradeoff_of_threshold(self._threshold(a, repair=False))

    def _clipped(self, a: FloatArray) -> tuple[FloatArray, FloatArray]:
        x = self._threshold(a, repair=True)
        beta = self._tradeoff_of_threshold(x)
        return np.minimum(beta, 1.0 - a), x

    @functools.cached_property
    def _hull(self) -> tuple[FloatArray, FloatArray] | None:
        """Greatest convex minorant of the clipped curve on the alpha grid (None if
        the tabulated curve is already convex to ``_CONVEX_ATOL``)."""
        grid = alpha_grid()
        beta, _ = self._clipped(grid)
        return self._hull_of(grid, beta)

    @staticmethod
    def _hull_of(
        grid: FloatArray, beta: FloatArray
    ) -> tuple[FloatArray, FloatArray] | None:
        """The hull of the clipped curve ``beta`` tabulated on ``grid``: slopes by
        weighted isotonic regression of the secant slopes (Barlow et al. 1972)."""
        x0, x1, x2 = grid[:-2], grid[1:-1], grid[2:]
        chord = beta[:-2] + (beta[2:] - beta[:-2]) * (x1 - x0) / (x2 - x0)
        if np.all(beta[1:-1] - chord <= _CONVEX_ATOL):
            return None
        width = np.diff(grid)
        slopes = isotonic_regression(np.diff(beta) / width, weights=width).x
        hull = beta[0] + np.concatenate(([0.0], np.cumsum(slopes * width)))
        return grid, np.maximum(hull, 0.0)

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """The repaired profile with its error estimate (:meth:`_delta_answer`),
        its inverse (:meth:`_epsilon_answer`) or the repaired trade-off
        (:meth:`_tradeoff_answer`, no estimate)."""
        if query is Query.DELTA:
            return self._delta_answer(points)
        if query is Query.EPSILON:
            return self._epsilon_answer(points)
        return self._tradeoff_answer(points)

    def _tradeoff_answer(self, a: FloatArray) -> Answer:
        """The repaired trade-off (module docstring, items 1-3); cached on
        :func:`~symfdp.numeric.tabulate.alpha_grid`."""
        if a is alpha_grid():
            parts = self._on_grid
            return Answer(parts[-1].copy(), repairs=self._tradeoff_repairs(a, *parts))
        if "_hull" in self.__dict__:
            x = self._threshold(a, repair=True)
            raw = self._tradeoff_of_threshold(x)
        else:
            # First call: the hull's grid and ``a`` share one inverse (elementwise,
            # so every value is the one a separate evaluation gives).
            grid = alpha_grid()
            x_all = self._threshold(np.concatenate((a, grid)), repair=True)
            raw_all = self._tradeoff_of_threshold(x_all)
            x = x_all[: a.size]
            raw = raw_all[: a.size]
            beta_grid = np.minimum(raw_all[a.size :], 1.0 - grid)
            self.__dict__["_hull"] = self._hull_of(grid, beta_grid)
        beta = np.minimum(raw, 1.0 - a)
        hull = self._hull
        out = beta if hull is None else _convex_through(a, beta, *hull)
        return Answer(out, repairs=self._tradeoff_repairs(a, x, raw, beta, out))

    @functools.cached_property
    def _on_grid(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """``(x, raw, clipped, repaired)`` on the alpha grid (one evaluation)."""
        grid = alpha_grid()
        x = self._threshold(grid, repair=True)
        raw = self._tradeoff_of_threshold(x)
        beta = np.minimum(raw, 1.0 - grid)
        if "_hull" not in self.__dict__:
            self.__dict__["_hull"] = self._hull_of(grid, beta)
        hull = self._hull
        out = beta if hull is None else _convex_through(grid, beta, *hull)
        return x, raw, beta, out

    def _tradeoff_repairs(
        self,
        a: FloatArray,
        x: FloatArray,
        raw: FloatArray,
        clipped: FloatArray,
        out: FloatArray,
    ) -> tuple[Repair, ...]:
        """The records of the trade-off's repairs (module docstring, items 1-3)."""
        out_repairs: list[Repair] = []
        p, q = self.law_p, self.law_q
        finite = np.isfinite(x)
        xs = x[finite]
        if self.inverse == "cornish_fisher":
            with np.errstate(divide="ignore"):
                z = -special.ndtri(a[finite])
            lo, hi = self.cf_range
            if np.any((z < lo) | (z > hi)):
                out_repairs.append(
                    Repair(
                        Query.TRADEOFF,
                        "the Cornish-Fisher quantile is not monotone beyond z in "
                        f"[{lo:.4g}, {hi:.4g}] and was continued with unit slope "
                        "there",
                    )
                )
        elif np.any(p.outside(xs)):
            out_repairs.append(Repair(Query.TRADEOFF, self._splice_note("P", p)))
        y = (p.mean + p.sd * xs - q.mean) / q.sd
        if np.any(q.outside(y)):
            out_repairs.append(Repair(Query.TRADEOFF, self._splice_note("Q", q)))
        excess = raw - clipped
        k = int(np.argmax(excess)) if excess.size else 0
        if excess.size and excess[k] > TRADEOFF_TOL:
            out_repairs.append(
                Repair(
                    Query.TRADEOFF,
                    "values above 1 - alpha were clipped",
                    float(a[k]),
                    float(excess[k]),
                )
            )
        bend = clipped - out
        k = int(np.argmax(bend)) if bend.size else 0
        if bend.size and bend[k] > TRADEOFF_TOL:
            out_repairs.append(
                Repair(
                    Query.TRADEOFF,
                    "the curve is not convex; it was replaced by its convex minorant",
                    float(a[k]),
                    float(bend[k]),
                )
            )
        return tuple(out_repairs)

    def _splice_note(self, side: str, law: _Law) -> str:
        a, b = law.interval
        empty = []
        if law.empty_below:
            empty.append("below")
        if law.empty_above:
            empty.append("above")
        note = (
            f"the {side}-law expansion is not a valid CDF outside the standardised "
            f"interval [{a:.4g}, {b:.4g}] (normal tail spliced there"
        )
        if empty:
            note += f"; the tail {' and '.join(empty)} it carries no mass"
        return note + ")"

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

    @staticmethod
    def _tail_formula(
        sf_q: FloatArray, weighted_sf_p: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        r"""Tail formula :math:`\tilde S_Q - e^{\varepsilon}\tilde S_P` and the
        larger of its two terms (for tolerances)."""
        return sf_q - weighted_sf_p, np.maximum(sf_q, weighted_sf_p)

    def _raw_delta(self, e: FloatArray) -> tuple[FloatArray, FloatArray]:
        sf_q, sf_p, _, _ = self._terms(np.ravel(e), densities=False)
        out, scale = self._tail_formula(sf_q, sf_p)
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
        raw, scale = self._tail_formula(sf_q, sf_p)
        up = dens_p - sf_p
        slope = up - dens_q
        rising = (slope > _SLOPE_RTOL * (np.abs(up) + dens_q)) & (
            raw > _NEGLIGIBLE_DELTA
        )
        return raw, scale, rising, slope

    @functools.cached_property
    def _check(self) -> _MonotoneCheck:
        """The raw profile on the check grid and whether it rises there (built on
        the first profile or inverse query; see :meth:`_delta_parts`)."""
        p, q = self.law_p, self.law_q
        nodes = [law.mean + law.sd * _CHECK_STEPS for law in (p, q)]
        ends = np.array([law.mean + law.sd * np.array(law.interval) for law in (p, q)])
        grid = np.concatenate((*nodes, ends[np.isfinite(ends)], [0.0]))
        grid = grid[grid >= 0.0]
        grid.sort()
        grid = grid[np.concatenate(([True], grid[1:] != grid[:-1]))]  # np.unique
        raw, _, rising, slope = self._profile_and_rise(grid)
        clipped = np.maximum(raw, 0.0)
        return _MonotoneCheck(grid, clipped, bool(rising.any()), -clipped, slope)

    @functools.cached_property
    def _table(self) -> _ProfileTable:
        p, q = self.law_p, self.law_q
        z = np.linspace(-_TABLE_SPAN, _TABLE_SPAN, _TABLE_POINTS)
        # The ends of the valid intervals are kinks of the profile (the density
        # of a law jumps there): local maxima can sit on them, so they are nodes.
        ends = np.array([law.mean + law.sd * np.array(law.interval) for law in (p, q)])
        ends = ends[np.isfinite(ends)]
        grid = np.unique(np.concatenate((p.mean + p.sd * z, q.mean + q.sd * z, ends)))
        sf_q, sf_p, dens_q, dens_p = self._terms(grid)
        grid_raw, _ = self._tail_formula(sf_q, sf_p)
        sign = np.sign(dens_p - sf_p - dens_q)
        # Interior maxima (slope + to -); cells below half the largest value to
        # their right, or non-positive, cannot change the majorant: not refined.
        ends = np.maximum(grid_raw[:-1], grid_raw[1:])
        right = np.concatenate((np.maximum.accumulate(grid_raw[::-1])[::-1][2:], [0.0]))
        turn = np.flatnonzero(
            (sign[:-1] > 0)
            & (sign[1:] <= 0)
            & (ends > _NEGLIGIBLE_DELTA)
            & (ends > 0.5 * right)
        )
        peaks, raw = grid, grid_raw
        # The raw profile at eps = 0 (first node of the inverse's grid) and at the
        # refined maxima, in one evaluation.
        if turn.size:
            tops = regula_falsi(
                self._slope_value, grid[turn], grid[turn + 1], xrtol=_ROOT_RTOL
            )
            extra_raw, _ = self._raw_delta(np.concatenate((tops, [0.0])))
            top_raw, zero_raw = extra_raw[:-1], extra_raw[-1:]
            peaks = np.concatenate((grid, tops))
            order = np.argsort(peaks, kind="stable")
            peaks, raw = peaks[order], np.concatenate((grid_raw, top_raw))[order]
        suffix = np.maximum.accumulate(np.maximum(raw, 0.0)[::-1])[::-1]
        suffix = np.concatenate((suffix, [0.0]))
        positive = peaks > 0.0
        if not turn.size:
            zero_raw, _ = self._raw_delta(np.zeros(1))
        inv_grid = np.concatenate(([0.0], peaks[positive]))
        inv_raw = np.concatenate((zero_raw, raw[positive]))
        after = suffix[np.searchsorted(peaks, inv_grid, side="right")]
        grid_delta = np.clip(np.maximum(inv_raw, after), 0.0, 1.0)
        return _ProfileTable(peaks, suffix, inv_grid, grid_delta)

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
            lo, hi = self._valid_eps
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

    @functools.cached_property
    def _valid_eps(self) -> tuple[float, float]:
        """The eps range where neither law is spliced."""
        ends = [
            (law.mean + law.sd * law.interval[0], law.mean + law.sd * law.interval[1])
            for law in (self.law_p, self.law_q)
        ]
        return max(lo for lo, _ in ends), min(hi for _, hi in ends)

    def _delta_repairs(
        self, e: FloatArray, repaired: FloatArray, raw: FloatArray, scale: FloatArray
    ) -> tuple[Repair, ...]:
        """The records of the profile's repairs (module docstring, items 1 and 4)."""
        out: list[Repair] = []
        p, q = self.law_p, self.law_q
        lo, hi = self._valid_eps
        if e.size and (lo > -np.inf or hi < np.inf) and (e.min() < lo or e.max() > hi):
            if np.any(p.outside(p.standardise(e))):
                out.append(Repair(Query.DELTA, self._splice_note("P", p)))
            if np.any(q.outside(q.standardise(e))):
                out.append(Repair(Query.DELTA, self._splice_note("Q", q)))
        if raw.size and raw.min() < 0.0 and np.any(raw < -PROFILE_RTOL * scale):
            k = int(np.argmin(raw))
            out.append(
                Repair(
                    Query.DELTA,
                    "negative values of the tail formula were set to 0",
                    float(e[k]),
                    float(-raw[k]),
                )
            )
        on_table = self._check.rises or (e.size and not e.min() >= 0.0)
        lifted = repaired - np.maximum(raw, 0.0)
        if on_table and np.any(lifted > PROFILE_RTOL * scale):
            k = int(np.argmax(lifted))
            out.append(
                Repair(
                    Query.DELTA,
                    "the tail formula is not non-increasing here; its smallest "
                    "non-increasing majorant was used",
                    float(e[k]),
                    float(lifted[k]),
                )
            )
        if self.info["zero_mass_tail_eps"] is not None:
            out.extend(self._empty_tail_repairs(Query.DELTA, e))
        return tuple(out)

    def _empty_tail_repairs(
        self, query: Query, e: FloatArray, atol: float = 0.0
    ) -> tuple[Repair, ...]:
        """A record when some ``e`` is at least ``eps* - atol`` (below the
        loss's end): beyond the empty tail of the Q-expansion the answer is not
        a guarantee (its error is unknown)."""
        star = self.info["zero_mass_tail_eps"]
        upper = self.info["loss_upper"]
        if star is None or star >= upper:
            return ()
        if not np.any((e >= star - atol) & (e < upper)):
            return ()
        return (
            Repair(
                query,
                "the expansion of the Q-law of the privacy loss has no mass above "
                f"eps* = {star:.6g} while the loss itself reaches {upper:.6g}, so "
                "delta(eps) for eps >= eps* (and epsilon(delta) near it) is NOT a "
                "privacy guarantee and is likely too small (anti-conservative)",
            ),
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
        Q-expansion below the loss's own end (:meth:`_tail_end_error`)."""
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
        err = self._tail_end_error(eps, err)
        repairs: tuple[Repair, ...] = ()
        star = self.info["zero_mass_tail_eps"]
        if star is not None:
            # A target below the profile's last positive values converges onto
            # the cut-off eps* from below (to the solver's tolerance).
            atol = 1e-9 * max(1.0, abs(star))
            repairs = self._empty_tail_repairs(Query.EPSILON, eps, atol)
        return Answer(eps, err, repairs=repairs)

    def _tail_end_error(self, eps: FloatArray, err: FloatArray) -> FloatArray:
        r"""``err``, or ``inf`` where :math:`\hat\varepsilon + \text{err} \ge
        \varepsilon^*` (``zero_mass_tail_eps``) while the composed loss reaches
        beyond :math:`\varepsilon^*`.

        Above :math:`\varepsilon^*` the Q-expansion has no mass, so its profile
        falls to 0 there however heavy the true tail is; an answer whose error
        band reaches :math:`\varepsilon^*` is set by the end of the expansion,
        not by the law. Atom-dominated compositions put answers exactly there:
        Laplace steps (atoms at :math:`\pm\mu`, a bounded loss) make the
        Q-law strongly left-skewed, its order-2 expansion reaches 1 at
        :math:`\varepsilon^*`, and deep-tail targets all solve to
        :math:`\varepsilon^*` (Laplace(2.84) x 30 with rare subsampled-Gaussian
        steps, delta = 2.4e-10: 79.39 where the certified value is 85.11, the
        delta-error estimate there 3e6 times delta, its linearisation 3.3).
        The true eps may lie anywhere beyond: the estimate cannot tell."""
        star = self.info["zero_mass_tail_eps"]
        if star is None or star >= self.info["loss_upper"]:
            return err
        return np.where(eps + err >= star, np.inf, err)

    def _epsilon(self, d: FloatArray) -> tuple[FloatArray, FloatArray, bool, _Eval]:
        """``(eps, delta'(eps), solved on the table, the root finder's last
        evaluation)`` for the targets ``d``."""
        check = self._check
        if check.rises:
            eps, slope = self._epsilon_on_table(d)
            return eps, slope, True, None
        eps, slope, last = self._epsilon_on_grid(d, check)
        return eps, slope, False, last

    def _epsilon_on_grid(
        self, d: FloatArray, check: _MonotoneCheck
    ) -> tuple[FloatArray, FloatArray, _Eval]:
        """``(eps, delta'(eps), last evaluation)`` for a profile without rises:
        the cell of the check grid where the raw profile crosses ``d`` (it is
        non-increasing there), then Newton; targets beyond the grid go to the
        table."""
        vals = check.raw
        j = np.searchsorted(check.neg_raw, -d, side="left")  # grid points above d
        n = vals.size
        if j.min() > 0 and j.max() < n:
            slopes = (check.slope[j - 1], check.slope[j])
            return self._solve(
                d, check.grid[j - 1], check.grid[j], vals[j - 1], vals[j], slopes
            )
        inside = (j > 0) & (j < n)
        eps = np.zeros(d.shape)
        slope = np.zeros(d.shape)
        if inside.any():
            jj = j[inside]
            eps[inside], slope[inside], _ = self._solve(
                d[inside], check.grid[jj - 1], check.grid[jj], vals[jj - 1], vals[jj]
            )
        zero = j == 0
        if zero.any():
            slope[zero] = self._slope_value(eps[zero])
        far = j >= n
        if far.any():
            eps[far], slope[far] = self._epsilon_on_table(d[far])
        return eps, slope, None

    def _log_profile(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        r""":math:`(\log\tilde\delta, \tilde\delta'/\tilde\delta)` at the 1-d
        ``x`` (``-inf`` where the tail formula is not positive), in log space."""
        sf, dens = self.kernel.survival(x)
        return _log_and_slope(sf, dens)

    def _solve(
        self,
        d: FloatArray,
        lo: FloatArray,
        hi: FloatArray,
        d_lo: FloatArray,
        d_hi: FloatArray,
        slopes: tuple[FloatArray, FloatArray] | None = None,
    ) -> tuple[FloatArray, FloatArray, _Eval]:
        """``(eps, delta'(eps), last evaluation)``: Newton on log delta in
        ``[lo, hi]``, each step one kernel pass (with the order gaps, so that
        the error estimate at the root needs no pass of its own), started by
        interpolation of eps in log delta between the ends (cubic Hermite with
        the ends' ``slopes`` of delta, else linear)."""
        log_d = np.log(d)
        with np.errstate(divide="ignore", invalid="ignore"):
            la, lb = np.log(d_lo), np.log(np.maximum(d_hi, 0.0))
            frac = np.where(
                d_hi > 0.0, (la - log_d) / (la - lb), (d_lo - d) / (d_lo - d_hi)
            )
            x0 = lo + (hi - lo) * frac
            if slopes is not None:
                # dx/dlog(delta) = delta / delta' at the ends.
                x3 = _hermite_inverse(
                    frac, lo, hi, lb - la, d_lo / slopes[0], d_hi / slopes[1]
                )
                x0 = np.where((x3 > lo) & (x3 < hi), x3, x0)
        kernel = self.kernel
        if kernel.full is None:
            eps, dlog = newton_on_bracket(
                self._log_profile, log_d, lo, hi, x0, decreasing=True, xatol=1e-14
            )
            return eps, dlog * d, None
        last: list[tuple[FloatArray, FloatArray, FloatArray]] = []

        def fn(x: FloatArray) -> tuple[FloatArray, FloatArray]:
            sf, dens, gaps = kernel.survival_and_gaps(x)
            last[:] = [(x, sf, gaps)]
            return _log_and_slope(sf, cast(FloatArray, dens))

        eps, dlog = newton_on_bracket(
            fn, log_d, lo, hi, x0, decreasing=True, xatol=1e-14
        )
        return eps, dlog * d, last[0] if last else None

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
        out[todo], slope[todo], _ = self._solve(dd, lo, hi, np.maximum(d_lo, dd), d_hi)
        return out, slope


def _hermite_inverse(
    u: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    h: FloatArray,
    m_lo: FloatArray,
    m_hi: FloatArray,
) -> FloatArray:
    """The cubic Hermite interpolant at the fraction ``u`` of an interval of
    length ``h`` (in log delta) between ``lo`` and ``hi`` with slopes ``m_lo``,
    ``m_hi`` (NaN where an end's slope is not finite)."""
    u2 = u * u
    u3 = u2 * u
    return (
        (2 * u3 - 3 * u2 + 1) * lo
        + (u3 - 2 * u2 + u) * h * m_lo
        + (3 * u2 - 2 * u3) * hi
        + (u3 - u2) * h * m_hi
    )


def _log_and_slope(sf: FloatArray, dens: FloatArray) -> tuple[FloatArray, FloatArray]:
    r""":math:`(\log\tilde\delta, \tilde\delta'/\tilde\delta)` from the kernel's
    survival functions and densities (rows Q, P), in log space: :math:`\tilde
    \delta = S_Q - e^\varepsilon S_P`, :math:`\tilde\delta' = e^\varepsilon(p -
    S_P) - q`."""
    log_s = np.log(sf)
    log_q, log_b = log_s[0], log_s[1]
    ratio = np.exp(log_b - log_q)
    log_v = log_q + np.log1p(-np.minimum(ratio, 1.0))
    log_d = np.log(dens)
    dlog = np.exp(log_d[1] - log_v) - np.exp(log_b - log_v) - np.exp(log_d[0] - log_v)
    return log_v, dlog


def _take(a: FloatArray, j: NDArray[np.intp]) -> FloatArray:
    """``a[i, j[i]]`` for every row ``i``."""
    return np.take_along_axis(a, j[:, None], axis=1)[:, 0]


class Edgeworth(Accountant):
    r"""Two-sided Edgeworth approximation of order ``J`` (Zheng et al. 2020).

    Args:
        order: Number of :math:`n^{-1/2}` correction terms (``0`` = two-sided normal
            approximation; ``2`` = the paper's "degree 2"). Any ``J >= 0``.
        inverse: ``"numerical"`` (Method (i), default) or ``"cornish_fisher"``
            (Method (ii)) for :math:`F_P^{-1}`.
        warn_rel_error: Estimated relative error above which a query warns
            (the error estimate of the pair curves, module docstring).

    An approximation, not a bound; ``curve.info["pairs"]`` holds per-direction
    diagnostics.

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = Edgeworth(order=2).compose(M.Gaussian(mu=1.0), n=4)
        >>> exact = M.Gaussian(mu=2.0).tradeoff(0.5)
        >>> bool(abs(curve.tradeoff(0.5) - exact) < 1e-12)
        True

    Raises:
        ValueError: ``order`` is not a non-negative integer or ``inverse`` unknown.
    """

    method = "Edgeworth"

    def __init__(
        self,
        order: int = 2,
        inverse: str = "numerical",
        *,
        warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR,
    ) -> None:
        super().__init__(warn_rel_error=warn_rel_error)
        self.order = check_order(order)
        self.inverse = check_choice("inverse", inverse, INVERSES)

    @property
    def cumulant_order(self) -> int:  # type: ignore[override]
        """``J + 4``: the next two orders' terms of the error estimate too."""
        return self.order + 4

    def _is_identity(self, components: Components) -> bool:
        """The base check, skipped when a component's loss surely varies
        (:func:`~symfdp.accountants._cumulant_sums.surely_varies`)."""
        if surely_varies(components):
            return False
        return super()._is_identity(components)

    def compose_pair(self, components: Components) -> PairCurve:
        k_p = summed_cumulants(components, self.cumulant_order, "P")
        k_q = summed_cumulants(components, self.cumulant_order, "Q")
        return EdgeworthPairCurve._fit(
            k_p, k_q, self.order, self.inverse, loss_range(components)[1]
        )

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        info.update({"order": self.order, "inverse": self.inverse})
        return info

    def __repr__(self) -> str:
        return f"Edgeworth(order={self.order}, inverse={self.inverse!r})"
