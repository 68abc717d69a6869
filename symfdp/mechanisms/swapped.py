r"""The swapped pair :math:`(Q, P)` of a mechanism :math:`(P, Q)`.

Its PLRV is :math:`L' = \log dP/dQ = -L`, with :math:`L'` under :math:`P' = Q`
distributed as :math:`-L` under Q, so

* :math:`P_{P'}(L' \le l) = P_Q(L \ge -l)`;
* :math:`\kappa_r(L' \mid P') = (-1)^r \kappa_r(L \mid Q)`;
* :math:`K_{P'}(t) = \log E_Q[e^{-tL}] = K_P(1 - t)` and :math:`K_{Q'}(t) = K_P(-t)`;
* :math:`T(Q, P) = T(P, Q)^{-1}` (Dong et al. 2019, Sec. 2.1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import check_array, check_callable, check_choice
from symfdp.mechanisms._complex_mgf import LogMGF, ReflectedLogMGF
from symfdp.mechanisms._panels import Rule
from symfdp.mechanisms.base import FloatArray, Mechanism, Param, PLRVQuadrature, Under


def _other(under: Under) -> Under:
    check_choice("under", under, ("P", "Q"))
    return "Q" if under == "P" else "P"


@dataclass(frozen=True)
class Swapped(Mechanism):
    """The pair ``(Q, P)`` of ``base = (P, Q)``."""

    base: Mechanism

    name: ClassVar[str] = "swapped"
    PARAMS: ClassVar[dict[str, Param]] = {}

    def __post_init__(self) -> None:
        if not isinstance(self.base, Mechanism):
            raise TypeError(
                f"base must be a Mechanism. Found {type(self.base).__name__}."
            )

    @property
    def is_symmetric(self) -> bool:
        return self.base.is_symmetric

    @property
    def continuous_loss(self) -> bool:
        return self.base.continuous_loss

    def swapped(self) -> Mechanism:
        return self.base

    def plrv_pieces(self, cuts: Sequence[float]) -> list[Rule]:
        """``L' = -L`` under ``P' = Q``: the base's pieces at the mirrored cuts,
        values negated, weights ``w e^L``, in reverse order."""
        rules = self.base.plrv_pieces([-c for c in reversed(sorted(cuts))])
        return [(-v, w * np.exp(v)) for v, w in reversed(rules)]

    def complex_log_mgf(self) -> LogMGF | None:
        """:math:`M'(z) = M(-1-z)` of the base's."""
        inner = self.base.complex_log_mgf()
        return None if inner is None else ReflectedLogMGF(inner)

    def gaussian_mu(self) -> float | None:
        r"""The base's: the law of :math:`G_\mu` is its own swap."""
        return self.base.gaussian_mu()

    def finite_loss_law(self) -> tuple[FloatArray, FloatArray] | None:
        """The base law reflected: values ``-l``, P-masses ``p e^l``."""
        law = self.base.finite_loss_law()
        if law is None:
            return None
        l, log_p = law
        return -l[::-1], (log_p + l)[::-1]

    def replace_one(self) -> Mechanism:
        """The base's (replace-one covers both directions)."""
        return self.base.replace_one()

    def loss_lattice(self) -> float | None:
        """``L' = -L``: the base lattice, reflected."""
        return self.base.loss_lattice()

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        return -self.base.log_likelihood_ratio(x)

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        return self.base.pdf(x, _other(under))

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        neg = -check_array("l", l, allow_inf=True)
        return self.base.plrv_sf(neg, _other(under), inclusive=inclusive)

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        neg = -check_array("l", l, allow_inf=True)
        return self.base.plrv_cdf(neg, _other(under), inclusive=inclusive)

    def plrv_quadrature(self) -> PLRVQuadrature:
        rule = self.base.plrv_quadrature()
        # E_{P'}[h(L')] = E_Q[h(-L)] = sum_i w_i e^{l_i} h(-l_i).
        return PLRVQuadrature(-rule.nodes[::-1], (rule.log_weights + rule.nodes)[::-1])

    def plrv_support(self) -> tuple[float, float]:
        lo, hi = self.base.plrv_support()
        return (-hi, -lo)

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        kappa = np.asarray(self.base.cumulants(order, _other(under)), dtype=np.float64)
        signs = (-1.0) ** np.arange(1, kappa.size + 1)
        return signs * kappa

    def cgf(self, t: ArrayLike, under: Under = "P") -> FloatArray:
        return self.cgf_derivatives(t, under)[0]

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        check_choice("under", under, ("P", "Q"))
        # K_{P'}(t) = K_P(1 - t); K_{Q'}(t) = K_{P'}(t + 1) = K_P(-t).
        shift = 1.0 if under == "P" else 0.0
        k, k1, k2 = self.base.cgf_derivatives(shift - check_array("t", t), "P")
        return k, -k1, k2

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        """``L' = -L`` and ``P' = Q``: the law under ``under`` tilted by ``t`` is
        the base law under the other measure tilted by ``-t``, reflected."""
        mean, m3 = self.base.tilted_abs_moment3(-check_array("t", t), _other(under))
        return -np.asarray(mean), m3

    def expect(self, fn: Callable[[FloatArray], ArrayLike], under: Under = "P") -> Any:
        check_callable("fn", fn)
        return self.base.expect(lambda l: fn(-l), _other(under))

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        from symfdp.numeric.tabulate import alpha_grid, tabulated_inverse

        grid = alpha_grid()
        a = check_array("alpha", alpha, 0.0, 1.0)
        return tabulated_inverse(grid, self.base.tradeoff(grid), a)

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        # E_P[(1 - e^{eps + L})_+] = P_P(L < -eps) - e^eps P_Q(L < -eps).
        e = check_array("eps", eps, allow_inf=True)
        a = self.base.plrv_cdf(-e, "P", inclusive=False)
        b = self.base.plrv_cdf(-e, "Q", inclusive=False)
        return np.clip(a - np.exp(e) * b, 0.0, 1.0)

    def __repr__(self) -> str:
        return f"Swapped({self.base!r})"
