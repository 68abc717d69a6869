"""Where the time of an analytic query goes, next to its floor (bench_analytic).

Run: ``python benchmarks/query_breakdown.py [--out PATH]`` (writes
``benchmarks/results/query_breakdown.json`` and ``.md``). DP-SGD sigma = 1,
p = 0.01, add/remove adjacency, n = 1e3 and 1e4, as ``bench_analytic.py``.

* Edgeworth (orders 2 and 4), ``delta`` on 1000 eps in [0.1, 5] and one
  ``delta(1.0)``: the public query, and per pair the parts of its answer
  (``pair.answer(Query.DELTA, eps)``): the tail formula's value
  (``TailKernel.survival``, :mod:`symfdp.numeric.edgeworth`), the order gaps
  (``survival_and_gaps`` minus that),
  the pair-identity term of the estimate (``p_term_from_q`` where the cumulant
  series does not diverge), the divergence check (``_diverges``) and the rest;
  the curve layer is the query minus its pairs' answers. Each part is timed on
  its own (minimum over repeats), so the parts carry the noise of the shared
  machine and the rest, a difference, can come out slightly negative.
* SaddlePoint(2), ``epsilon(1e-5)`` and ``delta(1.0)``: the public query and
  the time spent in the pairs' answers (the array code at size 1) in the
  saddle-point Newton solve (``series_newton`` / ``SaddleGrid.solve``, each
  with its pass over the rules), in the estimates and the error estimate
  (``error_at_saddle``: orders 2..5 at two points / ``_estimates``: orders
  1..5 at one point, its solve taken out), in the atom term of the estimate
  (``atom_term`` of :mod:`symfdp.accountants.saddlepoint.atom_term` at the one
  tilt; taken
  out of ``error_at_saddle``'s part) and in the rest, by timing wrappers
  around those functions (the wrappers' own cost, about 1 us per call, is in
  the total).
* The floors of ``_floors.py`` for the same queries.

Times are CPU times of this process (``time.process_time``), the minimum over
repeats: on the shared machine the wall-clock minimum of a sub-millisecond call
still carries other processes' time slices, the CPU time much less. The load
average is recorded.
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
from symfdp.accountants.saddlepoint import inverse as SPI
from symfdp.accountants.saddlepoint import pair as SPM
from symfdp.accountants.saddlepoint.equation import SaddleGrid
from symfdp.accountants.saddlepoint.pair import SaddlePointPairCurve as SP
from symfdp.curve import Query

OUT = Path(__file__).resolve().parent / "results" / "query_breakdown.json"
SIGMA, P, DELTA = 1.0, 0.01, 1e-5
NS = (1_000, 10_000)
EPS_1000 = np.linspace(0.1, 5.0, 1000)


def cpu_min(fn: Callable[[], Any], number: int, repeat: int = 40) -> float:
    """Minimum over ``repeat`` rounds of the CPU time per call of ``fn``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        fn()
        best = float("inf")
        for _ in range(repeat):
            t0 = time.process_time()
            for _ in range(number):
                fn()
            best = min(best, (time.process_time() - t0) / number)
    return best


def mechanism() -> M.SubsampledGaussian:
    return M.SubsampledGaussian(sigma=SIGMA, p=P)


def edgeworth_floor(order: int, n: int) -> _floors.EdgeworthFloor:
    dirs = pair_compositions(normalize_composition(mechanism(), n))
    cums = [
        (summed_cumulants(d, order + 2, "Q"), summed_cumulants(d, order + 2, "P"))
        for d in dirs
    ]
    return _floors.EdgeworthFloor(cums, order)


def edgeworth_rows(order: int, n: int) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        curve = A.Edgeworth(order=order).compose(mechanism(), n)
    floor = edgeworth_floor(order, n)
    out: dict[str, Any] = {}
    for label, e, number in (
        ("delta, 1000 eps", EPS_1000, 20),
        ("delta(1.0)", 1.0, 500),
    ):
        arr = np.atleast_1d(np.asarray(e, dtype=np.float64))
        row: dict[str, Any] = {
            "query": cpu_min(lambda e=e: curve.delta(e), number),
            "floor": cpu_min(lambda a=arr: floor.delta(a), number),
        }
        pairs_total = 0.0
        parts = collections.Counter()
        for bounded in curve.pairs:
            pair = getattr(bounded, "inner", bounded)
            k = pair.kernel
            whole = cpu_min(lambda b=bounded, a=arr: b.answer(Query.DELTA, a), number)
            value = cpu_min(lambda k=k, a=arr: k.survival(a, densities=False), number)
            both = cpu_min(
                lambda k=k, a=arr: k.survival_and_gaps(a, densities=False), number
            )
            # As the pair's answer: the identity term where the series does not
            # diverge.
            kept = arr[~pair._diverges(arr)]
            ident = cpu_min(lambda k=k, a=kept: k.p_term_from_q(a), number)
            div = cpu_min(lambda p=pair, a=arr: p._diverges(a), number)
            parts["value (tail formula)"] += value
            parts["order gaps"] += both - value
            parts["pair-identity term"] += ident
            parts["divergence check"] += div
            parts["rest of the pair"] += whole - both - ident - div
            pairs_total += whole
        row["pairs"] = dict(parts)
        row["curve layer"] = row["query"] - pairs_total
        out[label] = row
    return out


@contextmanager
def wrapped(targets: list[tuple[Any, str, str]]) -> Iterator[collections.Counter]:
    """CPU time spent inside the named methods (outermost call only)."""
    spent: collections.Counter = collections.Counter()
    saved = []
    for obj, name, label in targets:
        fn = getattr(obj, name)
        saved.append((obj, name, fn))

        def timed(*a: Any, _fn: Any = fn, _label: str = label, **k: Any) -> Any:
            t0 = time.process_time()
            try:
                return _fn(*a, **k)
            finally:
                spent[_label] += time.process_time() - t0

        functools.update_wrapper(timed, fn)
        setattr(obj, name, timed)
    try:
        yield spent
    finally:
        for obj, name, fn in saved:
            setattr(obj, name, fn)


def saddlepoint_rows(n: int) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        curve = A.SaddlePoint(order=2).compose(mechanism(), n)
    floor = _floors.SaddlePointFloor(SIGMA, P, n, points=201)
    out: dict[str, Any] = {}
    queries = (
        ("epsilon(1e-5)", lambda: curve.epsilon(DELTA), lambda: floor.epsilon(DELTA)),
        ("delta(1.0)", lambda: curve.delta(1.0), lambda: floor.delta(np.array([1.0]))),
    )
    for label, query, floor_query in queries:
        row: dict[str, Any] = {
            "query": cpu_min(query, 20),
            "floor": cpu_min(floor_query, 20),
        }
        # Parts of the pairs' answers (the array code at size 1); the
        # wrappers count their outermost calls, nested parts are taken out below.
        if label.startswith("epsilon"):
            targets = [
                (SPI, "series_newton", "saddle-point Newton solve"),
                (SPI, "error_at_saddle", "error estimate (orders 2..5, two points)"),
                (SPI, "atom_term", "atom term (one tilt)"),
            ]
        else:
            targets = [
                (SaddleGrid, "solve", "saddle-point Newton solve"),
                (SP, "_estimates", "estimates (orders 2..5)"),
                (SPM, "atom_term", "atom term (one tilt)"),
            ]
        number, best, parts = 20, float("inf"), {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ApproximationWarning)
            query()
            with wrapped(targets) as spent:
                # The round with the least CPU time, and its parts.
                for _ in range(30):
                    spent.clear()
                    t0 = time.process_time()
                    for _ in range(number):
                        query()
                    total = (time.process_time() - t0) / number
                    if total < best:
                        best = total
                        parts = {k: v / number for k, v in spent.items()}
        total = best
        # The atom term is called inside error_at_saddle, the solve inside
        # _estimates: each its own part.
        err_part = "error estimate (orders 2..5, two points)"
        if err_part in parts and "atom term (one tilt)" in parts:
            parts[err_part] -= parts["atom term (one tilt)"]
        est_part = "estimates (orders 2..5)"
        if est_part in parts and "saddle-point Newton solve" in parts:
            parts[est_part] -= parts["saddle-point Newton solve"]
        parts["rest (curve layer, bookkeeping)"] = total - sum(parts.values())
        row["with wrappers"] = total
        row["parts"] = parts
        out[label] = row
    return out


def markdown(result: dict[str, Any]) -> str:
    ms = lambda s: f"{1e3 * s:.3f}"  # noqa: E731
    lines = [
        "# Where an analytic query's time goes (`benchmarks/query_breakdown.py`)",
        "",
        f"Commit `{result['git_commit']}`, {result['utc']}, load average before/after "
        f"{result['loadavg']}. CPU ms per query (minimum over repeats); DP-SGD "
        f"sigma = {SIGMA}, p = {P}, add/remove.",
        "",
    ]
    for n, sec in result["edgeworth"].items():
        for order, rows in sec.items():
            lines += [f"## Edgeworth({order}), n = {n}", ""]
            lines += [
                "| query | public query | floor | ratio | curve layer "
                "| per pair (both pairs summed) |",
                "|---|---|---|---|---|---|",
            ]
            for label, row in rows.items():
                pairs = ", ".join(f"{k} {ms(v)}" for k, v in row["pairs"].items())
                lines.append(
                    f"| {label} | {ms(row['query'])} | {ms(row['floor'])} | "
                    f"{row['query'] / row['floor']:.2f} | "
                    f"{ms(row['curve layer'])} | {pairs} |"
                )
            lines.append("")
    for n, rows in result["saddlepoint"].items():
        lines += [f"## SaddlePoint(2), n = {n}", ""]
        lines += [
            "| query | public query | floor | ratio | with timing wrappers: parts |",
            "|---|---|---|---|---|",
        ]
        for label, row in rows.items():
            parts = ", ".join(f"{k} {ms(v)}" for k, v in row["parts"].items())
            lines.append(
                f"| {label} | {ms(row['query'])} | {ms(row['floor'])} | "
                f"{row['query'] / row['floor']:.2f} | {parts} |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="result JSON path")
    args = parser.parse_args()
    before = os.getloadavg()
    state = _common.git_state()
    result: dict[str, Any] = {
        "benchmark": "query_breakdown",
        "utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "git_commit": "unknown"
        if state is None
        else state[0] + ("+dirty" if state[1] else ""),
        "machine": _common.machine(),
        "edgeworth": {n: {o: edgeworth_rows(o, n) for o in (2, 4)} for n in NS},
        "saddlepoint": {n: saddlepoint_rows(n) for n in NS},
    }
    result["loadavg"] = [before, os.getloadavg()]
    _common.write_json(args.out, result)
    args.out.with_suffix(".md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
