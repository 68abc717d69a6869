r"""The conformance matrix: every mechanism family x every accountant x every query,
judged against the certified truth.

Axes (derived, so that a family or an accountant added later enters the matrix):

* *families*: every public, concrete :class:`~symfdp.mechanisms.Mechanism`
  subclass, built from its ``PARAMS`` (a point of each ``typical`` range) plus the
  arguments in :data:`VARIANTS`; every user constructor ``M.from_*`` through a
  recipe in :data:`USER_RECIPES`; classes that are only reached through another
  entry are named in :data:`REACHED_THROUGH`. :func:`unbuilt` lists what is
  none of these (the fast slice fails on it).
* *relations*: :data:`symfdp.mechanisms.ADJACENCIES`.
* *accountants*: :func:`symfdp.accountants.registry.accountant_classes`, each
  with its defaults plus the options in :data:`ACCOUNTANT_OPTIONS`.
* *queries*: :class:`Ask` at the points of :class:`Grid`.

The truth (:func:`truth_for`) is ``A.Numerical``'s certified bracket, replaced by
an exact value (:mod:`tests.conformance.exact_laws`) where one exists; the
certified bracket is itself checked against the exact value.

A cell *fails* (:class:`Outcome`) on a silent answer more than 5% off the truth
(its distance to the truth bracket; for ``guarantee = "bound"`` accountants only
on the anti-conservative side), on a certified bracket that misses an exact
value, and on an unclear error (:func:`_clear`: not ``ValueError``/``TypeError``,
or a message that names no accountant that serves the case, unless its type says
that no accountant can).
"""

from __future__ import annotations

import argparse
import enum
import functools
import inspect
import math
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import sympy as sp

from symfdp import ApproximationWarning, rero
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants.registry import accountant_classes
from symfdp.curve import PrivacyCurve
from tests.conformance.exact_laws import ExactTruth, FiniteLaw

#: Relative distance to the truth beyond which a silent answer fails.
SILENT_RTOL: Final = 0.05
#: Relative distance within which a warned answer is a false alarm.
FALSE_ALARM_RTOL: Final = 0.02
#: Exact sums are formed up to these many compositions and composed atoms.
MAX_EXACT_N: Final = 100
MAX_EXACT_ATOMS: Final = 20_000
#: Relative slack of the certified-containment check (float round-off).
CONTAIN_RTOL: Final = 1e-9


class Ask(enum.Enum):
    """The queries of the matrix."""

    DELTA = "delta(eps)"
    EPSILON = "eps(delta)"
    TRADEOFF = "f(alpha)"
    GAMMA = "ReRo gamma"
    MU_STAR = "mu*"


#: Absolute slack of each query (below it, differences are not judged).
ATOL: Final = {
    Ask.DELTA: 1e-12,
    Ask.EPSILON: 1e-6,
    Ask.TRADEOFF: 1e-6,
    Ask.GAMMA: 1e-9,
    Ask.MU_STAR: 1e-6,
}
#: The conservative direction of each query (+1: a larger answer is safe).
SAFE_SIDE: Final = {
    Ask.DELTA: 1,
    Ask.EPSILON: 1,
    Ask.TRADEOFF: -1,
    Ask.GAMMA: 1,
    Ask.MU_STAR: 1,
}


class Outcome(enum.Enum):
    """What a judged answer is."""

    OK = "ok"  # silent, within 5% of the truth
    WARNED = "warned"  # an ApproximationWarning came with it
    LOOSE_BOUND = "loose bound"  # a rigorous bound, >5% on the safe side
    REFUSED = "refused"  # a clear ValueError/TypeError
    UNRESOLVED = "unresolved"  # no truth to judge against
    SILENT_OFF = "silent >5% off"  # FAIL
    CERTIFIED_MISS = "certified miss"  # FAIL
    UNCLEAR_ERROR = "unclear error"  # FAIL

    @property
    def fails(self) -> bool:
        return self in (
            Outcome.SILENT_OFF,
            Outcome.CERTIFIED_MISS,
            Outcome.UNCLEAR_ERROR,
        )


@dataclass(frozen=True)
class Grid:
    """The query points (deltas define the eps points through the truth)."""

    deltas: tuple[float, ...] = (1e-2, 1e-4, 1e-6)
    alphas: tuple[float, ...] = (1e-3, 1e-2, 0.1, 0.3)
    kappas: tuple[float, ...] = (1e-3, 1e-2, 0.1)


# ------------------------------------------------------------------ families
def _typical(param: M.Param, u: float) -> float:
    lo, hi = param.typical
    if lo > 0:
        return float(lo * (hi / lo) ** u)
    return float(lo + (hi - lo) * u)


def _asymmetric_pmfs() -> M.Mechanism:
    return M.from_pmfs([0.6, 0.3, 0.1], [0.3, 0.3, 0.4], name="asymmetric 3-point")


#: Arguments a family needs beyond its ``PARAMS`` (one dict per variant).
VARIANTS: Final[dict[str, Callable[[], list[dict[str, Any]]]]] = {
    "RandomizedResponse": lambda: [{"k": 2}, {"k": 10}],
    "EpsilonDelta": lambda: [{"delta": 1e-7}],
    "SampledWithoutReplacement": lambda: [
        {"base": M.Gaussian(sigma=1.0), "batch_size": 100, "dataset_size": 1000}
    ],
    "PoissonSubsampled": lambda: [
        {"base": M.Laplace(mu=1.0)},
        {"base": M.RandomizedResponse(eps=1.0)},
    ],
    "Swapped": lambda: [{"base": _asymmetric_pmfs()}],
    # Truncated Poisson sampling's revealed mixture: Poisson's add pair, and a
    # replacement at sensitivity 2 when the batch is cut (samplers.TruncatedPoisson).
    "PairMixture": lambda: [
        {
            "components": (
                (0.7, M.with_adjacency(M.SubsampledGaussian(sigma=1.0, p=0.1), "add")),
                (0.3, M.with_adjacency(M.SubsampledGaussian(sigma=0.5, p=0.05), "add")),
            )
        }
    ],
}


def _logistic_densities() -> M.Mechanism:
    x = sp.Symbol("x", real=True)
    return M.from_densities(
        sp.exp(-x) / (1 + sp.exp(-x)) ** 2,
        sp.exp(-(x - 1)) / (1 + sp.exp(-(x - 1))) ** 2,
        x,
        name="logistic location",
    )


def _gaussian_densities() -> M.Mechanism:
    x = sp.Symbol("x", real=True)
    phi = lambda m: sp.exp(-((x - m) ** 2) / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    return M.from_densities(phi(0), phi(1), x, name="Gaussian location (sympy)")


def _generalized_gaussian(beta: float) -> M.Mechanism:
    """exp(-|x|^beta) vs exp(-|x-1|^beta), normalised."""
    log_c = -math.log(2 * math.gamma(1 + 1 / beta))
    return M.from_log_likelihood_ratio(
        lambda x: np.abs(x) ** beta - np.abs(x - 1.0) ** beta,
        lambda x: log_c - np.abs(x) ** beta,
        breakpoints=(0.0, 1.0),
        log_density=True,
        name=f"generalized Gaussian beta={beta}",
    )


def _asymmetric_laplace_llr() -> M.Mechanism:
    """Lap(0,1) vs Lap(1,1) by its loss, with an exact Laplace truth available
    from Numerical only."""
    return M.from_log_likelihood_ratio(
        lambda x: np.abs(x) - np.abs(x - 1.0),
        lambda x: -np.abs(x) - math.log(2.0),
        breakpoints=(0.0, 1.0),
        log_density=True,
        name="Laplace by its loss",
    )


#: One or more mechanisms per user constructor ``M.from_*``.
USER_RECIPES: Final[dict[str, list[Callable[[], M.Mechanism]]]] = {
    "from_pmfs": [_asymmetric_pmfs],
    "from_densities": [_gaussian_densities, _logistic_densities],
    "from_log_likelihood_ratio": [
        _asymmetric_laplace_llr,
        lambda: _generalized_gaussian(1.5),
    ],
}
#: Classes reached through another entry of the matrix (not built by class).
REACHED_THROUGH: Final = {
    "FinitePair": "from_pmfs",
    "DensityPair": "from_densities and from_log_likelihood_ratio",
    "SymmetrisedPair": "SampledWithoutReplacement (its public subclass)",
    "BothDirections": "the relation axis (compose(adjacency=...))",
}


def mechanism_classes() -> list[type[M.Mechanism]]:
    """Every public, concrete mechanism class of :mod:`symfdp.mechanisms`."""
    return [
        cls
        for cls in M._subclasses(M.Mechanism)
        if cls.__module__.startswith("symfdp.mechanisms.")
        and not cls.__name__.startswith("_")
        and not inspect.isabstract(cls)
    ]


def user_constructors() -> list[str]:
    """Every user constructor of the package (``M.from_*``)."""
    return sorted(n for n in M.__all__ if n.startswith("from_"))


def _builds_from_params(cls: type[M.Mechanism]) -> bool:
    params = inspect.signature(cls).parameters
    required = {n for n, p in params.items() if p.default is inspect.Parameter.empty}
    return bool(cls.__dict__.get("PARAMS")) and required <= set(cls.PARAMS)


def unbuilt() -> list[str]:
    """Classes and constructors the matrix cannot build (must be empty)."""
    out = [
        cls.__name__
        for cls in mechanism_classes()
        if cls.__name__ not in VARIANTS
        and cls.__name__ not in REACHED_THROUGH
        and not _builds_from_params(cls)
    ]
    return out + [n for n in user_constructors() if n not in USER_RECIPES]


@dataclass(frozen=True)
class BuildFailure:
    """A valid mechanism that its constructor refused (a failing cell)."""

    label: str
    error: str

    def __repr__(self) -> str:
        return self.label


def _built(label: str, build: Callable[[], Any]) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return build()
    except Exception as ex:
        return BuildFailure(label, f"{type(ex).__name__}: {ex}")


def family_mechanisms(us: tuple[float, ...] = (0.5,)) -> Iterator[tuple[str, Any]]:
    """``(family, mechanism)`` for every family, at the ``typical``-range points
    ``us`` (log scale) of its ``PARAMS`` and every variant (a
    :class:`BuildFailure` where the constructor refused)."""
    for cls in mechanism_classes():
        name = cls.__name__
        if name in REACHED_THROUGH:
            continue
        variants = VARIANTS[name]() if name in VARIANTS else [{}]
        signature = inspect.signature(cls).parameters
        for u in us:
            params = {
                k: _typical(p, u)
                for k, p in cls.__dict__.get("PARAMS", {}).items()
                if k in signature
            }
            for extra in variants:
                label = f"{name}({params}, {extra})"
                yield name, _built(label, functools.partial(cls, **params, **extra))
    for ctor in user_constructors():
        for i, recipe in enumerate(USER_RECIPES[ctor]):
            yield ctor, _built(f"{ctor} recipe {i}", recipe)


# ------------------------------------------------------------------ cases
@dataclass(frozen=True)
class Case:
    """One composition: ``n`` steps of ``mechanism`` under ``adjacency``."""

    family: str
    mechanism: Any
    n: int
    adjacency: str = "add_or_remove"

    @property
    def label(self) -> str:
        return f"{self.mechanism!r} x{self.n} [{self.adjacency}]"


def finite_law(m: Any) -> FiniteLaw | None:
    """The exact finite law of a mechanism's loss (its atoms), if it has one."""
    blatant = float(getattr(m, "blatant_mass", 0.0) or 0.0)
    base = m.finite_part() if blatant > 0 else m
    if not isinstance(base, M.FiniteLoss):
        return None
    quad = base.plrv_quadrature()
    keep = 1.0 - blatant
    return FiniteLaw(
        np.asarray(quad.nodes, np.float64),
        keep * quad.weights("P"),
        keep * quad.weights("Q"),
        blatant,
        blatant,
    )


def exact_truth(case: Case) -> ExactTruth | None:
    """The exact answers of ``case``, where the matrix knows them: Gaussian
    compositions (replace-one doubles mu, as dp-accounting's REPLACE_ONE) and
    finite laws under add/remove-type relations."""
    m = case.mechanism
    if type(m) is M.Gaussian:
        scale = 2.0 if case.adjacency == "replace_one" else 1.0
        return ExactTruth(gaussian_mu=scale * m.mu * math.sqrt(case.n))
    if case.adjacency == "replace_one":
        return None
    law = finite_law(m)
    if law is None or case.n > MAX_EXACT_N or law.l.size * case.n > MAX_EXACT_ATOMS:
        return None
    composed = law.compose(case.n)
    if case.adjacency == "add" or m.is_symmetric:
        laws: tuple[FiniteLaw, ...] = (composed,)
    elif case.adjacency == "remove":
        laws = (composed.swapped(),)
    else:
        laws = (composed, composed.swapped())
    return ExactTruth(laws)


# ------------------------------------------------------------------ accountants
#: Options tried besides each accountant's defaults.
ACCOUNTANT_OPTIONS: Final[dict[str, list[dict[str, Any]]]] = {
    "edgeworth": [{"order": 4}],
    "saddlepoint": [{"order": 3}],
}


@dataclass(frozen=True)
class Method:
    """An accountant of the registry with options."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self.options)
        return f"{self.name}({opts})"

    @property
    def cls(self) -> type[A.Accountant]:
        return accountant_classes()[self.name]

    @property
    def guarantee(self) -> str:
        return str(self.cls.guarantee)

    def build(self) -> A.Accountant:
        return self.cls(**dict(self.options))


def methods() -> list[Method]:
    """Every registered accountant with its defaults and :data:`ACCOUNTANT_OPTIONS`."""
    out = []
    for name in accountant_classes():
        out.append(Method(name))
        out += [
            Method(name, tuple(o.items())) for o in ACCOUNTANT_OPTIONS.get(name, [])
        ]
    return out


def method_names() -> set[str]:
    """Class names an error message may name as the method that serves a case."""
    return {cls.__name__ for cls in accountant_classes().values()}


# ------------------------------------------------------------------ truth
@dataclass
class Truth:
    """The truth of one case: per query, the points and a bracket (``lo``,
    ``hi``); ``exact`` where an exact value exists; ``certified`` the
    Numerical bracket (or None if it could not be computed)."""

    points: dict[Ask, np.ndarray] = field(default_factory=dict)
    lo: dict[Ask, np.ndarray] = field(default_factory=dict)
    hi: dict[Ask, np.ndarray] = field(default_factory=dict)
    exact: dict[Ask, np.ndarray] = field(default_factory=dict)
    certified_lo: dict[Ask, np.ndarray] = field(default_factory=dict)
    certified_hi: dict[Ask, np.ndarray] = field(default_factory=dict)
    error: str | None = None


def _quiet(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _mu_star_bracket(curve: PrivacyCurve) -> tuple[float, float]:
    return curve.mu_star_bounds()


def truth_for(case: Case, grid: Grid, reference: A.Accountant | None = None) -> Truth:
    """The certified bracket of ``reference`` (default ``A.Numerical()``) at the
    grid's points, with the exact values where :func:`exact_truth` has them."""
    t = Truth()
    if isinstance(case.mechanism, BuildFailure):
        t.error = case.mechanism.error
        t.points[Ask.EPSILON] = np.array(grid.deltas)
        return t
    exact = exact_truth(case)
    deltas = np.array(grid.deltas)
    try:
        acc = reference if reference is not None else A.Numerical()
        curve = _quiet(
            lambda: acc.compose(case.mechanism, n=case.n, adjacency=case.adjacency)
        )
        e_lo, e_hi = (
            np.atleast_1d(v) for v in _quiet(lambda: curve.epsilon_bounds(deltas))
        )
        t.certified_lo[Ask.EPSILON], t.certified_hi[Ask.EPSILON] = e_lo, e_hi
    except (ValueError, TypeError, NotImplementedError) as ex:
        t.error = f"{type(ex).__name__}: {ex}"
        curve = None
        e_lo = e_hi = None
    t.points[Ask.EPSILON] = deltas
    if exact is not None:
        eps_mid = exact.epsilon(deltas)
    elif e_lo is not None:
        eps_mid = 0.5 * (e_lo + e_hi)
    else:
        return t
    eps_points = np.unique(np.round(eps_mid[eps_mid > 1e-3], 4))
    t.points[Ask.DELTA] = eps_points
    t.points[Ask.TRADEOFF] = np.array(grid.alphas)
    t.points[Ask.GAMMA] = np.array(grid.kappas)
    t.points[Ask.MU_STAR] = np.array([math.nan])
    if curve is not None:
        lo, hi = _quiet(lambda: curve.delta_bounds(eps_points))
        t.certified_lo[Ask.DELTA], t.certified_hi[Ask.DELTA] = (
            np.atleast_1d(lo),
            np.atleast_1d(hi),
        )
        lo, hi = _quiet(lambda: curve.tradeoff_bounds(t.points[Ask.TRADEOFF]))
        t.certified_lo[Ask.TRADEOFF], t.certified_hi[Ask.TRADEOFF] = lo, hi
        lo, hi = _quiet(lambda: rero.gamma_bounds(curve, t.points[Ask.GAMMA]))
        t.certified_lo[Ask.GAMMA], t.certified_hi[Ask.GAMMA] = lo, hi
        lo_m, hi_m = _quiet(lambda: _mu_star_bracket(curve))
        t.certified_lo[Ask.MU_STAR], t.certified_hi[Ask.MU_STAR] = (
            np.array([lo_m]),
            np.array([hi_m]),
        )
    if exact is not None:
        t.exact[Ask.EPSILON] = eps_mid
        t.exact[Ask.DELTA] = exact.delta(eps_points)
        t.exact[Ask.TRADEOFF] = exact.tradeoff(t.points[Ask.TRADEOFF])
        t.exact[Ask.GAMMA] = exact.gamma(t.points[Ask.GAMMA])
        t.exact[Ask.MU_STAR] = np.array([exact.mu_star()])
    for ask in t.points:
        if ask in t.exact:
            t.lo[ask] = t.hi[ask] = t.exact[ask]
        elif ask in t.certified_lo:
            t.lo[ask], t.hi[ask] = t.certified_lo[ask], t.certified_hi[ask]
    return t


# ------------------------------------------------------------------ answers
@dataclass(frozen=True)
class Record:
    """One judged answer of the matrix."""

    family: str
    case: str
    n: int
    adjacency: str
    method: str
    guarantee: str
    ask: str
    point: float
    value: float
    warned: bool
    estimate: float | None
    truth_lo: float
    truth_hi: float
    exact: bool
    outcome: str
    message: str
    seconds: float

    @property
    def true_error(self) -> float:
        """``|value - truth|`` at the bracket's middle."""
        return abs(self.value - 0.5 * (self.truth_lo + self.truth_hi))

    @property
    def resolution(self) -> float:
        """Half-width of the truth bracket."""
        return 0.5 * (self.truth_hi - self.truth_lo)


def _clear(ex: BaseException) -> bool:
    """A refusal is clear when it is a ``ValueError``/``TypeError`` that names an
    accountant serving the case, or a question no accountant can answer, by its
    type: a relation the mechanism does not define
    (:class:`~symfdp.mechanisms.UndefinedRelationError`, whose message must name
    the constructor that builds the pair) or an epsilon that is infinite for
    every method (:class:`~symfdp.mechanisms.BlatantLossError`)."""
    text = str(ex)
    if isinstance(ex, M.UndefinedRelationError):
        return "M.from_" in text
    if isinstance(ex, M.BlatantLossError):
        return True
    return isinstance(ex, ValueError | TypeError) and any(
        name in text for name in method_names()
    )


def _curve_answers(
    curve: PrivacyCurve, ask: Ask, points: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """Values and error estimates (None where the method gives none)."""
    if ask is Ask.DELTA:
        values = np.atleast_1d(curve.delta(points))
        err = _estimate(lambda: curve.delta_error(points))
    elif ask is Ask.EPSILON:
        values = np.atleast_1d(curve.epsilon(points))
        err = _estimate(lambda: curve.epsilon_error(points))
    elif ask is Ask.TRADEOFF:
        values = np.atleast_1d(curve.tradeoff(points))
        err = _estimate(lambda: curve.tradeoff_error(points))
    elif ask is Ask.GAMMA:
        values = np.atleast_1d(rero.gamma(curve, points))
        gamma_error = getattr(rero, "gamma_error", None)
        err = (
            None
            if gamma_error is None
            else _estimate(lambda: gamma_error(curve, points))
        )
    else:
        values = np.array([curve.mu_star()])
        err = _estimate(lambda: curve.mu_star_error())
    return np.asarray(values, np.float64), err


def _estimate(fn: Callable[[], Any]) -> np.ndarray | None:
    try:
        return np.atleast_1d(np.asarray(fn(), np.float64))
    except NotImplementedError:
        return None


def judge(
    ask: Ask,
    value: float,
    warned: bool,
    lo: float,
    hi: float,
    guarantee: str,
    certified_lo: float | None = None,
    certified_hi: float | None = None,
    exact: float | None = None,
) -> Outcome:
    """The outcome of one answer (see the module docstring)."""
    if certified_lo is not None and exact is not None:
        slack = CONTAIN_RTOL * abs(exact) + ATOL[ask] * 1e-3
        if not (certified_lo - slack <= exact <= certified_hi + slack):
            return Outcome.CERTIFIED_MISS
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return Outcome.UNRESOLVED
    if warned:
        return Outcome.WARNED
    mid = 0.5 * (lo + hi)
    tol = SILENT_RTOL * abs(mid) + ATOL[ask]
    above, below = value - hi, lo - value
    if max(above, below) <= tol:
        return Outcome.OK
    if guarantee == "bound" and (above if SAFE_SIDE[ask] > 0 else below) > tol:
        return Outcome.LOOSE_BOUND
    return Outcome.SILENT_OFF


def run_cell(case: Case, method: Method, truth: Truth) -> list[Record]:
    """Every query of one (case, method) cell, judged against ``truth``."""
    base = dict(
        family=case.family,
        case=case.label,
        n=case.n,
        adjacency=case.adjacency,
        method=method.label,
        guarantee=method.guarantee,
    )
    out: list[Record] = []

    def refused(ask: Ask, ex: BaseException, seconds: float) -> None:
        outcome = Outcome.REFUSED if _clear(ex) else Outcome.UNCLEAR_ERROR
        out.append(
            Record(
                **base,
                ask=ask.value,
                point=math.nan,
                value=math.nan,
                warned=False,
                estimate=None,
                truth_lo=math.nan,
                truth_hi=math.nan,
                exact=False,
                outcome=outcome.value,
                message=f"{type(ex).__name__}: {ex}"[:300],
                seconds=seconds,
            )
        )

    t0 = time.perf_counter()
    if isinstance(case.mechanism, BuildFailure):
        out.append(
            Record(
                **base,
                ask="construction",
                point=math.nan,
                value=math.nan,
                warned=False,
                estimate=None,
                truth_lo=math.nan,
                truth_hi=math.nan,
                exact=False,
                outcome=Outcome.UNCLEAR_ERROR.value,
                message=case.mechanism.error[:300],
                seconds=0.0,
            )
        )
        return out
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ApproximationWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            curve = method.build().compose(
                case.mechanism, n=case.n, adjacency=case.adjacency
            )
        except Exception as ex:
            for ask in truth.points:
                refused(ask, ex, time.perf_counter() - t0)
            return out
    composed_warned = any(issubclass(w.category, ApproximationWarning) for w in caught)
    compose_seconds = time.perf_counter() - t0
    for ask, points in truth.points.items():
        if points.size == 0:
            continue
        t1 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ApproximationWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                values, errors = _curve_answers(curve, ask, points)
            except Exception as ex:
                refused(ask, ex, time.perf_counter() - t1)
                continue
        seconds = time.perf_counter() - t1 + compose_seconds
        warns = [
            str(w.message)
            for w in caught
            if issubclass(w.category, ApproximationWarning)
        ]
        warned = composed_warned or bool(warns)
        for i, x in enumerate(points):
            lo = float(truth.lo[ask][i]) if ask in truth.lo else math.nan
            hi = float(truth.hi[ask][i]) if ask in truth.hi else math.nan
            exact = float(truth.exact[ask][i]) if ask in truth.exact else None
            clo = chi = None
            if method.guarantee == "certified" and exact is not None:
                clo, chi = _own_bracket(curve, ask, points, i)
            outcome = judge(
                ask, float(values[i]), warned, lo, hi, method.guarantee, clo, chi, exact
            )
            out.append(
                Record(
                    **base,
                    ask=ask.value,
                    point=float(x),
                    value=float(values[i]),
                    warned=warned,
                    estimate=None if errors is None else float(errors[i]),
                    truth_lo=lo,
                    truth_hi=hi,
                    exact=exact is not None,
                    outcome=outcome.value,
                    message=(warns[0] if warns else "")[:300],
                    seconds=seconds,
                )
            )
    return out


def _own_bracket(
    curve: PrivacyCurve, ask: Ask, points: np.ndarray, i: int
) -> tuple[float | None, float | None]:
    """A certified curve's own bracket at ``points[i]`` (None if it gives none)."""

    def get() -> Any:
        if ask is Ask.DELTA:
            return curve.delta_bounds(points)
        if ask is Ask.EPSILON:
            return curve.epsilon_bounds(points)
        if ask is Ask.TRADEOFF:
            return curve.tradeoff_bounds(points)
        if ask is Ask.GAMMA:
            return rero.gamma_bounds(curve, points)
        return _mu_star_bracket(curve)

    try:
        lo, hi = _quiet(get)
    except (ValueError, TypeError, NotImplementedError):
        return None, None
    return float(np.atleast_1d(lo)[i]), float(np.atleast_1d(hi)[i])


# ------------------------------------------------------------------ case lists
def issue_cases() -> list[Case]:
    """The cases of issue 32 that the matrix must always hold."""
    return [
        Case("DiscreteGaussian", M.DiscreteGaussian(sigma=1.0), 1),
        Case("Gaussian", M.Gaussian(mu=0.5), 10, "replace_one"),
        Case("Laplace", M.Laplace(mu=1.0), 3),
        Case("SubsampledGaussian", M.SubsampledGaussian(sigma=0.5, p=0.1), 100),
        Case(
            "SampledWithoutReplacement",
            M.SampledWithoutReplacement(M.Gaussian(sigma=1.0), 100, 1000),
            100,
        ),
    ]


def family_cases(
    us: tuple[float, ...] = (0.5,),
    ns: tuple[int, ...] = (10,),
    adjacencies: tuple[str, ...] = ("add_or_remove",),
) -> list[Case]:
    """Every family at the ``typical`` points ``us``, composed ``ns`` times
    under each relation."""
    return [
        Case(family, m, n, adj)
        for family, m in family_mechanisms(us)
        for n in ns
        for adj in adjacencies
    ]


def add_case_arguments(parser: argparse.ArgumentParser) -> None:
    """The case axes of :func:`family_cases` as command-line options (``--us``,
    ``--ns``, ``--adjacencies``, ``--families``), for :func:`cases_from`."""
    parser.add_argument("--us", type=float, nargs="+", default=[0.5])
    parser.add_argument("--ns", type=int, nargs="+", default=[1, 10, 1000])
    parser.add_argument(
        "--adjacencies", nargs="+", default=["add_or_remove", "replace_one"]
    )
    parser.add_argument(
        "--families", nargs="+", help="only these families (default: every one)"
    )


def cases_from(args: argparse.Namespace) -> list[Case]:
    """:func:`family_cases` at the axes of :func:`add_case_arguments` plus
    :func:`issue_cases`, limited to ``--families``."""
    cases = family_cases(tuple(args.us), tuple(args.ns), tuple(args.adjacencies))
    cases += issue_cases()
    if args.families:
        cases = [c for c in cases if c.family in args.families]
    return cases
