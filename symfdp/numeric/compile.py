"""Symbolic expression -> cached, vectorised NumPy evaluator.

The only module that calls ``sympy.lambdify`` (with ``cse=True``). An
:class:`Evaluator` is built from a registered *derivation* (a builder
``order -> (expr, args)``, :func:`register_derivation`) or an explicit
expression (:func:`compile_expr`), cached in memory per process and on disk
(:mod:`symfdp.numeric.disk_cache`: ``srepr`` text and generated source, keyed
by a content hash of the derivation; ``SYMFDP_NO_CACHE=1`` disables it; read
back through :mod:`symfdp.numeric.restricted`). A warm load needs no SymPy.
Undefined functions map to SciPy through :data:`NUMERIC_FUNCS`
(:mod:`symfdp.numeric.functions`)."""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from symfdp._validation import as_real_array, check_bool, check_order
from symfdp.numeric import disk_cache, restricted
from symfdp.numeric.disk_cache import CACHE_FORMAT, cache_dir
from symfdp.numeric.functions import NUMERIC_FUNCS, normal_pdf
from symfdp.numeric.restricted import parse_srepr

# Names of the disk layer kept importable from here (tests and tools use them).
_CacheError = disk_cache.CacheError
_exec_source = restricted.exec_source
_checksum = disk_cache.checksum

__all__ = [
    "CACHE_FORMAT",
    "NUMERIC_FUNCS",
    "Derivation",
    "Evaluator",
    "cache_dir",
    "compile_expr",
    "derivations",
    "evaluator",
    "normal_pdf",
    "parse_srepr",
    "register_derivation",
]

Builder = Callable[[int], tuple[Any, Sequence[Any]]]


@dataclass(frozen=True)
class Derivation:
    """A registered builder and the modules whose source it depends on."""

    name: str
    builder: Builder
    depends: tuple[str, ...] = ()


_DERIVATIONS: dict[str, Derivation] = {}
_NAME_RE: Final = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Evaluator:
    """A compiled, vectorised evaluator of a derived expression.

    Attributes:
        name: The derivation name (or ``"expr:<label>"`` for :func:`compile_expr`).
        order: The expansion order (``-1`` for an explicit expression).
        args: Keyword names of the arguments (the SymPy symbol names), in order.
        fn: The generated function (positional arguments in ``args`` order).
        fingerprint: sha256 of the expression's ``srepr``.
        source: The generated Python source, for review.
        srepr: The expression as ``sympy.srepr`` text.
        n_outputs: ``None`` for a scalar expression, else the length of a vector one.

    Called with keyword arguments only (broadcast); returns a float for 0-d
    results, else an array (``(n_outputs, *shape)`` for a vector expression)."""

    name: str
    order: int
    args: tuple[str, ...]
    fn: Callable[..., Any] = field(repr=False, compare=False)
    fingerprint: str
    source: str = field(repr=False)
    srepr: str = field(repr=False, compare=False)
    n_outputs: int | None = None

    def __call__(self, **kwargs: Any) -> Any:
        missing = [a for a in self.args if a not in kwargs]
        extra = sorted(set(kwargs) - set(self.args))
        if missing or extra:
            raise TypeError(
                f"evaluator {self.name!r} takes keyword arguments {self.args}; "
                f"missing {missing}, unexpected {extra}."
            )
        # Values are checked for type only: NaN propagates as in NumPy ufuncs.
        values = [as_real_array(a, kwargs[a]) for a in self.args]
        shape = np.broadcast_shapes(*(v.shape for v in values)) if values else ()
        out = self.fn(*values)
        if self.n_outputs is None:
            res = np.array(np.broadcast_to(np.asarray(out, dtype=np.float64), shape))
            return float(res) if res.ndim == 0 else res
        return np.stack(
            [np.broadcast_to(np.asarray(o, dtype=np.float64), shape) for o in out]
        )

    def expression(self) -> Any:
        """The SymPy expression (parsed back from :attr:`srepr`; imports SymPy)."""
        return parse_srepr(self.srepr)


def register_derivation(
    name: str, builder: Builder, *, depends: Sequence[str] = (), replace: bool = False
) -> None:
    """Register a derivation ``builder(order) -> (expr, args)`` under ``name``.

    ``expr`` is a SymPy expression (or a sequence of them) and ``args`` an
    explicit tuple of symbols; the builder imports SymPy inside its body.
    ``depends`` names the modules whose source enters the disk-cache key.
    Re-registering the same builder (a module reload) replaces it.

    Raises:
        ValueError: ``name`` is malformed, or already registered to another builder
            and not ``replace``.
        TypeError: ``builder`` is not callable.
    """
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(
            f"name must match [a-z][a-z0-9_]* (lower-case identifier). Found {name!r}."
        )
    if not callable(builder):
        raise TypeError(f"builder must be callable. Found {builder!r}.")
    replace = check_bool("replace", replace)
    if isinstance(depends, str) or not all(
        isinstance(d, str) for d in _iterable("depends", depends)
    ):
        raise TypeError(
            f"depends must be a sequence of module names. Found {depends!r}."
        )
    old = _DERIVATIONS.get(name)
    same = old is not None and (
        getattr(old.builder, "__module__", None),
        getattr(old.builder, "__qualname__", None),
    ) == (getattr(builder, "__module__", None), getattr(builder, "__qualname__", None))
    if old is not None and not (replace or same):
        raise ValueError(
            f"name {name!r} is already registered to another builder (use "
            "replace=True)."
        )
    _DERIVATIONS[name] = Derivation(name, builder, tuple(depends))
    _evaluator.cache_clear()


def derivations() -> tuple[str, ...]:
    """Names of the registered derivations."""
    return tuple(sorted(_DERIVATIONS))


def evaluator(name: str, order: int) -> Evaluator:
    """The compiled evaluator of derivation ``name`` at ``order`` (cached in
    memory and on disk; module docstring).

    Raises:
        ValueError: unknown ``name`` or invalid ``order``.
    """
    if name not in _DERIVATIONS:
        known = ", ".join(derivations())
        raise ValueError(
            f"name must be a registered derivation ({known}). Found {name!r}."
        )
    return _evaluator(name, check_order(order))


@functools.cache
def _evaluator(name: str, order: int) -> Evaluator:
    derivation = _DERIVATIONS[name]
    key = disk_cache.derivation_key(name, derivation.builder, derivation.depends, order)
    path = disk_cache.cache_path(name, order, key)
    if path is not None and key is not None:
        cached = restricted.load_evaluator(path, key)
        if cached is not None:
            return _from_record(*cached, name, order)
    expr, args = derivation.builder(order)
    record, fn = _compile_record(expr, tuple(args), key)
    if path is not None:
        _store(path, record)
    return _from_record(record, fn, name, order)


def compile_expr(expr: Any, args: Sequence[Any], *, label: str = "expr") -> Evaluator:
    """Compile an explicit SymPy expression (or a sequence of them).

    Cached in memory and on disk by the expression's fingerprint and ``args``.

    Args:
        expr: The expression; undefined functions must be keys of
            :data:`NUMERIC_FUNCS` or known to NumPy/SciPy.
        args: The argument symbols, in call order (keyword names = symbol names).
        label: A short label for the evaluator's name.
    """
    import sympy as sp

    expr = _normalise_expr(expr)
    if not isinstance(expr, sp.Basic):
        raise TypeError(f"expr must be a SymPy expression. Found {expr!r}.")
    args = tuple(_iterable("args", args))
    for a in args:
        if not isinstance(a, sp.Symbol):
            raise TypeError(f"args must be SymPy symbols. Found {a!r}.")
    if len(set(args)) != len(args):
        raise ValueError(f"args must be distinct symbols. Found {args}.")
    text = sp.srepr(expr) + "|" + sp.srepr(sp.Tuple(*args))
    return _compile_cached(text, expr, args, label)


def _compile_cached(
    text: str, expr: Any, args: tuple[Any, ...], label: str
) -> Evaluator:
    fingerprint = disk_cache.sha256(text)
    hit = _EXPR_CACHE.get(fingerprint)
    if hit is not None:
        return hit
    key = disk_cache.sha256(json.dumps([CACHE_FORMAT, text, *disk_cache.versions()]))
    path = disk_cache.cache_path("expr", 0, key)
    loaded = restricted.load_evaluator(path, key) if path is not None else None
    if loaded is None:
        loaded = _compile_record(expr, args, key)
        if path is not None:
            _store(path, loaded[0])
    result = _from_record(*loaded, f"expr:{label}", -1)
    _EXPR_CACHE[fingerprint] = result
    return result


_EXPR_CACHE: dict[str, Evaluator] = {}


def _iterable(name: str, value: Any) -> Any:
    try:
        return iter(value)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence. Found {type(value).__name__}."
        ) from None


def _normalise_expr(expr: Any) -> Any:
    import sympy as sp

    try:
        if isinstance(expr, (list, tuple, sp.Tuple)):
            return sp.Tuple(*(sp.sympify(e) for e in expr))
        return sp.sympify(expr)
    except sp.SympifyError as exc:
        raise TypeError(f"expr must be a SymPy expression. Found {expr!r}.") from exc


def _compile_record(
    expr: Any, args: tuple[Any, ...], key: str | None
) -> tuple[dict[str, Any], Callable[..., Any]]:
    import sympy as sp

    expr = _normalise_expr(expr)
    for a in args:
        if not isinstance(a, sp.Symbol):
            raise TypeError(f"derivation args must be SymPy symbols. Found {a!r}.")
    unknown = expr.free_symbols - set(args)
    if unknown:
        names = sorted(str(u) for u in unknown)
        raise ValueError(f"expression has free symbols not in args: {names}.")
    srepr = sp.srepr(expr)
    fn = sp.lambdify(
        args,
        expr,
        modules=[NUMERIC_FUNCS, "scipy", "numpy"],
        cse=True,
        docstring_limit=0,
    )
    source = inspect.getsource(fn)
    namespace = restricted.namespace_spec(fn)
    record = {
        "format": CACHE_FORMAT,
        "key": key,
        "args": [a.name for a in args],
        "n_outputs": len(expr) if isinstance(expr, sp.Tuple) else None,
        "srepr": srepr,
        "fingerprint": disk_cache.sha256(srepr),
        "source": source,
        "function": fn.__name__,
        "namespace": namespace,
    }
    return record, fn


def _store(path: Path, record: dict[str, Any]) -> None:
    """Keep ``record`` on disk if its source can be loaded back without SymPy."""
    if record.get("namespace") is not None:
        disk_cache.store(path, record)


def _from_record(
    record: dict[str, Any], fn: Callable[..., Any], name: str, order: int
) -> Evaluator:
    return Evaluator(
        name=name,
        order=order,
        args=tuple(record["args"]),
        fn=fn,
        fingerprint=record["fingerprint"],
        source=record["source"],
        srepr=record["srepr"],
        n_outputs=record["n_outputs"],
    )


# Built-in derivations (SymPy imported inside the builders only).

_EDGEWORTH_DEPS: Final = (
    "symfdp.symbolic.edgeworth",
    "symfdp.symbolic.hermite",
    "symfdp.symbolic.symbols",
)
_CF_DEPS: Final = (*_EDGEWORTH_DEPS, "symfdp.symbolic.cornish_fisher")


def _build_edgeworth_cdf(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    return edgeworth.edgeworth_cdf_expr(order), (symbols.x, *symbols.lambdas(order))


def _build_edgeworth_pdf(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    return edgeworth.edgeworth_pdf_expr(order), (symbols.x, *symbols.lambdas(order))


def _build_edgeworth_pdf_poly_coeffs(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    return edgeworth.edgeworth_pdf_coefficients(order), symbols.lambdas(order)


def _build_edgeworth_cdf_poly_coeffs(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    return edgeworth.edgeworth_cdf_coefficients(order), symbols.lambdas(order)


def _build_cornish_fisher(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import cornish_fisher, symbols

    return cornish_fisher.cornish_fisher_expr(order), (
        symbols.z,
        *symbols.lambdas(order),
    )


def _build_cornish_fisher_poly_coeffs(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import cornish_fisher, symbols

    return cornish_fisher.cornish_fisher_coefficients(order), symbols.lambdas(order)


register_derivation("edgeworth_cdf", _build_edgeworth_cdf, depends=_EDGEWORTH_DEPS)
register_derivation("edgeworth_pdf", _build_edgeworth_pdf, depends=_EDGEWORTH_DEPS)
register_derivation(
    "edgeworth_pdf_poly_coeffs",
    _build_edgeworth_pdf_poly_coeffs,
    depends=_EDGEWORTH_DEPS,
)
register_derivation(
    "edgeworth_cdf_poly_coeffs",
    _build_edgeworth_cdf_poly_coeffs,
    depends=_EDGEWORTH_DEPS,
)
register_derivation("cornish_fisher", _build_cornish_fisher, depends=_CF_DEPS)
register_derivation(
    "cornish_fisher_poly_coeffs", _build_cornish_fisher_poly_coeffs, depends=_CF_DEPS
)
