"""``A.SaddlePoint`` warns outside its valid range (skewness of the tilted loss).

The regime is checked against Numerical's certified brackets (independent of the
code under test), and the skewness indicator against the closed-form cumulants
of a tilted two-point law.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.base import DEFAULT_WARN_REL_ERROR
from symfdp.accountants.saddlepoint import answers as SPA_ANSWERS
from symfdp.accountants.saddlepoint import formulas as F
from symfdp.curve import Query
from tests._answers import ask

#: K''' comes from a forward difference of K'' with relative step 1e-5.
RTOL_SKEW = 1e-3


def _messages(call):
    """The result of ``call()`` and the messages of every warning it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [str(w.message) for w in caught]


def test_add_pair_with_few_expected_samples_warns_once_per_call():
    # sigma = 1, p = 0.01, n = 100 (one expected sample per run): eps(1e-5) is
    # 0.877 against the certified 0.718.
    m = M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.01), "add")
    curve = A.SaddlePoint().compose(m, n=100)
    _, hi = A.Numerical().compose(m, n=100).epsilon_bounds(1e-5)
    eps, msgs = _messages(lambda: curve.epsilon(np.array([1e-3, 1e-5, 1e-8])))
    assert eps[1] > 1.15 * hi  # the estimate really is far off
    assert len(msgs) == 1  # once per call, not per point
    assert "estimated relative error" in msgs[0] and "Numerical" in msgs[0]
    # The public delta query reports through the error estimate (which folds in
    # the tilted skewness): one warning naming the estimate and Numerical.
    _, msgs = _messages(lambda: curve.delta(np.linspace(0.1, 3.0, 50)))
    assert len(msgs) == 1 and msgs[0].startswith("SaddlePoint(order=2): the estimated")
    assert "accountants.Numerical" in msgs[0]
    # So does the trade-off (its estimate carries the profile's).
    _, msgs = _messages(lambda: curve.tradeoff(np.linspace(0.0, 1.0, 21)))
    assert len(msgs) == 1 and msgs[0].startswith("SaddlePoint(order=2): the estimated")
    assert "of trade-off" in msgs[0]


def test_warning_tracks_the_pair_that_is_off():
    """Add/remove adjacency at n = 100: only the add pair's estimate is off."""
    curve = A.SaddlePoint().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=100)
    add, remove = curve.pairs
    off, fine = (ask(p, Query.EPSILON, [1e-5]) for p in (add, remove))
    assert off.errors[0] > 0.05 * off.values[0]
    assert fine.errors[0] < 0.01 * fine.values[0] and fine.repairs == ()


def test_remove_pair_at_2000_steps_is_silent_and_accurate():
    m = M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.01), "remove")
    curve = A.SaddlePoint().compose(m, n=2000)
    d = np.array([1e-3, 1e-5, 1e-8])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        eps = curve.epsilon(d)
        curve.delta(np.linspace(0.0, 4.0, 21))
        curve.tradeoff(np.linspace(0.0, 1.0, 21))
    lo, hi = A.Numerical().compose(m, n=2000).epsilon_bounds(d)
    # Silent where accurate: within 0.1% of the certified bracket.
    assert np.all((eps >= lo * (1 - 1e-3)) & (eps <= hi * (1 + 1e-3)))


def test_gaussian_is_silent():
    # The tilted Gaussian loss is normal (K''' = 0): delta_hat_2 is exact.
    curve = A.SaddlePoint().compose([(M.Gaussian(mu=0.5), 40), (M.Gaussian(mu=2.0), 1)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        curve.epsilon(np.array([1e-2, 1e-6, 1e-12]))
        curve.delta(np.linspace(0.0, 20.0, 41))
        curve.tradeoff(np.linspace(0.0, 1.0, 21))


def test_skewness_matches_the_tilted_two_point_law():
    """PureDP(a): L = +a or -a with Q-probabilities e^a/(1+e^a), 1/(1+e^a). Tilted
    by e^{tL}, one step has kappa_2 = 4a^2 q(1-q) and kappa_3 = 8a^3 q(1-q)(1-2q)
    with q = P(L = a); n steps give |lambda_3| = |kappa_3|/(sqrt(n) kappa_2^1.5)."""
    a, n = 0.2, 10
    pair = A.SaddlePoint().compose(M.PureDP(eps=a), n=n).pairs[0]
    eps = np.linspace(0.1, 1.6, 7)
    vals, capped, _ = pair._saddles.solve(eps, "upper", k3=True)
    assert not capped.any()
    t = vals.t
    log_up, log_down = (
        a - math.log1p(math.exp(a)) + t * a,
        -math.log1p(math.exp(a)) - t * a,
    )
    q = 1.0 / (1.0 + np.exp(log_down - log_up))
    k2 = 4 * a**2 * q * (1 - q)
    k3 = 8 * a**3 * q * (1 - q) * (1 - 2 * q)
    want = np.abs(k3) / (math.sqrt(n) * k2**1.5)
    np.testing.assert_allclose(F.skewness(vals), want, rtol=RTOL_SKEW)


def test_threshold_is_documented_value():
    """At the threshold the estimates' validity floor 0.05 lambda_3^4 is 5% of
    delta, the default warn_rel_error."""
    assert F.SKEWNESS_MAX == 1.0
    assert SPA_ANSWERS.SKEW_ERROR_COEF * F.SKEWNESS_MAX**4 == DEFAULT_WARN_REL_ERROR
