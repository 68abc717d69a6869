"""The README's calibration example and the composition its search starts at.

``symfdp calibrate --target-eps 3 --delta 1e-5 --sample-rate 0.004 --steps
60000`` searches sigma from 0.1, and ``symfdp account --sigma 0.1
--sample-rate 0.004 --steps 60000 --delta 1e-5`` raised IndexError in the FFT
composition: the dominated measure of each add-pair component dropped a quarter
step of its Q-mass (its lattice origin was located too coarsely for a law whose
mass sits within 1e-8 of its lower end), so 6e4 of them kept none, every
frequency was flushed, and the direct sums at the hot frequencies had nowhere
to go. Both now answer, with narrow certified brackets.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import calibrate
from symfdp import mechanisms as M
from symfdp._warnings import ApproximationWarning

P, N, DELTA = 0.004, 60_000, 1e-5


def test_account_sigma_0_1_answers_with_a_narrow_bracket() -> None:
    """eps(1e-5) of the README's first calibration step: a bracket within the
    default tolerance (1e-3 relative), without a warning, consistent with
    RDP's certified upper bound and with dp-accounting's PLD (its pessimistic
    connect-the-dots eps is an upper bound, its optimistic privacy-buckets eps
    a lower estimate); neither direction's dominated composition drops mass
    (the add direction lost all of it before)."""
    m = M.SubsampledGaussian(sigma=0.1, p=P)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        curve = A.Numerical().compose(m, N)
        eps = float(curve.epsilon(DELTA))
        lo, hi = (float(x) for x in curve.epsilon_bounds(DELTA))
    assert np.isfinite(hi) and lo <= eps <= hi
    assert hi - lo <= 1e-3 * lo
    assert all(pair["dropped_mass"] < 1e-4 for pair in curve.info["pairs"])
    assert lo <= float(A.RDP().compose(m, N).epsilon(DELTA))
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    peer = {
        pess: pld.from_gaussian_mechanism(
            standard_deviation=0.1,
            sampling_prob=P,
            use_connect_dots=pess,
            value_discretization_interval=0.05,
            pessimistic_estimate=pess,
        )
        .self_compose(N)
        .get_epsilon_for_delta(DELTA)
        for pess in (True, False)
    }
    assert peer[False] <= hi and lo <= peer[True]


def test_calibration_through_sigma_0_1_answers() -> None:
    """Numerical throughout (as after a failed first stage), from sigma = 0.1:
    the answer's certified eps meets the target, and 3 rtol less noise does
    not."""
    rtol = 1e-2
    sigma = calibrate.sigma_for_epsilon(
        3.0,
        DELTA,
        p=P,
        n=N,
        accountant=A.Numerical(),
        sigma_bracket=(0.1, 2.0),
        rtol=rtol,
    )

    def upper(s: float) -> float:
        curve = A.Numerical().compose(M.SubsampledGaussian(sigma=s, p=P), N)
        return calibrate.epsilon_upper(curve, DELTA)

    assert upper(sigma) <= 3.0 < upper(sigma * (1 - 3 * rtol))


# The first stage (Auto) asks CLT for its error estimate at sigma = 0.1, whose
# Edgeworth gap takes inf - inf there (accountants/gdp/clt.py, a separate defect);
# that warning is not what this test is about.
@pytest.mark.filterwarnings("ignore:invalid value encountered in add:RuntimeWarning")
def test_readme_calibrate_command_answers() -> None:
    """The README's command, from Python (two-stage search, rtol 1e-6): a
    sigma whose certified eps(1e-5) is at most 3 and within 2% of the
    saddle-point root."""
    sigma = calibrate.sigma_for_epsilon(3.0, DELTA, p=P, n=N)
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=sigma, p=P), N)
    assert calibrate.epsilon_upper(curve, DELTA) <= 3.0
    with warnings.catch_warnings():
        # The reference's search visits sigma near 0.1, outside the
        # approximation's valid range (it warns there); only its root is used.
        warnings.simplefilter("ignore", ApproximationWarning)
        guess = calibrate.sigma_for_epsilon(
            3.0, DELTA, p=P, n=N, accountant=A.SaddlePoint(), rtol=1e-4
        )
    assert sigma == pytest.approx(guess, rel=2e-2)
