"""Find and load the experiment modules in ``experiments/``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from symfdp.reproduce.paths import experiments_dir
from symfdp.reproduce.spec import Spec

REQUIRED = ("SPEC", "compute", "plot")


def load_module(path: Path) -> ModuleType:
    """Import an experiment module from its file.

    Raises:
        ValueError: it lacks ``SPEC``, ``compute`` or ``plot``, or its file name
            does not match ``SPEC.id``.
    """
    # Always execute the file anew: a module edited since the last load (or a
    # different file with the same name) must not be served from a stale cache.
    name = f"symfdp_experiment_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
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
