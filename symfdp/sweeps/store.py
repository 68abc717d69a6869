"""The table of a sweep on disk: ``OUT.jsonl`` and ``OUT.csv``, one row per
configuration, written so that nothing finished is lost.

* While the sweep runs, each finished row is appended to both files as one
  complete line, flushed and ``fsync``-ed: an interrupted or killed sweep leaves
  every finished row, and at worst one incomplete last line, which the next run
  drops.
* At the end (also after Ctrl-C), both files are rewritten in grid order
  through a temporary file and an atomic rename.
* ``OUT.jsonl`` is the record that a re-run reads: rows whose ``id`` (a hash of
  the configuration, :func:`symfdp.sweeps.spec.row_id`) is there are skipped,
  except rows lost with their workers, which run again.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path
from typing import Any


def base_path(out: str | Path) -> Path:
    """``OUT`` without a ``.csv`` / ``.jsonl`` suffix."""
    path = Path(out)
    if path.suffix.lower() in (".csv", ".jsonl"):
        path = path.with_suffix("")
    return path


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True) if value else ""
    if isinstance(value, float):
        return repr(value)
    return value


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no inf/nan
    return value


class Store:
    """The two files of a sweep (see the module doc)."""

    def __init__(self, out: str | Path, columns: list[str]):
        self.base = base_path(out)
        self.columns = columns
        self.jsonl = self.base.with_name(self.base.name + ".jsonl")
        self.csv = self.base.with_name(self.base.name + ".csv")
        self._fh: dict[str, Any] = {}

    def finished(self) -> dict[str, dict[str, Any]]:
        """The complete rows of ``OUT.jsonl`` by id (an incomplete or unreadable
        line is dropped)."""
        rows: dict[str, dict[str, Any]] = {}
        try:
            text = self.jsonl.read_text(encoding="utf-8")
        except FileNotFoundError:
            return rows
        for line in text.split("\n"):
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                rows[row["id"]] = {
                    k: float(v) if v in ("inf", "-inf", "nan") else v
                    for k, v in row.items()
                }
        return rows

    def _csv_line(self, row: dict[str, Any]) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(
            [_cell(row.get(c)) for c in self.columns]
        )
        return buf.getvalue()

    def _json_line(self, row: dict[str, Any]) -> str:
        clean = {c: _json_value(row.get(c)) for c in self.columns}
        return json.dumps(clean, allow_nan=False) + "\n"

    def _replace(self, path: Path, text: str) -> None:
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def rewrite(self, rows: list[dict[str, Any]]) -> None:
        """Both files, holding exactly ``rows`` in this order (atomic renames)."""
        self.close()
        self.base.parent.mkdir(parents=True, exist_ok=True)
        header = self._csv_line(dict(zip(self.columns, self.columns, strict=True)))
        self._replace(self.csv, header + "".join(self._csv_line(r) for r in rows))
        self._replace(self.jsonl, "".join(self._json_line(r) for r in rows))

    def open(self) -> None:
        """Open both files for appending (after :meth:`rewrite`)."""
        self._fh = {
            "jsonl": open(self.jsonl, "a", encoding="utf-8"),
            "csv": open(self.csv, "a", encoding="utf-8", newline=""),
        }

    def append(self, row: dict[str, Any]) -> None:
        """Append ``row`` to both files as complete lines, on disk when it returns."""
        for key, line in (
            ("jsonl", self._json_line(row)),
            ("csv", self._csv_line(row)),
        ):
            fh = self._fh[key]
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def close(self) -> None:
        for fh in self._fh.values():
            fh.close()
        self._fh = {}
