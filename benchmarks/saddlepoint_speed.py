"""SaddlePoint query times on DP-SGD against a minimal NumPy floor.

For sigma = 1, p = 0.01 and n in {1000, 10000} (add/remove pairs): build +
compose, one eps(1e-5), one delta(1.0), delta on 1000 eps points, for orders 1
to 4 (minimum wall times), and the floor: a minimal NumPy evaluation of the
same formula of order J = 2, 3, 4 (eps(delta) by Newton in the tilt s on a
precomputed quadrature rule of each pair, log delta_hat_2 from two
log-normal-CDF terms plus, for J >= 3, the tilted Edgeworth terms from
Gauss-Laguerre moments; delta(eps) by Newton on the saddle-point equation, then
the estimate), with no argument checks, error estimates, warnings or repairs;
order 1 is timed against the order-2 floor, delta on 1000 points against the
order-2 floor. Writes ``benchmarks/results/saddlepoint_speed_<label>.json``
(label ``before`` or ``after``, the first argument) and the table of both
runs, ``benchmarks/results/saddlepoint_speed.md``, with the error estimates and
the distance of delta on the 1000-point grid to Numerical's certified bracket
beside the times. Run as ``python benchmarks/saddlepoint_speed.py [label]``.
"""

from __future__ import annotations

import json
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
    """Minimum wall time (s) of ``fn`` (the machine is shared)."""
    return float(timings(fn, repeats)[0]["min_s"])


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


def _kd(nodes, logw, n, s, order=2):
    """n K, n K', n K'', ... n K^(order) at tilts s (rows)."""
    a = logw[None, :] + s[:, None] * nodes[None, :]
    amax = a.max(axis=1, keepdims=True)
    e = np.exp(a - amax)
    tot = e.sum(axis=1)
    w = e / tot[:, None]
    m1 = w @ nodes
    d = nodes[None, :] - m1[:, None]
    d2 = d * d
    out = [n * (amax[:, 0] + np.log(tot)), n * m1, n * (w * d2).sum(axis=1)]
    if order >= 3:
        out.append(n * (w * d2 * d).sum(axis=1))
    if order >= 4:
        mu2 = out[2] / n
        out.append(n * ((w * d2 * d2).sum(axis=1) - 3 * mu2 * mu2))
    return out


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


#: Gauss-Laguerre rule for M_i(w) = int_0^inf u^i e^{-wu - u^2/2} du (w >= 2).
_GL_Z, _GL_W = np.polynomial.laguerre.laggauss(80)
_BINOM = np.array([[math.comb(k, i) for i in range(7)] for k in range(7)], float)


def _log_delta(order, k, eps, t, m, v, k3=None, k4=None):
    """log of the order-J upper-side estimate (J = 2, 3, 4): delta_hat_2 plus
    e^{K - eps t} phi(c) sum_k c_k D_k, c = (eps - m)/sqrt v, with the tilted
    Edgeworth coefficients lambda_3/6 He_3 (J >= 3) and lambda_4/24 He_4 +
    lambda_3^2/72 He_6 (J = 4), D_k = sum_i C(k, i) He_{k-i}(c) (M_i(w_1) -
    M_i(w_2)), w_1 = c + t sqrt v, w_2 = w_1 + sqrt v (Appell), M_i by the
    80-point Gauss-Laguerre rule in z = wu."""
    l2 = _log_delta2(k, eps, t, m, v)
    if order <= 2:
        return l2
    sv = np.sqrt(v)
    c = (eps - m) / sv
    w1 = c + t * sv
    w2 = w1 + sv
    w = np.concatenate((w1, w2))
    z = _GL_Z[:, None] / w[None, :]
    g = _GL_W[:, None] * np.exp(-0.5 * z * z) / w[None, :]
    mom = np.stack([(g * z**i).sum(axis=0) for i in range(7)])
    dm = mom[:, : w1.size] - mom[:, w1.size :]
    he = [np.ones_like(c), c]
    for j in range(1, 6):
        he.append(c * he[j] - j * he[j - 1])

    def d_k(kk):
        return sum(_BINOM[kk, i] * he[kk - i] * dm[i] for i in range(kk + 1))

    lam3 = k3 / v**1.5
    terms = lam3 / 6 * d_k(3)
    if order >= 4:
        lam4 = k4 / v**2
        terms = terms + lam4 / 24 * d_k(4) + lam3 * lam3 / 72 * d_k(6)
    log_pref = k - eps * t - 0.5 * c * c - 0.5 * math.log(2 * math.pi)
    return l2 + np.log1p(np.exp(log_pref - l2) * terms)


def floor_epsilon(rules, n, delta, order=2):
    """Order-J eps(delta) (J = 2, 3, 4): Newton in s per pair, the larger
    answer."""
    out = -np.inf
    target = math.log(delta)
    for nodes, logw in rules:
        s = np.array([1.0])
        for _ in range(30):
            kd = _kd(nodes, logw, n, s, order)
            m, v = kd[1], kd[2]
            eps = m - 1 / s - 1 / (1 + s)
            g = _log_delta(order, kd[0], eps, s, m, v, *kd[3:]) - target
            slope = -s * (v + 1 / s**2 + 1 / (1 + s) ** 2)
            step = g / slope
            s = np.clip(s - step, s / 4, 4 * s)
            if abs(step[0]) < 1e-12 * s[0]:
                break
        out = max(out, float(eps[0]))
    return out


def floor_delta(rules, n, eps, order=2):
    """Order-J delta(eps): Newton in s on the saddle-point equation per pair,
    the estimate at the root."""
    e = np.atleast_1d(np.asarray(eps, dtype=np.float64))
    out = np.zeros(e.shape)
    for nodes, logw in rules:
        s = np.ones(e.shape)
        for _ in range(40):
            _, m, v = _kd(nodes, logw, n, s)
            g = m - e - 1 / s - 1 / (1 + s)
            step = g / (v + 1 / s**2 + 1 / (1 + s) ** 2)
            s = np.clip(s - step, s / 4, 4 * s)
            if np.all(np.abs(step) < 1e-12 * s):
                break
        kd = _kd(nodes, logw, n, s, order)
        log_d = _log_delta(order, kd[0], e, s, kd[1], kd[2], *kd[3:])
        out = np.maximum(out, np.exp(log_d))
    return out


def _compose(acc, n):
    return acc.compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=n)


def _build_eps(build):
    return build().epsilon(1e-5)


def _accuracy(curve, bracket):
    """Max relative distance of ``curve.delta`` on the grid to the certified
    bracket ``(lo, hi)`` (0 inside it) and the values."""
    lo, hi = bracket
    d = np.asarray(curve.delta(E1000), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(d > hi, (d - hi) / hi, np.where(d < lo, (lo - d) / lo, 0.0))
    keep = hi > 1e-300
    return float(np.max(out[keep])), d


E1000 = np.linspace(0.1, 6.0, 1000)
RESULTS = ROOT / "benchmarks" / "results"


def main() -> int:
    label = sys.argv[1] if len(sys.argv) > 1 else "after"
    warnings.simplefilter("ignore", ApproximationWarning)
    rows = []
    values = {}
    for n in (1000, 10000):
        mech = M.SubsampledGaussian(sigma=1.0, p=0.01)
        rules = [_rule(mech, 0), _rule(mech, 1)]
        bracket = A.Numerical().compose(mech, n=n).delta_bounds(E1000)
        floors = {
            j: {
                "eps(1e-5)": _t(partial(floor_epsilon, rules, n, 1e-5, j), 20),
                "delta(1.0)": _t(partial(floor_delta, rules, n, 1.0, j), 20),
            }
            for j in (2, 3, 4)
        }
        floor_1000 = _t(partial(floor_delta, rules, n, E1000), 3)
        for order in (1, 2, 3, 4):
            # Order 1 is timed against the order-2 floor (a formula as cheap).
            floor = {**floors[max(order, 2)], "delta(1000 eps)": floor_1000}
            acc = A.SaddlePoint(order=order)
            build = partial(_compose, acc, n)
            curve = build()
            curve.delta(E1000)
            curve.epsilon(1e-5)
            ours = {
                "build+compose": _t(build, 10),
                "build+compose+eps(1e-5)": _t(partial(_build_eps, build), 5),
                "eps(1e-5)": _t(partial(curve.epsilon, 1e-5), 20),
                "delta(1.0)": _t(partial(curve.delta, 1.0), 20),
                "delta(1000 eps)": _t(partial(curve.delta, E1000), 7),
            }
            out_of_bracket, d = _accuracy(curve, bracket)
            values[f"{n}-{order}"] = d.tolist()
            row = {
                "n": n,
                "order": order,
                "ms": {k: 1e3 * v for k, v in ours.items()},
                "floor_ms": {k: 1e3 * v for k, v in floor.items()},
                "ratio_to_floor": {k: ours[k] / floor[k] for k in floor if k in ours},
                "delta1000_over_one_query": ours["delta(1000 eps)"]
                / ours["delta(1.0)"],
                "eps_ours": float(curve.epsilon(1e-5)),
                "eps_error": float(curve.epsilon_error(1e-5)),
                "delta_1": float(curve.delta(1.0)),
                "delta_1_error": float(curve.delta_error(1.0)),
                "eps_floor": floor_epsilon(rules, n, 1e-5, max(order, 2)),
                "delta1000_max_rel_outside_bracket": out_of_bracket,
            }
            rows.append(row)
            print(row, flush=True)
    write_json(
        RESULTS / f"saddlepoint_speed_{label}.json",
        {"machine": machine(), "git": git_state(), "rows": rows, "values": values},
    )
    _table()
    return 0


def _table() -> None:
    """``saddlepoint_speed.md``: the before/after runs side by side."""
    runs = {}
    for label in ("before", "after"):
        path = RESULTS / f"saddlepoint_speed_{label}.json"
        if path.exists():
            runs[label] = json.loads(path.read_text())
    lines = [
        "# SaddlePoint query times (DP-SGD, sigma = 1, p = 0.01; add/remove)",
        "",
        "Minimum wall time in ms over repeats (shared, loaded machine); in",
        "brackets the ratio to the NumPy floor of the same formula (order 1: the",
        "order-2 floor) measured in the same run, and for 1000 deltas the ratio",
        "to one delta(1.0) query; public PrivacyCurve queries, which compute the",
        "error estimate (orders J..J+3) every time, the floor computes none;",
        "eps(1e-5) and delta(1.0) with the curve's own error estimates; the last",
        "column is the largest relative distance of delta on 1000 eps in",
        "[0.1, 6] to Numerical's certified bracket (0 = inside).",
        "",
        "| run | n | order | eps(1e-5) ms (x floor) | delta(1.0) ms (x floor) "
        "| 1000 deltas ms (x one) | build+compose+eps ms | eps +- err "
        "| delta(1) +- err | outside bracket |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, run in runs.items():
        for r in run["rows"]:
            ms, rt = r["ms"], r["ratio_to_floor"]
            lines.append(
                f"| {label} | {r['n']} | {r['order']} "
                f"| {ms['eps(1e-5)']:.2f} ({rt['eps(1e-5)']:.1f}) "
                f"| {ms['delta(1.0)']:.2f} ({rt['delta(1.0)']:.1f}) "
                f"| {ms['delta(1000 eps)']:.1f} ({r['delta1000_over_one_query']:.0f}) "
                f"| {ms['build+compose+eps(1e-5)']:.2f} "
                f"| {r['eps_ours']:.5f} +- {r['eps_error']:.1e} "
                f"| {r['delta_1']:.4e} +- {r['delta_1_error']:.1e} "
                f"| {r['delta1000_max_rel_outside_bracket']:.1e} |"
            )
    if len(runs) == 2:
        change = 0.0
        vb, va = runs["before"]["values"], runs["after"]["values"]
        for key in vb.keys() & va.keys():
            b, a = np.array(vb[key]), np.array(va[key])
            keep = b > 1e-300
            change = max(change, float(np.max(np.abs(a - b)[keep] / b[keep])))
        lines += [
            "",
            f"Max relative change of delta on the 1000-point grid, before to after: "
            f"{change:.2e}.",
        ]
        lines += [
            "",
            "Floors (ms): "
            + ", ".join(
                f"n={r['n']}: eps {r['floor_ms']['eps(1e-5)']:.2f}, "
                f"delta {r['floor_ms']['delta(1.0)']:.2f}"
                for r in runs["after"]["rows"]
                if r["order"] == 2
            ),
        ]
    (RESULTS / "saddlepoint_speed.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
