"""The analytic accountants side by side with dp-accounting and prv-accountant.

Run: ``python benchmarks/bench_analytic.py [--out PATH] [--quick]`` (writes
``benchmarks/results/analytic.json`` and ``analytic.md``; the git commit of the
checkout is recorded). One run, one machine, everything measured together.

(1) Build + compose + eps(1e-5) of DP-SGD (sigma = 1, p = 0.01, add/remove
    adjacency), n = 1e3 and 1e4: ``A.CLT()``, ``A.Edgeworth(order=2)``,
    ``A.Edgeworth(order=4)``, ``A.SaddlePoint(order=2)``,
    ``A.SaddlePoint(order=4)`` (no floor of its own: compare with order 2's),
    ``A.Contour()``
    through the public API (accountant and mechanism built inside the timed
    call); dp-accounting's
    ``PLDAccountant`` (value_discretization_interval 1e-3) and ``RdpAccountant``,
    prv-accountant's ``PRVAccountant`` (eps_error 1e-2, delta_error 1e-10);
    the PLD time, the denominator of the ratios, is the minimum of 15 runs.
    Caches are warm for everyone (one untimed call first; symfdp's per-mechanism
    cumulants and the disk-cached SymPy derivations are then in memory). Each
    answer is compared with the midpoint of ``A.Numerical()``'s certified
    bracket; the analytic curves also report their own error estimate
    (the pairs' epsilon answers, the pair attaining the maximum).
(2) Queries on a composed curve (n = 1e3 and 1e4), each timed call at a point
    other than the last (a curve keeps its last answer per query; the points
    alternate with a copy scaled by 1 + 1e-12): eps(1e-5), delta(1.0), delta
    on 1000 points (eps in [0.1, 5]), the symmetrised trade-off on 1000 alphas,
    and the pairs' ``answer(Query.EPSILON, [1e-5])`` (what the public layer adds per
    query), next to the floors of ``_floors.py`` (Edgeworth orders 2 and 4,
    saddle point order 2; their per-curve set-up is timed separately). The
    first eps(1e-5) on a freshly composed curve (compose + query minus compose)
    is recorded too: per-curve lazy work (the monotonicity check grid) is paid
    there. Contour's queries are also given as multiples of SaddlePoint(2)'s
    (target 5), and the saddle-point floor's own set-up + eps(1e-5) beside the
    PLD time of (1): what 100x PLD would leave for a build.

Times: minimum over repeats (timeit's estimator of the intrinsic cost on a
shared machine) with the median beside it; the garbage collector is paused while
timing. The load average before and after is recorded: on a loaded machine the
medians drift, the minima much less. Ratios are reported with their targets,
never as pass/fail on time alone; accuracy is reported next to every time.
"""

from __future__ import annotations

import argparse
import os
import platform
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _common
import _floors
import numpy as np

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants.base import normalize_composition, pair_compositions
from symfdp.curve import Query

OUT = Path(__file__).resolve().parent / "results" / "analytic.json"
SIGMA, P, DELTA = 1.0, 0.01, 1e-5
NS = (1_000, 10_000)
EPS_1000 = np.linspace(0.1, 5.0, 1000)
ALPHA_1000 = np.linspace(0.0, 1.0, 1000)
METHODS: dict[str, Callable[[], A.Accountant]] = {
    "CLT": lambda: A.CLT(),
    "Edgeworth(2)": lambda: A.Edgeworth(order=2),
    "Edgeworth(4)": lambda: A.Edgeworth(order=4),
    "SaddlePoint(2)": lambda: A.SaddlePoint(order=2),
    "SaddlePoint(4)": lambda: A.SaddlePoint(order=4),
    "Contour": lambda: A.Contour(),
}
#: Repeats relative to the fast methods' (the slower methods' minima settle
#: sooner in absolute terms; the machine is shared).
SLOW = {"SaddlePoint(2)": 5, "SaddlePoint(4)": 5, "Contour": 5}
#: Methods whose delta on 1000 eps and trade-off are not timed: Contour takes
#: one contour integral per point (34 s for 1000 eps at n = 1e3 on the loaded
#: machine, 2.7 s at n = 1e4).
DENSE_SKIPPED = {"Contour"}
FLOOR_ORDER = {"Edgeworth(2)": 2, "Edgeworth(4)": 4}
#: Repeats of dp-accounting's PLD accountant in the build section.
PLD_REPEATS = 15


def timed(fn: Callable[[], Any], repeats: int) -> tuple[dict[str, Any], Any]:
    return _common.timings(_common.quiet(fn), repeats, pause_gc=True)


def _alternating(
    query: Callable[..., Any], points: Any, factor: float = 1.0 + 1e-12
) -> Callable[[], Any]:
    """``query`` at ``points`` and at ``points * factor`` in turn: a curve keeps
    the last answer per query, so a repeated point would time a lookup."""
    pair = (points, np.asarray(points) * factor)
    state = [0]

    def call() -> Any:
        state[0] ^= 1
        return query(pair[state[0]] if np.ndim(points) else float(pair[state[0]]))

    return call


def mechanism() -> M.SubsampledGaussian:
    return M.SubsampledGaussian(sigma=SIGMA, p=P)


def estimate(curve: Any, delta: float) -> float:
    """The error estimate of the pair that attains eps(delta) (nan if none)."""
    if not curve.estimates_error:
        return float("nan")
    best, err = -np.inf, np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        answers = curve.pair_answers(Query.EPSILON, [delta])
    for found in answers:
        if float(found.values[0]) > best:
            best, err = float(found.values[0]), float(found.errors[0])
    return err


def accuracy(eps: float, lo: float, hi: float) -> dict[str, Any]:
    mid = 0.5 * (lo + hi)
    return {
        "rel_error_vs_bracket_mid": eps / mid - 1.0,
        "inside_bracket": bool(lo <= eps <= hi),
    }


# ----------------------------------------------------------------- (1)
def build_section(n: int, repeats: int) -> dict[str, Any]:
    lo, hi = A.Numerical().compose(mechanism(), n).epsilon_bounds(DELTA)
    lo, hi = float(lo), float(hi)
    rows: dict[str, Any] = {}
    for name, make in METHODS.items():
        reps = max(3, repeats // SLOW.get(name, 1))
        t, eps = timed(
            lambda make=make: float(make().compose(mechanism(), n).epsilon(DELTA)), reps
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            est = estimate(make().compose(mechanism(), n), DELTA)
        rows[name] = {"eps": eps, "error_estimate": est, **accuracy(eps, lo, hi), **t}
    # The PLD time is the denominator of every build ratio: its minimum is
    # taken over PLD_REPEATS runs (not 3), as robust as the analytic methods'.
    pld = _common.pld_record(
        lambda fn, reps: timed(fn, max(reps, PLD_REPEATS)), SIGMA, P, n, DELTA, 1e-3
    )
    rdp_t, rdp_eps = timed(lambda: _common.rdp_epsilon(SIGMA, P, n, DELTA), 3)
    prv = _common.prv_record(timed, SIGMA, P, n, DELTA, 1e-2, 1e-10)
    peers = {
        "dp-accounting PLD (vdi 1e-3)": {**pld, **accuracy(pld["eps"], lo, hi)},
        "dp-accounting RDP": {"eps": rdp_eps, **rdp_t, **accuracy(rdp_eps, lo, hi)},
        "prv-accountant (eps_error 1e-2)": {**prv, **accuracy(prv["eps"], lo, hi)},
    }
    for row in rows.values():
        for key in ("min_s", "median_s"):
            row[f"pld_over_this_{key[:-2]}"] = pld[key] / row[key]
    return {
        "n": n,
        "delta": DELTA,
        "numerical_certified_bracket": [lo, hi],
        "methods": rows,
        "peers": peers,
        "target_pld_over_this": 100.0,
    }


# ----------------------------------------------------------------- (2)
def floor_for(name: str, n: int) -> tuple[Any, dict[str, Any]] | None:
    if name in FLOOR_ORDER:
        order = FLOOR_ORDER[name]
        dirs = pair_compositions(normalize_composition(mechanism(), n))

        def setup() -> Any:
            cums = [
                (
                    summed_cumulants(d, order + 2, "Q"),
                    summed_cumulants(d, order + 2, "P"),
                )
                for d in dirs
            ]
            return _floors.EdgeworthFloor(cums, order)

    elif name == "SaddlePoint(2)":

        def setup() -> Any:
            return _floors.SaddlePointFloor(SIGMA, P, n, points=201)

    else:
        return None
    t, floor = timed(setup, 20)
    return floor, t


def query_section(n: int, repeats: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    d1 = np.array([DELTA])
    for name, make in METHODS.items():
        reps = max(3, repeats // SLOW.get(name, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            curve = make().compose(mechanism(), n)
        row: dict[str, Any] = {}
        # Each timed call asks a point other than the last (the curve keeps its
        # last answer per query): the cost of computing an answer.
        row["eps_1e-5"], eps = timed(
            _alternating(lambda x, c=curve: float(c.epsilon(x)), DELTA), reps
        )
        row["eps"] = eps
        if curve.estimates_error:
            row["eps_and_error_pairs"], _ = timed(
                lambda c=curve: [p.answer(Query.EPSILON, d1) for p in c.pairs], reps
            )
        else:
            row["eps_and_error_pairs"] = None
        row["delta_1.0"], _ = timed(
            _alternating(lambda x, c=curve: c.delta(x), 1.0), reps
        )
        if name in DENSE_SKIPPED:
            # One contour integral per point: seconds (see DENSE_SKIPPED).
            row["delta_1000_points"] = row["tradeoff_1000_alphas"] = None
        else:
            row["delta_1000_points"], _ = timed(
                _alternating(lambda x, c=curve: c.delta(x), EPS_1000),
                max(3, reps // 10),
            )
            row["tradeoff_1000_alphas"], _ = timed(
                _alternating(lambda x, c=curve: c.tradeoff(x), ALPHA_1000, 1.0 - 1e-15),
                max(3, reps // 10),
            )
        compose_t, _ = timed(
            lambda make=make: make().compose(mechanism(), n), max(3, reps // 10)
        )
        first_t, _ = timed(
            lambda make=make: make().compose(mechanism(), n).epsilon(DELTA),
            max(3, reps // 10),
        )
        row["first_eps_on_fresh_curve_min_s"] = first_t["min_s"] - compose_t["min_s"]
        row["delta_1000_over_eps_query"] = (
            None
            if row["delta_1000_points"] is None
            else row["delta_1000_points"]["min_s"] / row["eps_1e-5"]["min_s"]
        )
        found = floor_for(name, n)
        if found is not None:
            floor, setup_t = found
            f_eps_t, f_eps = timed(lambda f=floor: f.epsilon(DELTA), reps)
            f_d1_t, f_d1 = timed(lambda f=floor: f.delta(np.array([1.0])), reps)
            f_dn_t, f_dn = timed(lambda f=floor: f.delta(EPS_1000), max(3, reps // 10))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ApproximationWarning)
                ours_d1 = float(curve.delta(1.0))
                ours_dn = curve.delta(EPS_1000)
            row["floor"] = {
                "setup": setup_t,
                "eps_1e-5": f_eps_t,
                "delta_1.0": f_d1_t,
                "delta_1000_points": f_dn_t,
                "agreement": {
                    "eps_abs_diff": abs(f_eps - eps),
                    "delta_1.0_rel_diff": abs(float(f_d1[0]) / ours_d1 - 1.0),
                    "delta_1000_max_abs_diff": float(
                        np.max(np.abs(np.maximum(f_dn, 0.0) - ours_dn))
                    ),
                },
            }
            est = row["eps_and_error_pairs"]
            row["over_floor"] = {
                "eps_1e-5": row["eps_1e-5"]["min_s"] / f_eps_t["min_s"],
                "eps_and_error_pairs": (
                    est["min_s"] / f_eps_t["min_s"] if est is not None else None
                ),
                "delta_1.0": row["delta_1.0"]["min_s"] / f_d1_t["min_s"],
                "delta_1000_points": row["delta_1000_points"]["min_s"]
                / f_dn_t["min_s"],
            }
        out[name] = row
    if "Contour" in out and "SaddlePoint(2)" in out:
        c, sp = out["Contour"], out["SaddlePoint(2)"]
        out["Contour"]["over_saddlepoint2"] = {
            key: c[key]["min_s"] / sp[key]["min_s"] for key in ("eps_1e-5", "delta_1.0")
        }
    return {
        "n": n,
        "targets": {
            "query_over_floor": 2.0,
            "delta_1000_over_eps_query": 5.0,
            "edgeworth2_tradeoff_1000_alphas_s": 0.002,
        },
        "methods": out,
    }


# ----------------------------------------------------------------- report
def ms(t: dict[str, Any] | None) -> str:
    if t is None:
        return "n/a"
    return f"{1e3 * t['min_s']:.3f} ({1e3 * t['median_s']:.3f})"


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Analytic accountants side by side (`benchmarks/bench_analytic.py`)",
        "",
        f"Commit `{result['machine']['git_commit']}`, {result['utc']}, "
        f"load average before/after {result['machine']['loadavg_before_after']}. "
        "Times in ms: minimum over repeats (median in parentheses). DP-SGD "
        f"sigma = {SIGMA}, p = {P}, add/remove adjacency, eps at delta = {DELTA}.",
        "",
        "## Build + compose + eps(1e-5), caches warm",
        "",
    ]
    for sec in result["build_compose_eps"]:
        lo, hi = sec["numerical_certified_bracket"]
        lines += [
            f"### n = {sec['n']} (Numerical's certified bracket [{lo:.6f}, {hi:.6f}])",
            "",
            "| method | time ms | PLD time / this (min) | eps "
            "| rel. error vs bracket mid | own error estimate |",
            "|---|---|---|---|---|---|",
        ]
        for name, row in sec["methods"].items():
            lines.append(
                f"| {name} | {ms(row)} | {row['pld_over_this_min']:.1f} (target 100) | "
                f"{row['eps']:.6f} | {row['rel_error_vs_bracket_mid']:+.2e} | "
                f"{row['error_estimate']:.3g} |"
            )
        for name, row in sec["peers"].items():
            lines.append(
                f"| {name} | {ms(row)} | | {row['eps']:.6f} | "
                f"{row['rel_error_vs_bracket_mid']:+.2e} | |"
            )
        lines.append("")
    lines += [
        "Saddle-point floor's own set-up + eps(1e-5) (`_floors.SaddlePointFloor`, "
        "same run):",
        "",
    ]
    for sec, q in zip(result["build_compose_eps"], result["queries"], strict=True):
        floor = q["methods"].get("SaddlePoint(2)", {}).get("floor")
        if floor is None:
            continue
        both = floor["setup"]["min_s"] + floor["eps_1e-5"]["min_s"]
        pld = sec["peers"]["dp-accounting PLD (vdi 1e-3)"]["min_s"]
        lines.append(
            f"- n = {sec['n']}: {1e3 * both:.3f} ms, PLD time / this = "
            f"{pld / both:.1f} (target 100)"
        )
    lines += ["", "## Queries on a composed curve", ""]
    pld_min = {
        sec["n"]: sec["peers"]["dp-accounting PLD (vdi 1e-3)"]["min_s"]
        for sec in result["build_compose_eps"]
    }
    for sec in result["queries"]:
        lines += [
            f"### n = {sec['n']}",
            "",
            "| method | eps(1e-5) | pairs' eps_and_error | first eps on a fresh curve "
            "| delta(1.0) | delta, 1000 eps | delta 1000 / eps query | "
            "trade-off, 1000 alphas (symmetrised) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, row in sec["methods"].items():
            est = row["eps_and_error_pairs"]
            over = row["delta_1000_over_eps_query"]
            lines.append(
                f"| {name} | {ms(row['eps_1e-5'])} | "
                f"{ms(est) if est is not None else 'n/a'} | "
                f"{1e3 * row['first_eps_on_fresh_curve_min_s']:.3f} | "
                f"{ms(row['delta_1.0'])} | {ms(row['delta_1000_points'])} | "
                + ("n/a" if over is None else f"{over:.2f} (target 5)")
                + " | "
                f"{ms(row['tradeoff_1000_alphas'])} |"
            )
        ratio = sec["methods"].get("Contour", {}).get("over_saddlepoint2")
        if ratio is not None:
            lines += [
                "",
                "Contour / SaddlePoint(2), same run: "
                f"eps(1e-5) {ratio['eps_1e-5']:.2f}, delta(1.0) "
                f"{ratio['delta_1.0']:.2f} (target 5). Contour's delta on 1000 "
                "eps and trade-off are not timed here (one contour integral "
                "per point: seconds).",
            ]
        lines += [
            "",
            "Floors (`benchmarks/_floors.py`, minimal NumPy, both pairs in one pass). "
            "They compute less than the public query: the value only (no error "
            "estimate, i.e. no order-gap terms; no monotonicity check of the "
            "profile; no validation, no warnings). The last column is the PLD "
            "time of the build table over the floor's set-up + eps(1e-5): the "
            "build ratio a curve as lean as the floor could reach.",
            "",
            "| floor | set-up | eps(1e-5) | delta(1.0) | delta, 1000 eps "
            "| ours / floor: eps, eps+error, delta(1.0), delta 1000 (target 2) "
            "| agreement | PLD / (set-up + eps) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, row in sec["methods"].items():
            if "floor" not in row:
                continue
            f, r = row["floor"], row["over_floor"]
            agree = f["agreement"]
            lean = f["setup"]["min_s"] + f["eps_1e-5"]["min_s"]
            reach = f"{pld_min[sec['n']] / lean:.1f}" if sec["n"] in pld_min else "n/a"
            lines.append(
                f"| {name} | {ms(f['setup'])} | {ms(f['eps_1e-5'])} | "
                f"{ms(f['delta_1.0'])} | {ms(f['delta_1000_points'])} | "
                f"{r['eps_1e-5']:.2f}, "
                + (
                    "n/a, "
                    if r["eps_and_error_pairs"] is None
                    else f"{r['eps_and_error_pairs']:.2f}, "
                )
                + f"{r['delta_1.0']:.2f}, {r['delta_1000_points']:.2f} | "
                f"eps {agree['eps_abs_diff']:.1e}, delta(1) "
                f"{agree['delta_1.0_rel_diff']:.1e} rel, delta 1000 "
                f"{agree['delta_1000_max_abs_diff']:.1e} abs | {reach} |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


def git_commit() -> str:
    state = _common.git_state()
    if state is None:
        return "unknown"
    sha, dirty = state
    return sha + ("+dirty" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="result JSON path")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 20 if args.quick else 200
    load_before = os.getloadavg()
    result: dict[str, Any] = {
        "benchmark": "analytic",
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            **_common.machine(),
            "processor": platform.processor(),
            "git_commit": git_commit(),
            "cpu_count": os.cpu_count(),
        },
        "build_compose_eps": [build_section(n, max(10, repeats // 4)) for n in NS],
        "queries": [query_section(n, repeats) for n in NS],
    }
    result["machine"]["loadavg_before_after"] = [load_before, os.getloadavg()]
    _common.write_json(args.out, result)
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
