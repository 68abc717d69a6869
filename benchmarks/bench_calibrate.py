"""Benchmark noise calibration (issue 35): symfdp next to the calibrators users
know, in one run, and symfdp alone over the issue's grid.

Run: ``python benchmarks/bench_calibrate.py [--quick]`` (writes
``benchmarks/results/calibrate.json`` and prints two tables; the peers take
most of the time: several minutes, the quick run one or two).

**Peers** (DP-SGD: n Poisson-subsampled Gaussian steps, add-or-remove
neighbours; target eps at delta = 1e-5; sigma calibrated):

- symfdp ``calibrate.calibrate(epsilon_target(eps, delta), "sigma", p=, n=)``
  (default: closed-form GDP start, analytic secant steps, certified
  ``Numerical`` end, ``rtol`` 1e-3 on eps);
- dp-accounting ``mechanism_calibration.calibrate_dp_mechanism`` with a fresh
  ``PLDAccountant()`` (default discretisation) and ``RdpAccountant()``;
- Opacus ``accountants.utils.get_noise_multiplier`` with ``accountant="rdp"``
  (its default) and ``"prv"`` (``epsilon_tolerance`` 0.01, its default);
- riskcal ``calibration.dpsgd.calibrate_parameter`` with
  ``create_dpsgd_epsilon_evaluator`` (its PLD, ``grid_step`` 1e-4) on sigma in
  [0.1, 50] (its default range starts at 0, where its PLD raises).

For each, after one untimed warm-up calibration per tool (imports, compiled
evaluators): the median wall time over three repeats (one where the first takes
over two seconds; each repeat aims at a target moved by 1e-9 relative, so no
composition is reused from the one before), the
compositions it made (symfdp: certified and analytic separately; peers: every
evaluation of eps), its sigma, and the certified bracket of eps(delta) at that
sigma from symfdp's ``Numerical`` (does the peer's answer overshoot the target?
how much noise does it add over symfdp's?). Times are also given as ratios to
symfdp's in the same run.

**Grid** (symfdp only, the issue's ranges: sigma 0.3-10, p 1e-4-1, steps
1-1e6): sigma, the sample rate or the steps calibrated for eps(delta), delta(eps)
and mu* targets; each row records the answer, the certified upper end (<= the
target always), whether it lies within 1% of the target, why the search stopped,
the compositions spent, the time, or the error for a target out of reach.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _common

from symfdp import accountants as A
from symfdp import calibrate as C
from symfdp import mechanisms as M
from symfdp._warnings import ApproximationWarning

OUT = Path(__file__).resolve().parent / "results" / "calibrate.json"
DELTA = 1e-5
#: The README's run first (the issue's goal: about a second), then more
#: (sample rate, steps, target eps).
PEER_SETTINGS = (
    (0.004, 60_000, 3.0),
    (0.004, 60_000, 1.0),
    (0.01, 1000, 8.0),
    (0.001, 100_000, 2.0),
    (0.1, 100, 4.0),
    (1.0, 10, 1.0),
)
QUICK_PEER_SETTINGS = PEER_SETTINGS[:2]
#: riskcal's search range: the defaults of its ``find_noise_multiplier_for_*``.
RISKCAL_RANGE = (0.1, 50.0)
#: A tool whose first calibration takes longer than this is timed once.
ONE_REPEAT_ABOVE_S = 2.0


# ------------------------------------------------------------------ symfdp
def symfdp_sigma(p: float, n: int, eps: float) -> tuple[float, dict[str, Any]]:
    found = C.calibrate(C.epsilon_target(eps, DELTA), "sigma", p=p, n=n)
    return found.value, {
        "certified_evaluations": found.certified_evaluations,
        "approach_evaluations": found.approach_evaluations,
        "approach": found.approach,
        "compositions": found.certified_evaluations + found.approach_evaluations,
    }


# ------------------------------------------------------------------ peers
def dp_accounting_sigma(kind: str) -> Callable[[float, int, float], tuple[float, dict]]:
    def run(p: float, n: int, eps: float) -> tuple[float, dict[str, Any]]:
        import dp_accounting
        from dp_accounting import mechanism_calibration
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.rdp import rdp_privacy_accountant

        count = 0

        def make_event(sigma: float) -> Any:
            nonlocal count
            count += 1
            step = dp_accounting.PoissonSampledDpEvent(
                p, dp_accounting.GaussianDpEvent(sigma)
            )
            return dp_accounting.SelfComposedDpEvent(step, n)

        make = (
            pld_privacy_accountant.PLDAccountant
            if kind == "pld"
            else rdp_privacy_accountant.RdpAccountant
        )
        sigma = mechanism_calibration.calibrate_dp_mechanism(
            make, make_event, eps, DELTA
        )
        return float(sigma), {"compositions": count}

    return run


def opacus_sigma(kind: str) -> Callable[[float, int, float], tuple[float, dict]]:
    def run(p: float, n: int, eps: float) -> tuple[float, dict[str, Any]]:
        from opacus.accountants import PRVAccountant, RDPAccountant
        from opacus.accountants.utils import get_noise_multiplier

        cls = RDPAccountant if kind == "rdp" else PRVAccountant
        original = cls.get_epsilon
        count = 0

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            nonlocal count
            count += 1
            return original(self, *args, **kwargs)

        cls.get_epsilon = counted  # type: ignore[method-assign]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sigma = get_noise_multiplier(
                    target_epsilon=eps,
                    target_delta=DELTA,
                    sample_rate=p,
                    steps=n,
                    accountant=kind,
                )
        finally:
            cls.get_epsilon = original  # type: ignore[method-assign]
        return float(sigma), {"compositions": count}

    return run


def riskcal_sigma(p: float, n: int, eps: float) -> tuple[float, dict[str, Any]]:
    from riskcal.calibration import dpsgd

    evaluate = dpsgd.create_dpsgd_epsilon_evaluator(p, n, DELTA)
    count = 0

    def counted(sigma: float) -> Any:
        nonlocal count
        count += 1
        return evaluate(sigma)

    target = dpsgd.CalibrationTarget(kind="epsilon_delta", epsilon=eps, delta=DELTA)
    # eps decreases in sigma (its default is increasing); its default range
    # starts at sigma = 0, where its PLD raises: the range of its own DP-SGD
    # helpers (noise_min, noise_max) serves.
    config = dpsgd.CalibrationConfig(
        increasing=False, param_min=RISKCAL_RANGE[0], param_max=RISKCAL_RANGE[1]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dpsgd.calibrate_parameter(counted, target, config)
    return float(result.parameter_value), {"compositions": count}


TOOLS: dict[str, Callable[[float, int, float], tuple[float, dict[str, Any]]]] = {
    "symfdp": symfdp_sigma,
    "dp-accounting PLD (calibrate_dp_mechanism)": dp_accounting_sigma("pld"),
    "dp-accounting RDP (calibrate_dp_mechanism)": dp_accounting_sigma("rdp"),
    "opacus get_noise_multiplier (rdp)": opacus_sigma("rdp"),
    "opacus get_noise_multiplier (prv)": opacus_sigma("prv"),
    "riskcal calibrate_parameter (epsilon_delta)": riskcal_sigma,
}


def certified_eps(sigma: float, p: float, n: int) -> tuple[float, float]:
    """symfdp's certified bracket of eps(delta) at ``sigma``."""
    mech = (
        M.Gaussian(sigma=sigma) if p == 1.0 else M.SubsampledGaussian(p=p, sigma=sigma)
    )
    lo, hi = A.Numerical().compose(mech, n).epsilon_bounds(DELTA)
    return float(lo), float(hi)


def peer_row(tool: str, p: float, n: int, eps: float, repeats: int) -> dict[str, Any]:
    fn = TOOLS[tool]
    times, sigma, info = [], math.nan, {}
    try:
        for k in range(repeats):
            target = eps * (1 + 1e-9 * k)  # a new search path each repeat
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ApproximationWarning)
                sigma_k, info_k = fn(p, n, target)
            times.append(time.perf_counter() - t0)
            if k == 0:
                sigma, info = sigma_k, info_k
                if times[0] > ONE_REPEAT_ABOVE_S:
                    break
    except Exception as exc:  # a peer's failure is a result, not a crash
        return {
            "tool": tool,
            "p": p,
            "n": n,
            "target_eps": eps,
            "error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
        }
    lo, hi = certified_eps(sigma, p, n)
    return {
        "tool": tool,
        "p": p,
        "n": n,
        "target_eps": eps,
        "sigma": sigma,
        "median_s": statistics.median(times),
        "first_s": times[0],
        "repeats": len(times),
        **info,
        "certified_eps": [lo, hi],
        "overshoots": hi > eps,
        "overshoot_rel": hi / eps - 1,
    }


def warm_up() -> None:
    """One untimed calibration per tool on one Gaussian step: imports (torch for
    Opacus) and compiled evaluators are not timed."""
    for fn in TOOLS.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(1.0, 1, 1.0)


def peers(settings: tuple[tuple[float, int, float], ...], repeats: int) -> list[dict]:
    warm_up()
    rows = []
    for p, n, eps in settings:
        block = [peer_row(tool, p, n, eps, repeats) for tool in TOOLS]
        ours = block[0]
        for row in block:
            if "error" in row or "error" in ours:
                continue
            row["time_ratio_to_symfdp"] = row["median_s"] / ours["median_s"]
            row["sigma_ratio_to_symfdp"] = row["sigma"] / ours["sigma"]
        rows.extend(block)
    return rows


# ------------------------------------------------------------------ grid
def grid_cases(quick: bool) -> list[tuple[str, str, dict[str, Any], Any]]:
    """(label, parameter, run, target) over the issue's ranges."""
    cases = []
    eps_targets = (0.5, 3.0) if quick else (0.5, 3.0, 10.0)
    for p in (1e-4, 0.01, 1.0):
        for n in (1, 1000, 10**6):
            for eps in eps_targets:
                if quick and (p, n) not in ((1e-4, 1000), (0.01, 10**6), (1.0, 1)):
                    continue
                cases.append(("sigma", {"p": p, "n": n}, C.epsilon_target(eps, DELTA)))
    for sigma in (0.3, 1.0, 10.0):
        for n in (1, 1000, 10**6):
            if quick and (sigma, n) not in ((1.0, 1000), (10.0, 1)):
                continue
            cases.append(
                ("sample_rate", {"sigma": sigma, "n": n}, C.epsilon_target(3.0, DELTA))
            )
        for p in (1e-4, 0.01, 1.0):
            if quick and (sigma, p) not in ((1.0, 0.01), (0.3, 1.0)):
                continue
            cases.append(
                ("steps", {"sigma": sigma, "p": p}, C.epsilon_target(3.0, DELTA))
            )
    for p, n in ((1e-4, 1000), (0.01, 1000), (1.0, 10)):
        if quick and p != 0.01:
            continue
        cases.append(("sigma", {"p": p, "n": n}, C.delta_target(1e-6, 1.0)))
        cases.append(("sigma", {"p": p, "n": n}, C.mu_target(0.5)))
    return [(f"{t.name} <= {t.value:g}", param, run, t) for param, run, t in cases]


def grid(quick: bool) -> list[dict[str, Any]]:
    rows = []
    for label, parameter, run, target in grid_cases(quick):
        row: dict[str, Any] = {"target": label, "solve_for": parameter, **run}
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ApproximationWarning)
                found = C.calibrate(target, parameter, **run)
        except ValueError as exc:
            row.update(error=str(exc), seconds=time.perf_counter() - t0)
            rows.append(row)
            continue
        published = found.published
        row.update(
            value=found.value,
            published=published,
            meets=published <= target.value,
            within_1pct=published >= 0.99 * target.value,
            stop=found.stop.value,
            certified_evaluations=found.certified_evaluations,
            approach_evaluations=found.approach_evaluations,
            approach=found.approach,
            seconds=time.perf_counter() - t0,
        )
        rows.append(row)
    return rows


def summary(peer_rows: list[dict], grid_rows: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {"peers": {}}
    for tool in TOOLS:
        rows = [r for r in peer_rows if r["tool"] == tool and "error" not in r]
        if not rows:
            continue
        out["peers"][tool] = {
            "median_s": statistics.median(r["median_s"] for r in rows),
            "median_compositions": statistics.median(r["compositions"] for r in rows),
            "overshoots": sum(r["overshoots"] for r in rows),
            "cases": len(rows),
            "failures": sum(1 for r in peer_rows if r["tool"] == tool and "error" in r),
        }
    answered = [r for r in grid_rows if "error" not in r]
    out["grid"] = {
        "cases": len(grid_rows),
        "answered": len(answered),
        "out_of_reach": len(grid_rows) - len(answered),
        "all_meet_the_target": all(r["meets"] for r in answered),
        "within_1pct_where_in_window": all(
            r["within_1pct"] for r in answered if r["stop"] == "in window"
        ),
        "max_certified_evaluations": max(
            (r["certified_evaluations"] for r in answered), default=0
        ),
        "median_seconds": statistics.median(r["seconds"] for r in answered)
        if answered
        else None,
    }
    return out


def print_tables(peer_rows: list[dict], grid_rows: list[dict]) -> None:
    head = f"{'p':>7} {'n':>7} {'eps':>4}  {'tool':45} {'sigma':>9} "
    print(f"{head}{'cert. eps upper':>15} {'time':>8} {'x ours':>7} {'comp.':>6}")
    for r in peer_rows:
        head = f"{r['p']:>7g} {r['n']:>7} {r['target_eps']:>4g}  {r['tool']:45.45}"
        if "error" in r:
            print(f"{head} {r['error'][:60]}")
            continue
        over = " OVER" if r["overshoots"] else ""
        print(
            f"{head} {r['sigma']:>9.6f} {r['certified_eps'][1]:>15.6f} "
            f"{r['median_s']:>7.2f}s {r.get('time_ratio_to_symfdp', 1):>7.1f} "
            f"{r['compositions']:>6}{over}"
        )
    print()
    for r in grid_rows:
        run = ", ".join(f"{k}={r[k]:g}" for k in ("sigma", "p", "n") if k in r)
        head = f"{r['solve_for']:>11} [{run:18}] {r['target']:28}"
        if "error" in r:
            print(f"{head} error: {r['error'][:90]}")
            continue
        flag = (
            ""
            if r["meets"] and (r["within_1pct"] or r["stop"] != "in window")
            else " !"
        )
        print(
            f"{head} {r['value']:>11.6g} upper {r['published']:<11.6g} "
            f"{r['stop']:14} cert {r['certified_evaluations']} "
            f"appr {r['approach_evaluations']:>2} {r['seconds']:6.2f}s{flag}"
        )


def peer_versions() -> dict[str, str]:
    """The installed versions of the peers."""
    from importlib import metadata

    out = {}
    for name in ("dp-accounting", "opacus", "torch", "riskcal"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="two peer settings, one repeat, a small grid",
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    settings = QUICK_PEER_SETTINGS if args.quick else PEER_SETTINGS
    peer_rows = peers(settings, repeats)
    grid_rows = grid(args.quick)
    print_tables(peer_rows, grid_rows)
    record = {
        "benchmark": "calibrate",
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "quick": args.quick,
        "delta": DELTA,
        "machine": _common.machine(),
        "peer_versions": peer_versions(),
        "git": _common.git_state(),
        "summary": summary(peer_rows, grid_rows),
        "peers": peer_rows,
        "grid": grid_rows,
    }
    _common.write_json(args.out, record)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
