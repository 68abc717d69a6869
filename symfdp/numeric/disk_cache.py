"""The disk layer of the evaluator cache: keys, files, and a restricted loader.

One JSON file per evaluator under :func:`cache_dir` holds the expression as
``sympy.srepr`` text (never a pickle) and the generated source. Keys
(:func:`derivation_key`) hash the name, order, symfdp and SymPy versions and
the sources of the builder and its declared dependencies; writes are atomic
and checksummed; a corrupt, stale or tampered file is logged and rebuilt. The
stored source is executed only if its syntax tree is one function of
arithmetic, calls and local names whose globals resolve to NumPy/SciPy
numerics, :data:`~symfdp.numeric.functions.NUMERIC_FUNCS` or harmless builtins
(:func:`exec_source`); :func:`parse_srepr` is equally restricted."""

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
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import scipy.special as special

from symfdp.numeric.functions import NUMERIC_FUNCS

log = logging.getLogger(__name__)

#: Version of the on-disk format; part of every key.
CACHE_FORMAT: Final = 1


class CacheError(Exception):
    """A cache file that cannot be used (corrupt, stale or not portable)."""


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


def namespace_spec(source: str, globals_: dict[str, Any]) -> dict[str, str] | None:
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


def exec_source(source: str, function: str, namespace: dict[str, str] | None) -> Any:
    """The function defined by a stored ``source``, after checking it: a single
    plain definition named ``function``, only the allowed syntax, and every
    global name resolved safely through ``namespace``.

    Raises:
        CacheError: the source fails a check.
    """
    if namespace is None:
        raise CacheError("the generated source is not portable")
    tree = ast.parse(source)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise CacheError("the source is not a single function definition")
    fdef = tree.body[0]
    if fdef.name != function or fdef.decorator_list:
        raise CacheError("unexpected function definition")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise CacheError(f"disallowed syntax {type(node).__name__}")
    needed = _global_names(tree)
    if not needed <= set(namespace):
        raise CacheError(f"unresolved names {sorted(needed - set(namespace))}")
    env: dict[str, Any] = {"__builtins__": {}}
    for name, spec in namespace.items():
        try:
            env[name] = _resolve(spec)
        except (KeyError, AttributeError):
            raise CacheError(f"name {name!r} does not resolve safely") from None
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


def cache_path(name: str, order: int, key: str | None) -> Path | None:
    """The file of an evaluator (None when the cache is off or there is no key)."""
    root = cache_dir()
    if root is None or key is None:
        return None
    return root / "evaluators" / f"{name}-{order}-{key[:32]}.json"


def sha256(text: str) -> str:
    """Hex sha256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def versions() -> tuple[str, str]:
    """``(symfdp version, SymPy version)``, part of every key."""
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


def derivation_key(
    name: str, builder: Callable[..., Any], depends: Sequence[str], order: int
) -> str | None:
    """sha256 of (name, order, versions, builder source, dependency sources), or
    None when a source cannot be read (then nothing is cached)."""
    try:
        builder_source = inspect.getsource(builder)
        digests = {m: _module_digest(m) for m in depends}
    except (OSError, TypeError) as exc:
        log.debug("no disk cache for %s: %s", name, exc)
        return None
    payload = {
        "format": CACHE_FORMAT,
        "name": name,
        "order": order,
        "versions": list(versions()),
        "builder": builder_source,
        "depends": digests,
    }
    return sha256(json.dumps(payload, sort_keys=True))


def checksum(record: dict[str, Any]) -> str:
    """sha256 of a record without its ``checksum`` field (JSON, sorted keys)."""
    body = {k: v for k, v in record.items() if k != "checksum"}
    return sha256(json.dumps(body, sort_keys=True))


def load(path: Path, key: str) -> tuple[dict[str, Any], Callable[..., Any]] | None:
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
            raise CacheError("not a JSON object")
        if record.get("checksum") != checksum(record):
            raise CacheError("checksum mismatch")
        if record.get("format") != CACHE_FORMAT or record.get("key") != key:
            raise CacheError("stale key or format")
        if record["fingerprint"] != sha256(record["srepr"]):
            raise CacheError("fingerprint mismatch")
        # Compile now so that a broken source is caught here, not at call time.
        fn = exec_source(record["source"], record["function"], record["namespace"])
    except (ValueError, KeyError, TypeError, SyntaxError, CacheError) as exc:
        log.warning(
            "symfdp cache: ignoring corrupt file %s (%s); rebuilding.", path, exc
        )
        return None
    return record, fn


def store(path: Path, record: dict[str, Any]) -> None:
    """Write ``record`` atomically (temporary file in the same directory + replace)."""
    if record.get("namespace") is None:
        return
    record = dict(record)
    record["checksum"] = checksum(record)
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
