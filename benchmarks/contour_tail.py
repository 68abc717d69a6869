"""Benchmark ``A.Contour`` in the tail against Numerical's certified bracket.

Run: ``python benchmarks/contour_tail.py [--quick]`` (writes
``benchmarks/results/contour_tail.json`` and ``contour_tail.md``, rewritten after
every composition so that a long run can be watched).

(a) DP-SGD grid (issue 11, item 2): sigma in {0.6, 1, 2}, p in {1e-3, 1e-2,
    1e-1}, n in {1e3, 1e4, 1e5, 1e6}, add/remove adjacency, delta in {1e-5,
    1e-10, 1e-13}: Contour's eps(delta) and its error estimate, Numerical's
    certified bracket (eps_bounds), whether Contour lies inside it (or within
    1e-3 relative of it), its relative distance to the bracket, and the times of
    one eps(delta) query of Contour and of SaddlePoint(order=2) (median of
    repeats after a warm-up, composed curves) and of Numerical (compose +
    epsilon_bounds at the three deltas, one run). Numerical is skipped where
    its previous call at smaller n took over ``NUMERICAL_BUDGET_S``.
(b) The slides' tail cases (Alghamdi et al. 2022, CF-S2): sigma = 1, p = 0.01,
    n = 2000, eps in {1, 3, 4.27, 5.21}: delta by Contour (with its estimate),
    SaddlePoint(order=2) and Numerical's bracket.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common
import numpy as np

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve import Query

OUT = Path(__file__).resolve().parent / "results" / "contour_tail"
SIGMAS = (0.6, 1.0, 2.0)
PS = (1e-3, 1e-2, 1e-1)
NS = (1_000, 10_000, 100_000, 1_000_000)
DELTAS = (1e-5, 1e-10, 1e-13)
TAIL_EPS = (1.0, 3.0, 4.27, 5.21)
REPEATS = 5
NUMERICAL_BUDGET_S = 300.0
SLACK = 1e-3


def quiet_call(fn: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return fn()


def timed(fn: Any, repeats: int = REPEATS) -> tuple[float, Any]:
    """Median wall time of ``repeats`` calls after a warm-up, and the result."""
    t, out = _common.timings(lambda: quiet_call(fn), repeats, single_after=5.0)
    return t["median_s"], out


def contour_eps(curve: Any, d: float) -> tuple[float, float]:
    """eps(delta) as the max over the pairs, with the error of the pair attaining it."""
    best = (-math.inf, math.inf)
    for found in curve.pair_answers(Query.EPSILON, [d]):
        if found.values[0] > best[0]:
            best = (float(found.values[0]), float(found.errors[0]))
    return best


def relative_distance(value: float, lo: float, hi: float) -> float:
    """0 inside [lo, hi], else the distance to the nearer end over that end."""
    if lo <= value <= hi:
        return 0.0
    end = lo if value < lo else hi
    return abs(value - end) / max(abs(end), 1e-300)


def grid_case(sigma: float, p: float, n: int, numerical_ok: bool) -> dict[str, Any]:
    m = M.SubsampledGaussian(sigma=sigma, p=p)
    rec: dict[str, Any] = {"sigma": sigma, "p": p, "n": n, "rows": []}
    try:
        contour = A.Contour().compose(m, n)
        refusal = None
    except ValueError as exc:
        contour, refusal = None, str(exc)
    saddle = quiet_call(lambda: A.SaddlePoint(order=2).compose(m, n))
    num_rec: dict[str, Any] = {}
    if numerical_ok:
        t0 = time.perf_counter()
        try:
            num = A.Numerical().compose(m, n)
            lo, hi = num.epsilon_bounds(np.array(DELTAS))
            num_rec = {"lo": lo.tolist(), "hi": hi.tolist()}
        except Exception as exc:  # recorded, not fatal
            num_rec = {"error": f"{type(exc).__name__}: {exc}"}
        num_rec["time_s"] = time.perf_counter() - t0
    else:
        num_rec = {"skipped": "a smaller n took over the Numerical budget"}
    rec["numerical"] = num_rec
    for k, d in enumerate(DELTAS):
        row: dict[str, Any] = {"delta": d}
        if contour is None:
            row["contour"] = {"refused": refusal}
        else:
            try:
                t_c, (eps, err) = timed(lambda d=d: contour_eps(contour, d))
                row["contour"] = {"eps": eps, "error": err, "query_s": t_c}
                if not math.isfinite(err):
                    row["contour"]["note"] = (
                        "not converged (an upper bound from the Chernoff end, or "
                        "the last iterate); epsilon() raises here"
                    )
            except Exception as exc:  # recorded, not fatal
                row["contour"] = {"refused": f"{type(exc).__name__}: {exc}"}
        t_s, eps_s = timed(lambda d=d: float(saddle.epsilon(d)))
        row["saddlepoint2"] = {"eps": eps_s, "query_s": t_s}
        if "lo" in num_rec:
            lo, hi = num_rec["lo"][k], num_rec["hi"][k]
            row["numerical"] = {"lo": lo, "hi": hi}
            for name in ("contour", "saddlepoint2"):
                if "eps" in row[name]:
                    dist = relative_distance(row[name]["eps"], lo, hi)
                    row[name]["rel_distance"] = dist
                    row[name]["inside"] = dist <= SLACK
            if "eps" in row["contour"]:
                mid = 0.5 * (lo + hi)
                row["contour"]["true_error_bound"] = max(
                    abs(row["contour"]["eps"] - lo), abs(row["contour"]["eps"] - hi)
                )
                row["contour"]["rel_to_mid"] = abs(row["contour"]["eps"] - mid) / mid
        rec["rows"].append(row)
    return rec


def tail_cases() -> dict[str, Any]:
    m = M.SubsampledGaussian(sigma=1.0, p=0.01)
    eps = np.array(TAIL_EPS)
    contour = A.Contour().compose(m, 2000)
    saddle = quiet_call(lambda: A.SaddlePoint(order=2).compose(m, 2000))
    lo, hi = A.Numerical().compose(m, 2000).delta_bounds(eps)
    rows = []
    for k, e in enumerate(TAIL_EPS):
        arr = np.array([e])
        t_c, d_c = timed(lambda arr=arr: float(contour.delta(arr)[0]))
        answers = contour.pair_answers(Query.DELTA, arr)
        errs = [float(f.errors[0]) for f in answers]
        vals = [float(f.values[0]) for f in answers]
        t_s, d_s = timed(lambda arr=arr: float(saddle.delta(arr)[0]))
        rows.append(
            {
                "eps": e,
                "contour": {
                    "delta": d_c,
                    "error": errs[int(np.argmax(vals))],
                    "query_s": t_c,
                    "inside": bool(lo[k] <= d_c <= hi[k]),
                    "rel_to_mid": abs(d_c / (0.5 * (lo[k] + hi[k])) - 1),
                },
                "saddlepoint2": {
                    "delta": d_s,
                    "query_s": t_s,
                    "rel_to_mid": abs(d_s / (0.5 * (lo[k] + hi[k])) - 1),
                },
                "numerical": {"lo": float(lo[k]), "hi": float(hi[k])},
            }
        )
    return {"sigma": 1.0, "p": 0.01, "n": 2000, "rows": rows}


def fmt(x: Any, spec: str = ".4g") -> str:
    return "-" if x is None else format(x, spec)


def markdown(record: dict[str, Any]) -> str:
    lines = [
        "# Contour in the tail vs Numerical's certified bracket",
        "",
        "Generated by `benchmarks/contour_tail.py` at "
        f"{record['finished'] or record['started']} (commit {record['commit']}, "
        f"dirty={record['dirty']}); times are medians "
        "of repeated queries on composed curves (2-core shared machine).",
        "",
    ]
    tail = record.get("tail")
    if tail:
        lines += [
            "## Slides' tail cases: sigma = 1, p = 0.01, n = 2000",
            "",
            "| eps | Contour delta | est. error | Numerical bracket | inside | "
            "Contour rel. to mid | SaddlePoint(2) rel. to mid | Contour ms | SP2 ms |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in tail["rows"]:
            c, s, nb = r["contour"], r["saddlepoint2"], r["numerical"]
            lines.append(
                f"| {r['eps']} | {c['delta']:.6e} | {c['error']:.1e} | "
                f"[{nb['lo']:.6e}, {nb['hi']:.6e}] | {c['inside']} | "
                f"{c['rel_to_mid']:.2e} | {s['rel_to_mid']:.2e} | "
                f"{1e3 * c['query_s']:.2f} | {1e3 * s['query_s']:.2f} |"
            )
        lines.append("")
    lines += [
        "## DP-SGD grid (add/remove adjacency): eps(delta)",
        "",
        "| sigma | p | n | delta | Contour eps | est. error | Numerical bracket | "
        "inside (1e-3) | rel. distance | SP2 rel. distance | Contour ms | SP2 ms | "
        "Numerical s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case in record["grid"]:
        num = case["numerical"]
        for r in case["rows"]:
            c, s = r["contour"], r["saddlepoint2"]
            nb = r.get("numerical")
            bracket = (
                f"[{nb['lo']:.6g}, {nb['hi']:.6g}]"
                if nb
                else ("skipped" if "skipped" in num else num.get("error", "-"))
            )
            if "refused" in c:
                c_eps, c_err, c_in, c_dist, c_ms = "refused", "-", "-", "-", "-"
            else:
                c_eps, c_err = f"{c['eps']:.6g}", f"{c['error']:.1e}"
                c_in = str(c.get("inside", "-"))
                c_dist = fmt(c.get("rel_distance"), ".1e")
                c_ms = f"{1e3 * c['query_s']:.1f}"
            lines.append(
                f"| {case['sigma']} | {case['p']} | {case['n']} | {r['delta']:g} | "
                f"{c_eps} | {c_err} | {bracket} | {c_in} | {c_dist} | "
                f"{fmt(s.get('rel_distance'), '.1e')} | {c_ms} | "
                f"{1e3 * s['query_s']:.1f} | {fmt(num.get('time_s'), '.2f')} |"
            )
    summary = record.get("summary")
    if summary:
        lines += ["", "## Summary", ""]
        lines += [f"- {k}: {v}" for k, v in summary.items()]
    return "\n".join(lines) + "\n"


def summarize(record: dict[str, Any]) -> dict[str, Any]:
    rows = [r for case in record["grid"] for r in case["rows"]]
    served = [r for r in rows if "eps" in r["contour"]]
    checked = [r for r in served if "inside" in r["contour"]]
    ratios = [
        r["contour"]["query_s"] / r["saddlepoint2"]["query_s"]
        for r in served
        if r["saddlepoint2"]["query_s"] > 0
    ]
    return {
        "cells": len(rows),
        "served by Contour": len(served),
        "refused by Contour": len(rows) - len(served),
        "checked against Numerical": len(checked),
        "inside (or within 1e-3 of) the bracket": sum(
            r["contour"]["inside"] for r in checked
        ),
        "largest relative distance to the bracket": max(
            (r["contour"]["rel_distance"] for r in checked), default=None
        ),
        "largest estimated relative error": max(
            (r["contour"]["error"] / r["contour"]["eps"] for r in served), default=None
        ),
        "median query time ratio Contour / SaddlePoint(2)": (
            float(np.median(ratios)) if ratios else None
        ),
        "max query time ratio Contour / SaddlePoint(2)": (
            float(np.max(ratios)) if ratios else None
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="n <= 1e4 only")
    args = parser.parse_args()
    git = _common.git_state()
    record: dict[str, Any] = {
        "benchmark": "contour_tail",
        "started": datetime.now(timezone.utc).isoformat(),
        "finished": None,
        "commit": git[0] if git else None,
        "dirty": git[1] if git else None,
        "machine": _common.machine(),
        "grid": [],
    }

    def save() -> None:
        _common.write_json(OUT.with_suffix(".json"), record)
        OUT.with_suffix(".md").write_text(markdown(record))

    record["tail"] = tail_cases()
    save()
    ns = NS[:2] if args.quick else NS
    for sigma in SIGMAS:
        for p in PS:
            numerical_ok = True
            for n in ns:
                case = grid_case(sigma, p, n, numerical_ok)
                record["grid"].append(case)
                if case["numerical"].get("time_s", 0.0) > NUMERICAL_BUDGET_S:
                    numerical_ok = False
                record["summary"] = summarize(record)
                save()
                print(
                    json.dumps({k: case[k] for k in ("sigma", "p", "n")}),
                    file=sys.stderr,
                )
    record["finished"] = datetime.now(timezone.utc).isoformat()
    record["summary"] = summarize(record)
    save()
    print(json.dumps(record["summary"], indent=2))


if __name__ == "__main__":
    main()
