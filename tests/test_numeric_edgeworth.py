"""EdgeworthDistribution: accuracy on an exact case, rates, repair, inverses."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from _tolerances import ATOL_FLOAT
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, special, stats

from symfdp import ApproximationWarning
from symfdp.numeric.compile import evaluator
from symfdp.numeric.edgeworth import EdgeworthDistribution

# Exact case: the standardised sum of n Exp(1) variables, (S - n)/sqrt(n) with
# S ~ Gamma(n, 1). Exp(1) has kappa_r = (r-1)!, so lambda_r = (r-1)! n^{1-r/2}.
X_GRID = np.linspace(-3.0, 3.0, 1201)
U_GRID = np.linspace(0.05, 0.95, 91)
#: Fit range of the rate test: from n = 20 on the sup errors follow the
#: asymptotic power law at every order 0..4 (at n = 5 the n^{-(J+1)/2} term is not
#: yet dominant: lambda_3 = 0.89).
N_FIT = np.array([20, 50, 100, 200, 500, 1000, 2000])
#: The issue's tolerance on the fitted slope.
SLOPE_TOL = 0.25


def gamma_lambdas(n: float, order: int) -> dict[str, float]:
    return {
        f"lambda{r}": math.factorial(r - 1) * n ** (1 - r / 2)
        for r in range(3, order + 3)
    }


def gamma_cdf(n: float, x: np.ndarray) -> np.ndarray:
    return stats.gamma.cdf(n + np.sqrt(n) * x, n)


def gamma_quantile(n: float, u: np.ndarray) -> np.ndarray:
    return (stats.gamma.ppf(u, n) - n) / np.sqrt(n)


def dist(n: float, order: int) -> EdgeworthDistribution:
    return EdgeworthDistribution(tuple(gamma_lambdas(n, order).values()), order)


def sup_cdf_error(n: float, order: int) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return float(np.max(np.abs(dist(n, order).cdf(X_GRID) - gamma_cdf(n, X_GRID))))


def sup_raw_cdf_error(n: float, order: int) -> float:
    raw = evaluator("edgeworth_cdf", order)(x=X_GRID, **gamma_lambdas(n, order))
    return float(np.max(np.abs(raw - gamma_cdf(n, X_GRID))))


def sup_cf_error(n: float, order: int) -> float:
    cf = dist(n, order).ppf_cornish_fisher(U_GRID)
    return float(np.max(np.abs(cf - gamma_quantile(n, U_GRID))))


@pytest.mark.parametrize("n", [5, 20, 100])
def test_cdf_error_falls_with_order(n):
    errors = [sup_cdf_error(n, j) for j in range(5)]
    assert all(b < a for a, b in itertools.pairwise(errors)), errors


@pytest.mark.parametrize("n", [5, 20, 100])
def test_cornish_fisher_error_falls_with_order(n):
    errors = [sup_cf_error(n, j) for j in range(5)]
    assert all(b < a for a, b in itertools.pairwise(errors)), errors


def _slope(errors: list[float]) -> float:
    return float(np.polyfit(np.log(N_FIT), np.log(errors), 1)[0])


@pytest.mark.parametrize("order", range(5))
def test_cdf_error_rate_in_n(order):
    """The raw expansion's sup error is O(n^{-(J+1)/2}) (slope fitted on N_FIT)."""
    slope = _slope([sup_raw_cdf_error(n, order) for n in N_FIT])
    assert abs(slope + (order + 1) / 2) <= SLOPE_TOL, slope


@pytest.mark.parametrize("order", range(5))
def test_cornish_fisher_error_rate_in_n(order):
    slope = _slope([sup_cf_error(n, order) for n in N_FIT])
    assert abs(slope + (order + 1) / 2) <= SLOPE_TOL, slope


def test_repaired_equals_raw_inside_valid_interval():
    d = dist(100, 4)
    a, b = d.valid_interval()
    assert a < -3 and b > 3
    raw = evaluator("edgeworth_cdf", 4)(x=X_GRID, **gamma_lambdas(100, 4))
    np.testing.assert_allclose(d.cdf(X_GRID), raw, rtol=0, atol=ATOL_FLOAT)
    pdf = evaluator("edgeworth_pdf", 4)(x=X_GRID, **gamma_lambdas(100, 4))
    np.testing.assert_allclose(d.pdf(X_GRID), pdf, rtol=0, atol=ATOL_FLOAT)


def test_order_zero_is_exactly_normal():
    d = EdgeworthDistribution((), 0)
    x = np.linspace(-40, 40, 801)
    u = np.array([1e-300, 1e-15, 0.3, 0.5, 0.9])
    assert d.valid_interval() == (-np.inf, np.inf)
    np.testing.assert_array_equal(d.cdf(x), special.ndtr(x))
    np.testing.assert_array_equal(d.sf(x), special.ndtr(-x))
    np.testing.assert_array_equal(d.ppf(u), special.ndtri(u))
    np.testing.assert_array_equal(d.isf(u), -special.ndtri(u))
    # Extra lambdas are ignored by order 0.
    assert EdgeworthDistribution((0.5, 0.1), 0) == d


def test_numerical_inverse_and_tails():
    d = dist(100, 2)
    u = np.linspace(1e-6, 1 - 1e-6, 2001)
    np.testing.assert_allclose(d.cdf(d.ppf(u)), u, rtol=1e-12, atol=1e-15)
    tiny = np.array([1e-15, 1e-30, 1e-100])
    np.testing.assert_allclose(d.sf(d.isf(tiny)), tiny, rtol=1e-10)
    np.testing.assert_allclose(d.cdf(d.ppf(tiny)), tiny, rtol=1e-10)
    # sf is not 1 - cdf in the tail: it keeps relative accuracy.
    x = np.array([6.0, 8.0])
    assert np.all(d.sf(x) > 0) and np.all(d.sf(x) < 1e-7)
    np.testing.assert_allclose(d.cdf(x) + d.sf(x), 1.0, rtol=0, atol=1e-15)
    assert d.ppf(0.0) == -np.inf and d.ppf(1.0) == np.inf
    assert d.isf(0.0) == np.inf and d.isf(1.0) == -np.inf


def test_cornish_fisher_matches_numerical_inverse_at_large_n():
    d = dist(2000, 2)
    np.testing.assert_allclose(d.ppf_cornish_fisher(U_GRID), d.ppf(U_GRID), atol=1e-5)


SKEWED = (2.0, 0.0)  # lambda_3 = 2: far outside the expansion's comfort zone


def test_strongly_skewed_repair_is_a_valid_cdf():
    d = EdgeworthDistribution(SKEWED, 2)
    a, b = d.valid_interval()
    assert -np.inf < a < 0 < b < np.inf
    x = np.linspace(-15, 15, 30001)
    with pytest.warns(ApproximationWarning, match="spliced") as record:
        cdf = d.cdf(x)
    assert "accountants.Numerical" in str(record[0].message)
    assert not np.isnan(cdf).any()
    assert np.all((cdf >= 0) & (cdf <= 1))
    assert np.all(np.diff(cdf) >= 0)
    with pytest.warns(ApproximationWarning):
        sf = d.sf(x)
        pdf = d.pdf(x)
    np.testing.assert_allclose(cdf + sf, 1.0, atol=1e-15)
    assert np.all(pdf >= 0) and not np.isnan(pdf).any()
    # The repaired density integrates to one (pieces split at the jumps).
    mass = sum(
        integrate.quad(lambda t: float(d.pdf(t)), lo, hi, epsabs=1e-13)[0]
        for lo, hi in [(-np.inf, a), (a, b), (b, np.inf)]
        if not warnings.simplefilter("ignore", ApproximationWarning)
    )
    assert mass == pytest.approx(1.0, abs=1e-9)
    # ppf(cdf(x)) = x inside the valid interval (no warning there).
    inside = np.linspace(a, b, 401)[1:-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        back = d.ppf(d.cdf(inside))
    np.testing.assert_allclose(back, inside, atol=1e-9)
    # Spliced tails invert in closed form and stay monotone.
    with pytest.warns(ApproximationWarning):
        tails = d.ppf(np.array([1e-12, 1e-6, 1 - 1e-6]))
    assert np.all(np.diff(tails) > 0)


def test_the_raw_skewed_expansion_is_invalid():
    """The repair is needed: the raw order-2 expansion is not monotone here."""
    raw = evaluator("edgeworth_cdf", 2)(
        x=np.linspace(-6, 6, 1201), lambda3=2.0, lambda4=0.0
    )
    assert np.any(np.diff(raw) < 0)


def test_no_valid_interval_falls_back_to_normal(monkeypatch):
    from symfdp.numeric.edgeworth import distribution as E

    proto = E._Fit(
        np.zeros(1), -np.ones(1), np.zeros(2), 0, 0, 0, 0, *[np.empty(0)] * 3
    )
    assert E._valid_interval(proto) is None  # q < 0 everywhere
    monkeypatch.setattr(E, "_valid_interval", lambda fit: None)
    with pytest.warns(ApproximationWarning, match="nowhere"):
        d = EdgeworthDistribution((0.3, 0.1), 2)
    assert d.valid_interval() == (-np.inf, np.inf)
    np.testing.assert_array_equal(d.cdf(X_GRID), special.ndtr(X_GRID))


@given(
    lam3=st.floats(-1.5, 1.5),
    lam4=st.floats(-2.0, 2.0),
    x=st.lists(st.floats(-8, 8), min_size=1, max_size=20),
)
def test_repaired_cdf_is_always_a_distribution(lam3, lam4, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        d = EdgeworthDistribution((lam3, lam4), 2)
        xs = np.sort(np.asarray(x))
        cdf = d.cdf(xs)
        assert not np.isnan(cdf).any()
        assert np.all((cdf >= 0) & (cdf <= 1)) and np.all(np.diff(cdf) >= 0)
        a, b = d.valid_interval()
        inside = xs[(xs > a) & (xs < b) & (cdf > 1e-12) & (cdf < 0.999)]
        if inside.size:
            np.testing.assert_allclose(d.ppf(d.cdf(inside)), inside, atol=1e-7)


def test_from_cumulants():
    n = 50
    kappas = [math.factorial(r - 1) for r in range(1, 7)]  # Exp(1)
    d = EdgeworthDistribution.from_cumulants(kappas, 4, n=n)
    np.testing.assert_allclose(
        d.lambdas, list(gamma_lambdas(n, 4).values()), rtol=1e-15
    )
    summed = EdgeworthDistribution.from_cumulants([n * k for k in kappas], 4)
    np.testing.assert_allclose(summed.lambdas, d.lambdas, rtol=1e-14)


def test_input_validation():
    with pytest.raises(ValueError, match="lambdas"):
        EdgeworthDistribution((0.1,), 2)
    with pytest.raises(ValueError, match="lambdas"):
        EdgeworthDistribution((float("nan"), 0.0), 2)
    with pytest.raises(ValueError, match="order"):
        EdgeworthDistribution((0.1, 0.1), -1)
    with pytest.raises(ValueError, match="order"):
        EdgeworthDistribution((0.1, 0.1), True)
    d = dist(100, 2)
    with pytest.raises(ValueError, match="u"):
        d.ppf(1.5)
    with pytest.raises(ValueError, match="x"):
        d.cdf(float("nan"))
    with pytest.raises(ValueError, match="variance"):
        EdgeworthDistribution.from_cumulants([0.0, -1.0, 0.0], 1)
    with pytest.raises(ValueError, match="n"):
        EdgeworthDistribution.from_cumulants([0.0, 1.0, 0.0], 1, n=0)
    assert isinstance(d.cdf(0.0), float)
    assert d.cdf([0.0, 1.0]).shape == (2,)
