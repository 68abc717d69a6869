r"""The two-sided Edgeworth tail formula of one pair (both laws in one pass).

Each law of the composed loss (summed cumulants, Zheng et al. (2020), eq. (A.2)) is
standardised (:math:`x = (\varepsilon - m)/s`) and replaced by its order-``J``
Edgeworth expansion :math:`1 - F_J(x) = \Phi(-x) + \phi(x) R_J(x)`, density
:math:`\phi(x) q_J(x)` (the laws of :class:`~.distribution.EdgeworthDistribution`, their
coefficients, valid intervals and spliced tails);
the tail formula (Zheng et al. (2020), Lemma 5.1) is :math:`\tilde\delta(\varepsilon)
= \tilde S_Q(x_Q) - e^{\varepsilon}\tilde S_P(x_P)`. :class:`TailKernel` holds the
coefficients of both laws in one array (one Horner pass for all polynomials).

Order terms (the error estimate; cumulants up to :math:`K_{J+4}`): with
:math:`D_k = R_{j_k} - R_{j_k - 1}`,

.. math::  \tilde\delta_{j}(\varepsilon) - \tilde\delta_{j-1}(\varepsilon)
           = \phi(x_Q) D^Q(x_Q) - e^{\varepsilon}\phi(x_P) D^P(x_P),

raw expansions (the valid-interval splice applies to values, not to gaps).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp.numeric.edgeworth.distribution import correction_polynomial
from symfdp.numeric.edgeworth.horner import horner, powers, stack_coefficients

FloatArray = NDArray[np.float64]

#: :math:`\log\sqrt{2\pi}`.
LOG_SQRT_2PI: Final = 0.5 * math.log(2.0 * math.pi)
#: Standardised points are clipped to +-X_CLIP (keeps the polynomials finite).
X_CLIP: Final = 1e4
_SQRT_HALF_PI: Final = math.sqrt(0.5 * math.pi)
_SQRT_HALF: Final = math.sqrt(0.5)
_LAGUERRE_V, _LAGUERRE_W = np.polynomial.laguerre.laggauss(24)
_LAGUERRE_V2: Final = _LAGUERRE_V**2
#: The identity term's Taylor form serves 0 <= x + s < 1 up to this |x| (beyond,
#: a wide loss whose points far below the mean are summed node by node).
_NEAR_X: Final = 4.0
#: Largest exponent formed (e^700 is finite in double precision).
EXP_CAP: Final = 700.0
_CAP: Final = math.exp(EXP_CAP)
#: Largest number of powers of x (|x| <= X_CLIP) formed for the order terms.
_MAX_POWERS: Final = 32


@dataclass(frozen=True)
class TailKernel:
    r"""Both laws of one pair (row 0: Q, row 1: P) for the tail formula.

    Attributes:
        mean, sd: ``(2, 1)`` means and standard deviations of the loss.
        core: Coefficients of :math:`(R_J, q_J)` per law
            (:func:`~.horner.stack_coefficients`).
        gaps: Coefficients of the order differences :math:`D_k` per law, or None.
        lo, hi: ``(2, 1)`` valid intervals (standardised); ``-inf``/``inf`` when
            the expansion is valid there.
        scale_below, scale_above: ``(2, 1)`` factors of the spliced tails,
            :math:`F_J(a)/\Phi(a)` and :math:`(1 - F_J(b))/\Phi(-b)` (0 for an
            empty tail).
        log_fa, log_sb: ``(2, 1)`` :math:`\log F_J(a)` and :math:`\log(1 - F_J(b))`.
    """

    mean: FloatArray
    sd: FloatArray
    core: FloatArray
    gaps: FloatArray | None
    lo: FloatArray
    hi: FloatArray
    scale_below: FloatArray
    scale_above: FloatArray
    log_fa: FloatArray
    log_sb: FloatArray
    spliced: bool
    full: FloatArray | None = None

    @classmethod
    def build(
        cls,
        means: tuple[float, float],
        sds: tuple[float, float],
        core: Sequence[Sequence[FloatArray]],
        gaps: Sequence[Sequence[FloatArray]] | None = None,
        intervals: Sequence[tuple[float, float]] = ((-math.inf, math.inf),) * 2,
        log_masses: Sequence[tuple[float, float]] = ((-math.inf, -math.inf),) * 2,
    ) -> TailKernel:
        """From per-law ``(mean, sd)``, ``(R, q)``, ``(D_1, .., D_K)``, valid
        intervals and :math:`(\\log F_J(a), \\log(1 - F_J(b)))` (Q first)."""

        def col(v: ArrayLike) -> FloatArray:
            return np.asarray(v, dtype=np.float64).reshape(2, 1)

        lo = col([i[0] for i in intervals])
        hi = col([i[1] for i in intervals])
        log_fa = col([m[0] for m in log_masses])
        log_sb = col([m[1] for m in log_masses])
        spliced = bool(np.isfinite(lo).any() or np.isfinite(hi).any())
        if spliced:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                below = np.where(
                    np.isfinite(lo), np.exp(log_fa - special.log_ndtr(lo)), 0.0
                )
                above = np.where(
                    np.isfinite(hi), np.exp(log_sb - special.log_ndtr(-hi)), 0.0
                )
        else:
            below, above = np.zeros((2, 1)), np.zeros((2, 1))
        core_c = stack_coefficients(core)
        gaps_c = full = None
        if gaps is not None:
            # full = stack_coefficients of (*core, *gaps) per law, from the two.
            gaps_c = stack_coefficients(gaps)
            k = core_c.shape[2]
            full = np.zeros((max(len(core_c), len(gaps_c)), 2, k + gaps_c.shape[2], 1))
            full[: len(core_c), :, :k] = core_c
            full[: len(gaps_c), :, k:] = gaps_c
        return cls(
            col(means),
            col(sds),
            core_c,
            gaps_c,
            lo,
            hi,
            below,
            above,
            log_fa,
            log_sb,
            spliced,
            full,
        )

    def standardise(self, e: FloatArray) -> FloatArray:
        """``(2, N)`` standardised points of the 1-d ``e`` under Q and P."""
        return (e - self.mean) / self.sd

    @overload
    def survival(
        self, e: FloatArray, densities: Literal[True] = ...
    ) -> tuple[FloatArray, FloatArray]: ...

    @overload
    def survival(
        self, e: FloatArray, densities: Literal[False]
    ) -> tuple[FloatArray, None]: ...

    @overload
    def survival(
        self, e: FloatArray, densities: bool
    ) -> tuple[FloatArray, FloatArray | None]: ...

    def survival(
        self, e: FloatArray, densities: bool = True
    ) -> tuple[FloatArray, FloatArray | None]:
        r"""``(S, dens)``: ``(2, N)`` spliced survival functions (and densities
        over the sd) of the loss at the 1-d ``e``; row 0 under Q, row 1 under P
        times :math:`e^\varepsilon` (log space, capped at :math:`e^{700}`)."""
        sf, dens, _ = self._evaluate(e, densities, False)
        return sf, dens

    def survival_and_gaps(
        self, e: FloatArray, densities: bool = True
    ) -> tuple[FloatArray, FloatArray | None, FloatArray]:
        """:meth:`survival` and :meth:`order_gaps` from one Horner pass over all
        polynomials (the same values as the two calls).

        Raises:
            ValueError: the kernel was built without order terms.
        """
        if self.full is None:
            raise ValueError("this kernel holds no next-order terms.")
        sf, dens, gaps = self._evaluate(e, densities, True)
        assert gaps is not None
        return sf, dens, gaps

    def _evaluate(
        self, e: FloatArray, densities: bool, with_gaps: bool
    ) -> tuple[FloatArray, FloatArray | None, FloatArray | None]:
        # Logs of 0, overflows and inf * 0 far in the tails are expected here.
        with np.errstate(all="ignore"):
            x = (e - self.mean) / self.sd
            xc = np.minimum(np.maximum(x, -X_CLIP), X_CLIP)
            # Row 1 carries e^eps in log space: S_P underflows, e^eps S_P does not.
            log_phi_w = xc * xc
            log_phi_w *= -0.5
            log_phi_w -= LOG_SQRT_2PI
            log_phi_w[1] += e
            phi_w = np.exp(np.minimum(log_phi_w, EXP_CAP))
            weight = np.empty(x.shape)
            weight[0] = 1.0
            np.exp(np.minimum(e, EXP_CAP), out=weight[1])
            matrix = self._matrix(with_gaps)
            if matrix is not None:
                # Every polynomial as one matrix product with the powers of x.
                poly = matrix @ powers(xc, matrix.shape[2])
            else:  # degrees beyond _MAX_POWERS: Horner
                # with_gaps: survival_and_gaps checked that full is not None.
                coeffs = cast(FloatArray, self.full) if with_gaps else self.core
                poly = horner(coeffs, xc[:, None, :])
            gaps = None
            if with_gaps:
                gaps = phi_w[0] * poly[0, 2:]
                gaps -= phi_w[1] * poly[1, 2:]
                # Beyond float range the expansion has broken down: infinite gaps.
                gaps[np.isnan(gaps)] = np.inf
            sf = self._survival(x, xc, phi_w, weight, poly[:, 0])
            dens = None
            if densities:
                dens = phi_w * poly[:, 1]
            if self.spliced:
                below = x < self.lo
                above = x > self.hi
                if below.any() or above.any():
                    lf = self.log_fa + special.log_ndtr(x) - special.log_ndtr(self.lo)
                    ls = self.log_sb + special.log_ndtr(-x) - special.log_ndtr(-self.hi)
                    sf = np.where(below, -np.expm1(lf) * weight, sf)
                    ls[1] += e
                    sf = np.where(above, np.exp(np.minimum(ls, EXP_CAP)), sf)
                    if dens is not None:
                        dens = np.where(below, self.scale_below * phi_w, dens)
                        dens = np.where(above, self.scale_above * phi_w, dens)
            sf = np.minimum(np.maximum(sf, 0.0), weight)
            if dens is not None:
                # Capped at e^700; NaN (inf * 0 far out) and negative values: 0.
                dens = np.fmax(np.minimum(dens, _CAP), 0.0)
                dens /= self.sd
        return sf, dens, gaps

    @staticmethod
    def _survival(
        x: FloatArray,
        xc: FloatArray,
        phi_w: FloatArray,
        weight: FloatArray,
        r: FloatArray,
    ) -> FloatArray:
        r"""The survival functions from ``R``: above the mean :math:`S = \phi(M +
        R)`, ``M`` the Mills ratio (no underflow), below it :math:`\Phi(-x) +
        \phi R` (each branch only where some point needs it)."""
        above = x > 0.0
        n_above = int(np.count_nonzero(above))
        if n_above == x.size:
            out = special.erfcx(xc * _SQRT_HALF)
            out *= _SQRT_HALF_PI
            out += r
            out *= phi_w
            return cast(FloatArray, out)
        low = weight * special.ndtr(-x)
        low += phi_w * r
        if n_above == 0:
            return cast(FloatArray, low)
        high = (_SQRT_HALF_PI * special.erfcx(xc * _SQRT_HALF) + r) * phi_w
        return cast(FloatArray, np.where(above, high, low))

    @functools.cached_property
    def _identity_rule(self) -> tuple[FloatArray, FloatArray]:
        """``(T, WV)`` of :meth:`p_term_from_q`: ``T[m, j] = a_{m+j}
        C(m + j, j)`` for the ascending coefficients ``a`` of :math:`q_J - 1` of
        the Q-law (so that ``x^m @ T`` are its Taylor coefficients at ``x``),
        and ``WV[i, j]`` the Gauss–Laguerre weight times the ``j``-th power of
        the node ``i``."""
        a = self.core[:, 0, 1, 0].copy()
        a[0] -= 1.0
        used = np.flatnonzero(a != 0.0)
        size = int(used[-1]) + 1 if used.size else 1
        power, binomial = _taylor_tables(size)
        taylor = np.where(power < size, a[np.minimum(power, size - 1)], 0.0) * binomial
        return taylor, _laguerre_weighted_powers(size)

    def p_term_from_q(self, e: FloatArray) -> FloatArray:
        r"""``(N,)``: the tail formula's second term :math:`e^\varepsilon S_P
        (\varepsilon)` at the 1-d ``e`` as the pair identity
        :math:`dP = e^{-L} dQ` gives it from the Q-expansion alone,

        .. math::  e^\varepsilon S_P(\varepsilon)
                   = \int_\varepsilon^\infty e^{\varepsilon - l} f_Q(l)\,dl
                   = \int_x^\infty e^{-(y - x)s}\,\phi(y)\,q_J(y)\,dy,

        :math:`x = x_Q`, :math:`s` the Q-law's sd: the normal part in closed form,
        :math:`e^{xs + s^2/2}\,\Phi(-x - s)`, the correction :math:`q_J - 1` by a
        24-point Gauss–Laguerre rule (raw expansion), summed from the Taylor
        coefficients of :math:`q_J - 1` at :math:`x` where :math:`x + s \ge 1`
        (:meth:`_identity_sum_wide`), node by node elsewhere. Its distance to the
        P-law's value measures the Cramér error :math:`e^{\lambda_3 x_P^3/6}` of the far
        P-tail, which the order gaps miss.
        """
        m, s = self._q_law
        x = (e - m) / s
        beta = x + s
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            log_phi = np.minimum(x * x, 4.0 * EXP_CAP)
            log_phi *= -0.5
            log_phi -= LOG_SQRT_2PI
            phi = np.exp(log_phi)
            least = float(beta.min(initial=np.inf))
            if least >= 1.0:  # every point wide (the common case)
                normal = phi * (_SQRT_HALF_PI * special.erfcx(beta * _SQRT_HALF))
                corr = self._identity_sum_wide(x, beta)
                c = beta
            else:
                mills = _SQRT_HALF_PI * special.erfcx(
                    np.maximum(beta, 0.0) * _SQRT_HALF
                )
                normal = phi * mills
                left = beta <= 0.0
                if left.any():
                    xl = x[left]
                    normal[left] = np.exp(
                        np.minimum(xl * s + 0.5 * s * s, EXP_CAP)
                    ) * special.ndtr(-beta[left])
                c = np.maximum(beta, 1.0)
                wide = beta >= 1.0
                corr = np.empty(x.shape)
                corr[wide] = self._identity_sum_wide(x[wide], c[wide])
                near = ~wide & (beta >= 0.0) & (np.abs(x) <= _NEAR_X)
                if near.any():
                    corr[near] = self._identity_sum_near(x[near], beta[near])
                rest = ~wide & ~near
                if rest.any():
                    corr[rest] = self._identity_sum_nodes(x[rest], beta[rest], c[rest])
            out = phi / c
            out *= corr
            out += normal
        out[~np.isfinite(out)] = np.inf
        return out

    @functools.cached_property
    def _q_law(self) -> tuple[float, float]:
        """The Q-law's mean and sd as Python floats."""
        return float(self.mean[0, 0]), float(self.sd[0, 0])

    def _identity_sum_wide(self, x: FloatArray, c: FloatArray) -> FloatArray:
        r"""The rule's sum :math:`\sum_i w_i h_i (q_J - 1)(x + v_i/c)` of
        :meth:`p_term_from_q` where :math:`c = x + s \ge 1` (node factors
        :math:`h_i = e^{-v_i^2/2c^2} \le 1`) as :math:`\sum_j b_j(x)\,c^{-j}
        \sum_i w_i h_i v_i^j`, :math:`b_j(x)` the Taylor coefficients of
        :math:`q_J - 1` at :math:`x` (the same sum in another order; points
        beyond ``X_CLIP``, where the sum is multiplied by :math:`\phi(x) = 0`,
        are clipped)."""
        taylor, weighted = self._identity_rule
        size = len(taylor)
        inv_c = 1.0 / c
        h = np.exp(np.multiply.outer(-0.5 * inv_c * inv_c, _LAGUERRE_V2))
        moments = h @ weighted  # (N, size): sum_i w_i h_i v_i^j
        xc = np.minimum(np.maximum(x, -X_CLIP), X_CLIP)
        pw = powers(np.stack((xc, inv_c)), size)
        moments *= pw[0].T @ taylor
        moments *= pw[1].T
        return cast(FloatArray, moments.sum(axis=1))

    def _identity_sum_near(self, x: FloatArray, beta: FloatArray) -> FloatArray:
        r"""The rule's sum of :meth:`p_term_from_q` where :math:`0 \le \beta =
        x + s < 1` (:math:`c = 1`, node factors :math:`h_i = e^{v_i(1 - \beta) -
        v_i^2/2} \le e^{1/2}`) and :math:`|x| \le` ``_NEAR_X``, from the Taylor
        coefficients of :math:`q_J - 1` at :math:`x` as in
        :meth:`_identity_sum_wide` (the same sum in another order)."""
        taylor, weighted = self._identity_rule
        h = np.multiply.outer(1.0 - beta, _LAGUERRE_V)
        h -= 0.5 * _LAGUERRE_V2
        np.exp(h, out=h)
        moments = h @ weighted
        moments *= powers(x[None, :], len(taylor))[0].T @ taylor
        return cast(FloatArray, moments.sum(axis=1))

    def _identity_sum_nodes(
        self, x: FloatArray, beta: FloatArray, c: FloatArray
    ) -> FloatArray:
        """The rule's sum of :meth:`p_term_from_q` node by node (any ``beta``;
        used where ``beta < 1``, whose node factors grow with the node)."""
        y = np.clip(x[:, None] + _LAGUERRE_V / c[:, None], -X_CLIP, X_CLIP)
        q = horner(self._q_density_correction, y.reshape(1, 1, -1))
        q = q[0, 0].reshape(y.shape)
        shape = np.exp(
            _LAGUERRE_V * (1.0 - beta / c)[:, None]
            - _LAGUERRE_V**2 / (2.0 * c * c)[:, None]
        )
        return cast(FloatArray, (shape * q) @ _LAGUERRE_W)

    @functools.cached_property
    def _q_density_correction(self) -> FloatArray:
        """Coefficients of :math:`q_J - 1` of the Q-law (as for
        :func:`~.horner.horner`)."""
        core: FloatArray = self.core[:, :1, 1:2].copy()
        core[0] -= 1.0
        return core

    def _matrix(self, with_gaps: bool) -> FloatArray | None:
        """The coefficients of ``(R, q)`` (and the order terms ``with_gaps``)
        as a ``(2, K, deg + 1)`` matrix (law, polynomial, power; built once per
        kernel), or None beyond ``_MAX_POWERS`` powers."""
        return self._matrices[1 if with_gaps else 0]

    @functools.cached_property
    def _matrices(self) -> tuple[FloatArray | None, FloatArray | None]:
        def matrix(coeffs: FloatArray | None) -> FloatArray | None:
            if coeffs is None or len(coeffs) > _MAX_POWERS:
                return None
            # Trailing zero powers (the common padding) change no value.
            used = np.flatnonzero(np.any(coeffs != 0.0, axis=(1, 2, 3)))
            size = max(2, int(used[-1]) + 1 if used.size else 0)
            return np.ascontiguousarray(coeffs[:size, :, :, 0].transpose(1, 2, 0))

        return matrix(self.core), matrix(self.full)

    def order_gaps(self, e: FloatArray) -> FloatArray:
        r"""``(K, N)``: the differences :math:`\tilde\delta_{j_k} -
        \tilde\delta_{j_k - 1}` of the kernel's order terms at the 1-d ``e``
        (raw expansions; module docstring).

        Raises:
            ValueError: the kernel was built without next-order terms.
        """
        if self.gaps is None:
            raise ValueError("this kernel holds no next-order terms.")
        x = self.standardise(e)
        xc = np.minimum(np.maximum(x, -X_CLIP), X_CLIP)
        log_phi = -0.5 * xc * xc - LOG_SQRT_2PI
        poly = horner(self.gaps, xc[:, None, :])
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            w_q = np.exp(log_phi[0])
            w_p = np.exp(np.minimum(e + log_phi[1], EXP_CAP))
            # A gap beyond float range is an infinite estimate, not a NaN.
            out = w_q * poly[0] - w_p * poly[1]
        return np.where(np.isnan(out), np.inf, out)


#: A cumulant series term :math:`|\lambda_R| x^R/R!` above this, and above
#: DIVERGENCE_RATIO times the term before it, marks the series as diverging
#: (:func:`series_diverges`).
DIVERGENCE_LEVEL: Final = 1e-2
DIVERGENCE_RATIO: Final = 1.5


def series_diverges(lambdas: FloatArray, x: FloatArray) -> NDArray[np.bool_]:
    r"""Where the Cramér series of the standardised cumulants diverges at ``x``.

    The normal tail's relative error is :math:`\exp(\sum_{r \ge 3} \lambda_r
    x^r / r! + \dots)` to leading order (Petrov 1975, Ch. VIII); with
    :math:`c_r = |\lambda_r| x^r / r!`, the series diverges at :math:`x > 0`
    where :math:`c_R >` ``DIVERGENCE_RATIO`` :math:`c_{R-1}` and :math:`c_R >`
    ``DIVERGENCE_LEVEL`` (ratio test: beyond the radius of :math:`K`'s series).
    There every polynomial expansion of the tail can be off by orders of
    magnitude while consecutive orders agree.
    """
    lams = np.abs(np.asarray(lambdas, dtype=np.float64))
    if lams.size < 2:
        return np.zeros(np.shape(x), dtype=bool)
    r = lams.size + 2
    xp = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    if xp.size:
        # c_R increases with x: at most DIVERGENCE_LEVEL at the largest point
        # (with a margin for rounding), nowhere above it.
        top = float(xp.max())
        try:
            c_top = float(lams[-1]) * top**r / math.factorial(r)
        except OverflowError:
            c_top = math.inf
        if c_top * (1.0 + 1e-12) <= DIVERGENCE_LEVEL:
            return np.zeros(np.shape(x), dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        last = lams[-1] * xp**r / math.factorial(r)
        before = lams[-2] * xp ** (r - 1) / math.factorial(r - 1)
    return cast(
        NDArray[np.bool_],
        (last > DIVERGENCE_RATIO * before) & (last > DIVERGENCE_LEVEL),
    )


@functools.cache
def _taylor_tables(size: int) -> tuple[NDArray[np.intp], FloatArray]:
    """``(m + j, C(m + j, j))`` for ``m, j < size`` (the binomial 0 where
    ``m + j >= size``): the Taylor shift of a polynomial of ``size``
    coefficients."""
    power = np.add.outer(np.arange(size), np.arange(size))
    binomial = np.array(
        [
            [float(math.comb(m + j, j)) if m + j < size else 0.0 for j in range(size)]
            for m in range(size)
        ]
    )
    return power, binomial


@functools.cache
def _laguerre_weighted_powers(size: int) -> FloatArray:
    """``w_i v_i^j`` at the Gauss–Laguerre nodes, ``j < size`` (columns)."""
    out: FloatArray = _LAGUERRE_W[:, None] * _LAGUERRE_V[:, None] ** np.arange(size)
    return out


def reference_kernel(cumulants_q: FloatArray, cumulants_p: FloatArray) -> TailKernel:
    r"""The order-0 (two-sided normal) kernel with the order-1 and order-2 terms
    as its next-order terms, from :math:`K_1..K_4` under Q and P (the reference
    of the CLT error estimate).

    Raises:
        ValueError: fewer than four cumulants or a non-positive variance.
    """
    laws = []
    for k in (cumulants_q, cumulants_p):
        if k.size < 4 or not k[1] > 0.0:
            raise ValueError("the reference needs K_1..K_4 with K_2 > 0.")
        lams = (float(k[2]) / float(k[1]) ** 1.5, float(k[3]) / float(k[1]) ** 2)
        r2 = correction_polynomial(lams, 2)
        r1 = np.zeros(r2.size)
        r1[:3] = correction_polynomial(lams, 1)
        laws.append((float(k[0]), math.sqrt(float(k[1])), (r1, r2 - r1)))
    normal = (np.zeros(1), np.ones(1))
    return TailKernel.build(
        (laws[0][0], laws[1][0]),
        (laws[0][1], laws[1][1]),
        (normal, normal),
        (laws[0][2], laws[1][2]),
    )
