"""Validation of every public entry point (issue 8, "Reliability").

Bad input -- a wrong type, NaN or inf, a value outside its range -- raises
``ValueError`` (``TypeError`` for a wrong type) whose message names the parameter;
the command line prints one line and exits with status 2, never a traceback.

The cases are generated from the API, not picked by hand: the mechanisms'
``PARAMS`` metadata, the signatures of the accountants, ``__all__`` of
:mod:`symfdp.tradeoff` and :mod:`symfdp.rero`, the public functions of
:mod:`symfdp.symbolic` and the ``argparse`` parsers of the command line. Each
parameter has a *domain* here (a real interval, an integer range, a choice, a
flag, a type) from which the bad values are derived; the completeness tests fail
when a public name or parameter appears without one, so that a new entry point
cannot go untested.

Conventions checked (and decided) here:

* wrong types raise ``TypeError``; an *order* of the wrong type raises
  ``ValueError`` ("unknown order", DESIGN.md), so either is accepted for orders
  and for choices;
* NaN raises ``ValueError`` (``TypeError`` is accepted for integer parameters);
* an **empty array** is a valid query: it returns an empty float array of the
  same shape (and a pair of them for the certified bounds), as NumPy ufuncs do.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import inspect
import io
import json
import math
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import calibrate as C
from symfdp import mechanisms as M
from symfdp import rero, training
from symfdp import samplers as S
from symfdp import tradeoff as T
from symfdp._validation import MAX_INT
from symfdp.cli import build_parser, main
from symfdp.curve import PrivacyCurve
from symfdp.numeric import compile as NC

INF = math.inf
NAN = math.nan
#: An int beyond the float64 range (float(HUGE_INT) raises OverflowError).
HUGE_INT = 10**400
TE: tuple[type[Exception], ...] = (TypeError,)
VE: tuple[type[Exception], ...] = (ValueError,)
EITHER: tuple[type[Exception], ...] = (TypeError, ValueError)


class _Opaque:
    """An object of no numeric meaning."""

    def __repr__(self) -> str:
        return "<opaque>"


OPAQUE = _Opaque()


# ----------------------------------------------------- domains
@dataclass(frozen=True)
class Bad:
    """A bad value, the exceptions it may raise and the name the message must
    contain (the parameter's, unless ``name`` is given)."""

    label: str
    value: Any
    errors: tuple[type[Exception], ...]
    name: str | None = None


def _below(lo: float) -> float:
    return lo - max(0.5, abs(lo))


def _range(lo: float, hi: float, lo_open: bool, hi_open: bool) -> Iterator[Bad]:
    if lo > -INF:
        if lo_open:
            yield Bad("at-lo", lo, VE)
        yield Bad("just-below-lo", float(np.nextafter(lo, -INF)), VE)
        yield Bad("below-lo", _below(lo), VE)
    if hi < INF:
        if hi_open:
            yield Bad("at-hi", hi, VE)
        yield Bad("just-above-hi", float(np.nextafter(hi, INF)), VE)
        yield Bad("above-hi", hi + max(0.5, abs(hi)), VE)


def _infinities(lo: float, hi: float, allow_inf: bool) -> Iterator[Bad]:
    if not allow_inf or lo > -INF:
        yield Bad("-inf", -INF, VE)
    if not allow_inf or hi < INF:
        yield Bad("inf", INF, VE)


@dataclass(frozen=True)
class Real:
    """A real number in an interval."""

    lo: float = -INF
    hi: float = INF
    lo_open: bool = False
    hi_open: bool = False
    allow_inf: bool = False
    missing: tuple[type[Exception], ...] = TE

    def bad(self) -> Iterator[Bad]:
        yield Bad("none", None, self.missing)
        for label, v in (
            ("str", "0.5"),
            ("bool", True),
            ("list", [0.5]),
            ("complex", 0.5 + 1j),
            ("object", OPAQUE),
        ):
            yield Bad(label, v, TE)
        yield Bad("nan", NAN, VE)
        yield Bad("huge-int", HUGE_INT, VE)
        yield Bad("array", np.array([0.5, 0.5]), TE)
        yield from _infinities(self.lo, self.hi, self.allow_inf)
        yield from _range(self.lo, self.hi, self.lo_open, self.hi_open)


@dataclass(frozen=True)
class Array:
    """A real number or an array of them, every entry in an interval; ``ok`` is a
    valid entry used to build mixed arrays."""

    lo: float = -INF
    hi: float = INF
    lo_open: bool = False
    hi_open: bool = False
    allow_inf: bool = False
    ok: float = 0.5
    missing: tuple[type[Exception], ...] = TE

    def bad(self) -> Iterator[Bad]:
        ok = self.ok
        yield Bad("none", None, self.missing)
        for label, v in (
            ("str", str(ok)),
            ("bool", True),
            ("complex", ok + 1j),
            ("complex-array", np.array([ok + 0j])),
            ("nested-str", [[ok, "a"]]),
            ("none-in-list", [ok, None]),
            ("ragged", [ok, [ok, ok]]),
            ("object", OPAQUE),
            ("dict", {"a": ok}),
        ):
            yield Bad(label, v, TE)
        yield Bad("nan", NAN, VE)
        yield Bad("huge-int", HUGE_INT, VE)
        yield Bad("huge-int-in-list", [ok, HUGE_INT], VE)
        yield Bad("nan-in-array", [ok, NAN], VE)
        yield Bad("nan-nested", [[ok], [NAN]], VE)
        yield from _infinities(self.lo, self.hi, self.allow_inf)
        for b in _range(self.lo, self.hi, self.lo_open, self.hi_open):
            yield b
            yield Bad(b.label + "-in-array", np.array([ok, b.value]), VE)


@dataclass(frozen=True)
class Int:
    """An integer in ``[lo, hi]``; ``missing`` is what ``None`` raises."""

    lo: int = 1
    hi: float = INF
    missing: tuple[type[Exception], ...] = TE

    def bad(self) -> Iterator[Bad]:
        for label, v in (
            ("str", "3"),
            ("bool", True),
            ("fraction", 1.5),
            ("list", [3]),
            ("complex", 3 + 0j),
            ("object", OPAQUE),
        ):
            yield Bad(label, v, TE)
        yield Bad("none", None, self.missing)
        yield Bad("nan", NAN, EITHER)
        yield Bad("inf", INF, EITHER)
        yield Bad("array", np.array([self.lo, self.lo]), TE)
        yield Bad("huge-int", HUGE_INT, VE)
        yield Bad("huge-float", 1e308, VE)
        yield Bad("beyond-max-int", MAX_INT + 1, VE)
        yield Bad("below-lo", self.lo - 1, VE)
        yield Bad("numpy-below-lo", np.int64(self.lo - 1), VE)
        yield Bad("numpy-fraction", np.float64(self.lo + 0.5), TE)
        if self.hi < INF:
            yield Bad("above-hi", int(self.hi) + 1, VE)


@dataclass(frozen=True)
class Order:
    """An expansion order (DESIGN.md: an unknown order raises ValueError)."""

    lo: int = 0
    hi: float = INF

    def bad(self) -> Iterator[Bad]:
        for label, v in (
            ("str", "2"),
            ("none", None),
            ("bool", True),
            ("fraction", 1.5),
            ("nan", NAN),
            ("object", OPAQUE),
            ("array", np.array([self.lo + 1, self.lo + 1])),
            ("huge-int", HUGE_INT),
        ):
            yield Bad(label, v, EITHER)
        yield Bad("below-lo", self.lo - 1, VE)
        if self.hi < INF:
            yield Bad("above-hi", int(self.hi) + 1, VE)


@dataclass(frozen=True)
class Choice:
    """One of a few strings."""

    choices: tuple[Any, ...]
    #: Whether ``None`` is valid (a deprecated keyword whose default is None).
    optional: bool = False

    def bad(self) -> Iterator[Bad]:
        yield Bad("unknown", "no-such-choice", VE)
        yield Bad("case", str(self.choices[0]).upper() + "?", VE)
        yield Bad("int", 3, EITHER)
        if not self.optional:
            yield Bad("none", None, EITHER)
        yield Bad("array", np.array([self.choices[0]] * 2), EITHER)
        yield Bad("array-of-one", np.array([self.choices[0]]), EITHER)


@dataclass(frozen=True)
class Flag:
    """``True`` or ``False`` (or ``None`` when allowed)."""

    allow_none: bool = False

    def bad(self) -> Iterator[Bad]:
        yield Bad("str", "no", TE)
        yield Bad("int", 1, TE)
        yield Bad("float", 0.5, TE)
        yield Bad("list", [], TE)
        if not self.allow_none:
            yield Bad("none", None, TE)


@dataclass(frozen=True)
class Instance:
    """An instance of ``cls`` (``None`` allowed when ``optional``)."""

    cls: type
    optional: bool = False

    def bad(self) -> Iterator[Bad]:
        yield Bad("int", 1, TE)
        yield Bad("str", "x", TE)
        yield Bad("object", OPAQUE, TE)
        if not self.optional:
            yield Bad("none", None, EITHER)
        if not inspect.isabstract(self.cls):
            return
        # The class itself instead of an instance: only meaningful for the
        # abstract bases (e.g. passing A.Numerical instead of A.Numerical()).
        for sub in type.__subclasses__(self.cls):
            if not inspect.isabstract(sub):
                yield Bad("class-not-instance", sub, TE)
                break


@dataclass(frozen=True)
class CurveLike:
    """A trade-off function: a TradeOff or a vectorised callable alpha -> beta."""

    def bad(self) -> Iterator[Bad]:
        yield Bad("int", 1, TE)
        yield Bad("str", "G_1", TE)
        yield Bad("none", None, TE)
        yield Bad("returns-nan", lambda a: np.full(np.shape(a), NAN), VE)
        yield Bad("returns-str", lambda a: "beta", TE)


@dataclass(frozen=True)
class Func:
    """A callable."""

    def bad(self) -> Iterator[Bad]:
        yield Bad("int", 1, TE)
        yield Bad("str", "f", TE)
        yield Bad("none", None, TE)


@dataclass(frozen=True)
class Bracket:
    """A pair ``(lo, hi)`` with ``0 < lo < hi < inf`` (or ``None`` when
    ``optional``)."""

    optional: bool = False

    def bad(self) -> Iterator[Bad]:
        yield Bad("scalar", 1.0, TE)
        yield Bad("one", (1.0,), TE)
        yield Bad("three", (0.1, 1.0, 2.0), TE)
        yield Bad("str", "ab", TE)
        if not self.optional:
            yield Bad("none", None, TE)
        yield Bad("reversed", (2.0, 1.0), VE, "sigma_bracket[1]")
        yield Bad("equal", (1.0, 1.0), VE, "sigma_bracket[1]")
        yield Bad("zero", (0.0, 1.0), VE, "sigma_bracket[0]")
        yield Bad("nan", (NAN, 1.0), VE, "sigma_bracket[0]")
        yield Bad("inf", (1.0, INF), VE, "sigma_bracket[1]")
        yield Bad("str-entry", ("1", 2.0), TE, "sigma_bracket[0]")


@dataclass(frozen=True)
class Cases:
    """Explicit bad values (for parameters whose domain is not an interval)."""

    items: tuple[Bad, ...]

    def bad(self) -> Iterator[Bad]:
        yield from self.items


Domain = Any
PROB = Real(0.0, 1.0, lo_open=True)  # a sampling rate p in (0, 1]
OPEN_UNIT = Real(0.0, 1.0, lo_open=True, hi_open=True)
UNIT = Real(0.0, 1.0)
NONNEG = Real(0.0, INF)
POSITIVE = Real(0.0, INF, lo_open=True)
COUNT = Int(1)
#: The deprecated ``pair=`` of mechanisms and TrainingAccountant (None: not given).
PAIR = Choice(("add", "remove", "both"), optional=True)
UNDER = Choice(("P", "Q"))


# ----------------------------------------------------- entries
@dataclass
class Entry:
    """A public entry point, valid keyword arguments and a domain per parameter.

    ``exempt`` names parameters deliberately not validated, with the reason;
    ``drop`` lists valid arguments to remove when a parameter is tested (e.g.
    ``mu`` when ``sigma`` is given instead).
    """

    category: str
    name: str
    call: Callable[..., Any]
    valid: dict[str, Any]
    domains: dict[str, Domain]
    exempt: dict[str, str] = field(default_factory=dict)
    drop: dict[str, tuple[str, ...]] = field(default_factory=dict)
    signature_of: Any = None

    def cases(self) -> Iterator[tuple[str, Bad]]:
        for param, domain in self.domains.items():
            for bad in domain.bad():
                yield param, bad

    def kwargs(self, param: str, value: Any) -> dict[str, Any]:
        kw = {k: v for k, v in self.valid.items() if k not in self.drop.get(param, ())}
        kw[param] = value
        return kw


def _names(message: str, name: str) -> bool:
    """Whether ``message`` mentions ``name`` as a word (``p`` is not in ``open``)."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", message) is not None


def assert_rejects(
    call: Callable[[], Any], errors: tuple[type[Exception], ...], name: str
) -> None:
    """``call()`` raises one of ``errors`` whose message names ``name``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = call()
        except errors as exc:
            message = str(exc)
            assert _names(message, name), (
                f"{type(exc).__name__} does not name {name!r}: {message!r}"
            )
            return
        except Exception as exc:  # the wrong kind of error: report it plainly
            pytest.fail(
                f"raised {type(exc).__name__} (expected "
                f"{'/'.join(e.__name__ for e in errors)} naming {name!r}): {exc}"
            )
    pytest.fail(f"accepted the bad value and returned {result!r:.200}")


def _signature_params(entry: Entry) -> list[str]:
    target = entry.signature_of or entry.call
    sig = inspect.signature(target)
    return [
        p.name
        for p in sig.parameters.values()
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"
    ]


# ------------------------------------------------------------------ constructors
#: Constructor arguments that are not in a mechanism's PARAMS: the alternative
#: parametrisation (``sigma`` for ``mu`` and back) and the adjacency.
ALIASES: dict[str, Domain] = {
    # None for one of them means "give the other": a ValueError naming both.
    "sigma": Real(0.0, INF, lo_open=True, missing=EITHER),
    "mu": Real(0.0, INF, missing=EITHER),
}
#: Mechanisms in ``M.__all__`` outside REGISTRY: wrappers of another mechanism.
WRAPPERS: dict[str, tuple[dict[str, Any], dict[str, Domain]]] = {
    "PoissonSubsampled": (
        {"base": M.Laplace(mu=1.0), "p": 0.5},
        {"base": Instance(M.Mechanism), "p": PROB, "pair": PAIR},
    ),
    "Swapped": ({"base": M.Laplace(mu=1.0)}, {"base": Instance(M.Mechanism)}),
    "SampledWithoutReplacement": (
        {"base": M.Gaussian(mu=1.0), "batch_size": 10, "dataset_size": 100},
        {"base": Instance(M.Mechanism), "batch_size": COUNT, "dataset_size": COUNT},
    ),
    "BothDirections": (
        {"base": M.Swapped(M.Laplace(mu=1.0))},
        {"base": Instance(M.Mechanism)},
    ),
    "PairMixture": (
        {"components": ((0.5, M.Gaussian(mu=1.0)), (0.5, M.Laplace(mu=1.0)))},
        {
            "components": Cases(
                (
                    Bad("int", 1, TE),
                    Bad("str", "x", TE),
                    Bad("none", None, TE),
                    Bad("empty", (), VE),
                    Bad("not-a-pair", ((1.0, 3),), TE),
                    Bad("nan-weight", ((NAN, M.Gaussian(mu=1.0)),), VE),
                    Bad("negative-weight", ((-1.0, M.Gaussian(mu=1.0)),), VE),
                    Bad("weights-not-one", ((0.5, M.Gaussian(mu=1.0)),), VE),
                )
            )
        },
    ),
    # An (eps, delta) event: its loss is infinite with probability delta, so it
    # has no moments for the generic mechanism checks (tests/mechanisms/
    # test_epsilon_delta.py).
    "EpsilonDelta": (
        {"eps": 1.0, "delta": 1e-5},
        {"eps": NONNEG, "delta": Real(0.0, 1.0, hi_open=True)},
    ),
    # Finite losses with an integer parameter (outside REGISTRY, whose
    # instances are drawn from real PARAMS ranges).
    "RandomizedResponse": ({"eps": 1.0, "k": 3}, {"eps": NONNEG, "k": Int(2)}),
    "DiscreteLaplace": (
        {"a": 0.5, "sensitivity": 1},
        {"a": POSITIVE, "sensitivity": COUNT},
    ),
    "DiscreteGaussian": (
        {"sigma": 2.0, "sensitivity": 1},
        {"sigma": POSITIVE, "sensitivity": COUNT},
    ),
}


def _typical(param: M.Param) -> float:
    lo, hi = param.typical
    return math.sqrt(lo * hi) if lo > 0 else (lo + hi) / 2


def _param_domain(param: M.Param) -> Real:
    lo, hi = param.domain
    return Real(lo, hi, param.lo_open, param.hi_open)


def _mechanism_entries() -> list[Entry]:
    out = []
    for key, cls in M.REGISTRY.items():
        valid = {k: _typical(p) for k, p in cls.PARAMS.items()}
        domains: dict[str, Domain] = {
            k: _param_domain(p) for k, p in cls.PARAMS.items()
        }
        signature = inspect.signature(cls).parameters
        for k in domains:
            if k in ALIASES and set(ALIASES) <= set(signature):
                # Either parametrisation may be given: None asks for the other.
                domains[k] = dataclasses.replace(domains[k], missing=EITHER)
        drop: dict[str, tuple[str, ...]] = {}
        for name in inspect.signature(cls).parameters:
            if name in domains:
                continue
            if name == "pair":
                domains[name] = PAIR
            elif name in ALIASES:
                domains[name] = ALIASES[name]
                drop[name] = tuple(k for k in ("mu", "sigma") if k in valid)
        out.append(Entry("constructors", key, cls, valid, domains, drop=drop))
    for name, (valid, domains) in WRAPPERS.items():
        cls = getattr(M, name)
        out.append(Entry("constructors", name, cls, valid, domains))
    return out


# ------------------------------------------------------------------ mechanism methods
#: Domain of each argument name of the Mechanism methods.
METHOD_DOMAINS: dict[str, Domain] = {
    "alpha": Array(0.0, 1.0),
    "eps": Array(allow_inf=True),
    "t": Array(),
    "l": Array(allow_inf=True),
    "x": Array(allow_inf=True),
    "order": Int(1),
    "under": UNDER,
    "pair": PAIR,
    "fn": Func(),
}
#: Arguments deliberately read as they are, with the reason.
METHOD_EXEMPT: dict[str, str] = {
    "inclusive": "keyword flag of the PLRV law, read by its truth value",
    "cuts": "capability plrv_pieces: the accountants and functionals pass sorted "
    "finite cut points they computed (users query the accountants)",
    "orders": "capability rdp: the RDP accountant passes its validated orders",
}
#: Valid first arguments.
METHOD_VALID: dict[str, Any] = {
    "alpha": 0.3,
    "eps": 0.5,
    "t": 0.5,
    "l": 0.1,
    "x": 0.2,
    "order": 3,
    "under": "P",
    "pair": "add",
    "fn": np.square,
    "cuts": [0.0, 1.0],
    "orders": np.array([1.5, 2.0, 8.0]),
}


def _mechanism_instances() -> dict[str, M.Mechanism]:
    out: dict[str, M.Mechanism] = {}
    for key, cls in M.REGISTRY.items():
        m = cls(**{k: _typical(p) for k, p in cls.PARAMS.items()})
        out[key] = m
        if not m.is_symmetric:
            out[key + "-add"] = m.with_pair("add")  # type: ignore[attr-defined]
            out[key + "-remove"] = m.with_pair("remove")  # type: ignore[attr-defined]
    out["swapped-laplace"] = M.Swapped(M.Laplace(mu=1.0))
    return out


def _public_methods(obj: Any) -> list[str]:
    names = []
    for name in dir(obj):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(type(obj), name, None)
        if isinstance(static, (property, functools.cached_property)):
            continue
        if dataclasses.is_dataclass(obj) and name in {
            f.name for f in dataclasses.fields(obj)
        }:
            continue  # a field holding a callable (e.g. a base trade-off)
        if callable(getattr(obj, name)) and not inspect.isclass(getattr(obj, name)):
            names.append(name)
    return names


def _method_entries() -> list[Entry]:
    out = []
    for key, m in _mechanism_instances().items():
        for meth in _public_methods(m):
            params = [
                p
                for p in inspect.signature(getattr(m, meth)).parameters
                if p not in METHOD_EXEMPT
            ]
            if not params:
                continue
            valid = {p: METHOD_VALID[p] for p in params if p in METHOD_VALID}
            domains = {p: METHOD_DOMAINS[p] for p in params if p in METHOD_DOMAINS}
            if meth == "tradeoff":
                try:
                    m.tradeoff(0.3)
                except NotImplementedError:
                    continue  # no closed form: nothing is evaluated
            out.append(
                Entry(
                    "mechanism methods",
                    f"{key}.{meth}",
                    getattr(m, meth),
                    valid,
                    domains,
                    exempt=dict(METHOD_EXEMPT),
                )
            )
    return out


# ------------------------------------------------------------------ accountants
def _accountant_classes() -> dict[str, type]:
    out = {}
    for name in A.__all__:
        obj = getattr(A, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, A.Accountant)
            and not inspect.isabstract(obj)
        ):
            out[name] = obj
    return out


def _option_domain(param: inspect.Parameter) -> Domain:
    """Bad values every accountant option must refuse, by the kind of its
    default: no option of any accountant takes a negative number, NaN, inf, a
    string for a number, a bool or an unknown name."""
    default, annotation = param.default, str(param.annotation)
    if param.name == "order":
        return Order(lo=0)
    if param.name == "warn_rel_error":  # None switches the warning off
        return Cases(
            (
                Bad("str", "0.1", TE),
                Bad("bool", True, TE),
                Bad("list", [0.1], TE),
                Bad("nan", NAN, VE),
                Bad("inf", INF, VE),
                Bad("zero", 0.0, VE),
                Bad("negative", -1.0, VE),
            )
        )
    if param.name == "tiers":  # Auto: a sequence of accountants, last certified
        return Cases(
            (
                Bad("str", "abc", TE),
                Bad("numbers", [1.5, NAN], TE),
                Bad("empty", [], TE),
                Bad("object", OPAQUE, TE),
            )
        )
    if isinstance(default, str):
        return Choice((default,))
    if isinstance(default, bool):
        return Flag()
    if isinstance(default, (int, float)) or (
        default is None and "float" in annotation and "Sequence" not in annotation
    ):
        items = [
            Bad("str", "3", TE),
            Bad("bool", True, EITHER),
            Bad("list", [1.0], TE),
            Bad("complex", 1 + 1j, TE),
            Bad("object", OPAQUE, TE),
            Bad("nan", NAN, EITHER if isinstance(default, int) else VE),
            Bad("inf", INF, EITHER if isinstance(default, int) else VE),
            Bad("-inf", -INF, EITHER if isinstance(default, int) else VE),
            Bad("negative", -1, VE),
        ]
        if default is not None:
            items.append(Bad("none", None, TE))
        return Cases(tuple(items))
    if default is None and ("Sequence" in annotation or "ArrayLike" in annotation):
        return Cases(
            (
                Bad("str", "abc", EITHER),
                Bad("nested-str", [[1.0, "a"]], TE),
                Bad("nan-in-array", [1.5, NAN], VE),
                Bad("object", OPAQUE, TE),
            )
        )
    raise AssertionError(f"no domain for option {param.name}={default!r}")


def _accountant_entries() -> list[Entry]:
    out = []
    for name, cls in _accountant_classes().items():
        sig = inspect.signature(cls)
        domains = {p.name: _option_domain(p) for p in sig.parameters.values()}
        out.append(Entry("accountants", f"{name}()", cls, {}, domains))
    return out


MECH = M.Laplace(mu=0.5)
GAUSS = M.Gaussian(mu=0.5)

#: ``compose(mechanism, n)`` arguments: (label, mechanism, n, errors, name).
COMPOSE_BAD: list[tuple[str, Any, Any, tuple[type[Exception], ...], str]] = [
    ("n=0", MECH, 0, VE, "n"),
    ("n=-1", MECH, -1, VE, "n"),
    ("n=1.5", MECH, 1.5, TE, "n"),
    ("n=True", MECH, True, TE, "n"),
    ("n='3'", MECH, "3", TE, "n"),
    ("n=nan", MECH, NAN, EITHER, "n"),
    ("n=inf", MECH, INF, EITHER, "n"),
    ("n=[]", MECH, [], TE, "n"),
    ("n=[3]", MECH, [3], TE, "n"),
    ("n=np.float64(2.5)", MECH, np.float64(2.5), TE, "n"),
    ("n=np.int64(0)", MECH, np.int64(0), VE, "n"),
    ("n-missing", MECH, None, VE, "n"),
    ("mechanism=1", 1, 2, TE, "mechanism"),
    ("mechanism='laplace'", "laplace", 2, TE, "mechanism"),
    ("mechanism=None", None, 2, TE, "mechanism"),
    ("mechanism=tradeoff", T.Gaussian(1.0), 2, TE, "mechanism"),
    ("mechanism=class", M.Laplace, 2, TE, "mechanism"),
    ("list-and-n", [(MECH, 2)], 2, VE, "n"),
    ("empty-list", [], None, VE, "mechanism"),
    ("empty-tuple", (), None, VE, "mechanism"),
    ("string", "abc", None, TE, "mechanism"),
    ("int", 3, None, TE, "mechanism"),
    ("dict", {MECH: 2}, None, TE, "mechanism"),
    ("bare-mechanism-in-list", [MECH], None, TE, "mechanism"),
    ("one-tuple", [(MECH,)], None, VE, "mechanism"),
    ("three-tuple", [(MECH, 1, 2)], None, VE, "mechanism"),
    ("reversed-pair", [(2, MECH)], None, TE, "mechanism"),
    ("non-mechanism", [("x", 1)], None, TE, "mechanism"),
    ("tradeoff-in-list", [(T.Gaussian(1.0), 1)], None, TE, "mechanism"),
    ("count-0", [(MECH, 2), (GAUSS, 0)], None, VE, "n"),
    ("count-negative", [(MECH, -1)], None, VE, "n"),
    ("count-fraction", [(MECH, 2.5)], None, TE, "n"),
    ("count-bool", [(MECH, True)], None, TE, "n"),
    ("count-nan", [(MECH, NAN)], None, EITHER, "n"),
    ("count-str", [(MECH, "2")], None, TE, "n"),
]


# ------------------------------------------------------------------ curve queries
CURVE_QUERIES: dict[str, tuple[str, Domain, Any]] = {
    # method -> (argument, domain, valid value)
    "delta": ("eps", Array(allow_inf=True, ok=1.0), 1.0),
    "epsilon": ("delta", Array(0.0, 1.0, True, True, ok=0.2), 0.2),
    "tradeoff": ("alpha", Array(0.0, 1.0, ok=0.3), 0.3),
    "delta_bounds": ("eps", Array(allow_inf=True, ok=1.0), 1.0),
    "epsilon_bounds": ("delta", Array(0.0, 1.0, True, True, ok=0.2), 0.2),
    "tradeoff_bounds": ("alpha", Array(0.0, 1.0, ok=0.3), 0.3),
    "delta_error": ("eps", Array(allow_inf=True, ok=1.0), 1.0),
    "epsilon_error": ("delta", Array(0.0, 1.0, True, True, ok=0.2), 0.2),
    "tradeoff_error": ("alpha", Array(0.0, 1.0, ok=0.3), 0.3),
}
CURVE_FLAGS: dict[str, dict[str, Domain]] = {"tradeoff": {"symmetric": Flag()}}
#: Public methods of PrivacyCurve that take no user values, with the reason.
CURVE_EXEMPT: dict[str, str] = {
    "raw": "no arguments",
    "mu_star_gamma": "no arguments",
    "mu_star": "no arguments",
    "mu_star_error": "no arguments",
    "mu_star_bounds": "no arguments",
    "plot": "matplotlib keyword arguments, passed through",
    "pair_answers": "the points of the query it names, validated as that query's "
    "(tests/test_curve_errors.py::test_pair_answers_validate_as_their_query)",
}
CERTIFIED_ONLY = ("delta_bounds", "epsilon_bounds", "tradeoff_bounds")
#: Error estimates: approximations with an estimate, and certified curves.
ESTIMATES = ("delta_error", "epsilon_error")


def _serves(curve: Any, meth: str) -> bool:
    """Whether ``curve`` answers ``meth`` (bounds need a certified curve, error
    estimates a curve that has them; others raise NotImplementedError)."""
    if meth in CERTIFIED_ONLY:
        return bool(curve.certified)
    if meth in ESTIMATES:
        return bool(curve.certified or curve.estimates_error)
    if meth == "tradeoff_error":  # certified, or a symmetric curve's estimate
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                curve.tradeoff_error(0.3)
        except NotImplementedError:
            return False
    return True


#: Compositions to query: symmetric (Gaussian; long enough for Berry-Esseen to
#: answer epsilon(0.2)) and asymmetric (subsampled).
CURVE_COMPOSITIONS: dict[str, tuple[M.Mechanism, int]] = {
    "gauss": (M.Gaussian(mu=0.01), 10_000),
    "sgm": (M.SubsampledGaussian(p=0.2, sigma=1.0), 20),
}


@cache
def _curve(acc: str, comp: str) -> PrivacyCurve | None:
    """The curve of ``comp`` by accountant ``acc``, None where the accountant
    does not serve it or cannot answer the valid queries (then a bad value would
    be rejected for the wrong reason)."""
    m, n = CURVE_COMPOSITIONS[comp]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            curve = _accountant_classes()[acc]().compose(m, n)
            for meth, (_, _, valid) in CURVE_QUERIES.items():
                if _serves(curve, meth):
                    getattr(curve, meth)(valid)
        except ValueError:
            return None
    return curve


def _curve_or_skip(acc: str, comp: str) -> PrivacyCurve:
    curve = _curve(acc, comp)
    if curve is None:
        pytest.skip(f"{acc} does not serve {comp}")
    return curve


# ------------------------------------------------------------------ tradeoff
#: Domain of every constructor field of the classes in T.__all__, by field name,
#: with per-class overrides.
TRADEOFF_FIELDS: dict[str, tuple[Any, Domain]] = {
    "mu": (1.0, NONNEG),
    "eps": (1.0, NONNEG),
    "delta": (0.1, UNIT),
    "p": (0.5, PROB),
    "k": (2, Int(1)),
    "base": (T.Gaussian(1.0), Instance(T.TradeOff)),
    "alpha": ([0.0, 0.5, 1.0], Array(0.0, 1.0)),
    "beta": ([1.0, 0.3, 0.0], Array(0.0, 1.0)),
    "symmetric": (False, Flag()),
}
TRADEOFF_FIELD_OVERRIDES: dict[tuple[str, str], tuple[Any, Domain]] = {
    ("FromPrivacyProfile", "eps"): ([0.0, 1.0], Array(0.0, INF, ok=1.0)),
    ("FromPrivacyProfile", "delta"): ([0.5, 0.1], Array(0.0, 1.0, ok=0.1)),
}
#: The TradeOff methods that take values, with their domains and valid values.
TRADEOFF_METHODS: dict[str, dict[str, tuple[Any, Domain]]] = {
    "__call__": {"alpha": (0.3, Array(0.0, 1.0))},
    "privacy_profile": {
        "eps": (1.0, Array(allow_inf=True, ok=1.0)),
        "method": ("auto", Choice(("auto", "grid"))),
    },
    "conjugate": {
        "y": (-1.0, Array(allow_inf=True, ok=-1.0)),
        "method": ("auto", Choice(("auto", "grid"))),
    },
}
TRADEOFF_METHOD_EXEMPT = {
    "inverse": "no arguments",
    "fixed_point": "no arguments",
    "auc": "no arguments",
}


def _tradeoff_classes() -> dict[str, type]:
    return {
        n: getattr(T, n)
        for n in T.__all__
        if isinstance(getattr(T, n), type)
        and issubclass(getattr(T, n), T.TradeOff)
        and not inspect.isabstract(getattr(T, n))
    }


def _tradeoff_field(cls_name: str, name: str) -> tuple[Any, Domain]:
    return TRADEOFF_FIELD_OVERRIDES.get((cls_name, name)) or TRADEOFF_FIELDS[name]


def _tradeoff_class_entries() -> list[Entry]:
    out = []
    for name, cls in _tradeoff_classes().items():
        fields = [f.name for f in dataclasses.fields(cls) if f.init]
        valid = {f: _tradeoff_field(name, f)[0] for f in fields}
        domains = {f: _tradeoff_field(name, f)[1] for f in fields}
        if fields:
            out.append(Entry("tradeoff", f"T.{name}", cls, valid, domains))
    return out


def _tradeoff_instances() -> dict[str, T.TradeOff]:
    out = {}
    for name, cls in _tradeoff_classes().items():
        fields = [f.name for f in dataclasses.fields(cls) if f.init]
        out[name] = cls(**{f: _tradeoff_field(name, f)[0] for f in fields})
    out["Inverse(Subsampled)"] = T.inverse(T.subsample(T.Gaussian(1.0), 0.3))
    return out


def _tradeoff_method_entries() -> list[Entry]:
    out = []
    for key, f in _tradeoff_instances().items():
        for meth, params in TRADEOFF_METHODS.items():
            out.append(
                Entry(
                    "tradeoff",
                    f"T.{key}.{meth}",
                    getattr(f, meth),
                    {p: v for p, (v, _) in params.items()},
                    {p: d for p, (_, d) in params.items()},
                )
            )
    return out


def _delta_fn(eps: Any) -> Any:
    return T.Gaussian(1.0).privacy_profile(eps)


G1 = T.Gaussian(1.0)
SUMMARY = Cases(
    (
        Bad("not-a-curve", 1, TE, "f2"),
        Bad("one-entry", (1.0,), VE, "f2"),
        Bad("nan-mu", (NAN, 0.2), VE, "mu_star"),
        Bad("negative-mu", (-1.0, 0.2), VE, "mu_star"),
        Bad("str-gamma", (1.0, "a"), TE, "gamma"),
        Bad("gamma-above-half", (1.0, 0.7), VE, "gamma"),
        Bad("nan-gamma", (1.0, NAN), VE, "gamma"),
    )
)
#: Every function of T.__all__: (valid arguments, domains).
TRADEOFF_FUNCTIONS: dict[str, tuple[dict[str, Any], dict[str, Domain]]] = {
    "inverse": ({"f": G1}, {"f": Instance(T.TradeOff)}),
    "symmetrize": ({"f": G1}, {"f": Instance(T.TradeOff)}),
    "subsample": ({"f": G1, "p": 0.3}, {"f": Instance(T.TradeOff), "p": PROB}),
    "group_privacy": ({"f": G1, "k": 2}, {"f": Instance(T.TradeOff), "k": Int(1)}),
    "conjugate": (
        {"f": G1, "y": -1.0, "method": "auto"},
        {
            "f": Instance(T.TradeOff),
            "y": Array(allow_inf=True, ok=-1.0),
            "method": Choice(("auto", "grid")),
        },
    ),
    "privacy_profile": (
        {"f": G1, "eps": 1.0, "method": "auto"},
        {
            "f": Instance(T.TradeOff),
            "eps": Array(allow_inf=True, ok=1.0),
            "method": Choice(("auto", "grid")),
        },
    ),
    "tradeoff_from_profile": (
        {
            "delta_fn": _delta_fn,
            "alpha": 0.3,
            "eps_grid": [0.0, 1.0, 2.0],
            "symmetric": False,
            "refine": True,
        },
        {
            "delta_fn": Func(),
            "alpha": Array(0.0, 1.0),
            "eps_grid": Array(ok=1.0),
            "symmetric": Flag(),
            "refine": Flag(),
        },
    ),
    "fixed_point": ({"f": G1}, {"f": CurveLike()}),
    "auc": ({"f": G1}, {"f": CurveLike()}),
    "mu_star_gamma": ({"f": G1}, {"f": CurveLike()}),
    "compare_mu_star_gamma": (
        {"f1": G1, "f2": (1.0, 0.2)},
        {"f1": CurveLike(), "f2": SUMMARY},
    ),
    "subsampled_eps_delta": (
        {"eps": 1.0, "delta": 0.1, "p": 0.3},
        {"eps": NONNEG, "delta": UNIT, "p": PROB},
    ),
}


def _compose_gaussian_mu(mu: Any) -> Any:
    return T.compose_gaussian(1.0, mu)


def _tradeoff_function_entries() -> list[Entry]:
    out = []
    for name, (valid, domains) in TRADEOFF_FUNCTIONS.items():
        out.append(Entry("tradeoff", f"T.{name}", getattr(T, name), valid, domains))
    # compose_gaussian(*mus): each positional value is a mu >= 0.
    out.append(
        Entry(
            "tradeoff",
            "T.compose_gaussian",
            _compose_gaussian_mu,
            {"mu": 1.0},
            {"mu": NONNEG},
        )
    )
    return out


# ------------------------------------------------------------------ rero
@cache
def _exact_curve() -> PrivacyCurve:
    return A.Exact().compose(M.Gaussian(mu=1.0), 1)


@cache
def _clt_curve() -> PrivacyCurve:
    return A.CLT().compose(M.Gaussian(mu=1.0), 4)


class _LazyCurve:
    """Stands for :func:`_exact_curve` in argument tables (built on first use)."""


def _resolve(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: (_exact_curve() if v is _LazyCurve else v) for k, v in kwargs.items()}


KAPPA = Array(0.0, 1.0, True, True, ok=0.1)
SAMPLES = 200
RERO_FUNCTIONS: dict[str, tuple[dict[str, Any], dict[str, Domain], dict[str, Any]]] = {
    # name -> (valid arguments, domains, drop)
    "gamma": (
        {"source": G1, "kappa": 0.1, "symmetric": False},
        {
            "source": Cases(
                (
                    Bad("int", 1, TE),
                    Bad("str", "curve", TE),
                    Bad("none", None, TE),
                    Bad("returns-nan", lambda a: np.full(np.shape(a), NAN), VE),
                )
            ),
            "kappa": KAPPA,
            "symmetric": Flag(),
        },
        {},
    ),
    "gamma_bounds": (
        {"curve": _LazyCurve, "kappa": 0.1, "symmetric": False},
        {"curve": Instance(PrivacyCurve), "kappa": KAPPA, "symmetric": Flag()},
        {},
    ),
    "gamma_error": (
        {"curve": _LazyCurve, "kappa": 0.1, "symmetric": False},
        {"curve": Instance(PrivacyCurve), "kappa": KAPPA, "symmetric": Flag()},
        {},
    ),
    "gamma_from_eps_delta": (
        {"eps": 1.0, "delta": 1e-5, "kappa": 0.1},
        {
            "eps": Array(0.0, INF, allow_inf=True, ok=1.0),
            "delta": Array(0.0, 1.0, ok=1e-5),
            "kappa": KAPPA,
        },
        {},
    ),
    "gamma_gaussian": (
        {"kappa": 0.1, "mu2": 1.0, "n": 1},
        {"kappa": KAPPA, "mu2": Array(0.0, INF, ok=1.0), "n": COUNT},
        {},
    ),
    "gamma_gaussian_composed": (
        {"kappa": 0.1, "mus": [1.0, 0.5]},
        {"kappa": KAPPA, "mus": Array(0.0, INF, ok=1.0)},
        {},
    ),
    "gamma_laplace": (
        {"kappa": 0.1, "mu1": 1.0},
        {"kappa": KAPPA, "mu1": Array(0.0, INF, ok=1.0)},
        {},
    ),
    "add_pair_curve": (
        {"mechanism": M.Gaussian(mu=1.0), "n": 2, "accountant": A.Exact()},
        {
            "mechanism": Cases(
                (
                    Bad("int", 1, TE),
                    Bad("str", "gaussian", TE),
                    Bad("tradeoff", G1, TE),
                    Bad("empty", [], VE),
                )
            ),
            "n": Int(1, missing=VE),
            "accountant": Instance(A.Accountant, optional=True),
        },
        {},
    ),
    "monte_carlo_gamma": (
        {
            "kappa": 0.1,
            "mu": 1.0,
            "p": 1.0,
            "n": 1,
            "samples": SAMPLES,
            "mechanism": "gaussian",
            "seed": 1,
            "confidence": 0.95,
            "chunk_elements": 1 << 12,
            "progress": False,
        },
        {
            "kappa": KAPPA,
            "mu": Array(0.0, INF, ok=1.0, missing=EITHER),
            "sigma": Real(0.0, INF, lo_open=True, missing=EITHER),
            "p": PROB,
            "n": COUNT,
            "samples": COUNT,
            "mechanism": Choice(("gaussian", "laplace")),
            "seed": Cases(
                (
                    Bad("negative", -1, VE),
                    Bad("str", "1", TE),
                    Bad("fraction", 1.5, TE),
                    Bad("bool", True, TE),
                )
            ),
            "confidence": OPEN_UNIT,
            "chunk_elements": COUNT,
            "progress": Flag(allow_none=True),
        },
        {"sigma": ("mu",)},
    ),
    "sigma_for_gamma": (
        {
            "target_gamma": 0.3,
            "kappa": 0.1,
            "p": 0.1,
            "n": 10,
            "accountant": A.SaddlePoint(),
            "mechanism": "subsampled-gaussian",
            "symmetric": False,
            "sigma_bracket": (0.2, 100.0),
            "rtol": 1e-6,
        },
        {
            # target_gamma lies in (kappa, 1): a bound below the prior is void.
            "target_gamma": Real(0.1, 1.0, True, True),
            "kappa": OPEN_UNIT,
            "p": PROB,
            "n": COUNT,
            "accountant": Instance(A.Accountant, optional=True),
            "mechanism": Cases(
                (
                    Bad("unknown", "no-such", VE),
                    Bad("returns-non-mechanism", lambda s: 3, TE, "mechanism(sigma)"),
                )
            ),
            "symmetric": Flag(),
            "sigma_bracket": Bracket(optional=True),
            "rtol": Real(0.0, 0.1, lo_open=True),
        },
        {},
    ),
}
RERO_EXEMPT = {"MonteCarloGamma": "the result record of monte_carlo_gamma"}


def _rero_entries() -> list[Entry]:
    out = []
    for name, (valid, domains, drop) in RERO_FUNCTIONS.items():
        fn = getattr(rero, name)

        def call(*, _fn: Callable[..., Any] = fn, **kw: Any) -> Any:
            return _fn(**_resolve(kw))

        out.append(
            Entry(
                "rero/calibrate",
                f"rero.{name}",
                call,
                valid,
                domains,
                drop=drop,
                signature_of=fn,
            )
        )
    return out


# ------------------------------------------------------------------ calibrate
SP = A.SaddlePoint()
CALIBRATE_COMMON: dict[str, Domain] = {
    "p": PROB,
    "n": COUNT,
    "accountant": Instance(A.Accountant, optional=True),
    "mechanism": Cases(
        (
            Bad("unknown", "no-such", VE),
            Bad("int", 3, EITHER),
            Bad("returns-non-mechanism", lambda s: 3, TE, "mechanism(sigma)"),
        )
    ),
    "pair": PAIR,
    "sigma_bracket": Bracket(optional=True),
    "rtol": Real(0.0, 0.1, lo_open=True),
    "first_stage": Instance(A.Accountant, optional=True),
}
CALIBRATE_FUNCTIONS: dict[str, tuple[dict[str, Any], dict[str, Domain]]] = {
    "sigma_for_epsilon": (
        {"target_eps": 1.0, "delta": 1e-5, "p": 0.01, "n": 100, "accountant": SP},
        {"target_eps": POSITIVE, "delta": OPEN_UNIT, **CALIBRATE_COMMON},
    ),
    "sigma_for_mu": (
        {"target_mu": 1.0, "p": 0.01, "n": 100, "accountant": SP},
        {"target_mu": POSITIVE, **CALIBRATE_COMMON},
    ),
    "noise_for": (
        {
            "target_fn": C.curve_mu,
            "target": 1.0,
            "p": 0.01,
            "n": 100,
            "accountant": SP,
            "what": "mu",
        },
        {
            "target_fn": Cases(
                (
                    Bad("int", 1, TE),
                    Bad("returns-nan", lambda c: NAN, VE, "target_fn(curve)"),
                    Bad("returns-str", lambda c: "eps", TE, "target_fn(curve)"),
                    Bad("returns-none", lambda c: None, TE, "target_fn(curve)"),
                )
            ),
            "target": Real(),
            **CALIBRATE_COMMON,
        },
    ),
    "calibrate": (
        {
            "target": C.epsilon_target(1.0, 1e-5),
            "parameter": "sample_rate",
            "sigma": 1.0,
            "n": 100,
            "accountant": SP,
        },
        {
            "target": Instance(C.Target),
            "parameter": Choice(C.PARAMETERS),
            "sigma": Real(0.0, INF, lo_open=True, missing=VE),
            "n": Int(1, missing=VE),
            "mechanism": Cases(
                (
                    Bad("unknown", "no-such", VE),
                    Bad("int", 3, EITHER),
                    Bad("callable-without-p", lambda s: M.Gaussian(sigma=s), VE),
                )
            ),
            "pair": Choice(("add", "remove", "both")),
            "accountant": Instance(A.Accountant, optional=True),
            "approach": Cases((Bad("int", 1, TE), Bad("list-of-str", ["x"], TE))),
            "limits": Cases(
                (
                    Bad("scalar", 0.5, TE),
                    Bad("reversed", (0.5, 0.1), VE, "limits[1]"),
                    Bad("nan", (NAN, 0.5), VE, "limits[0]"),
                    Bad("beyond-domain", (0.5, 2.0), VE, "limits"),
                )
            ),
            "rtol": Real(0.0, 0.1, lo_open=True),
            "on_evaluation": Cases((Bad("int", 1, TE),)),
        },
    ),
    "curve_mu": ({"curve": _LazyCurve}, {"curve": Instance(PrivacyCurve)}),
    "mu_upper": ({"curve": _LazyCurve}, {"curve": Instance(PrivacyCurve)}),
    "epsilon_upper": (
        {"curve": _LazyCurve, "delta": 1e-5},
        {"curve": Instance(PrivacyCurve), "delta": OPEN_UNIT},
    ),
    "mechanism_factory": (
        {"mechanism": "subsampled-gaussian", "p": 0.5, "pair": "both"},
        {
            "mechanism": Cases((Bad("unknown", "no-such", VE),)),
            "p": PROB,
            "pair": PAIR,
        },
    ),
}
CALIBRATE_EXEMPT = {
    "what": "the quantity's name, used in error messages only",
    "p": "the calibrated parameter of the valid call (tests/test_calibrate.py)",
}


def _calibrate_functions() -> list[str]:
    return sorted(
        n
        for n, obj in vars(C).items()
        if not n.startswith("_")
        and inspect.isfunction(obj)
        and obj.__module__ == C.__name__
    )


def _calibrate_entries() -> list[Entry]:
    out = []
    for name, (valid, domains) in CALIBRATE_FUNCTIONS.items():
        fn = getattr(C, name)

        def call(*, _fn: Callable[..., Any] = fn, **kw: Any) -> Any:
            return _fn(**_resolve(kw))

        out.append(
            Entry(
                "rero/calibrate",
                f"calibrate.{name}",
                call,
                valid,
                domains,
                exempt=dict(CALIBRATE_EXEMPT),
                signature_of=fn,
            )
        )
    return out


# ------------------------------------------------------------------ training
def _fresh_accountant(method: str = "saddlepoint") -> training.TrainingAccountant:
    acc = training.TrainingAccountant(method=method)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=100)
    return acc


TRAINING_METHODS: dict[str, tuple[dict[str, Any], dict[str, Domain]]] = {
    "step": (
        {"noise_multiplier": 1.0, "sample_rate": 0.01, "num_steps": 10},
        {"noise_multiplier": POSITIVE, "sample_rate": PROB, "num_steps": COUNT},
    ),
    "get_epsilon": ({"delta": 1e-5}, {"delta": OPEN_UNIT}),
    "get_epsilon_bounds": ({"delta": 1e-5}, {"delta": OPEN_UNIT}),
    "get_delta": ({"eps": 1.0}, {"eps": NONNEG}),
}
TRAINING_EXEMPT = {
    "curve": "no arguments",
    "sampled": "no arguments",
    "get_mu": "no arguments",
    "runs": "no arguments",
    "state_dict": "no arguments",
    "load_state_dict": "corrupted states: test_load_state_dict_rejects",
    "from_state_dict": "corrupted states: test_load_state_dict_rejects",
}
TRAINING_FUNCTIONS: dict[str, tuple[dict[str, Any], dict[str, Domain]]] = {
    "TrainingAccountant": (
        {"method": "saddlepoint", "adjacency": "add_or_remove"},
        {
            "method": Choice(tuple(training.METHODS)),
            "pair": PAIR,
            "adjacency": Choice(training.ADJACENCIES, optional=True),
            "sampler": Instance(S.Sampler, optional=True),
        },
    ),
    "make_accountant": (
        {"method": "edgeworth"},
        {"method": Choice(tuple(training.METHODS))},
    ),
    "normalize_method": ({"method": "edgeworth"}, {"method": Choice(("edgeworth",))}),
    "mu_star": (
        {"curve": _LazyCurve, "bounds": False},
        {"curve": Instance(PrivacyCurve), "bounds": Flag()},
    ),
}


def _training_entries() -> list[Entry]:
    out = []
    for meth, (valid, domains) in TRAINING_METHODS.items():

        def call(*, _meth: str = meth, **kw: Any) -> Any:
            # The bounds need a certified method.
            method = "numerical" if _meth == "get_epsilon_bounds" else "saddlepoint"
            return getattr(_fresh_accountant(method), _meth)(**kw)

        out.append(
            Entry(
                "training",
                f"TrainingAccountant.{meth}",
                call,
                valid,
                domains,
                signature_of=getattr(training.TrainingAccountant, meth),
            )
        )
    for name, (valid, domains) in TRAINING_FUNCTIONS.items():
        fn = getattr(training, name)

        def fcall(*, _fn: Callable[..., Any] = fn, **kw: Any) -> Any:
            return _fn(**_resolve(kw))

        out.append(
            Entry(
                "training", f"training.{name}", fcall, valid, domains, signature_of=fn
            )
        )
    return out


# ------------------------------------------------------------------ symbolic
SYMBOLIC_INT = Cases(
    (
        Bad("str", "2", EITHER),
        Bad("none", None, EITHER),
        Bad("bool", True, EITHER),
        Bad("fraction", 1.5, EITHER),
        Bad("nan", NAN, EITHER),
        Bad("list", [2], EITHER),
        Bad("negative", -1, VE),
        Bad("numpy-negative", np.int64(-2), VE),
    )
)
#: Domain of each argument name of the public functions of symfdp.symbolic.
SYMBOLIC_DOMAINS: dict[str, tuple[Any, Domain]] = {
    "order": (2, SYMBOLIC_INT),
    "r": (2, SYMBOLIC_INT),
    "terms": (3, SYMBOLIC_INT),
    "under": ("P", Choice(("P", "Q"))),
    "side": ("upper", Choice(("upper", "lower"))),
    "text": (
        "Phi(x) - lambda3",
        Cases(
            (
                Bad("none", None, TE),
                Bad("int", 3, TE),
                Bad("empty", "", VE),
                Bad("syntax", "x +", VE),
            )
        ),
    ),
    "name": (
        "lambda3",
        Cases((Bad("none", None, TE), Bad("int", 3, TE))),
    ),
}
#: Per-function overrides (the same argument name meaning something else).
SYMBOLIC_OVERRIDES: dict[tuple[str, str], tuple[Any, Domain]] = {
    ("hermite_he", "k"): (3, SYMBOLIC_INT),
    ("kernel_hermite_moment_expr", "k"): (3, SYMBOLIC_INT),
}
#: Arguments that are SymPy expressions (anything sympifiable is meaningful).
SYMBOLIC_EXPR_ARGS = {"x", "var", "expr", "a", "cgf", "at", "kappas", "m", "k", "n"}


def _symbolic_functions() -> dict[str, Callable[..., Any]]:
    import symfdp.symbolic as S

    out = {}
    for sub in S.__all__:
        mod = importlib.import_module(f"symfdp.symbolic.{sub}")
        for name, obj in vars(mod).items():
            if name.startswith("_") or isinstance(obj, type) or not callable(obj):
                continue
            if getattr(obj, "__module__", None) != mod.__name__:
                continue
            out[f"{sub}.{name}"] = obj
    return out


def _symbolic_entries() -> list[Entry]:
    out = []
    for key, fn in _symbolic_functions().items():
        short = key.split(".")[-1]
        params = list(inspect.signature(fn).parameters)
        domains, valid = {}, {}
        for p in params:
            spec = SYMBOLIC_OVERRIDES.get((short, p)) or SYMBOLIC_DOMAINS.get(p)
            if spec is not None:
                valid[p], domains[p] = spec
        if not domains:
            continue
        # Arguments without a domain (expressions) keep their defaults, or a
        # valid expression where they are required.
        for p, par in inspect.signature(fn).parameters.items():
            if p not in valid and par.default is inspect.Parameter.empty:
                valid[p] = _symbolic_required(short, p)
        out.append(Entry("symbolic", key, fn, valid, domains))
    return out


def _symbolic_required(fn: str, param: str) -> Any:
    import sympy as sp

    from symfdp.symbolic import plrv, symbols

    if fn == "cumulants_from_cgf" and param == "cgf":
        return plrv.gaussian_cgf_expr()
    if fn == "truncated_exponential_moment_expr" and param == "a":
        return sp.Symbol("a", positive=True)
    return symbols.x


# ------------------------------------------------------------------ numeric.compile
def _evaluator_call(**kw: Any) -> Any:
    ev = NC.evaluator("edgeworth_cdf", 2)
    return ev(**kw)


NUMERIC_ENTRIES = [
    Entry(
        "symbolic",
        "numeric.evaluator",
        NC.evaluator,
        {"name": "edgeworth_cdf", "order": 2},
        {
            "name": Cases((Bad("unknown", "no_such", VE), Bad("int", 3, VE))),
            "order": Order(lo=0, hi=64),
        },
    ),
    Entry(
        "symbolic",
        "numeric.Evaluator.__call__",
        _evaluator_call,
        {"x": 0.1, "lambda3": 0.1, "lambda4": 0.0},
        {
            "x": Cases(
                (
                    Bad("str", "0.1", TE),
                    Bad("none", None, TE),
                    Bad("bool", True, TE),
                    Bad("nested-str", [[0.1, "a"]], TE),
                    Bad("complex", 0.1 + 1j, TE),
                )
            )
        },
        exempt={"kwargs": "the derivation's symbols"},
    ),
]


def _compile_expr_entries() -> list[Entry]:
    import sympy as sp

    x, y = sp.symbols("x y")
    return [
        Entry(
            "symbolic",
            "numeric.compile_expr",
            NC.compile_expr,
            {"expr": x + y, "args": (x, y), "label": "t"},
            {
                "expr": Cases((Bad("none", None, TE), Bad("object", OPAQUE, EITHER))),
                "args": Cases(
                    (
                        Bad("int", 3, TE),
                        Bad("strings", ("x", "y"), TE),
                        Bad("duplicate", (x, x, y), VE),
                        Bad("missing", (x,), VE, "args"),
                    )
                ),
            },
            exempt={"label": "free text naming the evaluator"},
        ),
        Entry(
            "symbolic",
            "numeric.register_derivation",
            NC.register_derivation,
            {
                "name": "edgeworth_cdf",
                "builder": lambda order: (x, (x,)),
                "depends": (),
                "replace": False,
            },
            {
                "name": Cases(
                    (
                        Bad("none", None, VE),
                        Bad("int", 3, VE),
                        Bad("upper-case", "Bad Name", VE),
                        Bad("taken", "edgeworth_cdf", VE),
                    )
                ),
                "builder": Func(),
                "depends": Cases((Bad("int", 3, TE), Bad("str", "sympy", TE))),
                "replace": Flag(),
            },
        ),
    ]


NUMERIC_EXEMPT = {
    "derivations": "no arguments",
    "cache_dir": "no arguments",
    "parse_srepr": "reads cache files written by symfdp (checked by the disk cache)",
    "normal_pdf": "a NumPy kernel inside compiled evaluators (NaN propagates)",
    "Derivation": "a registry record built by register_derivation",
    "Evaluator": "built by evaluator()/compile_expr(); __call__ is tested",
    "NUMERIC_FUNCS": "a constant",
    "CACHE_FORMAT": "a constant",
}


# ------------------------------------------------- export and interop (issue 14)
from symfdp import export as X  # noqa: E402
from symfdp import interop  # noqa: E402
from symfdp.interop import opacus as OP  # noqa: E402

#: Grids and delta lists default to None / (): explicit bad values.
GRID = Cases(
    (
        Bad("str", "x", TE),
        Bad("nan-in-array", [1.0, NAN], VE),
        Bad("object", OPAQUE, TE),
    )
)
DELTAS = Cases(
    (
        Bad("zero", [0.0], VE),
        Bad("one", [1.0], VE),
        Bad("nan", [NAN], VE),
        Bad("str", ["a"], TE),
    )
)
CURVE_ARG = Instance(PrivacyCurve)
KIND = Choice(X.KINDS)
EXPORT_FUNCTIONS: dict[str, tuple[dict[str, Any], dict[str, Domain]]] = {
    "table": (
        {"curve": _LazyCurve, "kind": "profile", "grid": [0.5]},
        {"curve": CURVE_ARG, "kind": KIND, "grid": GRID},
    ),
    "summary": (
        {"curve": _LazyCurve, "deltas": [1e-5]},
        {"curve": CURVE_ARG, "deltas": DELTAS},
    ),
    "to_json": (
        {"curve": _LazyCurve, "deltas": [1e-5], "kind": "profile", "grid": [0.5]},
        {
            "curve": CURVE_ARG,
            "deltas": DELTAS,
            "kind": Cases((Bad("unknown", "no-such", VE), Bad("int", 3, EITHER))),
            "grid": GRID,
        },
    ),
    "markdown": ({"curve": _LazyCurve}, {"curve": CURVE_ARG}),
    "composition_text": ({"curve": _LazyCurve}, {"curve": CURVE_ARG}),
}
EXPORT_EXEMPT = {"to_csv": "table's arguments and a path: test_export.py"}


def _export_entries() -> list[Entry]:
    out = []
    for name, (valid, domains) in EXPORT_FUNCTIONS.items():
        fn = getattr(X, name)

        def call(*, _fn: Callable[..., Any] = fn, **kw: Any) -> Any:
            return _fn(**_resolve(kw))

        exempt = {"indent": "passed to json.dumps"} if name == "to_json" else {}
        out.append(
            Entry(
                "export",
                f"export.{name}",
                call,
                valid,
                domains,
                exempt,
                signature_of=fn,
            )
        )
    return out


NOT_AN_EVENT = Cases(
    (
        Bad("int", 1, TE),
        Bad("str", "GaussianDpEvent", TE),
        Bad("none", None, TE),
        Bad("mechanism", M.Gaussian(mu=1.0), TE),
    )
)


def _interop_entries() -> list[Entry]:
    out = [
        Entry(
            "interop",
            "OpacusAccountant",
            OP.OpacusAccountant,
            {"method": "saddlepoint", "pessimistic": True},
            {"method": Choice(tuple(training.METHODS)), "pessimistic": Flag()},
        ),
        Entry(
            "interop",
            "OpacusAccountant.step",
            lambda **kw: OP.OpacusAccountant().step(**kw),
            {"noise_multiplier": 1.0, "sample_rate": 0.01},
            {"noise_multiplier": POSITIVE, "sample_rate": PROB},
            signature_of=OP.OpacusAccountant.step,
        ),
        Entry(
            "interop",
            "OpacusAccountant.get_epsilon",
            lambda **kw: OP.OpacusAccountant().get_epsilon(**kw),
            {"delta": 1e-5},
            {"delta": OPEN_UNIT},
            signature_of=OP.OpacusAccountant.get_epsilon,
        ),
        Entry(
            "interop",
            "OpacusAccountant.get_optimizer_hook_fn",
            lambda **kw: OP.OpacusAccountant().get_optimizer_hook_fn(**kw),
            {"sample_rate": 0.01},
            {"sample_rate": PROB},
            signature_of=OP.OpacusAccountant.get_optimizer_hook_fn,
        ),
    ]
    try:
        from dp_accounting import dp_event as de

        from symfdp.interop.dp_accounting import SymfdpAccountant
    except ImportError:  # pragma: no cover - dp-accounting is in the test extra
        return out
    relation = Choice(interop.ADJACENCIES)

    def fresh() -> Any:
        return SymfdpAccountant(accountant="saddlepoint").compose(
            de.PoissonSampledDpEvent(0.05, de.GaussianDpEvent(1.1)), 2000
        )

    out += [
        Entry(
            "interop",
            "from_dp_event",
            interop.from_dp_event,
            {"event": de.GaussianDpEvent(1.0), "adjacency": "add_or_remove"},
            {"event": NOT_AN_EVENT, "adjacency": relation},
        ),
        Entry(
            "interop",
            "SymfdpAccountant",
            SymfdpAccountant,
            {
                "neighboring_relation": "add_or_remove",
                "accountant": "clt",
                "pessimistic": True,
            },
            {
                "neighboring_relation": relation,
                "accountant": Cases(
                    (
                        Bad("unknown", "no-such", VE),
                        Bad("int", 3, TE),
                        Bad("class-not-instance", A.Numerical, TE),
                    )
                ),
                "pessimistic": Flag(),
            },
        ),
        Entry(
            "interop",
            "SymfdpAccountant.compose",
            lambda **kw: SymfdpAccountant().compose(**kw),
            {"event": de.GaussianDpEvent(1.0), "count": 2},
            {"event": NOT_AN_EVENT, "count": COUNT},
            signature_of=SymfdpAccountant.compose,
        ),
        Entry(
            "interop",
            "SymfdpAccountant.get_epsilon",
            lambda **kw: fresh().get_epsilon(**kw),
            {"target_delta": 1e-5},
            {"target_delta": UNIT},
            signature_of=SymfdpAccountant.get_epsilon,
        ),
        Entry(
            "interop",
            "SymfdpAccountant.get_delta",
            lambda **kw: fresh().get_delta(**kw),
            {"target_epsilon": 1.0},
            {"target_epsilon": Real(allow_inf=True)},
            signature_of=SymfdpAccountant.get_delta,
        ),
        Entry(
            "interop",
            "SymfdpAccountant.get_epsilon_bounds",
            lambda **kw: (
                SymfdpAccountant()
                .compose(de.GaussianDpEvent(1.0))
                .get_epsilon_bounds(**kw)
            ),
            {"target_delta": 1e-5},
            {"target_delta": PROB},
            signature_of=SymfdpAccountant.get_epsilon_bounds,
        ),
    ]
    return out


def test_every_export_and_interop_name_is_covered() -> None:
    public = {
        n
        for n, obj in vars(X).items()
        if not n.startswith("_")
        and inspect.isfunction(obj)
        and obj.__module__ == X.__name__
    }
    assert public == set(EXPORT_FUNCTIONS) | set(EXPORT_EXEMPT)
    names = {e.name for e in _interop_entries()}
    assert set(interop.__all__) - {"ADJACENCIES"} <= names | {
        "NonPrivateEventError",
        "UnsupportedEventError",
    }
    exempt = {"mechanism", "state_dict", "load_state_dict", "accountant", "history"}
    for cls in (OP.OpacusAccountant,):
        for meth in _public_methods(cls()):
            assert f"{cls.__name__}.{meth}" in names or meth in exempt, meth


# --------------------------------------------------- all cases
def _all_entries() -> list[Entry]:
    return [
        *_mechanism_entries(),
        *_method_entries(),
        *_accountant_entries(),
        *_tradeoff_class_entries(),
        *_tradeoff_method_entries(),
        *_tradeoff_function_entries(),
        *_rero_entries(),
        *_calibrate_entries(),
        *_training_entries(),
        *_symbolic_entries(),
        *NUMERIC_ENTRIES,
        *_compile_expr_entries(),
        *_export_entries(),
        *_interop_entries(),
    ]


ENTRIES = _all_entries()
CASES = [
    pytest.param(entry, param, bad, id=f"{entry.name}:{param}={bad.label}")
    for entry in ENTRIES
    for param, bad in entry.cases()
]


@pytest.mark.parametrize(("entry", "param", "bad"), CASES)
def test_bad_argument_is_rejected(entry: Entry, param: str, bad: Bad) -> None:
    assert_rejects(
        lambda: entry.call(**entry.kwargs(param, bad.value)),
        bad.errors,
        bad.name or param,
    )


def _largest_finite_cases() -> list[Any]:
    """Real parameters without a finite upper end, given 1e308."""
    out = []
    for entry in ENTRIES:
        for param, dom in entry.domains.items():
            if isinstance(dom, (Real, Array)) and dom.hi == INF:
                out.append(pytest.param(entry, param, id=f"{entry.name}:{param}"))
    return out


@pytest.mark.parametrize(("entry", "param"), _largest_finite_cases())
def test_largest_float_is_answered_or_refused(entry: Entry, param: str) -> None:
    """1e308 (in range, but near the float64 limit) gives an answer or a
    ValueError/TypeError naming the parameter; never an OverflowError,
    FloatingPointError or another escape from the arithmetic."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            entry.call(**entry.kwargs(param, 1e308))
        except (ValueError, TypeError) as exc:
            assert _names(str(exc), param), str(exc)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_valid_arguments_are_accepted(entry: Entry) -> None:
    """The valid baseline of each entry works, so that each rejection above is
    caused by the bad value alone."""
    if entry.name.endswith("register_derivation"):
        pytest.skip("registers a builder")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        entry.call(**entry.valid)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_every_parameter_has_a_domain(entry: Entry) -> None:
    """A new parameter of a public entry point fails here until it has a domain
    (or a stated reason to be exempt)."""
    missing = [
        p
        for p in _signature_params(entry)
        if p not in entry.domains and p not in entry.exempt
    ]
    if entry.category == "symbolic" and entry.name.startswith(
        tuple(_symbolic_functions())
    ):
        missing = [p for p in missing if p not in SYMBOLIC_EXPR_ARGS]
    assert not missing, f"{entry.name}: no domain for {missing}"


# ------------------------------------------------ completeness
def test_every_registered_mechanism_has_metadata() -> None:
    for key, cls in M.REGISTRY.items():
        assert cls.PARAMS, key
        for name in inspect.signature(cls).parameters:
            assert name in cls.PARAMS or name in ALIASES or name == "pair", (
                f"{key}: constructor argument {name!r} has no PARAMS entry"
            )


def test_every_mechanism_class_is_covered() -> None:
    concrete = {
        n
        for n in M.__all__
        if isinstance(getattr(M, n), type)
        and issubclass(getattr(M, n), M.Mechanism)
        and not inspect.isabstract(getattr(M, n))
    }
    registered = {cls.__name__ for cls in M.REGISTRY.values()}
    assert concrete <= registered | set(WRAPPERS)


def test_every_mechanism_method_is_covered() -> None:
    for key, m in _mechanism_instances().items():
        for meth in _public_methods(m):
            for p in inspect.signature(getattr(m, meth)).parameters:
                assert p in METHOD_DOMAINS or p in METHOD_EXEMPT, (key, meth, p)


def test_every_curve_method_is_covered() -> None:
    public = {
        n
        for n in dir(PrivacyCurve)
        if not n.startswith("_") and callable(getattr(PrivacyCurve, n))
    }
    assert public <= set(CURVE_QUERIES) | set(CURVE_EXEMPT), public


def test_every_tradeoff_name_is_covered() -> None:
    classes = set(_tradeoff_classes()) | {"TradeOff"}
    functions = set(TRADEOFF_FUNCTIONS) | {"compose_gaussian"}
    assert set(T.__all__) == classes | functions
    for name, cls in _tradeoff_classes().items():
        for f in dataclasses.fields(cls):
            assert f.name in TRADEOFF_FIELDS or (name, f.name) in (
                TRADEOFF_FIELD_OVERRIDES
            ), (name, f.name)
    for f in _tradeoff_instances().values():
        for meth in _public_methods(f):
            assert meth in TRADEOFF_METHODS or meth in TRADEOFF_METHOD_EXEMPT, meth


def test_every_rero_calibrate_training_name_is_covered() -> None:
    assert set(rero.__all__) == set(RERO_FUNCTIONS) | set(RERO_EXEMPT)
    assert _calibrate_functions() == sorted(CALIBRATE_FUNCTIONS)
    methods = set(_public_methods(training.TrainingAccountant()))
    assert methods == set(TRAINING_METHODS) | set(TRAINING_EXEMPT)
    public = {
        n
        for n, obj in vars(training).items()
        if not n.startswith("_")
        and callable(obj)
        and getattr(obj, "__module__", None) == training.__name__
    }
    # Shared with the command line and sweeps: defined in symfdp.runs, covered
    # here under the names training exports.
    shared = {"make_accountant", "normalize_method", "mu_star"}
    assert public == set(TRAINING_FUNCTIONS) - shared
    assert {getattr(training, n).__module__.split(".")[1] for n in shared} == {"runs"}


def test_every_accountant_is_covered() -> None:
    names = set(_accountant_classes())
    assert names, "no accountants found"
    assert names == {n for n in A.__all__ if n not in ("Accountant",)} - {
        "normalize_composition"
    }


def test_every_numeric_compile_name_is_covered() -> None:
    tested = {"evaluator", "compile_expr", "register_derivation"}
    assert set(NC.__all__) == tested | set(NUMERIC_EXEMPT)


# ----------------------------------------------------- compose
@pytest.mark.parametrize("acc", sorted(_accountant_classes()))
@pytest.mark.parametrize(
    ("label", "mechanism", "n", "errors", "name"),
    COMPOSE_BAD,
    ids=[c[0] for c in COMPOSE_BAD],
)
def test_compose_rejects(acc: str, label: str, mechanism: Any, n: Any, errors, name):
    accountant = _accountant_classes()[acc]()
    if n is None:
        assert_rejects(lambda: accountant.compose(mechanism), errors, name)
    else:
        assert_rejects(lambda: accountant.compose(mechanism, n), errors, name)


# ----------------------------------------------- curve queries
def _curve_cases() -> list[Any]:
    out = []
    for acc in sorted(_accountant_classes()):
        for comp in CURVE_COMPOSITIONS:
            for meth, (arg, domain, _) in CURVE_QUERIES.items():
                if meth in CERTIFIED_ONLY and not _accountant_classes()[acc].certified:
                    continue  # see test_bounds_need_a_certified_curve
                domains = {arg: domain, **CURVE_FLAGS.get(meth, {})}
                for param, dom in domains.items():
                    for bad in dom.bad():
                        out.append(
                            pytest.param(
                                acc,
                                comp,
                                meth,
                                param,
                                bad,
                                id=f"{acc}-{comp}.{meth}:{param}={bad.label}",
                            )
                        )
    return out


@pytest.mark.parametrize(("acc", "comp", "meth", "param", "bad"), _curve_cases())
def test_curve_query_rejects(acc: str, comp: str, meth: str, param: str, bad: Bad):
    curve = _curve_or_skip(acc, comp)
    if not _serves(curve, meth):
        pytest.skip(f"{acc} has no {meth} (NotImplementedError)")
    arg, _, valid = CURVE_QUERIES[meth]
    kwargs = {arg: valid, param: bad.value}
    assert_rejects(lambda: getattr(curve, meth)(**kwargs), bad.errors, param)


@pytest.mark.parametrize("acc", sorted(_accountant_classes()))
@pytest.mark.parametrize("comp", sorted(CURVE_COMPOSITIONS))
def test_empty_arrays_give_empty_results(acc: str, comp: str) -> None:
    curve = _curve_or_skip(acc, comp)
    for meth in CURVE_QUERIES:
        if not _serves(curve, meth):
            continue
        for shape in ((0,), (2, 0)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = getattr(curve, meth)(np.empty(shape))
            parts = out if meth in CERTIFIED_ONLY else (out,)
            for part in parts:
                assert isinstance(part, np.ndarray), (meth, shape, type(part))
                assert part.shape == shape and part.dtype == np.float64, (meth, shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = getattr(curve, meth)([])
        for part in out if meth in CERTIFIED_ONLY else (out,):
            assert np.shape(part) == (0,)


@pytest.mark.parametrize("acc", sorted(_accountant_classes()))
def test_bounds_need_a_certified_curve(acc: str) -> None:
    curve = _curve_or_skip(acc, "gauss")
    for meth in CERTIFIED_ONLY:
        _, _, valid = CURVE_QUERIES[meth]
        if curve.certified:
            getattr(curve, meth)(valid)
        else:
            with pytest.raises(NotImplementedError, match="certified"):
                getattr(curve, meth)(valid)


@pytest.mark.parametrize("acc", sorted(_accountant_classes()))
def test_valid_queries_return_finite_values(acc: str) -> None:
    """Values in the documented ranges give numbers, not NaN; where a method
    cannot answer (Berry-Esseen below its vacuous delta, Numerical below its
    resolution) it says so in a ValueError naming delta."""
    for comp in CURVE_COMPOSITIONS:
        curve = _curve(acc, comp)
        if curve is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = curve.delta([-INF, -1.0, 0.0, 1.0, 50.0, INF])
            f = curve.tradeoff([0.0, 1e-300, 0.5, 1.0])
            for delta in (1e-10, 1e-5, 0.5, 1 - 1e-12):
                try:
                    e = curve.epsilon(delta)
                except ValueError as exc:
                    assert _names(str(exc), "delta"), str(exc)
                else:
                    assert math.isfinite(e) and e >= 0, (comp, delta, e)
        assert np.all(np.isfinite(f)) and np.all((f >= 0) & (f <= 1))
        assert np.all((d >= 0) & (d <= 1))
        assert d[0] == 1.0 and d[-1] == 0.0


# ------------------------------------------------ empty arrays
EMPTY_CALLS: dict[str, Callable[[Any], Any]] = {
    "T.Gaussian.__call__": lambda e: T.Gaussian(1.0)(e),
    "T.Subsampled.privacy_profile": lambda e: T.subsample(G1, 0.3).privacy_profile(e),
    "T.conjugate": lambda e: T.conjugate(G1, e),
    "T.tradeoff_from_profile": lambda e: T.tradeoff_from_profile(
        _delta_fn, e, [0.0, 1.0]
    ),
    "rero.gamma": lambda e: rero.gamma(G1, e),
    "rero.gamma_from_eps_delta": lambda e: rero.gamma_from_eps_delta(1.0, 1e-5, e),
    "rero.gamma_gaussian": lambda e: rero.gamma_gaussian(e, 1.0),
    "rero.gamma_laplace": lambda e: rero.gamma_laplace(e, 1.0),
    "mechanism.privacy_profile": lambda e: M.SubsampledGaussian(
        p=0.1, sigma=1.0
    ).privacy_profile(e),
    "mechanism.tradeoff": lambda e: M.Gaussian(mu=1.0).tradeoff(e),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CALLS))
def test_empty_arrays_elsewhere(name: str) -> None:
    out = EMPTY_CALLS[name](np.empty((0,)))
    assert isinstance(out, np.ndarray) and out.shape == (0,)


# ---------------------------------------------------- misc API
def test_gaussian_needs_exactly_one_parametrisation() -> None:
    for call in (
        lambda: M.Gaussian(),
        lambda: M.Gaussian(mu=1.0, sigma=1.0),
        lambda: M.SubsampledGaussian(p=0.5),
        lambda: M.SubsampledGaussian(p=0.5, mu=1.0, sigma=1.0),
    ):
        assert_rejects(call, VE, "sigma")


def test_monte_carlo_needs_mu_or_sigma() -> None:
    assert_rejects(lambda: rero.monte_carlo_gamma(0.1, samples=SAMPLES), VE, "mu")
    assert_rejects(
        lambda: rero.monte_carlo_gamma(0.1, mu=1.0, sigma=1.0, samples=SAMPLES),
        VE,
        "sigma",
    )


def test_gamma_bounds_needs_a_certified_curve() -> None:
    with pytest.raises(NotImplementedError, match="certified"):
        rero.gamma_bounds(_clt_curve(), 0.1)


@pytest.mark.parametrize(
    ("options", "errors", "name"),
    [
        ({"method": "edgeworth", "order": -1}, VE, "order"),
        ({"method": "saddlepoint", "order": 17}, VE, "order"),
        ({"method": "numerical", "eps_rel_tol": NAN}, EITHER, "eps_rel_tol"),
        ({"method": "numerical", "bogus": 1}, TE, "bogus"),
        ({"method": "edgeworth", "order": np.int64(2)}, TE, "order"),
        ({"method": "numerical", "eps_grid": np.linspace(0, 1, 3)}, TE, "eps_grid"),
    ],
    ids=lambda v: str(v),
)
def test_training_accountant_options(options, errors, name) -> None:
    assert_rejects(lambda: training.TrainingAccountant(**options), errors, name)


def test_failed_step_records_nothing() -> None:
    acc = _fresh_accountant()
    before = acc.state_dict()
    for bad in (NAN, 0.0, -1.0, "1"):
        with pytest.raises((TypeError, ValueError)):
            acc.step(noise_multiplier=bad, sample_rate=0.01)
        with pytest.raises((TypeError, ValueError)):
            acc.step(noise_multiplier=1.0, sample_rate=bad)
    assert acc.state_dict() == before


def _state(**changes: Any) -> dict[str, Any]:
    state = json.loads(json.dumps(_fresh_accountant().state_dict()))
    for key, value in changes.items():
        if value is _DELETE:
            del state[key]
        else:
            state[key] = value
    return state


_DELETE = object()
CORRUPT_STATES: list[tuple[str, Any, tuple[type[Exception], ...], str]] = [
    ("not-a-dict", [], TE, "state"),
    ("none", None, TE, "state"),
    ("string", "{}", TE, "state"),
    ("empty", {}, VE, "format"),
    ("no-format", _state(format=_DELETE), VE, "format"),
    ("bad-format", _state(format="other"), VE, "format"),
    ("bad-version", _state(version=3), VE, "version"),
    ("version-str", _state(version="1"), VE, "version"),
    ("version-bool", _state(version=True), VE, "version"),
    ("no-history", _state(history=_DELETE), VE, "history"),
    ("no-method", _state(method=_DELETE), VE, "method"),
    ("bad-method", _state(method="magic"), VE, "method"),
    ("method-int", _state(method=3), TE, "method"),
    ("bad-adjacency", _state(adjacency="sideways"), VE, "adjacency"),
    ("v1-with-adjacency", _state(version=1), VE, "adjacency"),
    ("v1-bad-pair", _state(version=1, adjacency=_DELETE, pair="sideways"), VE, "pair"),
    ("options-list", _state(options=[]), TE, "options"),
    ("options-unknown", _state(options={"bogus": 1}), TE, "bogus"),
    ("options-bad", _state(options={"order": 99}), VE, "order"),
    ("history-dict", _state(history={}), TE, "history"),
    ("history-str", _state(history="abc"), TE, "history"),
    ("entry-short", _state(history=[[1.0, 0.01]]), VE, "history"),
    ("entry-none", _state(history=[None]), VE, "history"),
    ("entry-zero-steps", _state(history=[[1.0, 0.01, 0]]), VE, "num_steps"),
    ("entry-negative-steps", _state(history=[[1.0, 0.01, -3]]), VE, "num_steps"),
    ("entry-fraction-steps", _state(history=[[1.0, 0.01, 1.5]]), TE, "num_steps"),
    ("entry-bool-steps", _state(history=[[1.0, 0.01, True]]), TE, "num_steps"),
    ("entry-nan-sigma", _state(history=[[NAN, 0.01, 1]]), VE, "noise_multiplier"),
    ("entry-str-sigma", _state(history=[["1", 0.01, 1]]), TE, "noise_multiplier"),
    ("entry-rate-above-1", _state(history=[[1.0, 2.0, 1]]), VE, "sample_rate"),
    ("entry-rate-zero", _state(history=[[1.0, 0.0, 1]]), VE, "sample_rate"),
    ("entry-float-steps", _state(history=[[1.0, 0.01, 100.0]]), TE, "num_steps"),
    ("entry-huge-float-steps", _state(history=[[1.0, 0.01, 1e30]]), TE, "num_steps"),
    ("entry-steps-2-63", _state(history=[[1.0, 0.01, 2**63]]), VE, "num_steps"),
    (
        "entries-total-above-max",
        _state(history=[[1.0, 0.01, MAX_INT], [2.0, 0.01, 1]]),
        VE,
        "num_steps",
    ),
    ("version-float", _state(version=1.0), VE, "version"),
    ("unknown-key", _state(extra=1), VE, "extra"),
]


@pytest.mark.parametrize(
    ("label", "state", "errors", "name"),
    CORRUPT_STATES,
    ids=[c[0] for c in CORRUPT_STATES],
)
def test_load_state_dict_rejects(label: str, state: Any, errors, name: str) -> None:
    acc = training.TrainingAccountant(method="saddlepoint", adjacency="add")
    acc.step(noise_multiplier=2.0, sample_rate=0.5)
    before = acc.state_dict()
    assert_rejects(lambda: acc.load_state_dict(state), errors, name)
    assert acc.state_dict() == before, "a failed load changed the accountant"
    assert_rejects(
        lambda: training.TrainingAccountant.from_state_dict(state), errors, name
    )


# --------------------------------------------------------- CLI
def _run(argv: list[str]) -> tuple[int, str, str]:
    err, out = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse --help/--version only
                code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def assert_usage_error(argv: list[str], flag: str | None) -> None:
    code, _, err = _run(argv)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, f"{argv}: exit status {code}; stderr {err!r}"
    assert len(lines) == 1, f"{argv}: stderr has {len(lines)} lines: {err!r}"
    assert "Traceback" not in err
    assert lines[0].startswith("symfdp: error:"), lines[0]
    if flag is not None:
        assert flag in lines[0], f"{argv}: {lines[0]!r} does not name {flag}"


#: A valid command line per subcommand, cheap to run, into which one bad flag
#: value is put at a time. verify and reproduce name an unknown script /
#: experiment, so that a value that slipped through validation still ends in an
#: error (one that does not name the flag, so the test fails) and nothing runs.
BASE_ARGV: dict[str, str] = {
    "account": "account --sigma 1 --sample-rate 0.01 --steps 10 --delta 1e-5 "
    "--method saddlepoint",
    "calibrate": "calibrate --target-eps 1 --delta 1e-5 --sample-rate 0.01 "
    "--steps 100 --method saddlepoint",
    "derive": "derive cumulants --order 2",
    "verify": "verify no_such_script",
    "reproduce": "reproduce --out {tmp} no-such-experiment",
    "sweep": "sweep {tmp}/no-such-spec.toml -o {tmp}/out",
}
#: Flags whose value is free text (their checks are in CLI_RANGE_CASES).
CLI_TEXT_FLAGS = {"--plot", "--out", "--p", "--q", "--param", "--support"}


def _base_argv(cmd: str, tmp: Any) -> list[str]:
    return BASE_ARGV[cmd].format(tmp=tmp).split()


def _subparsers() -> dict[str, Any]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return dict(action.choices)


def _flag_cases() -> list[Any]:
    """A value of the wrong kind for every flag of every subcommand that takes
    a value (read from the parsers: a new flag is tested without listing it)."""
    out = []
    for cmd, sub in _subparsers().items():
        for action in sub._actions:
            if not action.option_strings or action.nargs == 0:
                continue
            flag = max(action.option_strings, key=len)
            if flag in CLI_TEXT_FLAGS:
                continue
            count = action.nargs if isinstance(action.nargs, int) else 1
            values = ["not-a-number"] if action.choices is None else ["no-such"]
            if action.type is not None and action.choices is None:
                values += ["nan", "inf", ""]
            for v in values:
                out.append(
                    pytest.param(cmd, flag, [v] * count, id=f"{cmd}{flag}={v!r}")
                )
    return out


def _with_flag(argv: list[str], flag: str, values: list[str]) -> list[str]:
    argv = list(argv)
    if flag in argv:
        i = argv.index(flag)
        del argv[i : i + 1 + len(values)]
    return [*argv, flag, *values]


@pytest.mark.parametrize(("cmd", "flag", "values"), _flag_cases())
def test_cli_flag_of_the_wrong_kind(cmd: str, flag: str, values: list[str], tmp_path):
    assert_usage_error(_with_flag(_base_argv(cmd, tmp_path), flag, values), flag)


#: Values of the right kind outside their range, and conflicts: (subcommand,
#: flags set on the base command line, text the one-line message must contain).
CLI_RANGE_CASES: list[tuple[str, str, str]] = [
    ("account", "--sigma 0", "--sigma"),
    ("account", "--sigma -1", "--sigma"),
    ("account", "--sample-rate 0", "--sample-rate"),
    ("account", "--sample-rate 1.5", "--sample-rate"),
    ("account", "--steps 0", "--steps"),
    ("account", "--steps -3", "--steps"),
    ("account", "--delta 0", "--delta"),
    ("account", "--delta 1", "--delta"),
    ("account", "--delta 2", "--delta"),
    ("account", "--at-eps -1", "--at-eps"),
    ("account", "--order -1", "--order"),
    ("account", "--order 17", "--order"),
    ("account", "--method edgeworth --order 65", "order"),
    ("account", "--epochs 2 --dataset-size 100 --batch-size 10", "--epochs"),
    ("account", "--mu 1", "--mu"),
    ("account", "--eps 1", "--eps"),
    ("account", "--plot out.txt", "--plot"),
    ("account", "--plot /no/such/dir/out.png", "--plot"),
    ("calibrate", "--target-eps 0", "--target-eps"),
    ("calibrate", "--target-eps -1", "--target-eps"),
    ("calibrate", "--target-mu 1", "--target-mu"),
    ("calibrate", "--delta 1", "--delta"),
    ("calibrate", "--sample-rate 2", "--sample-rate"),
    ("calibrate", "--steps 0", "--steps"),
    ("calibrate", "--sigma-range 5 1", "--sigma-range"),
    ("calibrate", "--sigma-range 0 1", "--sigma-range"),
    ("calibrate", "--rtol 0", "rtol"),
    ("calibrate", "--rtol 1", "rtol"),
    ("calibrate", "--target-eps 5000", "--sigma-range"),
    ("calibrate", "--epochs 1 --dataset-size 100 --batch-size 10", "--epochs"),
    ("calibrate", "--mechanism gaussian", "--sample-rate"),
    ("derive", "--order -1", "order"),
    ("derive", "--order 65", "order"),
    ("derive", "--p ((( --q x", "--p"),
    ("derive", "--p x --q x --param mu", "--param"),
    ("derive", "--p x", "--q"),
    ("derive", "--p x --q x --support nan 1", "--support"),
    ("derive", "--p x --q x --support 1 0", "--support"),
    ("derive", "--mechanism gaussian --p x --q x", "--mechanism"),
    ("verify", "--jobs 0", "--jobs"),
    ("verify", "--jobs -2", "--jobs"),
    ("verify", "--timeout 0", "--timeout"),
    ("verify", "--timeout -1", "--timeout"),
    ("reproduce", "--jobs 0", "--jobs"),
    ("sweep", "--jobs 0", "--jobs"),
    ("sweep", "--executor nowhere", "--executor"),
]
#: Whole command lines with a flag missing or in conflict.
CLI_WHOLE_CASES: list[tuple[str, str]] = [
    ("", "COMMAND"),
    ("no-such-command", "COMMAND"),
    ("account", "--delta"),
    ("account --sigma 1 --sample-rate 0.01 --delta 1e-5", "--steps"),
    ("account --steps 10 --delta 1e-5 --sample-rate 0.1", "--sigma"),
    ("account --sigma 1 --epochs 2 --batch-size 10 --delta 1e-5", "--dataset-size"),
    (
        "account --sigma 1 --epochs 2 --dataset-size 100 --batch-size 200 --delta 1e-5",
        "--batch-size",
    ),
    (
        "account --sigma 1 --epochs 0 --dataset-size 100 --batch-size 10 --delta 1e-5",
        "--epochs",
    ),
    (
        "account --mechanism gaussian --sigma 1 --sample-rate 0.5 --steps 10 "
        "--delta 1e-5",
        "--sample-rate",
    ),
    ("account --mechanism pure-dp --steps 3 --delta 1e-5", "--eps"),
    ("account --mechanism laplace --sigma 1 --steps 3 --delta 1e-5", "--sigma"),
    ("calibrate --delta 1e-5 --sample-rate 0.1 --steps 3", "--target"),
    ("calibrate --target-eps 1 --sample-rate 0.1 --steps 3", "--delta"),
    ("derive", "kind"),
    ("derive no-such", "kind"),
    ("reproduce", "ID"),
    ("reproduce --jobs 0 list", "--jobs"),
]


def _set_flags(argv: list[str], change: str) -> list[str]:
    words = change.split()
    i = 0
    while i < len(words):
        j = i + 1
        while j < len(words) and not words[j].startswith("--"):
            j += 1
        argv = _with_flag(argv, words[i], words[i + 1 : j])
        i = j
    return argv


@pytest.mark.parametrize(
    ("cmd", "change", "flag"),
    CLI_RANGE_CASES,
    ids=[f"{c} {ch}" for c, ch, _ in CLI_RANGE_CASES],
)
def test_cli_value_out_of_range(cmd: str, change: str, flag: str, tmp_path) -> None:
    assert_usage_error(_set_flags(_base_argv(cmd, tmp_path), change), flag)


@pytest.mark.parametrize(
    ("argv", "flag"), CLI_WHOLE_CASES, ids=[a or "<empty>" for a, _ in CLI_WHOLE_CASES]
)
def test_cli_missing_or_conflicting_flags(argv: str, flag: str) -> None:
    assert_usage_error(argv.split(), flag)


def test_cli_reproduce_list_and_all_stand_alone(tmp_path) -> None:
    for targets in (["list", "all"], ["all", "no-such"], ["list", "x"]):
        assert_usage_error(["reproduce", "--out", str(tmp_path), *targets], "ID")
    assert not any(tmp_path.iterdir()), "a rejected command wrote results"


@pytest.mark.parametrize(
    "argv",
    [
        "account --sigma 1 --sample-rate 1.5 --steps 10 --delta 1e-5",
        "calibrate --target-eps 1 --sample-rate 0.01 --steps 10",
    ],
)
def test_cli_user_error_in_a_real_process(argv: str) -> None:
    """The console entry point itself: one line on stderr, status 2."""
    proc = subprocess.run(
        [sys.executable, "-m", "symfdp", *argv.split()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("symfdp: error:"), proc.stderr
    assert "Traceback" not in proc.stderr
