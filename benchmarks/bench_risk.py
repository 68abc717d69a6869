"""Benchmark the risk measures of symfdp.risk against riskcal and gdpnum.

Run: ``python benchmarks/bench_risk.py`` (writes benchmarks/results/risk.json and
prints a table). Per DP-SGD setting, measured in the same run:

- symfdp: ``Numerical().compose`` then ``risk.report`` (TPR at three FPRs per
  direction, advantage, Bayes risk, ReRo, mu and regret), each with its
  certified bracket; and ``risk.predict_gdp_fit`` (the Edgeworth prediction,
  no FFT);
- riskcal: a dp-accounting PLD (connect-the-dots, ``value_discretization_interval
  = 1e-4``) then ``get_advantage_from_pld``, ``get_bayes_risk_from_pld`` and
  ``get_beta_from_pld`` at the same FPRs;
- gdpnum: ``get_mu_and_regret_for_dpsgd`` (the same PLD inside).

Accuracy is read against symfdp's certified brackets: how far each peer value
lies outside the bracket (0 inside), and, for gdpnum's regret, the bracket of
``risk.delta_divergence`` to ``G_mu`` at gdpnum's own mu (the same quantity).
Times are medians of warm repeats (the first call excluded), with ratios to
symfdp's.
"""

from __future__ import annotations

import warnings
from functools import partial
from pathlib import Path
from typing import Any

import _common
import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import risk
from symfdp import tradeoff as T

OUT = Path(__file__).resolve().parent / "results" / "risk.json"
REPEATS = 3
FPRS = (1e-3, 1e-2, 1e-1)
PRIOR = 0.5
#: (name, sigma, p, steps).
SETTINGS = (
    ("sigma=1,p=0.01,N=1000", 1.0, 0.01, 1000),
    ("cifar10-jax-privacy-eps1", 10.0, 0.08192, 875),
)


def outside(value: float, v: risk.RiskValue) -> float:
    """Distance of ``value`` from ``[v.lower, v.upper]`` (0 inside)."""
    return max(v.lower - value, value - v.upper, 0.0)


def ours(sigma: float, p: float, steps: int) -> tuple[risk.RiskReport, Any]:
    step = M.SubsampledGaussian(sigma=sigma, p=p)
    curve = A.Numerical().compose(step, n=steps)
    return risk.report(curve, fpr=FPRS, prior=PRIOR), curve


def predicted(sigma: float, p: float, steps: int) -> Any:
    return risk.predict_gdp_fit(M.SubsampledGaussian(sigma=sigma, p=p), steps)


def peers(sigma: float, p: float, steps: int) -> dict[str, Any]:
    from dp_accounting.pld.privacy_loss_distribution import from_gaussian_mechanism
    from riskcal.analysis import (
        get_advantage_from_pld,
        get_bayes_risk_from_pld,
        get_beta_from_pld,
    )

    pld = from_gaussian_mechanism(
        standard_deviation=sigma,
        sampling_prob=p,
        use_connect_dots=True,
        value_discretization_interval=1e-4,
    ).self_compose(steps)
    beta = np.asarray(get_beta_from_pld(pld, alpha=np.array(FPRS)))
    return {
        "advantage": float(get_advantage_from_pld(pld)),
        "bayes_risk": float(get_bayes_risk_from_pld(pld, PRIOR)),
        "tpr": [float(1 - b) for b in beta],
    }


def gdpnum_fit(sigma: float, p: float, steps: int) -> tuple[float, float]:
    from gdpnum.dpsgd import get_mu_and_regret_for_dpsgd

    mu, regret = get_mu_and_regret_for_dpsgd(sigma, p, steps)
    return float(mu), float(regret)


def main() -> None:
    rows = []
    for name, sigma, p, steps in SETTINGS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            setting = (sigma, p, steps)
            t_ours, (found, curve) = _common.timings(partial(ours, *setting), REPEATS)
            t_pred, guess = _common.timings(partial(predicted, *setting), REPEATS)
            t_riskcal, rc = _common.timings(partial(peers, *setting), REPEATS)
            t_gdpnum, (g_mu, g_regret) = _common.timings(
                partial(gdpnum_fit, *setting), REPEATS
            )
            same = risk.delta_divergence(curve, T.Gaussian(g_mu))
            tail5 = risk.gdp_fit(curve, tail=1e-5)
        base = t_ours["median_s"]
        rows.append(
            {
                "setting": {"name": name, "sigma": sigma, "p": p, "steps": steps},
                "symfdp": {
                    **t_ours,
                    "report": found.as_json(),
                    "gdp_tail_1e-5": tail5.as_json(),
                },
                "symfdp_edgeworth_prediction": {
                    **t_pred,
                    "ratio_to_symfdp": t_pred["median_s"] / base,
                    "mu": guess.mu,
                    "regret": guess.regret,
                },
                "riskcal": {
                    **t_riskcal,
                    "ratio_to_symfdp": t_riskcal["median_s"] / base,
                    "values": rc,
                    "outside_advantage": outside(rc["advantage"], found.advantage),
                    "outside_bayes_risk": outside(rc["bayes_risk"], found.bayes_risk),
                    "note": "riskcal's get_beta_from_pld combines the PLD's remove "
                    "and add pmfs into one curve; compared with symfdp's worst "
                    "direction and with each direction below",
                    "tpr_vs_directions": [
                        {
                            "fpr": pt.fpr,
                            "riskcal": tpr,
                            "add": [pt.add.lower, pt.add.upper],
                            "remove": None
                            if pt.remove is None
                            else [pt.remove.lower, pt.remove.upper],
                        }
                        for pt, tpr in zip(found.tpr, rc["tpr"], strict=True)
                    ],
                },
                "gdpnum": {
                    **t_gdpnum,
                    "ratio_to_symfdp": t_gdpnum["median_s"] / base,
                    "mu": g_mu,
                    "regret": g_regret,
                    "symfdp_regret_at_gdpnum_mu": same.as_json(),
                    "outside_regret": outside(g_regret, same),
                },
            }
        )
    record = {
        "benchmark": "risk",
        "machine": _common.machine(),
        "git": _common.git_state(),
        "repeats": REPEATS,
        "rows": rows,
    }
    _common.write_json(OUT, record)
    print(f"{'setting':<28}{'symfdp':>9}{'predict':>9}{'riskcal':>9}{'gdpnum':>9}"
          f"{'gdpnum regret':>15}{'symfdp bracket at its mu':>30}")  # fmt: skip
    for r in rows:
        s = r["setting"]["name"]
        b = r["gdpnum"]["symfdp_regret_at_gdpnum_mu"]
        print(
            f"{s:<28}{r['symfdp']['median_s']:>8.2f}s"
            f"{r['symfdp_edgeworth_prediction']['median_s']:>8.3f}s"
            f"{r['riskcal']['median_s']:>8.2f}s{r['gdpnum']['median_s']:>8.2f}s"
            f"{r['gdpnum']['regret']:>15.5f}"
            f"{'':>6}[{b['lower']:.5f}, {b['upper']:.5f}]"
        )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
