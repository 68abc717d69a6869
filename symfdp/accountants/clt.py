r"""``CLT``: the GDP limit of a composition (Dong et al. 2019, Secs. 3.2, 3.3, 5.2).

Every form returns the GDP curve :math:`G_\mu` (tensored with :math:`f_{0,\delta_0}`
for approximate-DP components), so the trade-off, the profile
:math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon
\Phi(-\varepsilon/\mu - \mu/2)` (Dong et al. 2019, Cor. 2.13) and its inverse are
closed forms. The forms differ only in :math:`\mu`:

``"moments"`` (default, any mechanism)
    Zheng et al. (2020), eq. (3.4)/(3.5): :math:`\mu_n = (E_Q T_n - E_P T_n) /
    \sqrt{\mathrm{Var}_P T_n}` from the summed cumulants of the composition (the P
    variance, as in (3.4) and in the authors' code; TARGETS CF-Z2/CF-Z3). For
    add/remove adjacency each direction has its own :math:`\mu_n` and the larger
    one is used (the profile of the curve is the max over the directions, and the
    family :math:`G_\mu` is ordered). For symmetric mechanisms this equals the
    Berry-Esseen :math:`\mu` of Dong et al. (2019), Thm 3.5 (``berryrep``), e.g.
    :math:`2\sqrt{n}\sinh(\varepsilon/2)` for pure DP (Cor. D.7), and it is exact
    for the Gaussian mechanism.

``"exp"`` (subsampled Gaussian)
    :math:`\mu^2 = \sum_i n_i p_i^2 (e^{1/\sigma_i^2} - 1)`: the limit of
    :math:`(p G_{1/\sigma} + (1-p)\mathrm{Id})^{\otimes n}` when :math:`p\sqrt n \to
    \nu` (Zheng et al. 2020, Sec. 5.3; Bu et al.; Kaissis et al. 2023, footnote;
    TARGETS CF-Z19/CF-K6).

``"chi2"`` (subsampled Gaussian)
    :math:`\mu^2 = \sum_i 2 n_i p_i^2 \chi^2_+(G_{1/\sigma_i})` with
    :math:`\chi^2_+(G_\mu) = e^{\mu^2}\Phi(3\mu/2) + 3\Phi(-\mu/2) - 2`: the
    NoisySGD limit of :math:`C_p(G_{1/\sigma})^{\otimes T}` (Dong et al. 2019,
    Cor. ``SGDlimitrep``, :math:`\mu = \sqrt2 c\sqrt{\chi^2_+}` with
    :math:`c = p\sqrt{T}`, and Lemma ``chirep``; TARGETS CF-D17/CF-D18).

``"dp"`` (pure DP, and :meth:`CLT.compose_eps_delta` for (eps, delta) lists)
    :math:`\mu^2 = \sum_i n_i \varepsilon_i^2` and
    :math:`G_\mu \otimes f_{0,\delta_0}` with :math:`\delta_0 = 1 - \prod_i
    (1-\delta_i)^{n_i}` (Dong et al. 2019, Thm ``DPCLTrep`` and eqs. (11)-(13);
    TARGETS CF-D10). The theorem states the limit with
    :math:`1 - e^{-\sum\delta_i}`; the product is the exact value of the
    :math:`\delta` part at finite :math:`n` (eq. (12)), never smaller. The
    :math:`\varepsilon` part :math:`\sqrt{\sum\varepsilon_i^2}` is the limit of
    Thm 3.4 (error :math:`O(1/n)` for :math:`\varepsilon = \mu/\sqrt n`).

In the per-component forms (``"exp"``, ``"chi2"``, ``"dp"``) a composition adds the
components' :math:`\mu_i^2` (GDP composition, Dong et al. 2019, Cor. 3.3), and an
exact Gaussian component contributes its own :math:`n_i\mu_i^2`. A component to
which a form does not apply raises ``ValueError``.

The CLT is an approximation (not a bound): its curve is uncertified.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import check_choice, check_int, check_real
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants._tail_expansion import (
    TailKernel,
    reference_kernel,
    series_diverges,
)
from symfdp.accountants.base import (
    DEFAULT_WARN_REL_ERROR,
    Accountant,
    Components,
    normalize_composition,
    pair_compositions,
    symmetric_loss_bound,
)
from symfdp.curve import BoundedLossPair, PairCurve, PrivacyCurve
from symfdp.functionals import noisy_sgd_mu_chi2, noisy_sgd_mu_exp
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.gaussian import (
    Gaussian,
    gaussian_privacy_profile,
    gaussian_tradeoff,
)
from symfdp.mechanisms.pure_dp import PureDP
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian
from symfdp.numeric.roots import newton_on_bracket, newton_on_bracket_scalar

FORMS: tuple[str, ...] = ("moments", "exp", "chi2", "dp")


@dataclass(frozen=True)
class GaussianPairCurve:
    r""":math:`G_\mu \otimes f_{0,\delta_0}` as a :class:`~symfdp.curve.PairCurve`.

    Trade-off :math:`(1-\delta_0) G_\mu(\alpha/(1-\delta_0))` on
    :math:`[0, 1-\delta_0]` and 0 beyond (Dong et al. 2019, eq. (13)); profile
    :math:`\delta_0 + (1-\delta_0)\delta_{G_\mu}(\varepsilon)`; with
    :math:`\delta_0 = 0` this is :math:`G_\mu` itself.

    Attributes:
        mu: The GDP parameter :math:`\mu \ge 0`.
        delta0: The :math:`\delta` part :math:`\delta_0 \in [0, 1)`.
        reference: For the error estimate: one
            :func:`~symfdp.accountants._tail_expansion.reference_kernel` per
            direction of the composition it approximates (``()`` for an exact
            Gaussian composition: no error; None when unknown: ``inf``).

    **Error estimate** (:meth:`delta_and_error`): the larger distance of the
    GDP profile to the raw two-sided Edgeworth profiles of orders 1 and 2 of the
    composed loss (Zheng et al. (2020), Lemma 5.1 with the expansions of
    :mod:`symfdp.accountants._tail_expansion`), each the maximum over the
    directions, and at least the large-deviation size of the normal tails'
    error (:func:`_cramer_gap`), and ``inf`` where the Q-law's cumulant series
    (:math:`\lambda_3..\lambda_6`) diverges (:func:`_diverges`); for
    :meth:`epsilon_and_error` the Edgeworth
    gap at :math:`\hat\varepsilon` divided by the slope :math:`|\delta_{G_\mu}'|
    = e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)`, or the large-deviation
    log-ratio (:func:`_cramer_log_ratio`) divided by the log-slope
    :math:`|\delta'|/\delta`, whichever is larger.
    """

    mu: float
    delta0: float = 0.0
    info: dict[str, Any] = field(default_factory=dict, compare=False)
    reference: tuple[TailKernel, ...] | None = field(
        default=None, repr=False, compare=False
    )
    cramer: tuple[FloatArray, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, 0.0))
        object.__setattr__(
            self, "delta0", check_real("delta0", self.delta0, 0.0, 1.0, hi_open=True)
        )

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        a = np.asarray(alpha, dtype=np.float64)
        if self.delta0 == 0.0:
            return np.asarray(gaussian_tradeoff(self.mu, a), dtype=np.float64)
        keep = 1.0 - self.delta0
        inside = a <= keep
        scaled = np.minimum(np.where(inside, a, 0.0) / keep, 1.0)
        return np.where(inside, keep * gaussian_tradeoff(self.mu, scaled), 0.0)

    def delta(self, eps: ArrayLike) -> FloatArray:
        e = np.asarray(eps, dtype=np.float64)
        base = np.asarray(gaussian_privacy_profile(self.mu, e), dtype=np.float64)
        return self.delta0 + (1.0 - self.delta0) * base

    def epsilon(self, delta: ArrayLike) -> FloatArray:
        r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le d`.

        Solves :math:`\log\delta_{G_\mu}(\varepsilon) = \log t`,
        :math:`t = (d - \delta_0)/(1 - \delta_0)`, by bracketed Newton with
        :math:`\delta_{G_\mu}' = -e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)` on
        :math:`[0, \mu^2/2 + \mu\,\Phi^{-1}(1-t)]` (at the upper end the first
        term of the profile alone is :math:`t`).

        Raises:
            ValueError: some ``delta <= delta0`` (no finite epsilon exists).
        """
        d = np.asarray(delta, dtype=np.float64)
        if np.any(d <= self.delta0):
            raise ValueError(
                f"delta must exceed delta0 = {self.delta0:.6g} (the delta part of "
                "the composition); no finite epsilon exists below it. "
                f"Found {float(np.min(d)):g}."
            )
        t = (d - self.delta0) / (1.0 - self.delta0)
        return gaussian_epsilon(self.mu, t)

    def delta_and_error(self, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(delta(eps), estimate of its absolute error)`` (see the class)."""
        e = np.asarray(eps, dtype=np.float64)
        value = np.asarray(self.delta(e), dtype=np.float64)
        return value, self._delta_gap(e, value)

    def epsilon_and_error(self, delta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(epsilon(delta), estimate of its absolute error)`` (see the class)."""
        eps = self.epsilon(delta)
        gap = self._edgeworth_gap(eps, self.delta(eps))
        log_ratio = np.zeros(np.shape(eps))
        for law in self.cramer:
            log_ratio = np.maximum(log_ratio, _cramer_log_ratio(law, eps))
            log_ratio = np.where(_diverges(law, eps), np.inf, log_ratio)
        if self.mu == 0.0:
            return eps, np.where(np.maximum(gap, log_ratio) > 0.0, np.inf, 0.0)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_slope = eps + special.log_ndtr(-eps / self.mu - self.mu / 2)
            slope = (1.0 - self.delta0) * np.exp(log_slope)
            linear = np.where(gap > 0.0, gap / slope, 0.0)
            # The large-deviation term is a log-ratio of the tails: its eps
            # shift is that ratio over |d log delta / d eps| = slope / delta.
            large = np.where(
                log_ratio > 0.0, log_ratio * np.asarray(delta, np.float64) / slope, 0.0
            )
        linear = np.where(np.isnan(linear), np.inf, linear)
        large = np.where(np.isnan(large), np.inf, large)
        return eps, np.maximum(linear, large)

    def _delta_gap(self, e: FloatArray, value: FloatArray) -> FloatArray:
        """The delta estimate: the Edgeworth gap or the large-deviation term."""
        flat = np.ravel(e)
        cramer = np.zeros(flat.shape)
        for law in self.cramer:
            cramer = np.maximum(cramer, _cramer_gap(law, flat))
            cramer = np.where(_diverges(law, flat), np.inf, cramer)
        return np.maximum(self._edgeworth_gap(e, value), cramer.reshape(np.shape(e)))

    def _edgeworth_gap(self, e: FloatArray, value: FloatArray) -> FloatArray:
        """Distance to the order-1/2 Edgeworth profiles (``inf`` where unknown)."""
        if self.reference is None or self.delta0 > 0.0:
            return np.full(e.shape, np.inf)
        if not self.reference:
            return np.zeros(e.shape)
        if e.size == 1:
            found = self._edgeworth_gap_point(float(e.flat[0]), float(value.flat[0]))
            if found is not None:
                return np.full(e.shape, found)
        flat = np.ravel(e)
        # The raw orders 1 and 2 of the reference kernels, maximised over the
        # references elementwise (as np.max over the stacked orders).
        top1 = top2 = None
        for kernel in self.reference:
            sf, _, gaps = kernel.survival_and_gaps(flat, densities=False)
            first = (sf[0] - sf[1]) + gaps[0]
            second = first + gaps[1]
            top1 = first if top1 is None else np.maximum(top1, first)
            top2 = second if top2 is None else np.maximum(top2, second)
        v = np.ravel(value)
        gap = np.maximum(np.abs(top1 - v), np.abs(top2 - v))
        gap[np.isnan(gap)] = np.inf  # inf - inf far in the tails
        return gap.reshape(e.shape)

    def _edgeworth_gap_point(self, e: float, value: float) -> float | None:
        """:meth:`_edgeworth_gap` at one point from the kernels' scalar pass
        (:meth:`TailKernel.point`); None where it does not serve."""
        assert self.reference
        orders = [-math.inf, -math.inf, -math.inf]
        for kernel in self.reference:
            found = kernel.point(e)
            if found is None:
                return None
            sf_q, sf_p, _, _, gaps = found
            base = sf_q - sf_p
            for j, v in enumerate((base, base + gaps[0], base + gaps[0] + gaps[1])):
                orders[j] = max(orders[j], v)
        gap = max(abs(orders[1] - value), abs(orders[2] - value))
        return math.inf if math.isnan(gap) else gap


def _cramer_log_ratio(law: FloatArray, e: FloatArray) -> FloatArray:
    r"""``max |lambda_3 x^3 / 6|`` over the two tails at ``e`` (``x >= 0``): the
    size of :math:`\log` (true tail / normal tail) by Cramér's theorem (see
    :func:`_cramer_gap`)."""
    m_q, s_q, l_q, m_p, s_p, l_p = (float(v) for v in law[:6])
    x_q = np.maximum((np.asarray(e) - m_q) / s_q, 0.0)
    x_p = np.maximum((np.asarray(e) - m_p) / s_p, 0.0)
    return np.maximum(np.abs(l_q) * x_q**3, np.abs(l_p) * x_p**3) / 6.0


def _diverges(law: FloatArray, e: FloatArray) -> NDArray[np.bool_]:
    """Where the Q-law's cumulant series diverges at ``e``
    (:func:`~symfdp.accountants._tail_expansion.series_diverges`): the normal
    tail, and every expansion, can then be off by orders of magnitude."""
    return series_diverges(law[6:], (np.asarray(e) - law[0]) / law[1])


def _cramer_gap(law: FloatArray, e: FloatArray) -> FloatArray:
    r"""The large-deviation size of the normal tails' error at ``e``.

    For a sum with standardised third cumulant :math:`\lambda_3`, Cramér's
    theorem gives :math:`P(T > m + s x) = \Phi(-x)\exp(\lambda_3 x^3/6 +
    \dots)(1 + O((1 + x)/\sqrt n))` for :math:`0 \le x = o(\sqrt n)` (Petrov
    1975, Ch. VIII, Thm 2): the normal tail's relative error grows like
    :math:`|e^{\lambda_3 x^3/6} - 1|`, which the first Edgeworth term (linear in
    :math:`\lambda_3 x^3`) stops tracking once :math:`|\lambda_3| x^3 \gtrsim
    6`. ``law`` holds :math:`(m_Q, s_Q, \lambda_3^Q, m_P, s_P, \lambda_3^P)` of
    one direction; the result bounds the error of
    :math:`\Phi(-x_Q) - e^\varepsilon\Phi(-x_P)` by that relative size on each
    term (``inf`` beyond float range)."""
    m_q, s_q, l_q, m_p, s_p, l_p = (float(v) for v in law[:6])
    x_q = np.maximum((e - m_q) / s_q, 0.0)
    x_p = np.maximum((e - m_p) / s_p, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # Exponents capped at 700 (a relative error of e^700 is "unbounded"
        # for every purpose).
        r_q = np.abs(np.expm1(np.minimum(l_q * x_q**3 / 6.0, 700.0)))
        r_p = np.abs(np.expm1(np.minimum(l_p * x_p**3 / 6.0, 700.0)))
        term_q = r_q * special.ndtr(-(e - m_q) / s_q)
        log_p = e + special.log_ndtr(-(e - m_p) / s_p)
        term_p = r_p * np.exp(np.minimum(log_p, 700.0))
        out = term_q + term_p
    return np.where(np.isnan(out), np.inf, out)


def gaussian_epsilon(mu: float, target: ArrayLike) -> FloatArray:
    r""":math:`\inf\{\varepsilon \ge 0 : \delta_{G_\mu}(\varepsilon) \le t\}`,
    vectorised (see :meth:`GaussianPairCurve.epsilon`).

    Solved for :math:`u = \varepsilon/\mu` with :math:`w = u - \mu/2`, where the
    profile (Dong et al. 2019, Cor. 2.13) reads

    .. math::  \delta = \Phi(-w) - \tfrac12 e^{-w^2/2}
               \operatorname{erfcx}\bigl((w + \mu)/\sqrt2\bigr),

    since :math:`e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2) = e^{\mu^2/2 + \mu
    w}\Phi(-w-\mu)` and :math:`\Phi(-x) = \tfrac12 e^{-x^2/2}
    \operatorname{erfcx}(x/\sqrt2)`: the exponents cancel exactly, so no term
    of size :math:`\mu^2` is formed and every :math:`\mu` (up to the float
    range of :math:`\varepsilon`) keeps full precision. Bracketed Newton on
    :math:`\log\delta` (targets :math:`t \le 1/2`) or on :math:`\log(1 - \delta)
    = \log(\Phi(w) + \tfrac12 e^{-w^2/2}\operatorname{erfcx}(\cdot))` (targets
    near 1, whose distance to 1 then keeps its relative precision) in
    :math:`u \in [0, \mu/2 + \Phi^{-1}(1-t)]` (at the upper end the first term
    alone is :math:`t`; the end is widened by a few ulps of :math:`\mu/2`, the
    rounding of :math:`w`), with :math:`d\delta/du = -\mu
    e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)`.
    """
    t = np.asarray(target, dtype=np.float64)
    out = np.zeros(t.shape)
    if mu == 0.0:
        return out
    at_zero = gaussian_privacy_profile(mu, np.zeros(t.shape)) <= t
    todo = ~at_zero & (t < 1.0)
    if not todo.any():
        return out
    tt = t[todo]
    hi = mu / 2 + -special.ndtri(tt) + 8e-16 * mu
    upper = tt > 0.5

    def parts(u: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        w = u - mu / 2
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_b = -0.5 * w * w + np.log(special.erfcx((w + mu) / math.sqrt(2)) / 2)
            return w, special.log_ndtr(-w), log_b

    def log_delta(u: FloatArray) -> tuple[FloatArray, FloatArray]:
        _, log_a, log_b = parts(u)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_d = log_a + np.log1p(-np.exp(np.minimum(log_b - log_a, 0.0)))
            return log_d, -mu * np.exp(log_b - log_d)

    def log_complement(u: FloatArray) -> tuple[FloatArray, FloatArray]:
        w, _, log_b = parts(u)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_c = np.logaddexp(special.log_ndtr(w), log_b)
            return log_c, mu * np.exp(log_b - log_c)

    if tt.size == 1:
        found = _gaussian_u_point(mu, float(tt[0]), float(hi[0]))
        if found is not None:
            out[todo] = mu * found
            return out
    u = np.zeros(tt.shape)
    for fn, sel, target, rising in (
        (log_delta, ~upper, np.log(tt[~upper]), False),
        (log_complement, upper, np.log1p(-tt[upper]), True),
    ):
        if sel.any():
            # Newton kept inside the bracket (bisection where a step would
            # leave it), started just inside the upper end, near the root for
            # small targets (the first term alone is the target there).
            u[sel], _ = newton_on_bracket(
                fn,
                target,
                np.zeros(target.shape),
                hi[sel],
                np.nextafter(hi[sel], 0.0),
                decreasing=not rising,
                xtol=1e-14,
                ftol=1e-13,
            )
    out[todo] = mu * u
    return out


_SQRT2 = math.sqrt(2)


def _gaussian_u_point(mu: float, t: float, hi: float) -> float | None:
    """The root ``u`` of :func:`gaussian_epsilon` for one target ``t`` in
    Python floats (the same functions and, by
    :func:`~symfdp.numeric.roots.newton_on_bracket_scalar`, the same steps);
    None where a value leaves the float range (the array path answers)."""
    half = mu / 2
    upper = t > 0.5

    def fn(u: float) -> tuple[float, float]:
        w = u - half
        log_b = -0.5 * w * w + math.log(float(special.erfcx((w + mu) / _SQRT2)) / 2)
        if upper:
            log_c = float(np.logaddexp(float(special.log_ndtr(w)), log_b))
            return log_c, mu * math.exp(log_b - log_c)
        log_a = float(special.log_ndtr(-w))
        log_d = log_a + math.log1p(-math.exp(min(log_b - log_a, 0.0)))
        return log_d, -mu * math.exp(log_b - log_d)

    try:
        target = math.log1p(-t) if upper else math.log(t)
    except ValueError:
        return None
    found = newton_on_bracket_scalar(
        fn,
        target,
        0.0,
        hi,
        math.nextafter(hi, 0.0),
        decreasing=not upper,
        xtol=1e-14,
        ftol=1e-13,
    )
    return None if found is None else found[0]


def _references(components: Components) -> tuple[TailKernel, ...] | None:
    """The error-estimate references of the directions of ``components``: ``()``
    when every component is Gaussian (the GDP curve is exact), None when a
    direction has no variance."""
    if all(isinstance(m, Gaussian) for m, _ in components):
        return ()
    kernels = []
    for direction in pair_compositions(components):
        k_q = summed_cumulants(direction, 4, "Q")
        k_p = summed_cumulants(direction, 4, "P")
        if not (k_q[1] > 0.0 and k_p[1] > 0.0):
            return None
        kernels.append(reference_kernel(k_q, k_p))
    return tuple(kernels)


#: The Q-law's standardised cumulants lambda_3 .. lambda_SERIES_TOP enter the
#: divergence check of the estimate (:func:`series_diverges`).
SERIES_TOP = 6


def _cramer_laws(components: Components) -> tuple[FloatArray, ...]:
    """Per direction ``(m_Q, s_Q, lambda3_Q, m_P, s_P, lambda3_P, lambda_3^Q ..
    lambda_6^Q)`` of the composed loss, for :func:`_cramer_gap` and
    :func:`_diverges` (``()`` for Gaussian compositions)."""
    if all(isinstance(m, Gaussian) for m, _ in components):
        return ()
    laws = []
    for direction in pair_compositions(components):
        row = []
        for under in ("Q", "P"):
            k = summed_cumulants(direction, SERIES_TOP if under == "Q" else 3, under)
            if not k[1] > 0.0:
                return ()
            sd = math.sqrt(float(k[1]))
            row += [float(k[0]), sd, float(k[2]) / sd**3]
            if under == "Q":
                series = [float(k[r - 1]) / sd**r for r in range(3, SERIES_TOP + 1)]
        laws.append(np.array(row + series))
    return tuple(laws)


def _mu_moments(direction: Components) -> float:
    r"""Zheng et al. (2020), eq. (3.4): :math:`(K^Q_1 - K^P_1)/\sqrt{K^P_2}`."""
    k_p = summed_cumulants(direction, 2, "P")
    k_q = summed_cumulants(direction, 1, "Q")
    gap = float(k_q[0] - k_p[0])
    if k_p[1] <= 0.0:
        if abs(gap) > 0.0:
            raise FloatingPointError(
                "zero variance of the privacy loss with a non-zero mean gap; the "
                "mechanism's cumulants are inconsistent."
            )
        return 0.0
    return max(gap, 0.0) / math.sqrt(float(k_p[1]))


def _component_mu2(mechanism: Mechanism, n: int, form: str) -> float:
    """``n * mu_i^2`` of one component in the per-component forms."""
    if isinstance(mechanism, Gaussian):
        return n * mechanism.mu**2
    if form in ("exp", "chi2") and isinstance(mechanism, SubsampledGaussian):
        if mechanism.mu == 0.0:
            return 0.0
        mu_fn = noisy_sgd_mu_exp if form == "exp" else noisy_sgd_mu_chi2
        return mu_fn(mechanism.p, mechanism.sigma, n) ** 2
    if form == "dp" and isinstance(mechanism, PureDP):
        # Dong et al. (2019), Thm DPCLTrep: sum_i eps_i^2 -> mu^2.
        return n * mechanism.eps**2
    applies = {
        "exp": "SubsampledGaussian",
        "chi2": "SubsampledGaussian",
        "dp": "PureDP",
    }[form]
    raise ValueError(
        f"CLT(form={form!r}) applies to {applies} (and exact Gaussian) components "
        f"only. Found {mechanism!r}; use form='moments' for general mechanisms."
    )


class CLT(Accountant):
    r"""The Gaussian-DP (CLT) approximation :math:`G_\mu` of a composition.

    Args:
        form: How :math:`\mu` is computed: ``"moments"`` (default, any
            mechanism), ``"exp"`` or ``"chi2"`` (subsampled Gaussian), ``"dp"``
            (pure DP). See the module docstring for the formulas and sources.
        warn_rel_error: Estimated relative error above which a query warns
            (the error estimate of :class:`GaussianPairCurve`).

    The returned curve is symmetric (:math:`G_\mu`); ``curve.info["mu"]`` holds
    :math:`\mu`, ``info["form"]`` the form and ``info["delta0"]`` the
    :math:`\delta` part (``"dp"`` form).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = CLT().compose(M.Gaussian(mu=0.5), n=4)
        >>> round(curve.info["mu"], 12)
        1.0
    """

    method = "CLT"

    def __init__(
        self,
        form: str = "moments",
        *,
        warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR,
    ) -> None:
        super().__init__(warn_rel_error=warn_rel_error)
        self.form = check_choice("form", form, FORMS)

    def compose(
        self,
        mechanism: Mechanism | Sequence[tuple[Mechanism, int]],
        n: int | None = None,
    ) -> PrivacyCurve:
        components = normalize_composition(mechanism, n)
        if self.form == "moments":
            per_direction = tuple(_mu_moments(c) for c in pair_compositions(components))
            mu = max(per_direction)
        else:
            mu = math.sqrt(sum(_component_mu2(m, k, self.form) for m, k in components))
            per_direction = (mu,)
        return self._curve(mu, 0.0, components, per_direction)

    def compose_eps_delta(
        self, eps_delta: Sequence[tuple[float, float, int]]
    ) -> PrivacyCurve:
        r"""CLT of a composition of :math:`(\varepsilon_i, \delta_i)`-DP mechanisms,
        each used :math:`n_i` times: :math:`G_\mu \otimes f_{0,\delta_0}` with
        :math:`\mu^2 = \sum n_i\varepsilon_i^2` and :math:`\delta_0 = 1 - \prod
        (1-\delta_i)^{n_i}` (Dong et al. 2019, Thm ``DPCLTrep``, eq. (12)).

        Args:
            eps_delta: ``(eps_i, delta_i, n_i)`` triples with ``eps_i >= 0``,
                ``0 <= delta_i < 1`` and integer ``n_i >= 1``.
        """
        triples = list(eps_delta)
        if not triples:
            raise ValueError("eps_delta must contain at least one (eps, delta, n).")
        mu2 = 0.0
        log_keep = 0.0
        for item in triples:
            if len(item) != 3:
                raise ValueError(f"each entry must be (eps, delta, n). Found {item!r}.")
            e = check_real("eps", item[0], 0.0)
            d = check_real("delta", item[1], 0.0, 1.0, hi_open=True)
            k = check_int("n", item[2], lo=1)
            mu2 += k * e * e
            log_keep += k * math.log1p(-d)
        delta0 = -math.expm1(log_keep)
        if delta0 >= 1.0:
            raise ValueError("the composed delta part rounds to 1; nothing is private.")
        info = {"n": sum(int(t[2]) for t in triples)}
        return self._curve(math.sqrt(mu2), delta0, None, (math.sqrt(mu2),), info)

    def _curve(
        self,
        mu: float,
        delta0: float,
        components: Components | None,
        per_direction: tuple[float, ...],
        info: dict[str, Any] | None = None,
    ) -> PrivacyCurve:
        details = dict(info) if info is not None else self.describe(components or ())
        form = self.form if components is not None else "dp"
        details.update(
            {"mu": mu, "form": form, "mu_directions": per_direction, "delta0": delta0}
        )
        reference = _references(components) if components is not None else None
        cramer = _cramer_laws(components) if components is not None else ()
        pair: PairCurve = GaussianPairCurve(
            mu, delta0, reference=reference, cramer=cramer
        )
        if components is not None:
            bound = symmetric_loss_bound(components)
            if bound < math.inf:
                pair = BoundedLossPair(pair, -bound, bound, self.method)
        return PrivacyCurve(
            pairs=(pair,),
            method=self.method,
            symmetric=True,
            info=details,
            warn_rel_error=self.warn_rel_error,
        )

    def compose_pair(self, components: Components) -> PairCurve:
        """The :math:`G_{\\mu_n}` curve of one direction (``"moments"`` form) or of
        the per-component forms."""
        reference = _references(components)
        cramer = _cramer_laws(components)
        if self.form == "moments":
            return GaussianPairCurve(
                _mu_moments(components), reference=reference, cramer=cramer
            )
        mu2 = sum(_component_mu2(m, k, self.form) for m, k in components)
        return GaussianPairCurve(math.sqrt(mu2), reference=reference, cramer=cramer)

    def __repr__(self) -> str:
        return f"CLT(form={self.form!r})"
