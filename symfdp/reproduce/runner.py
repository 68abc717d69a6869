"""Run one experiment and write its outputs atomically.

Layout of ``results/<id>/``: ``data.csv`` (+ ``<table>.csv``), ``figure.png``,
``claims.json`` and ``manifest.json``. Everything is first written into a
private temporary directory next to the target and moved into place at the end,
``manifest.json`` last, so an interrupted or concurrent run never leaves a
half-written result that a later run trusts: a result directory counts only if
its manifest exists, its spec hash matches and every file it lists has the
sha256 recorded in it (:func:`is_current`).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from symfdp._version import __version__
from symfdp.reproduce.discovery import load_module, shared_module_files
from symfdp.reproduce.paths import matplotlibrc, repo_root
from symfdp.reproduce.spec import Result, Table

OUTPUT_FILES = ("data.csv", "figure.png", "claims.json", "manifest.json")


@dataclass
class RunOutcome:
    """What happened to one experiment."""

    id: str
    status: str  # "ran", "skipped" or "error"
    seconds: float = 0.0
    claims: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""

    @property
    def failed_claims(self) -> list[dict[str, Any]]:
        return [c for c in self.claims if c["verdict"] == "FAIL"]


def spec_hash(module: Any, quick: bool) -> str:
    """Hash of what determines a result: id, parameters, mode, code.

    The code is the module's file and the shared module files (``experiments/_*.py``)
    it imported, so an edited shared module invalidates the results that use it.
    """
    source = Path(module.__file__).read_bytes()
    content: dict[str, Any] = {
        "id": module.SPEC.id,
        "params": module.SPEC.resolved(quick),
        "quick": quick,
        "module_sha256": hashlib.sha256(source).hexdigest(),
        "symfdp": __version__,
    }
    shared = shared_module_files(module)
    if shared:  # (absent otherwise, so earlier hashes stay valid)
        content["shared_modules_sha256"] = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in shared
        }
    payload = json.dumps(content, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def _git_state() -> tuple[str, bool | None]:
    root = repo_root()
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
                timeout=10,
            ).stdout.strip()
        )
        return sha, dirty
    except (OSError, subprocess.SubprocessError):
        return "unknown", None


def _versions() -> dict[str, str]:
    import matplotlib
    import mpmath
    import scipy
    import sympy

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sympy": sympy.__version__,
        "mpmath": mpmath.__version__,
        "matplotlib": matplotlib.__version__,
        "symfdp": __version__,
    }


def write_table(path: Path, table: Table) -> None:
    """Write a dict of equal-length columns as CSV (floats with 17 digits)."""
    names = list(table)
    cols = [np.atleast_1d(np.asarray(table[k])) for k in names]
    rows = zip(*cols, strict=True) if cols else iter(())
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(names)
        for row in rows:
            writer.writerow(
                [
                    repr(float(v)) if isinstance(v, (float, np.floating)) else v
                    for v in row
                ]
            )


def read_table(path: Path) -> Table:
    """Read a CSV written by :func:`write_table`; numeric columns become float64."""
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        names = next(reader)
        data: list[list[str]] = [[] for _ in names]
        for row in reader:
            for col, value in zip(data, row, strict=True):
                col.append(value)
    out: Table = {}
    for name, col in zip(names, data, strict=True):
        try:
            out[name] = np.array([float(v) for v in col], dtype=np.float64)
        except ValueError:
            out[name] = np.array(col, dtype=str)
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_current(out_dir: Path, digest: str) -> bool:
    """Whether ``out_dir`` holds a complete result for this spec hash: the
    manifest parses, records ``digest``, and lists every output file with the
    sha256 the file has now (a truncated, missing or replaced file, or a
    manifest from an older format, makes the result untrusted)."""
    try:
        manifest = json.loads((out_dir / "manifest.json").read_text())
        files = manifest["files"]
        if manifest.get("spec_hash") != digest or not isinstance(files, dict):
            return False
        required = set(OUTPUT_FILES) - {"manifest.json"}
        if not required <= set(files):
            return False
        return all(_sha256(out_dir / name) == h for name, h in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def trusted_result(out_dir: Path, path: Path) -> bool:
    """Whether ``out_dir`` holds a current result of the experiment at ``path``
    in the mode (quick or full) its manifest records."""
    try:
        quick = json.loads((out_dir / "manifest.json").read_text())["quick"]
        return is_current(out_dir, spec_hash(load_module(path), bool(quick)))
    except Exception:
        return False


def _move_into_place(tmp: Path, final: Path) -> None:
    """Replace ``final`` by ``tmp`` (directories), tolerating a concurrent run."""
    for _ in range(5):
        if final.exists():
            trash = final.with_name(f".{final.name}.old-{os.getpid()}-{time.time_ns()}")
            with contextlib.suppress(FileNotFoundError):
                os.replace(final, trash)
                shutil.rmtree(trash, ignore_errors=True)
        try:
            os.replace(tmp, final)
            return
        except OSError:
            continue
    raise OSError(f"could not move results into {final}")


def run_experiment(
    path: Path, results_root: Path, *, quick: bool = False, force: bool = False
) -> RunOutcome:
    """Compute one experiment, write its outputs, return the outcome.

    Never raises for a failure inside the experiment: the traceback is returned
    in ``RunOutcome.error`` so that ``reproduce all`` carries on.
    """
    start = time.monotonic()
    try:
        module = load_module(path)
    except Exception:
        return RunOutcome(path.stem, "error", error=traceback.format_exc())
    sid = module.SPEC.id
    final = results_root / sid
    digest = spec_hash(module, quick)
    if not force and is_current(final, digest):
        try:
            claims = json.loads((final / "claims.json").read_text())
            return RunOutcome(sid, "skipped", 0.0, claims)
        except (OSError, ValueError):
            pass  # replaced by a concurrent run just now: compute it again
    results_root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{sid}.tmp-", dir=results_root))
    started = dt.datetime.now(dt.timezone.utc)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        params = module.SPEC.resolved(quick)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with matplotlib.rc_context(fname=str(matplotlibrc())):
                result: Result = module.compute(params)
                for name, table in result.tables.items():
                    write_table(tmp / f"{name}.csv", table)
                tables = {p.stem: read_table(p) for p in sorted(tmp.glob("*.csv"))}
                fig = module.plot(tables, params)
                fig.savefig(tmp / "figure.png", dpi=130)
                plt.close(fig)
        claims = [c.to_json() for c in result.claims]
        (tmp / "claims.json").write_text(json.dumps(claims, indent=2) + "\n")
        sha, dirty = _git_state()
        seconds = time.monotonic() - start
        manifest = {
            "id": sid,
            "title": module.SPEC.title,
            "source": module.SPEC.source,
            "notes": list(module.SPEC.notes),
            "spec_hash": digest,
            "quick": quick,
            "params": params,
            "git_sha": sha,
            "git_dirty": dirty,
            "versions": _versions(),
            "started_utc": started.isoformat(),
            "finished_utc": dt.datetime.now(dt.timezone.utc).isoformat(),
            "wall_seconds": round(seconds, 3),
            "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
            "info": result.info,
            "files": {p.name: _sha256(p) for p in sorted(tmp.iterdir())},
        }
        (tmp / "manifest.json").write_text(
            json.dumps(manifest, indent=2, default=str) + "\n"
        )
        _move_into_place(tmp, final)
        return RunOutcome(sid, "ran", seconds, claims)
    except Exception:
        return RunOutcome(
            sid, "error", time.monotonic() - start, error=traceback.format_exc()
        )
    finally:
        # Gone after a successful move; removed after an error or an interrupt
        # (KeyboardInterrupt); a killed process leaves it, and nothing reads it.
        shutil.rmtree(tmp, ignore_errors=True)
