"""``results/REPORT.md``: one row per claim, with links to the figures.

Several ``symfdp reproduce`` processes may share one results directory: the
report is written under an exclusive lock on the directory (``flock``, where the
platform has it) and atomically (temporary file + rename), and it covers the
experiments of the run together with every other experiment that has a current
result in the directory, so the last report written lists them all.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from symfdp import findings
from symfdp.reproduce.runner import trusted_result

try:  # POSIX only; elsewhere reports are written without the lock.
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]  # no fcntl module here


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def collect(results_root: Path, ids: list[str]) -> list[dict[str, Any]]:
    """Manifest and claims of every experiment in ``ids`` that has a result."""
    entries = []
    for sid in ids:
        folder = results_root / sid
        try:
            manifest = json.loads((folder / "manifest.json").read_text())
            claims = json.loads((folder / "claims.json").read_text())
        except (OSError, json.JSONDecodeError):
            continue
        entries.append({"id": sid, "manifest": manifest, "claims": claims})
    return entries


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` (a no-op without fcntl)."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_report(
    results_root: Path,
    ids: list[str],
    errors: dict[str, str],
    registry: Mapping[str, Path] | None = None,
) -> Path:
    """Write ``REPORT.md`` for ``ids`` (and the errors of experiments that failed).

    Args:
        results_root: The results directory.
        ids: The experiments of this run.
        errors: Tracebacks of the experiments of this run that failed.
        registry: All experiment ids and module paths; when given, every other
            experiment with a current result in ``results_root``
            (:func:`~symfdp.reproduce.runner.trusted_result`) is reported too,
            in registry order.

    Returns:
        The path of the report.
    """
    with _locked(results_root):
        if registry is not None:
            ours = set(ids)
            ids = [
                sid
                for sid, path in registry.items()
                if sid in ours or trusted_result(results_root / sid, path)
            ] + [sid for sid in ids if sid not in registry]
        return _write(results_root, ids, errors)


def verdict_counts(claims: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many claims have each verdict (``PASS``, ``FAIL``, ``FAIL (source)``)."""
    counts = {"PASS": 0, "FAIL": 0, "FAIL (source)": 0}
    for claim in claims:
        counts[claim["verdict"]] = counts.get(claim["verdict"], 0) + 1
    return counts


def verdict_summary(counts: Mapping[str, int], errors: int) -> str:
    """One sentence for the verdicts, the same on the terminal and in
    ``REPORT.md``: the claims that hold (``PASS``), those the source states
    wrongly (``FAIL (source)``: our numbers contradict the statement and the
    error is a registered finding), those that fail (``FAIL``), and the
    experiments that did not run to the end."""
    total = sum(counts.values())
    text = f"{counts.get('PASS', 0)}/{total} claims hold"
    source = counts.get("FAIL (source)", 0)
    if source:
        text += (
            f", {source} FAIL (source) (the statement is an error of the source, "
            "a registered finding)"
        )
    if counts.get("FAIL", 0):
        text += f", {counts['FAIL']} FAIL"
    return f"{text}, {errors} experiment error(s)"


def _findings_section(entries: list[dict[str, Any]]) -> list[str]:
    """Every finding of :mod:`symfdp.findings`, with the verdicts of this report.

    A ``FAIL (source)`` claim whose finding is missing or not registered is
    listed as such: every source error belongs in the registry.
    """

    reg = findings.registry()
    seen: dict[tuple[str, str], str] = {}
    stray = []
    for entry in entries:
        for c in entry["claims"]:
            seen[(entry["id"], c["id"])] = c["verdict"]
            if c["verdict"] == "FAIL (source)" and c.get("finding") not in reg:
                stray.append(f"{entry['id']}/{c['id']}")
    lines = ["", "## Findings about the sources", ""]
    lines.append(findings.render_markdown().rstrip("\n"))
    lines.append("")
    for f in reg.values():
        got = [
            f"`{c.target}/{c.item}`: {seen[(c.target, c.item)]}"
            for c in f.checks
            if c.kind == "reproduce" and (c.target, c.item) in seen
        ]
        if got:
            lines.append(f"- `{f.id}` in this report: {', '.join(got)}")
    if stray:
        lines.append(
            f"- **FAIL (source) claims outside the registry**: {', '.join(stray)}"
        )
    return lines


def _write(results_root: Path, ids: list[str], errors: dict[str, str]) -> Path:
    entries = collect(results_root, ids)
    counts = verdict_counts(c for entry in entries for c in entry["claims"])
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shas = {e["manifest"].get("git_sha", "?")[:10] for e in entries}
    lines = [
        "# symfdp reproduction report",
        "",
        f"Generated {now} from commit(s) {', '.join(sorted(shas)) or '-'}. "
        "Every value in the *ours* column was computed by the run recorded in the "
        "experiment's `manifest.json`; the *published* column quotes the source.",
        "",
        f"**{verdict_summary(counts, len(errors))}.**",
        "",
        "| experiment | claim | published | ours | verdict | criterion / note |",
        "|---|---|---|---|---|---|",
    ]
    for entry in entries:
        sid = entry["id"]
        for c in entry["claims"]:
            note = c["criterion"]
            if c.get("timed"):
                note += " (timed: the verdict rests on measured run times)"
            if c.get("source_error"):
                fid = c.get("finding")
                note += f". Source error{f' (finding `{fid}`)' if fid else ''}: "
                note += c["source_error"]
            lines.append(
                f"| [{sid}]({sid}/figure.png) | {_cell(c['statement'])} | "
                f"{_cell(c['published'])} | {_cell(c['ours'])} | **{c['verdict']}** "
                f"| {_cell(note)} |"
            )
    lines += _findings_section(entries)
    lines += ["", "## Experiments", ""]
    for entry in entries:
        m = entry["manifest"]
        mode = "quick" if m.get("quick") else "full"
        lines.append(
            f"- **{entry['id']}** — {m.get('title', '')} ({m.get('source', '')}); "
            f"{mode} run, {m.get('wall_seconds', 0):.1f} s. "
            f"[figure]({entry['id']}/figure.png), [data]({entry['id']}/data.csv)"
        )
        for note in m.get("notes", []):
            lines.append(f"  - Assumption: {note}")
        for warning in m.get("warnings", [])[:5]:
            lines.append(f"  - Warning during the run: `{_cell(warning)}`")
    if errors:
        lines += ["", "## Errors", ""]
        for sid, err in errors.items():
            last = err.strip().splitlines()[-1] if err.strip() else "unknown error"
            lines.append(f"- **{sid}**: `{_cell(last)}`")
    path = results_root / "REPORT.md"
    # A name no other process uses, created with the usual permissions.
    tmp = results_root / f".REPORT.md.{os.getpid()}.{secrets.token_hex(8)}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
