"""``results/REPORT.md``: one row per claim, with links to the figures."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any


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


def write_report(results_root: Path, ids: list[str], errors: dict[str, str]) -> Path:
    """Write ``REPORT.md`` for ``ids`` (and the errors of experiments that failed).

    Returns:
        The path of the report.
    """
    entries = collect(results_root, ids)
    counts = {"PASS": 0, "FAIL": 0, "FAIL (source)": 0}
    for entry in entries:
        for claim in entry["claims"]:
            counts[claim["verdict"]] = counts.get(claim["verdict"], 0) + 1
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shas = {e["manifest"].get("git_sha", "?")[:10] for e in entries}
    lines = [
        "# symfdp reproduction report",
        "",
        f"Generated {now} from commit(s) {', '.join(sorted(shas)) or '-'}. "
        "Every value in the *ours* column was computed by the run recorded in the "
        "experiment's `manifest.json`; the *published* column quotes the source.",
        "",
        f"**{counts['PASS']} PASS, {counts['FAIL']} FAIL, "
        f"{counts['FAIL (source)']} FAIL explained by an error in the source, "
        f"{len(errors)} experiment error(s).**",
        "",
        "| experiment | claim | published | ours | verdict | criterion / note |",
        "|---|---|---|---|---|---|",
    ]
    for entry in entries:
        sid = entry["id"]
        for c in entry["claims"]:
            note = c["criterion"]
            if c.get("source_error"):
                note += f". Source error: {c['source_error']}"
            lines.append(
                f"| [{sid}]({sid}/figure.png) | {_cell(c['statement'])} | "
                f"{_cell(c['published'])} | {_cell(c['ours'])} | **{c['verdict']}** "
                f"| {_cell(note)} |"
            )
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
    tmp = path.with_name(f".REPORT.md.tmp-{id(lines)}")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)
    return path
