r"""The grid step that just fills the target bracket width (the step hint).

**Width of the bracket.** Per component the dominating (connect-the-dots) measure
inflates the variance of the loss by about :math:`h^2/6` and the dominated
(barycentric) one deflates it by about :math:`h^2/12` (:mod:`symfdp.pld.grid`).
Both keep :math:`E_Q[e^{-L}] = 1`, so a variance change :math:`b` comes with a
mean change :math:`b/2` (the cumulant generating function
:math:`K_Q(\lambda) = \log E_Q e^{\lambda L}` vanishes at :math:`\lambda = -1`).
For :math:`g(t) = (1 - e^{\varepsilon - t})_+` and an independent small kernel
of mean :math:`b/2` and variance :math:`b` added to the composed loss :math:`T`,

.. math::  \Delta\delta(\varepsilon) \approx \tfrac{b}{2} E_Q[g'(T)]
           + \tfrac{b}{2} E_Q[g''(T)] = \tfrac{b}{2} f_Q(\varepsilon),

(:math:`g'' = \delta_\varepsilon - g'` as distributions) and
:math:`d\delta/d\varepsilon = -e^{\varepsilon} S_P(\varepsilon)`, with
:math:`f_Q = e^{\varepsilon} f_P`. The eps bracket of :math:`n` composed
components, :math:`b = n h^2/6 + n h^2/12`, is therefore

.. math::  w(h) \approx \frac{n h^2}{8} H_P(\varepsilon), \qquad
           H_P = \frac{f_P}{S_P} = 1 - \frac{\delta''(\varepsilon)}
           {\delta'(\varepsilon)},

the hazard rate of the composed loss under :math:`P` at the answer.

**Step.** :math:`\varepsilon` and :math:`H_P` come from the leading term of the
saddle-point approximation of :math:`\delta` (Lugannani and Rice (1980); for
:math:`\delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - T})_+]`, whose kernel has
Laplace transform :math:`1/(s(1+s))`):

.. math::  \log\hat\delta(s) = K(s) - s K'(s) - \log(s(1+s))
           - \tfrac12 \log(2\pi K''(s)), \qquad \varepsilon(s) = K'(s),

:math:`K = \sum_i n_i K_{Q,i}` the composed loss's cumulant generating function
under :math:`Q` (each mechanism's ``cgf_derivatives``), solved for
:math:`\hat\delta = \delta_{ref}` on log grids of :math:`s` refined until the
cell of the answer is narrow in eps, with
:math:`H_P = 1 - g''/g' - g'` from the quadratic through three points
:math:`(\varepsilon(s), g(s) = \log\hat\delta(s))` around the answer. The step is
:math:`h = \sqrt{8 c\,\mathrm{tol} \max(\varepsilon, 1)/(n H_P)}` with the fill
factor :math:`c` = :data:`FILL`, kept within :data:`STEP_RANGE` of the rule
step of :func:`symfdp.pld.grid.choose_step`. The accountant checks the bracket it
obtains and refines the step if it is too wide, so a poor hint costs time, never
validity.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from symfdp.mechanisms.base import FloatArray, Mechanism

#: Fraction of ``eps_rel_tol`` the predicted discretisation width aims at (the
#: rest covers the prediction's error and the round-off allowances).
FILL: Final = 0.75
#: The predicted step is kept within these multiples of the rule step.
STEP_RANGE: Final = (0.5, 4.0)
#: Largest number of distinct components for which the step is predicted.
#: Beyond it the rule step is kept: on 10^4 distinct subsampled Gaussians a
#: predicted step gave a bracket 1.7 times wider than predicted (each finer
#: pass then costs more than the prediction saves).
MAX_COMPONENTS: Final = 16
#: The prediction is made while ``n * unit round-off <= ROUNDOFF_SHARE *
#: delta_ref``: the FFT round-off part of the bracket, which the prediction
#: leaves out, grows like ``n u / delta`` and would take the margin ``FILL`` leaves.
ROUNDOFF_SHARE: Final = 1e-4
#: The prediction is made for ``n / eps_rel_tol`` at least this (lattices of
#: about 2**15 points and more); smaller compositions keep the rule step, whose
#: brackets are narrower than asked also at deltas far from ``delta_ref``.
MIN_N_OVER_TOL: Final = 1e7
_UNIT_ROUNDOFF: Final = float(np.finfo(np.float64).eps) / 2
#: The saddle points searched: a log grid of ``S_POINTS`` points on ``S_START``,
#: then ``S_POINTS`` points across the cell where the estimate crosses delta,
#: until the cell's eps differ by at most ``EPS_CELL`` relative (at most
#: ``S_PASSES`` passes: eps(s) can rise by orders of magnitude within a cell,
#: where a mixture's component takes over the cumulant generating function).
S_START: Final = (1e-4, 30.0)
S_POINTS: Final = 17
S_PASSES: Final = 10
#: Beyond ``S_START`` the grid moves up by factors of ``S_GROW`` to ``S_MAX``.
S_GROW: Final = 30.0
S_MAX: Final = 1e4
EPS_CELL: Final = 0.01
#: Relative spacing (in eps, of ``max(eps, 1)``) of the three hazard points.
HAZARD_STEP: Final = 1e-3


@dataclass(frozen=True)
class Estimate:
    """The saddle-point leading-term eps at ``delta_ref`` and the hazard
    :math:`H_P` there."""

    eps: float
    hazard: float


def fills(
    components: Sequence[tuple[Mechanism, int]], eps_rel_tol: float, delta_ref: float
) -> bool:
    """Whether :func:`step_hint` predicts a step for a composition of this
    length (the estimate aside)."""
    n_total = sum(n for _, n in components)
    if n_total < MIN_N_OVER_TOL * eps_rel_tol:
        return False
    return bool(n_total * _UNIT_ROUNDOFF <= ROUNDOFF_SHARE * delta_ref)


def _log_delta_hat(
    components: Sequence[tuple[Mechanism, int]], s: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    r"""``(eps(s), log delta_hat(s), K''(s))`` of the composed Q-law (module
    docstring) at saddle points ``s > 0``."""
    k0 = np.zeros(s.shape)
    k1 = np.zeros(s.shape)
    k2 = np.zeros(s.shape)
    # Overflows far out are expected: non-finite values are skipped.
    with np.errstate(all="ignore"):
        for m, n in components:
            a, b, c = m.cgf_derivatives(s, "Q")
            k0 += n * np.asarray(a, dtype=np.float64)
            k1 += n * np.asarray(b, dtype=np.float64)
            k2 += n * np.asarray(c, dtype=np.float64)
        log_d = k0 - s * k1 - np.log(s * (1.0 + s)) - 0.5 * np.log(2 * math.pi * k2)
    return k1, log_d, k2


def estimate(
    components: Sequence[tuple[Mechanism, int]], delta_ref: float
) -> Estimate | None:
    """The leading-term saddle-point eps of ``components`` at ``delta_ref`` and
    the hazard rate there (module docstring), or None when it is not defined
    (no cumulant generating function, no crossing of ``delta_ref`` on
    ``S_RANGE``, a non-positive eps or a non-finite hazard)."""
    target = math.log(delta_ref)
    try:
        s = np.geomspace(*S_START, S_POINTS)
        for _ in range(S_PASSES):
            eps, log_d, k2 = _log_delta_hat(components, s)
            ok = np.isfinite(log_d) & np.isfinite(eps)
            below = ok & (log_d <= target)
            if not below.any():
                # The crossing lies beyond the grid: the next decades up.
                if not ok[-1] or s[-1] >= S_MAX:
                    return None
                s = np.geomspace(s[-1], min(s[-1] * S_GROW, S_MAX), S_POINTS)
                continue
            i = int(np.argmax(below))
            if i == 0 or not ok[i - 1]:
                return None
            if eps[i] - eps[i - 1] <= EPS_CELL * abs(eps[i]):
                break
            s = np.geomspace(s[i - 1], s[i], S_POINTS)
        else:
            return None
        # The last pass brackets the answer in [s[i - 1], s[i]]: interpolate
        # log s linearly in log delta_hat, then three points for the hazard.
        w = (target - log_d[i - 1]) / (log_d[i] - log_d[i - 1])
        s0 = math.exp(math.log(s[i - 1]) + w * math.log(s[i] / s[i - 1]))
        ds = HAZARD_STEP * max(float(eps[i]), 1.0) / float(k2[i])
        pts = np.array([s0 - ds, s0, s0 + ds])
        if not (ds > 0.0 and pts[0] > 0.0):
            return None
        e, g, _ = _log_delta_hat(components, pts)
    except (ValueError, TypeError, ArithmeticError, NotImplementedError):
        return None
    with np.errstate(all="ignore"):
        d01 = (g[1] - g[0]) / (e[1] - e[0])
        d12 = (g[2] - g[1]) / (e[2] - e[1])
        curv = (d12 - d01) / (e[2] - e[0])
        g1 = d01 + curv * (e[1] - e[0])
        hazard = float(1.0 - 2.0 * curv / g1 - g1)
    eps_0 = float(e[1])
    if not (math.isfinite(eps_0) and eps_0 > 0.0 and g1 < 0.0):
        return None
    if not (math.isfinite(hazard) and hazard > 0.0):
        return None
    return Estimate(eps_0, hazard)


def step_hint(
    components: Sequence[tuple[Mechanism, int]],
    eps_rel_tol: float,
    delta_ref: float,
    rule_step: float,
    known: Estimate | None = None,
) -> float | None:
    """The step whose predicted eps bracket at ``delta_ref`` is ``FILL *
    eps_rel_tol`` relative (module docstring), or None when :func:`fills` is
    false, the composition has more than :data:`MAX_COMPONENTS` distinct
    components, or :func:`estimate` gives none (``known``, if already made)."""
    if len(components) > MAX_COMPONENTS:
        return None
    if not fills(components, eps_rel_tol, delta_ref):
        return None
    n_total = sum(n for _, n in components)
    found = estimate(components, delta_ref) if known is None else known
    if found is None:
        return None
    h = math.sqrt(
        8.0 * FILL * eps_rel_tol * max(found.eps, 1.0) / (n_total * found.hazard)
    )
    lo, hi = STEP_RANGE
    return min(max(h, lo * rule_step), hi * rule_step)
