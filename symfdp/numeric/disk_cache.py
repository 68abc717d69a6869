"""The disk layer of the cache of derived results: keys, files, records.

One JSON file per entry under :func:`cache_dir`: an evaluator (its expression as
``sympy.srepr`` text, never a pickle, and its generated source; read back by
:mod:`symfdp.numeric.restricted`) or a derived text (:func:`cached_text`, e.g.
what ``symfdp derive`` prints). Keys hash the name, order, symfdp and SymPy
versions and the sources of the builder and its declared dependencies
(:func:`derivation_key`, :func:`text_key`); writes are atomic and checksummed; a
corrupt, stale or tampered file is logged and rebuilt. This layer imports
neither NumPy, SciPy nor SymPy, so a warm entry costs a file read."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import json
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from symfdp._version import __version__

log = logging.getLogger(__name__)

#: Version of the on-disk format; part of every key.
CACHE_FORMAT: Final = 1


class CacheError(Exception):
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


def cache_path(
    name: str, order: int, key: str | None, folder: str = "evaluators"
) -> Path | None:
    """The file of an entry (None when the cache is off or there is no key)."""
    root = cache_dir()
    if root is None or key is None:
        return None
    return root / folder / f"{name}-{order}-{key[:32]}.json"


def sha256(text: str) -> str:
    """Hex sha256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def versions() -> tuple[str, str]:
    """``(symfdp version, digest of SymPy's release file)``, part of every key.

    The release file holds SymPy's version string; it is read, not imported (an
    import of SymPy or of ``importlib.metadata`` would cost a warm load more
    than the load itself)."""
    return __version__, _module_digest("sympy.release")


def _module_file(module: str) -> Path:
    """The source file of ``module``, found from its top-level package without
    importing anything (``importlib.util.find_spec`` of a dotted name imports
    the parent packages)."""
    head, *rest = module.split(".")
    spec = importlib.util.find_spec(head)
    if spec is None or spec.origin is None:
        raise OSError(f"cannot locate module {module!r}")
    origin = Path(spec.origin)
    if not rest:
        return origin
    base = origin.parent.joinpath(*rest)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    raise OSError(f"cannot locate module {module!r}")


@functools.cache
def _module_digest(module: str) -> str:
    return hashlib.sha256(_module_file(module).read_bytes()).hexdigest()


def _key(name: str, order: int, depends: Sequence[str], **extra: str) -> str:
    payload = {
        "format": CACHE_FORMAT,
        "name": name,
        "order": order,
        "versions": list(versions()),
        "depends": {m: _module_digest(m) for m in depends},
        **extra,
    }
    return sha256(json.dumps(payload, sort_keys=True))


def derivation_key(
    name: str, builder: Callable[..., Any], depends: Sequence[str], order: int
) -> str | None:
    """sha256 of (name, order, versions, builder source, dependency sources), or
    None when a source cannot be read (then nothing is cached)."""
    try:
        return _key(name, order, depends, builder=inspect.getsource(builder))
    except (OSError, TypeError) as exc:
        log.debug("no disk cache for %s: %s", name, exc)
        return None


def text_key(name: str, order: int, depends: Sequence[str]) -> str | None:
    """sha256 of (name, order, versions, dependency sources), or None when a
    source cannot be read. ``depends`` must name the module that renders the
    text as well as every module whose results it prints."""
    try:
        return _key(name, order, depends)
    except OSError as exc:
        log.debug("no disk cache for %s: %s", name, exc)
        return None


def checksum(record: dict[str, Any]) -> str:
    """sha256 of a record without its ``checksum`` field (JSON, sorted keys)."""
    body = {k: v for k, v in record.items() if k != "checksum"}
    return sha256(json.dumps(body, sort_keys=True))


def read_record(path: Path, key: str) -> dict[str, Any] | None:
    """The record at ``path`` if it is intact and has ``key``, else None (a
    damaged or stale file is logged; the caller rebuilds it)."""
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
    except (ValueError, CacheError) as exc:
        corrupt(path, exc)
        return None
    return record


def corrupt(path: Path, exc: Exception) -> None:
    """Log that the file at ``path`` is ignored (and will be rebuilt)."""
    log.warning("symfdp cache: ignoring corrupt file %s (%s); rebuilding.", path, exc)


def store(path: Path, record: dict[str, Any]) -> None:
    """Write ``record`` atomically (temporary file in the same directory + replace)."""
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


def cached_text(
    name: str, order: int, render: Callable[[], str], depends: Sequence[str]
) -> str:
    """``render()``, kept on disk under :func:`text_key` of ``(name, order,
    depends)``: a warm call reads one file and imports nothing.

    The text is data (never executed), so its check is the record's checksum
    and key. ``name`` must tell apart every text the renderer can produce at
    one ``order`` (e.g. ``"derive-edgeworth-latex"``).
    """
    key = text_key(name, order, depends)
    path = cache_path(name, order, key, folder="texts")
    if path is not None and key is not None:
        record = read_record(path, key)
        if record is not None and isinstance(record.get("text"), str):
            return str(record["text"])
    text = render()
    if path is not None:
        store(path, {"format": CACHE_FORMAT, "key": key, "text": text})
    return text
