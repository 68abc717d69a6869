"""Installed size of symfdp and of each of its extras (the README's install table).

For the base install and for each extra of ``pyproject.toml``: the dependency closure
(``Requires-Dist`` followed recursively, environment markers evaluated for this
interpreter, an extra's own requirements added on top of the base closure), and the sum
of the file sizes listed in each installed package's ``RECORD`` (bytecode included).
Run it in an environment where the extras are installed; a package of the closure that
is not installed is listed as missing rather than guessed.

    python benchmarks/install_sizes.py        # -> benchmarks/results/install_sizes.json
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "install_sizes.json"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(requirements: list[Requirement], seen: set[str]) -> set[str]:
    """Names of the distributions ``requirements`` pull in, recursively."""
    stack = list(requirements)
    while stack:
        req = stack.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = _canonical(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            sub = Requirement(line)
            if sub.marker is None or sub.marker.evaluate({"extra": ""}):
                stack.append(sub)
            elif req.extras and any(
                sub.marker.evaluate({"extra": e}) for e in req.extras
            ):
                stack.append(Requirement(str(sub).split(";")[0]))
    return seen


def _size(name: str) -> int | None:
    try:
        files = metadata.distribution(name).files or []
    except metadata.PackageNotFoundError:
        return None
    return sum(f.size or 0 for f in files)


@dataclass(frozen=True)
class ExtraSize:
    """What one install adds: packages, megabytes, and closure members not installed."""

    install: str
    packages: int
    megabytes: float
    missing: tuple[str, ...]


def _measure(install: str, names: set[str]) -> ExtraSize:
    sizes = {n: _size(n) for n in names}
    missing = tuple(sorted(n for n, s in sizes.items() if s is None))
    total = sum(s for s in sizes.values() if s is not None)
    return ExtraSize(install, len(names), round(total / 1e6, 1), missing)


def main() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base_reqs = [Requirement(r) for r in project["dependencies"]]
    base = _closure(base_reqs, set())
    rows = [_measure("pip install -e .", base)]
    for extra, reqs in project["optional-dependencies"].items():
        own = [Requirement(r) for r in reqs if not r.startswith(project["name"] + "[")]
        nested = [r for r in reqs if r.startswith(project["name"] + "[")]
        for spec in nested:
            for sub in Requirement(spec).extras:
                own += [Requirement(r) for r in project["optional-dependencies"][sub]]
        added = _closure(own, set(base)) - base
        rows.append(_measure(f'".[{extra}]"', added))
    for row in rows:
        note = f"  (not installed: {', '.join(row.missing)})" if row.missing else ""
        size = f"{row.packages:4d} packages {row.megabytes:8.1f} MB"
        print(f"{row.install:24s} {size}{note}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {"python": sys.version.split()[0], "installs": [asdict(r) for r in rows]},
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
