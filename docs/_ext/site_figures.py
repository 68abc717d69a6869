"""The site's figures, drawn from the package at build time (matplotlib, Agg).

Each function writes one PNG and returns its path; ``draw_all`` draws them all
into a folder. Nothing here is committed as an image: the pages show what the
code computes at the commit the site is built from.
"""

from __future__ import annotations

import csv
import importlib.util
import math
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from symfdp import (
    ApproximationWarning,
    plotting,
)
from symfdp import accountants as A
from symfdp import mechanisms as M

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"

#: The DP-SGD setting of the trade-off and profile figures: few steps and a
#: large sampling rate, where the approximations visibly differ from the truth.
SIGMA, P, N = 0.8, 0.02, 200
_APPROXIMATIONS = (
    ("CLT", A.CLT(), ":"),
    ("Edgeworth(order=2)", A.Edgeworth(order=2), "--"),
    ("SaddlePoint()", A.SaddlePoint(), "-."),
)


def _style() -> Any:
    rc = ROOT / "experiments" / "matplotlibrc"
    return (
        matplotlib.rc_context(fname=str(rc)) if rc.exists() else matplotlib.rc_context()
    )


def _curves() -> tuple[Any, list[tuple[str, Any, str]]]:
    step = M.SubsampledGaussian(sigma=SIGMA, p=P)
    certified = A.Numerical().compose(step, n=N)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        approx = [
            (name, acc.compose(step, n=N), ls) for name, acc, ls in _APPROXIMATIONS
        ]
    return certified, approx


def tradeoff(path: Path) -> Path:
    """The trade-off curve of the DP-SGD setting: the certified bracket of
    Numerical and three approximations, on the unit square (left) and as the
    distance from the bracket's midpoint (right), where the bracket is visible."""
    certified, approx = _curves()
    with _style(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
        plotting.plot_tradeoff(
            certified, left, label="Numerical (certified)", bounds=True, color="k"
        )
        for name, curve, ls in approx:
            plotting.plot_tradeoff(curve, left, label=name, ls=ls)
        left.plot([0, 1], [1, 0], color="0.6", lw=0.8, ls=":", label="Id")
        left.legend(loc="upper right", fontsize=8)
        left.set_title(rf"$f(\alpha)$, {N} steps, $\sigma$ = {SIGMA}, p = {P}")

        alpha = np.geomspace(1e-7, 0.6, 400)
        lo, hi = certified.tradeoff_bounds(alpha)
        mid = 0.5 * (lo + hi)
        right.fill_between(
            alpha,
            lo - mid,
            hi - mid,
            color="k",
            alpha=0.3,
            lw=0,
            label="certified bracket",
        )
        for name, curve, ls in approx:
            right.plot(alpha, curve.tradeoff(alpha) - mid, ls=ls, label=name)
        right.axhline(0.0, color="k", lw=0.6)
        right.set_xscale("log")
        right.set_yscale("symlog", linthresh=1e-4)
        right.set(
            xlabel=r"type I error $\alpha$",
            ylabel=r"$f(\alpha) - $ bracket midpoint",
            title="distance from the certified bracket",
        )
        right.legend(loc="lower left", fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return path


def privacy_profile(path: Path) -> Path:
    """delta(eps) of the same setting with the certified bracket and the
    approximations (left), and each method's eps(delta) relative to the
    bracket's midpoint over twelve decades of delta (right)."""
    certified, approx = _curves()
    rdp = A.RDP().compose(M.SubsampledGaussian(sigma=SIGMA, p=P), n=N)
    with _style(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
        eps = np.linspace(0.0, 1.15 * certified.epsilon(1e-12), 300)
        plotting.plot_privacy_profile(
            certified,
            left,
            eps=eps,
            label="Numerical (certified)",
            bounds=True,
            color="k",
        )
        for name, curve, ls in approx:
            plotting.plot_privacy_profile(curve, left, eps=eps, label=name, ls=ls)
        plotting.plot_privacy_profile(
            rdp, left, eps=eps, label="RDP (upper bound)", color="0.5", lw=0.9
        )
        left.set_ylim(1e-13, 1.0)
        left.legend(loc="lower left", fontsize=8)
        left.set_title(r"privacy profile $\delta(\varepsilon)$")

        deltas = np.geomspace(1e-12, 1e-1, 60)
        lo, hi = certified.epsilon_bounds(deltas)
        mid = 0.5 * (lo + hi)
        right.fill_between(
            deltas,
            lo / mid - 1,
            hi / mid - 1,
            color="k",
            alpha=0.3,
            lw=0,
            label="certified bracket",
        )
        for name, curve, ls in approx:
            right.plot(deltas, curve.epsilon(deltas) / mid - 1, ls=ls, label=name)
        right.plot(
            deltas,
            rdp.epsilon(deltas) / mid - 1,
            color="0.5",
            lw=0.9,
            label="RDP (upper bound)",
        )
        right.axhline(0.0, color="k", lw=0.6)
        right.set_xscale("log")
        right.set_yscale("symlog", linthresh=1e-3)
        right.set(
            xlabel=r"$\delta$",
            ylabel=r"$\varepsilon(\delta)$ / bracket midpoint $- 1$",
            title=r"relative error of $\varepsilon(\delta)$",
        )
        right.legend(loc="upper right", fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return path


def _accuracy_map_module() -> Any:
    """``benchmarks/accuracy_map.py``, whose ``figure`` draws the map."""
    bench = str(ROOT / "benchmarks")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    spec = importlib.util.spec_from_file_location(
        "accuracy_map", ROOT / "benchmarks" / "accuracy_map.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_accuracy_rows(path: Path) -> list[dict[str, Any]]:
    floats = (
        "sigma",
        "p",
        "delta",
        "eps_ref",
        "eps_lo",
        "eps_hi",
        "ref_rel_width",
        "eps_method",
        "rel_error",
        "seconds",
    )
    ints = ("n", "resolved", "ref_zero", "below_bracket", "approx_warning")
    rows = []
    with open(path, newline="") as fh:
        for raw in csv.DictReader(fh):
            row: dict[str, Any] = dict(raw)
            for key in floats:
                row[key] = float(raw[key]) if raw[key] not in ("", None) else math.nan
            for key in ints:
                row[key] = int(raw[key])
            rows.append(row)
    return rows


def accuracy_map(path: Path) -> Path:
    """The accuracy map of ``benchmarks/accuracy_map.py``, drawn from its
    committed results (``benchmarks/results/accuracy_map.csv``) with the
    benchmark's own drawing code."""
    module = _accuracy_map_module()
    module.figure(_read_accuracy_rows(RESULTS / "accuracy_map.csv"), path)
    return path


FIGURES: dict[str, Callable[[Path], Path]] = {
    "tradeoff.png": tradeoff,
    "privacy_profile.png": privacy_profile,
    "accuracy_map.png": accuracy_map,
}


def draw_all(out: Path) -> list[Path]:
    """Draw every figure into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    return [draw(out / name) for name, draw in FIGURES.items()]


if __name__ == "__main__":
    for p in draw_all(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("figures")):
        print(p)
