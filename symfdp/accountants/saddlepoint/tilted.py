r"""Higher derivatives :math:`K^{(r)}(t)` of the composed CGF under Q.

:math:`K^{(r)}(t)` is the ``r``-th cumulant of the tilted law
:math:`\propto e^{tl}\,dQ_L(l)`; the composed one is :math:`\sum_i n_i
K_i^{(r)}(t)`. Per component:

* ``Gaussian``: :math:`K_Q(t) = \mu^2 (t+1)t/2`, so :math:`K^{(r)} = 0` for
  :math:`r \ge 3` (closed form);
* ``Swapped`` (:math:`L' = -L`, :math:`Q' = P`): :math:`K_{Q'}(t) = K_P(-t) =
  K_Q(-t-1)`, so :math:`K_{Q'}^{(r)}(t) = (-1)^r K_Q^{(r)}(-1-t)`;
* ``PoissonSubsampled``: add pair, the Q-law tilted by :math:`t` is the P-law
  tilted by :math:`s = t+1`; remove pair, :math:`K_{Q}^{(r)}(t) = (-1)^r
  K_{P,add}^{(r)}(-t)`. Both on the mechanism's rule that follows the tilt
  (``_tilted_base_rule``), mapped by :math:`\ell(l_b) = \log(1 - p + pe^{l_b})`;
* any other mechanism (Laplace, PureDP, ...): its ``plrv_quadrature`` (finite
  atoms for pure DP, atoms plus Gauss–Legendre for Laplace) tilted in log space.

On a discrete rule the cumulants follow from the central moments by
:math:`\kappa_r = \mu_r - \sum_{k=2}^{r-2}\binom{r-1}{k-1}\kappa_k\mu_{r-k}`
(Zheng et al. 2020, App. B, with :math:`\mu_1 = 0`).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from symfdp.accountants.base import Components
from symfdp.mechanisms import _logmix as lm
from symfdp.mechanisms.base import FloatArray, Mechanism, tilted_weight_blocks
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.swapped import Swapped
from symfdp.numeric.moments import cumulants_from_central_rows

#: Entries (tilts x nodes) per block of the vectorised moment pass.
_CHUNK = 2_000_000


def rule_cumulants(
    nodes: FloatArray, log_w: FloatArray, t: FloatArray, order: int
) -> FloatArray:
    r"""Cumulants :math:`\kappa_2..\kappa_{order}` of the discrete law
    :math:`\propto e^{\log w_i + t l_i}` at each ``t``; shape ``(order-1, t.size)``.
    Non-finite nodes (atoms at infinity) are left out."""
    keep = np.isfinite(nodes)
    l, lw = nodes[keep], log_w[keep]
    out = np.zeros((order - 1, t.size))
    for block, w in tilted_weight_blocks(l, lw, t, _CHUNK):
        d = l[None, :] - (w @ l)[:, None]
        central = np.zeros((order + 1, w.shape[0]))
        power = d.copy()
        for r in range(2, order + 1):
            power = power * d
            central[r] = np.einsum("ij,ij->i", w, power)
        out[:, block] = cumulants_from_central_rows(central)
    return out


def component_cumulants(m: Mechanism, t: FloatArray, order: int) -> FloatArray:
    r""":math:`K_Q^{(r)}(t)`, ``r = 2..order``, of one mechanism's loss; shape
    ``(order-1, t.size)``. See the module docstring for the per-mechanism forms."""

    signs = (-1.0) ** np.arange(2, order + 1)[:, None]
    if isinstance(m, Gaussian):
        out = np.zeros((order - 1, t.size))
        out[0] = m.mu**2
        return out
    if isinstance(m, Swapped):
        return signs * component_cumulants(m.base, -1.0 - t, order)
    if isinstance(m, PoissonSubsampled):
        ident = m._identity()
        if ident is not None:
            return component_cumulants(ident, t, order)
        s = t + 1.0 if m.pair == "add" else -t
        nodes, log_w = m._tilted_base_rule(s)
        kappa = rule_cumulants(lm.log_mix(nodes, m.p), log_w, s, order)
        return kappa if m.pair == "add" else signs * kappa
    rule = m.plrv_quadrature()
    nodes = np.asarray(rule.nodes, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        log_w = np.asarray(rule.log_weights, dtype=np.float64) + nodes
    return rule_cumulants(nodes, np.where(np.isnan(log_w), -np.inf, log_w), t, order)


def tilted_cumulants(components: Components, t: Any, order: int) -> FloatArray:
    r""":math:`K^{(r)}(t) = \sum_i n_i K_i^{(r)}(t)`, ``r = 2..order``, of the
    composed loss under Q; shape ``(order-1,) + t.shape``."""
    tt = np.asarray(t, dtype=np.float64)
    flat = tt.reshape(-1)
    total = np.zeros((order - 1, flat.size))
    for m, n in components:
        total += n * component_cumulants(m, flat, order)
    return total.reshape((order - 1, *tt.shape))


def standardised(kappa: FloatArray) -> FloatArray:
    r""":math:`\lambda_r = K^{(r)}/K''^{r/2}` for ``r = 3..``, from
    :func:`tilted_cumulants` output (row 0 = :math:`K''`); shape
    ``(order-2,) + t.shape``."""
    v = kappa[0]
    r = np.arange(3, kappa.shape[0] + 2).reshape((-1,) + (1,) * v.ndim)
    with np.errstate(divide="ignore", invalid="ignore"):
        return cast(FloatArray, kappa[1:] / v[None] ** (r / 2.0))
