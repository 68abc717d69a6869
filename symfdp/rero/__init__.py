r"""Reconstruction robustness (ReRo) from hypothesis-testing DP.

Kaissis, Hayes, Ziller and Rueckert (2023), "Bounding data reconstruction
attacks with the hypothesis testing interpretation of DP". A mechanism is
:math:`(\eta, \gamma)`-ReRo for a prior :math:`\kappa = \kappa(\eta)` when a
reconstruction succeeds with probability at most :math:`\gamma`; by their
Theorem 1, with the *add one* pair,

.. math::  \gamma = 1 - f(\kappa), \qquad f = T(M(D), M(D \cup \{z\})),

and :math:`(\varepsilon, \delta)`-DP gives :math:`\gamma \le
\min\{e^\varepsilon\kappa + \delta, 1\}`.

Example:
    >>> from symfdp import accountants as A, mechanisms as M, rero
    >>> round(rero.gamma_gaussian(0.1, 1.0), 6)
    0.389144
    >>> curve = rero.add_pair_curve(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000,
    ...                             A.Edgeworth(order=4))
    >>> round(float(rero.gamma(curve, 0.1)), 3)
    0.194
"""

from __future__ import annotations

from symfdp.rero.bounds import (
    add_pair_curve,
    gamma,
    gamma_bounds,
    gamma_error,
    gamma_from_eps_delta,
)
from symfdp.rero.calibration import sigma_for_gamma
from symfdp.rero.closed_forms import (
    gamma_gaussian,
    gamma_gaussian_composed,
    gamma_laplace,
)
from symfdp.rero.monte_carlo import MonteCarloGamma, monte_carlo_gamma

__all__ = [
    "MonteCarloGamma",
    "add_pair_curve",
    "gamma",
    "gamma_bounds",
    "gamma_error",
    "gamma_from_eps_delta",
    "gamma_gaussian",
    "gamma_gaussian_composed",
    "gamma_laplace",
    "monte_carlo_gamma",
    "sigma_for_gamma",
]
