r"""Vectorised Edgeworth distribution of a standardised sum (the accountants' hot path).

:class:`EdgeworthDistribution` evaluates the order-``J`` Edgeworth CDF

.. math::  F_J(x) = \Phi(x) - \phi(x) R(x), \qquad f_J(x) = \phi(x) q(x),

of a standardised sum with standardised cumulants :math:`\lambda_3..\lambda_{J+2}`
(Zheng et al. (2020), eqs. (3.7)/(3.8) for ``J = 2``; the polynomials come from
:mod:`symfdp.symbolic.edgeworth` through the compiled, cached coefficient
evaluators of :mod:`symfdp.numeric.compile`; no SymPy at call time).

An Edgeworth expansion need not be a distribution: :math:`q` can be negative and
:math:`F_J` can leave :math:`[0, 1]` (Zheng et al. (2020), footnote 2). The *valid
interval* :math:`(a, b)` is the maximal interval around the centre 0 on which
:math:`q > 0` and :math:`0 \le F_J \le 1`; there :math:`F_J` is a strictly
increasing CDF piece. Outside it a normal tail is spliced, scaled to the mass the
expansion leaves there:

.. math::
    1 - F(x) = (1 - F_J(b))\,\frac{\Phi(-x)}{\Phi(-b)} \quad (x > b), \qquad
    F(x) = F_J(a)\,\frac{\Phi(x)}{\Phi(a)} \quad (x < a),

computed in log space. The repaired ``F`` is continuous, monotone and in
:math:`[0, 1]`; its density jumps at ``a`` and ``b``. Where :math:`F_J` reaches 0
(or 1) before :math:`q` vanishes, that crossing is the end of the interval and the
spliced tail beyond it carries no mass (the expansion says nothing usable there).
If no interval with :math:`q > 0` carries mass, the standard normal is used.
Every evaluation that uses a spliced tail emits
:class:`~symfdp.ApproximationWarning`. With ``J = 0`` it is
exactly the standard normal.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import scipy.special as special
from numpy.typing import ArrayLike, NDArray

from symfdp._validation import check_array, check_order, check_real, scalar_or_array
from symfdp._warnings import warn_approximation
from symfdp.numeric.compile import evaluator, normal_pdf
from symfdp.numeric.roots import bracketed_newton, monotone_bisect

FloatArray = NDArray[np.float64]

#: Beyond |x| > X_CLIP the normal factor underflows: phi(x) = 0 and Phi(-x) = 0.
X_CLIP: Final = 60.0
#: Finite stand-in for an infinite end of the valid interval when bracketing roots;
#: F(-40) and 1 - F(40) underflow to 0 in double precision.
X_BRACKET: Final = 40.0
_GRID: Final = 257
_ROOT_IMAG_TOL: Final = 1e-7
_EPS: Final = float(np.finfo(np.float64).eps)
_TRIM_REL: Final = 1e-100


def _horner(coeffs: FloatArray, x: FloatArray) -> FloatArray:
    """Polynomial with ascending ``coeffs`` at ``x`` (Horner, in place)."""
    out = np.full(x.shape, coeffs[-1], dtype=np.float64)
    for c in coeffs[-2::-1]:
        out *= x
        out += c
    return out


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
        object.__setattr__(self, "_fit", _fit(lams, order))

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
        k2 = n * k[1]
        lams = tuple(float(n * k[r - 1] / k2 ** (r / 2)) for r in range(3, order + 3))
        return cls(lams, order)

    # ------------------------------------------------------------------ queries

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
        fit = self._fit
        xc = np.clip(xs, -X_CLIP, X_CLIP)
        out = np.array(normal_pdf(xc) * _horner(fit.q, xc), dtype=np.float64)
        below, above = self._splice_masks(xs, "pdf", stacklevel=5)
        with np.errstate(divide="ignore", over="ignore", under="ignore"):
            if below is not None:
                scale = math.exp(fit.log_fa - float(special.log_ndtr(fit.a)))
                out[below] = scale * normal_pdf(xs[below])
            if above is not None:
                scale = math.exp(fit.log_sb - float(special.log_ndtr(-fit.b)))
                out[above] = scale * normal_pdf(xs[above])
        return scalar_or_array(np.maximum(out, 0.0))

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
        out = np.where(finite, _horner(self._fit.cf, zc), z)
        return scalar_or_array(out)

    # ------------------------------------------------------------ internals

    @property
    def _is_normal(self) -> bool:
        return not np.any(self._fit.r)

    def _splice_masks(
        self, xs: FloatArray, what: str, stacklevel: int
    ) -> tuple[NDArray[np.bool_] | None, NDArray[np.bool_] | None]:
        fit = self._fit
        below = xs < fit.a if fit.a > -np.inf else None
        above = xs > fit.b if fit.b < np.inf else None
        below = below if below is not None and below.any() else None
        above = above if above is not None and above.any() else None
        if below is not None or above is not None:
            self._warn_splice(what, below, above, stacklevel)
        return below, above

    def _warn_splice(
        self,
        what: str,
        below: NDArray[np.bool_] | None,
        above: NDArray[np.bool_] | None,
        stacklevel: int,
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
            "there. accountants.Numerical (or a higher order) serves this regime.",
            stacklevel=stacklevel,
        )

    def _tail(self, xs: FloatArray, lower: bool) -> FloatArray:
        """F(x) (``lower``) or 1 - F(x), with the splice outside (a, b).

        The smaller of F and 1 - F is computed directly (F = Phi(x) - phi R for
        x <= 0, 1 - F = Phi(-x) + phi R for x > 0) and the other as its complement.
        """
        fit = self._fit
        if self._is_normal:
            return np.asarray(special.ndtr(xs if lower else -xs), dtype=np.float64)
        xc = np.clip(xs, -X_CLIP, X_CLIP)
        corr = normal_pdf(xc) * _horner(fit.r, xc)
        neg = xs <= 0
        small = special.ndtr(-np.abs(xs)) + np.where(neg, -corr, corr)
        if lower:
            out = np.array(np.where(neg, small, 1.0 - small), dtype=np.float64)
        else:
            out = np.array(np.where(neg, 1.0 - small, small), dtype=np.float64)
        below, above = self._splice_masks(xs, "cdf" if lower else "sf", stacklevel=6)
        with np.errstate(divide="ignore", over="ignore", under="ignore"):
            if below is not None:
                log_f = (
                    fit.log_fa + special.log_ndtr(xs[below]) - special.log_ndtr(fit.a)
                )
                out[below] = np.exp(log_f) if lower else -np.expm1(log_f)
            if above is not None:
                log_s = (
                    fit.log_sb + special.log_ndtr(-xs[above]) - special.log_ndtr(-fit.b)
                )
                out[above] = -np.expm1(log_s) if lower else np.exp(log_s)
        return np.clip(out, 0.0, 1.0)

    def _invert(self, log_p: FloatArray, log_q: FloatArray, what: str) -> FloatArray:
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
        if has_below or has_above:
            self._warn_splice(
                what, below if has_below else None, above if has_above else None, 5
            )
        if inside.any():
            # Solve on the side where the level is not close to 1 (log accuracy).
            use_f = inside & (log_p <= math.log(0.5))
            use_s = inside & ~use_f
            if use_f.any():
                out[use_f] = self._solve(log_p[use_f], lower=True)
            if use_s.any():
                out[use_s] = self._solve(log_q[use_s], lower=False)
        return out

    def _solve(self, target: FloatArray, lower: bool) -> FloatArray:
        fit = self._fit
        grid_vals = fit.log_f_grid if lower else fit.log_s_grid[::-1]
        idx = np.searchsorted(grid_vals, target, side="left")
        idx = np.clip(idx, 1, len(fit.grid) - 1)
        if lower:
            lo, hi = fit.grid[idx - 1], fit.grid[idx]
        else:
            rev = len(fit.grid) - 1 - idx
            lo, hi = fit.grid[rev], fit.grid[rev + 1]
        fn = _log_f_and_slope(fit) if lower else _log_s_and_slope(fit)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            # Stop at a few ulps of log F (relative accuracy of F itself), with a
            # relative x tolerance as the safety net.
            ftol = 8 * _EPS * np.maximum(1.0, np.abs(target))
            return bracketed_newton(
                fn, target, lo, hi, increasing=lower, xtol=1e-14, ftol=ftol
            )


def _f_raw(fit: _Fit, x: FloatArray) -> FloatArray:
    xc = np.clip(x, -X_CLIP, X_CLIP)
    return special.ndtr(x) - normal_pdf(xc) * _horner(fit.r, xc)


def _s_raw(fit: _Fit, x: FloatArray) -> FloatArray:
    xc = np.clip(x, -X_CLIP, X_CLIP)
    return special.ndtr(-x) + normal_pdf(xc) * _horner(fit.r, xc)


def _log_f_and_slope(
    fit: _Fit,
) -> Callable[[FloatArray], tuple[FloatArray, FloatArray]]:
    def fn(x: FloatArray) -> tuple[FloatArray, FloatArray]:
        f = np.maximum(_f_raw(fit, x), 0.0)
        dens = normal_pdf(x) * _horner(fit.q, x)
        return np.log(f), dens / f

    return fn


def _log_s_and_slope(
    fit: _Fit,
) -> Callable[[FloatArray], tuple[FloatArray, FloatArray]]:
    def fn(x: FloatArray) -> tuple[FloatArray, FloatArray]:
        s = np.maximum(_s_raw(fit, x), 0.0)
        dens = normal_pdf(x) * _horner(fit.q, x)
        return np.log(s), -dens / s

    return fn


def _coeffs(name: str, lams: tuple[float, ...], order: int) -> FloatArray:
    kwargs = {f"lambda{r}": v for r, v in zip(range(3, order + 3), lams, strict=True)}
    return np.atleast_1d(np.asarray(evaluator(name, order)(**kwargs), dtype=np.float64))


def _fit(lams: tuple[float, ...], order: int) -> _Fit:
    r = _coeffs("edgeworth_cdf_poly_coeffs", lams, order)
    q = _coeffs("edgeworth_pdf_poly_coeffs", lams, order)
    cf = _coeffs("cornish_fisher_poly_coeffs", lams, order)
    proto = _Fit(r, q, cf, -np.inf, np.inf, -np.inf, -np.inf, *([np.empty(0)] * 3))
    interval = _valid_interval(proto)
    if interval is None:
        warn_approximation(
            f"EdgeworthDistribution(order={order}): the expansion is nowhere a valid "
            "CDF for these cumulants; the standard normal is used instead. "
            "accountants.Numerical serves this regime.",
            stacklevel=5,
        )
        r, q = np.zeros(1), np.ones(1)
        proto = _Fit(r, q, cf, -np.inf, np.inf, -np.inf, -np.inf, *([np.empty(0)] * 3))
        interval = (-np.inf, np.inf)
    a, b = interval
    with np.errstate(divide="ignore"):
        log_fa = float(np.log(max(float(_f_raw(proto, np.array(a))), 0.0)))
        log_sb = float(np.log(max(float(_s_raw(proto, np.array(b))), 0.0)))
    if a == -np.inf:
        log_fa = -np.inf
    if b == np.inf:
        log_sb = -np.inf
    grid = np.linspace(max(a, -X_BRACKET), min(b, X_BRACKET), _GRID)
    with np.errstate(divide="ignore", under="ignore"):
        log_f_grid = np.log(np.maximum(_f_raw(proto, grid), 0.0))
        log_s_grid = np.log(np.maximum(_s_raw(proto, grid), 0.0))
    # Rounding can break monotonicity by an ulp on flat stretches; searchsorted
    # only needs sorted values, and Newton re-checks the bracket exactly.
    log_f_grid = np.maximum.accumulate(log_f_grid)
    log_s_grid = np.minimum.accumulate(log_s_grid)
    return _Fit(r, q, cf, a, b, log_fa, log_sb, grid, log_f_grid, log_s_grid)


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
        roots = np.roots(q[::-1])
    roots = roots[np.isfinite(roots)]
    real = np.sort(
        roots[
            np.abs(roots.imag) <= _ROOT_IMAG_TOL * np.maximum(1.0, np.abs(roots.real))
        ].real
    )
    ends = np.concatenate(([-np.inf], real, [np.inf]))
    best: tuple[float, float] | None = None
    best_mass = -1.0
    for lo, hi in itertools.pairwise(ends):
        if hi <= lo:
            continue
        probe = (
            0.5 * (lo + hi)
            if np.isfinite(lo) and np.isfinite(hi)
            else (
                hi - 1.0 if np.isfinite(hi) else (lo + 1.0 if np.isfinite(lo) else 0.0)
            )
        )
        if _horner(fit.q, np.array(probe)) <= 0:
            continue
        piece = _restrict_to_unit(fit, float(lo), float(hi))
        if piece is None:
            continue
        if piece[0] < 0.0 < piece[1]:
            return piece
        mass = float(_f_raw(fit, np.array(piece[1]))) - float(
            _f_raw(fit, np.array(piece[0]))
        )
        if mass > best_mass:
            best, best_mass = piece, mass
    return best


def _restrict_to_unit(fit: _Fit, lo: float, hi: float) -> tuple[float, float] | None:
    """Shrink (lo, hi), where F increases, to the part where 0 <= F <= 1."""
    lo_c = max(lo, -X_BRACKET)
    hi_c = min(hi, X_BRACKET)

    def f(x: FloatArray) -> FloatArray:
        return _f_raw(fit, x)

    def s(x: FloatArray) -> FloatArray:
        return _s_raw(fit, x)

    if float(f(np.array(hi_c))) <= 0.0 or float(s(np.array(lo_c))) <= 0.0:
        return None
    if np.isfinite(lo) and float(f(np.array(lo))) < 0.0:
        lo = float(
            monotone_bisect(f, 0.0, np.array(lo), np.array(hi_c), decreasing=False)
        )
    if np.isfinite(hi) and float(s(np.array(hi))) < 0.0:
        hi = float(
            monotone_bisect(s, 0.0, np.array(lo_c), np.array(hi), decreasing=True)
        )
    return (lo, hi) if hi > lo else None
