r"""Pure-DP trade-offs f_{eps,0} in the Dong et al. (2019) experiments.

* :func:`pure_dp_tradeoff`: f_{eps,0}, eq. (5);
* :func:`group_tradeoff`: group privacy by iteration (Thm 2.14, Lemma A.6): a
  group of k individuals turns f into 1 - (1 - f)^{\circ k}; for f = f_{eps,0}
  this tends to T(Lap(0,1), Lap(k eps,1)). The experiments evaluate the
  iteration directly, independently of ``symfdp.tradeoff.GroupPrivacy``, which
  they compare against;
* :func:`clt_composition`: the exact n-fold composition of f_{mu/sqrt(n),0}
  (the set-up of Fig. 5 right and Fig. 1 left), on an alpha grid that contains
  the kinks of the piecewise-linear curve, and :func:`clt_setup`: it beside its
  CLT limit G_mu and its tightest (eps, delta) guarantee at a given delta, with
  the gaps between them (:func:`clt_gaps`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T


def pure_dp_tradeoff(eps: float, x: Any) -> np.ndarray:
    """f_{eps,0}(x) = max{0, 1 - e^eps x, e^{-eps} (1 - x)}, Dong et al. (2019),
    eq. (5)."""
    return np.maximum(0.0, np.maximum(1 - np.exp(eps) * x, np.exp(-eps) * (1 - x)))


def group_tradeoff(eps: float, k: int, x: Any) -> np.ndarray:
    """1 - (1 - f_{eps,0})^{\\circ k}(x): iterate u -> 1 - f_{eps,0}(u) k times
    from u = x."""
    u = np.array(x, dtype=float, copy=True)
    for _ in range(k):
        u = 1 - pure_dp_tradeoff(eps, u)
    return 1 - u


def clt_composition(
    n: int, mu: float, n_alpha: int
) -> tuple[Any, np.ndarray, np.ndarray]:
    """(curve, alpha, f(alpha)) of f_{mu/sqrt(n),0}^{(x)n} (A.Exact): alpha is
    linspace(0, 1, n_alpha) joined with the curve's kinks in [0, 1]."""
    curve = A.Exact().compose(M.PureDP(eps=mu / math.sqrt(n)), n=n)
    kinks = curve.pairs[0].vertices()[0]
    alpha = np.union1d(
        np.linspace(0.0, 1.0, n_alpha), kinks[(kinks >= 0) & (kinks <= 1)]
    )
    return curve, alpha, np.asarray(curve.tradeoff(alpha))


def clt_setup(
    n: int, mu: float, delta: float, n_alpha: int
) -> tuple[np.ndarray, dict[str, np.ndarray], float]:
    """(alpha, curves, eps*) of the CLT set-up: ``curves`` holds "composition"
    (f_{mu/sqrt(n),0}^{(x)n}), "CLT" (G_mu) and "eps_delta" (f_{eps*,delta}, eps*
    the composition's eps(delta))."""
    curve, alpha, f = clt_composition(n, mu, n_alpha)
    eps_star = float(curve.epsilon(delta))
    curves = {
        "composition": f,
        "CLT": T.Gaussian(mu)(alpha),
        "eps_delta": T.EpsDelta(eps_star, delta)(alpha),
    }
    return alpha, curves, eps_star


def clt_gaps(curves: dict[str, np.ndarray]) -> tuple[float, float]:
    """(sup |f - G_mu|, sup (f - f_{eps*,delta})) of the :func:`clt_setup` curves:
    how far the composition f is from its CLT limit and above its (eps, delta)
    guarantee."""
    f = curves["composition"]
    return (
        float(np.max(np.abs(f - curves["CLT"]))),
        float(np.max(f - curves["eps_delta"])),
    )
