"""Every path the reproduction machinery uses, in one place."""

from __future__ import annotations

import os
from pathlib import Path

import symfdp


def repo_root() -> Path:
    """The checkout that holds the package (``experiments/`` lives beside it)."""
    return Path(symfdp.__file__).resolve().parents[1]


def experiments_dir() -> Path:
    """``$SYMFDP_EXPERIMENTS_DIR`` or ``<repo>/experiments``.

    Raises:
        FileNotFoundError: the directory does not exist (e.g. a non-editable
            install without the repository checkout).
    """
    env = os.environ.get("SYMFDP_EXPERIMENTS_DIR")
    path = Path(env) if env else repo_root() / "experiments"
    if not path.is_dir():
        raise FileNotFoundError(
            f"experiments directory not found at {path}; run from a checkout of the "
            "repository (pip install -e .) or set SYMFDP_EXPERIMENTS_DIR."
        )
    return path


def results_dir(out: str | os.PathLike[str] | None = None) -> Path:
    """Where results go: ``out``, ``$SYMFDP_RESULTS_DIR`` or ``./results``."""
    if out is not None:
        return Path(out)
    env = os.environ.get("SYMFDP_RESULTS_DIR")
    return Path(env) if env else Path.cwd() / "results"


def matplotlibrc() -> Path:
    """The style file applied to every figure."""
    return experiments_dir() / "matplotlibrc"
