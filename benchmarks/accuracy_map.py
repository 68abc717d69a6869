"""Accuracy map: relative error of eps(delta) of the approximate accountants against
the certified ``A.Numerical`` bracket, over DP-SGD settings.

Run: ``python benchmarks/accuracy_map.py [--jobs K] [--executor dask]
[--table ROWS]`` (several minutes on one core; a progress bar on a terminal,
status lines otherwise). Writes ``benchmarks/results/accuracy_map.csv`` (one row
per method x setting x delta), ``accuracy_map.png`` (faceted heat map) and
``accuracy_map.md`` (summary).

The grid is the sweep spec ``benchmarks/accuracy_map.toml``, run by
:func:`symfdp.sweeps.run_sweep` (each row answered as ``symfdp account`` answers
it: compose, mu*, eps(delta), certified bracket); this script turns its rows
into the map's cells. With ``--table ROWS`` the sweep's rows are kept in
``ROWS.csv``/``ROWS.jsonl`` and an interrupted run resumes.

Grid: Poisson-subsampled Gaussian ``M.SubsampledGaussian(sigma, p)`` with
``pair="both"`` (add/remove adjacency: every accountant takes the max over the two
directions), sigma in {0.6, 1, 2}, p in {1e-3, 1e-2, 1e-1}, n in {10, 100, 1e3,
1e4}, delta in {1e-3, 1e-5, 1e-8}.

Methods: ``A.CLT()`` (moments form), ``A.Edgeworth(order=J)`` for J = 0..4
(numerical inverse) and ``A.SaddlePoint(order=k)`` for k = 1, 2, each as a user
calls it (``compose(m, n).epsilon(delta)``, with the accountants' repairs), one
composition per cell (per delta).

Reference: the certified bracket ``[eps_lo, eps_hi]`` of
``A.Numerical(eps_rel_tol=REF_TOL).compose(m, n).epsilon_bounds(delta)`` and its
midpoint ``eps_ref``. The relative error is ``eps_method / eps_ref - 1`` (signed:
negative is below the reference, i.e. anti-conservative when below ``eps_lo``). A
cell is *resolved* when ``|error| >= 10 * (eps_hi - eps_lo) / eps_ref``; where
``eps_ref`` is 0 (delta(0) <= delta already) the relative error is undefined and
left empty (``ref_zero = 1``). Every ``ApproximationWarning`` raised while
the cell is answered (``compose``, mu*, ``epsilon``) is recorded
(``approx_warning``, ``warnings``); ``seconds`` is the cell's time in
``account_one`` (compose, mu* and epsilon).
"""

from __future__ import annotations

import argparse
import csv
import math
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import _common
import numpy as np

from symfdp import ApproximationWarning, sweeps

OUT = Path(__file__).resolve().parent / "results"
SIGMAS = (0.6, 1.0, 2.0)
PS = (1e-3, 1e-2, 1e-1)
NS = (10, 100, 1_000, 10_000)
DELTAS = (1e-3, 1e-5, 1e-8)
REF_TOL = 1e-5
SPEC = Path(__file__).resolve().with_name("accuracy_map.toml")
#: The methods of the spec (their ``method`` column) and their names in the map.
METHODS: dict[str, str] = {
    "clt": "CLT",
    **{f"edgeworth(order={j})": f"Edgeworth {j}" for j in range(5)},
    "saddlepoint(order=1)": "SaddlePoint 1",
    "saddlepoint(order=2)": "SaddlePoint 2",
}
REFERENCE = f"numerical(eps_rel_tol={REF_TOL!r})"
FIELDS = (
    "method",
    "sigma",
    "p",
    "n",
    "delta",
    "eps_ref",
    "eps_lo",
    "eps_hi",
    "ref_rel_width",
    "eps_method",
    "rel_error",
    "resolved",
    "ref_zero",
    "below_bracket",
    "approx_warning",
    "warnings",
    "seconds",
    "error",
)


def _short(message: str) -> str:
    """First clause of a warning message (for the CSV)."""
    text = str(message).split(":", 1)[-1].strip()
    return text.split(";")[0].split(".")[0][:80]


def _check_grid(plan: Any) -> None:
    """The spec file and this script's constants describe the same grid."""
    seen = {
        axis: tuple(dict.fromkeys(r[axis] for r in plan.rows))
        for axis in ("sigma", "sample_rate", "steps", "delta")
    }
    labels = tuple(dict.fromkeys(r["method_label"] for r in plan.rows))
    expected = {"sigma": SIGMAS, "sample_rate": PS, "steps": NS, "delta": DELTAS}
    if seen != expected or labels != (*METHODS, REFERENCE):
        raise ValueError(f"{SPEC.name} and accuracy_map.py disagree on the grid")


def _cell(row: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    """A cell of the map: ``row`` (one method) against ``ref`` (the reference
    row of the same setting and delta)."""
    lo, hi = ref["epsilon_lo"], ref["epsilon_hi"]
    mid = 0.5 * (lo + hi)
    eps = math.nan if row["epsilon"] is None else row["epsilon"]
    ws = [
        w.split(":", 1)[1]
        for w in row["warnings"]
        if w.startswith(f"{ApproximationWarning.__name__}:")
    ]
    ref_zero = hi <= 0.0
    rel = eps / mid - 1.0 if not ref_zero and math.isfinite(eps) else math.nan
    width = (hi - lo) / mid if not ref_zero else math.nan
    return {
        "method": METHODS[row["method"]],
        "sigma": row["sigma"],
        "p": row["sample_rate"],
        "n": row["steps"],
        "delta": row["delta"],
        "eps_ref": mid,
        "eps_lo": lo,
        "eps_hi": hi,
        "ref_rel_width": width,
        "eps_method": eps,
        "rel_error": rel,
        "resolved": int(math.isfinite(rel) and abs(rel) >= 10 * width),
        "ref_zero": int(ref_zero),
        "below_bracket": int(math.isfinite(eps) and eps < lo),
        "approx_warning": int(bool(ws)),
        "warnings": " | ".join(sorted({_short(w) for w in ws})),
        "seconds": row["seconds"],
        "error": row["error"] or "",
    }


def measure(
    table: Path | None = None, executor: str = "local", jobs: int = 1
) -> list[dict[str, Any]]:
    """Run the sweep of :data:`SPEC` (resumable in ``table`` when given) and
    turn its rows into the map's cells, in the order method x setting x delta."""
    plan = sweeps.load(SPEC)
    _check_grid(plan)
    with tempfile.TemporaryDirectory() as tmp:
        out = table if table is not None else Path(tmp) / "rows"
        rows, complete = sweeps.run_sweep(plan, out, executor=executor, jobs=jobs)
    if not complete:
        raise KeyboardInterrupt
    refs = {
        (r["sigma"], r["sample_rate"], r["steps"], r["delta"]): r
        for r in rows
        if r["method"] == REFERENCE
    }
    bad = [r for r in refs.values() if r["error"]]
    if bad:
        raise RuntimeError(f"the reference failed: {bad[0]['error']}")
    cells = [
        _cell(r, refs[(r["sigma"], r["sample_rate"], r["steps"], r["delta"])])
        for r in rows
        if r["method"] != REFERENCE
    ]
    order = {name: k for k, name in enumerate(METHODS.values())}
    cells.sort(key=lambda c: (c["sigma"], c["p"], c["n"], order[c["method"]]))
    return [{k: c[k] for k in FIELDS} for c in cells]


# ----------------------------------------------------------------- outputs
def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(FIELDS))
        writer.writeheader()
        writer.writerows(rows)


def _where(r: dict[str, Any]) -> str:
    return f"sigma={r['sigma']:g}, p={r['p']:g}, n={r['n']}, delta={r['delta']:g}"


def _git_state() -> str:
    state = _common.git_state(short=True)
    if state is None:
        return "unknown commit"
    sha, dirty = state
    return f"commit {sha}" + (" with uncommitted changes in symfdp/" if dirty else "")


def markdown(rows: list[dict[str, Any]], seconds: float) -> str:
    valid = [r for r in rows if not r["ref_zero"]]
    widths = np.array([r["ref_rel_width"] for r in valid])
    lines = [
        "# Accuracy map: relative error of eps(delta) vs certified Numerical",
        "",
        "Generated by `benchmarks/accuracy_map.py` in "
        f"{seconds:.0f} s at {_git_state()} (data: `accuracy_map.csv`, figure: "
        "`accuracy_map.png`).",
        "Subsampled Gaussian, pair='both' (max over add/remove), sigma in "
        f"{list(SIGMAS)}, p in {list(PS)}, n in {list(NS)}, delta in {list(DELTAS)}: "
        f"{len(rows) // len(METHODS)} cells per method. Reference: midpoint of "
        f"A.Numerical(eps_rel_tol={REF_TOL:g}).epsilon_bounds; relative bracket "
        f"width median {np.median(widths):.1e}, max {widths.max():.1e} (at "
        f"{_where(valid[int(np.argmax(widths))])}).",
        f"Cells with eps_ref = 0 (delta(0) <= delta; relative error undefined): "
        f"{(len(rows) - len(valid)) // len(METHODS)} per method, left out below.",
        "",
        "| method | median abs rel. error | worst abs rel. error | worst at | "
        "unresolved | below bracket (anti-conservative) | error > 10% | warned | "
        "warned among error > 10% |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in METHODS.values():
        sel = [
            r for r in valid if r["method"] == name and math.isfinite(r["rel_error"])
        ]
        failed = sum(1 for r in valid if r["method"] == name and r["error"])
        err = np.array([abs(r["rel_error"]) for r in sel])
        worst = sel[int(np.argmax(err))]
        big = [r for r in sel if abs(r["rel_error"]) > 0.1]
        k = len(sel)
        lines.append(
            f"| {name} | {np.median(err):.1e} | {worst['rel_error']:+.1e} | "
            f"{_where(worst)} | {sum(1 for r in sel if not r['resolved'])}/{k} | "
            f"{sum(r['below_bracket'] for r in sel)}/{k} | {len(big)}/{k} | "
            f"{sum(r['approx_warning'] for r in sel)}/{k} | "
            f"{sum(r['approx_warning'] for r in big)}/{len(big)} |"
            + (f" ({failed} failed)" if failed else "")
        )
    lines += [
        "",
        "Columns: *unresolved* = |error| < 10x the bracket's relative width (the "
        "reference cannot rank the error; such cells are hatched in the figure); "
        "*below bracket* = eps_method < eps_lo, a certified under-estimate of eps; "
        "*warned* = an ApproximationWarning was raised by compose or epsilon.",
        "",
        "## Where each method is worst (median abs rel. error by factor)",
        "",
    ]
    for key, values in (("sigma", SIGMAS), ("p", PS), ("n", NS), ("delta", DELTAS)):
        head = "| method | " + " | ".join(f"{key}={v:g}" for v in values) + " |"
        lines += [head, "|---|" + "---|" * len(values)]
        for name in METHODS.values():
            cells = []
            for v in values:
                err = [
                    abs(r["rel_error"])
                    for r in valid
                    if r["method"] == name
                    and r[key] == v
                    and math.isfinite(r["rel_error"])
                ]
                cells.append(f"{np.median(err):.1e}" if err else "-")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    msgs = Counter(
        m for r in rows for m in (r["warnings"].split(" | ") if r["warnings"] else [])
    )
    lines += ["## ApproximationWarning messages (cells)", ""]
    lines += [f"- {c}: {m}" for m, c in msgs.most_common()]
    return "\n".join(lines) + "\n"


def figure(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Rectangle

    rc = Path(__file__).resolve().parents[1] / "experiments" / "matplotlibrc"
    ctx = (
        matplotlib.rc_context(fname=str(rc)) if rc.exists() else matplotlib.rc_context()
    )
    names = list(METHODS.values())
    cols = [(p, n) for p in PS for n in NS]
    index = {(r["method"], r["sigma"], r["p"], r["n"], r["delta"]): r for r in rows}
    norm = LogNorm(vmin=1e-5, vmax=10.0)
    cmap = matplotlib.colormaps["RdYlGn_r"].copy()
    with ctx:
        fig, axes = plt.subplots(
            len(DELTAS), len(SIGMAS), figsize=(16, 11), sharex=True, sharey=True
        )
        for i, delta in enumerate(DELTAS):
            for j, sigma in enumerate(SIGMAS):
                ax = axes[i, j]
                grid = np.full((len(names), len(cols)), np.nan)
                for a, name in enumerate(names):
                    for b, (p, n) in enumerate(cols):
                        r = index[(name, sigma, p, n, delta)]
                        if math.isfinite(r["rel_error"]):
                            grid[a, b] = max(abs(r["rel_error"]), 1e-6)
                ax.imshow(
                    np.ma.masked_invalid(grid),
                    norm=norm,
                    cmap=cmap,
                    aspect="auto",
                    interpolation="nearest",
                )
                ax.set_facecolor("0.85")
                for a, name in enumerate(names):
                    for b, (p, n) in enumerate(cols):
                        r = index[(name, sigma, p, n, delta)]
                        if r["ref_zero"]:
                            ax.text(
                                b,
                                a,
                                "0",
                                ha="center",
                                va="center",
                                fontsize=6,
                                color="0.3",
                            )
                            continue
                        if not r["resolved"] and math.isfinite(r["rel_error"]):
                            ax.add_patch(
                                Rectangle(
                                    (b - 0.5, a - 0.5),
                                    1,
                                    1,
                                    fill=False,
                                    hatch="////",
                                    lw=0,
                                    ec="0.2",
                                )
                            )
                        if r["below_bracket"]:
                            ax.plot(
                                b - 0.28,
                                a - 0.25,
                                marker="v",
                                ms=3.6,
                                color="k",
                                mec="w",
                                mew=0.5,
                            )
                        if r["approx_warning"]:
                            ax.plot(
                                b + 0.28,
                                a - 0.25,
                                marker="o",
                                ms=2.6,
                                color="w",
                                mec="k",
                                mew=0.4,
                            )
                for b in range(len(NS), len(cols), len(NS)):
                    ax.axvline(b - 0.5, color="k", lw=1.2)
                ax.set_xticks(range(len(cols)))
                ax.set_xticklabels(
                    [f"{n:.0e}".replace("+0", "") for _, n in cols],
                    rotation=90,
                    fontsize=7,
                )
                ax.set_yticks(range(len(names)))
                ax.set_yticklabels(names, fontsize=8)
                ax.grid(False)
                if i == 0:
                    ax.set_title(rf"$\sigma = {sigma:g}$", fontsize=11)
                if j == 0:
                    ax.set_ylabel(
                        rf"$\delta = 10^{{{round(math.log10(delta))}}}$", fontsize=11
                    )
                if i == len(DELTAS) - 1:
                    for k, p in enumerate(PS):
                        ax.text(
                            (k + 0.5) * len(NS) - 0.5,
                            len(names) + 1.6,
                            f"p = {p:g}",
                            ha="center",
                            va="top",
                            fontsize=8,
                        )
        fig.text(0.45, 0.005, r"$n$ within each sampling rate $p$", ha="center")
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
        cb = fig.colorbar(sm, ax=axes, fraction=0.025, pad=0.01, extend="both")
        cb.set_label(
            r"$|\varepsilon_{\mathrm{method}}/\varepsilon_{\mathrm{ref}} - 1|$"
        )
        fig.suptitle(
            "Relative error of eps(delta) vs certified Numerical, subsampled "
            "Gaussian, pair='both' (max over add/remove)\n"
            "hatched: not resolved by the bracket; black triangle: below the "
            "certified bracket; white dot: ApproximationWarning; grey '0': "
            "eps_ref = 0",
            fontsize=10,
        )
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="workers")
    parser.add_argument("--executor", default="local", help="local, dask, dask://")
    parser.add_argument(
        "--table",
        type=Path,
        help="keep the sweep's rows in TABLE.csv/.jsonl (a re-run resumes them)",
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rows = measure(args.table, args.executor, args.jobs)
    seconds = time.perf_counter() - start
    write_csv(rows, OUT / "accuracy_map.csv")
    text = markdown(rows, seconds)
    (OUT / "accuracy_map.md").write_text(text)
    figure(rows, OUT / "accuracy_map.png")
    print(text)


if __name__ == "__main__":
    main()
