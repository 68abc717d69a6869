r"""``CLT``: the GDP limit of a composition (Dong et al. 2019, Secs. 3.2, 3.3, 5.2).

Every form returns the GDP curve :math:`G_\mu` (tensored with :math:`f_{0,\delta_0}`
for approximate-DP components), so the trade-off, the profile
:math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon
\Phi(-\varepsilon/\mu - \mu/2)` (Dong et al. 2019, Cor. 2.13) and its inverse are
closed forms. The forms differ only in :math:`\mu`:

``"moments"`` (default, any mechanism)
    Zheng et al. (2020), eq. (3.4)/(3.5): :math:`\mu_n = (E_Q T_n - E_P T_n) /
    \sqrt{\mathrm{Var}_P T_n}` from the summed cumulants (TARGETS CF-Z2/CF-Z3); the
    larger over the directions of add/remove adjacency. For symmetric mechanisms
    the Berry-Esseen :math:`\mu` of Dong et al. (2019), Thm 3.5 (``berryrep``),
    e.g. :math:`2\sqrt{n}\sinh(\varepsilon/2)` for pure DP (Cor. D.7).

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
    TARGETS CF-D10; the product is the exact finite-:math:`n` value, eq. (12), of
    the limit :math:`1 - e^{-\sum\delta_i}`; the :math:`\varepsilon` part is the
    limit of Thm 3.4).

The per-component forms add the components' :math:`\mu_i^2` (Dong et al. 2019,
Cor. 3.3; a Gaussian component its own :math:`n_i\mu_i^2`); others raise
``ValueError``. An approximation, not a bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray
from scipy import special

from symfdp._validation import check_choice, check_int, check_real
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants._exact_pairs import gaussian_epsilon
from symfdp.accountants.base import (
    DEFAULT_WARN_REL_ERROR,
    Components,
    Composed,
    pair_compositions,
)
from symfdp.accountants.gdp.base import GDPAccountant
from symfdp.curve import Answer, PairCurve, PrivacyCurve, Query
from symfdp.functionals import noisy_sgd_mu_chi2, noisy_sgd_mu_exp
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.gaussian import (
    gaussian_privacy_profile,
    gaussian_tradeoff,
)
from symfdp.mechanisms.pure_dp import PureDP
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian
from symfdp.numeric.edgeworth import (
    TailKernel,
    reference_kernel,
    series_diverges,
)

FORMS: tuple[str, ...] = ("moments", "exp", "chi2", "dp")


@dataclass(frozen=True)
class CLTPairCurve(PairCurve):
    r""":math:`G_\mu \otimes f_{0,\delta_0}` as a :class:`~symfdp.curve.PairCurve`.

    Trade-off :math:`(1-\delta_0) G_\mu(\alpha/(1-\delta_0))` on
    :math:`[0, 1-\delta_0]` and 0 beyond (Dong et al. 2019, eq. (13)); profile
    :math:`\delta_0 + (1-\delta_0)\delta_{G_\mu}(\varepsilon)`; with
    :math:`\delta_0 = 0` this is :math:`G_\mu` itself.

    Attributes:
        mu: The GDP parameter :math:`\mu \ge 0`.
        delta0: The :math:`\delta` part :math:`\delta_0 \in [0, 1)`.
        reference: One :func:`~symfdp.numeric.edgeworth.reference_kernel`
            per direction (``()``: exact, no error; None: ``inf``).

    Error estimate: the larger distance of the GDP profile to the raw two-sided
    Edgeworth profiles of orders 1 and 2 (Zheng et al. (2020), Lemma 5.1), at
    least :func:`_cramer_gap`, ``inf`` where the cumulant series diverges; for
    epsilon divided by the (log-)slope of the profile. The trade-off carries no
    estimate (0 for an exact Gaussian composition).
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

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.DELTA:
            value = self._delta(points)
            return Answer(value, self._delta_gap(points, value))
        if query is Query.EPSILON:
            return self._epsilon_answer(points)
        exact = self.reference == () and self.delta0 == 0.0
        beta = self._tradeoff(points)
        return Answer(beta, np.zeros(beta.shape) if exact else None)

    def _tradeoff(self, a: FloatArray) -> FloatArray:
        if self.delta0 == 0.0:
            return np.asarray(gaussian_tradeoff(self.mu, a), dtype=np.float64)
        keep = 1.0 - self.delta0
        inside = a <= keep
        scaled = np.minimum(np.where(inside, a, 0.0) / keep, 1.0)
        return np.where(inside, keep * gaussian_tradeoff(self.mu, scaled), 0.0)

    def _delta(self, e: FloatArray) -> FloatArray:
        base = np.asarray(gaussian_privacy_profile(self.mu, e), dtype=np.float64)
        if self.delta0 == 0.0:
            return base
        return self.delta0 + (1.0 - self.delta0) * base

    def _epsilon(self, d: FloatArray) -> FloatArray:
        r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le d`:
        the root of :math:`\delta_{G_\mu}(\varepsilon) = (d - \delta_0)/(1 -
        \delta_0)` (bracketed Newton in log space).

        Raises:
            ValueError: some ``delta <= delta0`` (no finite epsilon exists).
        """
        if self.delta0 == 0.0:
            return gaussian_epsilon(self.mu, d)
        if np.any(d <= self.delta0):
            raise ValueError(
                f"delta must exceed delta0 = {self.delta0:.6g} (the delta part of "
                "the composition): CLT's curve G_mu x f_(0, delta0) has no finite "
                f"epsilon below it. Found {float(np.min(d)):g}. "
                "accountants.Numerical gives the certified curve."
            )
        t = (d - self.delta0) / (1.0 - self.delta0)
        return gaussian_epsilon(self.mu, t)

    def _epsilon_answer(self, delta: FloatArray) -> Answer:
        """``epsilon(delta)`` and the estimate of its absolute error (see the
        class)."""
        eps = self._epsilon(delta)
        gap = self._edgeworth_gap(eps, self._delta(eps))
        log_ratio = np.zeros(eps.shape)
        for law in self.cramer:
            log_ratio = np.maximum(log_ratio, _cramer_log_ratio(law, eps))
            log_ratio = np.where(_diverges(law, eps), np.inf, log_ratio)
        if self.mu == 0.0:
            return Answer(eps, np.where(np.maximum(gap, log_ratio) > 0.0, np.inf, 0.0))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_slope = eps + special.log_ndtr(-eps / self.mu - self.mu / 2)
            slope = (1.0 - self.delta0) * np.exp(log_slope)
            linear = np.where(gap > 0.0, gap / slope, 0.0)
            # A log-ratio of the tails: its eps shift is it over the log-slope.
            large = np.where(log_ratio > 0.0, log_ratio * delta / slope, 0.0)
        linear = np.where(np.isnan(linear), np.inf, linear)
        large = np.where(np.isnan(large), np.inf, large)
        return Answer(eps, np.maximum(linear, large))

    def _delta_gap(self, e: FloatArray, value: FloatArray) -> FloatArray:
        """The delta estimate: the Edgeworth gap or the large-deviation term."""
        cramer = np.zeros(e.shape)
        for law in self.cramer:
            cramer = np.maximum(cramer, _cramer_gap(law, e))
            cramer = np.where(_diverges(law, e), np.inf, cramer)
        return np.maximum(self._edgeworth_gap(e, value), cramer)

    def _edgeworth_gap(self, e: FloatArray, value: FloatArray) -> FloatArray:
        """Distance to the order-1/2 Edgeworth profiles (``inf`` where unknown)."""
        if self.reference is None or self.delta0 > 0.0:
            return np.full(e.shape, np.inf)
        if not self.reference:
            return np.zeros(e.shape)
        # The raw orders 1 and 2, maximised over the references elementwise.
        top1: FloatArray | None = None
        top2: FloatArray | None = None
        for kernel in self.reference:
            sf, _, gaps = kernel.survival_and_gaps(e, densities=False)
            first = (sf[0] - sf[1]) + gaps[0]
            second = first + gaps[1]
            top1 = first if top1 is None else np.maximum(top1, first)
            top2 = second if top2 is None else np.maximum(top2, second)
        # self.reference is not empty: top1 and top2 are arrays.
        top1, top2 = cast(FloatArray, top1), cast(FloatArray, top2)
        gap = np.maximum(np.abs(top1 - value), np.abs(top2 - value))
        gap[np.isnan(gap)] = np.inf  # inf - inf far in the tails
        return gap


def _cramer_log_ratio(law: FloatArray, e: FloatArray) -> FloatArray:
    r"""``max |lambda_3 x^3 / 6|`` over the two tails at ``e`` (``x >= 0``):
    :math:`\log` (true tail / normal tail) by Cramér's theorem."""
    m_q, s_q, l_q, m_p, s_p, l_p = (float(v) for v in law[:6])
    x_q = np.maximum((np.asarray(e) - m_q) / s_q, 0.0)
    x_p = np.maximum((np.asarray(e) - m_p) / s_p, 0.0)
    return cast(
        FloatArray, np.maximum(np.abs(l_q) * x_q**3, np.abs(l_p) * x_p**3) / 6.0
    )


def _diverges(law: FloatArray, e: FloatArray) -> NDArray[np.bool_]:
    """Where the Q-law's cumulant series diverges at ``e``
    (:func:`~symfdp.numeric.edgeworth.series_diverges`)."""
    return series_diverges(law[6:], (np.asarray(e) - law[0]) / law[1])


def _cramer_gap(law: FloatArray, e: FloatArray) -> FloatArray:
    r"""The large-deviation size of the normal tails' error at ``e``: the
    change of :math:`\Phi(-x_Q) - e^\varepsilon\Phi(-x_P)` when each tail takes
    its Cramér factor :math:`e^{\lambda_3 x^3/6}` (Cramér; Petrov 1975, Ch. VIII,
    Thm 2, for :math:`0 \le x = o(\sqrt n)`), i.e. :math:`|r_Q\Phi(-x_Q) -
    e^\varepsilon r_P\Phi(-x_P)|` with :math:`r = e^{\lambda_3 x^3/6} - 1`. The
    two tails belong to one loss law under Q and under P (:math:`dP = e^{-L}dQ`)
    and move together, so their corrections cancel in the difference as the
    tails themselves do in delta; ``law`` is :math:`(m_Q, s_Q, \lambda_3^Q,
    m_P, s_P, \lambda_3^P)` of one direction."""
    m_q, s_q, l_q, m_p, s_p, l_p = (float(v) for v in law[:6])
    x_q = np.maximum((e - m_q) / s_q, 0.0)
    x_p = np.maximum((e - m_p) / s_p, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # Exponents capped at 700 (an unbounded relative error).
        r_q = np.expm1(np.minimum(l_q * x_q**3 / 6.0, 700.0))
        r_p = np.expm1(np.minimum(l_p * x_p**3 / 6.0, 700.0))
        term_q = r_q * special.ndtr(-(e - m_q) / s_q)
        log_p = e + special.log_ndtr(-(e - m_p) / s_p)
        term_p = r_p * np.exp(np.minimum(log_p, 700.0))
        out = np.abs(term_q - term_p)
    return np.where(np.isnan(out), np.inf, out)


def _references(components: Components) -> tuple[TailKernel, ...] | None:
    """The error-estimate references per direction (``()``: all Gaussian, exact;
    None: a direction without variance)."""
    if all(m.gaussian_mu() is not None for m, _ in components):
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
    lambda_6^Q)`` of the composed loss (``()`` for Gaussian compositions)."""
    if all(m.gaussian_mu() is not None for m, _ in components):
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
    r"""Zheng et al. (2020), eq. (3.4): :math:`(K^Q_1 - K^P_1)/\sqrt{K^P_2}` (a
    direction with variance: :class:`~symfdp.accountants.gdp.base.GDPAccountant`
    answers :math:`\mathrm{Id}` for a composition without)."""
    k_p = summed_cumulants(direction, 2, "P")
    k_q = summed_cumulants(direction, 1, "Q")
    return max(float(k_q[0] - k_p[0]), 0.0) / math.sqrt(float(k_p[1]))


def _component_mu2(mechanism: Mechanism, n: int, form: str) -> float:
    """``n * mu_i^2`` of one component in the per-component forms."""
    mu = mechanism.gaussian_mu()
    if mu is not None:
        return n * mu**2
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


def _clt_pair(
    mu: float,
    delta0: float,
    form: str,
    per_direction: tuple[float, ...],
    reference: tuple[TailKernel, ...] | None,
    cramer: tuple[FloatArray, ...],
) -> CLTPairCurve:
    """The CLT pair with its summary (``mu``, ``form``, ``mu_directions``,
    ``delta0``) as ``info``."""
    info = {"mu": mu, "form": form, "mu_directions": per_direction, "delta0": delta0}
    return CLTPairCurve(mu, delta0, info, reference, cramer)


class CLT(GDPAccountant):
    r"""The Gaussian-DP (CLT) approximation :math:`G_\mu` of a composition.

    Args:
        form: How :math:`\mu` is computed: ``"moments"`` (default, any
            mechanism), ``"exp"`` or ``"chi2"`` (subsampled Gaussian), ``"dp"``
            (pure DP); formulas in the module docstring.
        warn_rel_error: Estimated relative error above which a query warns.

    ``curve.info`` holds ``mu``, ``form`` and ``delta0``.

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = CLT().compose(M.Gaussian(mu=0.5), n=4)
        >>> round(curve.info["mu"], 12)
        1.0
    """

    method = "CLT"
    identity_summary = MappingProxyType({"mu": 0.0, "delta0": 0.0})
    cumulant_order = 4  # the error estimate's reference

    def __init__(
        self,
        form: str = "moments",
        *,
        warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR,
    ) -> None:
        super().__init__(warn_rel_error=warn_rel_error)
        self.form = check_choice("form", form, FORMS)

    def compose_eps_delta(
        self, eps_delta: Sequence[tuple[float, float, int]]
    ) -> PrivacyCurve:
        r"""The ``"dp"`` form (Dong et al. 2019, Thm ``DPCLTrep``, eq. (12)) for
        ``(eps_i, delta_i, n_i)`` triples, ``eps_i >= 0``, ``0 <= delta_i < 1``,
        integer ``n_i >= 1``."""
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
        pair = _clt_pair(math.sqrt(mu2), delta0, "dp", (math.sqrt(mu2),), None, ())
        info = {"n": sum(int(t[2]) for t in triples), **pair.info}
        return self._privacy_curve(Composed((pair,), True), info)

    def compose_pair(self, components: Components) -> PairCurve:
        r""":math:`G_\mu` of the whole composition: the largest :math:`\mu_n`
        over the directions (``"moments"`` form) or the per-component sum."""
        if self.form == "moments":
            per_direction = tuple(_mu_moments(c) for c in pair_compositions(components))
            mu = max(per_direction)
        else:
            mu = math.sqrt(sum(_component_mu2(m, k, self.form) for m, k in components))
            per_direction = (mu,)
        return _clt_pair(
            mu,
            0.0,
            self.form,
            per_direction,
            _references(components),
            _cramer_laws(components),
        )

    def describe(self, components: Components) -> dict[str, Any]:
        return {**super().describe(components), "form": self.form}

    def __repr__(self) -> str:
        return f"CLT(form={self.form!r})"
