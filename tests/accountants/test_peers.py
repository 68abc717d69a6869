"""Cross-check ``A.Numerical()`` against the public PLD accountants (test extra).

DP-SGD with noise multiplier 1 and Poisson sampling rate 0.01, add/remove
adjacency, eps at delta = 1e-5:

* ``dp_accounting`` (Google): PLD accountant with connect-the-dots pessimistic
  discretisation, configured with ``value_discretization_interval = 1e-4``. Its
  estimate is an upper bound on the true eps (so it cannot be below our certified
  lower end), and its stated resolution is the discretisation interval.
* ``prv_accountant`` (Microsoft): configured with ``eps_error = 0.01``; it states
  that the true eps lies within ``eps_error`` of its estimate and returns that
  interval.
"""

from __future__ import annotations

import functools

import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M

dp_accounting = pytest.importorskip("dp_accounting")
prv_accountant = pytest.importorskip("prv_accountant")

SIGMA, P, DELTA = 1.0, 0.01, 1e-5
#: dp_accounting's value discretisation interval: its stated resolution in eps.
DP_VDI = 1e-4
#: prv_accountant's configured (stated) eps error.
PRV_EPS_ERROR = 0.01
#: The issue's requirement on our bracket.
EPS_REL_WIDTH = 1e-3


@functools.cache
def ours(n: int) -> tuple[float, float, float]:
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=SIGMA, p=P), n=n)
    lo, hi = curve.epsilon_bounds(DELTA)
    return float(lo), float(curve.epsilon(DELTA)), float(hi)


@pytest.mark.parametrize("n", [1000, 10000])
def test_our_bracket_is_narrow(n: int) -> None:
    lo, est, hi = ours(n)
    assert lo <= est <= hi
    assert (hi - lo) / est <= EPS_REL_WIDTH


@pytest.mark.parametrize("n", [1000, 10000])
def test_dp_accounting_agrees(n: int) -> None:
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=DP_VDI)
    event = dp_accounting.PoissonSampledDpEvent(P, dp_accounting.GaussianDpEvent(SIGMA))
    acc.compose(event, n)
    eps_peer = acc.get_epsilon(DELTA)
    lo, _, hi = ours(n)
    # Pessimistic peer: never below the certified lower end; within its
    # resolution of the certified upper end.
    assert lo <= eps_peer <= hi + DP_VDI


@pytest.mark.parametrize("n", [1000, 10000])
def test_prv_accountant_agrees(n: int) -> None:
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import (
        PoissonSubsampledGaussianMechanism,
    )

    prv = PoissonSubsampledGaussianMechanism(
        sampling_probability=P, noise_multiplier=SIGMA
    )
    acc = PRVAccountant(
        prvs=[prv],
        max_self_compositions=[n],
        eps_error=PRV_EPS_ERROR,
        delta_error=1e-10,
    )
    peer_lo, peer_est, peer_hi = acc.compute_epsilon(
        delta=DELTA, num_self_compositions=[n]
    )
    lo, _, hi = ours(n)
    # The peer's estimate lies within its stated error of our certified bracket,
    # and the two certified intervals intersect.
    assert lo - PRV_EPS_ERROR <= peer_est <= hi + PRV_EPS_ERROR
    assert peer_lo <= hi and lo <= peer_hi
