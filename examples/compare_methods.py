"""Every accountant on one DP-SGD question, and the figures that compare them.

For the subsampled Gaussian (sigma = 1, p = 0.01) composed n times, prints
epsilon(1e-5), the certified bracket (numerical), mu* and the runtime of each
method, for n = 100, 1000 and 10000. Then draws, for n = 1000, the trade-off
curves with the (eps, delta) supporting lines, the privacy profiles on a log
axis, and the (mu*, gamma) picture of Zheng et al. (2020), Fig. 4.1 (Edgeworth
against the CLT). Figures go to ``--out`` (default ``results/examples``) as PNG,
with their data as CSV beside them.

Run: ``python examples/compare_methods.py [--out DIR]`` (about 10 seconds).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import plotting
from symfdp.training import mu_star

DELTA = 1e-5
METHODS = {
    "numerical": A.Numerical,
    "saddlepoint": A.SaddlePoint,
    "edgeworth": lambda: A.Edgeworth(order=4),
    "clt": A.CLT,
}


def table(mechanism: M.Mechanism, n: int) -> dict[str, object]:
    curves = {}
    print(f"n = {n}")
    print(f"  {'method':<12}{'epsilon':>10}  {'bracket':<22}{'mu*':>8}{'ms':>8}")
    for name, make in METHODS.items():
        start = time.perf_counter()
        curve = make().compose(mechanism, n)
        eps = curve.epsilon(DELTA)
        bracket = ""
        if curve.certified:
            lo, hi = curve.epsilon_bounds(DELTA)
            bracket = f"[{lo:.5f}, {hi:.5f}]"
        mu = mu_star(curve)
        ms = 1e3 * (time.perf_counter() - start)
        print(f"  {name:<12}{eps:>10.5f}  {bracket:<22}{mu:>8.4f}{ms:>8.1f}")
        curves[name] = curve
    return curves


def figures(curves: dict[str, object], out: Path) -> None:
    alpha = plotting.default_alpha_grid()
    ax = None
    for name, curve in curves.items():
        ax = plotting.plot_tradeoff(
            curve, ax=ax, alpha=alpha, label=name, identity=ax is None,
            delta=DELTA if name == "numerical" else None,
        )  # fmt: skip
    ax.figure.savefig(out / "tradeoff.png", dpi=150)
    np.savetxt(
        out / "tradeoff.csv",
        np.column_stack([alpha] + [c.tradeoff(alpha) for c in curves.values()]),
        delimiter=",", header="alpha," + ",".join(curves), comments="",
    )  # fmt: skip

    eps = np.linspace(0.0, 3.0, 121)
    ax = None
    for name, curve in curves.items():
        ax = plotting.plot_privacy_profile(
            curve, ax=ax, eps=eps, label=name, bounds=curve.certified
        )
    ax.figure.savefig(out / "profile.png", dpi=150)
    np.savetxt(
        out / "profile.csv",
        np.column_stack([eps] + [c.delta(eps) for c in curves.values()]),
        delimiter=",", header="eps," + ",".join(curves), comments="",
    )  # fmt: skip

    ax = plotting.plot_mu_star_gamma(
        {"Edgeworth (order 4)": curves["edgeworth"], "CLT": curves["clt"]}
    )
    ax.figure.savefig(out / "mu_star_gamma.png", dpi=150)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="results/examples", help="figure directory")
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    mechanism = M.SubsampledGaussian(sigma=1.0, p=0.01)
    with warnings.catch_warnings():
        # The approximations warn where they repair themselves (documented).
        warnings.simplefilter("ignore")
        for n in (100, 10_000):
            table(mechanism, n)
        curves = table(mechanism, 1000)
        figures(curves, out)
    print(f"figures and their data written to {out}/")


if __name__ == "__main__":
    main()
