r"""Adaptive Gauss–Legendre panels for densities given by their logarithm.

A panel is accepted when its ``GL_POINTS``-point Gauss–Legendre integral of
:math:`e^{g}` agrees with the sum over its two halves to relative accuracy
:data:`PANEL_RTOL` (plus :math:`8u(1 + |\log m|)` for a panel of mass :math:`m`)
for every log-density :math:`g` given, in log space, so far-tail panels keep
their relative accuracy. A log-density computed as a sum of large terms (a
tilted density :math:`\log p + tL`) is known only to :math:`u` times the
magnitude of its terms, which the test then allows for (its *magnitude*).
For integrands analytic on each panel the masses are accurate to
:data:`PANEL_RTOL` plus :math:`8u` times the largest magnitude, relative, per
panel; kinks must be passed as ``breakpoints``."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from numpy.typing import NDArray
from scipy import special

FloatArray = NDArray[np.float64]
#: A quadrature rule of the loss law on an interval: (loss values, P-weights).
Rule = tuple[FloatArray, FloatArray]

LogDensity = Callable[[FloatArray], FloatArray]

#: Gauss–Legendre points per panel.
GL_POINTS = 20
#: Relative agreement required of a panel with its two halves.
PANEL_RTOL = 1e-15
#: Panels whose log-mass is below this are accepted as they are (a density
#: given as a number is subnormal there: its logarithm has lost its precision).
LOG_NEGLIGIBLE = -700.0
_U = float(np.finfo(np.float64).eps) / 2
#: Largest number of bisection levels of one panel.
_MAX_LEVELS = 48
#: Largest number of panels of one rule (memory guard).
_MAX_PANELS = 200_000


@functools.cache
def gauss_legendre(n: int = GL_POINTS) -> tuple[FloatArray, FloatArray]:
    """Nodes on [-1, 1] and weights of the ``n``-point Gauss–Legendre rule."""
    x, w = special.roots_legendre(n)
    return np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)


def panel_nodes(lo: FloatArray, hi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Nodes ``(K, GL_POINTS)`` and log-weights of the rule on each ``[lo, hi]``."""
    x, w = gauss_legendre()
    half = 0.5 * (hi - lo)
    mid = 0.5 * (hi + lo)
    nodes = mid[:, None] + half[:, None] * x[None, :]
    with np.errstate(divide="ignore"):
        logw = np.log(half)[:, None] + np.log(w)[None, :]
    return nodes, logw


def _eval(g: LogDensity, nodes: FloatArray) -> FloatArray:
    with np.errstate(all="ignore"):
        vals = np.asarray(g(nodes), dtype=np.float64)
    vals = np.broadcast_to(vals, nodes.shape)
    return np.where(np.isnan(vals), -np.inf, vals)


def log_panel_masses(g: LogDensity, lo: FloatArray, hi: FloatArray) -> FloatArray:
    """Log of the Gauss–Legendre integral of ``exp(g)`` on each panel."""
    nodes, logw = panel_nodes(lo, hi)
    return cast(FloatArray, special.logsumexp(_eval(g, nodes) + logw, axis=1))


def adaptive_edges(
    gs: Sequence[LogDensity],
    edges: FloatArray,
    rtol: float = PANEL_RTOL,
    *,
    magnitudes: Sequence[LogDensity | None] | None = None,
) -> FloatArray:
    """Refine the panel ``edges`` until every panel passes the two-halves test
    for every log-density in ``gs``.

    Args:
        gs: Log-densities.
        edges: Initial panel edges (increasing).
        rtol: Relative agreement required of a panel with its halves.
        magnitudes: For each ``g`` (or None): the magnitude of the terms whose
            sum ``g`` is (an absolute rounding error of ``g`` is ``u`` times it);
            the test allows ``8u`` times its largest value on the panel.

    Raises:
        ValueError: the refinement needs more than ``_MAX_PANELS`` panels.
    """
    done: list[FloatArray] = []
    lo, hi = edges[:-1].copy(), edges[1:].copy()
    tol = math.log1p(rtol)
    mags = list(magnitudes) if magnitudes is not None else [None] * len(gs)
    for _ in range(_MAX_LEVELS):
        if lo.size == 0:
            break
        mid = 0.5 * (lo + hi)
        ok = np.ones(lo.size, dtype=bool)
        for g, mag in zip(gs, mags, strict=True):
            whole = log_panel_masses(g, lo, hi)
            halves = np.logaddexp(
                log_panel_masses(g, lo, mid), log_panel_masses(g, mid, hi)
            )
            both_neg = (whole < LOG_NEGLIGIBLE) & (halves < LOG_NEGLIGIBLE)
            # The log-density itself is known to about u |g| (absolute), or
            # u times the magnitude of the terms it sums.
            slack = tol + 8 * _U * (1.0 + np.abs(whole))
            if mag is not None:
                nodes, _ = panel_nodes(lo, hi)
                size = _eval(mag, nodes)
                size = np.where(np.isfinite(size), size, 0.0).max(axis=1)
                slack = slack + 8 * _U * size
            with np.errstate(invalid="ignore"):
                close = np.abs(whole - halves) <= slack
            ok &= close | both_neg | (np.isneginf(whole) & np.isneginf(halves))
        tiny = (hi - lo) <= 64 * np.spacing(np.maximum(np.abs(lo), np.abs(hi)))
        ok |= tiny
        done.append(lo[ok])
        lo_bad, hi_bad, mid_bad = lo[~ok], hi[~ok], mid[~ok]
        lo = np.concatenate((lo_bad, mid_bad))
        hi = np.concatenate((mid_bad, hi_bad))
        if sum(d.size for d in done) + lo.size > _MAX_PANELS:
            raise ValueError(
                "the density cannot be integrated to the stated accuracy with "
                f"{_MAX_PANELS} Gauss-Legendre panels (a singularity or a kink not "
                "declared as a breakpoint?)."
            )
    done.append(lo)
    starts = np.sort(np.concatenate(done))
    return np.concatenate((starts, [edges[-1]]))


def tail_cut(
    gs: Sequence[LogDensity],
    start: float,
    scale: float,
    up: bool,
    *,
    drop: float = 760.0,
    reach: float = 1e10,
    top: float = -math.inf,
) -> float | None:
    """The point beyond ``start`` (upwards if ``up``) after which every ``g`` in
    ``gs`` stays ``drop`` below its largest value seen, searched on geometric
    steps ``scale * 2**(k/2)`` (``top``: a larger value seen elsewhere);
    ``None`` if the log-densities have not fallen that far by ``|x| = reach``
    (the integral may diverge)."""
    sign = 1.0 if up else -1.0
    k = np.arange(0, 2 * int(math.log2(reach / max(scale, 1e-300))) + 2)
    steps = scale * 2.0 ** (k / 2.0)
    x = start + sign * np.concatenate(([0.0], steps))
    x = x[np.abs(x) <= reach + abs(start)]
    cut = -math.inf if up else math.inf
    for g in gs:
        vals = _eval(g, x)
        peak = max(float(np.max(vals)), top)
        if not math.isfinite(peak):
            continue
        above = np.flatnonzero(vals >= peak - drop)
        if above.size == 0:
            cut = max(cut, x[1]) if up else min(cut, x[1])
            continue
        last = int(above[-1])
        if last >= x.size - 1:
            return None
        cut = max(cut, x[last + 1]) if up else min(cut, x[last + 1])
    return float(cut) if math.isfinite(cut) else float(x[1])


#: Width of the fixed composite Gauss–Legendre panels of :func:`fixed_panels`.
FIXED_PANEL = 0.25
#: Gauss–Legendre points per fixed panel.
FIXED_PANEL_NODES = 16


def fixed_panels(a: float, b: float) -> Rule:
    """Composite Gauss–Legendre nodes and weights on ``[a, b]`` (panels of
    width at most :data:`FIXED_PANEL`; empty for ``b <= a``)."""
    if not b > a:
        return np.empty(0), np.empty(0)
    k = max(1, math.ceil((b - a) / FIXED_PANEL))
    edges = np.linspace(a, b, k + 1)
    x, w = gauss_legendre(FIXED_PANEL_NODES)
    half = (edges[1:] - edges[:-1])[:, None] / 2
    mid = (edges[1:] + edges[:-1])[:, None] / 2
    return (mid + half * x).ravel(), (half * w).ravel()


def split_rule(rule: Rule, cuts: Sequence[float]) -> list[Rule]:
    """``rule`` split on ``(-inf, c_1], (c_1, c_2], ..., (c_k, inf)``."""
    l, w = rule
    edges = [-math.inf, *cuts, math.inf]
    out = []
    for lo, hi in itertools.pairwise(edges):
        sel = (l > lo) & (l <= hi)
        out.append((l[sel], w[sel]))
    return out


def concat_rules(rules: Sequence[Rule]) -> Rule:
    """The rules of one interval joined."""
    return np.concatenate([r[0] for r in rules]), np.concatenate([r[1] for r in rules])
