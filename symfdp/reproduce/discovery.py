"""Find and load the experiment modules in ``experiments/``.

Files ``_*.py`` are modules shared by the experiments of their directory,
imported by plain name (``import _zheng``) at module level. They are
importable only while an experiment of that directory loads, executed anew
from source each time (never from a stale cache)."""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, ModuleType

from symfdp.reproduce.paths import experiments_dir
from symfdp.reproduce.spec import Spec

REQUIRED = ("SPEC", "compute", "plot")

#: Attribute of a loaded experiment module: the shared module files it imported.
SHARED_ATTR = "__experiment_shared_modules__"


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the file's current source on every load: no bytecode cache is
    read or written (a cached ``.pyc`` is keyed on whole-second mtimes)."""

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


def _file_spec(name: str, path: Path) -> importlib.machinery.ModuleSpec:
    spec = importlib.util.spec_from_file_location(
        name, path, loader=_SourceLoader(name, str(path))
    )
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ImportError(f"cannot import {path}")
    return spec


class _SharedModuleFinder(importlib.abc.MetaPathFinder):
    """Resolves the shared module names of one experiments directory to its files."""

    def __init__(self, directory: Path, names: Sequence[str]) -> None:
        self.directory = directory
        self.names = frozenset(names)

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return _file_spec(fullname, self.directory / f"{fullname}.py")


def shared_module_names(directory: Path) -> list[str]:
    """Names of the shared modules (files ``_*.py``) of an experiments directory."""
    return sorted(p.stem for p in directory.glob("_*.py"))


@contextlib.contextmanager
def _shared_modules_importable(directory: Path) -> Iterator[dict[str, ModuleType]]:
    """Make the shared modules of ``directory`` importable by plain name, freshly;
    yields a dict that, on exit, holds the shared modules imported.

    Raises:
        ValueError: a shared module's name is that of a standard-library module.
    """
    names = shared_module_names(directory)
    clash = sorted(set(names) & sys.stdlib_module_names)
    if clash:
        raise ValueError(
            f"shared module name(s) {', '.join(clash)} in {directory} shadow the "
            "standard library; rename them."
        )
    saved = {n: sys.modules.pop(n) for n in names if n in sys.modules}
    finder = _SharedModuleFinder(directory, names)
    sys.meta_path.insert(0, finder)
    loaded: dict[str, ModuleType] = {}
    try:
        yield loaded
    finally:
        sys.meta_path.remove(finder)
        for n in names:
            module = sys.modules.pop(n, None)
            if module is not None:
                loaded[n] = module
        sys.modules.update(saved)


def shared_module_files(module: ModuleType) -> tuple[Path, ...]:
    """The shared module files (``experiments/_*.py``) an experiment module imported."""
    return tuple(getattr(module, SHARED_ATTR, ()))


def load_module(path: Path) -> ModuleType:
    """Import an experiment module from its file.

    Raises:
        ValueError: it lacks ``SPEC``, ``compute`` or ``plot``, or its file name
            does not match ``SPEC.id``.
    """
    # Always execute the file anew (no stale module of the same name).
    name = f"symfdp_experiment_{path.stem}"
    spec = _file_spec(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with _shared_modules_importable(path.parent) as shared:
            spec.loader.exec_module(module)  # type: ignore[union-attr]  # file specs have a loader
    except BaseException:
        del sys.modules[name]
        raise
    setattr(
        module,
        SHARED_ATTR,
        tuple(Path(str(shared[n].__file__)) for n in sorted(shared)),
    )
    missing = [attr for attr in REQUIRED if not hasattr(module, attr)]
    if missing:
        raise ValueError(f"{path.name} lacks {', '.join(missing)}.")
    if not isinstance(module.SPEC, Spec):
        raise ValueError(f"{path.name}: SPEC must be a symfdp.reproduce.Spec.")
    if module.SPEC.module_name != path.stem:
        raise ValueError(
            f"{path.name}: file name must be {module.SPEC.module_name}.py for id "
            f"{module.SPEC.id!r}."
        )
    return module


def discover(directory: Path | None = None) -> dict[str, Path]:
    """Map every experiment id to its module file, in id order.

    Raises:
        ValueError: two modules declare the same id.
    """
    directory = directory or experiments_dir()
    found: dict[str, Path] = {}
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        module = load_module(path)
        sid = module.SPEC.id
        if sid in found:
            raise ValueError(
                f"duplicate experiment id {sid!r}: {found[sid]} and {path}"
            )
        found[sid] = path
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class Entry:
    """An experiment as listed without importing it."""

    id: str
    title: str
    source: str
    path: Path


def _literal_spec(path: Path) -> dict[str, str] | None:
    """``id``, ``title`` and ``source`` of the module-level ``SPEC = Spec(...)``
    of ``path`` when they are literals, else None (the module must be loaded)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            out: dict[str, str] = {}
            for kw in node.value.keywords:
                if kw.arg in ("id", "title", "source"):
                    try:
                        value = ast.literal_eval(kw.value)
                    except ValueError:
                        return None
                    if not isinstance(value, str):
                        return None
                    out[kw.arg] = value
            return out if len(out) == 3 else None
    return None


def catalogue(directory: Path | None = None) -> dict[str, Entry]:
    """Every experiment id with its title, source and file, in id order, read
    from the modules' literal ``SPEC = Spec(...)`` without importing them (a
    module whose SPEC is not literal is loaded).

    Raises:
        ValueError: two modules declare the same id, or a file name does not
            match its id.
    """
    directory = directory or experiments_dir()
    found: dict[str, Entry] = {}
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        fields = _literal_spec(path)
        if fields is None:
            spec = load_module(path).SPEC
            fields = {"id": spec.id, "title": spec.title, "source": spec.source}
        entry = Entry(fields["id"], fields["title"], fields["source"], path)
        if Spec(entry.id, "", "", {}).module_name != path.stem:
            raise ValueError(
                f"{path.name}: file name must be "
                f"{Spec(entry.id, '', '', {}).module_name}.py for id {entry.id!r}."
            )
        if entry.id in found:
            raise ValueError(
                f"duplicate experiment id {entry.id!r}: {found[entry.id].path} and "
                f"{path}"
            )
        found[entry.id] = entry
    return dict(sorted(found.items()))
