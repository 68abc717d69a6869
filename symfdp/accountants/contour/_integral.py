r"""The trapezoid rule for the contour integral along one vertical line.

See :mod:`symfdp.accountants.contour` for the mathematics: the substitution
:math:`s = \sigma\sinh u`, the doubling of the nodes and the error estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from symfdp.mechanisms.base import FloatArray, QuadratureLimitError

__all__ = ["MAX_NODES", "ROUND", "TRAP_RTOL", "trapezoid_integral"]

#: Nodes of the first trapezoid rule in u (s = sigma sinh u) and its end.
N0: Final = 16
U0: Final = math.asinh(40.0)
#: Largest end of the rule in u: s up to 2e4 sigma.
U_MAX: Final = math.asinh(2e4)
#: Relative step-halving change (and truncation) at which the rule stops.
TRAP_RTOL: Final = 1e-8
#: Unit round-off.
ROUND: Final = float(np.finfo(np.float64).eps)
#: Default node cap (per eps).
MAX_NODES: Final = 1024
#: Halvings of the first rule evaluated together with it (see
#: :func:`trapezoid_integral`).
SPECULATE: Final = 2


def trapezoid_integral(
    log_mgf: Callable[[Any], Any],
    eps: FloatArray,
    t: FloatArray,
    sigma: FloatArray,
    max_nodes: int,
) -> dict[str, FloatArray]:
    r"""The contour integral :math:`I = \frac{1}{2\pi}\int e^{F_\varepsilon(t
    + is)}ds` on the line through ``t``, adaptively.

    Returns a dict of arrays: ``log_i`` (:math:`\log |I|`), ``sign``,
    ``slope``
    (:math:`\partial_\varepsilon I / I = -\frac{1}{2\pi I}\int z
    e^{F_\varepsilon}ds`), ``rel_err`` (estimated relative error of
    :math:`I`) and ``converged``.
    """
    m = eps.size
    e0 = log_mgf(t.astype(np.complex128)).real
    scale = e0 - t * eps - np.log(np.abs(t * (1.0 + t)))
    tt = (t * (1.0 + t))[:, None]

    def terms(
        rows: Any, u: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        sig, tr, er = sigma[rows, None], t[rows, None], eps[rows, None]
        s = sig * np.sinh(u)
        jac = sig * np.cosh(u)
        z = tr + 1j * s
        k = log_mgf(z)
        phi = k - e0[rows, None] - 1j * s * er
        with np.errstate(under="ignore", over="ignore"):
            val = np.exp(phi) * tt[rows] / (z * (1.0 + z)) * jac
        size = np.abs(val)
        # Rounding of the exponent: the magnitudes of its terms.
        mag = 4.0 + np.abs(k) + np.abs(e0[rows, None]) + np.abs(s * er)
        d = np.stack(((-z * val).real, (z * z * val).real))
        return val.real, d, size, size * mag

    # k = 0: val = 1 (times sigma); the derivative term is -t sigma.
    g0 = sigma.copy()
    d0 = np.stack((-t * sigma, t * t * sigma))
    h = np.full(m, U0 / N0)
    nodes = N0
    u = h[:, None] * np.arange(1, N0 + 1)
    rows = np.arange(m)
    # The first rule and the midpoints of its first SPECULATE halvings in one
    # call (the usual course: the tail beyond U0 is negligible and two
    # halvings agree); a row that extends its range instead computes its
    # nodes afresh. The nodes are the loop's own, so nothing changes but
    # the number of calls.
    mids, width = [], U0 / N0
    for _ in range(SPECULATE):
        k = np.arange(1, round(U0 / width) + 1)
        mids.append(np.broadcast_to(0.5 * width * (2 * k - 1), (m, k.size)))
        width *= 0.5
    g, d, size, rnd = terms(rows, np.concatenate((u, *mids), axis=1))
    cut = np.cumsum([N0, *(x.shape[1] for x in mids)])
    spec = [tuple(np.split(a, cut[:-1], axis=-1)[1:]) for a in (g, d, size, rnd)]
    g, d, size, rnd = (a[..., :N0] for a in (g, d, size, rnd))
    pristine = np.ones(m, dtype=bool)
    level = 0
    s_g, s_d, s_r = g.sum(1), d.sum(2), rnd.sum(1) + g0 * (4.0 + 2.0 * np.abs(e0))
    tail = 2.0 * np.max(size[:, -max(1, N0 // 8) :], axis=1)
    total = h * (0.5 * g0 + s_g)
    diff = np.full(m, np.inf)
    refined = np.zeros(m, dtype=bool)
    done = np.zeros(m, dtype=bool)
    failed = np.zeros(m, dtype=bool)
    while True:
        tol = TRAP_RTOL * np.abs(total)
        done = refined & (diff <= tol) & (tail <= tol)
        # Extending beyond U_MAX means a characteristic function that has not
        # decayed at s = sigma sinh(U_MAX): the rule gives up there.
        extend_all = tail > tol
        failed |= ~done & extend_all & (2.0 * h * nodes > U_MAX)
        active = np.flatnonzero(~done & ~failed)
        if active.size == 0 or 2 * nodes > max_nodes:
            break
        extend = extend_all[active]
        ha = h[active]
        k = np.arange(1, nodes + 1)
        u_end = ha * nodes
        u_new = np.where(
            extend[:, None],
            u_end[:, None] + ha[:, None] * k,
            0.5 * ha[:, None] * (2 * k - 1),
        )
        cached = pristine[active] & ~extend if level < SPECULATE else None
        try:
            if cached is not None and cached.all():
                g = spec[0][level][active]
                d = spec[1][level][:, active]
                size = spec[2][level][active]
                rnd = spec[3][level][active]
            else:
                g, d, size, rnd = terms(active, u_new)
        except QuadratureLimitError:
            failed[active] = True
            break
        pristine[active] &= ~extend
        level += 1
        s_g[active] += g.sum(1)
        s_d[:, active] += d.sum(2)
        s_r[active] += rnd.sum(1)
        h_new = np.where(extend, ha, 0.5 * ha)
        u_top = h_new * 2 * nodes
        near = u_new >= (u_top - np.maximum(0.5, h_new))[:, None]
        last = np.max(np.where(near, size, 0.0), axis=1)
        tail[active] = np.where(extend, 2.0 * last, np.maximum(2.0 * last, 0.0))
        new_total = h_new * (0.5 * g0[active] + s_g[active])
        diff[active] = np.where(extend, np.inf, np.abs(new_total - total[active]))
        refined[active] = ~extend
        total[active] = new_total
        h[active] = h_new
        nodes *= 2
    done &= ~failed
    integral = total / math.pi
    deriv = h * (0.5 * d0 + s_d) / math.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        trap = np.where(done, diff, np.inf)
        rel = (trap + tail) / np.abs(total) + ROUND * (
            h * s_r / np.abs(total) + 8.0 + 2.0 * np.abs(e0) + np.abs(t * eps)
        )
        log_i = scale + np.log(np.abs(integral))
        sign = np.sign(integral) * np.sign(tt[:, 0])
        slope = deriv[0] / integral
        curvature = deriv[1] / integral
    return {
        "log_i": log_i,
        "sign": sign,
        "slope": slope,
        "curvature": curvature,
        "rel_err": np.where(np.isfinite(rel), rel, np.inf),
        "converged": done,
        "nodes": np.full(m, nodes),
    }
