r"""Shuffling: a certified *lower* bound on the privacy loss of a run.

An epoch shuffles the :math:`N = bT` records and cuts them into :math:`T`
batches of :math:`b`; each epoch reshuffles. No tight upper bound is known.
A lower bound needs one pair of neighbouring datasets and one post-processing
of the outputs; the privacy profile of the processed pair, composed over the
epochs (independent shuffles), is at most the run's.

**Gaussian noise** (Chua et al., ICML 2024, arXiv 2403.17673, Sec. 4; the
multi-epoch form of Chua et al., NeurIPS 2024, arXiv 2411.04205, Sec. 3).
Records :math:`x_i = -1` for :math:`i < N`, and :math:`x_N = 1` against
:math:`x_N = 0`: neighbours that zero one record out (dp-accounting's
``REPLACE_SPECIAL``), the relation a fixed batch size allows and one under
which Poisson sampling's add-or-remove numbers also hold, so the two compare.
Centred, the batch sums of an epoch are, in units of the noise :math:`\sigma`
(effect size :math:`\mu = 1/\sigma`),

.. math::  P = \tfrac1T\textstyle\sum_t N(\mu e_t, I_T), \qquad
           Q = \tfrac1T\textstyle\sum_t N(2\mu e_t, I_T),

and the adversary keeps :math:`M = \max_t y_t`, whose CDFs are
:math:`F_m(c) = \Phi(c - m\mu)\,\Phi(c)^{T-1}` (:math:`m = 1` under P,
:math:`2` under Q). Its loss :math:`\log f_2(c)/f_1(c)` increases in
:math:`c`, so the profile of one epoch is Chua et al.'s cube bound
:math:`\sup_C\,[1 - F_2(C)] - e^\varepsilon[1 - F_1(C)]`. The pair of
:math:`M` is composed over the epochs by the certified engine; the lower end of
its bracket is the certified lower bound.

**Any other mechanism**: the records other than the one that differs add
nothing, so an epoch shows :math:`P^{\otimes T}` against
:math:`\frac1T\sum_t P^{\otimes t-1}\otimes Q\otimes P^{\otimes T-t}` --
exactly the random-allocation pair of one of :math:`T` steps (Feldman &
Shenfeld 2025, arXiv 2502.08202); the lower end of its certified bracket
(:func:`~symfdp.samplers.random_allocation.random_allocation`, :math:`k = 1`)
bounds the run from below. For Gaussian noise it is the weaker of the two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from symfdp._validation import check_array, check_int, check_real, scalar_or_array
from symfdp.accountants.numerical import Numerical
from symfdp.mechanisms import from_log_likelihood_ratio
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.samplers.random_allocation import random_allocation

#: Relative tolerance on the cumulants that declares a loss law Gaussian.
_GAUSS_RTOL = 1e-9


def gaussian_effect_size(mechanism: Mechanism) -> float | None:
    r""":math:`\mu` when ``mechanism``'s loss is :math:`N(-\mu^2/2, \mu^2)`
    under P (cumulants 3 and 4 vanish, mean :math:`= -` variance / 2), else
    None."""
    if len(mechanism.pairs) != 1 or float(getattr(mechanism, "blatant_mass", 0.0)):
        return None
    try:
        k = np.asarray(mechanism.cumulants(4, "P"), dtype=np.float64)
    except (ValueError, NotImplementedError, TypeError):
        return None
    var = float(k[1])
    if not var > 0.0:
        return None
    tol = _GAUSS_RTOL * max(var, 1.0)
    if abs(k[0] + var / 2) > tol or abs(k[2]) > tol or abs(k[3]) > tol:
        return None
    return math.sqrt(var)


def _log_max_density(c: FloatArray, shift: float, steps: int) -> FloatArray:
    r""":math:`\log f_m(c)`, :math:`f_m = F_m'`, :math:`F_m(c) =
    \Phi(c - s)\Phi(c)^{T-1}` (``shift`` :math:`s = m\mu`):
    :math:`(T-2)\log\Phi(c) + \log[\varphi(c-s)\Phi(c) + (T-1)\Phi(c-s)\varphi(c)]`."""
    log_phi = -0.5 * c**2 - 0.5 * math.log(2 * math.pi)
    log_phi_s = -0.5 * (c - shift) ** 2 - 0.5 * math.log(2 * math.pi)
    log_cdf = special.log_ndtr(c)
    log_cdf_s = special.log_ndtr(c - shift)
    if steps == 1:
        return log_phi_s
    both = np.logaddexp(log_phi_s + log_cdf, math.log(steps - 1) + log_cdf_s + log_phi)
    return np.asarray((steps - 2) * log_cdf + both, dtype=np.float64)


def shuffle_max_pair(mu: float, steps: int) -> Mechanism:
    r"""The pair of :math:`M = \max_t y_t` of one shuffled epoch with Gaussian
    noise (module docstring): P has CDF :math:`\Phi(c-\mu)\Phi(c)^{T-1}`, Q
    :math:`\Phi(c-2\mu)\Phi(c)^{T-1}`.

    Args:
        mu: Effect size :math:`1/\sigma`, > 0.
        steps: Batches per epoch :math:`T \ge 1`.
    """
    mu = check_real("mu", mu, 0.0, math.inf, lo_open=True)
    steps = check_int("steps", steps, lo=1)

    def log_p(c: FloatArray) -> FloatArray:
        return _log_max_density(np.asarray(c, dtype=np.float64), mu, steps)

    def llr(c: FloatArray) -> FloatArray:
        x = np.asarray(c, dtype=np.float64)
        return _log_max_density(x, 2 * mu, steps) - _log_max_density(x, mu, steps)

    return from_log_likelihood_ratio(
        llr, log_p, name=f"shuffle-max(mu={mu:g}, T={steps})", log_density=True
    )


@dataclass(frozen=True)
class ShuffleLowerBound:
    """Certified lower bounds on the privacy of a shuffled run.

    Attributes:
        instance: ``"gaussian-max"`` (Chua et al.'s pair) or
            ``"random-allocation"`` (the generic instance).
        curve: The certified curve of the instance over the epochs (its lower
            ends are the bounds; its upper ends bound nothing about the run).
        info: Parameters.
    """

    instance: str
    curve: Any
    info: dict[str, Any]

    def delta_lower(self, eps: ArrayLike) -> FloatArray:
        """A certified lower bound on the run's delta(eps)."""
        e = check_array("eps", eps)
        return scalar_or_array(np.asarray(self.curve.delta_bounds(e)[0]))

    def epsilon_lower(self, delta: ArrayLike) -> FloatArray:
        """A certified lower bound on the run's eps(delta), delta in (0, 1)."""
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        return scalar_or_array(np.asarray(self.curve.epsilon_bounds(d)[0]))


def shuffle_lower_bound(
    mechanism: Mechanism, *, steps_per_epoch: int, epochs: int
) -> ShuffleLowerBound:
    """The certified lower bound of the module docstring.

    Args:
        mechanism: The mechanism of one step (pair of adding one record).
        steps_per_epoch: Batches per epoch, ``T >= 1``.
        epochs: Number of epochs, ``>= 1``.
    """
    steps_per_epoch = check_int("steps_per_epoch", steps_per_epoch, lo=1)
    epochs = check_int("epochs", epochs, lo=1)
    info = {"steps_per_epoch": steps_per_epoch, "epochs": epochs}
    mu = gaussian_effect_size(mechanism)
    if mu is not None:
        pair = shuffle_max_pair(mu, steps_per_epoch)
        curve = Numerical().compose(pair, epochs, adjacency="add")
        return ShuffleLowerBound("gaussian-max", curve, {**info, "mu": mu})
    ra = random_allocation(mechanism, t=steps_per_epoch, k=1, epochs=epochs)
    return ShuffleLowerBound("random-allocation", ra, info)


__all__ = [
    "ShuffleLowerBound",
    "gaussian_effect_size",
    "shuffle_lower_bound",
    "shuffle_max_pair",
]
