"""SaddlePoint query times on DP-SGD against a minimal NumPy floor.

For sigma = 1, p = 0.01 and n in {1000, 10000} (add/remove pairs): build +
compose, one eps(1e-5), one delta(1.0), delta on 1000 eps points, for orders 2
and 4, and the floor: a minimal NumPy evaluation of the same order-2 formula
(eps(delta) by Newton in the tilt s on a precomputed quadrature rule of each
pair, log delta_hat_2 from two log-normal-CDF terms; delta(eps) by Newton on the
saddle-point equation), with no argument checks, warnings or repairs. Writes
``benchmarks/results/saddlepoint_speed.json``. Run as
``python benchmarks/saddlepoint_speed.py``.
"""

from __future__ import annotations

import math
import sys
import warnings
from functools import partial

import numpy as np
from _common import ROOT, git_state, machine, timings, write_json
from scipy import special

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.mechanisms import _logmix as lm


def _t(fn, repeats: int) -> float:
    """Median wall time (s) of ``fn``."""
    return float(timings(fn, repeats)[0]["median_s"])


def _rule(m: M.SubsampledGaussian, pair: int) -> tuple[np.ndarray, np.ndarray]:
    """Loss nodes and log Q-weights of the add (0) or remove (1) pair, resolving
    tilts in [0, 32]."""
    mech = m.pairs[pair]
    if pair == 0:
        base, log_p = mech._tilted_base_rule(np.array([0.0, 33.0]))
        a = lm.log_mix(base, mech.p)
        return a, log_p + a
    base, log_p = mech._tilted_base_rule(np.array([-32.0, 1.0]))
    return -lm.log_mix(base, mech.p), log_p


def _kd(nodes, logw, n, s):
    a = logw[None, :] + s[:, None] * nodes[None, :]
    amax = a.max(axis=1, keepdims=True)
    e = np.exp(a - amax)
    tot = e.sum(axis=1)
    w = e / tot[:, None]
    m1 = w @ nodes
    v = (w * (nodes[None, :] - m1[:, None]) ** 2).sum(axis=1)
    return n * (amax[:, 0] + np.log(tot)), n * m1, n * v


def _log_delta2(k, eps, t, m, v):
    sv = np.sqrt(v)
    la = (
        k
        - eps * t
        + t * (eps - m)
        + t * t * v / 2
        + special.log_ndtr((m - eps - t * v) / sv)
    )
    b = t + 1
    lb = (
        k
        - eps * t
        + b * (eps - m)
        + b * b * v / 2
        + special.log_ndtr((m - eps - b * v) / sv)
    )
    return la + np.log(-np.expm1(lb - la))


def floor_epsilon(rules, n, delta):
    """Order-2 eps(delta): Newton in s per pair, the larger answer."""
    out = -np.inf
    target = math.log(delta)
    for nodes, logw in rules:
        s = np.array([1.0])
        for _ in range(30):
            k, m, v = _kd(nodes, logw, n, s)
            eps = m - 1 / s - 1 / (1 + s)
            g = _log_delta2(k, eps, s, m, v) - target
            slope = -s * (v + 1 / s**2 + 1 / (1 + s) ** 2)
            step = g / slope
            s = np.clip(s - step, s / 4, 4 * s)
            if abs(step[0]) < 1e-12 * s[0]:
                break
        out = max(out, float(eps[0]))
    return out


def floor_delta(rules, n, eps):
    """Order-2 delta(eps): Newton in s on the saddle-point equation per pair."""
    e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    out = np.zeros(e.shape)
    for nodes, logw in rules:
        s = np.ones(e.shape)
        for _ in range(40):
            k, m, v = _kd(nodes, logw, n, s)
            g = m - e - 1 / s - 1 / (1 + s)
            step = g / (v + 1 / s**2 + 1 / (1 + s) ** 2)
            s = np.clip(s - step, s / 4, 4 * s)
            if np.all(np.abs(step) < 1e-12 * s):
                break
        out = np.maximum(out, np.exp(_log_delta2(k, e, s, m, v)))
    return out


def _compose(acc, n):
    return acc.compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=n)


def _build_eps(build):
    return build().epsilon(1e-5)


def main() -> int:
    warnings.simplefilter("ignore", ApproximationWarning)
    rows = []
    for n in (1000, 10000):
        mech = M.SubsampledGaussian(sigma=1.0, p=0.01)
        rules = [_rule(mech, 0), _rule(mech, 1)]
        e1000 = np.linspace(0.1, 6.0, 1000)
        floor = {
            "eps(1e-5)": _t(partial(floor_epsilon, rules, n, 1e-5), 20),
            "delta(1.0)": _t(partial(floor_delta, rules, n, 1.0), 20),
            "delta(1000 eps)": _t(partial(floor_delta, rules, n, e1000), 5),
        }
        for order in (2, 4):
            acc = A.SaddlePoint(order=order)

            build = partial(_compose, acc, n)

            curve = build()
            curve.delta(e1000)
            curve.epsilon(1e-5)
            ours = {
                "build+compose": _t(build, 10),
                "build+compose+eps(1e-5)": _t(partial(_build_eps, build), 5),
                "eps(1e-5)": _t(partial(curve.epsilon, 1e-5), 20),
                "delta(1.0)": _t(partial(curve.delta, 1.0), 20),
                "delta(1000 eps)": _t(partial(curve.delta, e1000), 5),
            }
            eps_ours = float(curve.epsilon(1e-5))
            eps_floor = floor_epsilon(rules, n, 1e-5)
            row = {
                "n": n,
                "order": order,
                "ms": {k: 1e3 * v for k, v in ours.items()},
                "floor_ms": {k: 1e3 * v for k, v in floor.items()},
                "ratio_to_floor": {k: ours[k] / floor[k] for k in floor if k in ours},
                "delta1000_over_one_query": ours["delta(1000 eps)"]
                / ours["delta(1.0)"],
                "eps_ours": eps_ours,
                "eps_floor": eps_floor,
            }
            rows.append(row)
            print(row, flush=True)
    write_json(
        ROOT / "benchmarks" / "results" / "saddlepoint_speed.json",
        {"machine": machine(), "git": git_state(), "rows": rows},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
