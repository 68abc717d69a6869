"""symfdp behind dp-accounting's and Opacus's interfaces, against their own accountants.

Run: ``python benchmarks/bench_interop.py`` (writes
benchmarks/results/interop.json and prints a table; about two minutes, most of
it dp-accounting's mixture-of-Gaussians PLD).

(a) ``SymfdpAccountant`` (dp-accounting's ``PrivacyAccountant`` interface, the
    certified numerical accountant behind it) against dp-accounting's
    ``PLDAccountant`` (default value discretisation 1e-4, pessimistic) on the same
    ``DpEvent``s: eps(1e-5), symfdp's certified bracket, whether PLD's answer lies
    in it, and the wall time of compose + get_epsilon (one cold call each).
(b) ``OpacusAccountant`` against Opacus's ``RDPAccountant`` and ``PRVAccountant``
    on the same histories (needs Opacus; skipped without it).
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

from _common import git_state, machine, write_json

OUT = Path(__file__).resolve().parent / "results" / "interop.json"
DELTA = 1e-5


def _dp_accounting_cases() -> list[tuple[str, Any, Any]]:
    from dp_accounting import NeighboringRelation as NR
    from dp_accounting import dp_event as de

    def sg(sigma: float, p: float, n: int) -> Any:
        return de.SelfComposedDpEvent(
            de.PoissonSampledDpEvent(p, de.GaussianDpEvent(sigma)), n
        )

    return [
        ("SG sigma=1.1 p=0.01 n=1000", sg(1.1, 0.01, 1000), NR.ADD_OR_REMOVE_ONE),
        ("SG sigma=0.8 p=0.01024 n=2930", sg(0.8, 0.01024, 2930), NR.ADD_OR_REMOVE_ONE),
        (
            "Gaussian sigma=2 n=10",
            de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), 10),
            NR.ADD_OR_REMOVE_ONE,
        ),
        (
            "Laplace b=1 n=5",
            de.SelfComposedDpEvent(de.LaplaceDpEvent(1.0), 5),
            NR.ADD_OR_REMOVE_ONE,
        ),
        (
            "SL p=0.02 b=2 n=100 + Gaussian sigma=5",
            de.ComposedDpEvent(
                [
                    de.SelfComposedDpEvent(
                        de.PoissonSampledDpEvent(0.02, de.LaplaceDpEvent(2.0)), 100
                    ),
                    de.GaussianDpEvent(5.0),
                ]
            ),
            NR.ADD_OR_REMOVE_ONE,
        ),
        (
            "Gaussian sigma=2 n=4, replace-one",
            de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), 4),
            NR.REPLACE_ONE,
        ),
        (
            "DiscreteLaplace a=0.5 s=1 n=20",
            de.SelfComposedDpEvent(de.DiscreteLaplaceDpEvent(0.5, 1), 20),
            NR.ADD_OR_REMOVE_ONE,
        ),
        (
            "RandomizedResponse p=0.3 k=4, replace-one",
            de.RandomizedResponseDpEvent(0.3, 4),
            NR.REPLACE_ONE,
        ),
        (
            "MixtureOfGaussians sd=2 c=(0,1,2) n=10",
            de.SelfComposedDpEvent(
                de.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2]),
                10,
            ),
            NR.ADD_OR_REMOVE_ONE,
        ),
        (
            "TruncatedSG N=1000 q=0.01 B=12 sigma=1 n=100",
            de.SelfComposedDpEvent(
                de.TruncatedSubsampledGaussianDpEvent(1000, 0.01, 12, 1.0), 100
            ),
            NR.ADD_OR_REMOVE_ONE,
        ),
    ]


def bench_dp_accounting() -> list[dict[str, Any]]:
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    from symfdp.interop.dp_accounting import SymfdpAccountant

    rows = []
    for name, event, relation in _dp_accounting_cases():
        t0 = time.perf_counter()
        pld = PLDAccountant(relation).compose(event).get_epsilon(DELTA)
        t_pld = time.perf_counter() - t0
        t0 = time.perf_counter()
        acc = SymfdpAccountant(relation).compose(event)
        ours = acc.get_epsilon(DELTA)
        t_ours = time.perf_counter() - t0
        lo, hi = acc.get_epsilon_bounds(DELTA)
        rows.append(
            {
                "case": name,
                "relation": relation.name,
                "pld_eps": pld,
                "pld_seconds": t_pld,
                "symfdp_eps_upper": ours,
                "symfdp_bracket": [lo, hi],
                "pld_in_bracket": lo <= pld <= hi,
                "pld_minus_upper": pld - hi,
                "time_ratio_pld_over_symfdp": t_pld / t_ours,
                "symfdp_seconds": t_ours,
            }
        )
    return rows


def bench_opacus() -> list[dict[str, Any]] | None:
    try:
        from opacus.accountants import PRVAccountant, RDPAccountant
    except ImportError:
        return None
    from symfdp.interop.opacus import OpacusAccountant

    rows = []
    for history in (
        [(1.0, 1 / 16, 12)],
        [(0.8, 0.01024, 2930)],
        [(1.1, 256 / 60000, 14000)],
    ):
        record: dict[str, Any] = {"history": history}
        for name, cls in (("rdp", RDPAccountant), ("prv", PRVAccountant)):
            acc = cls()
            acc.history = list(history)
            t0 = time.perf_counter()
            record[f"opacus_{name}_eps"] = acc.get_epsilon(delta=DELTA)
            record[f"opacus_{name}_seconds"] = time.perf_counter() - t0
        ours = OpacusAccountant()
        ours.history = history
        t0 = time.perf_counter()
        record["symfdp_eps_upper"] = ours.get_epsilon(DELTA)
        record["symfdp_seconds"] = time.perf_counter() - t0
        record["symfdp_bracket"] = list(ours.accountant.get_epsilon_bounds(DELTA))
        rows.append(record)
    return rows


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dpa_rows = bench_dp_accounting()
        opacus_rows = bench_opacus()
    print(f"dp-accounting PLDAccountant vs SymfdpAccountant, eps({DELTA:g})")
    for r in dpa_rows:
        lo, hi = r["symfdp_bracket"]
        print(
            f"  {r['case']:40s} PLD {r['pld_eps']:.6f} ({r['pld_seconds']:.2f} s)  "
            f"symfdp [{lo:.6f}, {hi:.6f}] ({r['symfdp_seconds']:.2f} s)  "
            f"PLD in bracket: {r['pld_in_bracket']}"
        )
    if opacus_rows:
        print(f"Opacus RDP / PRV vs OpacusAccountant, eps({DELTA:g})")
        for r in opacus_rows:
            lo, hi = r["symfdp_bracket"]
            print(
                f"  {r['history']!s:36s} RDP {r['opacus_rdp_eps']:.4f}  "
                f"PRV {r['opacus_prv_eps']:.4f} ({r['opacus_prv_seconds']:.2f} s)  "
                f"symfdp [{lo:.5f}, {hi:.5f}] ({r['symfdp_seconds']:.2f} s)"
            )
    write_json(
        OUT,
        {
            "machine": machine(),
            "git": git_state(),
            "delta": DELTA,
            "dp_accounting": dpa_rows,
            "opacus": opacus_rows,
        },
    )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
