"""``symfdp.calibrate.calibrate``: every target, every parameter, the certified
end of the search, unreachable targets and bad input.

Expected values come from closed forms solved here (the Gaussian composition is
``G_{sqrt(n)/sigma}``, Dong et al. 2019, Cor. 3.3, whose profile is Cor. 2.13),
never from the search under test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import optimize, special

from symfdp import accountants as A
from symfdp import calibrate as C
from symfdp.calibration.parameters import LIMITS, Parameter
from symfdp.numeric.roots import WindowStop
from symfdp.runs.methods import SIGMA_RANGE

EXACT = {"accountant": A.Exact(), "mechanism": "gaussian"}


def log_gaussian_delta(mu: float, eps: float) -> float:
    """log(Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)) (Dong et al. 2019,
    Cor. 2.13), in log space."""
    a = special.log_ndtr(-eps / mu + mu / 2)
    b = eps + special.log_ndtr(-eps / mu - mu / 2)
    return float(a + np.log(-np.expm1(min(b - a, -1e-300))))


def gaussian_mu(eps: float, delta: float) -> float:
    """The mu whose G_mu has delta(eps) = delta, to 1e-14 (brentq in log mu)."""
    root = optimize.brentq(
        lambda t: log_gaussian_delta(math.exp(t), eps) - math.log(delta),
        math.log(1e-8),
        math.log(200.0),
        xtol=1e-15,
        rtol=1e-15,
    )
    return math.exp(root)


# ------------------------------------------------------------------ sigma
@given(
    eps=st.floats(0.05, 20.0),
    log_delta=st.floats(-10.0, -2.0),
    log_n=st.floats(0.0, 6.0),
    rtol=st.sampled_from([1e-2, 1e-3, 1e-6]),
)
def test_sigma_meets_the_target_never_overshoots_and_is_close(
    eps, log_delta, log_n, rtol
):
    delta, n = 10.0**log_delta, max(1, round(10.0**log_n))
    exact = math.sqrt(n) / gaussian_mu(eps, delta)
    lo, hi = LIMITS[Parameter.SIGMA]
    assume(lo * 1.01 < exact < hi / 1.01)
    found = C.calibrate(C.epsilon_target(eps, delta), "sigma", n=n, rtol=rtol, **EXACT)
    assert found.published <= eps
    assert found.published >= eps * (1 - rtol)
    # The closed-form threshold, to its own accuracy: never below it.
    assert found.value >= exact * (1 - 1e-9)
    assert found.value <= exact * (1 + 3 * rtol)


@given(eps=st.floats(0.05, 20.0), log_delta=st.floats(-10.0, -2.0))
def test_sigma_out_of_the_searched_range_is_an_error_naming_sigma(eps, log_delta):
    delta = 10.0**log_delta
    mu = gaussian_mu(eps, delta)
    lo, hi = LIMITS[Parameter.SIGMA]
    # n = 1e6 steps with p = 1 and a small eps needs an enormous sigma.
    n = 10**6
    target = C.epsilon_target(eps / 100, delta)
    exact = math.sqrt(n) / gaussian_mu(eps / 100, delta)
    if exact > hi:
        with pytest.raises(
            ValueError, match=r"unreachable by sigma in \[0\.05, 10000\]"
        ):
            C.calibrate(target, "sigma", n=n, **EXACT)
    # One step at a huge eps is met at any sigma the search serves.
    if 1.0 / mu < lo:
        with pytest.raises(ValueError, match=r"met throughout sigma in \[0\.05"):
            C.calibrate(C.epsilon_target(eps, delta), "sigma", n=1, **EXACT)


def test_delta_and_mu_targets_on_the_gaussian():
    n, eps, delta = 16, 1.0, 1e-6
    found = C.calibrate(C.delta_target(delta, eps), "sigma", n=n, rtol=1e-8, **EXACT)
    assert found.value == pytest.approx(
        math.sqrt(n) / gaussian_mu(eps, delta), rel=1e-7
    )
    assert found.published <= delta
    # G_mu composed 16 times is G_{4 mu}: mu* = 4/sigma.
    found = C.calibrate(C.mu_target(0.5), "sigma", n=n, rtol=1e-8, **EXACT)
    assert found.value == pytest.approx(8.0, rel=1e-7) and found.value >= 8.0 * (
        1 - 1e-9
    )


# ------------------------------------------------------------------ steps
@given(sigma=st.floats(0.3, 10.0), eps=st.floats(0.1, 10.0))
def test_steps_is_the_largest_count_meeting_the_target(sigma, eps):
    delta = 1e-5
    # n Gaussian steps are G_{sqrt(n)/sigma}: the largest n is floor((mu sigma)^2).
    real = (gaussian_mu(eps, delta) * sigma) ** 2
    assume(abs(real - round(real)) > 1e-6)
    target = C.epsilon_target(eps, delta)
    if real < 1:
        with pytest.raises(ValueError, match=r"unreachable by steps in \[1, 1e\+09\]"):
            C.calibrate(target, "steps", sigma=sigma, rtol=1e-9, **EXACT)
        return
    found = C.calibrate(target, "steps", sigma=sigma, rtol=1e-9, **EXACT)
    assert found.value == math.floor(real) and found.setting.n == math.floor(real)
    assert found.published <= eps


# ------------------------------------------------------- the certified search
CERTIFIED_GRID = [
    ("sigma", {"p": 0.004, "n": 60_000}, 3.0),  # the README's run
    ("sigma", {"p": 1.0, "n": 1000}, 0.5),
    ("sigma", {"p": 0.01, "n": 1000}, 10.0),
    ("sample_rate", {"sigma": 1.0, "n": 10_000}, 3.0),
    ("sample_rate", {"sigma": 10.0, "n": 1000}, 0.5),
    ("steps", {"sigma": 1.0, "p": 0.01}, 3.0),
]


@pytest.mark.parametrize(("parameter", "run", "eps"), CERTIFIED_GRID)
def test_certified_upper_end_meets_the_target_within_rtol(parameter, run, eps):
    finals: list[float] = []

    def seen(stage: str, value: float, measured: float) -> None:
        if stage == "final":
            finals.append(measured)

    target = C.epsilon_target(eps, 1e-5)
    found = C.calibrate(target, parameter, on_evaluation=seen, **run)
    hi = found.curve.epsilon_bounds(1e-5)[1]
    assert found.published == hi and found.bracket.upper == hi
    assert eps * (1 - 1e-3) <= hi <= eps
    # One or two certified compositions, each reported once.
    assert found.certified_evaluations == len(finals) <= 2
    assert found.stop is WindowStop.IN_WINDOW


def test_the_whole_batch_is_the_answer_when_it_meets_the_target():
    target = C.epsilon_target(3.0, 1e-5)
    found = C.calibrate(target, "sample_rate", sigma=10.0, n=1)
    assert found.value == 1.0 and found.stop is WindowStop.AT_UPPER_END
    assert found.published <= 3.0


def test_steps_at_p_one_with_a_tiny_eps_is_an_error_naming_sigma():
    target = C.epsilon_target(0.01, 1e-5)
    with pytest.raises(
        ValueError, match=r"unreachable by sigma .* sigma = 10000 gives"
    ):
        C.calibrate(target, "sigma", p=1.0, n=10**6)


# ------------------------------------------------------ targets from measures
@dataclass(frozen=True)
class FakeRisk:
    """The interface of a risk measure's value (estimate, bracket, error)."""

    estimate: float
    lower: float
    upper: float
    error: float | None
    certified: bool


def test_a_measure_plugs_in_through_from_measure():
    def delta_at_one(curve):
        value = float(curve.delta(1.0))
        if curve.certified:
            lo, hi = curve.delta_bounds(1.0)
            return FakeRisk(value, float(lo), float(hi), None, True)
        return FakeRisk(value, value, value, float(curve.delta_error(1.0)), False)

    target = C.Target.from_measure(delta_at_one, 1e-6, larger_is_riskier=True)
    found = C.calibrate(target, "sigma", n=9, rtol=1e-8, **EXACT)
    assert found.value == pytest.approx(3.0 / gaussian_mu(1.0, 1e-6), rel=1e-7)


def test_a_measure_where_larger_is_safer():
    # The attacker's type-II error at type-I error 0.1 (G_mu(0.1), Dong et al.
    # 2019, eq. (6)); larger is safer. G_mu(0.1) = 0.5 at mu = Phi^{-1}(0.9).
    def beta_at(curve):
        value = float(curve.tradeoff(0.1))
        lo, hi = curve.tradeoff_bounds(0.1)
        return FakeRisk(value, float(lo), float(hi), 0.0, curve.certified)

    target = C.Target.from_measure(beta_at, 0.5, larger_is_riskier=False)
    found = C.calibrate(target, "sigma", n=4, rtol=1e-8, **EXACT)
    assert found.value == pytest.approx(2.0 / special.ndtri(0.9), rel=1e-7)
    assert found.published >= 0.5
    # No noise makes the type-II error exceed 1 - alpha = 0.9.
    unreachable = C.Target.from_measure(beta_at, 0.95, larger_is_riskier=False)
    with pytest.raises(ValueError, match="unreachable by any sigma"):
        C.calibrate(unreachable, "sigma", n=4, **EXACT)


# ------------------------------------------------------------------ bad input
BAD = [
    ({"sigma": math.nan}, "sigma"),
    ({"sigma": -1.0}, "sigma"),
    ({"sigma": 1e300}, "sigma"),
    ({"sigma": np.array([1.0, 2.0])}, "sigma"),
    ({"n": 0}, "n"),
    ({"n": 10**30}, "n"),
    ({"n": 2.5}, "n"),
    ({"rtol": math.nan}, "rtol"),
    ({"rtol": 0.5}, "rtol"),
    ({"rtol": np.array([1e-3])}, "rtol"),
    ({"parameter": "noise"}, "parameter"),
    ({"limits": (0.5, math.inf)}, "limits"),
]


@pytest.mark.parametrize(("change", "name"), BAD)
def test_bad_input_names_the_parameter(change, name):
    args = {"parameter": "sample_rate", "sigma": 1.0, "n": 100, "p": None}
    args.update(change)
    parameter = args.pop("parameter")
    with pytest.raises((ValueError, TypeError), match=name):
        C.calibrate(C.epsilon_target(1.0, 1e-5), parameter, **args)


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: C.epsilon_target(math.nan, 1e-5), "target_eps"),
        (lambda: C.epsilon_target(-1.0, 1e-5), "target_eps"),
        (lambda: C.epsilon_target(np.array([1.0, 2.0]), 1e-5), "target_eps"),
        (lambda: C.epsilon_target(1.0, 1.5), "delta"),
        (lambda: C.delta_target(0.0, 1.0), "target_delta"),
        (lambda: C.delta_target(1e-5, math.inf), "eps"),
        (lambda: C.mu_target(1e400), "target_mu"),
        (lambda: C.Target.from_measure(3, 1.0, True), "fn"),
        (lambda: C.Target.from_measure(len, math.nan, True), "value"),
        (lambda: C.Target.from_measure(len, 0.0, True), "value"),
        (lambda: C.Target.from_measure(len, 1.0, 1), "larger_is_riskier"),
    ],
)
def test_bad_targets_name_the_argument(make, name):
    with pytest.raises((ValueError, TypeError), match=name):
        make()


def test_the_calibrated_parameter_is_not_given():
    with pytest.raises(ValueError, match="sigma is the answer"):
        C.calibrate(C.epsilon_target(1.0, 1e-5), "sigma", sigma=1.0, n=10)
    with pytest.raises(ValueError, match="sigma is required"):
        C.calibrate(C.epsilon_target(1.0, 1e-5), "steps", p=0.1)


def test_the_command_line_range_is_the_search_domain():
    assert SIGMA_RANGE == LIMITS[Parameter.SIGMA]
