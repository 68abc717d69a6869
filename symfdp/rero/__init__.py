r"""Reconstruction robustness (ReRo) from hypothesis-testing DP.

Kaissis, Hayes, Ziller and Rueckert (2023), "Bounding data reconstruction
attacks with the hypothesis testing interpretation of DP". A mechanism is
:math:`(\eta, \gamma)`-ReRo for a prior :math:`\kappa = \kappa(\eta)` (the
adversary's chance of success without observing the output, e.g. :math:`1/n`
or :math:`1/10`) when a reconstruction succeeds with probability at most
:math:`\gamma`. By their Theorem 1, :math:`\gamma` is the supremum power of the
Neyman–Pearson test of the *add one* pair at level :math:`\kappa`:

.. math::  \gamma = 1 - f(\kappa), \qquad f = T(M(D), M(D \cup \{z\})),

and :math:`(\varepsilon, \delta)`-DP gives :math:`\gamma \le
\min\{e^\varepsilon\kappa + \delta, 1\}`.

Modules (one job each):

* :mod:`~symfdp.rero.bounds` -- :func:`gamma` from any
  :class:`~symfdp.curve.PrivacyCurve`, :class:`~symfdp.tradeoff.TradeOff` or
  callable; certified :func:`gamma_bounds`; :func:`gamma_from_eps_delta`;
  :func:`add_pair_curve` (compose the add-one pair with any accountant, Cor. 3);
* :mod:`~symfdp.rero.closed_forms` -- Laplace (Cor. 1) and Gaussian (Cor. 2,
  homogeneous and heterogeneous composition);
* :mod:`~symfdp.rero.monte_carlo` -- the Monte Carlo estimator of Hayes et al.
  (Algorithm 1 as Remark 1 describes it), streaming, seeded, with confidence
  intervals;
* :mod:`~symfdp.rero.calibration` -- the noise that reaches a target
  :math:`\gamma` at :math:`\kappa`.

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
    "gamma_from_eps_delta",
    "gamma_gaussian",
    "gamma_gaussian_composed",
    "gamma_laplace",
    "monte_carlo_gamma",
    "sigma_for_gamma",
]
