r"""The Edgeworth prediction of the GDP fit: the tightest :math:`\mu` and the
regret of reporting a :math:`\mu`, from three cumulants per direction and no FFT.

From the local GDP parameter :math:`\mu_k(z) = \mu_0 + \mu_1` of each
direction's composed pair to order :math:`n^{-1/2}`
(:func:`symfdp.symbolic.gdp_fit.local_mu_terms`; :math:`z = \Phi^{-1}(1 -
\alpha)`), the symmetrised curve has local parameter :math:`\bar\mu(z) = \max_k
\max\{\mu_k(z), \mu_k^{-1}(z)\}`, where the inverse curve's is :math:`\mu_k(z_b)`
at :math:`z_b = \mu_k(z_b) - z` (the mirrored point). Then

* the tightest :math:`\mu` on :math:`\alpha, \beta \ge \tau`: :math:`\max_z
  \bar\mu(z)` over :math:`0 \le z \le \Phi^{-1}(1 - \tau)`;
* the regret of reporting :math:`\mu_r \ge \bar\mu`, linearised in
  :math:`\mu_r - \bar\mu` (the diagonal shift that takes
  :math:`\Phi(z - \bar\mu(z))` to :math:`G_{\mu_r}`):

  .. math::  \Delta \approx \max_z\ (\mu_r - \bar\mu(z))\,
             \frac{\phi(z)\,\phi(z - \mu_r)}{\phi(z) + \phi(z - \mu_r)}.

Accuracy: an asymptotic prediction, first order in :math:`\lambda_3 =
O(n^{-1/2})`; its relative error shrinks like :math:`n^{-1/2}` and grows in
the far tails, where the quadratic :math:`\mu_1(z)` is largest (the test suite
states the tolerances it checks on DP-SGD settings).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from scipy import special

from symfdp._validation import check_real
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants.base import (
    apply_adjacency,
    normalize_composition,
    pair_compositions,
)
from symfdp.curve import FloatArray
from symfdp.mechanisms.base import Mechanism
from symfdp.numeric.compile import Evaluator, compile_expr
from symfdp.risk.gdp import TAIL
from symfdp.risk.sampled import GRID_TAIL

#: Points of the z grid on which the maxima are taken.
Z_POINTS: Final = 4001


@functools.cache
def _local_mu() -> Evaluator:
    """The compiled :math:`\\mu_0 + \\mu_1` (derived once, cached on disk)."""
    from symfdp.symbolic import gdp_fit, symbols

    mu0, mu1 = gdp_fit.local_mu_terms()
    args = (symbols.z, gdp_fit.theta, gdp_fit.rho, gdp_fit.lambda3_P, gdp_fit.lambda3_Q)
    return compile_expr(mu0 + mu1, args, label="gdp_local_mu")


@dataclass(frozen=True, slots=True)
class StandardisedPair:
    """One direction's composed loss, standardised (module docstring)."""

    theta: float
    rho: float
    lambda3_p: float
    lambda3_q: float

    def local_mu(self, z: FloatArray) -> FloatArray:
        """:math:`\\mu(z)` of this direction's curve, to order :math:`n^{-1/2}`."""
        out = _local_mu()(
            z=z, theta=self.theta, rho=self.rho,
            lambda3_P=self.lambda3_p, lambda3_Q=self.lambda3_q,
        )  # fmt: skip
        return np.asarray(np.broadcast_to(out, z.shape), np.float64)

    def inverse_local_mu(self, z: FloatArray) -> FloatArray:
        """:math:`\\mu` of the inverse curve at ``z``: of this curve at the
        mirrored point :math:`z_b = \\mu(z_b) - z` (three fixed-point steps
        from :math:`\\theta - z`; the map contracts by :math:`O(\\lambda_3)`)."""
        zb = self.theta - z
        for _ in range(3):
            zb = self.local_mu(zb) - z
        return self.local_mu(zb)


def directions(
    mechanism: Mechanism | Sequence[tuple[Mechanism, int]],
    n: int | None = None,
    *,
    adjacency: str | None = None,
) -> tuple[StandardisedPair, ...]:
    """Each direction's standardised cumulants, summed over the composition."""
    components = normalize_composition(apply_adjacency(mechanism, adjacency), n)
    out = []
    for pairs in pair_compositions(components):
        kp = summed_cumulants(pairs, 3, "P")
        kq = summed_cumulants(pairs, 3, "Q")
        out.append(
            StandardisedPair(
                theta=float((kq[0] - kp[0]) / np.sqrt(kq[1])),
                rho=float(np.sqrt(kp[1] / kq[1])),
                lambda3_p=float(kp[2] / kp[1] ** 1.5),
                lambda3_q=float(kq[2] / kq[1] ** 1.5),
            )
        )
    return tuple(out)


def symmetrised_local_mu(ways: Sequence[StandardisedPair], z: FloatArray) -> FloatArray:
    """:math:`\\bar\\mu(z)`: the largest local :math:`\\mu` of every direction
    and its inverse."""
    rows = [d.local_mu(z) for d in ways] + [d.inverse_local_mu(z) for d in ways]
    return np.asarray(np.max(rows, axis=0), np.float64)


@dataclass(frozen=True, slots=True)
class EdgeworthGdpFit:
    """The predicted GDP fit.

    Attributes:
        mu: The predicted tightest :math:`\\mu` on :math:`\\alpha, \\beta \\ge`
            ``tail``.
        reported_mu: The :math:`\\mu` the regret refers to.
        regret: The predicted :math:`\\Delta(f \\| G_{reported})`.
        tail: The smallest error rate looked at.
    """

    mu: float
    reported_mu: float
    regret: float
    tail: float


def predict_gdp_fit(
    mechanism: Mechanism | Sequence[tuple[Mechanism, int]],
    n: int | None = None,
    *,
    adjacency: str | None = None,
    tail: float = TAIL,
    reported_mu: float | None = None,
) -> EdgeworthGdpFit:
    r"""Predict the GDP fit of a composition from its cumulants (module
    docstring): no trade-off curve is computed.

    Args:
        mechanism, n, adjacency: As in ``Accountant.compose``.
        tail: As in :func:`symfdp.risk.gdp_mu`.
        reported_mu: The :math:`\mu` whose regret is predicted (default: the
            predicted tightest :math:`\mu`).

    Raises:
        ValueError: ``tail`` outside [1e-15, 0.5) or ``reported_mu`` not
            positive; what composing the mechanism raises.
    """
    tail = check_real("tail", tail, GRID_TAIL, 0.5, hi_open=True)
    ways = directions(mechanism, n, adjacency=adjacency)
    top = float(-special.ndtri(tail))
    half = np.linspace(0.0, top, Z_POINTS)
    mu = float(np.max(symmetrised_local_mu(ways, half)))
    reported = (
        mu if reported_mu is None
        else check_real("reported_mu", reported_mu, 0.0, np.inf, lo_open=True)
    )  # fmt: skip
    z = np.linspace(-top, top + reported, 2 * Z_POINTS)
    gap = np.maximum(reported - symmetrised_local_mu(ways, z), 0.0)
    pdf, shifted = _phi(z), _phi(z - reported)
    weight = pdf * shifted / (pdf + shifted)
    return EdgeworthGdpFit(mu, reported, float(np.max(gap * weight)), tail)


def _phi(z: FloatArray) -> FloatArray:
    out: FloatArray = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    return out
