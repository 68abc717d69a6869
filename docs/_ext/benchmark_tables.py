"""Markdown tables of the committed benchmark results (``benchmarks/results/``).

Each renderer reads one results file and returns ``(markdown, files_read)``; the
``{benchmark-table} NAME`` directive of ``symfdp_docs.py`` puts the table on a
page. A results file is the record of one run: each table says which script
wrote it, at which commit and with which versions, so a reader can re-run it.
``python docs/_ext/benchmark_tables.py`` prints every table (to look at them
without building the site).
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"

Rendered = tuple[str, list[Path]]


# ------------------------------------------------------------------ helpers
def _load(name: str) -> tuple[dict[str, Any], Path]:
    path = RESULTS / name
    with open(path) as fh:
        return json.load(fh), path


def _commit(data: dict[str, Any]) -> str | None:
    git = data.get("git")
    if isinstance(git, list) and git and isinstance(git[0], str):
        return git[0][:7] + (
            " (uncommitted changes)" if len(git) > 1 and git[1] else ""
        )
    if isinstance(git, dict) and isinstance(git.get("commit"), str):
        return git["commit"][:7] + (
            " (uncommitted changes)" if git.get("dirty") else ""
        )
    if isinstance(data.get("commit"), str):
        return str(data["commit"])[:7]
    machine = data.get("machine")
    if isinstance(machine, dict) and isinstance(machine.get("git_commit"), str):
        sha = machine["git_commit"]
        return sha[:7] + (" (uncommitted changes)" if sha.endswith("+dirty") else "")
    return None


def _date(data: dict[str, Any]) -> str | None:
    for key in ("utc", "started_utc", "started"):
        if isinstance(data.get(key), str):
            return str(data[key])[:10]
    return None


def _versions(data: dict[str, Any]) -> str | None:
    machine = data.get("machine") if isinstance(data.get("machine"), dict) else data
    parts = [
        f"{label} {machine[key]}"
        for key, label in (("python", "Python"), ("numpy", "NumPy"), ("scipy", "SciPy"))
        if isinstance(machine.get(key), str)
    ]
    return ", ".join(parts) or None


def provenance(data: dict[str, Any], path: Path, script: str) -> str:
    """One line: the script that wrote ``path``, its commit, date and versions."""
    bits = [f"`{path.relative_to(ROOT)}`, written by `python {script}`"]
    commit, date, versions = _commit(data), _date(data), _versions(data)
    if commit:
        bits.append(f"at commit {commit}")
    if date:
        bits.append(f"on {date}")
    if versions:
        bits.append(versions)
    return "From " + ", ".join(bits) + "."


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table (``|`` in a cell escaped)."""

    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def g(x: float | None, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits (``-`` for None, inf as inf)."""
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.{digits}g}"


def bracket(pair: Sequence[float], decimals: int) -> str:
    """A certified bracket rounded outwards to ``decimals`` decimals."""
    scale = 10.0**decimals
    lo = math.floor(pair[0] * scale) / scale
    hi = math.ceil(pair[1] * scale) / scale
    return f"[{lo:.{decimals}f}, {hi:.{decimals}f}]"


def seconds(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:,.0f}"


def percent(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def _off(x: float | None) -> str:
    """A relative distance from a certified bracket (0: inside it)."""
    if x is None:
        return "-"
    return "inside" if x == 0 else f"{100 * x:.2g}% off"


# ------------------------------------------------------------------ tables
def interop_dp_accounting() -> Rendered:
    """eps(1e-5) of dp-accounting's PLD against symfdp's certified bracket."""
    data, path = _load("interop.json")
    rows = [
        (
            r["case"],
            r["relation"],
            f"{r['pld_eps']:.6f}",
            bracket(r["symfdp_bracket"], 6),
            "yes" if r["pld_in_bracket"] else "no",
            seconds(r["pld_seconds"]),
            seconds(r["symfdp_seconds"]),
        )
        for r in data["dp_accounting"]
    ]
    text = table(
        (
            "events",
            "relation",
            "PLD eps",
            "symfdp certified bracket",
            "PLD inside",
            "PLD (s)",
            "symfdp (s)",
        ),
        rows,
    )
    note = provenance(data, path, "benchmarks/bench_interop.py")
    return f"{text}\n\n{note} delta = {data['delta']:g}.\n", [path]


def interop_opacus() -> Rendered:
    """Opacus's RDP and PRV accountants against symfdp's certified bracket."""
    data, path = _load("interop.json")
    rows = []
    for r in data["opacus"]:
        history = ", ".join(
            f"{int(steps)} x (sigma {sigma:g}, q {q:g})"
            for sigma, q, steps in r["history"]
        )
        rows.append(
            (
                history,
                f"{r['opacus_rdp_eps']:.4f}",
                f"{r['opacus_prv_eps']:.4f}",
                bracket(r["symfdp_bracket"], 4),
                seconds(r["opacus_rdp_seconds"]),
                seconds(r["opacus_prv_seconds"]),
                seconds(r["symfdp_seconds"]),
            )
        )
    text = table(
        (
            "history",
            "Opacus RDP eps",
            "Opacus PRV eps",
            "symfdp certified bracket",
            "RDP (s)",
            "PRV (s)",
            "symfdp (s)",
        ),
        rows,
    )
    note = provenance(data, path, "benchmarks/bench_interop.py")
    return f"{text}\n\n{note} delta = {data['delta']:g}.\n", [path]


def numerical_scale(file: str = "numerical_scale_n1e6.json") -> Rendered:
    """Numerical's certified bracket and time against the fastest peer within 1%."""
    data, path = _load(file)
    rows = []
    for r in data["grid"]:
        num = r["numerical"]
        peer = next(
            (q for q in r["peers"] if q["peer"] == r["fastest_peer_within_1pct"]), None
        )
        digits = max(0, 4 - math.floor(math.log10(max(abs(num["eps"]), 1e-9))) - 1)
        rows.append(
            (
                f"{r['n']:.0e}".replace("e+0", "e"),
                g(r["sigma"]),
                g(r["p"]),
                bracket(num["bracket"], digits),
                seconds(num["seconds"]),
                ", ".join(str(s) for s in num.get("fft_sizes", [])),
                "-"
                if peer is None
                else f"{peer['peer']}: {seconds(peer['seconds'])} "
                f"({_off(peer['error_vs_certified'])})",
                g(r["ratio"], 2),
            )
        )
    text = table(
        (
            "n",
            "sigma",
            "p",
            "Numerical bracket",
            "Numerical (s)",
            "lattice points",
            "fastest peer within 1%: s (its error)",
            "time ratio",
        ),
        rows,
    )
    note = provenance(data, path, "benchmarks/bench_numerical_scale.py")
    return (
        f"{text}\n\n{note} eps({data['delta']:g}); a peer's error is its distance "
        "from the certified bracket, relative; the ratio is Numerical's time over "
        "the peer's.\n",
        [path],
    )


_MANY_METHODS = (
    ("saddlepoint", "`A.SaddlePoint()`"),
    ("edgeworth", "`A.Edgeworth(order=4)`"),
    ("numerical", "`A.Numerical()`"),
    ("training_accountant", "`TrainingAccountant()`"),
    ("pld_vdi_1e-3", "dp-accounting PLD, vdi 1e-3"),
)


def many_distinct(file: str = "many_distinct.json") -> Rendered:
    """k distinct subsampled-Gaussian settings, composed by each method."""
    data, path = _load(file)
    rows = []
    for comp in data["compositions"]:
        first = True
        for key, label in _MANY_METHODS:
            r = comp.get(key)
            if not isinstance(r, dict) or r.get("status") != "ok":
                continue
            if "bracket" in r:
                eps = bracket(r["bracket"], 4)
                off = "-"
            else:
                eps = f"{r['eps']:.4f}"
                err = r.get("error_vs_certified")
                off = _off(err)
            rows.append(
                (
                    comp["name"] if first else "",
                    label,
                    seconds(r["seconds"]),
                    f"{r['peak_rss_mb']:.0f} MB" if "peak_rss_mb" in r else "-",
                    eps,
                    off,
                )
            )
            first = False
    text = table(
        (
            "composition",
            "method",
            "time (s)",
            "peak memory",
            f"eps({data['delta']:g})",
            "outside the certified bracket by",
        ),
        rows,
    )
    note = provenance(data, path, "benchmarks/bench_many_distinct.py")
    return (
        f"{text}\n\n{note} {data['k']:,} distinct settings x {data['steps_each']:,} "
        "steps each; every case in a fresh process, imports excluded.\n",
        [path],
    )


def cached_queries() -> Rendered:
    """Queries on a composed certified curve after the first."""
    data, path = _load("numerical_scale_cached.json")
    c = data["cached"]
    rows = [
        (
            "first query (the composition)",
            f"{data['delta']:g}",
            f"{c['eps_1e-5']:.4f}",
            seconds(c["first_query_s"]),
        )
    ]
    rows += [
        ("later query", f"{q['delta']:g}", f"{q['eps']:.4f}", seconds(q["seconds"]))
        for q in c["queries"]
    ]
    text = table(("query", "delta", "eps", "time (s)"), rows)
    note = provenance(data, path, "benchmarks/bench_numerical_scale.py --parts cached")
    return f"{text}\n\n{note}\n", [path]


def sweep_executors() -> Rendered:
    """Throughput of `symfdp sweep` with each executor."""
    data, path = _load("sweep.json")
    rows = [
        (
            r["label"],
            seconds(r["wall_s"]),
            f"{r['rows_per_s']:.1f}",
            "-"
            if r.get("jobs") == 1 and r.get("executor") == "local"
            else ("yes" if r.get("table_equals_jobs1") else "no"),
            f"{r['loadavg_before_after'][0][0]:.1f}",
        )
        for r in data["runs"]
    ]
    text = table(
        ("executor", "wall (s)", "rows/s", "same table as --jobs 1", "load average"),
        rows,
    )
    acc = data["accuracy"]
    note = provenance(data, path, "benchmarks/bench_sweep.py")
    return (
        f"{text}\n\n{note} {data['runs'][0]['rows']} rows of certified brackets "
        f"(relative width median {acc['bracket_rel_width_median']:.1e}, max "
        f"{acc['bracket_rel_width_max']:.1e}).\n",
        [path],
    )


_SWEEP_METHODS = (
    "CLT",
    "Edgeworth(2)",
    "Edgeworth(4)",
    "SaddlePoint(2)",
    "SaddlePoint(3)",
    "Contour",
    "Auto(1e-2)",
)


def error_sweep() -> Rendered:
    """How often each approximation's error estimate covers its true error."""
    data, path = _load("error_sweep.json")
    rows = []
    for name in _SWEEP_METHODS:
        s = data["summary"].get(name)
        if s is None:
            continue
        share = s["share_true_le_3x_estimate"]
        rows.append(
            (
                name,
                f"{s['answered']} / {s['refused']}",
                s["off_by_more_than_10pct"],
                s["silent_over_10pct"],
                s["silent_anticonservative_over_5pct"],
                "-" if share is None else f"{100 * share:.1f}% ({s['estimate_cases']})",
                s["infinite_estimates"],
                g(s["median_estimate_over_true"], 2),
            )
        )
    text = table(
        (
            "method",
            "answered / refused",
            "off by > 10%",
            "of those, silent",
            "silent and > 5% too low",
            "true error <= 3x estimate (informative cases)",
            "infinite estimates",
            "median estimate / true error",
        ),
        rows,
    )
    note = provenance(data, path, f"benchmarks/error_sweep.py --cases {data['cases']}")
    resolved = data["summary"]["CLT"]["resolved"]
    answered = data["summary"]["CLT"]["answered"]
    return (
        f"{text}\n\n{note} {data['cases']:,} random compositions (seed "
        f"{data['seed']}); {answered:,} with a certified reference, {resolved:,} "
        "resolved to 1%.\n",
        [path],
    )


def conformance() -> Rendered:
    """The conformance matrix: its measures against the targets, the error
    estimates by query and the false alarms by accountant."""
    data, path = _load("conformance.json")
    s = data["summary"]
    fa, est = s["false_alarms"], s["estimates"]
    measures = table(
        ("measure", "value", "target"),
        [
            ("silent answers more than 5% off", s["silent_over_5pct"], "0"),
            ("certified brackets missing an exact value", s["certified_misses"], "0"),
            ("unclear errors", s["unclear_errors"], "0"),
            (
                "estimates covering the true error (true <= 3x estimate)",
                f"{percent(est['covered_3x_share'], 1)} of {est['tracked_answers']}",
                ">= 90%",
            ),
            (
                "false alarms (warned calls whose answers are all within 2%)",
                f"{fa['within_2pct']} / {fa['warned_resolved']} = "
                f"{percent(fa['share'], 1)}",
                "< 20%",
            ),
        ],
    )
    by_query = table(
        ("query", "answers with an estimate", "covered (3x)", "median estimate / true"),
        [
            (ask, v["answers"], percent(v["covered_3x"], 1), g(v["median_ratio"], 3))
            for ask, v in est["by_query"].items()
        ],
    )
    alarms: dict[str, list[int]] = {}
    for key, (false, warned) in fa["by_method_query"].items():
        method = key.split(" ")[0]
        total = alarms.setdefault(method, [0, 0])
        total[0] += false
        total[1] += warned
    by_method = table(
        ("accountant", "false alarms / warned calls"),
        [
            (f"`{m}`", f"{a} / {n} = {percent(a / n, 1)}")
            for m, (a, n) in sorted(alarms.items())
        ],
    )
    note = provenance(data, path, "benchmarks/conformance.py")
    return (
        f"{measures}\n\n{by_query}\n\n{by_method}\n\n{note} {data['cases']} "
        f"cases, {s['answers']:,} judged answers.\n",
        [path],
    )


def analytic() -> Rendered:
    """Build, compose and eps(1e-5) of each analytic method against the peers."""
    data, path = _load("analytic.json")
    rows = []
    for case in data["build_compose_eps"]:
        lo, hi = case["numerical_certified_bracket"]
        first = True
        entries = [(name, r, True) for name, r in case["methods"].items()]
        entries += [(name, r, False) for name, r in case["peers"].items()]
        for name, r, ours in entries:
            rows.append(
                (
                    f"{case['n']:,}, [{lo:.5f}, {hi:.5f}]" if first else "",
                    name if ours else f"{name} (peer)",
                    f"{r['eps']:.5f}",
                    g(r.get("error_estimate"), 2) if ours else "-",
                    "inside"
                    if r["inside_bracket"]
                    else f"{100 * r['rel_error_vs_bracket_mid']:+.2f}%",
                    f"{1e3 * r['median_s']:.2f}",
                    g(r.get("pld_over_this_median"), 3) if ours else "-",
                )
            )
            first = False
    text = table(
        (
            "n, certified bracket",
            "method",
            "eps(1e-5)",
            "error estimate",
            "vs the bracket",
            "median time (ms)",
            "PLD (vdi 1e-3) time / this",
        ),
        rows,
    )
    note = provenance(data, path, "benchmarks/bench_analytic.py")
    return (
        f"{text}\n\n{note} SubsampledGaussian(sigma=1, p=0.01), add or remove; "
        "build, compose and eps(1e-5) timed together.\n",
        [path],
    )


def _accuracy_rows() -> tuple[list[dict[str, str]], Path]:
    path = RESULTS / "accuracy_map.csv"
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh)), path


def accuracy_map() -> Rendered:
    """Per method: median and worst relative error of eps(delta) over the map."""
    rows, path = _accuracy_rows()
    by_method: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        by_method.setdefault(r["method"], []).append(r)
    out = []
    for method, cells in by_method.items():
        valid = [c for c in cells if c["ref_zero"] == "0"]
        errs = [
            abs(float(c["rel_error"]))
            for c in valid
            if math.isfinite(float(c["rel_error"]))
        ]
        out.append(
            (
                method,
                f"{statistics.median(errs):.1e}" if errs else "-",
                f"{max(errs):.1e}" if errs else "-",
                f"{sum(c['below_bracket'] == '1' for c in valid)}/{len(valid)}",
                f"{sum(e > 0.1 for e in errs)}/{len(valid)}",
                f"{sum(c['approx_warning'] == '1' for c in valid)}/{len(valid)}",
            )
        )
    text = table(
        (
            "method",
            "median abs. rel. error",
            "worst",
            "below the bracket",
            "error > 10%",
            "warned",
        ),
        out,
    )
    cells = len(next(iter(by_method.values())))
    summary = RESULTS / "accuracy_map.md"
    found = (
        re.search(r"at commit (\w+)", summary.read_text()) if summary.exists() else None
    )
    at = f" at commit {found[1]}" if found else ""
    return (
        f"{text}\n\nFrom `benchmarks/results/accuracy_map.csv`, written by "
        f"`python benchmarks/accuracy_map.py`{at} ({cells} cells per method; the "
        "reference is the midpoint of a certified bracket of relative width 1e-5; "
        "cells where eps = 0 are left out).\n",
        [path, *([summary] if summary.exists() else [])],
    )


def calibrate() -> Rendered:
    """Noise calibration: symfdp next to the peers, in one run."""
    data, path = _load("calibrate.json")
    rows = []
    for r in data["peers"]:
        setting = f"p={r['p']:g}, n={r['n']:,}, eps={r['target_eps']:g}"
        if "error" in r:
            rows.append((setting, r["tool"], "-", "-", "-", "-", r["error"][:60]))
            continue
        upper = r["certified_eps"][1]
        verdict = "overshoots" if r["overshoots"] else "meets"
        rows.append(
            (
                setting,
                r["tool"],
                f"{r['sigma']:.6f}",
                f"{upper:.5f} ({verdict})",
                seconds(r["median_s"]),
                f"{r.get('time_ratio_to_symfdp', 1.0):.1f}",
                str(r["compositions"]),
            )
        )
    text = table(
        (
            "setting",
            "tool",
            "sigma",
            "certified eps(1e-5) upper at that sigma",
            "time (s)",
            "time / symfdp's",
            "compositions",
        ),
        rows,
    )
    grid = data["summary"]["grid"]
    versions = ", ".join(f"{k} {v}" for k, v in data.get("peer_versions", {}).items())
    note = provenance(data, path, "benchmarks/bench_calibrate.py")
    meets = "every" if grid["all_meet_the_target"] else "NOT every"
    close = "" if grid["within_1pct_where_in_window"] else "NOT "
    return (
        f"{text}\n\n{note} Peers: {versions}. Over the grid of "
        f"{grid['cases']} calibrations (sigma, sample rate or steps; eps, delta "
        f"and mu* targets), {grid['answered']} answered: {meets} certified upper "
        f"end at most its target, {close}within 1% of it where the search ended "
        f"in its window, at most {grid['max_certified_evaluations']} certified "
        f"compositions each (median {seconds(grid['median_seconds'])} s); "
        f"{grid['out_of_reach']} targets out of reach were errors naming the "
        "parameter.\n",
        [path],
    )


def _summary_of(data: dict[str, Any]) -> str:
    name = data.get("benchmark")
    return str(name) if isinstance(name, str) else "-"


def results_files() -> Rendered:
    """Every results file: what it measured, when, at which commit."""
    rows = []
    used = []
    for path in sorted(RESULTS.iterdir()):
        if path.suffix != ".json":
            continue
        with open(path) as fh:
            data = json.load(fh)
        used.append(path)
        rows.append(
            (
                f"`{path.name}`",
                _summary_of(data),
                _commit(data) or "-",
                _date(data) or "-",
                _versions(data) or "-",
            )
        )
    text = table(("file", "benchmark", "commit", "date", "versions"), rows)
    others = sorted(p.name for p in RESULTS.iterdir() if p.suffix != ".json")
    return (
        f"{text}\n\nBeside them: {', '.join(f'`{n}`' for n in others)} (tables, "
        "figures and raw rows the scripts write with their JSON).\n",
        used,
    )


TABLES: dict[str, Callable[..., Rendered]] = {
    "interop-dp-accounting": interop_dp_accounting,
    "interop-opacus": interop_opacus,
    "numerical-scale": numerical_scale,
    "many-distinct": many_distinct,
    "cached-queries": cached_queries,
    "sweep-executors": sweep_executors,
    "error-sweep": error_sweep,
    "conformance": conformance,
    "analytic": analytic,
    "accuracy-map": accuracy_map,
    "calibrate": calibrate,
    "results-files": results_files,
}


if __name__ == "__main__":
    for name, render in TABLES.items():
        print(f"## {name}\n\n{render()[0]}")
