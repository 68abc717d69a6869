"""Silent errors and informative estimates: the analytic accountants on a random
sweep of compositions, against the certified ``A.Numerical`` bracket.

Run: ``python benchmarks/error_sweep.py [--cases N] [--seed S] [--jobs K]``.
Two phases, so that the expensive reference is computed once:

1. *truth*: for each random case, ``A.Numerical(delta_ref=delta).compose(...)
   .epsilon_bounds(delta)`` in a worker process with a time limit
   (``--timeout``, default 60 s; cases beyond it are recorded as skipped; the
   references of cases 0-1499 were computed with the default ``delta_ref``). Cached in
   ``benchmarks/results/error_sweep_truth.jsonl`` (one line per case, keyed by
   the case), so a re-run only computes new cases.
2. *methods*: every analytic method answers ``epsilon(delta)`` with its error
   estimate ``curve.epsilon_error(delta)``; every ``ApproximationWarning`` of
   ``compose`` and ``epsilon`` is recorded.

Cases (seeded): 1-5 kinds of mechanism, each a Poisson-subsampled Gaussian
(sigma log-uniform in [0.3, 100], p log-uniform in [1e-7, 1]), a plain Gaussian
or a (subsampled) Laplace, with its own count; the total number of steps
log-uniform in [1, 1e7]; delta log-uniform in [1e-15, 0.5]; add/remove adjacency
(add-or-remove, the default).

Measures, per method, over the cases whose bracket is resolved (relative width
< 1e-2 and a reference eps > 1e-6):

* *silent misses*: relative error ``|eps/eps_ref - 1| > 10%`` without any
  ApproximationWarning; and *anti-conservative silent misses*: ``eps <
  eps_lo`` by more than 5% without a warning;
* *informativeness* of the estimate over the cases where the true error is
  resolved (``|eps - eps_ref| > 2 x`` the bracket half-width): the share with
  ``true error <= 3 x estimate`` and the median of ``estimate / true error``
  over the finite estimates; an infinite estimate (the method declares it
  cannot tell, and warns) counts as covering, and the number of them is
  reported next to the share.

Writes ``benchmarks/results/error_sweep.csv`` (one row per case x method),
``error_sweep.json`` (the summary with the commit) and ``error_sweep.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import multiprocessing as mp
import signal
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

import _common
import numpy as np

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M

RESULTS = Path(__file__).resolve().parent / "results"
TRUTH = RESULTS / "error_sweep_truth.jsonl"
#: The analytic methods measured (name -> accountant factory).
METHODS = {
    "CLT": lambda: A.CLT(),
    "Edgeworth(2)": lambda: A.Edgeworth(order=2),
    "Edgeworth(4)": lambda: A.Edgeworth(order=4),
    "SaddlePoint(2)": lambda: A.SaddlePoint(order=2),
    "SaddlePoint(3)": lambda: A.SaddlePoint(order=3),
    "Contour": lambda: A.Contour(),
    "Auto(1e-2)": lambda: A.Auto(rel_tol=1e-2),
}
RESOLVED_WIDTH = 1e-2


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def make_case(rng: np.random.Generator, index: int) -> dict[str, Any]:
    """One random case as plain data (see the module docstring)."""
    kinds = int(rng.integers(1, 6))
    total = max(1, round(_log_uniform(rng, 1.0, 1e7)))
    weights = rng.dirichlet(np.ones(kinds))
    parts = []
    for k in range(kinds):
        u = rng.uniform()
        count = max(1, round(total * float(weights[k])))
        if u < 0.7:
            parts.append(
                {
                    "kind": "subsampled-gaussian",
                    "sigma": _log_uniform(rng, 0.3, 100.0),
                    "p": _log_uniform(rng, 1e-7, 1.0),
                    "n": count,
                }
            )
        elif u < 0.8:
            parts.append(
                {"kind": "gaussian", "sigma": _log_uniform(rng, 0.3, 100.0), "n": count}
            )
        elif u < 0.9:
            parts.append(
                {
                    "kind": "laplace",
                    "mu": 1.0 / _log_uniform(rng, 0.3, 100.0),
                    "n": count,
                }
            )
        else:
            parts.append(
                {
                    "kind": "subsampled-laplace",
                    "mu": 1.0 / _log_uniform(rng, 0.3, 100.0),
                    "p": _log_uniform(rng, 1e-7, 1.0),
                    "n": count,
                }
            )
    return {"id": index, "parts": parts, "delta": _log_uniform(rng, 1e-15, 0.5)}


def composition(case: dict[str, Any]) -> list[tuple[Any, int]]:
    out = []
    for part in case["parts"]:
        kind = part["kind"]
        if kind == "subsampled-gaussian":
            m = M.SubsampledGaussian(sigma=part["sigma"], p=part["p"])
        elif kind == "gaussian":
            m = M.Gaussian(sigma=part["sigma"])
        elif kind == "laplace":
            m = M.Laplace(mu=part["mu"])
        else:
            m = M.SubsampledLaplace(mu=part["mu"], p=part["p"])
        out.append((m, int(part["n"])))
    return out


def _key(case: dict[str, Any]) -> str:
    return json.dumps({"parts": case["parts"], "delta": case["delta"]}, sort_keys=True)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def truth_of(args: tuple[dict[str, Any], int]) -> dict[str, Any]:
    """Numerical's bracket for one case, within ``timeout`` seconds."""
    case, timeout = args
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    start = time.perf_counter()
    row: dict[str, Any] = {"key": _key(case)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            curve = A.Numerical(max_fft_size=2**25, delta_ref=case["delta"]).compose(
                composition(case)
            )
            lo, hi = curve.epsilon_bounds(case["delta"])
        row.update(lo=float(lo), hi=float(hi))
    except _Timeout:
        row["skipped"] = f"Numerical took more than {timeout} s"
    except Exception as exc:  # recorded, the sweep goes on
        row["skipped"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    finally:
        signal.alarm(0)
    row["seconds"] = time.perf_counter() - start
    return row


def load_truth() -> dict[str, dict[str, Any]]:
    if not TRUTH.exists():
        return {}
    out = {}
    for line in TRUTH.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["key"]] = row
    return out


def compute_truth(cases: list[dict[str, Any]], jobs: int, timeout: int) -> None:
    known = load_truth()
    todo = [c for c in cases if _key(c) not in known]
    print(f"truth: {len(cases) - len(todo)} cached, {len(todo)} to compute", flush=True)
    RESULTS.mkdir(exist_ok=True)
    with (
        mp.get_context("fork").Pool(jobs, maxtasksperchild=20) as pool,
        TRUTH.open("a") as fh,
    ):
        for k, row in enumerate(
            pool.imap_unordered(truth_of, [(c, timeout) for c in todo]), 1
        ):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            if k % 25 == 0:
                print(f"truth: {k}/{len(todo)}", flush=True)


def run_method(name: str, case: dict[str, Any], timeout: int) -> dict[str, Any]:
    """``epsilon(delta)``, its estimate and the warnings of one method (within
    ``timeout`` seconds; beyond, the row records the time-out)."""
    out: dict[str, Any] = {"method": name}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            curve = METHODS[name]().compose(composition(case))
            out["eps"] = float(curve.epsilon(case["delta"]))
            out["estimate"] = math.inf  # until the method gives one
            out["estimate"] = float(curve.epsilon_error(case["delta"]))
            if name.startswith("Auto"):
                out["answered_by"] = curve.last_answer.summary()
        except (ValueError, NotImplementedError, FloatingPointError) as exc:
            out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        except _Timeout:
            out.pop("eps", None)
            out["error"] = f"time-out after {timeout} s"
        finally:
            signal.alarm(0)
        out["seconds"] = time.perf_counter() - start
    approx = [w for w in caught if issubclass(w.category, ApproximationWarning)]
    out["warned"] = bool(approx) or "error" in out
    out["warning"] = str(approx[0].message)[:160] if approx else ""
    return out


def rows_of(args: tuple[dict[str, Any], dict[str, Any], list[str], int]) -> list[dict]:
    """Every method's row for one case with its reference ``ref``."""
    case, ref, methods, timeout = args
    lo, hi = ref["lo"], ref["hi"]
    mid = 0.5 * (lo + hi)
    rows = []
    for name in methods:
        row = run_method(name, case, timeout)
        row.update(id=case["id"], delta=case["delta"], lo=lo, hi=hi)
        row["kinds"] = len(case["parts"])
        row["n"] = sum(p["n"] for p in case["parts"])
        if "eps" in row:
            row["half_width"] = 0.5 * (hi - lo)
            row["true_err"] = abs(row["eps"] - mid)
            row["rel_err"] = row["eps"] / mid - 1 if mid > 0 else math.nan
            row["resolved"] = mid > 1e-6 and (hi - lo) < RESOLVED_WIDTH * mid
        rows.append(row)
    return rows


def summarise(rows: list[dict[str, Any]], methods: list[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for name in methods:
        mine = [r for r in rows if r["method"] == name and "eps" in r]
        resolved = [r for r in mine if r["resolved"]]
        silent10 = [r for r in resolved if abs(r["rel_err"]) > 0.10 and not r["warned"]]
        silent_anti = [
            r for r in resolved if r["eps"] < r["lo"] * (1 - 0.05) and not r["warned"]
        ]
        informative = [r for r in resolved if r["true_err"] > 2 * r["half_width"]]
        covered = [r for r in informative if r["true_err"] <= 3 * r["estimate"]]
        ratios = [
            r["estimate"] / r["true_err"]
            for r in informative
            if math.isfinite(r["estimate"])
        ]
        summary[name] = {
            "answered": len(mine),
            "refused": sum(1 for r in rows if r["method"] == name and "error" in r),
            "resolved": len(resolved),
            "off_by_more_than_10pct": sum(
                1 for r in resolved if abs(r["rel_err"]) > 0.1
            ),
            "silent_over_10pct": len(silent10),
            "silent_anticonservative_over_5pct": len(silent_anti),
            "warned": sum(1 for r in resolved if r["warned"]),
            "estimate_cases": len(informative),
            "share_true_le_3x_estimate": (
                len(covered) / len(informative) if informative else None
            ),
            "median_estimate_over_true": statistics.median(ratios) if ratios else None,
            "infinite_estimates": sum(
                1 for r in informative if not math.isfinite(r["estimate"])
            ),
            "median_seconds": statistics.median([r["seconds"] for r in mine])
            if mine
            else None,
            "examples_silent": [
                {k: r[k] for k in ("id", "eps", "lo", "hi", "estimate")}
                for r in silent10[:5]
            ],
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--truth-only", action="store_true")
    parser.add_argument(
        "--truth-from",
        type=int,
        default=0,
        help="compute the reference only for cases from this index on",
    )
    parser.add_argument("--methods", nargs="*", default=list(METHODS))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    cases = [make_case(rng, k) for k in range(args.cases)]
    compute_truth(cases[args.truth_from :], args.jobs, args.timeout)
    if args.truth_only:
        return
    truth = load_truth()
    todo = [
        (case, truth[_key(case)], args.methods, args.timeout)
        for case in cases
        if "lo" in truth.get(_key(case), {})
    ]
    skipped = len(cases) - len(todo)
    rows: list[dict[str, Any]] = []
    with mp.get_context("fork").Pool(args.jobs, maxtasksperchild=50) as pool:
        for k, case_rows in enumerate(pool.imap(rows_of, todo), 1):
            rows.extend(case_rows)
            if k % 100 == 0:
                print(f"methods: {k}/{len(todo)}", flush=True)
    summary = summarise(rows, args.methods)
    fields = sorted({key for r in rows for key in r})
    with (RESULTS / "error_sweep.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    record = {
        "benchmark": "error_sweep",
        "cases": args.cases,
        "seed": args.seed,
        "reference_skipped": skipped,
        "summary": summary,
        "git": _common.git_state(),
        "machine": _common.machine(),
    }
    (RESULTS / "error_sweep.json").write_text(json.dumps(record, indent=1) + "\n")
    lines = [
        "# Error sweep: analytic accountants vs Numerical's certified bracket",
        "",
        f"{args.cases} random cases (seed {args.seed}); {skipped} without a "
        "reference (Numerical over the time limit or refusing).",
        "",
        "| method | answered | refused | resolved | warned | off >10% | silent >10% "
        "| silent anti-cons. >5% | share true <= 3x est. | median est./true "
        "| infinite est. |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        share = s["share_true_le_3x_estimate"]
        med = s["median_estimate_over_true"]
        lines.append(
            f"| {name} | {s['answered']} | {s['refused']} | {s['resolved']} | "
            f"{s['warned']} | {s['off_by_more_than_10pct']} | "
            f"{s['silent_over_10pct']} | "
            f"{s['silent_anticonservative_over_5pct']} | "
            f"{'-' if share is None else f'{share:.3f}'} "
            f"({s['estimate_cases']}) | {'-' if med is None else f'{med:.3g}'} | "
            f"{s['infinite_estimates']} |"
        )
    (RESULTS / "error_sweep.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
