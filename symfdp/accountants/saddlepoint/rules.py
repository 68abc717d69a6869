r"""Cached quadrature rules of the tilted losses: :math:`K, K', K'', \dots` in one pass.

For a Poisson-subsampled component the loss under Q tilted by :math:`t` is
resolved by the mechanism's tilt-following rule (``_tilted_base_rule``; add
pair: the P-law tilted by :math:`s = t + 1`, remove pair: :math:`L' = -L` and
:math:`s = -t`). A :class:`LossRule` holds the loss nodes :math:`l_i` and the
log Q-weights for a whole range of tilts; :func:`rule_derivatives` returns

.. math::  K(t) = \log\sum_i e^{\log w_i + t l_i}, \quad K'(t) = \tilde E[l],
           \quad K^{(r)}(t) = \kappa_r(\tilde w), \ r \ge 2,

in one pass (central moments and the moment-cumulant recursion of Zheng et al.
2020, App. B); the composed :math:`K` keeps an absolute precision of about
:math:`n \cdot 10^{-16}`, what :math:`\delta \propto e^{K}` needs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from symfdp.mechanisms import _logmix as lm
from symfdp.mechanisms._gaussian_mixture_batch import log_mix_rows, stacked_log_mix
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian
from symfdp.numeric.moments import (
    central_rows_from_shifted,
    cumulants_from_central_rows,
)

#: Entries (tilts x nodes) per block of the vectorised pass (stays in cache).
_CHUNK = 65_536


@dataclass(frozen=True)
class LossRule:
    """Loss nodes and log Q-weights of one component, valid for tilts in
    ``[t_lo, t_hi]`` (finite entries only)."""

    nodes: FloatArray
    log_w: FloatArray
    t_lo: float
    t_hi: float


def rule_derivatives(
    nodes: FloatArray,
    log_w: FloatArray,
    t: FloatArray,
    order: int,
    *,
    finite: bool = False,
) -> FloatArray:
    r"""``K, K', ..., K^{(order)}`` at each tilt ``t`` of the discrete law
    :math:`\propto e^{\log w_i}` (rows); shape ``(order + 1, t.size)``.
    Non-finite nodes and weights are left out (unless ``finite``)."""
    if finite:
        l, lw = nodes, log_w
    else:
        keep = np.isfinite(nodes) & np.isfinite(log_w)
        l, lw = nodes[keep], log_w[keep]
    out = np.empty((order + 1, t.size))
    step = max(1, _CHUNK // max(l.size, 1))
    for start in range(0, t.size, step):
        tt = t[start : start + step]
        a = np.multiply.outer(tt, l)
        a += lw
        amax = a.max(axis=1)
        a -= amax[:, None]
        np.exp(a, out=a)
        s = a.sum(axis=1)
        mean = (a @ l) / s
        block = slice(start, start + tt.size)
        out[0, block] = amax + np.log(s)
        out[1, block] = mean
        if order < 2:
            continue
        d = l - mean[:, None]
        central = np.empty((order + 1, tt.size))
        a *= d
        for r in range(2, order + 1):
            a *= d
            central[r] = a.sum(axis=1)
        central[2:] /= s
        out[2:, block] = cumulants_from_central_rows(central)
    return out


def _rounded(x: float) -> float:
    """``x`` rounded away from 0 to a power of two (at least 1)."""
    return float(2.0 ** math.ceil(math.log2(max(abs(x), 1.0))))


def rule_key(
    remove: bool, t_lo: float, t_hi: float
) -> tuple[tuple[float, float], float, float]:
    """The rule range ``(lo, hi)`` that covers the Q-law tilts ``[t_lo, t_hi]``
    of an add (or remove) pair, rounded out to powers of two, and the
    mechanism's tilt range ``(s_lo, s_hi)``."""
    # The mechanism's tilt variable s: t + 1 (add, under P) or -t (remove).
    s_lo, s_hi = (-t_hi, -t_lo) if remove else (t_lo + 1.0, t_hi + 1.0)
    # The rule spans [min(s, 0), max(s, 1)] (as _tilted_base_rule does).
    lo = -_rounded(s_lo) if s_lo < 0 else 0.0
    hi = _rounded(s_hi) if s_hi > 1 else 1.0
    return (lo, hi), s_lo, s_hi


@dataclass
class RuleCache:
    """Tilt-following rules of one subsampled component, built once per range
    of tilts (rounded out to powers of two)."""

    mechanism: Mechanism
    _rules: dict[tuple[float, float], LossRule] = field(default_factory=dict)

    def rule(self, t_lo: float, t_hi: float) -> LossRule:
        """A rule resolving the tilts ``[t_lo, t_hi]`` (Q-law tilts)."""
        key, s_lo, s_hi = self._key(t_lo, t_hi)
        hit = self._rules.get(key)
        if hit is not None:
            return hit

        m: Any = self.mechanism
        key, base, log_p = self._base(key, s_lo, s_hi)
        return self._finish(key, lm.log_mix(base, m.p), log_p, t_lo, t_hi)

    def _key(
        self, t_lo: float, t_hi: float
    ) -> tuple[tuple[float, float], float, float]:
        """The cache key of the tilts ``[t_lo, t_hi]`` and the mechanism's
        tilt range ``(s_lo, s_hi)``."""
        m: Any = self.mechanism
        return rule_key(m.pair == "remove", t_lo, t_hi)

    def _key_of(self, rule: LossRule) -> tuple[float, float]:
        """The key ``rule`` is stored under."""
        return next(k for k, r in self._rules.items() if r is rule)

    def _base(
        self, key: tuple[float, float], s_lo: float, s_hi: float
    ) -> tuple[tuple[float, float], FloatArray, FloatArray]:
        """Base nodes and log P-weights of the rule of ``key`` (and the key
        they are stored under)."""
        m: Any = self.mechanism
        try:
            base, log_p = m._tilted_base_rule(np.array(key))
        except ValueError:
            # The rounded range exceeds the memory guard: try the exact one.
            base, log_p = m._tilted_base_rule(np.array([s_lo, s_hi]))
            key = (min(s_lo, 0.0), max(s_hi, 1.0))
        return key, base, log_p

    def _finish(
        self,
        key: tuple[float, float],
        a: FloatArray,
        log_p: FloatArray,
        t_lo: float,
        t_hi: float,
    ) -> LossRule:
        """Store the rule of loss values ``a = log_mix(base)`` under ``key``."""
        if self.mechanism.pair == "add":  # type: ignore[attr-defined]
            # Q-weights w_P e^{L}; tilting them by t is the P-law tilted by t + 1.
            with np.errstate(invalid="ignore"):
                nodes, log_w = a, log_p + a
        else:
            # L' = -L, Q' = P_add: the Q'-law tilted by t is P_add tilted by -t.
            nodes, log_w = -a, log_p
        keep = np.isfinite(nodes) & np.isfinite(log_w)
        rule = LossRule(nodes[keep], log_w[keep], t_lo, t_hi)
        self._rules[key] = rule
        return rule


@dataclass(frozen=True)
class StackedRule:
    """The rules of many components in one matrix, one row each, padded with
    massless nodes and sorted by size; ``counts`` are the multiplicities."""

    nodes: FloatArray
    log_w: FloatArray
    counts: FloatArray
    sizes: NDArray[np.intp]


def rules_many(caches: list[RuleCache], t_lo: float, t_hi: float) -> list[LossRule]:
    r""":meth:`RuleCache.rule` of every cache, the missing rules' losses
    :math:`\ell(l_b)` computed in one NumPy pass."""

    out: list[LossRule | None] = []
    todo: list[tuple[int, tuple[float, float], FloatArray, FloatArray]] = []
    for i, cache in enumerate(caches):
        key, s_lo, s_hi = cache._key(t_lo, t_hi)
        hit = cache._rules.get(key)
        out.append(hit)
        if hit is None:
            key, base, log_p = cache._base(key, s_lo, s_hi)
            todo.append((i, key, base, log_p))
    if todo:
        values = stacked_log_mix(
            [base for _, _, base, _ in todo],
            [caches[i].mechanism.p for i, _, _, _ in todo],  # type: ignore[attr-defined]
        )
        for (i, key, _, log_p), a in zip(todo, values, strict=True):
            out[i] = caches[i]._finish(key, a, log_p, t_lo, t_hi)
    return out  # type: ignore[return-value]


def stack_rules(rules: list[LossRule], counts: FloatArray) -> StackedRule:
    """The rules as one padded :class:`StackedRule` (rows sorted by size)."""
    sizes = np.array([r.nodes.size for r in rules])
    order = np.argsort(sizes, kind="stable")
    width = int(sizes.max())
    nodes = np.zeros((len(rules), width))
    log_w = np.full((len(rules), width), -np.inf)
    for row, i in enumerate(order):
        r = rules[i]
        nodes[row, : r.nodes.size] = r.nodes
        log_w[row, : r.nodes.size] = r.log_w
    return StackedRule(
        nodes, log_w, np.asarray(counts, dtype=np.float64)[order], sizes[order]
    )


def stack_subsampled_gaussians(
    mechanisms: list[Mechanism], counts: FloatArray, keys: FloatArray
) -> StackedRule | None:
    r"""The rules of add or remove subsampled-Gaussian pairs (``p < 1``,
    ``mu > 0``) for the rule ranges ``keys`` (rows ``(lo, hi)``, see
    :func:`rule_key`), built in one NumPy pass (grids, :math:`\ell(l_b)`,
    weights) and stacked as :func:`stack_rules` stacks :meth:`RuleCache.rule`'s
    rules. None when some component is not such a pair, or its rule would
    exceed the mechanism's memory guard (then the rules are built one by one).
    """

    if any(type(m) is not SubsampledGaussian for m in mechanisms):
        return None
    sg: list[Any] = mechanisms
    pairs = [m.pair for m in sg]
    if any(pair not in ("add", "remove") for pair in pairs):
        return None
    mu, p = np.array([(m.base.mu, m.p) for m in sg], dtype=np.float64).T
    if not (np.all(mu > 0.0) and np.all(p < 1.0)):
        return None
    built = SubsampledGaussian._tilted_base_rules(mu, p, keys[:, 0], keys[:, 1])
    if built is None:
        return None
    base, log_p, sizes = built
    nodes = log_mix_rows(base, p[:, None])
    del base
    remove = np.array([pair == "remove" for pair in pairs])[:, None]
    real = np.isfinite(log_p)
    # Add: Q-weights w_P e^{L} (tilting them by t is the P-law tilted by
    # t + 1); remove: L' = -L, Q' = P_add (tilted by t: P_add tilted by -t).
    # In place: these matrices are the largest of the pass.
    log_w = np.add(log_p, nodes, out=log_p, where=~remove)
    np.negative(nodes, out=nodes, where=remove)
    if not np.array_equal(np.isfinite(nodes) & np.isfinite(log_w), real):
        return None
    nodes[~real] = 0.0
    order = np.argsort(sizes, kind="stable")
    return StackedRule(nodes[order], log_w[order], counts[order], sizes[order])


#: Entries (components x tilts x nodes) per block of the stacked passes (1 MB
#: work arrays).
_STACK_CHUNK = 1 << 17
#: From this many tilts on, :func:`stacked_derivatives` takes the moments about
#: one point per component (:func:`_shifted_derivatives`).
SHIFTED_MIN_TILTS = 4
#: Largest distance, in tilted standard deviations, of that point from the
#: tilted mean (beyond it the component is summed about its mean).
SHIFT_SD = 4.0
#: Smallest sum of the weights scaled by the upper bound of their largest one
#: (below it the component is summed about its mean).
_SCALED_SUM_MIN = 1e-200


def stacked_derivatives(rule: StackedRule, t: FloatArray, order: int) -> FloatArray:
    r""":math:`\sum_c n_c K_c^{(r)}(t)`, ``r = 0..order``, over the components of
    ``rule`` (rows; shape ``(order + 1, t.size)``): for ``SHIFTED_MIN_TILTS``
    tilts or more by :func:`_shifted_derivatives`, the components it declines
    (and fewer tilts) by :func:`_central_derivatives`."""
    if t.size < SHIFTED_MIN_TILTS:
        return _central_derivatives(rule, t, order)
    out, declined = _shifted_derivatives(rule, t, order)
    if declined.size:
        rest = StackedRule(
            rule.nodes[declined],
            rule.log_w[declined],
            rule.counts[declined],
            rule.sizes[declined],
        )
        out += _central_derivatives(rest, t, order)
    return out


def _blocks(rule: StackedRule, tilts: int) -> Iterator[tuple[slice, int]]:
    """Row ranges of ``rule`` of about ``_STACK_CHUNK`` entries at ``tilts``
    tilts each, and their width (rows are sorted by size: a block's last row is
    its widest)."""
    comps = rule.nodes.shape[0]
    start = 0
    while start < comps:
        width = int(rule.sizes[start])
        per = max(1, _STACK_CHUNK // max(width * tilts, 1))
        stop = min(start + per, comps)
        yield slice(start, stop), int(rule.sizes[stop - 1])
        start = stop


def _central_derivatives(rule: StackedRule, t: FloatArray, order: int) -> FloatArray:
    """:func:`stacked_derivatives` from the central moments of each component
    and tilt (two passes: the tilted mean, then the powers about it)."""
    out = np.zeros((order + 1, t.size))
    tt = t[None, :, None]
    for rows, width in _blocks(rule, t.size):
        l = rule.nodes[rows, :width]
        lw = rule.log_w[rows, :width]
        n = rule.counts[rows]
        a = tt * l[:, None, :]
        a += lw[:, None, :]
        amax = a.max(axis=2)
        a -= amax[:, :, None]
        np.exp(a, out=a)
        s = a.sum(axis=2)
        mean = np.einsum("ctn,cn->ct", a, l) / s
        out[0] += n @ (amax + np.log(s))
        out[1] += n @ mean
        if order < 2:
            continue
        d = l[:, None, :] - mean[:, :, None]
        central = np.empty((order + 1, *s.shape))
        a *= d
        for r in range(2, order + 1):
            a *= d
            central[r] = a.sum(axis=2)
        central[2:] /= s
        out[2:] += np.einsum("c,rct->rt", n, cumulants_from_central_rows(central))
    return out


def _shifted_derivatives(
    rule: StackedRule, t: FloatArray, order: int
) -> tuple[FloatArray, NDArray[np.intp]]:
    r""":func:`stacked_derivatives` from the moments of each component about one
    point :math:`c` for all tilts, and the rows it declines.

    :math:`c` is the component's tilted mean at the middle tilt. With the upper
    bound :math:`B(t) = \max_i \log w_i + \max(t l_{max}, t l_{min})` of the
    largest log-weight (no pass for the maximum), the sums

    .. math::  S_j(t) = \sum_i e^{t (l_i - l_{end})}\,
               \big[e^{\log w_i - \max \log w}\,(l_i - c)^j\big],
               \qquad j = 0..\text{order},

    (:math:`l_{end} = l_{max}` for :math:`t \ge 0`, :math:`l_{min}` below)
    are one exponential per entry and one matrix product per component, and
    :math:`K = B + \log S_0`, :math:`K' = c + S_1/S_0`. Central moments follow
    by :func:`~symfdp.numeric.moments.central_rows_from_shifted`, with
    rounding :math:`(1 + |\delta|/\sigma)^r` times that of the central sums;
    a component is declined (summed about its mean instead) where
    :math:`|\delta| >` ``SHIFT_SD`` :math:`\sigma` (order 3: at most 125 ulps
    of :math:`\sigma^3`) or :math:`S_0 <` ``_SCALED_SUM_MIN`` (a bound far
    above the largest weight)."""
    l, lw = rule.nodes, rule.log_w
    comps = l.shape[0]
    top, l_hi, l_lo = np.empty(comps), np.empty(comps), np.empty(comps)
    centre = _row_means(l, lw, float(np.median(t)))
    by_tilt = np.argsort(t, kind="stable")
    ts = t[by_tilt]
    neg = int(np.searchsorted(ts, 0.0))
    sums = np.empty((comps, t.size, order + 1))
    for rows, width in _blocks(rule, t.size):
        ll, lww = l[rows, :width], lw[rows, :width]
        real = np.isfinite(lww)
        top[rows] = lww.max(axis=1)
        l_hi[rows] = np.where(real, ll, -np.inf).max(axis=1)
        l_lo[rows] = np.where(real, ll, np.inf).min(axis=1)
        # Weights and powers in one (rows, nodes, order + 1) matrix.
        powers = np.empty((*ll.shape, order + 1))
        np.exp(lww - top[rows, None], out=powers[..., 0])
        d = ll - centre[rows, None]
        for j in range(1, order + 1):
            np.multiply(powers[..., j - 1], d, out=powers[..., j])
        for tilts, shift in (
            (slice(0, neg), np.maximum(ll - l_lo[rows, None], 0.0)),
            (slice(neg, t.size), np.minimum(ll - l_hi[rows, None], 0.0)),
        ):
            if tilts.start == tilts.stop:
                continue
            # t (l - l_end) <= 0 (padding nodes clipped to the end).
            a = np.multiply.outer(ts[tilts], shift)
            np.exp(a, out=a)
            np.matmul(a.transpose(1, 0, 2), powers, out=sums[rows, tilts])
    if np.any(by_tilt[1:] < by_tilt[:-1]):
        sums = sums[:, np.argsort(by_tilt)]
    sums = np.moveaxis(sums, 2, 0)
    scale = sums[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        shifted = sums / scale
        central = central_rows_from_shifted(shifted)
    delta = shifted[1]
    var = central[2] if order >= 2 else np.ones(scale.shape)
    fine = np.all(
        (scale > _SCALED_SUM_MIN) & (var > 0.0) & (delta * delta <= SHIFT_SD**2 * var),
        axis=1,
    )
    n = np.where(fine, rule.counts, 0.0)
    bound = top[:, None] + np.maximum(np.outer(l_hi, t), np.outer(l_lo, t))
    out = np.zeros((order + 1, t.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        out[0] = n @ np.where(fine[:, None], bound + np.log(scale), 0.0)
        out[1] = n @ np.where(fine[:, None], centre[:, None] + delta, 0.0)
        if order >= 2:
            kappa = np.where(
                fine[None, :, None], cumulants_from_central_rows(central), 0.0
            )
            out[2:] = np.einsum("c,rct->rt", n, kappa)
    return out, np.flatnonzero(~fine)


def _row_means(l: FloatArray, lw: FloatArray, tilt: float) -> FloatArray:
    r"""The mean of each row's law :math:`\propto e^{\log w_i + t l_i}`."""
    a = tilt * l + lw
    a -= a.max(axis=1, keepdims=True)
    np.exp(a, out=a)
    means: FloatArray = np.einsum("cn,cn->c", a, l) / a.sum(axis=1)
    return means


def has_rules(m: Mechanism) -> bool:
    """Whether ``m`` is a Poisson-subsampled pair with ``p < 1`` (evaluated by
    tilt-following rules, :class:`RuleCache`); other mechanisms have closed
    forms."""
    return (
        _is_subsampled(type(m))
        and m._identity() is None  # type: ignore[attr-defined]
        and m.pair in ("add", "remove")  # type: ignore[attr-defined]
    )


@functools.cache
def _is_subsampled(kind: type) -> bool:
    """Whether ``kind`` is a Poisson-subsampled mechanism class."""

    return issubclass(kind, PoissonSubsampled)
