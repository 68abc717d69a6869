"""Accuracy map: relative error of eps(delta) of the approximate accountants against
the certified ``A.Numerical`` bracket, over DP-SGD settings.

Run: ``python benchmarks/accuracy_map.py`` (a few minutes; set ``SYMFDP_PROGRESS=1``
for a progress bar when stderr is not a terminal). Writes
``benchmarks/results/accuracy_map.csv`` (one row per method x setting x delta),
``accuracy_map.png`` (faceted heat map) and ``accuracy_map.md`` (summary).

Grid: Poisson-subsampled Gaussian ``M.SubsampledGaussian(sigma, p)`` with
``pair="both"`` (add/remove adjacency: every accountant takes the max over the two
directions), sigma in {0.6, 1, 2}, p in {1e-3, 1e-2, 1e-1}, n in {10, 100, 1e3,
1e4}, delta in {1e-3, 1e-5, 1e-8}.

Methods: ``A.CLT()`` (moments form), ``A.Edgeworth(order=J)`` for J = 0..4
(numerical inverse) and ``A.SaddlePoint(order=k)`` for k = 1, 2, each as a user
calls it (``compose(m, n).epsilon(delta)``, with the accountants' repairs).

Reference: the certified bracket ``[eps_lo, eps_hi]`` of
``A.Numerical(eps_rel_tol=REF_TOL).compose(m, n).epsilon_bounds(delta)`` and its
midpoint ``eps_ref``. The relative error is ``eps_method / eps_ref - 1`` (signed:
negative is below the reference, i.e. anti-conservative when below ``eps_lo``). A
cell is *resolved* when ``|error| >= 10 * (eps_hi - eps_lo) / eps_ref``; where
``eps_ref`` is 0 (delta(0) <= delta already) the relative error is undefined and
left empty (``ref_zero = 1``). Every ``ApproximationWarning`` raised by
``compose`` or ``epsilon`` of a cell is recorded (``approx_warning``,
``warnings``).
"""

from __future__ import annotations

import csv
import math
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import _common
import numpy as np

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp._progress import Progress

OUT = Path(__file__).resolve().parent / "results"
SIGMAS = (0.6, 1.0, 2.0)
PS = (1e-3, 1e-2, 1e-1)
NS = (10, 100, 1_000, 10_000)
DELTAS = (1e-3, 1e-5, 1e-8)
REF_TOL = 1e-5
METHODS: dict[str, Any] = {
    "CLT": lambda: A.CLT(),
    **{f"Edgeworth {j}": (lambda j=j: A.Edgeworth(order=j)) for j in range(5)},
    "SaddlePoint 1": lambda: A.SaddlePoint(order=1),
    "SaddlePoint 2": lambda: A.SaddlePoint(order=2),
}
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


def _method_cells(
    name: str, mech: Any, n: int, ref: dict[float, tuple[float, float]]
) -> list[dict[str, Any]]:
    """One cell per delta for ``name``; warnings are attributed per cell (those of
    ``compose`` to every cell of the setting)."""
    cells = []
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ApproximationWarning)
        try:
            curve = METHODS[name]().compose(mech, n)
            failure = ""
        except Exception as exc:  # a failing method is data, not a crash
            curve, failure = None, repr(exc)[:200]
    compose_warn = [w for w in caught if issubclass(w.category, ApproximationWarning)]
    compose_s = time.perf_counter() - t0
    for delta in DELTAS:
        lo, hi = ref[delta]
        mid = 0.5 * (lo + hi)
        row: dict[str, Any] = {"method": name, "delta": delta}
        eps, error, t1 = math.nan, failure, time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ApproximationWarning)
            if curve is not None:
                try:
                    eps = float(curve.epsilon(delta))
                except Exception as exc:
                    error = repr(exc)[:200]
        ws = compose_warn + [
            w for w in caught if issubclass(w.category, ApproximationWarning)
        ]
        ref_zero = hi <= 0.0
        rel = eps / mid - 1.0 if not ref_zero and math.isfinite(eps) else math.nan
        width = (hi - lo) / mid if not ref_zero else math.nan
        row.update(
            eps_ref=mid,
            eps_lo=lo,
            eps_hi=hi,
            ref_rel_width=width,
            eps_method=eps,
            rel_error=rel,
            resolved=int(math.isfinite(rel) and abs(rel) >= 10 * width),
            ref_zero=int(ref_zero),
            below_bracket=int(math.isfinite(eps) and eps < lo),
            approx_warning=int(bool(ws)),
            warnings=" | ".join(sorted({_short(str(w.message)) for w in ws})),
            seconds=compose_s / len(DELTAS) + time.perf_counter() - t1,
            error=error,
        )
        cells.append(row)
    return cells


def measure() -> list[dict[str, Any]]:
    settings = [(s, p, n) for s in SIGMAS for p in PS for n in NS]
    rows: list[dict[str, Any]] = []
    ref_acc = A.Numerical(eps_rel_tol=REF_TOL)
    with Progress(len(settings), "accuracy map") as bar:
        for sigma, p, n in settings:
            mech = M.SubsampledGaussian(sigma=sigma, p=p, pair="both")
            lo, hi = ref_acc.compose(mech, n).epsilon_bounds(np.array(DELTAS))
            ref = {
                d: (float(a), float(b)) for d, a, b in zip(DELTAS, lo, hi, strict=True)
            }
            for name in METHODS:
                for cell in _method_cells(name, mech, n, ref):
                    cell.update(sigma=sigma, p=p, n=n)
                    rows.append({k: cell[k] for k in FIELDS})
            bar.update()
    return rows


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
    for name in METHODS:
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
        for name in METHODS:
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
    names = list(METHODS)
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
    OUT.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rows = measure()
    seconds = time.perf_counter() - start
    write_csv(rows, OUT / "accuracy_map.csv")
    text = markdown(rows, seconds)
    (OUT / "accuracy_map.md").write_text(text)
    figure(rows, OUT / "accuracy_map.png")
    print(text)


if __name__ == "__main__":
    main()
