"""SaddlePoint error by order (1..8) against Numerical's certified bracket.

For DP-SGD compositions (n Poisson-subsampled Gaussian steps, add/remove
adjacency) and delta in {1e-5, 1e-10, 1e-13}: the certified bracket
[eps_lo, eps_hi] of ``A.Numerical().compose(...).epsilon_bounds(delta)``, and for
each order J of ``A.SaddlePoint(order=J)``

* eps_J(delta) and its relative distance to the bracket's middle, with the
  curve's error estimate (the epsilon answer of the pair that attains the
  curve's eps) beside it;
* delta_J(eps_mid) at the bracket's middle and its relative distance to
  Numerical's certified delta bracket there (the quantity the saddle-point paper
  reports), with the delta answer's estimate.

An estimate "covers" when |error| <= 3 x estimate + half the bracket width.
Writes ``benchmarks/results/saddlepoint_orders.{md,json}``. Run as
``python benchmarks/saddlepoint_orders.py`` (a few minutes; ``--quick``: the
slides' pair only).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, git_state, machine, write_json

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.curve import Query

SETTINGS = [
    (1.0, 0.01, 2000),  # the slides' pair
    (1.0, 0.01, 1000),
    (0.8, 0.01, 1000),
    (0.65, 0.01, 2000),
    (2.0, 0.01, 1000),
    (1.0, 0.1, 100),
    (0.6, 0.001, 10000),
]
DELTAS = [1e-5, 1e-10, 1e-13]
ORDERS = range(1, 9)


def _pick(curve: Any, query: Query, x: float) -> tuple[float, float]:
    """The largest pair's answer at ``x`` and that pair's error estimate."""
    vals = curve.pair_answers(query, [x])
    k = int(np.argmax([v.values[0] for v in vals]))
    return float(vals[k].values[0]), float(vals[k].errors[0])


def run(settings: list[tuple[float, float, int]]) -> list[dict[str, Any]]:
    rows = []
    for sigma, p, n in settings:
        m = M.SubsampledGaussian(sigma=sigma, p=p)
        num = A.Numerical().compose(m, n=n)
        curves = {j: A.SaddlePoint(order=j).compose(m, n=n) for j in ORDERS}
        for delta in DELTAS:
            lo, hi = (float(x) for x in num.epsilon_bounds(delta))
            mid = 0.5 * (lo + hi)
            dlo, dhi = (float(x) for x in num.delta_bounds(mid))
            dmid = 0.5 * (dlo + dhi)
            for j, curve in curves.items():
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ApproximationWarning)
                    eps = float(curve.epsilon(delta))
                warned = any(
                    issubclass(w.category, ApproximationWarning) for w in caught
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ApproximationWarning)
                    _, e_err = _pick(curve, Query.EPSILON, delta)
                    d_j, d_err = _pick(curve, Query.DELTA, mid)
                rows.append(
                    {
                        "sigma": sigma,
                        "p": p,
                        "n": n,
                        "delta": delta,
                        "order": j,
                        "eps_lo": lo,
                        "eps_hi": hi,
                        "eps": eps,
                        "eps_rel_err": eps / mid - 1.0,
                        "eps_rel_est": e_err / mid,
                        "eps_covered": abs(eps - mid) <= 3 * e_err + (hi - lo) / 2,
                        "delta_at_mid": d_j,
                        "delta_lo": dlo,
                        "delta_hi": dhi,
                        "delta_rel_err": d_j / dmid - 1.0,
                        "delta_rel_est": d_err / dmid,
                        "delta_covered": abs(d_j - dmid) <= 3 * d_err + (dhi - dlo) / 2,
                        "warned": warned,
                    }
                )
                print(
                    f"sigma={sigma} p={p} n={n} delta={delta:g} J={j}: "
                    f"eps {eps / mid - 1:+.4f} (est {e_err / mid:.4f}) "
                    f"delta {d_j / dmid - 1:+.4f} (est {d_err / dmid:.4f})",
                    flush=True,
                )
    return rows


def _fmt(x: float) -> str:
    return "inf" if not np.isfinite(x) else f"{100 * x:+.2f}%"


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "# SaddlePoint error by order vs Numerical's certified bracket",
        "",
        "DP-SGD (Poisson-subsampled Gaussian, add/remove). Per cell: relative "
        "error of eps(delta) vs the middle of Numerical's certified eps bracket / "
        "the error estimate (`epsilon_and_error`), then the same for delta at the "
        "bracket's middle eps. `*` = not covered (|error| > 3 x estimate + half "
        "the bracket), `w` = the query warned (validity).",
        "",
    ]
    keys = sorted({(r["sigma"], r["p"], r["n"], r["delta"]) for r in rows})
    head = "| sigma | p | n | delta | eps bracket | " + " | ".join(
        f"J={j}" for j in ORDERS
    )
    lines += [head + " |", "|" + "---|" * (5 + len(ORDERS))]
    for key in keys:
        sel = {
            r["order"]: r
            for r in rows
            if (r["sigma"], r["p"], r["n"], r["delta"]) == key
        }
        r0 = sel[1]
        cells = []
        for j in ORDERS:
            r = sel[j]
            flag = ("" if r["eps_covered"] else "*") + ("w" if r["warned"] else "")
            dflag = "" if r["delta_covered"] else "*"
            cells.append(
                f"eps {_fmt(r['eps_rel_err'])}/{abs(r['eps_rel_est']) * 100:.2g}%{flag}"
                f"<br>delta {_fmt(r['delta_rel_err'])}/"
                f"{abs(r['delta_rel_est']) * 100:.2g}%{dflag}"
            )
        lines.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {key[3]:g} | "
            f"{r0['eps_lo']:.4f}..{r0['eps_hi']:.4f} | " + " | ".join(cells) + " |"
        )
    lines += [
        "",
        "Per order over all cells: median and max |relative error| of delta at "
        "the bracket's middle, cells covered by the estimate (eps / delta), cells "
        "where this order beats order 2 on delta.",
        "",
        "| order | median abs delta err | max abs delta err | covered eps | "
        "covered delta | better than order 2 |",
        "|---|---|---|---|---|---|",
    ]
    by_key = {(r["sigma"], r["p"], r["n"], r["delta"], r["order"]): r for r in rows}
    for j in ORDERS:
        sel = [r for r in rows if r["order"] == j]
        errs = np.abs([r["delta_rel_err"] for r in sel])
        better = sum(
            abs(r["delta_rel_err"])
            < abs(by_key[(r["sigma"], r["p"], r["n"], r["delta"], 2)]["delta_rel_err"])
            for r in sel
        )
        lines.append(
            f"| {j} | {100 * np.median(errs):.2f}% | {100 * errs.max():.1f}% | "
            f"{sum(r['eps_covered'] for r in sel)}/{len(sel)} | "
            f"{sum(r['delta_covered'] for r in sel)}/{len(sel)} | {better}/{len(sel)} |"
        )
    loose = sorted(
        {
            (r["sigma"], r["p"], r["n"], r["delta"])
            for r in rows
            if (r["eps_hi"] - r["eps_lo"]) > 0.01 * (r["eps_hi"] + r["eps_lo"]) / 2
        }
    )
    if loose:
        lines += [
            "",
            "Numerical's bracket is wider than 1% of eps at "
            + ", ".join(f"sigma={a}, p={b}, n={c}, delta={d:g}" for a, b, c, d in loose)
            + ": the errors there are measured against a loose reference "
            "(the middle of the bracket).",
        ]
    n_all = len(rows)
    cov_e = sum(r["eps_covered"] for r in rows)
    cov_d = sum(r["delta_covered"] for r in rows)
    lines += [
        "",
        f"Covered: eps {cov_e}/{n_all}, delta {cov_d}/{n_all}.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    quick = "--quick" in sys.argv
    rows = run(SETTINGS[:1] if quick else SETTINGS)
    out = ROOT / "benchmarks" / "results"
    record = {"machine": machine(), "git": git_state(), "rows": rows}
    write_json(out / "saddlepoint_orders.json", record)
    Path(out / "saddlepoint_orders.md").write_text(markdown(rows))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
