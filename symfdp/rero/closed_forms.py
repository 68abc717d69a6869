r"""Closed-form ReRo bounds :math:`\gamma = 1 - f(\kappa)` for the Laplace and
Gaussian mechanisms (Kaissis et al. (2023), Theorem 1, Corollaries 1 and 2),
broadcast over ``kappa`` and the effect size, in tail-stable form (full
relative precision for tiny priors)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from symfdp._validation import check_array, check_int, scalar_or_array


def _kappa(kappa: ArrayLike) -> np.ndarray:
    return check_array("kappa", kappa, 0.0, 1.0, lo_open=True, hi_open=True)


def gamma_laplace(kappa: ArrayLike, mu1: ArrayLike) -> Any:
    r"""ReRo bound of the Laplace mechanism, Kaissis et al. (2023), Cor. 1, eq. (1)
    (= Dong et al. 2019, Lemma A.6), :math:`\mu_1 = \Delta_1 / b`:

    .. math::
        \gamma = \begin{cases} \kappa e^{\mu_1}, & \kappa < e^{-\mu_1}/2,\\
        1 - e^{-\mu_1}/(4\kappa), & e^{-\mu_1}/2 \le \kappa \le 1/2,\\
        1 - (1-\kappa) e^{-\mu_1}, & \kappa > 1/2. \end{cases}

    Args:
        kappa: Prior(s) :math:`\kappa \in (0, 1)`.
        mu1: Effect size(s) :math:`\mu_1 \ge 0`; broadcast with ``kappa``.

    Raises:
        ValueError: ``kappa`` outside (0, 1) or ``mu1`` negative or NaN.
    """
    k = _kappa(kappa)
    m = check_array("mu1", mu1, 0.0, math.inf, allow_inf=False)
    k, m = np.broadcast_arrays(k, m)
    log_k = np.log(k)
    first = log_k < -m - math.log(2.0)
    third = k > 0.5
    # Piece 1: kappa e^{mu} in log space (no overflow for large mu).
    g1 = np.exp(np.minimum(log_k + m, 0.0))
    # Piece 2: 1 - e^{-mu}/(4 kappa) = -expm1(-mu - log(4 kappa)).
    g2 = -np.expm1(-m - math.log(4.0) - log_k)
    # Piece 3: 1 - (1 - kappa) e^{-mu} = -expm1(log1p(-kappa) - mu).
    g3 = -np.expm1(np.log1p(-k) - m)
    out = np.where(first, g1, np.where(third, g3, g2))
    return scalar_or_array(np.clip(out, k, 1.0))


def gamma_gaussian(kappa: ArrayLike, mu2: ArrayLike, n: int = 1) -> Any:
    r"""ReRo bound of the ``n``-fold composed Gaussian mechanism, Kaissis et al.
    (2023), Cor. 2, :math:`\mu_2 = \Delta_2/\sigma`:

    .. math::  \gamma = 1 - f_{Gauss}(\kappa, \sqrt{N}\mu_2)
               = \Phi(\Phi^{-1}(\kappa) + \sqrt{N}\mu_2).

    Args:
        kappa: Prior(s) :math:`\kappa \in (0, 1)`.
        mu2: Effect size(s) of one step, :math:`\mu_2 \ge 0`; broadcast with
            ``kappa``.
        n: Number of compositions :math:`N \ge 1`.

    Raises:
        ValueError: ``kappa`` outside (0, 1), ``mu2`` negative or ``n < 1``.
    """
    k = _kappa(kappa)
    m = check_array("mu2", mu2, 0.0, math.inf)
    n = check_int("n", n, lo=1)
    mu = math.sqrt(n) * m
    return scalar_or_array(special.ndtr(special.ndtri(k) + mu))


def gamma_gaussian_composed(kappa: ArrayLike, mus: ArrayLike) -> Any:
    r"""ReRo bound of a heterogeneous Gaussian composition, Kaissis et al. (2023),
    Cor. 2: :math:`\gamma = 1 - f_{Gauss}(\kappa, \sqrt{\mu_a^2 + \mu_b^2 + \dots})`
    (GDP composition, Dong et al. 2019, Cor. 3.3).

    Args:
        kappa: Prior(s) :math:`\kappa \in (0, 1)`.
        mus: Effect sizes :math:`\mu_a, \mu_b, \dots \ge 0`, a non-empty 1-D sequence.

    Raises:
        ValueError: ``kappa`` outside (0, 1), ``mus`` empty, not 1-D, or with a
            negative entry.
    """
    k = _kappa(kappa)
    m = check_array("mus", mus, 0.0, math.inf)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(
            f"mus must be a non-empty 1-D sequence of effect sizes. Found shape "
            f"{m.shape}."
        )
    # sqrt(sum mu_i^2) without overflow or underflow.
    mu = float(np.hypot.reduce(m))
    return scalar_or_array(special.ndtr(special.ndtri(k) + mu))
