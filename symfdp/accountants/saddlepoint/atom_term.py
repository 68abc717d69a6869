r"""The atom term of the analytic error estimates: what no smooth expansion sees.

Contour identity (Alghamdi et al. (2022), CF-S3; the lower side mirrored as in
:mod:`symfdp.accountants.saddlepoint`). For a real tilt :math:`t > 0` (or
:math:`t < -1` for the complementary part of the lower side) and
:math:`z = t + is`,

.. math::  \frac{1}{2\pi}\int e^{F_\varepsilon(z)}\,ds, \qquad
           e^{F_\varepsilon(z)} = e^{K(t) - t\varepsilon}\,
           \frac{\varphi_t(s)\, e^{-is\varepsilon}}{(t+is)(1+t+is)},

where :math:`\varphi_t(s) = e^{K(t+is) - K(t)} = \prod_i \varphi_{t,i}(s)^{n_i}`
is the characteristic function of the loss sum under the law tilted by
:math:`e^{tl}` (a product over the composition). The saddle-point estimate
:math:`\hat\delta_2` is the same integral with :math:`\varphi_t` replaced by the
normal characteristic function :math:`e^{ims - vs^2/2}` (:math:`m = K'(t)`,
:math:`v = K''(t)`), and the higher orders multiply it by polynomials in
:math:`s`: every smooth expansion decays like :math:`e^{-vs^2/2}`. Hence

.. math::  |\delta - \hat\delta_2| \le \frac{e^{K(t) - t\varepsilon}}{2\pi}
           \int \frac{|\varphi_t(s) - e^{ims - vs^2/2}|}{|(t+is)(1+t+is)|}\,ds
           \;\ge\; A(t) := \frac{e^{K(t) - t\varepsilon}}{2\pi}
           \int_{|s| \ge s_0} \frac{(|\varphi_t(s)| - e^{-vs^2/2})_+}
           {|(t+is)(1+t+is)|}\,ds,

and :math:`A` is the part of that bound that no smooth expansion can remove: the
*excess modulus* of the tilted characteristic function over the normal one,
beyond :math:`s_0 = 4/\sqrt v`. It is large where the tilted law is not smooth
at the scale of the kernel: atoms (Laplace), a lattice of span :math:`h`
(:math:`A/\hat\delta_1 \approx t(1+t)h^2/12`, the continuity correction; only
lattices coarser than :math:`2\pi/S` are seen) or a few-component mixture
(Poisson subsampling with few expected samples). For the Gaussian :math:`A = 0`.

Evaluation. :math:`|\varphi_{t,i}|` per component (:func:`component_law`):
closed forms for the Gaussian and Laplace pairs, quadrature rules otherwise; the
subsampled components of a saddle-point composition all at once from their
stacked rules (:func:`stacked_law`, the rules its CGF was evaluated with). The
integral is a midpoint rule on ``NODES`` points of :math:`[s_0, S]`, doubled
(the integrand is even), :math:`s_0 = ` ``SMOOTH_SD`` :math:`/\sqrt v`,
:math:`S = \min(\max(s_0 + 8/\sqrt v, 4(1 + |t|)),` ``S_RULE``:math:`)`. Below
:math:`s_0` a smooth non-normal excess is what the higher orders model; beyond
it every smooth expansion is below :math:`e^{-8}` times a polynomial. The part
beyond :math:`S` is left out (at most :math:`2/S` of the integral's unit scale).
The stacked components are summed in blocks; since :math:`|\varphi_{t,i}| \le
1`, each partial product bounds :math:`|\varphi_t|` from above, and the nodes
past the last one whose bound still adds more than ``NEGLIGIBLE`` /
``NODES`` of the first-order saddle-point scale
:math:`2\pi/(|t(1+t)|\sqrt{2\pi v})` are left out of the remaining blocks
(together they change :math:`A` by less than ``NEGLIGIBLE`` times that
estimate; for a smooth composition of many components only the nodes near
:math:`s_0` stay).

Accuracy: an estimate, not a bound: :math:`A` is below the bound it comes
from, and the true error can be far below :math:`A` where the phases of
:math:`\varphi_t` cancel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from symfdp.accountants.base import Components
from symfdp.accountants.saddlepoint.rules import StackedRule
from symfdp.mechanisms import _logmix as lm
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.laplace import Laplace
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.swapped import Swapped

#: Midpoint nodes of the s-integral.
NODES: Final = 64
#: Largest frequency at which the quadrature rules of the subsampled and generic
#: components are trusted (trapezoid step h <= 0.45/mu in x: e^{isl} resolved
#: for s mu h < 2 pi, i.e. s < 14).
S_RULE: Final = 12.0
#: The window starts SMOOTH_SD tilted standard deviations out in s.
SMOOTH_SD: Final = 4.0
#: Largest number of tilts evaluated per call; more are interpolated.
MAX_TILTS: Final = 8
#: Weights below this (relative to a row's largest) are left out of
#: :math:`|\varphi|` (their sum is below ``width * 1e-15``).
_WEIGHT_FLOOR: Final = 1e-15
#: Kept entries per block of :func:`stacked_law`'s recurrence in s (its work
#: array, ``NODES`` x 1024 complex numbers, stays in the L2 cache).
_ENTRY_CHUNK: Final = 1 << 12
#: The s-nodes left out of the remaining components' recurrence once their
#: running bound puts them below this fraction of the first-order saddle-point
#: scale, in total (see :func:`_excess_integral`).
NEGLIGIBLE: Final = 1e-12

if TYPE_CHECKING:
    from symfdp.accountants.saddlepoint.rules import StackedRule

    #: The stacked rules of a composition's subsampled components for tilts in
    #: ``[lo, hi]``: ``(indices of those components, their StackedRule)``.
    StackedRules = Callable[[float, float], tuple[list[int], StackedRule]]


def _grid(t: FloatArray, v: FloatArray) -> FloatArray:
    """Midpoints ``(tilts, NODES)`` of ``[s0, S]`` per tilt (module docstring)."""
    with np.errstate(divide="ignore"):
        s0 = SMOOTH_SD / np.sqrt(v)
        span = np.maximum(s0 + 8.0 / np.sqrt(v), 4.0 * (1.0 + np.abs(t)))
    span = np.minimum(np.where(np.isfinite(span), span, S_RULE), S_RULE)
    s0 = np.minimum(np.where(np.isfinite(s0), s0, S_RULE), span)
    return (
        s0[:, None] + (span - s0)[:, None] * ((np.arange(NODES) + 0.5) / NODES)[None, :]
    )


#: A component's tilted law: its variances per tilt, and ``s -> log|phi(s)|``
#: for ``s`` of shape ``(tilts, nodes)``.
TiltedLaw = tuple[FloatArray, Callable[[FloatArray], FloatArray]]
#: :data:`TiltedLaw` whose ``log|phi|`` takes a floor per node (same shape as
#: ``s``): nodes whose running sum over the components falls below it are left
#: out of the rest of the sum and returned as ``-inf``.
FlooredLaw = tuple[FloatArray, Callable[[FloatArray, FloatArray | None], FloatArray]]


def _rule_law(nodes: FloatArray, log_w: FloatArray, tilt: FloatArray) -> TiltedLaw:
    r"""The discrete law :math:`\propto e^{\log w_i + \tau l_i}` per tilt
    :math:`\tau` (non-finite entries left out): :func:`stacked_law` of one row."""

    keep = np.isfinite(nodes) & np.isfinite(log_w)
    l, lw = nodes[keep][None, :], log_w[keep][None, :]
    var, log_modulus = stacked_law(
        StackedRule(l, lw, np.ones(1), np.array([l.size])), tilt
    )
    return var, lambda s: log_modulus(s, None)


def stacked_law(rule: StackedRule, t: FloatArray) -> FlooredLaw:
    r"""The laws :math:`\propto e^{\log w_{ci} + \tau l_{ci}}` of the rows
    :math:`c` of ``rule`` per tilt :math:`\tau`, summed with the rows' counts
    :math:`n_c`: :math:`\sum_c n_c v_c(\tau)` and ``s -> sum_c n_c
    log|phi_c(s)|`` for rows of ``s`` equally spaced (:func:`_grid`).

    Per tilt, the weights above ``_WEIGHT_FLOOR`` of every row are taken
    together, and :math:`e^{i s_j d}` over the nodes :math:`s_j = s_0 + j\Delta`
    by the recurrence :math:`e^{i s_{j+1} d} = e^{i s_j d} e^{i\Delta d}` (one
    complex product per entry and node; its rounding grows like ``NODES`` ulps).

    With a ``floor`` per node, the sum runs over blocks of rows and stops, for
    the nodes past the last one still above its floor, once the partial sum
    falls below it: :math:`|\varphi_c| \le 1`, so every partial sum bounds the
    whole one from above, and those nodes are returned as ``-inf``.
    """
    l, lw, counts = rule.nodes, rule.log_w, rule.counts
    var = np.empty(t.shape)
    kept: list[tuple[FloatArray, FloatArray, npt.NDArray[np.intp]]] = []
    for i, tau in enumerate(t):
        a = lw + tau * l
        a -= a.max(axis=1, keepdims=True)
        np.exp(a, out=a)
        a /= a.sum(axis=1, keepdims=True)
        mean = np.einsum("cw,cw->c", a, l)
        d = l - mean[:, None]
        var[i] = counts @ np.einsum("cw,cw->c", a, d * d)
        keep = a > _WEIGHT_FLOOR
        begins = np.concatenate(([0], np.cumsum(keep.sum(axis=1)))).astype(np.intp)
        kept.append((a[keep], d[keep], begins))

    def log_modulus(s: FloatArray, floor: FloatArray | None = None) -> FloatArray:
        out = np.zeros(s.shape)
        for i, (w, d, begins) in enumerate(kept):
            s0 = s[i, 0]
            step = s[i, 1] - s[i, 0] if s.shape[1] > 1 else 0.0
            nodes = s.shape[1]  # the nodes [0, nodes) still summed
            first = 0
            while first < counts.size and nodes > 0:
                # The rows whose kept entries fit one block (at least one row).
                start = int(begins[first])
                last = int(np.searchsorted(begins, start + _ENTRY_CHUNK, "right"))
                last = min(max(last - 1, first + 1), counts.size)
                stop = int(begins[last])
                dd = d[start:stop]
                z = np.empty((nodes, dd.size), dtype=np.complex128)
                z[0] = w[start:stop] * np.exp(1j * s0 * dd)
                turn = np.exp(1j * step * dd)
                for j in range(1, nodes):  # row by row: 8x NumPy's cumprod(axis=0)
                    np.multiply(z[j - 1], turn, out=z[j])
                phi = np.add.reduceat(z, begins[first:last] - start, axis=1)
                with np.errstate(divide="ignore"):
                    mod = 0.5 * np.log(phi.real**2 + phi.imag**2)
                out[i, :nodes] += mod @ counts[first:last]
                first = last
                if floor is not None:
                    above = np.flatnonzero(out[i, :nodes] >= floor[i, :nodes])
                    kept_nodes = int(above[-1]) + 1 if above.size else 0
                    out[i, kept_nodes:nodes] = -np.inf
                    nodes = kept_nodes
        return out

    return var, log_modulus


def _laplace_law(mu: float, t: FloatArray) -> TiltedLaw:
    r"""Closed form for the Laplace pair under Q tilted by ``t``:
    :math:`\log|F(a + i\mu s)| - \log F(a)`, :math:`a = \mu(t + 1/2)`, and the
    tilted variance :math:`K''(t)`."""

    def log_abs_f(z: np.ndarray) -> np.ndarray:
        # F is even: evaluate at Re z >= 0, F(z) = e^z/2 (1 + e^{-2z} + mu g(z)),
        # g(z) = (1 - e^{-2z}) / (2z) (-> 1 at 0).
        z = np.where(z.real < 0, -z, z)
        e2 = np.exp(-2.0 * z)
        small = np.abs(z) < 1e-8
        zs = np.where(small, 1.0, z)
        g = np.where(small, 1.0, -np.expm1(-2.0 * zs) / (2.0 * zs))
        with np.errstate(divide="ignore"):
            return z.real - math.log(2.0) + np.log(np.abs(1.0 + e2 + mu * g))

    a = mu * (t + 0.5)
    base = log_abs_f(a.astype(np.complex128))
    # The tilted variance from the same function: log|phi(h)| = -v h^2/2 +
    # O(h^4) at h = 1e-3/mu (relative error ~1e-8, consistent with |phi|).
    h = 1e-3 / mu
    var = -2.0 * (log_abs_f(a + 1j * mu * h) - base) / (h * h)
    return var, lambda s: log_abs_f(a[:, None] + 1j * mu * s) - base[:, None]


def component_law(m: Mechanism, t: FloatArray) -> TiltedLaw:
    r"""One mechanism's loss under Q tilted by each ``t``: its variances
    :math:`v_i` and ``s -> log|phi_{t,i}(s)|`` (rows of ``s``: the tilts; module
    docstring)."""

    if isinstance(m, Gaussian):
        v = float(m.mu) ** 2
        return np.full(t.shape, v), lambda s: -0.5 * v * s * s
    if isinstance(m, Laplace):
        return _laplace_law(float(m.mu), t)
    if isinstance(m, Swapped):
        # M'(z) = M(-1 - z): the modulus at t + is is the base's at -1 - t - is.
        return component_law(m.base, -1.0 - t)
    if isinstance(m, PoissonSubsampled):
        ident = m._identity()
        if ident is not None:
            return component_law(ident, t)
        # add: the P-law tilted by t + 1; remove: L' = -L under the P-law tilted
        # by -t (the modulus is even in s).
        tilt = t + 1.0 if m.pair == "add" else -t
        nodes, log_w = m._tilted_base_rule(tilt)
        return _rule_law(lm.log_mix(nodes, m.p), log_w, tilt)
    rule = m.plrv_quadrature()
    nodes = np.asarray(rule.nodes, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        log_w = np.asarray(rule.log_weights, dtype=np.float64) + nodes
    return _rule_law(nodes, np.where(np.isnan(log_w), -np.inf, log_w), t)


def _excess_integral(
    components: Components, t: FloatArray, stacked: StackedRules | None = None
) -> FloatArray:
    r""":math:`\int (|\varphi_t(s)| - e^{-vs^2/2})_+ / |(t+is)(1+t+is)|\,ds`
    over the window :math:`s_0 \le |s| \le S`, per tilt (1-d ``t``); the
    components ``stacked`` covers come from their stacked rules."""
    laws: list[tuple[TiltedLaw, float]] = []
    floored: FlooredLaw | None = None
    done: set[int] = set()
    if stacked is not None:
        idx, rule = stacked(float(t.min()), float(t.max()))
        if idx:
            floored = stacked_law(rule, t)
            done = set(idx)
    laws += [
        (component_law(m, t), n) for i, (m, n) in enumerate(components) if i not in done
    ]
    v = np.zeros(t.shape) if floored is None else floored[0].copy()
    for (var, _), n in laws:
        v += n * var
    s = _grid(t, np.where(v > 0, v, 1.0))
    ds = (s[:, 1] - s[:, 0]) if NODES > 1 else s[:, 0] * 2.0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        weight = 1.0 / np.abs((t[:, None] + 1j * s) * (1.0 + t[:, None] + 1j * s))
        # A node adds at most 2 ds weight |phi| to the integral; the first-order
        # saddle-point estimate is e^{K - t eps} / (|t (1 + t)| sqrt(2 pi v)),
        # the integral's 2 pi / (|t (1 + t)| sqrt(2 pi v)).
        scale = 2.0 * math.pi / (np.abs(t * (1.0 + t)) * np.sqrt(2.0 * math.pi * v))
        floor = np.log(NEGLIGIBLE * scale / NODES)[:, None] - np.log(
            2.0 * ds[:, None] * weight
        )
    log_mod = np.zeros((t.size, NODES))
    if floored is not None:
        log_mod += floored[1](s, np.where(np.isfinite(floor), floor, -np.inf))
    for (_, log_modulus), n in laws:
        log_mod += n * log_modulus(s)
    with np.errstate(over="ignore", invalid="ignore"):
        excess = np.maximum(np.exp(log_mod) - np.exp(-0.5 * v[:, None] * s * s), 0.0)
    out = 2.0 * ds * np.nansum(excess * weight, axis=1)
    return np.where(np.isfinite(out), out, np.inf)


def atom_term(
    components: Components,
    t: FloatArray,
    log_scale: FloatArray,
    stacked: StackedRules | None = None,
) -> FloatArray:
    r"""The atom term :math:`A = e^{\text{log\_scale}}/(2\pi) \times` the
    excess integral at tilts ``t`` (module docstring), with ``log_scale`` =
    :math:`K(t) - t\varepsilon`; same shape as ``t``. Tilts in
    :math:`[-1, 0]` (no contour there) give 0. ``stacked``: the stacked rules of
    some components (:data:`StackedRules`), used for those."""
    tt = np.asarray(t, dtype=np.float64)
    flat = tt.reshape(-1)
    scale = np.asarray(log_scale, dtype=np.float64).reshape(-1)
    out = np.zeros(flat.shape)
    use = np.isfinite(flat) & ((flat > 0.0) | (flat < -1.0)) & np.isfinite(scale)
    if not use.any():
        return out.reshape(tt.shape)
    tu = flat[use]
    if tu.size <= MAX_TILTS:
        integral = _excess_integral(components, tu, stacked)
    else:
        # Interpolate in log|t| per side (the integral is smooth in the tilt).
        integral = np.empty(tu.shape)
        for side in (tu > 0.0, tu < -1.0):
            if not side.any():
                continue
            x = np.log(np.abs(tu[side]))
            knots = np.unique(np.quantile(x, np.linspace(0.0, 1.0, MAX_TILTS)))
            knot_t = np.sign(tu[side][0]) * np.exp(knots)
            vals = _excess_integral(components, knot_t, stacked)
            integral[side] = np.interp(x, knots, vals)
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.exp(scale[use] - math.log(2.0 * math.pi)) * integral
    out[use] = np.where(np.isnan(a), np.inf, a)
    return out.reshape(tt.shape)
