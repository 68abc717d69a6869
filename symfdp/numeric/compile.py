r"""Symbolic expression -> cached, vectorised NumPy evaluator.

This is the only module that calls ``sympy.lambdify``. An :class:`Evaluator` is
built from a *derivation* (a named builder ``order -> (expr, args)``) or from an
explicit expression, with common-subexpression elimination (``cse=True``), and
evaluates whole arrays with NumPy/SciPy: no per-point Python.

Caching, in two layers:

- in memory, per process: :func:`evaluator` is cached on ``(name, order)`` and
  :func:`compile_expr` on the expression's fingerprint;
- on disk, under ``$SYMFDP_CACHE_DIR`` (default ``$XDG_CACHE_HOME/symfdp`` or
  ``~/.cache/symfdp``): one JSON file per evaluator holding the derived expression
  as ``sympy.srepr`` text (never a pickle) and the generated Python source of the
  evaluator. The file name carries a content hash, the sha256 of (name, order,
  symfdp and SymPy versions, the builder's source, the sources of the modules it
  declares as dependencies), so any change in the derivation makes a new key.
  A warm load needs neither SymPy nor a new derivation: the stored source is checked
  (a syntax tree restricted to one function of arithmetic, calls and local names;
  every global name must resolve to a NumPy/SciPy ufunc or constant, a
  :data:`NUMERIC_FUNCS` entry or a harmless builtin) and executed. Sources that
  need anything else are not cached; the expression is then re-compiled. Writes
  are atomic (temporary file + ``os.replace``), so two processes writing the same
  key both succeed; a corrupt or unreadable file is logged, ignored and rebuilt.
  ``SYMFDP_NO_CACHE=1`` disables the disk layer.

Undefined SymPy functions map to SciPy through :data:`NUMERIC_FUNCS`
(``Phi`` -> ``ndtr``, ``phi`` -> the normal density, ``Phi_inv`` -> ``ndtri``,
``log_Phi`` -> ``log_ndtr``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import importlib.metadata
import importlib.util
import inspect
import json
import logging
import math
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import scipy.special as special

from symfdp._validation import check_order

log = logging.getLogger(__name__)

_INV_SQRT_2PI: Final = 1.0 / math.sqrt(2.0 * math.pi)


def normal_pdf(x: Any) -> Any:
    r"""The standard normal density :math:`\phi(x) = e^{-x^2/2}/\sqrt{2\pi}`."""
    return np.exp(-0.5 * np.square(x)) * _INV_SQRT_2PI


#: Numeric implementations of the undefined functions of ``symfdp.symbolic.symbols``.
NUMERIC_FUNCS: Final[dict[str, Callable[..., Any]]] = {
    "Phi": special.ndtr,
    "phi": normal_pdf,
    "Phi_inv": special.ndtri,
    "log_Phi": special.log_ndtr,
}

#: Version of the on-disk format; part of every key.
CACHE_FORMAT: Final = 1

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
        args: Keyword names of the arguments, in the builder's order (the SymPy
            symbol names).
        fn: The generated function (positional arguments in ``args`` order).
        fingerprint: sha256 of the expression's ``srepr``.
        source: The generated Python source, for review.
        srepr: The expression as ``sympy.srepr`` text.
        n_outputs: ``None`` for a scalar expression, else the length of a vector one.

    Calling it takes keyword arguments only, broadcasts them, and returns a float
    for 0-d results, else an array; a vector expression returns an array of shape
    ``(n_outputs, *broadcast_shape)``.
    """

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
        values = [np.asarray(kwargs[a], dtype=np.float64) for a in self.args]
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


# ---------------------------------------------------------------------------
# Registry


def register_derivation(
    name: str, builder: Builder, *, depends: Sequence[str] = (), replace: bool = False
) -> None:
    """Register a derivation ``builder(order) -> (expr, args)`` under ``name``.

    ``expr`` is a SymPy expression (or a sequence of them, for a vector-valued
    evaluator) and ``args`` an explicit tuple of symbols, never
    ``sorted(free_symbols)``. The builder should import SymPy inside its body so
    that registering costs nothing. ``depends`` names the modules whose source
    the derivation uses (hashed into the disk-cache key with the builder's own
    source).

    Registering the same builder (same module and qualified name) again, as a
    module reload does, replaces it silently.

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
    old = _DERIVATIONS.get(name)
    same = old is not None and (
        getattr(old.builder, "__module__", None),
        getattr(old.builder, "__qualname__", None),
    ) == (getattr(builder, "__module__", None), getattr(builder, "__qualname__", None))
    if old is not None and not (replace or same):
        raise ValueError(
            f"derivation {name!r} is already registered (use replace=True)."
        )
    _DERIVATIONS[name] = Derivation(name, builder, tuple(depends))
    _evaluator.cache_clear()


def derivations() -> tuple[str, ...]:
    """Names of the registered derivations."""
    return tuple(sorted(_DERIVATIONS))


def evaluator(name: str, order: int) -> Evaluator:
    """The compiled evaluator of derivation ``name`` at ``order``.

    Derived once per process (in-memory cache) and stored on disk (see the module
    docstring); a warm disk load does not import SymPy.

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
    key = _derivation_key(derivation, order)
    path = _cache_path(name, order, key)
    if path is not None:
        cached = _load(path, key)
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
    args = tuple(args)
    for a in args:
        if not isinstance(a, sp.Symbol):
            raise TypeError(f"args must be SymPy symbols. Found {a!r}.")
    text = sp.srepr(expr) + "|" + sp.srepr(sp.Tuple(*args))
    return _compile_cached(text, expr, args, label)


def _compile_cached(
    text: str, expr: Any, args: tuple[Any, ...], label: str
) -> Evaluator:
    fingerprint = _sha256(text)
    hit = _EXPR_CACHE.get(fingerprint)
    if hit is not None:
        return hit
    key = _sha256(json.dumps([CACHE_FORMAT, text, *_versions()]))
    path = _cache_path("expr", 0, key)
    loaded = _load(path, key) if path is not None else None
    if loaded is None:
        loaded = _compile_record(expr, args, key)
        if path is not None:
            _store(path, loaded[0])
    result = _from_record(*loaded, f"expr:{label}", -1)
    _EXPR_CACHE[fingerprint] = result
    return result


_EXPR_CACHE: dict[str, Evaluator] = {}


# ---------------------------------------------------------------------------
# Building


def _normalise_expr(expr: Any) -> Any:
    import sympy as sp

    if isinstance(expr, (list, tuple, sp.Tuple)):
        return sp.Tuple(*(sp.sympify(e) for e in expr))
    return sp.sympify(expr)


def _compile_record(
    expr: Any, args: tuple[Any, ...], key: str
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
    namespace = _namespace_spec(source, fn.__globals__)
    record = {
        "format": CACHE_FORMAT,
        "key": key,
        "args": [a.name for a in args],
        "n_outputs": len(expr) if isinstance(expr, sp.Tuple) else None,
        "srepr": srepr,
        "fingerprint": _sha256(srepr),
        "source": source,
        "function": fn.__name__,
        "namespace": namespace,
    }
    return record, fn


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


# ---------------------------------------------------------------------------
# Generated source: portable namespace and a restricted loader

_ALLOWED_NODES: Final = (
    ast.Module,
    ast.FunctionDef,
    ast.arguments,
    ast.arg,
    ast.Return,
    ast.Assign,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.Pow,
    ast.USub,
    ast.UAdd,
    ast.Mod,
    ast.FloorDiv,
    ast.Call,
    ast.Tuple,
    ast.List,
    ast.keyword,
)


def _global_names(tree: ast.AST) -> set[str]:
    """Names loaded but never bound locally (arguments or assignments)."""
    bound: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
    return loaded - bound


_SAFE_BUILTINS: Final = frozenset(
    {"abs", "bool", "complex", "float", "int", "max", "min", "pow", "range", "round"}
)
_SAFE_NUMPY: Final = frozenset({"array", "asarray", "select", "where", "amax", "amin"})


def _resolve(spec: str) -> Any:
    """Resolve ``"numeric:Phi"``, ``"scipy.special:erf"``, ``"numpy:exp"``, etc.

    Only pure numeric objects resolve: NumPy/SciPy ufuncs and constants, a few
    array constructors and harmless builtins (no I/O, no code execution).
    """
    where, _, attr = spec.partition(":")
    if attr.startswith("_"):
        raise KeyError(spec)
    if where == "numeric":
        return NUMERIC_FUNCS[attr]
    if where == "builtins" and attr in _SAFE_BUILTINS:
        return getattr(builtins, attr)
    if where in ("numpy", "scipy.special"):
        module = np if where == "numpy" else special
        obj = getattr(module, attr)
        if isinstance(obj, (np.ufunc, float, int)) or (
            where == "numpy" and attr in _SAFE_NUMPY
        ):
            return obj
    raise KeyError(spec)


def _namespace_spec(source: str, globals_: dict[str, Any]) -> dict[str, str] | None:
    """How to rebuild the generated function's globals without SymPy (or None)."""
    spec: dict[str, str] = {}
    for name in sorted(_global_names(ast.parse(source))):
        obj = globals_.get(name, getattr(builtins, name, None))
        candidates = [
            f"numeric:{name}",
            f"scipy.special:{name}",
            f"numpy:{name}",
            f"builtins:{name}",
        ]
        for cand in candidates:
            try:
                if _resolve(cand) is obj:
                    spec[name] = cand
                    break
            except (KeyError, AttributeError):
                continue
        else:
            log.debug("generated source uses %r, not portable; no source cache", name)
            return None
    return spec


def _exec_source(source: str, function: str, namespace: dict[str, str] | None) -> Any:
    if namespace is None:
        raise _CacheError("the generated source is not portable")
    tree = ast.parse(source)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise _CacheError("the source is not a single function definition")
    fdef = tree.body[0]
    if fdef.name != function or fdef.decorator_list:
        raise _CacheError("unexpected function definition")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise _CacheError(f"disallowed syntax {type(node).__name__}")
    needed = _global_names(tree)
    if not needed <= set(namespace):
        raise _CacheError(f"unresolved names {sorted(needed - set(namespace))}")
    env: dict[str, Any] = {"__builtins__": {}}
    for name, spec in namespace.items():
        try:
            env[name] = _resolve(spec)
        except (KeyError, AttributeError):
            raise _CacheError(f"name {name!r} does not resolve safely") from None
    exec(compile(tree, f"<symfdp:{function}>", "exec"), env)
    return env[function]


_SREPR_NODES: Final = (
    ast.Expression,
    ast.Call,
    ast.Constant,
    ast.keyword,
    ast.Load,
    ast.UnaryOp,
    ast.USub,
    ast.Tuple,
    ast.List,
)
_SREPR_NAMES: Final = frozenset(
    {
        "Add",
        "Mul",
        "Pow",
        "Symbol",
        "Dummy",
        "Integer",
        "Rational",
        "Float",
        "Function",
        "Tuple",
        "pi",
        "E",
        "exp",
        "log",
        "sqrt",
        "erf",
        "erfc",
        "Abs",
        "oo",
        "zoo",
        "nan",
        "true",
        "false",
    }
)


def parse_srepr(text: str) -> Any:
    """Parse ``sympy.srepr`` text with a restricted evaluator (no arbitrary code)."""
    import sympy as sp

    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in _SREPR_NAMES:
                raise ValueError(f"srepr text uses a disallowed name {node.id!r}.")
        elif not isinstance(
            node,
            _SREPR_NODES,
        ):
            raise ValueError(
                f"srepr text uses disallowed syntax {type(node).__name__}."
            )
    env: dict[str, Any] = {"__builtins__": {}}
    env.update({name: getattr(sp, name) for name in _SREPR_NAMES if hasattr(sp, name)})
    env.update({"true": sp.true, "false": sp.false})
    return eval(compile(tree, "<srepr>", "eval"), env)


# ---------------------------------------------------------------------------
# Disk cache


class _CacheError(Exception):
    """A cache file that cannot be used (corrupt, stale or not portable)."""


def cache_dir() -> Path | None:
    """The disk-cache directory, or None when ``SYMFDP_NO_CACHE`` is set."""
    if os.environ.get("SYMFDP_NO_CACHE", "").strip() not in ("", "0"):
        return None
    env = os.environ.get("SYMFDP_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "symfdp"


def _cache_path(name: str, order: int, key: str | None) -> Path | None:
    root = cache_dir()
    if root is None or key is None:
        return None
    return root / "evaluators" / f"{name}-{order}-{key[:32]}.json"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def _versions() -> tuple[str, str]:
    from symfdp import __version__

    try:
        sympy_version = importlib.metadata.version("sympy")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        sympy_version = "unknown"
    return __version__, sympy_version


@functools.cache
def _module_digest(module: str) -> str:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise OSError(f"cannot locate module {module!r}")
    return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()


def _derivation_key(derivation: Derivation, order: int) -> str | None:
    """sha256 of (name, order, versions, builder source, dependency sources)."""
    try:
        builder_source = inspect.getsource(derivation.builder)
        depends = {m: _module_digest(m) for m in derivation.depends}
    except (OSError, TypeError) as exc:
        log.debug("no disk cache for %s: %s", derivation.name, exc)
        return None
    payload = {
        "format": CACHE_FORMAT,
        "name": derivation.name,
        "order": order,
        "versions": list(_versions()),
        "builder": builder_source,
        "depends": depends,
    }
    return _sha256(json.dumps(payload, sort_keys=True))


def _checksum(record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "checksum"}
    return _sha256(json.dumps(body, sort_keys=True))


def _load(path: Path, key: str) -> tuple[dict[str, Any], Callable[..., Any]] | None:
    """The cached record at ``path`` and its function, or None (then rebuilt)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("symfdp cache: cannot read %s (%s); rebuilding.", path, exc)
        return None
    try:
        record = json.loads(text)
        if not isinstance(record, dict):
            raise _CacheError("not a JSON object")
        if record.get("checksum") != _checksum(record):
            raise _CacheError("checksum mismatch")
        if record.get("format") != CACHE_FORMAT or record.get("key") != key:
            raise _CacheError("stale key or format")
        if record["fingerprint"] != _sha256(record["srepr"]):
            raise _CacheError("fingerprint mismatch")
        # Compile now so that a broken source is caught here, not at call time.
        fn = _exec_source(record["source"], record["function"], record["namespace"])
    except (ValueError, KeyError, TypeError, SyntaxError, _CacheError) as exc:
        log.warning(
            "symfdp cache: ignoring corrupt file %s (%s); rebuilding.", path, exc
        )
        return None
    return record, fn


def _store(path: Path, record: dict[str, Any]) -> None:
    """Write ``record`` atomically (temporary file in the same directory + replace)."""
    if record.get("namespace") is None:
        return
    record = dict(record)
    record["checksum"] = _checksum(record)
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            dir=path.parent,
            prefix=f".{path.stem}.",
            suffix=".tmp",
            delete=False,
        ) as fh:
            tmp_name = fh.name
            json.dump(record, fh, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        log.warning(
            "symfdp cache: cannot write %s (%s); continuing without it.", path, exc
        )
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


# ---------------------------------------------------------------------------
# Built-in derivations (SymPy is imported inside the builders only)

_EDGEWORTH_DEPS: Final = (
    "symfdp.symbolic.edgeworth",
    "symfdp.symbolic.hermite",
    "symfdp.symbolic.symbols",
)
_CF_DEPS: Final = (*_EDGEWORTH_DEPS, "symfdp.symbolic.cornish_fisher")


def _ascending_coeffs(expr: Any, var: Any) -> Any:
    import sympy as sp

    return sp.Tuple(*reversed(sp.Poly(expr, var).all_coeffs()))


def _build_edgeworth_cdf(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    return edgeworth.edgeworth_cdf_expr(order), (symbols.x, *symbols.lambdas(order))


def _build_edgeworth_pdf(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    return edgeworth.edgeworth_pdf_expr(order), (symbols.x, *symbols.lambdas(order))


def _build_edgeworth_pdf_poly_coeffs(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    q = edgeworth.edgeworth_pdf_polynomial(order)
    return _ascending_coeffs(q, symbols.x), symbols.lambdas(order)


def _build_edgeworth_cdf_poly_coeffs(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import edgeworth, symbols

    r = edgeworth.edgeworth_cdf_polynomial(order)
    return _ascending_coeffs(r, symbols.x), symbols.lambdas(order)


def _build_cornish_fisher(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import cornish_fisher, symbols

    return cornish_fisher.cornish_fisher_expr(order), (
        symbols.z,
        *symbols.lambdas(order),
    )


def _build_cornish_fisher_poly_coeffs(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import cornish_fisher, symbols

    w = cornish_fisher.cornish_fisher_expr(order)
    return _ascending_coeffs(w, symbols.z), symbols.lambdas(order)


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
