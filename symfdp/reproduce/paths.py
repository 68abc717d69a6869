"""Every path the reproduction machinery uses, in one place."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from symfdp import _version


def repo_root() -> Path:
    """The checkout that holds the package (``experiments/`` lives beside it)."""
    return Path(_version.__file__).resolve().parents[1]


#: Where a non-editable install (``pip install .`` or a wheel) puts
#: ``experiments/`` and ``derivations/``: ``<prefix>/share/symfdp/`` (the
#: ``data-files`` of ``pyproject.toml``).
INSTALLED_SUBDIR = Path("share", "symfdp")


def installed_data_dirs() -> list[Path]:
    """``share/symfdp`` under every prefix an install may have used: the
    environment's, the base interpreter's and the user base (``pip --user``)."""
    import site

    prefixes = [sys.prefix, sys.base_prefix, site.getuserbase()]
    return [Path(p) / INSTALLED_SUBDIR for p in dict.fromkeys(prefixes)]


def data_dir(name: str, env: str) -> Path:
    """``$env``, the checkout's ``<repo>/name`` or the installed copy.

    Args:
        name: ``"experiments"`` or ``"derivations"``.
        env: The environment variable that overrides the search.

    Raises:
        FileNotFoundError: none exists; the one-line message says where it looked.
    """
    override = os.environ.get(env)
    if override:
        path = Path(override)
        if not path.is_dir():
            raise FileNotFoundError(f"{env}={override} is not a directory.")
        return path
    candidates = [repo_root() / name, *(d / name for d in installed_data_dirs())]
    for path in candidates:
        if path.is_dir():
            return path
    raise FileNotFoundError(
        f"no {name}/ directory found (looked in "
        + ", ".join(str(c) for c in candidates)
        + f"); reinstall symfdp (pip install symfdp) or set {env}."
    )


def experiments_dir() -> Path:
    """``$SYMFDP_EXPERIMENTS_DIR``, ``<repo>/experiments`` or the installed copy
    (:func:`data_dir`)."""
    return data_dir("experiments", "SYMFDP_EXPERIMENTS_DIR")


def derivations_dir() -> Path:
    """``$SYMFDP_DERIVATIONS_DIR``, ``<repo>/derivations`` or the installed copy
    (:func:`data_dir`)."""
    return data_dir("derivations", "SYMFDP_DERIVATIONS_DIR")


def results_dir(out: str | os.PathLike[str] | None = None) -> Path:
    """Where results go: ``out``, ``$SYMFDP_RESULTS_DIR`` or ``./results``."""
    if out is not None:
        return Path(out)
    env = os.environ.get("SYMFDP_RESULTS_DIR")
    return Path(env) if env else Path.cwd() / "results"


def matplotlibrc() -> Path:
    """The style file applied to every figure."""
    return experiments_dir() / "matplotlibrc"
