r"""Vectorised Edgeworth distribution of a standardised sum (the accountants' hot path).

:class:`EdgeworthDistribution` evaluates the order-``J`` Edgeworth CDF

.. math::  F_J(x) = \Phi(x) - \phi(x) R(x), \qquad f_J(x) = \phi(x) q(x),

of a standardised sum with standardised cumulants :math:`\lambda_3..\lambda_{J+2}`
(Zheng et al. (2020), eqs. (3.7)/(3.8) for ``J = 2``; polynomials from
:mod:`symfdp.symbolic.edgeworth`, compiled by :mod:`symfdp.numeric.compile`).

:math:`F_J` need not be a distribution (Zheng et al. (2020), footnote 2). The
*valid interval* :math:`(a, b)` is the maximal interval around 0 on which
:math:`q > 0` and :math:`0 \le F_J \le 1`. Outside it a normal tail is spliced,
scaled to the mass the expansion leaves there:

.. math::
    1 - F(x) = (1 - F_J(b))\,\frac{\Phi(-x)}{\Phi(-b)} \quad (x > b), \qquad
    F(x) = F_J(a)\,\frac{\Phi(x)}{\Phi(a)} \quad (x < a),

in log space. The repaired ``F`` is a continuous, monotone CDF (its density
jumps at ``a`` and ``b``); if no interval with :math:`q > 0` carries mass, the
standard normal is used. Evaluations that use a spliced tail emit
:class:`~symfdp.ApproximationWarning`. ``J = 0`` is the standard normal."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, cast

import numpy as np
import scipy.special as special
from numpy.typing import ArrayLike, NDArray

from symfdp._validation import check_array, check_order, check_real, scalar_or_array
from symfdp._warnings import warn_approximation
from symfdp.numeric.compile import _evaluator, normal_pdf
from symfdp.numeric.edgeworth.horner import horner
from symfdp.numeric.roots import bracketed_newton, predicted_bisect

FloatArray = NDArray[np.float64]

#: Beyond ``|x| > X_CLIP`` the normal factor underflows: phi(x) = 0 and Phi(-x) = 0.
X_CLIP: Final = 60.0
#: Finite stand-in for an infinite end of the valid interval when bracketing roots;
#: F(-40) and 1 - F(40) underflow to 0 in double precision.
X_BRACKET: Final = 40.0
_GRID: Final = 257
_ROOT_IMAG_TOL: Final = 1e-7
_EPS: Final = float(np.finfo(np.float64).eps)
_TRIM_REL: Final = 1e-100
#: Bisection of the valid interval's ends: stop below max(_BISECT_XTOL,
#: _BISECT_RTOL |x|) (:func:`~symfdp.numeric.roots.predicted_bisect`).
_BISECT_XTOL: Final = 1e-13
_BISECT_RTOL: Final = 4e-16
#: Quantile Newton iteration: relative x tolerance and iteration limit.
_NEWTON_XTOL: Final = 1e-14
_NEWTON_MAX_ITER: Final = 100


def _clip(x: FloatArray) -> FloatArray:
    """``np.clip(x, -X_CLIP, X_CLIP)`` (the same values, less call overhead)."""
    return np.minimum(np.maximum(x, -X_CLIP), X_CLIP)


@dataclass(frozen=True)
class _Fit:
    """Precomputed coefficients, valid interval and tail masses."""

    r: FloatArray  # ascending coefficients of R (F = Phi - phi R)
    q: FloatArray  # ascending coefficients of q (f = phi q)
    cf: FloatArray  # ascending coefficients of the Cornish-Fisher polynomial in z
    a: float
    b: float
    log_fa: float  # log F_J(a) (-inf when a = -inf)
    log_sb: float  # log (1 - F_J(b)) (-inf when b = +inf)
    grid: FloatArray
    log_f_grid: FloatArray
    log_s_grid: FloatArray
    normal_fallback: bool = False  # nowhere a valid CDF: the standard normal


@dataclass(frozen=True)
class EdgeworthDistribution:
    r"""The order-``J`` Edgeworth distribution of a standardised sum, repaired.

    See the module docstring for the expansion and the tail splice outside the
    valid interval. Vectorised throughout; 0-d input gives a float.

    Attributes:
        lambdas: :math:`(\lambda_3, \dots, \lambda_{J+2})`, the standardised
            cumulants :math:`K_r / K_2^{r/2}` of the *sum* (longer input is cut to
            ``J`` entries).
        order: ``J``, the number of :math:`n^{-1/2}` correction terms (default:
            ``len(lambdas)``); ``J = 0`` is the normal (CLT).

    Raises:
        ValueError: ``order`` invalid, too few or non-finite ``lambdas``.

    >>> d = EdgeworthDistribution((0.2, 0.05), order=2)
    >>> round(d.cdf(0.0), 6)
    0.513298
    """

    lambdas: tuple[float, ...]
    order: int | None = None
    _fit: _Fit = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = check_array("lambdas", np.atleast_1d(np.asarray(self.lambdas)))
        if values.ndim != 1:
            raise ValueError(
                f"lambdas must be a flat sequence. Found {self.lambdas!r}."
            )
        order = len(values) if self.order is None else check_order(self.order)
        if len(values) < order:
            raise ValueError(
                f"lambdas must hold lambda_3..lambda_{order + 2} ({order} values) "
                f"for order {order}. Found {len(values)}."
            )
        lams = tuple(float(v) for v in values[:order])
        object.__setattr__(self, "lambdas", lams)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "_fit", _checked_fit(lams, order))

    @classmethod
    def from_cumulants(
        cls, cumulants: ArrayLike, order: int, n: float = 1
    ) -> EdgeworthDistribution:
        r"""Build from cumulants :math:`\kappa_1, \kappa_2, \dots, \kappa_{J+2}`.

        For a sum of ``n`` i.i.d. terms with these cumulants, :math:`K_r = n\kappa_r`
        and :math:`\lambda_r = K_r/K_2^{r/2}` (Zheng et al. (2020), eqs. (A.2),
        (A.9)). Pass summed cumulants with ``n=1`` for a heterogeneous sum.

        Raises:
            ValueError: fewer than ``J + 2`` cumulants, :math:`\kappa_2 \le 0`, or
                ``n <= 0``.
        """
        order = check_order(order)
        n = check_real("n", n, 0.0, lo_open=True)
        k = check_array("cumulants", np.atleast_1d(np.asarray(cumulants)))
        if k.ndim != 1 or len(k) < order + 2:
            raise ValueError(
                f"cumulants must hold kappa_1..kappa_{order + 2}. Found {len(k)}."
            )
        if k[1] <= 0:
            raise ValueError(
                f"cumulants[1] (the variance) must be > 0. Found {k[1]:g}."
            )
        return cls._from_cumulants(k, order, n)

    @classmethod
    def _from_cumulants(
        cls, cumulants: FloatArray, order: int, n: float = 1.0
    ) -> EdgeworthDistribution:
        """:meth:`from_cumulants` for checked input."""
        k2 = n * cumulants[1]
        lams = tuple(
            float(n * cumulants[r - 1] / k2 ** (r / 2)) for r in range(3, order + 3)
        )
        dist = object.__new__(cls)
        object.__setattr__(dist, "lambdas", lams)
        object.__setattr__(dist, "order", order)
        object.__setattr__(dist, "_fit", _checked_fit(lams, order))
        return dist

    @classmethod
    def _trusted(cls, lambdas: tuple[float, ...], order: int) -> EdgeworthDistribution:
        """The distribution for ``order`` and exactly ``order`` finite ``lambdas``,
        unchecked and silent (the caller reports ``normal_fallback``)."""
        self = object.__new__(cls)
        object.__setattr__(self, "lambdas", lambdas)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "_fit", _fit(lambdas, order))
        return self

    def valid_interval(self) -> tuple[float, float]:
        """The interval ``(a, b)`` on which the raw expansion is a valid CDF."""
        return (self._fit.a, self._fit.b)

    def cdf(self, x: ArrayLike) -> Any:
        """The (repaired) Edgeworth CDF."""
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(self._tail(xs, lower=True))

    def sf(self, x: ArrayLike) -> Any:
        r"""The survival function :math:`1 - F`, computed tail-stably.

        Inside the valid interval :math:`1 - F_J(x) = \Phi(-x) + \phi(x)R(x)`,
        never ``1 - cdf``.
        """
        xs = check_array("x", x, allow_inf=True)
        return scalar_or_array(self._tail(xs, lower=False))

    def pdf(self, x: ArrayLike) -> Any:
        """The (repaired) density: ``phi*q`` inside, scaled normal tails outside."""
        xs = check_array("x", x, allow_inf=True)
        xc = _clip(xs)
        below, above = self._splice_masks(xs, "pdf")
        out = self._density(xs, below, above, xc, normal_pdf(xc))
        return scalar_or_array(out)

    def ppf(self, u: ArrayLike) -> Any:
        """The quantile function, the inverse of :meth:`cdf` (vectorised Newton).

        ``ppf(0) = -inf`` and ``ppf(1) = inf``. Below ``u = 1/2`` it solves
        ``log F(x) = log u``, above it ``log(1 - F(x)) = log(1 - u)``, on brackets
        from a fixed grid of the valid interval; spliced tails invert in closed form.
        """
        us = check_array("u", u, 0.0, 1.0)
        if self._is_normal:
            return scalar_or_array(special.ndtri(us))
        with np.errstate(divide="ignore"):
            log_u = np.log(us)
            log_1mu = np.log1p(-us)
        return scalar_or_array(self._invert(log_u, log_1mu, "ppf"))

    def isf(self, u: ArrayLike) -> Any:
        """The inverse survival function, accurate for tiny ``u`` (e.g. 1e-15)."""
        us = check_array("u", u, 0.0, 1.0)
        if self._is_normal:
            return scalar_or_array(-special.ndtri(us))
        with np.errstate(divide="ignore"):
            log_u = np.log(us)
            log_1mu = np.log1p(-us)
        return scalar_or_array(self._invert(log_1mu, log_u, "isf"))

    def ppf_cornish_fisher(self, u: ArrayLike) -> Any:
        r"""The Cornish–Fisher quantile :math:`x(\Phi^{-1}(u))` of the same order.

        Closed form (:mod:`symfdp.symbolic.cornish_fisher`; Zheng et al. (2020),
        eq. (3.9) for ``J = 2``). Not repaired: far in the tails the polynomial
        can be non-monotone (Zheng et al. (2020), Fig. 3.1); :meth:`ppf` is the
        monotone inverse. ``u = 0, 1`` give ``-inf, inf``.
        """
        us = check_array("u", u, 0.0, 1.0)
        z = special.ndtri(us)
        finite = np.isfinite(z)
        zc = np.where(finite, z, 0.0)
        out = np.where(finite, horner(self._fit.cf, zc), z)
        return scalar_or_array(out)

    @property
    def _is_normal(self) -> bool:
        return not np.any(self._fit.r)

    def _splice_masks(
        self, xs: FloatArray, what: str
    ) -> tuple[NDArray[np.bool_] | None, NDArray[np.bool_] | None]:
        below, above = self._masks(xs)
        if below is not None or above is not None:
            self._warn_splice(what, below, above)
        return below, above

    def _warn_splice(
        self,
        what: str,
        below: NDArray[np.bool_] | None,
        above: NDArray[np.bool_] | None,
    ) -> None:
        fit = self._fit
        parts = []
        if below is not None:
            parts.append(f"below x = {fit.a:.6g} ({int(below.sum())} point(s))")
        if above is not None:
            parts.append(f"above x = {fit.b:.6g} ({int(above.sum())} point(s))")
        warn_approximation(
            f"EdgeworthDistribution(order={self.order}).{what}: the expansion is not "
            f"a valid CDF {' and '.join(parts)}; a scaled normal tail was spliced "
            "there. accountants.Numerical (or a higher order) serves this regime."
        )

    def _masks(
        self, xs: FloatArray
    ) -> tuple[NDArray[np.bool_] | None, NDArray[np.bool_] | None]:
        """Where ``xs`` lies below ``a`` and above ``b`` (None where nowhere)."""
        fit = self._fit
        below = xs < fit.a if fit.a > -np.inf else None
        above = xs > fit.b if fit.b < np.inf else None
        below = below if below is not None and below.any() else None
        above = above if above is not None and above.any() else None
        return below, above

    def cdf_values(self, xs: FloatArray) -> FloatArray:
        """:meth:`cdf` at validated float64 ``xs`` for internal callers that
        report the splice themselves: no validation, no warning."""
        return self._tail(xs, lower=True, warn=False)

    def isf_values(self, us: FloatArray) -> FloatArray:
        """:meth:`isf` at validated float64 ``us`` in [0, 1] for internal callers
        that report the splice themselves: no validation, no warning."""
        if self._is_normal:
            return np.asarray(-special.ndtri(us), dtype=np.float64)
        with np.errstate(divide="ignore"):
            log_u = np.log(us)
            log_1mu = np.log1p(-us)
        return self._invert(log_1mu, log_u, "isf", warn=False)

    def _tail(self, xs: FloatArray, lower: bool, warn: bool = True) -> FloatArray:
        """F(x) (``lower``) or 1 - F(x), with the splice outside (a, b)."""
        if self._is_normal:
            return np.asarray(special.ndtr(xs if lower else -xs), dtype=np.float64)
        xc = _clip(xs)
        if warn:
            below, above = self._splice_masks(xs, "cdf" if lower else "sf")
        else:
            below, above = self._masks(xs)
        corr = normal_pdf(xc) * horner(self._fit.r, xc)
        return self._tail_values(xs, lower, below, above, corr)

    def _tail_values(
        self,
        xs: FloatArray,
        lower: bool,
        below: NDArray[np.bool_] | None,
        above: NDArray[np.bool_] | None,
        corr: FloatArray,
    ) -> FloatArray:
        """F(x) (``lower``) or 1 - F(x), given the splice masks and ``phi R``; the
        smaller of F and 1 - F directly, the other as its complement."""
        fit = self._fit
        neg = xs <= 0
        small = special.ndtr(-np.abs(xs)) + np.where(neg, -corr, corr)
        if lower:
            out = np.where(neg, small, 1.0 - small)
        else:
            out = np.where(neg, 1.0 - small, small)
        if below is not None or above is not None:
            with np.errstate(divide="ignore", over="ignore", under="ignore"):
                if below is not None:
                    log_f = fit.log_fa + special.log_ndtr(xs[below]) - self._log_ndtr_a
                    out[below] = np.exp(log_f) if lower else -np.expm1(log_f)
                if above is not None:
                    log_s = (
                        fit.log_sb + special.log_ndtr(-xs[above]) - self._log_ndtr_mb
                    )
                    out[above] = -np.expm1(log_s) if lower else np.exp(log_s)
        return cast(FloatArray, out.clip(0.0, 1.0))

    @functools.cached_property
    def _log_ndtr_a(self) -> np.float64:
        return cast(np.float64, special.log_ndtr(self._fit.a))

    @functools.cached_property
    def _log_ndtr_mb(self) -> np.float64:
        return cast(np.float64, special.log_ndtr(-self._fit.b))

    @functools.cached_property
    def _pdf_scale_below(self) -> float:
        """Density factor of the spliced lower tail, F_J(a) / Phi(a)."""
        return math.exp(self._fit.log_fa - float(self._log_ndtr_a))

    @functools.cached_property
    def _pdf_scale_above(self) -> float:
        """Density factor of the spliced upper tail, (1 - F_J(b)) / Phi(-b)."""
        return math.exp(self._fit.log_sb - float(self._log_ndtr_mb))

    def _density(
        self,
        xs: FloatArray,
        below: NDArray[np.bool_] | None,
        above: NDArray[np.bool_] | None,
        xc: FloatArray,
        phi: FloatArray,
        q_values: FloatArray | None = None,
    ) -> FloatArray:
        """The repaired density given the splice masks, ``xc`` (clipped ``xs``),
        ``phi = normal_pdf(xc)`` and optionally ``q(xc)``."""
        fit = self._fit
        if q_values is None:
            q_values = horner(fit.q, xc)
        out = phi * q_values
        if below is not None or above is not None:
            # normal_pdf(xs) = phi: the clipping at X_CLIP only touches values
            # that underflow to 0 either way.
            out = np.array(out, dtype=np.float64)  # writable, also for 0-d input
            with np.errstate(over="ignore"):
                if below is not None:
                    out[below] = self._pdf_scale_below * phi[below]
                if above is not None:
                    out[above] = self._pdf_scale_above * phi[above]
        return np.maximum(out, 0.0)

    @property
    def polynomials(self) -> tuple[FloatArray, FloatArray]:
        r"""Ascending coefficients ``(R, q)`` of the raw expansion,
        :math:`F_J = \Phi - \phi R` and :math:`f_J = \phi q` (after the
        normal fallback, if any). Read-only views for the accountants' kernels."""
        return _readonly(self._fit.r), _readonly(self._fit.q)

    @property
    def tail_log_masses(self) -> tuple[float, float]:
        r""":math:`(\log F_J(a), \log(1 - F_J(b)))` at the ends of the valid
        interval (``-inf`` at an infinite end): the masses of the spliced tails."""
        return (self._fit.log_fa, self._fit.log_sb)

    @functools.cached_property
    def _inverse_fit(self) -> _Fit:
        """The fit with the bracket grid of the quantile iteration (built on the
        first quantile query)."""
        return _inverse_table(self._fit)

    def _invert(
        self, log_p: FloatArray, log_q: FloatArray, what: str, warn: bool = True
    ) -> FloatArray:
        """x with log F(x) = log_p, where log_q = log(1 - p) is the same level."""
        fit = self._fit
        out = np.empty(log_p.shape, dtype=np.float64)
        zero = log_p == -np.inf
        one = log_q == -np.inf
        out[zero] = -np.inf
        out[one] = np.inf
        rest = ~(zero | one)
        below = rest & (log_p <= fit.log_fa)
        above = rest & ~below & (log_q <= fit.log_sb)
        inside = rest & ~below & ~above
        has_below, has_above = bool(below.any()), bool(above.any())
        with np.errstate(divide="ignore", over="ignore", under="ignore"):
            if has_below:
                # F(a) Phi(x) / Phi(a) = p  <=>  Phi(x) = p Phi(a) / F(a)
                log_phi = log_p[below] + special.log_ndtr(fit.a) - fit.log_fa
                out[below] = special.ndtri(np.exp(np.minimum(log_phi, 0.0)))
            if has_above:
                log_phi = log_q[above] + special.log_ndtr(-fit.b) - fit.log_sb
                out[above] = -special.ndtri(np.exp(np.minimum(log_phi, 0.0)))
        if warn and (has_below or has_above):
            self._warn_splice(
                what, below if has_below else None, above if has_above else None
            )
        if inside.any():
            lower = (log_p <= math.log(0.5))[inside]
            target = np.where(lower, log_p[inside], log_q[inside])
            table = self._inverse_fit
            lo, hi = _brackets(table, target, lower)
            out[inside] = _solve_log_tails(table, target, lo, hi, lower)
        return out


def _readonly(a: FloatArray) -> FloatArray:
    view = a.view()
    view.setflags(write=False)
    return cast(FloatArray, view)


def correction_polynomial(lambdas: tuple[float, ...], order: int) -> FloatArray:
    r"""Ascending coefficients of :math:`R_J` in :math:`F_J = \Phi - \phi R_J`,
    the raw order-``J`` expansion with standardised cumulants ``lambdas``
    (:math:`\lambda_3..\lambda_{J+2}`; longer input is cut). ``J = 0`` gives
    ``[0]``. For the next-order terms of an expansion (its error estimate).

    Raises:
        ValueError: fewer than ``order`` lambdas.
    """
    if len(lambdas) < order:
        raise ValueError(
            f"order {order} needs lambda_3..lambda_{order + 2}. Found {len(lambdas)}."
        )
    return _coeffs("edgeworth_cdf_poly_coeffs", tuple(lambdas[:order]), order)


def _f_raw(fit: _Fit, x: FloatArray) -> FloatArray:
    """The raw expansion :math:`F_J(x) = \\Phi(x) - \\phi(x)R(x)`."""
    xc = _clip(x)
    return cast(FloatArray, special.ndtr(x) - normal_pdf(xc) * horner(fit.r, xc))


def _s_raw(fit: _Fit, x: FloatArray) -> FloatArray:
    """The raw :math:`1 - F_J(x) = \\Phi(-x) + \\phi(x)R(x)`."""
    xc = _clip(x)
    return cast(FloatArray, special.ndtr(-x) + normal_pdf(xc) * horner(fit.r, xc))


def _raw_tails(fit: _Fit, x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(_f_raw(fit, x), _s_raw(fit, x))`` with the correction computed once."""
    xc = _clip(x)
    corr = normal_pdf(xc) * horner(fit.r, xc)
    return special.ndtr(x) - corr, special.ndtr(-x) + corr


def _brackets(
    fit: _Fit, target: FloatArray, lower: NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray]:
    """Grid cells holding the solutions of log F = target (``lower``) or
    log(1 - F) = target (else), read off the tabulated fit by ``searchsorted``."""
    last = len(fit.grid) - 1
    idx_f = np.searchsorted(fit.log_f_grid, target, side="left")
    idx_s = np.searchsorted(fit.log_s_grid[::-1], target, side="left")
    # F increases along the grid, 1 - F decreases: the S-cell is mirrored.
    idx_f = np.minimum(np.maximum(idx_f, 1), last)
    idx_s = np.minimum(np.maximum(idx_s, 1), last)
    hi_idx = np.where(lower, idx_f, last + 1 - idx_s)
    return fit.grid[hi_idx - 1], fit.grid[hi_idx]


def _stacked_coeffs(fit: _Fit) -> FloatArray | None:
    """Ascending coefficients of R and q as ``(len(q), 2)``, R padded with
    leading zeros (a zero leading term leaves Horner's value unchanged); None if R
    is longer or q constant."""
    if len(fit.r) > len(fit.q) or len(fit.q) < 2:
        return None
    r = np.concatenate((fit.r, np.zeros(len(fit.q) - len(fit.r))))
    return np.stack((r, fit.q), axis=1)


def _log_tails_and_slopes(
    fit: _Fit,
    rq: FloatArray | None,
    x: FloatArray,
    sign: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """``(log F(x), f/F)`` where ``sign = 1``, ``(log(1 - F(x)), -f/(1 - F))``
    where ``sign = -1``, for the raw expansion (clipped at 0); ``x`` within
    ``X_CLIP``. The same operations as :func:`_f_raw`/:func:`_s_raw`."""
    pdf = normal_pdf(x)
    if rq is None:
        corr = pdf * horner(fit.r, x)
        dens = pdf * horner(fit.q, x)
    else:
        corr, dens = pdf * horner(rq.reshape(rq.shape + (1,) * np.ndim(x)), x)
    tail = np.maximum(special.ndtr(sign * x) - sign * corr, 0.0)
    return np.log(tail), sign * dens / tail


def _solve_log_tails(
    fit: _Fit,
    target: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    lower: NDArray[np.bool_],
) -> FloatArray:
    r"""Solve :math:`\log F(x) = t` (``lower``) or :math:`\log(1 - F(x)) = t` on
    grid cells ``[lo, hi]`` by :func:`~symfdp.numeric.roots.bracketed_newton`
    (relative x tolerance ``1e-14``, ``ftol = 8 eps max(1, |t|)``, the relative
    accuracy of F), both tails in one pass: the decreasing
    :math:`\log(1 - F)` enters negated, so that every entry increases.

    Raises:
        ValueError: a target is not bracketed by its cell.
        RuntimeError: an entry did not converge in ``_NEWTON_MAX_ITER`` steps.
    """
    sign = np.where(lower, 1.0, -1.0)
    rq = _stacked_coeffs(fit)

    def signed_log_tail(
        x: FloatArray, idx: NDArray[np.intp]
    ) -> tuple[FloatArray, FloatArray]:
        s = sign[idx]
        f, df = _log_tails_and_slopes(fit, rq, x, s)
        return s * f, s * df

    try:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return bracketed_newton(
                signed_log_tail,
                sign * target,
                lo,
                hi,
                xtol=_NEWTON_XTOL,
                ftol=8 * _EPS * np.maximum(1.0, np.abs(target)),
                compact=True,
                max_iter=_NEWTON_MAX_ITER,
            )
    except ValueError as err:
        raise ValueError(
            f"EdgeworthDistribution: a quantile level is not bracketed by its grid "
            f"cell ({err})."
        ) from err


def _coeffs(name: str, lams: tuple[float, ...], order: int) -> FloatArray:
    """Coefficients from the compiled evaluator ``name``, its generated function
    called directly with Python floats (the coefficients are polynomials in the
    lambdas, so the IEEE operations are those of 0-d arrays)."""
    found = _coeff_function(name, order)
    if found is None:
        kwargs = {
            f"lambda{r}": v for r, v in zip(range(3, order + 3), lams, strict=True)
        }
        ev = _evaluator(name, order)
        return np.atleast_1d(np.asarray(ev(**kwargs), dtype=np.float64))  # raises
    fn, index = found
    return np.atleast_1d(np.array(fn(*[float(lams[i]) for i in index]), np.float64))


@functools.cache
def _coeff_function(
    name: str, order: int
) -> tuple[Callable[..., Any], tuple[int, ...]] | None:
    """The generated function of evaluator ``name`` and, per argument, the
    index of its lambda (``lambda3`` is 0); None when its arguments are not
    ``lambda3 .. lambda{J+2}``."""
    ev = _evaluator(name, order)
    names = [f"lambda{r}" for r in range(3, order + 3)]
    if set(ev.args) != set(names):
        return None
    return ev.fn, tuple(names.index(a) for a in ev.args)


def _checked_fit(lams: tuple[float, ...], order: int) -> _Fit:
    """:func:`_fit` for the public constructors: warns on the normal fallback."""
    fit = _fit(lams, order)
    if fit.normal_fallback:
        warn_approximation(
            f"EdgeworthDistribution(order={order}): the expansion is nowhere a "
            "valid CDF for these cumulants; the standard normal is used instead. "
            "accountants.Numerical serves this regime."
        )
    return fit


def _fit(lams: tuple[float, ...], order: int) -> _Fit:
    r = _coeffs("edgeworth_cdf_poly_coeffs", lams, order)
    q = _coeffs("edgeworth_pdf_poly_coeffs", lams, order)
    cf = _coeffs("cornish_fisher_poly_coeffs", lams, order)
    empty = np.empty(0)
    proto = _Fit(r, q, cf, -np.inf, np.inf, -np.inf, -np.inf, empty, empty, empty)
    interval = _valid_interval(proto)
    fallback = interval is None
    if interval is None:
        r, q = np.zeros(1), np.ones(1)
        proto = _Fit(r, q, cf, -np.inf, np.inf, -np.inf, -np.inf, empty, empty, empty)
        interval = (-np.inf, np.inf)
    a, b = interval
    if a == -np.inf and b == np.inf:
        return _Fit(r, q, cf, a, b, -np.inf, -np.inf, empty, empty, empty, fallback)
    f_ab, s_ab = _raw_tails(proto, np.array([a, b]))
    with np.errstate(divide="ignore"):
        log_fa = float(np.log(max(float(f_ab[0]), 0.0)))
        log_sb = float(np.log(max(float(s_ab[1]), 0.0)))
    if a == -np.inf:
        log_fa = -np.inf
    if b == np.inf:
        log_sb = -np.inf
    return _Fit(r, q, cf, a, b, log_fa, log_sb, empty, empty, empty)


def _inverse_table(fit: _Fit) -> _Fit:
    """``fit`` with the grid of the quantile brackets (``_GRID`` points of the
    valid interval, cut at ``X_BRACKET``) and the log tails on it."""
    grid = np.linspace(max(fit.a, -X_BRACKET), min(fit.b, X_BRACKET), _GRID)
    f_grid, s_grid = _raw_tails(fit, grid)
    with np.errstate(divide="ignore", under="ignore"):
        log_f_grid = np.log(np.maximum(f_grid, 0.0))
        log_s_grid = np.log(np.maximum(s_grid, 0.0))
    # Rounding can break monotonicity by an ulp on flat stretches; searchsorted
    # only needs sorted values, and Newton re-checks the bracket exactly.
    log_f_grid = np.maximum.accumulate(log_f_grid)
    log_s_grid = np.minimum.accumulate(log_s_grid)
    return dataclasses.replace(
        fit, grid=grid, log_f_grid=log_f_grid, log_s_grid=log_s_grid
    )


def _valid_interval(fit: _Fit) -> tuple[float, float] | None:
    """The maximal interval around 0 with q > 0 and 0 <= F <= 1 (see module doc).

    Among the intervals between real roots of q on which q > 0 (each shrunk to
    where 0 <= F <= 1), the one containing 0, else the one of largest mass; None
    if there is none.
    """
    # Leading coefficients below _TRIM_REL * max|c| only move roots beyond
    # |x| ~ _TRIM_REL^{-1/deg} >= 1e8, where phi(x) = 0 in double precision.
    scale = float(np.max(np.abs(fit.q)))
    q = fit.q[: 1 + int(np.max(np.nonzero(np.abs(fit.q) > _TRIM_REL * scale)[0]))]
    if len(q) <= 1:
        return (-np.inf, np.inf) if q[0] > 0 else None
    with np.errstate(all="ignore"):
        if q[0] != 0.0:
            companion = np.eye(len(q) - 1, k=-1)
            companion[0, :] = -q[-2::-1] / q[-1]
            roots = np.linalg.eigvals(companion)
        else:
            roots = np.roots(q[::-1])
    roots = roots[np.isfinite(roots)]
    real = np.sort(
        roots[
            np.abs(roots.imag) <= _ROOT_IMAG_TOL * np.maximum(1.0, np.abs(roots.real))
        ].real
    )
    if real.size == 0 and q[0] > 0:
        return (-np.inf, np.inf)
    ends = np.concatenate(([-np.inf], real, [np.inf]))
    pieces = [(float(lo), float(hi)) for lo, hi in itertools.pairwise(ends) if hi > lo]
    probes = np.array([_probe(lo, hi) for lo, hi in pieces])
    positive = horner(fit.q, probes) > 0
    # The pieces where q > 0 (F increases), shrunk to where 0 <= F <= 1; the
    # end values every piece needs are computed in one call.
    candidates = [piece for piece, pos in zip(pieces, positive, strict=True) if pos]
    if not candidates:
        return None
    lo_c = np.array([max(lo, -X_BRACKET) for lo, _ in candidates])
    hi_c = np.array([min(hi, X_BRACKET) for _, hi in candidates])
    lo_f = np.array([lo if np.isfinite(lo) else 0.0 for lo, _ in candidates])
    hi_f = np.array([hi if np.isfinite(hi) else 0.0 for _, hi in candidates])
    f_ends, _ = _raw_tails(fit, np.concatenate((hi_c, lo_f)))
    _, s_ends = _raw_tails(fit, np.concatenate((lo_c, hi_f)))
    k = len(candidates)
    best: tuple[float, float] | None = None
    best_mass = -1.0
    for i, (lo, hi) in enumerate(candidates):
        piece = _restrict_to_unit(
            fit, lo, hi, f_ends[i], s_ends[i], f_ends[k + i], s_ends[k + i]
        )
        if piece is None:
            continue
        if piece[0] < 0.0 < piece[1]:
            return piece
        f_piece = _f_raw(fit, np.array(piece))
        mass = float(f_piece[1]) - float(f_piece[0])
        if mass > best_mass:
            best, best_mass = piece, mass
    return best


def _probe(lo: float, hi: float) -> float:
    """A point inside the piece ``(lo, hi)`` between roots of q."""
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    if np.isfinite(hi):
        return hi - 1.0
    return lo + 1.0 if np.isfinite(lo) else 0.0


def _restrict_to_unit(
    fit: _Fit,
    lo: float,
    hi: float,
    f_hi_c: float,
    s_lo_c: float,
    f_lo: float,
    s_hi: float,
) -> tuple[float, float] | None:
    """Shrink (lo, hi), where F increases, to the part where 0 <= F <= 1.

    ``f_hi_c``, ``s_lo_c``: F at ``min(hi, X_BRACKET)`` and 1 - F at
    ``max(lo, -X_BRACKET)``; ``f_lo``, ``s_hi``: F at ``lo`` and 1 - F at ``hi``
    (unused where these are infinite).
    """
    lo_c = max(lo, -X_BRACKET)
    hi_c = min(hi, X_BRACKET)

    def f(x: FloatArray) -> FloatArray:
        return _f_raw(fit, x)

    def s(x: FloatArray) -> FloatArray:
        return _s_raw(fit, x)

    if f_hi_c <= 0.0 or s_lo_c <= 0.0:
        return None
    if np.isfinite(lo) and f_lo < 0.0:
        lo = predicted_bisect(
            f, lo, hi_c, decreasing=False, xtol=_BISECT_XTOL, rtol=_BISECT_RTOL
        )
    if np.isfinite(hi) and s_hi < 0.0:
        hi = predicted_bisect(
            s, lo_c, hi, decreasing=True, xtol=_BISECT_XTOL, rtol=_BISECT_RTOL
        )
    return (lo, hi) if hi > lo else None
