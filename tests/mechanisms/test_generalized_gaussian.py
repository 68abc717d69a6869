"""The generalised Gaussian pair exp(-|x|^beta) vs exp(-|x - 1|^beta) (arXiv
2506.12553), built with ``from_densities``, through every registered accountant.

Each accountant either answers (a certified bracket that contains the reference;
a bound above the certified lower end; an estimate within its stated error of
the certified bracket, or an ``ApproximationWarning``), or refuses with a
``ValueError`` that names ``Numerical``. At ``n = 1`` the certified bracket
contains an mpmath integral of :math:`(q - e^\\varepsilon p)_+`; at beta = 2
the pair is the Gaussian with :math:`\\mu = \\sqrt 2`.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.registry import accountant_classes, listing

x, mu = sp.symbols("x mu", real=True)
BETAS = (sp.Rational(3, 2), sp.Integer(2), sp.Integer(3))
N = 20
DELTA = 1e-5


def _density(m: object, beta: sp.Expr) -> sp.Expr:
    return sp.exp(-(sp.Abs(x - m) ** beta)) / (2 * sp.gamma(1 + 1 / beta))


_PAIRS: dict[sp.Expr, M.DensityPair] = {}


def _pair(beta: sp.Expr) -> M.DensityPair:
    if beta not in _PAIRS:
        _PAIRS[beta] = M.from_densities(
            _density(0, beta), _density(mu, beta), x, mu=1.0, budget=0, symmetric=True
        )
    return _PAIRS[beta]


def _reference_delta(beta: sp.Expr, eps: float) -> float:
    """int (q - e^eps p)_+ dx by mpmath at 30 digits; L = |x|^b - |x-1|^b is
    increasing, so the integrand is positive right of the root x* of L = eps,
    split at the kinks 0 and 1."""
    b = mpmath.mpf(sp.Rational(beta).p) / sp.Rational(beta).q
    with mpmath.workdps(30):
        c = 1 / (2 * mpmath.gamma(1 + 1 / b))

        def llr(v: mpmath.mpf) -> mpmath.mpf:
            return abs(v) ** b - abs(v - 1) ** b

        lo, hi = mpmath.mpf(-60), mpmath.mpf(60)
        for _ in range(200):  # bisection: L is increasing
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if llr(mid) < eps else (lo, mid)
        root = (lo + hi) / 2
        e = mpmath.exp(eps)

        def f(v: mpmath.mpf) -> mpmath.mpf:
            return c * (mpmath.exp(-(abs(v - 1) ** b)) - e * mpmath.exp(-(abs(v) ** b)))

        pts = sorted({root, *[p for p in (mpmath.mpf(0), mpmath.mpf(1)) if p > root]})
        return float(mpmath.quad(f, [*pts, mpmath.inf]))


@pytest.mark.parametrize("beta", BETAS, ids=str)
def test_certified_bracket_contains_mpmath_reference(beta: sp.Expr) -> None:
    curve = A.Numerical().compose(_pair(beta), 1)
    for eps in (0.0, 0.3, 0.8):
        lo, hi = curve.delta_bounds(eps)
        ref = _reference_delta(beta, eps)
        assert lo * (1 - 1e-10) <= ref <= hi * (1 + 1e-10), (eps, lo, ref, hi)


def test_beta_two_is_the_gaussian() -> None:
    # exp(-x^2) is N(0, 1/2): the shift 1 is mu = sqrt(2) standard deviations.
    exact = A.Exact().compose(M.Gaussian(mu=math.sqrt(2.0)), N).epsilon(DELTA)
    lo, hi = A.Numerical().compose(_pair(sp.Integer(2)), N).epsilon_bounds(DELTA)
    assert lo <= exact <= hi
    assert hi - lo <= 1e-3 * exact


def _cases() -> list[object]:
    out = []
    slow = {"auto"}
    for beta in BETAS:
        for name in listing():
            marks = [pytest.mark.slow] if name in slow else []
            out.append(pytest.param(beta, name, marks=marks, id=f"{beta}-{name}"))
    return out


@pytest.mark.parametrize(("beta", "name"), _cases())
def test_every_accountant_serves_or_names_numerical(beta: sp.Expr, name: str) -> None:
    pair = _pair(beta)
    lo, hi = A.Numerical().compose(pair, N).epsilon_bounds(DELTA)
    cls = accountant_classes()[name]
    guarantee = listing()[name].guarantee
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            curve = cls().compose(pair, N)
            eps = float(curve.epsilon(DELTA))
            err = (
                float(curve.epsilon_error(DELTA)) if guarantee != "bound" else math.nan
            )
    except ValueError as exc:
        assert not isinstance(exc, M.QuadratureLimitError), str(exc)
        assert "Numerical" in str(exc), str(exc)
        return
    warned = any(issubclass(w.category, ApproximationWarning) for w in caught)
    if guarantee == "certified":
        assert lo - 1e-6 * hi <= eps <= hi + 1e-6 * hi
    elif guarantee == "bound":
        assert eps >= lo - 1e-9 * hi
    else:
        assert warned or (lo - err - 1e-9 * hi <= eps <= hi + err + 1e-9 * hi), (
            eps,
            err,
            lo,
            hi,
        )


def test_saddle_point_tilts_of_beta_three() -> None:
    # log p + t L sums terms of size |x|^3 that cancel: the tilted rule at the
    # tilts the saddle point needs must resolve (it needed > 200000 panels).
    pair = _pair(sp.Integer(3))
    k, _, k2 = pair.cgf_derivatives(np.array([0.5, 3.06268]))
    assert np.all(np.isfinite(k)) and np.all(k2 > 0)
    with mpmath.workdps(30):
        c = 1 / (2 * mpmath.gamma(mpmath.mpf(4) / 3))
        t = mpmath.mpf(3.06268)

        def g(v: mpmath.mpf) -> mpmath.mpf:
            lp = -(abs(v) ** 3)
            return c * mpmath.exp(lp + t * (abs(v) ** 3 - abs(v - 1) ** 3))

        ref = mpmath.log(mpmath.quad(g, [-mpmath.inf, 0, 1, 5, mpmath.inf]))
    assert float(k[1]) == pytest.approx(float(ref), rel=1e-12)


def test_logistic_densities_that_underflow() -> None:
    # exp(-x)/(1 + exp(-x))^2: log(1 + exp(-x)) overflows at x < -709 unless it
    # is compiled as a log-sum-exp; the pair equals the one built from callables.
    def logistic(m: object) -> sp.Expr:
        return sp.exp(-(x - m)) / (1 + sp.exp(-(x - m))) ** 2

    m1 = M.from_densities(logistic(0), logistic(mu), x, mu=1.0, budget=0)

    def log_p(v: np.ndarray) -> np.ndarray:
        return -v - 2 * np.logaddexp(0.0, -v)

    def llr(v: np.ndarray) -> np.ndarray:
        return log_p(v - 1.0) - log_p(v)

    m2 = M.from_log_likelihood_ratio(llr, log_p, log_density=True)
    np.testing.assert_allclose(m1.cumulants(4), m2.cumulants(4), rtol=1e-10)
    eps = np.array([0.2, 0.6])
    np.testing.assert_allclose(
        A.Numerical().compose(m1, 10).delta_bounds(eps),
        A.Numerical().compose(m2, 10).delta_bounds(eps),
        rtol=1e-9,
    )
    # L is bounded by the shift: |L| <= 1, delta(1) = 0.
    assert float(m1.privacy_profile(1.0)) == pytest.approx(0.0, abs=1e-15)
