r"""The last-iterate heuristic pair of DP-SGD (Steinke et al. 2024, arXiv 2410.06186).

For a linear loss, the last iterate of :math:`T` steps of DP-SGD with Poisson
sampling probability :math:`q` and noise multiplier :math:`\sigma` reveals
the sum of the per-step contributions: the record adds :math:`K \sim
\mathrm{Binomial}(T, q)` clipped gradients to :math:`N(0, \sigma^2 T)`
noise. The heuristic's pair (their Sec. 3) is

.. math::  P = \mathrm{Binomial}(T, q) + N(0, \sigma^2 T), \qquad
           Q = N(0, \sigma^2 T),

and the heuristic :math:`\delta(\varepsilon) = \max\{H_{e^\varepsilon}(P\|Q),
H_{e^\varepsilon}(Q\|P)\}`: both directions, which add-or-remove adjacency
covers. Its exact privacy loss is a :math:`(T+1)`-component Gaussian mixture,

.. math::  L(x) = \log \sum_{k=0}^{T} \binom{T}{k} q^k (1-q)^{T-k}\,
           e^{(k x - k^2/2)/(\sigma^2 T)},

:func:`~symfdp.mechanisms.mixture_of_gaussians` with sensitivities
:math:`0..T` and standard deviation :math:`\sigma\sqrt T` (binomial weights
below :math:`e^{-745}`, which are 0 in floating point, are left out). It is a
heuristic, not a privacy guarantee for non-linear models (the paper's
counterexamples, Sec. 5)."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from symfdp._validation import check_choice, check_int, check_real
from symfdp.mechanisms.adjacency import ADJACENCIES, with_adjacency
from symfdp.mechanisms.base import Mechanism
from symfdp.mechanisms.mixture_of_gaussians import mixture_of_gaussians


def binomial_log_pmf(steps: int, q: float) -> np.ndarray:
    r""":math:`\log \binom{T}{k} q^k (1-q)^{T-k}` for :math:`k = 0..T`."""
    k = np.arange(steps + 1, dtype=np.float64)
    return np.asarray(
        special.gammaln(steps + 1.0)
        - special.gammaln(k + 1.0)
        - special.gammaln(steps - k + 1.0)
        + special.xlogy(k, q)
        + special.xlog1py(steps - k, -q),
        dtype=np.float64,
    )


def last_iterate(
    steps: int, q: float, sigma: float, adjacency: str = "add_or_remove"
) -> Mechanism:
    r"""The last-iterate heuristic pair (module docstring).

    Args:
        steps: ``T >= 1``, the number of DP-SGD steps.
        q: Poisson sampling probability, ``0 < q <= 1``.
        sigma: Noise multiplier, ``sigma > 0``.
        adjacency: One of :data:`~symfdp.mechanisms.ADJACENCIES`;
            ``"add_or_remove"`` (default) is the paper's maximum over both
            directions; ``"add"`` is :math:`(Q, P)`, ``"remove"`` :math:`(P, Q)`.

    Returns:
        A mechanism to compose once (``n = 1``: the whole run).
    """
    t = check_int("steps", steps, lo=1)
    qq = check_real("q", q, 0.0, 1.0, lo_open=True)
    s = check_real("sigma", sigma, 0.0, lo_open=True)
    rel = check_choice("adjacency", adjacency, ADJACENCIES)
    log_pmf = binomial_log_pmf(t, qq)
    keep = log_pmf > -745.0
    probs = np.exp(log_pmf[keep])
    pair = mixture_of_gaussians(
        s * math.sqrt(t),
        np.flatnonzero(keep).astype(np.float64).tolist(),
        (probs / probs.sum()).tolist(),
        name=f"LastIterate(steps={t}, q={qq!r}, sigma={s!r})",
    )
    if pair is None:  # q > 0: K > 0 has positive mass, so this cannot happen
        raise ValueError("the last-iterate pair is the identity.")
    return with_adjacency(pair, rel)
