"""The restricted loaders of the evaluator cache.

A stored evaluator is generated Python source and ``sympy.srepr`` text read
back from disk (:mod:`symfdp.numeric.disk_cache`), so both are checked before
they run: :func:`exec_source` executes a source only if it is one function of
arithmetic, calls and local names whose globals resolve to NumPy/SciPy
numerics, :data:`~symfdp.numeric.functions.NUMERIC_FUNCS` or harmless builtins
(a lexical check and a check of the compiled code, cheap enough for every
load); :func:`parse_srepr` evaluates srepr text with SymPy's constructors only.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import logging
import re
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any, Final

import numpy as np
import scipy.special as special

from symfdp.numeric import disk_cache
from symfdp.numeric.disk_cache import CacheError
from symfdp.numeric.functions import NUMERIC_FUNCS

log = logging.getLogger(__name__)


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


def namespace_spec(fn: FunctionType) -> dict[str, str] | None:
    """How to rebuild the globals of a generated function ``fn`` without SymPy
    (or None when one of them is not a plain numeric object)."""
    spec: dict[str, str] = {}
    for name in sorted(set(fn.__code__.co_names)):
        obj = fn.__globals__.get(name, getattr(builtins, name, None))
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


#: Every character a stored source may hold: names, numbers, arithmetic, calls,
#: tuples and lists, one assignment per line; no quotes, dots outside numbers are
#: refused below, no comparisons, no comments.
_SOURCE_CHARS: Final = re.compile(r"[A-Za-z0-9_ \n+\-*/%(),=.\[\]:]*")
#: A number literal (not the digits of a name).
_NUMBER: Final = re.compile(
    r"(?<![A-Za-z0-9_])(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[jJ]?"
)
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SOURCE_WORDS: Final = frozenset({"def", "return", "None", "True", "False"})


def exec_source(source: str, function: str, namespace: dict[str, str] | None) -> Any:
    """The function defined by a stored ``source``, after checking it: one plain
    definition named ``function`` (no decorators, annotations or computed
    defaults) whose body holds only names, number literals, arithmetic, calls,
    tuples, lists and subscripts, and whose global names all resolve safely
    through ``namespace`` (each name the name of its object).

    The checks are lexical (allowed characters; dots only inside numbers; the
    keywords ``def`` and ``return`` and no other) and then on the compiled code
    objects (no nested code, globals only from ``namespace``), so a load costs
    one regular-expression pass and one ``compile``, not a walk of the syntax
    tree.

    Raises:
        CacheError: the source fails a check.
    """
    if namespace is None:
        raise CacheError("the generated source is not portable")
    if _SOURCE_CHARS.fullmatch(source) is None or source.count(":") != 1:
        raise CacheError("the source holds disallowed characters")
    if not source.startswith(f"def {function}(") or ":\n" not in source:
        raise CacheError("unexpected function definition")
    words = _NUMBER.sub(" ", source)
    if "." in words:
        raise CacheError("the source accesses an attribute")
    env: dict[str, Any] = {"__builtins__": {}}
    for name, spec in namespace.items():
        plain = name.isidentifier() and not keyword.iskeyword(name)
        if not plain or name.startswith("_") or not spec.endswith(f":{name}"):
            raise CacheError(f"name {name!r} does not resolve safely")
        try:
            env[name] = _resolve(spec)
        except (KeyError, AttributeError):
            raise CacheError(f"name {name!r} does not resolve safely") from None
    try:
        module = compile(source, f"<symfdp:{function}>", "exec")
    except (SyntaxError, ValueError) as exc:
        raise CacheError(f"the source does not compile ({exc})") from None
    code = _function_code(module, function)
    allowed = _SOURCE_WORDS | {function} | set(code.co_varnames) | set(namespace)
    unknown = set(_NAME.findall(words)) - allowed
    if unknown or not set(code.co_names) <= set(namespace):
        raise CacheError(f"unresolved names {sorted(unknown or code.co_names)}")
    exec(module, env)
    fn = env[function]
    if not isinstance(fn, FunctionType):
        raise CacheError("the source does not define a function")
    return fn


def _function_code(module: CodeType, function: str) -> CodeType:
    """The code of the one function a compiled module defines (CacheError if the
    module does anything else or the function holds nested code)."""
    codes = [c for c in module.co_consts if isinstance(c, CodeType)]
    if module.co_names != (function,) or len(codes) != 1:
        raise CacheError("the source is not a single function definition")
    (code,) = codes
    nested = [c for c in code.co_consts if isinstance(c, CodeType)]
    if code.co_name != function or nested or code.co_freevars or code.co_cellvars:
        raise CacheError("unexpected function definition")
    return code


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


def load_evaluator(
    path: Path, key: str
) -> tuple[dict[str, Any], Callable[..., Any]] | None:
    """The evaluator record at ``path`` and its function, or None (then rebuilt):
    the record intact (:func:`~symfdp.numeric.disk_cache.read_record`), its
    fingerprint that of its srepr, its source passing :func:`exec_source`."""
    record = disk_cache.read_record(path, key)
    if record is None:
        return None
    try:
        if record["fingerprint"] != disk_cache.sha256(record["srepr"]):
            raise CacheError("fingerprint mismatch")
        # Compile now so that a broken source is caught here, not at call time.
        fn = exec_source(record["source"], record["function"], record["namespace"])
    except (ValueError, KeyError, TypeError, CacheError) as exc:
        disk_cache.corrupt(path, exc)
        return None
    return record, fn
