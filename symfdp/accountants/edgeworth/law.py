r"""The Edgeworth law of one side of a composed pair (Zheng et al. (2020), Sec. 3).

:class:`EdgeworthLaw` holds the mean :math:`m = K_1`, the standard deviation
:math:`s = \sqrt{K_2}` and the order-``J`` :class:`~symfdp.numeric.edgeworth.
EdgeworthDistribution` of the standardised loss (:math:`\lambda_r =
K_r/K_2^{r/2}`), its valid interval and whether a spliced tail is empty; the
order terms :math:`R_{j} - R_{j-1}` of the error estimate; the Cornish–Fisher
quantile polynomial (Method (ii), eq. (3.9) for ``J = 2``) and the interval on
which it increases."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.polynomial.polynomial import polyval
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import check_array
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.compile import _evaluator
from symfdp.numeric.edgeworth import EdgeworthDistribution, correction_polynomial

#: A spliced tail with less than this fraction of the normal tail mass is empty.
EMPTY_RTOL: Final = 1e-9


def cornish_fisher_coefficients(lambdas: tuple[float, ...], order: int) -> FloatArray:
    """Ascending coefficients of the order-``J`` Cornish–Fisher polynomial x(z)."""
    kwargs = {
        f"lambda{r}": v for r, v in zip(range(3, order + 3), lambdas, strict=True)
    }
    ev = _evaluator("cornish_fisher_poly_coeffs", order)
    return np.atleast_1d(np.asarray(ev(**kwargs), dtype=np.float64))


def increasing_range(coeffs: FloatArray) -> tuple[float, float]:
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


def check_cumulants(name: str, cumulants: ArrayLike, order: int) -> FloatArray:
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
class EdgeworthLaw:
    """The Edgeworth law of one side: mean, standard deviation and distribution."""

    mean: float
    sd: float
    dist: EdgeworthDistribution
    interval: tuple[float, float]
    empty_below: bool  # the spliced lower tail carries no mass
    empty_above: bool  # the spliced upper tail carries no mass

    @classmethod
    def fit(cls, cumulants: FloatArray, order: int) -> EdgeworthLaw:
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
        log_rtol = math.log(EMPTY_RTOL)
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
