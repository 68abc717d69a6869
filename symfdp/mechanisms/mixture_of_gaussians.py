r"""The mixture-of-Gaussians pair (dp-accounting's ``MixtureOfGaussiansDpEvent``).

With noise :math:`\sigma`, sensitivities :math:`c_i` and probabilities
:math:`p_i` (:math:`\sum_i p_i = 1`), the pair is

.. math::  P = N(0, \sigma^2), \qquad Q = \sum_i p_i\, N(c_i, \sigma^2)

(Choquette-Choo et al. 2023, arXiv 2310.15526, Sec. 3, the MMCC building
block; Poisson subsampling is :math:`c = (0, 1)`, :math:`p = (1 - q, q)`). In
units of :math:`\sigma`, :math:`m_i = c_i/\sigma`,

.. math::  L(x) = \log \sum_i p_i\, e^{m_i x - m_i^2/2}, \qquad x \sim N(0, 1)
           \text{ under } P,

a smooth function (monotone when all :math:`c_i \ge 0`), so the pair is served
by :func:`~symfdp.mechanisms.from_log_likelihood_ratio` (masses about
:math:`10^{-14}` relative, :class:`~symfdp.mechanisms.DensityPair`). The
*add* pair is this one; add-or-remove adjacency also covers the swapped pair
(dp-accounting's ``ADD`` and ``REMOVE`` privacy losses)."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import special

from symfdp._validation import check_real
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.user_defined import from_log_likelihood_ratio

#: Tolerance on the sum of the probabilities.
PROB_TOL = 1e-9


def _mixture_llr(log_p: tuple[float, ...], m: tuple[float, ...], x: Any) -> FloatArray:
    r""":math:`\log\sum_i p_i e^{m_i x - m_i^2/2}` (log-sum-exp over ``i``)."""
    xs = np.asarray(x, dtype=np.float64)
    mm = np.asarray(m).reshape((-1,) + (1,) * xs.ndim)
    lp = np.asarray(log_p).reshape(mm.shape)
    return np.asarray(
        special.logsumexp(lp + mm * xs[None] - mm * mm / 2, axis=0), dtype=np.float64
    )


def _log_std_normal(x: Any) -> FloatArray:
    xs = np.asarray(x, dtype=np.float64)
    return np.asarray(-xs * xs / 2 - 0.5 * math.log(2 * math.pi), dtype=np.float64)


def mixture_of_gaussians(
    sigma: float,
    sensitivities: Sequence[float],
    probs: Sequence[float],
    *,
    name: str | None = None,
) -> Mechanism | None:
    r"""The add pair :math:`N(0,\sigma^2)` vs :math:`\sum_i p_i N(c_i,\sigma^2)`.

    Args:
        sigma: Noise standard deviation, ``sigma > 0``.
        sensitivities: The :math:`c_i`, finite reals.
        probs: The :math:`p_i \ge 0`, summing to 1 (within :data:`PROB_TOL`).
        name: Label of the pair (default: its parameters).

    Returns:
        The pair (a :class:`~symfdp.mechanisms.Gaussian` when one sensitivity
        carries all the mass), or None when every :math:`c_i` with
        :math:`p_i > 0` is 0 (no privacy cost).

    Raises:
        ValueError: a parameter outside its range, or lengths that differ.
    """
    s = check_real("sigma", sigma, 0.0, lo_open=True)
    c = np.asarray(sensitivities, dtype=np.float64).reshape(-1)
    p = np.asarray(probs, dtype=np.float64).reshape(-1)
    if c.size != p.size or c.size == 0:
        raise ValueError(
            "sensitivities and probs must be non-empty and of equal length. "
            f"Found {c.size} and {p.size}."
        )
    if not np.all(np.isfinite(c)):
        raise ValueError(f"sensitivities must be finite. Found {c.tolist()!r}.")
    if not (np.all(np.isfinite(p)) and np.all(p >= 0.0)):
        raise ValueError(f"probs must lie in [0, 1]. Found {p.tolist()!r}.")
    if abs(math.fsum(p.tolist()) - 1.0) > PROB_TOL:
        raise ValueError(f"probs must sum to 1. Found sum {math.fsum(p.tolist())!r}.")
    keep = p > 0.0
    c, p = c[keep] / s, p[keep] / math.fsum(p[keep].tolist())
    if np.all(c == 0.0):
        return None
    if c.size == 1:
        return Gaussian(mu=abs(float(c[0])))
    args = (tuple(np.log(p).tolist()), tuple(c.tolist()))
    label = name or (
        f"MixtureOfGaussians(shifts/sigma={c.tolist()!r}, probs={p.tolist()!r})"
    )
    return from_log_likelihood_ratio(
        functools.partial(_mixture_llr, *args),
        _log_std_normal,
        log_density=True,
        name=label,
    )
