"""The runtime harness of Zheng et al. (2020), Tables 1 and 2, re-measured.

For every n: the CPU time (:func:`_timing.best_cpu_times`) of compose + tradeoff
on the alpha grid for CLT, Edgeworth (degree 2), the certified FFT accountant
and the paper's Sec. 5.1 recursion, after one untimed warm-up per method; the
per-step cumulants on fresh (slightly perturbed, hence uncached) mechanisms;
and the accuracy of the recursion against the FFT accountant with linear and
floor rounding. Then the tidy runtime table beside the published seconds, the
accuracy table, the claims both tables make (a method's time is flat in n; the
speed-up of the FFT accountant over the published Numerical) and the figure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import _fits
import _tables
import _timing
import _zheng
import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp.reproduce import Claim, claim_holds

METHODS = ("CLT", "Edgeworth", "Numerical (FFT)", "Numerical (recursion)")
#: The published row each of our methods is compared with, where the names differ.
PAPER_NAME = {"Numerical (recursion)": "Numerical"}


def accountant(method: str, clt: Callable[[], Any]) -> Any:
    """A fresh accountant of ``method``; ``clt`` makes the CLT accountant."""
    return {
        "CLT": clt,
        "Edgeworth": lambda: A.Edgeworth(order=2),
        "Numerical (FFT)": A.Numerical,
        # The authors' code interpolates linearly between eps grid points.
        "Numerical (recursion)": lambda: A.Numerical(
            method="recursion", rounding="linear"
        ),
    }[method]()


def measure(
    params: dict[str, Any],
    mechanism: Callable[[int, float], Any],
    warm: Any,
    *,
    clt: Callable[[], Any],
    symmetric: bool,
    extra: dict[str, Callable[[int], tuple[str, Any]]] | None = None,
) -> tuple[dict[str, dict[int, float]], dict[str, dict[int, float]]]:
    """CPU seconds per method and n, and the recursion's accuracy per n.

    Args:
        params: ``ns``, ``n_alpha``, ``alpha_min``, ``repeats``,
            ``min_sample_seconds``.
        mechanism: (n, bump) -> the single-step mechanism at n, its parameter
            scaled by 1 + bump (bump > 0 gives an uncached copy).
        warm: The mechanism of the untimed warm-up (3 steps).
        clt: Makes the CLT accountant.
        symmetric: Time ``tradeoff(alpha)`` (symmetrised) or the raw g,
            ``tradeoff(alpha, symmetric=False)``.
        extra: Further timed series: name -> (n -> (method, mechanism)).

    Returns:
        ``seconds[method][n]`` (the methods, then "cumulants", then ``extra``)
        and ``accuracy[f"{stat}_{rounding}"][n]``, stat in sup/mean of
        |recursion - FFT| over alpha, rounding in linear/floor.
    """
    alpha = _zheng.authors_alpha_grid(params["n_alpha"], params["alpha_min"])
    reps, min_s = params["repeats"], params["min_sample_seconds"]
    extra = extra or {}

    def curve(acc: Any, mech: Any, n: int) -> Any:
        composed = acc.compose(mech, n)
        if symmetric:
            return composed.tradeoff(alpha)
        return composed.tradeoff(alpha, symmetric=False)

    def run(acc: Any, mech: Any, n: int) -> Callable[[], Any]:
        return lambda: curve(acc, mech, n)

    for method in METHODS:
        run(accountant(method, clt), warm, 3)()

    seconds: dict[str, dict[int, float]] = {m: {} for m in METHODS}
    seconds["cumulants"] = {}
    for name in extra:
        seconds[name] = {}
    accuracy: dict[str, dict[int, float]] = {}
    counter = iter(range(1, 10**6))
    tasks: dict[tuple[str, int], Callable[[], Any]] = {}
    mechs = {n: mechanism(n, 0.0) for n in params["ns"]}
    for n, mech in mechs.items():
        tasks["cumulants", n] = lambda n=n: [
            mechanism(n, 1e-12 * next(counter)).cumulants(4, u) for u in ("P", "Q")
        ]
        run(clt(), mech, n)()  # cumulants computed up front, as the paper does
        run(A.Edgeworth(order=2), mech, n)()
        for method in METHODS:
            tasks[method, n] = run(accountant(method, clt), mech, n)
        for name, series in extra.items():
            method, other = series(n)
            tasks[name, n] = run(accountant(method, clt), other, n)
    for (name, n), best in _timing.best_cpu_times(tasks, reps, min_s).items():
        seconds[name][n] = best
    for n, mech in mechs.items():
        fft = np.asarray(curve(accountant("Numerical (FFT)", clt), mech, n))
        for rounding in ("linear", "floor"):
            rec = A.Numerical(method="recursion", rounding=rounding)
            gap = np.abs(np.asarray(curve(rec, mech, n)) - fft)
            accuracy.setdefault(f"sup_{rounding}", {})[n] = float(gap.max())
            accuracy.setdefault(f"mean_{rounding}", {})[n] = float(gap.mean())
    return seconds, accuracy


def runtime_table(
    seconds: dict[str, dict[int, float]], published: dict[str, dict[int, float]]
) -> _tables.Table:
    """Tidy rows (method, n, published_s, ours_s); NaN where nothing is published."""
    rows = _tables.Rows("method", "n", "published_s", "ours_s")
    for method, by_n in seconds.items():
        pub = published.get(PAPER_NAME.get(method, method), {})
        for n, t in by_n.items():
            rows.add(method, n, pub.get(n, math.nan), t)
    return rows.table()


def accuracy_table(
    ns: list[int], accuracy: dict[str, dict[int, float]]
) -> _tables.Table:
    """One row per n: sup and mean of |recursion - FFT| for each rounding."""
    return {
        "n": np.asarray(ns, dtype=float),
        **{
            f"{key}_recursion_vs_fft": np.array([v[n] for n in ns])
            for key, v in accuracy.items()
        },
    }


def flat_summary(times: list[float], slope: float) -> str:
    """'slope s, max/min r, lo-hi s' of a runtime series."""
    return (
        f"slope {slope:.2f}, max/min {max(times) / min(times):.2f}, "
        f"{min(times):.1e}-{max(times):.1e} s"
    )


def flat_claim(
    claim_id: str,
    statement: str,
    published: str,
    ns: list[int],
    times: list[float],
    flat: float,
    note: str = "",
) -> Claim:
    """The claim that a method's time does not depend on n: the log-log slope of
    ``times`` vs ``ns`` lies within ``flat`` of 0 (``note`` ends our summary)."""
    slope = _fits.loglog_slope(ns, times)
    return claim_holds(
        claim_id,
        statement,
        published,
        flat_summary(times, slope) + note,
        abs(slope) <= flat,
        f"|log-log slope of time vs n| <= {flat:g}",
        timed=True,
    )


def fft_speedup_claim(
    statement: str,
    published: dict[str, dict[int, float]],
    seconds: dict[str, dict[int, float]],
    params: dict[str, Any],
    note: str = "",
) -> Claim:
    """ "fft-speedup": published Numerical / our FFT accountant >= speedup_min at
    the largest n (``note`` ends our summary)."""
    n_max = max(params["ns"])
    speedup = published["Numerical"][n_max] / seconds["Numerical (FFT)"][n_max]
    return claim_holds(
        "fft-speedup",
        statement,
        f"Numerical at n = {n_max}: {published['Numerical'][n_max]} s",
        f"A.Numerical() at n = {n_max}: {seconds['Numerical (FFT)'][n_max]:.2e} s, "
        f"speed-up {speedup:.0f}x" + note,
        speedup >= params["speedup_min"],
        f"published / ours >= {params['speedup_min']:g} at n = {n_max} "
        "(different hardware; an order-of-magnitude statement)",
        timed=True,
    )


STYLE = {
    "CLT": {"color": "b", "marker": "o"},
    "Edgeworth": {"color": "r", "marker": "s"},
    "Numerical (FFT)": {"color": "k", "marker": "^"},
    "Numerical (recursion)": {"color": "purple", "marker": "v"},
    "Numerical (recursion, fixed theta)": {"color": "purple", "marker": "x", "ls": ":"},
    "cumulants": {"color": "orange", "marker": "d", "ls": ":"},
}


def runtime_figure(
    data: _tables.Table, *, title: str, log_n: bool = False
) -> plt.Figure:
    """Our CPU seconds (solid) and the published wall seconds (dashed) vs n."""
    fig, ax = plt.subplots(figsize=(6.6, 4.6))
    for method, style in STYLE.items():
        sel = data["method"] == method
        if not sel.any():
            continue
        style = {"ls": "-", **style}
        ax.plot(data["n"][sel], data["ours_s"][sel], label=f"{method} (ours)", **style)
    published_rows = (
        ("CLT", "CLT", "b"),
        ("Edgeworth", "Edgeworth", "r"),
        ("Numerical (recursion)", "Numerical", "k"),
    )
    for method, label, colour in published_rows:
        sel = data["method"] == method
        ax.plot(
            data["n"][sel],
            data["published_s"][sel],
            color=colour,
            ls="--",
            marker="o",
            mfc="none",
            label=f"{label} (published)",
        )
    ax.set(
        yscale="log",
        **({"xscale": "log"} if log_n else {}),
        xlabel="number of compositions $n$",
        ylabel="seconds (ours: CPU, published: wall)",
        title=title,
    )
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig
