"""Auto against the certified accountant it falls back to, over the conformance
matrix's cases (``tests/conformance/matrix.py``).

Run: ``python benchmarks/auto_vs_numerical.py [--us 0.5] [--ns 1 10 1000]
[--adjacencies add_or_remove replace_one] [--repeats 3] [--timeout 60]
[--families NAME ...] [--out STEM]``.

For every case of the matrix (:func:`family_cases` and :func:`issue_cases`) the
same run times ``compose`` plus every query of the matrix (delta(eps),
eps(delta), trade-off f(alpha), ReRo gamma, mu*, at the matrix's
:class:`Grid` points) once with ``A.Auto()`` and once with ``A.Numerical()``,
each the best (minimum) of ``--repeats`` runs, and judges every answer of each
against the certified truth (:func:`truth_for`: Numerical's bracket, or the
exact value where the matrix has one). Reports:

* the ratio Auto / Numerical of the best times per case: median, share of
  cases not slower than 1.25x, the worst case;
* Auto's answers farther than its ``rel_tol`` (1%) from the truth bracket
  (beyond the query's absolute slack ``ATOL``) without an
  ``ApproximationWarning`` (its promise: within tolerance or warned), and the
  same count at 5% for Numerical and Auto;
* who answered (``AutoCurve.last_answer``) for the plain DP-SGD case.

A run longer than ``--timeout`` seconds is recorded as a timeout (its ratio
then uses the timeout as a lower bound of the time). Writes
``benchmarks/results/<out>.json`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import math
import signal
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import _common

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from symfdp import ApproximationWarning  # noqa: E402
from symfdp import accountants as A  # noqa: E402
from tests.conformance import matrix as X  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: Auto's tolerance (its default).
REL_TOL = 1e-2
#: A case is "not slower" when Auto takes at most this times Numerical's time.
NOT_SLOWER = 1.25


class RunTimeout(BaseException):
    """A run exceeded ``--timeout`` (a BaseException: no accountant catches it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise RunTimeout


def run_once(
    make: type[A.Accountant], case: X.Case, truth: X.Truth
) -> tuple[float, list[dict[str, Any]], str]:
    """Seconds of compose plus every query, the answers (value, warned or
    refused per query) and who answered eps(1e-5)-like queries last (Auto)."""
    answers: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ApproximationWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            curve = make().compose(case.mechanism, n=case.n, adjacency=case.adjacency)
        except (ValueError, TypeError, NotImplementedError) as ex:
            return time.perf_counter() - t0, [], f"refused: {type(ex).__name__}"
        warned0 = bool(caught)
        for ask, points in truth.points.items():
            if points.size == 0:
                continue
            n_before = len(caught)
            try:
                values, _ = X._curve_answers(curve, ask, points)
            except (ValueError, TypeError, NotImplementedError) as ex:
                answers.append({"ask": ask, "refused": f"{type(ex).__name__}: {ex}"})
                continue
            warned = warned0 or any(
                issubclass(w.category, ApproximationWarning) for w in caught[n_before:]
            )
            answers.append({"ask": ask, "values": values, "warned": warned})
    seconds = time.perf_counter() - t0
    last = getattr(curve, "last_answer", None)
    who = "" if last is None else last.summary()
    return seconds, answers, who


def best_of(
    make: type[A.Accountant], case: X.Case, truth: X.Truth, repeats: int, timeout: float
) -> dict[str, Any]:
    """The minimum time over ``repeats`` runs and the last run's answers."""
    times: list[float] = []
    answers: list[dict[str, Any]] = []
    who = ""
    for _ in range(repeats):
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            seconds, answers, who = run_once(make, case, truth)
        except RunTimeout:
            return {"seconds": timeout, "timeout": True, "answers": [], "who": ""}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        times.append(seconds)
    return {"seconds": min(times), "timeout": False, "answers": answers, "who": who}


def judged(answers: list[dict[str, Any]], truth: X.Truth) -> list[dict[str, Any]]:
    """Each answer's relative distance to the truth bracket (0 inside it,
    beyond the query's absolute slack), with its warned flag."""
    out = []
    for a in answers:
        ask = a["ask"]
        if "refused" in a or ask not in truth.lo:
            continue
        for i, x in enumerate(truth.points[ask]):
            lo, hi = float(truth.lo[ask][i]), float(truth.hi[ask][i])
            if not (math.isfinite(lo) and math.isfinite(hi)):
                continue
            v = float(a["values"][i])
            mid = 0.5 * (lo + hi)
            outside = max(v - hi, lo - v, 0.0) if math.isfinite(v) else math.inf
            beyond = max(outside - X.ATOL[ask], 0.0)
            rel = beyond / abs(mid) if mid else (math.inf if beyond else 0.0)
            out.append(
                {
                    "ask": ask.value,
                    "point": float(x),
                    "value": v,
                    "truth": [lo, hi],
                    "rel_error": rel,
                    "warned": bool(a["warned"]),
                }
            )
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    cases = X.cases_from(args)
    signal.signal(signal.SIGALRM, _alarm)
    rows: list[dict[str, Any]] = []
    for case in cases:
        if isinstance(case.mechanism, X.BuildFailure):
            continue
        signal.setitimer(signal.ITIMER_REAL, 3 * args.timeout)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                truth = X.truth_for(case, X.Grid())
        except RunTimeout:
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if truth.error is not None and not truth.lo:
            continue
        row: dict[str, Any] = {"case": case.label, "family": case.family}
        for name, make in (("Numerical", A.Numerical), ("Auto", A.Auto)):
            res = best_of(make, case, truth, args.repeats, args.timeout)
            row[name] = {
                "seconds": res["seconds"],
                "timeout": res["timeout"],
                "answers": judged(res["answers"], truth),
            }
            if name == "Auto":
                row[name]["last_answered_by"] = res["who"]
        row["ratio"] = row["Auto"]["seconds"] / row["Numerical"]["seconds"]
        rows.append(row)
        print(
            f"{row['ratio']:6.2f}  A {1e3 * row['Auto']['seconds']:8.1f} ms"
            f"  N {1e3 * row['Numerical']['seconds']:8.1f} ms  {case.label[:90]}",
            flush=True,
        )
    return {"rows": rows, "summary": summarise(rows)}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in rows]
    worst = max(rows, key=lambda r: r["ratio"]) if rows else None

    def beyond(name: str, tol: float) -> list[dict[str, Any]]:
        return [
            {"case": r["case"], **a}
            for r in rows
            for a in r[name]["answers"]
            if a["rel_error"] > tol and not a["warned"]
        ]

    auto_silent = beyond("Auto", REL_TOL)
    return {
        "cases": len(rows),
        "median_ratio": statistics.median(ratios) if ratios else math.nan,
        "share_not_slower_1.25x": (
            sum(r <= NOT_SLOWER for r in ratios) / len(ratios) if ratios else math.nan
        ),
        "worst_ratio": None if worst is None else worst["ratio"],
        "worst_case": None if worst is None else worst["case"],
        "total_seconds": {
            name: sum(r[name]["seconds"] for r in rows)
            for name in ("Auto", "Numerical")
        },
        "timeouts": {
            name: sum(r[name]["timeout"] for r in rows)
            for name in ("Auto", "Numerical")
        },
        "answers": {
            name: sum(len(r[name]["answers"]) for r in rows)
            for name in ("Auto", "Numerical")
        },
        "auto_beyond_rel_tol_silent": len(auto_silent),
        "auto_beyond_rel_tol_silent_list": auto_silent,
        "auto_beyond_5pct_silent": len(beyond("Auto", 0.05)),
        "numerical_beyond_5pct_silent": len(beyond("Numerical", 0.05)),
        "auto_warned": sum(a["warned"] for r in rows for a in r["Auto"]["answers"]),
        "slowest_ratios": [
            {"case": r["case"], "ratio": r["ratio"]}
            for r in sorted(rows, key=lambda r: -r["ratio"])[:10]
        ],
    }


def markdown(summary: dict[str, Any], args: argparse.Namespace) -> str:
    s = summary
    lines = [
        "# Auto vs Numerical over the conformance matrix's cases",
        "",
        f"Cases: {s['cases']} (us {args.us}, ns {args.ns}, relations "
        f"{args.adjacencies}, plus the issue cases); compose + every query, best of "
        f"{args.repeats}.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| median Auto / Numerical time | {s['median_ratio']:.2f} |",
        f"| cases not slower than {NOT_SLOWER}x | "
        f"{100 * s['share_not_slower_1.25x']:.0f}% |",
        f"| worst ratio | {s['worst_ratio']:.2f} ({s['worst_case']}) |",
        f"| total seconds Auto / Numerical | {s['total_seconds']['Auto']:.1f} / "
        f"{s['total_seconds']['Numerical']:.1f} |",
        f"| Auto answers beyond rel_tol {REL_TOL:g} without a warning | "
        f"{s['auto_beyond_rel_tol_silent']} of {s['answers']['Auto']} |",
        f"| ... beyond 5% without a warning (Auto / Numerical) | "
        f"{s['auto_beyond_5pct_silent']} / {s['numerical_beyond_5pct_silent']} |",
        f"| Auto answers warned | {s['auto_warned']} |",
        "",
        "Slowest ratios:",
        "",
    ]
    lines += [f"- {r['ratio']:.2f}  {r['case']}" for r in s["slowest_ratios"]]
    if s["auto_beyond_rel_tol_silent_list"]:
        lines += ["", "Auto beyond rel_tol without a warning:", ""]
        lines += [
            f"- {a['case']}: {a['ask']} at {a['point']:.4g}: {a['value']:.6g} "
            f"vs [{a['truth'][0]:.6g}, {a['truth'][1]:.6g}] "
            f"({100 * a['rel_error']:.2f}%)"
            for a in s["auto_beyond_rel_tol_silent_list"]
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    X.add_case_arguments(parser)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--out", default="auto_vs_numerical")
    args = parser.parse_args()
    t0 = time.perf_counter()
    result = run(args)
    git = _common.git_state()
    _common.write_json(
        RESULTS / f"{args.out}.json",
        {
            "benchmark": "auto_vs_numerical",
            "args": vars(args),
            "machine": _common.machine(),
            "git": None if git is None else {"commit": git[0], "dirty": git[1]},
            "seconds": time.perf_counter() - t0,
            "summary": result["summary"],
            "cases": [
                {
                    "case": r["case"],
                    "ratio": r["ratio"],
                    "auto_s": r["Auto"]["seconds"],
                    "numerical_s": r["Numerical"]["seconds"],
                    "auto_timeout": r["Auto"]["timeout"],
                    "numerical_timeout": r["Numerical"]["timeout"],
                    "auto_last_answered_by": r["Auto"]["last_answered_by"],
                    "auto_max_rel_error": max(
                        (a["rel_error"] for a in r["Auto"]["answers"]), default=None
                    ),
                    "numerical_max_rel_error": max(
                        (a["rel_error"] for a in r["Numerical"]["answers"]),
                        default=None,
                    ),
                }
                for r in result["rows"]
            ],
        },
    )
    text = markdown(result["summary"], args)
    (RESULTS / f"{args.out}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
