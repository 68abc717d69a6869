"""Property tests over random mechanisms, compositions and every accountant.

Mechanisms are drawn from :data:`symfdp.mechanisms.REGISTRY` with parameters in
each class's ``PARAMS[...].typical`` range (log-uniform; subsampled mechanisms
also draw their adjacency ``pair``), compositions have 1-3 components with
counts up to ``N_MAX``, and the validity and inverse tests run for every
accountant (parametrised) on random compositions it applies to. The invariants:

* every method's trade-off curve lies in [0, 1 - alpha], is non-increasing and
  convex (symmetrised where the composition is asymmetric; approximations after
  their documented repairs, with ApproximationWarning allowed);
* delta(eps) lies in [0, 1], is non-increasing in eps and at least
  ``1 - e^eps`` (any dominating pair: delta(eps) >= 1 - e^eps E_Q[e^{-L}]);
* certified brackets (``Numerical``) contain the ``Exact`` answer where one
  exists, brackets at two resolutions intersect, and the certified bounds of
  other methods (Berry-Esseen's lower trade-off bound, RDP's upper profile bound)
  are consistent with the bracket;
* ``epsilon`` and ``delta`` are inverse to each other (generalised inverse:
  exact statements that need only monotonicity, checked with a step ``h``
  larger than any solver tolerance);
* more composition never helps, more noise helps, a larger sampling rate hurts:
  exactly for ``Exact`` and where a method's formula guarantees it (CLT/GDP
  closed forms, RDP), and for ``Numerical`` in the sound form the brackets
  imply (see :func:`_assert_bracket_order`).

Each test records the category of every input as a hypothesis ``event`` (see
``pytest --hypothesis-show-statistics``). The ``ci`` profile runs a fraction of
its examples per test (the module stays well under a minute); ``HYPOTHESIS_PROFILE=
dev`` runs five times more, randomised.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms import REGISTRY, Mechanism, PoissonSubsampled
from symfdp.mechanisms.subsampled import PAIRS

# ---------------------------------------------------------------------------
# Tolerances (named; see tests/_tolerances.py for the shared ones)

#: Rounding of curve values of size <= 1 (float64, a few operations).
TOL_VALUE = 1e-12
#: Convexity: f(a_k) may exceed the chord of its neighbours by this much. The
#: curves are tabulated and interpolated (piecewise linear), so only rounding of
#: O(1) values enters.
TOL_CONVEX = 1e-9
#: Relative step of the generalised-inverse checks: larger than the eps solvers'
#: tolerances (1e-12 .. 1e-10 relative) and small enough to locate eps.
H_INVERSE = 1e-6
#: Relative slack of delta in the inverse checks (the solvers stop at
#: |log delta - log d| ~ 1e-10 or at an eps step below 1e-12 relative).
RTOL_INVERSE = 1e-7
#: Slack added to Exact values when testing containment in a certified bracket
#: (float64 rounding of the closed forms, relative and absolute).
REF_RTOL = 1e-9
REF_ATOL = 1e-14

ALPHA = np.unique(
    np.concatenate(
        (
            np.linspace(0.0, 1.0, 201),
            np.geomspace(1e-12, 1e-2, 21),
            1.0 - np.geomspace(1e-12, 1e-2, 21),
        )
    )
)
EPS = np.unique(
    np.concatenate((np.linspace(-4.0, 4.0, 81), np.geomspace(4.0, 400.0, 41)))
)

# ---------------------------------------------------------------------------
# Strategies


def _log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(math.log(lo), math.log(hi)).map(
        lambda u: min(max(math.exp(u), lo), hi)
    )


def _param(cls: type[Mechanism], name: str) -> st.SearchStrategy[float]:
    lo, hi = cls.PARAMS[name].typical
    return _log_uniform(lo, hi)


@st.composite
def mechanisms(draw: Any, names: tuple[str, ...] | None = None) -> Mechanism:
    """A registry mechanism with parameters in its typical range."""
    name = draw(st.sampled_from(names or tuple(sorted(REGISTRY))))
    cls = REGISTRY[name]
    kwargs: dict[str, Any] = {p: draw(_param(cls, p)) for p in cls.PARAMS}
    if issubclass(cls, PoissonSubsampled):
        return cls(**kwargs).with_pair(draw(st.sampled_from(PAIRS)))
    return cls(**kwargs)


#: Largest count of one component (keeps every example well below a second).
N_MAX = 64

Composition = list[tuple[Mechanism, int]]


@st.composite
def compositions(
    draw: Any, names: tuple[str, ...] | None = None, max_size: int = 3
) -> Composition:
    """1 to ``max_size`` components, each with a count in 1..N_MAX."""
    size = draw(st.integers(1, max_size))
    return [(draw(mechanisms(names)), draw(st.integers(1, N_MAX))) for _ in range(size)]


def _label(comp: Composition) -> str:
    kinds = sorted({type(m).name for m, _ in comp})
    pairs = sorted({getattr(m, "pair", "-") for m, _ in comp} - {"-"})
    extra = f" pair={'/'.join(pairs)}" if pairs else ""
    return f"{len(comp)} comp: {'+'.join(kinds)}{extra}"


# ---------------------------------------------------------------------------
# Methods and where they apply


def _exact_applies(comp: Composition) -> bool:
    return A.Exact.serves(tuple(comp))


def _rdp_applies(comp: Composition) -> bool:
    return all(
        isinstance(m, (M.Gaussian, M.PureDP, M.SubsampledGaussian)) for m, _ in comp
    )


def _gdp_form_applies(comp: Composition) -> bool:
    return all(isinstance(m, (M.Gaussian, M.SubsampledGaussian)) for m, _ in comp)


METHODS: dict[str, tuple[Callable[[], Any], Callable[[Composition], bool]]] = {
    "CLT": (lambda: A.CLT(), lambda c: True),
    "CLT(exp)": (lambda: A.CLT(form="exp"), _gdp_form_applies),
    "CLT(chi2)": (lambda: A.CLT(form="chi2"), _gdp_form_applies),
    "BerryEsseen": (lambda: A.BerryEsseen(), lambda c: True),
    **{
        f"Edgeworth({j})": (lambda j=j: A.Edgeworth(order=j), lambda c: True)
        for j in range(5)
    },
    "Edgeworth(2, CF)": (
        lambda: A.Edgeworth(order=2, inverse="cornish_fisher"),
        lambda c: True,
    ),
    "SaddlePoint(1)": (lambda: A.SaddlePoint(order=1), lambda c: True),
    "SaddlePoint(2)": (lambda: A.SaddlePoint(order=2), lambda c: True),
    "Numerical": (lambda: A.Numerical(), lambda c: True),
    "Exact": (lambda: A.Exact(), _exact_applies),
    "RDP": (lambda: A.RDP(), _rdp_applies),
    "RDP(improved)": (lambda: A.RDP(conversion="improved"), _rdp_applies),
}


#: Registered accountants these properties leave to their own tests, with why.
REGISTRY_EXEMPT = {
    "Contour": "refuses atoms and lattices (most draws); tests/accountants/"
    "test_contour.py checks it against Numerical",
    "Auto": "answers from CLT, Edgeworth, SaddlePoint, Contour and Numerical, "
    "each checked here or in its own tests; tests/accountants/test_auto.py",
}


def test_methods_cover_the_registry() -> None:
    from symfdp.accountants.registry import by_class_name

    covered = {type(make()).__name__ for make, _ in METHODS.values()}
    assert covered | set(REGISTRY_EXEMPT) == set(by_class_name())
    assert not covered & set(REGISTRY_EXEMPT)


def _compose(method: str, comp: Composition) -> PrivacyCurve:
    return METHODS[method][0]().compose(comp)


def _quiet(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` with ApproximationWarning allowed (documented repairs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return fn()


def _examples(fraction: float) -> Any:
    """``settings`` running ``fraction`` of the active profile's examples."""
    return settings(max_examples=max(4, int(settings.default.max_examples * fraction)))


# ---------------------------------------------------------------------------
# Curve checks


def assert_tradeoff_function(alpha: np.ndarray, f: np.ndarray, what: str) -> None:
    """[0, 1 - alpha], non-increasing, convex (chord test, any grid)."""
    assert np.all(np.isfinite(f)), what
    assert np.all(f >= 0.0), what
    assert np.all(f <= 1.0 - alpha + TOL_VALUE), what
    assert np.all(np.diff(f) <= TOL_VALUE), what
    a0, a1, a2 = alpha[:-2], alpha[1:-1], alpha[2:]
    w = (a1 - a0) / (a2 - a0)
    chord = (1.0 - w) * f[:-2] + w * f[2:]
    excess = f[1:-1] - chord
    assert np.all(excess <= TOL_CONVEX), (what, float(excess.max()))


def assert_profile(eps: np.ndarray, d: np.ndarray, what: str) -> None:
    """[0, 1], non-increasing, and delta(eps) >= 1 - e^eps."""
    assert np.all(np.isfinite(d)), what
    assert np.all((d >= 0.0) & (d <= 1.0)), what
    assert np.all(np.diff(d) <= TOL_VALUE), what
    floor = -np.expm1(np.minimum(eps, 0.0))
    assert np.all(d >= floor - TOL_VALUE), (what, float((floor - d).max()))


# ---------------------------------------------------------------------------
# 1. Every method's curves are valid


def _compositions_for(method: str) -> st.SearchStrategy[Composition]:
    """Random compositions to which ``method`` applies."""
    if method == "Exact":
        return _exact_compositions()
    if method.startswith("RDP"):
        return compositions(("gaussian", "pure-dp", "subsampled-gaussian"))
    if method in ("CLT(exp)", "CLT(chi2)"):
        return compositions(("gaussian", "subsampled-gaussian"))
    return compositions()


@pytest.mark.parametrize("method", list(METHODS))
@_examples(0.3)
@given(data=st.data())
def test_every_method_gives_valid_curves(method: str, data: Any) -> None:
    comp = data.draw(_compositions_for(method), label="composition")
    event(_label(comp))
    curve = _quiet(lambda: _compose(method, comp))
    f = _quiet(lambda: np.asarray(curve.tradeoff(ALPHA), dtype=np.float64))
    assert_tradeoff_function(ALPHA, f, f"{method} trade-off of {comp}")
    d = _quiet(lambda: np.asarray(curve.delta(EPS), dtype=np.float64))
    assert_profile(EPS, d, f"{method} profile of {comp}")
    assert curve.delta(-math.inf) == 1.0 and curve.delta(math.inf) == 0.0


# ---------------------------------------------------------------------------
# 2. Certified brackets contain the exact answer and each other


def _exact_compositions() -> st.SearchStrategy[Composition]:
    """Compositions with a closed form: Gaussian mixes, pure-DP mixes (few
    distinct epsilons), and single mechanisms (n = 1)."""
    return st.one_of(
        compositions(("gaussian",)),
        compositions(("pure-dp",), max_size=2),
        st.builds(lambda m: [(m, 1)], mechanisms()),
    )


def _contains(lo: Any, ref: Any, hi: Any) -> np.ndarray:
    lo, ref, hi = (np.asarray(v, dtype=np.float64) for v in (lo, ref, hi))
    slack = REF_RTOL * np.abs(ref) + REF_ATOL
    return (lo <= ref + slack) & (ref - slack <= hi)


@_examples(0.5)
@given(comp=_exact_compositions(), delta=_log_uniform(1e-10, 0.5))
def test_numerical_bracket_contains_exact(comp: Composition, delta: float) -> None:
    event(_label(comp))
    exact = A.Exact().compose(comp)
    curve = A.Numerical().compose(comp)
    lo, hi = curve.delta_bounds(EPS)
    ok = _contains(lo, exact.delta(EPS), hi)
    assert ok.all(), ("delta", comp, EPS[~ok])
    lo, hi = curve.tradeoff_bounds(ALPHA)
    ok = _contains(lo, exact.tradeoff(ALPHA), hi)
    assert ok.all(), ("tradeoff", comp, ALPHA[~ok])
    lo, hi = curve.epsilon_bounds(delta)
    ref = exact.epsilon(delta)
    assert _contains(lo, ref, hi), ("epsilon", comp, delta, lo, ref, hi)


@_examples(0.5)
@given(comp=compositions(), delta=_log_uniform(1e-10, 0.5))
def test_brackets_at_two_resolutions_intersect(comp: Composition, delta: float) -> None:
    """Both brackets contain the truth, so they must overlap."""
    event(_label(comp))
    coarse = A.Numerical(eps_rel_tol=3e-2, refine=0).compose(comp)
    fine = A.Numerical(eps_rel_tol=1e-3).compose(comp)
    for what, x in (("delta", EPS), ("tradeoff", ALPHA), ("epsilon", delta)):
        lo1, hi1 = getattr(coarse, f"{what}_bounds")(x)
        lo2, hi2 = getattr(fine, f"{what}_bounds")(x)
        gap = np.maximum(lo1, lo2) - np.minimum(hi1, hi2)
        assert np.all(gap <= TOL_VALUE * np.maximum(1.0, np.abs(hi2))), (what, comp)


@_examples(0.5)
@given(comp=compositions(), data=st.data())
def test_other_certified_bounds_agree_with_the_bracket(
    comp: Composition, data: Any
) -> None:
    """Berry-Esseen is a certified lower bound on f, RDP an upper bound on delta:
    neither may cross the Numerical bracket on the wrong side."""
    choices = ["BerryEsseen"] + (["RDP", "RDP(improved)"] if _rdp_applies(comp) else [])
    method = data.draw(st.sampled_from(choices), label="method")
    event(f"method: {method}")
    event(_label(comp))
    bound = _quiet(lambda: _compose(method, comp))
    curve = A.Numerical().compose(comp)
    if method == "BerryEsseen":
        _, hi = curve.tradeoff_bounds(ALPHA)
        f_lo = _quiet(lambda: np.asarray(bound.tradeoff(ALPHA)))
        assert np.all(f_lo <= hi + TOL_VALUE), comp
    else:
        lo, _ = curve.delta_bounds(EPS)
        assert np.all(np.asarray(bound.delta(EPS)) >= lo - TOL_VALUE), comp


# ---------------------------------------------------------------------------
# 3. epsilon and delta are inverse to each other


def _step(e: float) -> float:
    return H_INVERSE * max(1.0, abs(e))


def _fails_documented(exc: ValueError) -> bool:
    """The documented refusals of ``epsilon``: no finite eps is certified below a
    floor (Berry-Esseen), or below the resolution of a Numerical curve."""
    text = str(exc)
    return "no finite epsilon" in text or "resolution" in text


@pytest.mark.parametrize("method", list(METHODS))
@_examples(0.3)
@given(data=st.data())
def test_epsilon_and_delta_are_inverse(method: str, data: Any) -> None:
    r"""For every method, with :math:`\varepsilon(d) = \inf\{e \ge 0: \delta(e)
    \le d\}` and :math:`\delta` non-increasing (both exact consequences of the
    definition; ``h`` exceeds the solvers' tolerances):

    * d -> eps -> d: :math:`\delta(\varepsilon(d) + h) \le d`, and
      :math:`\delta(\varepsilon(d) - h) \ge d` when :math:`\varepsilon(d) > h`
      (the infimum lies within ``h`` of the answer; at a near-vertical drop of
      the profile, delta at the answer itself depends on the solver's last step);
    * eps -> d -> eps: where :math:`\delta(e - h) > \delta(e) > \delta(e + h)`
      (strictly decreasing), :math:`|\varepsilon(\delta(e)) - e| \le h`.
    """
    comp = data.draw(_compositions_for(method), label="composition")
    event(_label(comp))
    curve = _quiet(lambda: _compose(method, comp))
    d = data.draw(_log_uniform(1e-12, 0.9), label="delta")
    try:
        e = float(_quiet(lambda: curve.epsilon(d)))
    except ValueError as exc:
        assert _fails_documented(exc), exc
        event("epsilon refused (documented floor)")
        return
    assert math.isfinite(e) and e >= 0.0
    h = _step(e)
    after = float(_quiet(lambda: curve.delta(e + h)))
    assert after <= d * (1.0 + RTOL_INVERSE), (method, comp, d, e, after)
    if e > h:
        before = float(_quiet(lambda: curve.delta(e - h)))
        assert before >= d * (1.0 - RTOL_INVERSE), (method, comp, d, e, before)
    # eps -> delta -> eps at a drawn eps where the profile is strictly decreasing.
    e0 = data.draw(st.floats(0.0, 2.0 * e + 1.0), label="eps")
    h0 = _step(e0)
    lo_e, mid, hi_e = _quiet(lambda: curve.delta(np.array([e0 - h0, e0, e0 + h0])))
    strict = lo_e > mid * (1 + RTOL_INVERSE) and mid > hi_e * (1 + RTOL_INVERSE)
    if e0 > h0 and strict and 0.0 < mid < 1.0:
        event("strictly decreasing at the drawn eps")
        back = float(_quiet(lambda: curve.epsilon(mid)))
        assert abs(back - e0) <= h0, (method, comp, e0, mid, back)


# ---------------------------------------------------------------------------
# 4. Monotonicity: more composition, less noise and a larger sampling rate hurt

#: Deltas at which epsilon is compared.
DELTAS = np.array([1e-8, 1e-5, 1e-2])
#: Relative slack of exact monotonicity comparisons (float64 rounding of closed
#: forms, root finding to ~1e-12 relative).
RTOL_MONOTONE = 1e-9


def _all_gaussian(comp: Composition) -> bool:
    return all(m.gaussian_mu() is not None for m, _ in comp)


def _guaranteed(change: str, weak: Composition, strong: Composition) -> list[str]:
    """Methods whose formulas guarantee monotonicity for this change.

    ``Exact`` and ``Numerical`` always (the latter through its brackets); RDP
    (Renyi divergences add under composition and obey data processing); the
    GDP closed forms ``CLT(exp)``/``CLT(chi2)`` (mu^2 adds and increases in p and
    1/sigma); on Gaussian laws every method that is exact there. The moments CLT
    guarantees it only when every count is scaled by the same factor (mu grows as
    the square root of the factor); for other changes its mu can fall (a
    component with a large loss variance and a small mean gap dilutes it).
    """
    both = weak + strong
    out = ["Numerical"]
    if _exact_applies(weak) and _exact_applies(strong):
        out.append("Exact")
    if _rdp_applies(both):
        out += ["RDP", "RDP(improved)"]
    if _gdp_form_applies(both):
        out += ["CLT(exp)", "CLT(chi2)"]
    if _all_gaussian(both):
        out += ["CLT", "Edgeworth(0)", "Edgeworth(2)", "Edgeworth(4)", "SaddlePoint(2)"]
    elif change == "scale":
        out.append("CLT")
    return out


def _assert_bracket_order(
    weak: tuple[Any, Any, Any], strong: tuple[Any, Any, Any], what: str
) -> None:
    r"""Sound comparisons for brackets ``(lo, estimate, hi)`` of quantities with
    :math:`x_{weak} \le x_{strong}`: :math:`lo_{weak} \le x_{weak} \le x_{strong}
    \le hi_{strong}`, and the estimates (each within its bracket) satisfy
    :math:`\hat x_{weak} - \hat x_{strong} \le hi_{weak} - lo_{strong} \le
    w_{weak} + w_{strong}`. Nothing relates :math:`lo_{strong}` to
    :math:`hi_{weak}`: the brackets may overlap."""
    lo_w, est_w, hi_w = (np.asarray(v, dtype=np.float64) for v in weak)
    lo_s, est_s, hi_s = (np.asarray(v, dtype=np.float64) for v in strong)
    slack = TOL_VALUE * np.maximum(1.0, np.abs(hi_s))
    assert np.all(lo_w <= hi_s + slack), what
    width = (hi_w - lo_w) + (hi_s - lo_s)
    assert np.all(est_w <= est_s + width + slack), what


def _assert_monotone(method: str, weak: Composition, strong: Composition) -> None:
    """delta_weak <= delta_strong, f_weak >= f_strong, eps_weak <= eps_strong."""
    cw = _quiet(lambda: _compose(method, weak))
    cs = _quiet(lambda: _compose(method, strong))
    if method == "Numerical":
        with warnings.catch_warnings():
            # Random compositions reach deltas near the truncation level, where
            # the point estimate warns that its bracket is wide; the test only
            # uses the estimates within their brackets' widths.
            warnings.simplefilter("ignore", ApproximationWarning)
            dw = (*cw.delta_bounds(EPS), cw.delta(EPS))
            ds = (*cs.delta_bounds(EPS), cs.delta(EPS))
            # f_strong <= f_weak: the strong curve plays the "weak" role below.
            fw = (*cw.tradeoff_bounds(ALPHA), cw.tradeoff(ALPHA))
            fs = (*cs.tradeoff_bounds(ALPHA), cs.tradeoff(ALPHA))
            ew = (*cw.epsilon_bounds(DELTAS), cw.epsilon(DELTAS))
            es = (*cs.epsilon_bounds(DELTAS), cs.epsilon(DELTAS))
        _assert_bracket_order((dw[0], dw[2], dw[1]), (ds[0], ds[2], ds[1]), "delta")
        _assert_bracket_order((fs[0], fs[2], fs[1]), (fw[0], fw[2], fw[1]), "f")
        _assert_bracket_order((ew[0], ew[2], ew[1]), (es[0], es[2], es[1]), "eps")
        return
    d_w = _quiet(lambda: np.asarray(cw.delta(EPS)))
    d_s = _quiet(lambda: np.asarray(cs.delta(EPS)))
    assert np.all(d_w <= d_s * (1 + RTOL_MONOTONE) + TOL_VALUE), (method, "delta")
    f_w = _quiet(lambda: np.asarray(cw.tradeoff(ALPHA)))
    f_s = _quiet(lambda: np.asarray(cs.tradeoff(ALPHA)))
    assert np.all(f_s <= f_w * (1 + RTOL_MONOTONE) + TOL_VALUE), (method, "f")
    e_w = _quiet(lambda: np.asarray(cw.epsilon(DELTAS)))
    e_s = _quiet(lambda: np.asarray(cs.epsilon(DELTAS)))
    tol = RTOL_MONOTONE * np.maximum(1.0, e_s)
    assert np.all(e_w <= e_s + tol), (method, "epsilon", e_w, e_s)


@st.composite
def more_composition(draw: Any) -> tuple[str, Composition, Composition]:
    """``(change, weak, strong)``: ``strong`` composes more than ``weak``."""
    weak = draw(compositions())
    change = draw(st.sampled_from(["count", "component", "scale"]))
    strong = list(weak)
    if change == "count":
        i = draw(st.integers(0, len(weak) - 1))
        strong[i] = (weak[i][0], weak[i][1] + draw(st.integers(1, N_MAX)))
    elif change == "component":
        strong.append((draw(mechanisms()), draw(st.integers(1, N_MAX))))
    else:
        factor = draw(st.integers(2, 3))
        strong = [(m, k * factor) for m, k in weak]
    return change, weak, strong


@_examples(0.75)
@given(case=more_composition(), data=st.data())
def test_more_composition_never_helps(
    case: tuple[str, Composition, Composition], data: Any
) -> None:
    change, weak, strong = case
    method = data.draw(st.sampled_from(_guaranteed(change, weak, strong)))
    event(f"method: {method}")
    event(f"change: {change}")
    _assert_monotone(method, weak, strong)


def _less_noise(m: Mechanism, factor: float) -> Mechanism:
    """The same mechanism with its noise divided by ``factor`` (> 1)."""
    if isinstance(m, M.SubsampledGaussian):
        return M.SubsampledGaussian(p=m.p, sigma=m.sigma / factor).with_pair(m.pair)
    if isinstance(m, M.SubsampledLaplace):
        return M.SubsampledLaplace(p=m.p, mu=m.base.mu * factor).with_pair(m.pair)
    if isinstance(m, M.PureDP):
        return M.PureDP(eps=m.eps * factor)
    return type(m)(mu=m.mu * factor)


@_examples(0.75)
@given(weak=compositions(), factor=st.floats(1.01, 2.0), data=st.data())
def test_more_noise_helps(weak: Composition, factor: float, data: Any) -> None:
    i = data.draw(st.integers(0, len(weak) - 1), label="component")
    strong = list(weak)
    strong[i] = (_less_noise(weak[i][0], factor), weak[i][1])
    method = data.draw(st.sampled_from(_guaranteed("noise", weak, strong)))
    event(f"method: {method}")
    event(f"mechanism: {type(weak[i][0]).name}")
    _assert_monotone(method, weak, strong)


@_examples(0.75)
@given(
    weak=compositions(("subsampled-gaussian", "subsampled-laplace")),
    factor=st.floats(1.01, 4.0),
    data=st.data(),
)
def test_larger_sampling_rate_hurts(
    weak: Composition, factor: float, data: Any
) -> None:
    i = data.draw(st.integers(0, len(weak) - 1), label="component")
    m, k = weak[i]
    assume(m.p < 1.0)
    strong = list(weak)
    strong[i] = (_with_p(m, min(1.0, m.p * factor)), k)
    method = data.draw(st.sampled_from(_guaranteed("p", weak, strong)))
    event(f"method: {method}")
    event(f"pair: {m.pair}")
    _assert_monotone(method, weak, strong)


def _with_p(m: Any, p: float) -> Mechanism:
    if isinstance(m, M.SubsampledGaussian):
        return M.SubsampledGaussian(p=p, sigma=m.sigma).with_pair(m.pair)
    return M.SubsampledLaplace(p=p, mu=m.base.mu).with_pair(m.pair)
