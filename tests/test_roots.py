"""Vectorised root finding (``symfdp.numeric.roots``).

References are independent of the code under test: closed-form inverses
(``log``, ``cbrt``) and SciPy's scalar ``brentq`` at its tightest tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize

from symfdp.numeric.roots import (
    ROUNDOFF_RTOL,
    WindowStop,
    bracketed_newton,
    expand_bracket_up,
    monotone_bisect,
    newton_on_bracket,
    predicted_bisect,
    regula_falsi,
    secant_into_window,
    series_newton,
)

#: Relative accuracy promised by ``xtol=1e-12`` (one step of at most xtol|x|,
#: plus round-off of the reference).
XTOL = 1e-12


def _exp(x):
    return np.exp(x), np.exp(x)


# ------------------------------------------------------------------ bracketed_newton
def test_newton_solves_exp_vectorised():
    t = np.geomspace(1.5, 1e12, 400)
    x = bracketed_newton(_exp, t, 0.0, 30.0, xtol=XTOL)
    assert x.shape == t.shape
    np.testing.assert_allclose(x, np.log(t), rtol=2 * XTOL, atol=0)


@pytest.mark.parametrize("k", [2.0, 10.0, 100.0])
def test_newton_with_inexact_derivative_converges(k):
    # A derivative k times too large makes Newton creep towards the root from
    # one side, so the bracket never closes from both sides: the old stopping
    # rule ran out of iterations here (50 of 50 targets raised for k = 5).
    t = np.geomspace(2.0, 1e6, 50)
    x = bracketed_newton(lambda x: (np.exp(x), k * np.exp(x)), t, 0.0, 20.0)
    # Creeping with ratio 1 - 1/k, the error after a step s is about k s.
    np.testing.assert_allclose(x, np.log(t), rtol=2 * k * XTOL, atol=0)


def test_newton_with_large_function_values():
    # |f - target| cannot fall below ~1 ulp of 1e12 (1.2e-4), far above the old
    # absolute 1e-15; the step and round-off tests stop the iteration.
    t = np.linspace(1e12, 2e12, 64)

    def fn(x):
        return 1e12 * np.log1p(x), 1e12 / (1.0 + x)

    x = bracketed_newton(fn, t, 0.0, 10.0)
    np.testing.assert_allclose(x, np.expm1(t / 1e12), rtol=2 * XTOL, atol=0)


def _noisy_line(amplitude):
    """``x + noise``: a pseudo-random, deterministic, non-smooth perturbation of
    size ``amplitude`` (a monotone function seen through float noise)."""

    def fn(x):
        bits = np.frombuffer(np.ascontiguousarray(x, dtype=np.float64).tobytes(), "<u8")
        noise = ((bits * np.uint64(2654435761)) % np.uint64(1001)).astype(float)
        return x + amplitude * (noise / 500.0 - 1.0).reshape(x.shape), np.ones_like(x)

    return fn


@pytest.mark.parametrize("amplitude", [1e-13, 1e-9])
def test_newton_with_noise_above_roundoff_does_not_raise(amplitude):
    t = np.linspace(-3.0, 7.0, 101)
    x = bracketed_newton(_noisy_line(amplitude), t, -5.0, 10.0)
    # The computed f crosses the target within the noise band around the root.
    assert np.all(np.abs(x - t) <= 2 * amplitude)


def test_newton_decreasing_and_scalar_target():
    x = bracketed_newton(
        lambda x: (np.exp(-x), -np.exp(-x)), 1e-7, 0.0, 40.0, increasing=False
    )
    assert x.shape == ()
    assert float(x) == pytest.approx(7 * math.log(10), rel=2 * XTOL)


def test_newton_geometric_bisection_and_start_point():
    # Brackets spanning hundreds of decades: geometric bisection finds roots near
    # the lower end quickly; a start point inside the bracket is used.
    t = np.array([-600.0, -50.0, 0.0, 20.0])

    def fn(x):
        return np.log(x), 1.0 / x

    lo, hi = np.full(4, 1e-300), np.full(4, 1e300)
    x = bracketed_newton(fn, t, lo, hi, geometric=True, max_iter=60)
    np.testing.assert_allclose(x, np.exp(t), rtol=2 * XTOL)
    x0 = np.exp(t) * 1.5
    y = bracketed_newton(fn, t, lo, hi, x0=x0, geometric=True, check_bracket=False)
    np.testing.assert_allclose(y, np.exp(t), rtol=2 * XTOL)


def test_newton_check_bracket_costs_two_calls():
    calls = []

    def fn(x):
        calls.append(x.copy())
        return _exp(x)

    bracketed_newton(fn, np.array([5.0]), 0.0, 3.0, check_bracket=False)
    n_unchecked = len(calls)
    calls.clear()
    bracketed_newton(fn, np.array([5.0]), 0.0, 3.0)
    assert len(calls) == n_unchecked + 2
    assert all(np.all((c >= 0.0) & (c <= 3.0)) for c in calls)  # never leaves


def test_newton_infinite_values_are_not_converged():
    # A log-profile that drops to -inf beyond a support end: an infinite |g| is
    # never "at round-off"; the iteration closes in on the end instead.
    end = 1.1493831354

    def fn(x):
        with np.errstate(divide="ignore"):
            f = np.where(x < end, -6.0 - x, -np.inf)
        return f, np.where(x < end, -1.0, np.nan)

    x = bracketed_newton(fn, np.array([-18.4]), 1.0, 1.2, increasing=False)
    assert abs(x[0] - end) <= 2 * XTOL * end


def test_newton_rejects_a_missing_bracket():
    with pytest.raises(ValueError, match="not bracketed"):
        bracketed_newton(_exp, np.array([1.0, 100.0]), 1.0, 3.0)


def test_newton_raises_on_true_non_convergence():
    # A jump at the root (monotone, never equal to the target) with every
    # tolerance at zero cannot converge; it must raise, not return.
    def step(x):
        return np.where(x < 1.0 / 3.0, -1.0, 1.0), np.zeros_like(x)

    with pytest.raises(RuntimeError, match="did not converge"):
        bracketed_newton(
            step, np.array([0.0]), 0.0, 1.0, xtol=0.0, frtol=0.0, max_iter=30
        )
    # With a tolerance it converges to the jump, as bisection would.
    x = bracketed_newton(step, np.array([0.0]), 0.0, 1.0, xtol=1e-12)
    assert x[0] == pytest.approx(1.0 / 3.0, abs=1e-12)


_coef = st.floats(0.0, 3.0)


@given(
    a=st.floats(0.05, 5.0),
    b=_coef,
    c=_coef,
    d=st.floats(-2.0, 2.0),
    u=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20),
    k=st.floats(0.5, 3.0),
)
def test_newton_property_against_brentq(a, b, c, d, u, k):
    """Any increasing f = a x + b x^3 + c tanh(x - d), any bracketed target, any
    derivative accurate to a factor k in [1/2, 3]: converged within tolerance."""

    def f(x):
        return a * x + b * x**3 + c * np.tanh(x - d)

    def fn(x):
        df = a + 3 * b * x**2 + c / np.cosh(x - d) ** 2
        return f(x), k * df

    lo, hi = -4.0, 5.0
    flo, fhi = float(f(np.array(lo))), float(f(np.array(hi)))
    targets = np.clip(flo + np.array(u) * (fhi - flo), flo, fhi)
    x = bracketed_newton(fn, targets, lo, hi, xtol=XTOL, xatol=1e-14)
    want = np.array(
        [
            optimize.brentq(
                lambda s, t=t: float(f(np.array(s))) - t, lo, hi, xtol=1e-15
            )
            for t in targets
        ]
    )
    assert np.all((x >= lo) & (x <= hi))
    slack = 4 * max(k, 1.0 / k) * (XTOL * np.abs(want) + 1e-14)
    assert np.all(np.abs(x - want) <= slack + 1e-13)


# ------------------------------------------------------------------ monotone_bisect
def test_bisect_decreasing_generalised_inverse():
    # A non-increasing step function: the smallest x with fn(x) <= target.
    def fn(x):
        return np.where(x < 2.0, 1.0, 0.0) + np.where(x < 5.0, 1.0, 0.0)

    t = np.array([1.5, 0.5, 2.0, 0.0])
    x = monotone_bisect(fn, t, 0.0, 10.0, xtol=1e-13)
    np.testing.assert_allclose(x, [2.0, 5.0, 0.0, 5.0], atol=1e-12)


def test_bisect_increasing_matches_closed_form():
    t = np.linspace(-8.0, 27.0, 50)
    x = monotone_bisect(
        lambda x: x**3, t, -3.0, 4.0, decreasing=False, xtol=0.0, rtol=4e-16
    )
    np.testing.assert_allclose(x, np.cbrt(t), rtol=1e-15, atol=1e-15)


def test_bisect_raises_when_out_of_iterations():
    with pytest.raises(RuntimeError, match="bisection"):
        monotone_bisect(lambda x: -x, np.array([-0.3]), 0.0, 1.0, max_iter=5)


@given(
    a=st.floats(0.01, 10.0),
    b=st.floats(-3.0, 3.0),
    u=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20),
)
def test_bisect_property_against_brentq(a, b, u):
    def f(x):
        return np.exp(-a * x) + b  # decreasing

    lo, hi = 0.0, 3.0
    flo, fhi = float(f(np.array(lo))), float(f(np.array(hi)))
    targets = np.clip(fhi + np.array(u) * (flo - fhi), fhi, flo)
    x = monotone_bisect(f, targets, lo, hi, xtol=1e-13, rtol=4e-16)
    assert np.all(f(x) <= targets)  # on the right side of the target
    want = np.array(
        [
            optimize.brentq(lambda s, t=t: float(f(s)) - t, lo, hi, xtol=1e-15)
            for t in targets
        ]
    )
    # Tolerance plus the conditioning of f: its round-off over its slope.
    cond = 4 * ROUNDOFF_RTOL * (1.0 + abs(b)) / (a * np.exp(-a * want))
    assert np.all(np.abs(x - want) <= 2e-13 + 1e-12 * np.abs(want) + cond)


# ------------------------------------------------------------------ expand_bracket_up
def test_expand_bracket_up_decreasing_and_increasing():
    t = np.array([1e-1, 1e-5, 1e-12])
    hi = expand_bracket_up(lambda x: np.exp(-x), t, 0.0, 1.0)
    assert np.all(np.exp(-hi) <= t)
    assert np.all(hi <= 2 * -np.log(t) + 1.0)  # growth by a factor 2
    up = expand_bracket_up(lambda x: x**2, np.array([50.0]), 1.0, 2.0, decreasing=False)
    assert up[0] ** 2 >= 50.0


def test_expand_bracket_up_limit_and_failure():
    with pytest.raises(RuntimeError, match="bracket"):
        expand_bracket_up(lambda x: np.exp(-x), np.array([1e-9]), 0.0, 1.0, limit=10.0)
    with pytest.raises(RuntimeError, match="bracket"):
        expand_bracket_up(lambda x: 1.0 / x, np.array([0.0]), 1.0, 2.0, max_steps=8)


@given(
    scale=st.floats(0.01, 100.0),
    u=st.lists(st.floats(1e-12, 0.99), min_size=1, max_size=10),
)
def test_expand_then_bisect_property(scale, u):
    """expand_bracket_up + monotone_bisect is the inverse of a decreasing tail."""
    t = np.array(u)

    def tail(x):
        return np.exp(-x / scale)

    hi = expand_bracket_up(tail, t, 0.0, 1.0)
    assert np.all(tail(hi) <= t)
    x = monotone_bisect(tail, t, 0.0, hi, xtol=0.0, rtol=1e-14)
    np.testing.assert_allclose(x, -scale * np.log(t), rtol=1e-13, atol=1e-300)


# ------------------------------------------------------------------ newton_on_bracket
def test_newton_on_bracket_solves_exp_and_returns_the_slope():
    t = np.geomspace(1.5, 1e12, 300)
    x, df = newton_on_bracket(_exp, t, np.zeros(t.shape), np.full(t.shape, 30.0), 1.0)
    np.testing.assert_allclose(x, np.log(t), rtol=2 * XTOL, atol=0)
    # f' at the last evaluated point: within one Newton step of the root.
    np.testing.assert_allclose(df, t, rtol=1e-9)


def test_newton_on_bracket_decreasing_with_bisection_fallback():
    """A start outside the bracket and a non-finite value on the way (log of a
    non-positive number) fall back to bisection; the root is -log(u)."""
    u = np.array([0.3, 1e-5, 1e-12])

    def fn(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.exp(-x) - 1e-3 * (x > 40)
            return np.log(v), np.full(x.shape, -1.0)

    x, _ = newton_on_bracket(
        fn, np.log(u), np.zeros(3), np.full(3, 45.0), np.full(3, -5.0), decreasing=True
    )
    np.testing.assert_allclose(x, -np.log(u), rtol=1e-10)


def test_newton_on_bracket_noise_stops_on_the_bracket():
    """Noise in f above ftol: the absolute x tolerance ends the iteration."""
    rng = np.random.default_rng(0)

    def fn(x):
        return x + 1e-9 * rng.standard_normal(x.shape), np.ones(x.shape)

    x, _ = newton_on_bracket(
        fn, np.full(4, 1e-4), np.zeros(4), np.ones(4), 0.5, ftol=1e-12, xatol=1e-8
    )
    np.testing.assert_allclose(x, 1e-4, atol=1e-8)


# ------------------------------------------------------------------ regula_falsi
def test_regula_falsi_matches_brentq():
    def fn(x):
        return np.cos(x) - x / 4.0  # decreasing on [0, 2], root ~1.2

    lo, hi = np.array([0.0, 0.5]), np.array([2.0, 1.9])
    x = regula_falsi(fn, lo, hi, xrtol=1e-13)
    ref = optimize.brentq(lambda v: math.cos(v) - v / 4.0, 0.0, 2.0, xtol=1e-15)
    np.testing.assert_allclose(x, ref, rtol=1e-12)


def test_regula_falsi_raises_without_convergence():
    with pytest.raises(RuntimeError, match="regula falsi"):
        regula_falsi(lambda x: 1.0 - x, np.zeros(1), np.full(1, 2.0), max_iter=2)


# ------------------------------------------------------------ secant_into_window
def test_secant_into_window_lands_in_the_window_of_a_line():
    calls: list[float] = []

    def g(x: float) -> float:
        calls.append(x)
        return 2.0 * (x - 3.0)

    found = secant_into_window(g, 0.0, window=1e-3, slope=1.0)
    assert found.stop is WindowStop.IN_WINDOW
    assert -1e-3 <= 2.0 * (found.x - 3.0) <= 0.0
    # The first slope is off by 2x; the secant through two points is exact.
    assert found.evaluations == len(calls) <= 3


@given(
    root=st.floats(-5.0, 5.0),
    power=st.sampled_from([1, 3, 5]),
    x0=st.floats(-8.0, 8.0),
    window=st.sampled_from([1e-2, 1e-4, 1e-8]),
)
def test_secant_into_window_meets_the_condition_for_monotone_functions(
    root, power, x0, window
):
    def g(x: float) -> float:
        return math.copysign(abs(x - root) ** power, x - root) + 0.1 * (x - root)

    found = secant_into_window(g, x0, window=window, slope=1.0, lo=-10.0, hi=10.0)
    assert found.value == g(found.x) and found.value <= 0.0
    if found.stop is WindowStop.IN_WINDOW:
        assert found.value >= -window
    else:  # closed bracket: the root is within xtol above
        assert found.stop is WindowStop.BRACKET_CLOSED
        assert root - found.x <= 1e-9 * max(1.0, abs(root))


def test_secant_into_window_ends_of_the_domain():
    always_met = secant_into_window(lambda x: -1.0, 0.0, window=1e-3, slope=1.0, hi=5.0)
    assert always_met.stop is WindowStop.AT_UPPER_END and always_met.x == 5.0
    never_met = secant_into_window(lambda x: 1.0, 0.0, window=1e-3, slope=1.0, lo=-5.0)
    assert never_met.stop is WindowStop.UNREACHABLE and never_met.x == -5.0


def test_secant_into_window_on_a_grid_returns_the_last_grid_point_meeting_it():
    # log n on integers; g(n) = n - 10.5 has no grid point in a narrow window.
    def snap(x: float) -> float:
        return math.log(max(round(math.exp(x)), 1))

    found = secant_into_window(
        lambda x: math.exp(x) - 10.5, math.log(2.0), window=1e-6, slope=5.0,
        lo=0.0, hi=math.log(1e6), snap=snap,
    )  # fmt: skip
    assert found.stop is WindowStop.BRACKET_CLOSED
    assert round(math.exp(found.x)) == 10 and round(math.exp(found.infeasible)) == 11


def test_secant_into_window_survives_a_flat_stretch_and_a_wrong_slope():
    # Flat (zero) below 1, then increasing: the first slope points the wrong way.
    found = secant_into_window(
        lambda x: max(x - 1.0, 0.0) ** 2 - 0.25, -3.0, window=1e-6, slope=-1.0
    )
    assert found.stop is WindowStop.IN_WINDOW
    assert found.x == pytest.approx(1.5, abs=1e-5)


@given(
    st.floats(0.05, 20.0),
    st.floats(-3.0, 3.0),
    st.booleans(),
)
def test_predicted_bisect_is_monotone_bisect_bit_for_bit(k, shift, decreasing):
    sign = -1.0 if decreasing else 1.0

    def fn(x):
        return sign * (np.tanh(k * (x - shift)) + 0.1 * (x - shift))

    exact = monotone_bisect(
        fn, np.zeros(1), -5.0, 5.0, decreasing=decreasing, xtol=1e-13, rtol=4e-16
    )
    found = predicted_bisect(fn, -5.0, 5.0, decreasing=decreasing)
    assert found == exact[0]


def test_compact_newton_gives_the_same_roots_with_fewer_evaluations():
    rng = np.random.default_rng(3)
    targets = rng.uniform(-30.0, 30.0, 200)
    targets[:100] = rng.uniform(-1e-3, 1e-3, 100)  # converge fast
    sizes = []

    def plain(x):
        sizes.append(x.size)
        return np.sinh(x), np.cosh(x)

    def indexed(x, idx):
        sizes.append(x.size)
        return np.sinh(x), np.cosh(x)

    lo, hi = np.full(200, -5.0), np.full(200, 5.0)
    a = bracketed_newton(plain, targets, lo, hi, check_bracket=False)
    plain_cost = sum(sizes)
    sizes.clear()
    b = bracketed_newton(indexed, targets, lo, hi, check_bracket=False, compact=True)
    np.testing.assert_array_equal(a, b)
    assert sum(sizes) < plain_cost
    np.testing.assert_allclose(b, np.arcsinh(targets), rtol=1e-12)


def test_series_newton_solves_with_the_taylor_rows_of_exp():
    # f(x) = exp(-x), rows (f, f', f'', ...) and their Taylor shift.
    top = 6
    expand_calls = []

    def expand(x):
        expand_calls.append(x.size)
        return np.array([(-1.0) ** j * np.exp(-x) for j in range(top + 1)])

    def shift(d, h):
        fact = np.cumprod(np.concatenate(([1.0], np.arange(1.0, top + 1))))
        return np.array(
            [
                sum(d[i + j] * h**j / fact[j] for j in range(top + 1 - i))
                for i in range(top + 1)
            ]
        )

    target = np.log(np.array([0.5, 0.3, 1e-3]))
    x0 = -target * (1.0 + 1e-6)
    x, rows, rest, _, _ = series_newton(
        expand,
        shift,
        lambda s, d: (np.log(d[0]), d[1] / d[0]),
        target,
        x0 * 0.5,
        x0 * 2.0,
        x0,
        rtol=1e-13,
        ftol=1e-14,
        reach=1e-4,
        rounds=3,
        steps=12,
    )
    assert not rest.any()
    np.testing.assert_allclose(x, -target, rtol=1e-12)
    np.testing.assert_allclose(rows[0], np.exp(target), rtol=1e-12)
    assert expand_calls == [3]
