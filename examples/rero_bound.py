"""How likely is a reconstruction attack to succeed on a DP-SGD run?

Kaissis et al. (2023), Thm 1: against an adversary whose prior chance of
reconstructing a record is kappa, the success probability is at most
gamma = 1 - f(kappa), with f the trade-off curve of the *add one* pair. This
script computes gamma for DP-SGD (sigma = 1, p = 0.01, 1000 steps) four ways:
the Edgeworth approximation of order 4 (the paper's fast method), certified
bounds (numerical), the Monte Carlo estimator of Hayes et al. (seeded), and the
much looser bound gamma <= e^eps kappa + delta from an (eps, delta) guarantee.

Run: ``python examples/rero_bound.py`` (a few seconds).
"""

from __future__ import annotations

import warnings

import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import rero

SIGMA, P, STEPS, DELTA = 1.0, 0.01, 1000, 1e-5
KAPPA = np.array([0.1, 0.01, 0.001])


def main() -> None:
    mechanism = M.SubsampledGaussian(sigma=SIGMA, p=P)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        edgeworth = rero.gamma(
            rero.add_pair_curve(mechanism, STEPS, A.Edgeworth(order=4)), KAPPA
        )
        lo, hi = rero.gamma_bounds(rero.add_pair_curve(mechanism, STEPS), KAPPA)
        eps = A.Numerical().compose(mechanism, STEPS).epsilon_bounds(DELTA)[1]
    from_dp = rero.gamma_from_eps_delta(eps, DELTA, KAPPA)
    mc = rero.monte_carlo_gamma(
        KAPPA, sigma=SIGMA, p=P, n=STEPS, samples=20_000, seed=2023, progress=False
    )
    print(f"DP-SGD sigma={SIGMA}, p={P}, {STEPS} steps")
    print(f"(eps, delta) = ({eps:.3f}, {DELTA:g}) certified")
    heads = ("kappa", "Edgeworth-4", "certified", "Monte Carlo (95% CI)", "(eps,delta)")
    print("{:>7} {:>12} {:>20} {:>30} {:>12}".format(*heads))
    for k in range(KAPPA.size):
        ci = f"{mc.gamma[k]:.4f} [{mc.ci_low[k]:.4f}, {mc.ci_high[k]:.4f}]"
        print(
            f"{KAPPA[k]:>7g} {edgeworth[k]:>12.5f} [{lo[k]:.5f}, {hi[k]:.5f}]"
            f" {ci:>30} {from_dp[k]:>12.4f}"
        )
    if not np.all((mc.ci_low <= hi) & (lo <= mc.ci_high)):
        raise SystemExit("Monte Carlo interval misses the certified bracket")
    if not np.all(from_dp >= hi):
        raise SystemExit("the (eps, delta) bound should be looser than the curve")


if __name__ == "__main__":
    main()
