"""Zheng et al. (2020), Table 1: runtime for estimating the trade-off function of
Lap(0,1)^n vs Lap(3/sqrt(n),1)^n, n = 2, 4, 6, 8, 10, re-measured on this machine.

Text (Sec. 5.2): "CLT takes constant computing time at the scale of 1e-4 second";
the runtime of Edgeworth "is also invariant of the composition number, which is at
the scale of 0.1 second"; "Numerical is computationally heavy. Its runtime is much
larger and grows linearly as the number of compositions." As the reproduction
rules say, the checked claims are the shapes in n and the speed-up, not absolute
seconds (hardware and implementation differ).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.reproduce import Result, Spec, claim_holds

# Zheng et al. (2020), Table 1 (seconds; MacBook, 2.5 GHz, 16 GB), for comparison only.
PUBLISHED: dict[str, dict[int, float]] = {
    "CLT": {2: 0.0004, 4: 0.0004, 6: 0.0004, 8: 0.0004, 10: 0.0005},
    "Edgeworth": {2: 0.2347, 4: 0.2341, 6: 0.2391, 8: 0.2222, 10: 0.2234},
    "Numerical": {2: 3.6834, 4: 7.3361, 6: 12.055, 8: 16.729, 10: 21.3575},
}

SPEC = Spec(
    id="zheng2020-table1",
    title="Runtime of CLT, Edgeworth and Numerical (FFT and the Sec. 5.1 recursion) "
    "for the Laplace composition, re-measured",
    source="Zheng et al. (2020), Table 1 and Sec. 5.2",
    params={
        "ns": [2, 4, 6, 8, 10],
        "c": 3.0,
        "n_alpha": 100,
        "alpha_min": 1e-7,
        "repeats": 9,
        "min_sample_seconds": 0.02,
        "flat_slope": 0.25,
        "r2_min": 0.95,
        "speedup_min": 1000.0,
    },
    quick={"ns": [2, 6, 10], "repeats": 5, "min_sample_seconds": 0.01},
    notes=(
        "Each entry is the best over `repeats` samples of the mean CPU time "
        "(time.process_time, robust to other jobs sharing the machine; the paper "
        "reports wall time) of "
        "compose + tradeoff on the 100-point alpha grid linspace(1e-7, 1 - 1e-7, 100) "
        "(timeit style: each sample repeats the call until it lasts "
        "min_sample_seconds), after one untimed warm-up per method (compiled "
        "evaluators, quadrature rules).",
        "As in the authors' code, the per-step cumulants are computed before CLT and "
        "Edgeworth are timed (symfdp caches them per mechanism); their cost is "
        "measured separately (row 'cumulants': m.cumulants(4, 'P') and (4, 'Q') on a "
        "fresh mechanism) and is independent of n.",
        "Numerical (published) is the paper's Sec. 5.1 recursion with scipy quad per "
        "grid point; ours are A.Numerical() (certified FFT) and "
        "A.Numerical(method='recursion') (the same recursion on the paper's eps grid "
        "linspace(-6, 6, 100), linear interpolation between grid points as in the "
        "authors' code, one matrix-vector product over a "
        "fixed quadrature rule per step).",
        "The Laplace quadrature rule of symfdp has 130 nodes for theta >= 1.07 and 66 "
        "below, so with theta = 3/sqrt(n) the recursion's cost per step halves "
        "between n = 6 and n = 8; the linear growth in n is therefore checked on a "
        "controlled series with theta fixed at 3/sqrt(10) for every n ('Numerical "
        "(recursion, fixed theta)').",
        "'Flat in n' is read as a fitted log-log slope of time vs n within +-0.25 of "
        "0 (the tolerance used for rates); 'grows linearly' as an affine fit "
        "t = a + b n with b > 0 and R^2 >= 0.95. The absolute scales (1e-4 s, 0.1 s) "
        "and 'much larger' are implementation statements and are not checked: our "
        "vectorised recursion is faster than our Edgeworth at these n.",
        "Table 'accuracy': sup and mean over the alpha grid of |recursion - FFT|, "
        "with linear interpolation (timed, as in the authors' code) and with the "
        "floor rounding printed in Sec. 5.1 (pessimistic, its shift accumulates "
        "over the n steps on the 0.12-spaced grid).",
    ),
)

METHODS = ("CLT", "Edgeworth", "Numerical (FFT)", "Numerical (recursion)")


def _best_time(fn: Callable[[], Any], repeats: int, min_seconds: float) -> float:
    """Best over ``repeats`` samples of the mean CPU time of ``fn`` (timeit style).

    CPU time of the process, not wall time: the machine is shared, and preemption
    by other jobs would otherwise be counted.
    """
    start = time.process_time()
    fn()
    once = max(time.process_time() - start, 1e-7)
    number = max(1, math.ceil(min_seconds / once))
    best = math.inf
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - start) / number)
    return best


def _accountant(method: str) -> Any:
    return {
        "CLT": A.CLT(),
        "Edgeworth": A.Edgeworth(order=2),
        "Numerical (FFT)": A.Numerical(),
        # The authors' code interpolates linearly between eps grid points.
        "Numerical (recursion)": A.Numerical(method="recursion", rounding="linear"),
    }[method]


def _slope(ns: list[int], t: list[float]) -> float:
    return float(np.polyfit(np.log(ns), np.log(t), 1)[0])


def _affine(ns: list[int], t: list[float]) -> tuple[float, float, float]:
    x, y = np.asarray(ns, float), np.asarray(t)
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    r2 = 1.0 - float(np.sum(resid**2) / np.sum((y - y.mean()) ** 2))
    return float(a), float(b), r2


def compute(params: dict[str, Any]) -> Result:
    a0 = params["alpha_min"]
    alpha = np.linspace(a0, 1.0 - a0, params["n_alpha"])
    reps, min_s = params["repeats"], params["min_sample_seconds"]
    ns = list(params["ns"])

    def run(acc: Any, mech: Any, n: int) -> Callable[[], Any]:
        return lambda: acc.compose(mech, n).tradeoff(alpha)

    warm = M.Laplace(mu=0.77)
    for method in METHODS:
        run(_accountant(method), warm, 3)()

    ours: dict[str, dict[int, float]] = {m: {} for m in METHODS}
    ours["cumulants"] = {}
    ours["Numerical (recursion, fixed theta)"] = {}
    fixed = M.Laplace(mu=params["c"] / math.sqrt(max(ns)))
    accuracy: dict[str, dict[int, float]] = {}
    counter = iter(range(1, 10**6))
    for n in ns:
        theta = params["c"] / math.sqrt(n)
        mech = M.Laplace(mu=theta)
        # Fresh (slightly perturbed, hence uncached) mechanisms for the cumulants.
        ours["cumulants"][n] = _best_time(
            lambda theta=theta: [
                M.Laplace(mu=theta * (1 + 1e-12 * next(counter))).cumulants(4, u)
                for u in ("P", "Q")
            ],
            reps,
            min_s,
        )
        run(A.CLT(), mech, n)()  # cumulants computed up front, as the paper does
        run(A.Edgeworth(order=2), mech, n)()
        for method in METHODS:
            ours[method][n] = _best_time(run(_accountant(method), mech, n), reps, min_s)
        ours["Numerical (recursion, fixed theta)"][n] = _best_time(
            run(_accountant("Numerical (recursion)"), fixed, n), reps, min_s
        )
        fft = np.asarray(
            _accountant("Numerical (FFT)").compose(mech, n).tradeoff(alpha)
        )
        for rounding in ("linear", "floor"):
            rec = A.Numerical(method="recursion", rounding=rounding).compose(mech, n)
            gap = np.abs(np.asarray(rec.tradeoff(alpha)) - fft)
            accuracy.setdefault(f"sup_{rounding}", {})[n] = float(gap.max())
            accuracy.setdefault(f"mean_{rounding}", {})[n] = float(gap.mean())

    rows: dict[str, list[Any]] = {
        "method": [],
        "n": [],
        "published_s": [],
        "ours_s": [],
    }
    paper_name = {"Numerical (recursion)": "Numerical"}
    for method, by_n in ours.items():
        pub = PUBLISHED.get(paper_name.get(method, method), {})
        for n, t in by_n.items():
            rows["method"].append(method)
            rows["n"].append(n)
            rows["published_s"].append(pub.get(n, math.nan))
            rows["ours_s"].append(t)
    table = {k: np.asarray(v) for k, v in rows.items()}
    acc_table = {
        "n": np.asarray(ns, dtype=float),
        **{
            f"{key}_recursion_vs_fft": np.array([v[n] for n in ns])
            for key, v in accuracy.items()
        },
    }

    tclt, tew = list(ours["CLT"].values()), list(ours["Edgeworth"].values())
    s_clt, s_ew = _slope(ns, tclt), _slope(ns, tew)
    rec_fixed = list(ours["Numerical (recursion, fixed theta)"].values())
    a, b, r2 = _affine(ns, rec_fixed)
    rec_paper = list(ours["Numerical (recursion)"].values())
    n_max = max(ns)
    speedup = PUBLISHED["Numerical"][n_max] / ours["Numerical (FFT)"][n_max]
    pub_clt = list(PUBLISHED["CLT"].values())
    pub_ew = list(PUBLISHED["Edgeworth"].values())
    pub_num = list(PUBLISHED["Numerical"].values())
    pub_ns = list(PUBLISHED["CLT"])
    fl = params["flat_slope"]

    def ratio(t: list[float]) -> float:
        return max(t) / min(t)

    claims = (
        claim_holds(
            "clt-constant",
            "CLT takes constant computing time",
            f"CLT seconds {pub_clt} (log-log slope {_slope(pub_ns, pub_clt):.2f})",
            f"slope {s_clt:.2f}, max/min {ratio(tclt):.2f}, "
            f"{min(tclt):.1e}-{max(tclt):.1e} s",
            abs(s_clt) <= fl,
            f"|log-log slope of time vs n| <= {fl:g}",
        ),
        claim_holds(
            "ew-constant",
            "The runtime of Edgeworth is also invariant of the composition number",
            f"Edgeworth seconds {pub_ew} (slope {_slope(pub_ns, pub_ew):.2f})",
            f"slope {s_ew:.2f}, max/min {ratio(tew):.2f}, "
            f"{min(tew):.1e}-{max(tew):.1e} s (cumulants, computed once: "
            f"{max(ours['cumulants'].values()):.1e} s)",
            abs(s_ew) <= fl,
            f"|log-log slope of time vs n| <= {fl:g}",
        ),
        claim_holds(
            "numerical-linear",
            "Numerical's runtime grows linearly as the number of compositions",
            f"Numerical seconds {pub_num} (slope {_slope(pub_ns, pub_num):.2f})",
            f"recursion, theta fixed: t = {a:.2e} + {b:.2e} n s, R^2 = {r2:.3f}, "
            f"log-log slope {_slope(ns, rec_fixed):.2f}; with theta = 3/sqrt(n): "
            + ", ".join(f"{t:.1e}" for t in rec_paper)
            + " s",
            b > 0 and r2 >= params["r2_min"],
            f"affine least-squares fit of the recursion time (theta fixed) has slope "
            f"b > 0 and R^2 >= {params['r2_min']:g}",
        ),
        claim_holds(
            "fft-speedup",
            "Numerical is computationally heavy (speed-up of the FFT accountant over "
            "the published Numerical)",
            f"Numerical at n = {n_max}: {PUBLISHED['Numerical'][n_max]} s",
            f"A.Numerical() at n = {n_max}: {ours['Numerical (FFT)'][n_max]:.2e} s, "
            f"speed-up {speedup:.0f}x",
            speedup >= params["speedup_min"],
            f"published / ours >= {params['speedup_min']:g} at n = {n_max} "
            "(different hardware; an order-of-magnitude statement)",
        ),
    )
    info = {
        "seconds": ours,
        "recursion_fit_fixed_theta": {"a": a, "b": b, "r2": r2},
        "recursion_vs_fft": accuracy,
    }
    return Result({"data": table, "accuracy": acc_table}, claims, info)


STYLE = {
    "CLT": {"color": "b", "marker": "o"},
    "Edgeworth": {"color": "r", "marker": "s"},
    "Numerical (FFT)": {"color": "k", "marker": "^"},
    "Numerical (recursion)": {"color": "purple", "marker": "v"},
    "Numerical (recursion, fixed theta)": {"color": "purple", "marker": "x", "ls": ":"},
    "cumulants": {"color": "orange", "marker": "d", "ls": ":"},
}


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    data = tables["data"]
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
        xlabel="number of compositions $n$",
        ylabel="seconds (ours: CPU, published: wall)",
        title=r"Table 1: Lap$(0,1)^{\otimes n}$ vs Lap$(3/\sqrt{n},1)^{\otimes n}$",
    )
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig
