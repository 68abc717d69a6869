"""The full conformance matrix: every mechanism family x every accountant x every
query against the certified truth (``tests/conformance/matrix.py``).

Run: ``python benchmarks/conformance.py [--us 0.5] [--ns 1 10 1000]
[--adjacencies add_or_remove replace_one] [--cell-timeout 20]
[--families NAME ...] [--methods NAME ...] [--out STEM]`` (a slice with
``--families``/``--methods`` writes its own ``--out`` files).

Measures, over every judged answer:

* *fails*: silent answers more than 5% off the truth (distance to the truth
  bracket), certified brackets that miss an exact value, unclear errors, each
  listed and counted by outcome, accountant and query;
* *false alarms*: warned answers within 2% of a resolved truth (bracket
  half-width under 1%), as a share of the warned answers, also by accountant
  and query;
* *estimate tracking*: over the answers with an error estimate whose true error
  is resolved better than the error itself (bracket half-width below the
  true error, true error above the query's absolute slack), the share with
  ``true error <= 3 x estimate`` and the distribution of ``estimate / true``;
* *Auto vs Numerical*: the wall time of ``Auto`` and of ``Numerical`` on the
  plain DP-SGD case (sigma 1, p 0.01, n 1000, eps(1e-5)) as ratios to
  dp-accounting's PLD accountant measured in the same run, and per matrix cell.

A cell that runs longer than ``--cell-timeout`` seconds is recorded as
``timeout`` (not judged). Writes ``benchmarks/results/conformance.json`` (the
summary, the failing answers, per-cell times), ``conformance.csv`` (every judged
answer) and ``conformance.md``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import math
import signal
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import _common

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from symfdp import accountants as A  # noqa: E402
from symfdp import mechanisms as M  # noqa: E402
from tests.conformance import matrix as X  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: Bracket half-width (relative) below which a truth counts as resolved.
RESOLVED_RTOL = 0.01


class CellTimeout(BaseException):
    """A cell ran longer than its budget (a BaseException, so that the matrix
    does not record it as the accountant's error)."""


def _alarm(signum: int, frame: Any) -> None:
    raise CellTimeout


def run_matrix(
    cases: list[X.Case], methods: list[X.Method], timeout: float
) -> tuple[list[X.Record], list[dict[str, Any]]]:
    records: list[X.Record] = []
    cells: list[dict[str, Any]] = []
    signal.signal(signal.SIGALRM, _alarm)
    for i, case in enumerate(cases):
        t0 = time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_REAL, 3 * timeout)
            truth = X.truth_for(case, X.Grid())
        except CellTimeout:
            cells.append(
                {
                    "case": case.label,
                    "method": "truth",
                    "seconds": 3 * timeout,
                    "timeout": True,
                }
            )
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        print(
            f"[{i + 1}/{len(cases)}] {case.label} (truth {time.perf_counter() - t0:.1f} s)",  # noqa: E501
            flush=True,
        )
        for method in methods:
            t1 = time.perf_counter()
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout)
                out = X.run_cell(case, method, truth)
                timed_out = False
            except CellTimeout:
                out, timed_out = [], True
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            records += out
            cells.append(
                {
                    "case": case.label,
                    "family": case.family,
                    "method": method.label,
                    "seconds": time.perf_counter() - t1,
                    "timeout": timed_out,
                }
            )
    return records, cells


def _resolved(r: X.Record) -> bool:
    mid = 0.5 * (r.truth_lo + r.truth_hi)
    return (
        math.isfinite(mid)
        and r.resolution <= RESOLVED_RTOL * abs(mid) + X.ATOL[X.Ask(r.ask)]
    )


def _key(rs: list[X.Record]) -> str:
    return f"{rs[0].method.split('(')[0]} {rs[0].ask}"


def summarise(records: list[X.Record]) -> dict[str, Any]:
    judged = [r for r in records if r.ask != "construction"]
    outcomes = Counter(r.outcome for r in records)
    by_method: dict[str, Counter[str]] = defaultdict(Counter)
    for r in records:
        by_method[r.method][r.outcome] += 1
    fails = [r for r in records if X.Outcome(r.outcome).fails]
    fail_kinds = Counter(
        f"{r.outcome}: {r.method.split('(')[0]} {r.ask}" for r in fails
    )
    # A false alarm is a warned call (one query of one cell) whose every
    # resolved answer is within 2% of the truth.
    calls: dict[tuple[str, str, str], list[X.Record]] = defaultdict(list)
    for r in judged:
        if r.outcome == X.Outcome.WARNED.value:
            calls[(r.case, r.method, r.ask)].append(r)
    warned = [rs for rs in calls.values() if all(_resolved(r) for r in rs)]
    false_alarms = [
        rs
        for rs in warned
        if all(
            r.true_error
            <= X.FALSE_ALARM_RTOL * abs(0.5 * (r.truth_lo + r.truth_hi))
            + X.ATOL[X.Ask(r.ask)]
            for r in rs
        )
    ]
    tracked = [
        r
        for r in judged
        if r.estimate is not None
        and math.isfinite(r.value)
        and r.guarantee == "estimate"
        and r.true_error > X.ATOL[X.Ask(r.ask)]
        and r.resolution < r.true_error
    ]
    finite = [r for r in tracked if math.isfinite(r.estimate or math.nan)]
    covered = [r for r in tracked if r.true_error <= 3.0 * (r.estimate or 0.0)]
    within = [r for r in finite if 1 / 3 <= (r.estimate or 0.0) / r.true_error <= 3]
    ratios = [(r.estimate or 0.0) / r.true_error for r in finite]
    by_ask: dict[str, dict[str, Any]] = {}
    for ask in X.Ask:
        sub = [r for r in tracked if r.ask == ask.value]
        if sub:
            by_ask[ask.value] = {
                "answers": len(sub),
                "covered_3x": sum(r.true_error <= 3 * (r.estimate or 0.0) for r in sub)
                / len(sub),
                "median_ratio": statistics.median(
                    [
                        (r.estimate or 0.0) / r.true_error
                        for r in sub
                        if math.isfinite(r.estimate or math.nan)
                    ]
                    or [math.nan]
                ),
            }
    return {
        "answers": len(records),
        "outcomes": dict(outcomes),
        "by_method": {k: dict(v) for k, v in sorted(by_method.items())},
        "fails": len(fails),
        "fails_by_kind": dict(fail_kinds.most_common()),
        "silent_over_5pct": outcomes.get(X.Outcome.SILENT_OFF.value, 0),
        "certified_misses": outcomes.get(X.Outcome.CERTIFIED_MISS.value, 0),
        "unclear_errors": outcomes.get(X.Outcome.UNCLEAR_ERROR.value, 0),
        "false_alarms": {
            "unit": "a warned query call (one query of one cell)",
            "warned_resolved": len(warned),
            "within_2pct": len(false_alarms),
            "share": len(false_alarms) / len(warned) if warned else math.nan,
            "by_method_query": {
                k: [sum(1 for rs in false_alarms if _key(rs) == k), n]
                for k, n in Counter(_key(rs) for rs in warned).most_common()
            },
        },
        "estimates": {
            "tracked_answers": len(tracked),
            "covered_3x_share": len(covered) / len(tracked) if tracked else math.nan,
            "within_3x_either_way_share": len(within) / len(finite)
            if finite
            else math.nan,
            "infinite_estimates": len(tracked) - len(finite),
            "median_ratio": statistics.median(ratios) if ratios else math.nan,
            "by_query": by_ask,
        },
    }


def auto_vs_numerical() -> dict[str, Any]:
    """Wall time of Auto and Numerical on the plain DP-SGD case, with
    dp-accounting's PLD as the peer of the same run."""
    m = M.SubsampledGaussian(sigma=1.0, p=0.01)
    out: dict[str, Any] = {
        "case": "SubsampledGaussian(sigma=1, p=0.01) x1000, eps(1e-5)"
    }
    for name, acc in (("Numerical", A.Numerical), ("Auto", A.Auto)):
        t, eps = _common.timings(
            _common.quiet(lambda a=acc: a().compose(m, n=1000).epsilon(1e-5)), 5
        )
        out[name] = {"eps": float(eps), **t}
    try:
        t, eps = _common.timings(
            lambda: _common.pld_epsilon(1.0, 0.01, 1000, 1e-5, 1e-4), 3
        )
    except ImportError:  # pragma: no cover - optional peer
        t = {}
    if t:
        out["peer"] = {
            "peer": "dp-accounting PLDAccountant (vdi 1e-4)",
            "eps": eps,
            **t,
        }
        for name in ("Numerical", "Auto"):
            out[name]["ratio_to_peer"] = out[name]["median_s"] / t["median_s"]
    out["auto_over_numerical"] = out["Auto"]["median_s"] / out["Numerical"]["median_s"]
    return out


def per_case_auto(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Auto's cell time over Numerical's, per case (compose and every query)."""
    by_case: dict[str, dict[str, float]] = defaultdict(dict)
    for c in cells:
        if c["method"] in ("auto()", "numerical()") and not c["timeout"]:
            by_case[c["case"]][c["method"]] = c["seconds"]
    ratios = [v["auto()"] / v["numerical()"] for v in by_case.values() if len(v) == 2]
    return {
        "cases": len(ratios),
        "median_ratio": statistics.median(ratios) if ratios else math.nan,
        "share_not_slower_1.25x": sum(r <= 1.25 for r in ratios) / len(ratios)
        if ratios
        else math.nan,
        "max_ratio": max(ratios) if ratios else math.nan,
    }


def markdown(
    summary: dict[str, Any], auto: dict[str, Any], fails: list[X.Record]
) -> str:
    s = summary
    est = s["estimates"]
    fa = s["false_alarms"]
    lines = [
        "# Conformance matrix",
        "",
        f"{s['answers']} judged answers over every mechanism family x accountant x "
        "query (`benchmarks/conformance.py`; engine `tests/conformance/matrix.py`).",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| silent answers > 5% off | {s['silent_over_5pct']} | 0 |",
        f"| certified brackets missing an exact value | {s['certified_misses']} | 0 |",
        f"| unclear errors | {s['unclear_errors']} | 0 |",
        f"| false alarms (warned calls, all within 2%) | {fa['within_2pct']} / {fa['warned_resolved']} = {fa['share']:.1%} | < 20% |",  # noqa: E501
        f"| estimates covering the true error (true <= 3 x est.) | {est['covered_3x_share']:.1%} of {est['tracked_answers']} | >= 90% |",  # noqa: E501
        f"| estimates within 3x either way | {est['within_3x_either_way_share']:.1%} (median est./true {est['median_ratio']:.3g}) | |",  # noqa: E501
        "",
        "Estimates by query:",
        "",
        "| query | answers | covered (3x) | median est./true |",
        "|---|---|---|---|",
    ]
    for ask, v in est["by_query"].items():
        lines.append(
            f"| {ask} | {v['answers']} | {v['covered_3x']:.1%} | {v['median_ratio']:.3g} |"  # noqa: E501
        )
    lines += [
        "",
        f"Auto vs Numerical on {auto['case']}: Auto {1e3 * auto['Auto']['median_s']:.1f} ms, "  # noqa: E501
        f"Numerical {1e3 * auto['Numerical']['median_s']:.1f} ms "
        f"(Auto/Numerical {auto['auto_over_numerical']:.2f}"
        + (
            f"; ratios to dp-accounting PLD {auto['Auto']['ratio_to_peer']:.2f} and "
            f"{auto['Numerical']['ratio_to_peer']:.2f})."
            if "peer" in auto
            else ")."
        ),
        f"Per matrix case (compose + all queries): median Auto/Numerical "
        f"{auto['per_case']['median_ratio']:.2f}, not slower than 1.25x in "
        f"{auto['per_case']['share_not_slower_1.25x']:.0%} of {auto['per_case']['cases']} cases, "  # noqa: E501
        f"worst {auto['per_case']['max_ratio']:.2f}.",
        "",
        "False alarms by accountant and query (false alarms / warned calls): "
        + ", ".join(f"{k} {a}/{n}" for k, (a, n) in fa["by_method_query"].items() if a)
        + ".",
        "",
        "Failures by kind: "
        + ", ".join(f"{k}: {v}" for k, v in summary["fails_by_kind"].items()),
        "",
        "| outcome | case | method | query | point | answer | truth |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in fails[:80]:
        lines.append(
            f"| {r.outcome} | {r.case} | {r.method} | {r.ask} | {r.point:.4g} | "
            f"{r.value:.5g} | [{r.truth_lo:.5g}, {r.truth_hi:.5g}] |"
        )
    if len(fails) > 80:
        lines.append(f"| ... {len(fails) - 80} more in conformance.csv | | | | | | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    X.add_case_arguments(parser)
    parser.add_argument("--cell-timeout", type=float, default=20.0)
    parser.add_argument(
        "--methods",
        nargs="+",
        help="only these accountants, by registry name (default: every one)",
    )
    parser.add_argument(
        "--out",
        default="conformance",
        help="stem of the results files in benchmarks/results/",
    )
    args = parser.parse_args()
    t0 = time.perf_counter()
    cases = X.cases_from(args)
    methods = [m for m in X.methods() if not args.methods or m.name in args.methods]
    records, cells = run_matrix(cases, methods, args.cell_timeout)
    summary = summarise(records)
    auto = auto_vs_numerical()
    auto["per_case"] = per_case_auto(cells)
    fails = [r for r in records if X.Outcome(r.outcome).fails]
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{args.out}.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        names = [f.name for f in dataclasses.fields(X.Record)]
        writer.writerow(names)
        for r in records:
            writer.writerow([getattr(r, n) for n in names])
    git = _common.git_state()
    _common.write_json(
        RESULTS / f"{args.out}.json",
        {
            "benchmark": "conformance",
            "args": vars(args),
            "machine": _common.machine(),
            "git": None if git is None else {"commit": git[0], "dirty": git[1]},
            "seconds": time.perf_counter() - t0,
            "cases": len(cases),
            "summary": summary,
            "auto_vs_numerical": auto,
            "timeouts": [c for c in cells if c["timeout"]],
            "fails": [dataclasses.asdict(r) for r in fails],
        },
    )
    (RESULTS / f"{args.out}.md").write_text(markdown(summary, auto, fails))
    print(markdown(summary, auto, fails))


if __name__ == "__main__":
    main()
