"""Informativeness of the analytic error estimates on fixed cases.

Run: ``python benchmarks/analytic_error_cases.py [--out PATH]`` (writes
``benchmarks/results/analytic_error_cases.json`` and prints one line per case).

For each case (DP-SGD: sigma in 0.5..2, p in 1e-3..0.1, n in 1e2..1e5, delta in
1e-5..1e-12, a seeded draw; Laplace(mu = 3/sqrt(n)), n = 10..1000; and the two
examples of issue 11) the value and the estimate of ``epsilon_and_error`` of
CLT, Edgeworth(2) and Edgeworth(4), on the curve's pairs (the pair attaining the
maximum carries the estimate), are compared with the midpoint of
``A.Numerical().compose(...).epsilon_bounds`` (the truth); likewise
``delta_and_error`` at that true eps against the midpoint of ``delta_bounds``.
A case counts only where the certified bracket is narrower than a tenth of the
true error (or 1e-4 relative). Reported: the share of cases with true error
<= 3 x estimate, the median of estimate / true error, and how many errors above
5% (relative) carry an estimate above 5%.
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from pathlib import Path

import numpy as np

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve import Query

OUT = Path(__file__).resolve().parent / "results" / "analytic_error_cases.json"
METHODS = {
    "CLT": lambda: A.CLT(),
    "Edgeworth(2)": lambda: A.Edgeworth(order=2),
    "Edgeworth(4)": lambda: A.Edgeworth(order=4),
}


def cases() -> list[tuple[str, M.Mechanism, int, float]]:
    rng = np.random.default_rng(11)
    out = [
        (
            "issue: DP-SGD s=0.8 p=0.01",
            M.SubsampledGaussian(sigma=0.8, p=0.01),
            1000,
            1e-5,
        ),
        (
            "issue: DP-SGD s=1 p=0.01",
            M.SubsampledGaussian(sigma=1.0, p=0.01),
            1000,
            1e-12,
        ),
    ]
    for _ in range(30):
        sigma = float(np.round(10 ** rng.uniform(math.log10(0.5), math.log10(2.0)), 2))
        p = float(10 ** np.round(rng.uniform(-3, -1), 1))
        n = int(10 ** rng.integers(2, 6))
        delta = float(10.0 ** -rng.integers(5, 13))
        name = f"DP-SGD s={sigma} p={p:.2g} n={n}"
        out.append((name, M.SubsampledGaussian(sigma=sigma, p=p), n, delta))
    for n in (10, 30, 100, 300, 1000):
        for delta in (1e-5, 1e-10):
            mu = 3.0 / math.sqrt(n)
            out.append((f"Laplace mu={mu:.3g} n={n}", M.Laplace(mu=mu), n, delta))
    return out


def delta_estimate(curve, eps: float) -> tuple[float, float]:
    """delta(eps) as the max over the pairs, with the estimate of that pair."""
    values = curve.pair_answers(Query.DELTA, [eps])
    d = np.array([float(v.values[0]) for v in values])
    err = np.array([float(v.errors[0]) for v in values])
    k = int(np.argmax(d))
    return float(d[k]), float(err[k])


def estimate(curve, delta: float) -> tuple[float, float]:
    values = curve.pair_answers(Query.EPSILON, [delta])
    eps = np.array([float(v.values[0]) for v in values])
    err = np.array([float(v.errors[0]) for v in values])
    k = int(np.argmax(eps))
    return float(eps[k]), float(err[k])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    out_path = parser.parse_args().out
    rows = []
    for name, mech, n, delta in cases():
        reference = A.Numerical().compose(mech, n)
        lo, hi = reference.epsilon_bounds(delta)
        truth = 0.5 * (lo + hi)
        d_lo, d_hi = reference.delta_bounds(truth)
        d_truth = 0.5 * (d_lo + d_hi)
        for method, make in METHODS.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ApproximationWarning)
                curve = make().compose(mech, n)
                eps, err = estimate(curve, delta)
                d_val, d_err = delta_estimate(curve, truth)
            true_err = abs(eps - truth)
            resolved = (hi - lo) <= max(0.1 * true_err, 1e-4 * truth)
            d_true_err = abs(d_val - d_truth)
            d_resolved = (d_hi - d_lo) <= max(0.1 * d_true_err, 1e-4 * d_truth)
            rows.append(
                {
                    "case": name,
                    "n": n,
                    "delta": delta,
                    "method": method,
                    "eps": eps,
                    "estimate": err,
                    "truth": truth,
                    "bracket": [float(lo), float(hi)],
                    "true_error": true_err,
                    "resolved": bool(resolved),
                    "delta_at_true_eps": d_val,
                    "delta_estimate": d_err,
                    "delta_truth": d_truth,
                    "delta_true_error": d_true_err,
                    "delta_resolved": bool(d_resolved),
                }
            )
            print(
                f"{method:>13} {name:>34} d={delta:.0e}: eps {eps:10.5g} est "
                f"{err:9.3g} true {truth:10.5g} err {true_err:9.3g}"
                f" ratio {err / true_err if true_err else math.inf:8.3g}"
                + ("" if resolved else "  (bracket too wide)")
            )
    summary = {}
    for method in METHODS:
        sel = [r for r in rows if r["method"] == method and r["resolved"]]
        ratio = [r["estimate"] / r["true_error"] for r in sel if r["true_error"] > 0]
        covered = [r["true_error"] <= 3 * r["estimate"] for r in sel]
        big = [r for r in sel if r["true_error"] > 0.05 * r["truth"]]
        flagged = [r["estimate"] > 0.05 * abs(r["eps"]) for r in big]
        summary[method] = {
            "cases": len(sel),
            "covered_3x": float(np.mean(covered)),
            "median_estimate_over_true": float(np.median(ratio)),
            "errors_above_5pct": len(big),
            "flagged_of_those": int(sum(flagged)),
            "infinite_estimates": int(sum(math.isinf(r["estimate"]) for r in sel)),
        }
        dsel = [r for r in rows if r["method"] == method and r["delta_resolved"]]
        d_ratio = [
            r["delta_estimate"] / r["delta_true_error"]
            for r in dsel
            if r["delta_true_error"] > 0
        ]
        d_big = [r for r in dsel if r["delta_true_error"] > 0.05 * r["delta_truth"]]
        claimed = [r for r in dsel if r["delta_estimate"] < abs(r["delta_at_true_eps"])]
        summary[method]["delta_where_estimate_below_value"] = {
            "cases": len(claimed),
            "covered_3x": float(
                np.mean(
                    [r["delta_true_error"] <= 3 * r["delta_estimate"] for r in claimed]
                )
            )
            if claimed
            else float("nan"),
        }
        summary[method]["delta"] = {
            "cases": len(dsel),
            "covered_3x": float(
                np.mean(
                    [r["delta_true_error"] <= 3 * r["delta_estimate"] for r in dsel]
                )
            ),
            "median_estimate_over_true": float(np.median(d_ratio)),
            "errors_above_5pct": len(d_big),
            "flagged_of_those": int(
                sum(
                    r["delta_estimate"] > 0.05 * abs(r["delta_at_true_eps"])
                    for r in d_big
                )
            ),
        }
    for method, s in summary.items():
        print(method, s)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2) + "\n")
    lines = [
        "# Error estimates against Numerical (`benchmarks/analytic_error_cases.py`)",
        "",
        "| method | query | cases | true <= 3 x estimate | median estimate/true "
        "| errors > 5% | of those with estimate > 5% |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, s in summary.items():
        for query, t in (("eps(delta)", s), ("delta(eps)", s["delta"])):
            lines.append(
                f"| {method} | {query} | {t['cases']} | {t['covered_3x']:.0%} | "
                f"{t['median_estimate_over_true']:.2f} | {t['errors_above_5pct']} | "
                f"{t['flagged_of_those']} |"
            )
    lines += [
        "",
        "delta(eps) where the estimate is below the value (estimated relative error "
        "< 100%; above it the expansions have broken down and the estimate only "
        "flags that):",
        "",
    ]
    for method, s in summary.items():
        t = s["delta_where_estimate_below_value"]
        lines.append(f"- {method}: {t['cases']} cases, {t['covered_3x']:.0%} covered")
    out_path.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
