r"""The saddle-point equation of a composed pair and its grid of saddle points.

:class:`SaddleGrid` sums the component CGFs under Q, keeps per side a grid of
saddle points in :math:`s` (:math:`t = s` upper, :math:`t = -1 - s` lower; along it
:math:`\varepsilon(s) = K'(t(s)) \mp (1/s + 1/(1+s))` is explicit) and solves
:math:`K'(t) = \varepsilon + 1/t + 1/(1+t)` (CF-S4) for any :math:`\varepsilon`.
Mathematics in :mod:`symfdp.accountants.saddlepoint`.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np

from symfdp.accountants.base import Components, loss_range
from symfdp.accountants.saddlepoint.formulas import log_integrals
from symfdp.accountants.saddlepoint.records import SaddleValues
from symfdp.accountants.saddlepoint.rules import (
    RuleCache,
    StackedRule,
    has_rules,
    rule_derivatives,
    rule_key,
    rules_many,
    stack_rules,
    stack_subsampled_gaussians,
    stacked_derivatives,
)
from symfdp.accountants.saddlepoint.tilted import component_cumulants
from symfdp.mechanisms.base import FloatArray, QuadratureLimitError
from symfdp.numeric.roots import bracketed_newton

if TYPE_CHECKING:
    from symfdp.accountants.saddlepoint.atom_term import StackedRules

#: The saddle-point grid in s: a first stage, then 12 points per factor 4 by need.
FIRST_STAGE: Final = np.geomspace(1e-4, 4.0, 97)
#: The first stage of compositions with at least COARSE_FROM subsampled
#: components, where a pass over the rules costs milliseconds per tilt: the
#: solver's one-tilt Newton passes then cost less than a dense grid.
COARSE_STAGE: Final = np.geomspace(1e-4, 4.0, 17)
COARSE_FROM: Final = 256
STAGE_POINTS: Final = 12
#: Largest s ever searched.
S_MAX: Final = 4.0**11
#: Up to this s the grid grows regardless of degeneracy.
S_FREE: Final = 64.0
#: Beyond S_FREE, the tilted mean must stay this many tilted standard deviations
#: away from a finite end of the support for the grid to grow.
DEGENERATE_SD: Final = 10.0
#: The grid stops growing where the estimate falls below e^LOG_NEGLIGIBLE.
LOG_NEGLIGIBLE: Final = -700.0
#: Relative step (or bracket width) at which the Newton iterations stop.
RTOL: Final = 1e-14
#: The same for delta(eps) queries (values at the last point, within SOLVE_RTOL).
SOLVE_RTOL: Final = 1e-10
MAX_ITER: Final = 100
SIDES: Final = ("upper", "lower")
#: From this many subsampled components on, their CGFs are evaluated as one
#: stacked matrix (:func:`~symfdp.accountants.saddlepoint.rules.stacked_derivatives`).
STACK_MIN: Final = 8
#: Order of the derivatives the delta(eps) solve evaluates at least (Taylor finish).
TAYLOR_ORDER: Final = 5
#: Largest relative step of the Taylor finish (omitted term ~1e-22 K^(5) s^5).
TAYLOR_STEP: Final = 1e-4
#: Passes over the rules of the Taylor finish before safeguarded Newton.
TAYLOR_ROUNDS: Final = 3
#: Relative step of the forward difference giving K''' from K''.
K3_STEP: Final = 1e-5


def sign(side: str) -> float:
    """+1 on the upper side, -1 on the lower side."""
    return 1.0 if side == "upper" else -1.0


def tilt(s: FloatArray, side: str) -> FloatArray:
    """t = s (upper side) or t = -1 - s (lower side)."""
    return s if side == "upper" else -1.0 - s


def pack(
    s: FloatArray,
    side: str,
    k: FloatArray,
    m: FloatArray,
    v: FloatArray,
    k3: FloatArray | None = None,
) -> SaddleValues:
    r"""Values at the saddle point ``t(s)``, with the ``eps`` solving
    :math:`F'_\varepsilon(t) = 0` there: :math:`\varepsilon = K'(t) - 1/t - 1/(1+t)`,
    i.e. :math:`K'(t) \mp (1/s + 1/(1+s))` (and ``k3`` = :math:`K^{(3)}(t)` if
    given)."""
    eps = m - sign(side) * (1.0 / s + 1.0 / (1.0 + s))
    return SaddleValues(s, tilt(s, side), k, m, v, eps, k3)


@functools.cache
def _inverse_factorials(count: int) -> FloatArray:
    """``1/j!`` for ``j = 0..count - 1``."""
    return 1.0 / np.array([math.factorial(j) for j in range(count)], dtype=np.float64)


def _taylor_root(x: FloatArray, d: FloatArray, e: FloatArray, sg: float) -> FloatArray:
    r"""The step ``h`` in ``s`` solving :math:`\pm(K'(t(s)) - \varepsilon) = 1/s +
    1/(1+s)` with :math:`K'` replaced by its Taylor series at ``x`` (rows ``d``):
    up to three Newton steps from 0."""
    # Taylor coefficients K^(1+j)/j! of K' and K^(2+j)/j! of K'' in u = sg h.
    rows = d.shape[0]
    inv = _inverse_factorials(rows)
    c1 = d[1:] * inv[: rows - 1, None]
    c2 = d[2:] * inv[: rows - 2, None]
    h = np.zeros(x.shape)
    up = np.empty((rows - 1, *x.shape))
    up[0] = 1.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for it in range(3):
            if it == 0:  # h = 0: the series' constant terms
                m, mp = c1[0], c2[0]
            else:
                u = sg * h
                for j in range(1, rows - 1):
                    np.multiply(up[j - 1], u, out=up[j])
                m = np.einsum("jn,jn->n", c1, up)
                mp = np.einsum("jn,jn->n", c2, up[:-1])
            a1 = 1.0 / (x + h)
            a2 = 1.0 / (1.0 + x + h)
            val = sg * (m - e) - a1 - a2
            dh = val / (mp + a1 * a1 + a2 * a2)
            h = h - dh
            # A step at the rounding level of x: the next one would be ~dh^2.
            if it > 0 and np.all(np.abs(dh) <= 4e-16 * x):
                break
    return np.where(np.isfinite(h), h, np.inf)


def taylor_shift(
    d: FloatArray, u: FloatArray, first: int = 0, count: int | None = None
) -> FloatArray:
    r"""Rows ``first .. first + count - 1`` of ``d`` (K, K', ... at t) at t + u:
    row ``i`` is :math:`\sum_j d_{i+j} u^j/j!`."""
    rows = d.shape[0] - first
    size = rows if count is None else count
    u = np.asarray(u, dtype=np.float64)
    powers = np.empty((rows, *u.shape))
    powers[0] = 1.0
    for j in range(1, rows):
        np.multiply(powers[j - 1], u, out=powers[j])
    powers *= _inverse_factorials(rows).reshape((rows,) + (1,) * u.ndim)
    # hankel[i, j] = d[first + i + j] (zero beyond the last row).
    padded = np.concatenate((d[first:], np.zeros((rows, *d.shape[1:]))))
    return cast(
        FloatArray, np.einsum("ij...,j...->i...", padded[_hankel(rows)[:size]], powers)
    )


@functools.cache
def _hankel(rows: int) -> Any:
    """Index table ``i + j`` (``i, j < rows``) into a row-padded array."""
    return np.add.outer(np.arange(rows), np.arange(rows))


def hermite_cubic(
    y: FloatArray,
    y0: FloatArray,
    y1: FloatArray,
    p0: FloatArray,
    p1: FloatArray,
    m0: FloatArray,
    m1: FloatArray,
) -> FloatArray:
    """The cubic Hermite interpolant at ``y`` of values ``p0, p1`` and slopes
    ``m0, m1`` at ``y0, y1`` (``y`` clipped into the interval); NaN where the
    interval is degenerate."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        h = y1 - y0
        u = np.minimum(np.maximum((y - y0) / h, 0.0), 1.0)
        h00 = (1.0 + 2.0 * u) * (1.0 - u) ** 2
        h10 = u * (1.0 - u) ** 2
        h01 = u * u * (3.0 - 2.0 * u)
        h11 = u * u * (u - 1.0)
        return h00 * p0 + h10 * h * m0 + h01 * p1 + h11 * h * m1


def _hermite_start(
    grid: SaddleValues, order: Any, ja: Any, e: FloatArray, sg: float
) -> FloatArray:
    r"""Cubic Hermite interpolant of :math:`\log s` in :math:`\varepsilon` at
    ``e`` between the grid points ``order[ja - 1]`` and ``order[ja]`` (``order``
    sorts the grid by eps), with the slopes :math:`d\log s/d\varepsilon =
    1/(s\,d\varepsilon/ds)`, :math:`d\varepsilon/ds = \pm(K'' + 1/s^2 +
    1/(1+s)^2)`; NaN where the interval is degenerate."""
    i0, i1 = order[ja - 1], order[ja]
    s0, s1 = grid.s[i0], grid.s[i1]

    def dlog(i: Any, si: FloatArray) -> FloatArray:
        return cast(
            FloatArray, sg / (si * (grid.v[i] + 1.0 / si**2 + 1.0 / (1.0 + si) ** 2))
        )

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = hermite_cubic(
            e,
            grid.eps[i0],
            grid.eps[i1],
            np.log(s0),
            np.log(s1),
            dlog(i0, s0),
            dlog(i1, s1),
        )
        return np.exp(x)


class SaddleGrid:
    r"""CGF sum, grids of saddle points and the saddle-point solver of one pair.

    Args:
        components: ``((mechanism, n), ...)`` of single dominating pairs.
        symmetric: Whether every component is symmetric (the split point is 0).

    Attributes:
        log_p_mass: :math:`K(-1) = \log E_Q[e^{-L}] = \log P(q > 0)` (0 for
            mutually continuous pairs).
        eps_split: The split point :math:`\varepsilon_{mid} = K'(-1/2)` between
            the lower and upper sides.
        support: Essential support ``(lo, hi)`` of the composed loss.
    """

    def __init__(self, components: Components, symmetric: bool) -> None:
        self.components = components
        #: Indices of the subsampled components (evaluated as one stacked
        #: matrix when there are several) and their stacked rules by range.
        self._fast_idx = [i for i, (m, _) in enumerate(components) if has_rules(m)]
        fast = set(self._fast_idx)
        #: The other components (closed forms).
        self._closed = [c for i, c in enumerate(components) if i not in fast]
        #: Which of them are remove pairs.
        self._remove = np.array(
            [components[i][0].pair == "remove" for i in self._fast_idx],  # type: ignore[attr-defined]
            dtype=np.bool_,
        )
        #: Cached tilt-following rules of the subsampled components (one pass
        #: gives K, K', K''), built on first use.
        self._caches: list[RuleCache] | None = None
        self._stacked: list[tuple[FloatArray, StackedRule]] = []
        # One CGF call gives the split point and the first stage of the upper grid.
        s0 = self._first_stage = (
            COARSE_STAGE if len(self._fast_idx) >= COARSE_FROM else FIRST_STAGE
        )
        k0, k1, k2, k3 = self.derivatives(np.concatenate(([-1.0, -0.5], s0)), 3)
        self.log_p_mass = float(min(k0[0], 0.0))
        self.eps_split = 0.0 if symmetric else float(k1[1])
        self.support = loss_range(components)
        self._grids = {"upper": pack(s0, "upper", k0[2:], k1[2:], k2[2:], k3[2:])}
        self._sorted_cache: dict[str, tuple[Any, ...]] = {}

    # ------------------------------------------------------------ CGF
    def cgf(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(K, K', K'')`` of the composed loss under Q (:meth:`derivatives`)."""
        k0, k1, k2 = self.derivatives(t, 2)
        return k0, k1, k2

    def derivatives(self, t: FloatArray, order: int) -> FloatArray:
        """``K, K', ..., K^(order)`` of the composed loss under Q at ``t`` (rows;
        shape ``(order + 1,) + t.shape``), summed over components; tilts grouped
        by magnitude (a rule for a large tilt has more nodes)."""
        t = np.asarray(t, dtype=np.float64)
        flat = t.reshape(-1)
        out = np.zeros((order + 1, flat.size))
        if flat.size == 0:
            return out.reshape((order + 1, *t.shape))
        lo, hi = float(flat.min()), float(flat.max())
        if max(hi, -lo) < 62.0:
            groups: list[Any] = [slice(None)]  # |t| < 63: one group
        else:
            level = np.floor(np.log(1.0 + np.abs(flat)) / math.log(4.0))
            level = np.where(level < 3, 0, level)
            groups = [np.flatnonzero(level == lv) for lv in np.unique(level)]
        for idx in groups:
            tt = flat[idx]
            if len(groups) > 1:
                lo, hi = float(tt.min()), float(tt.max())
            if len(self._fast_idx) >= STACK_MIN:
                out[:, idx] += stacked_derivatives(
                    self._stacked_rule(lo, hi), tt, order
                )
            else:
                for i, cache in zip(self._fast_idx, self.caches(), strict=True):
                    rule = cache.rule(lo, hi)
                    out[:, idx] += self.components[i][1] * rule_derivatives(
                        rule.nodes, rule.log_w, tt, order, finite=True
                    )
            for m, n in self._closed:
                a, b, c = m.cgf_derivatives(tt, "Q")
                out[0, idx] += n * np.asarray(a, dtype=np.float64)
                out[1, idx] += n * np.asarray(b, dtype=np.float64)
                out[2, idx] += n * np.asarray(c, dtype=np.float64)
                if order > 2:
                    out[3:, idx] += n * component_cumulants(m, tt, order)[1:]
        return out.reshape((order + 1, *t.shape))

    def _stacked_rule(self, lo: float, hi: float) -> StackedRule:
        """The rules of the subsampled components for the tilts ``[lo, hi]``,
        stacked (a cached rule of a covering range is reused)."""
        keys = np.where(
            self._remove[:, None],
            rule_key(True, lo, hi)[0],
            rule_key(False, lo, hi)[0],
        )
        for held, stacked in self._stacked:
            if np.all(held[:, 0] <= keys[:, 0]) and np.all(held[:, 1] >= keys[:, 1]):
                return stacked
        mechanisms = [self.components[i][0] for i in self._fast_idx]
        counts = np.array([self.components[i][1] for i in self._fast_idx], float)
        built = stack_subsampled_gaussians(mechanisms, counts, keys)
        if built is None:
            caches = self.caches()
            rules = rules_many(caches, lo, hi)
            keys = np.array([c._key_of(r) for c, r in zip(caches, rules, strict=True)])
            built = stack_rules(rules, counts)
        self._stacked.append((keys, built))
        return built

    def caches(self) -> list[RuleCache]:
        """The rule caches of the subsampled components (``_fast_idx`` order)."""
        if self._caches is None:
            self._caches = [RuleCache(self.components[i][0]) for i in self._fast_idx]
        return self._caches

    def stacked_rules(self) -> StackedRules | None:
        """The stacked rules of the subsampled components
        (:data:`~.atom_term.StackedRules`) when there are at
        least ``STACK_MIN`` of them (the CGF is then evaluated from those rules);
        None otherwise."""
        if len(self._fast_idx) < STACK_MIN:
            return None
        return lambda lo, hi: (self._fast_idx, self._stacked_rule(lo, hi))

    def cumulants(self, t: FloatArray, order: int) -> FloatArray:
        r""":math:`K^{(r)}(t)`, ``r = 2..order``, of the composed loss under Q
        (rows; :meth:`derivatives`)."""
        return self.derivatives(t, order)[2:]

    def at(self, s: Any, side: str) -> SaddleValues:
        """CGF values at ``t(s)`` and the saddle-consistent ``eps(s)``."""
        s = np.asarray(s, dtype=np.float64)
        return pack(s, side, *self.derivatives(tilt(s, side), 3))

    def grid(self, side: str) -> SaddleValues:
        """The current grid of ``side`` (its first stage on first use)."""
        if side not in self._grids:
            self._grids[side] = self.at(self._first_stage, side)
        return self._grids[side]

    def degenerate(self, vals: SaddleValues, side: str) -> bool:
        """Whether the tilted law at the grid's last point (``s >= S_FREE``) has
        its mean within ``DEGENERATE_SD`` standard deviations of a finite end of
        the support."""
        s, m, v = float(vals.s[-1]), float(vals.m[-1]), float(vals.v[-1])
        end = self.support[1] if side == "upper" else self.support[0]
        if s < S_FREE or not math.isfinite(end):
            return False
        # v = 0: the tilted variance underflowed (a point mass at the end).
        return v <= 0.0 or abs(end - m) < DEGENERATE_SD * math.sqrt(v)

    def extend(self, side: str, small_s: bool, limit: float = S_MAX) -> bool:
        """Extend the grid of ``side`` towards small or large ``s``; False at
        ``s < 1e-12``, ``limit``, a :meth:`degenerate` law, a negligible estimate
        or the mechanism's memory guard (points beyond are then capped)."""
        grid = self.grid(side)
        if small_s:
            if grid.s[0] < 1e-12:
                return False
            new = self.at(grid.s[0] * np.geomspace(1e-4, 1.0, 9)[:-1], side)
            grid = new.concat(grid)
        else:
            last = grid.take(slice(-1, None))
            s_end = float(last.s[0])
            if s_end >= limit or self.degenerate(last, side):
                return False
            log1, log2, *_ = log_integrals(last, side, np.zeros(1, bool), 2)
            if min(log1[0], log2[0]) < LOG_NEGLIGIBLE:
                return False
            stage = np.geomspace(s_end, 4.0 * s_end, STAGE_POINTS + 1)[1:]
            # The extra point covers solve()'s K''' difference step.
            probe = np.append(stage, stage[-1] * (1.0 + 2.0 * K3_STEP))
            try:
                new = self.at(probe, side).take(slice(None, -1))
            except QuadratureLimitError:
                return False
            grid = grid.concat(new)
        self._grids[side] = grid
        return True

    def covering(self, side: str, lo: float, hi: float) -> SaddleValues:
        """The grid of ``side`` extended until its eps range covers [lo, hi] or
        cannot be extended further."""
        up = side == "upper"
        while True:
            g = self.grid(side)
            e_min, e_max = (g.eps[0], g.eps[-1]) if up else (g.eps[-1], g.eps[0])
            if e_min > lo and self.extend(side, small_s=up):
                continue
            if e_max < hi and self.extend(side, small_s=not up):
                continue
            return self.grid(side)

    def _sorted(self, grid: SaddleValues) -> tuple[Any, FloatArray, FloatArray]:
        """``(order, eps, s)``: the grid sorted by eps, cached per grid record
        (grids are frozen records, replaced when they grow)."""
        key = "upper" if grid.t[0] > 0 else "lower"
        hit = self._sorted_cache.get(key)
        if hit is None or hit[0] is not grid:
            by_eps = np.argsort(grid.eps)
            hit = (grid, by_eps, grid.eps[by_eps], grid.s[by_eps])
            self._sorted_cache[key] = hit
        return hit[1], hit[2], hit[3]

    # ------------------------------------------------------------ saddle point
    def solve(
        self, eps: FloatArray, side: str, k3: bool = False, order: int = 2
    ) -> tuple[SaddleValues, Any, FloatArray]:
        r"""Solve :math:`F'_\varepsilon(t) = 0` for every ``eps`` on ``side``, to
        ``SOLVE_RTOL``: :math:`g(s) = \pm(\varepsilon(s) - \varepsilon)` increases
        (:math:`g' = F''`) and the grid brackets each root; Newton on the Taylor
        series of one pass over the rules within ``TAYLOR_STEP`` of a cubic
        Hermite guess, else safeguarded Newton.

        Returns:
            The CGF values at the saddle points (``eps`` set to the input; with
            ``k3`` also :math:`K^{(3)}`, 0 at capped entries), the mask of entries
            beyond the grid (values at its last point) and the rows :math:`K'',
            \dots, K^{(r)}`, ``r = max(order, TAYLOR_ORDER)``.
        """
        top = max(order, TAYLOR_ORDER)
        sg = sign(side)
        grid = self.covering(side, float(eps.min()), float(eps.max()))
        by_eps, ge, gs = self._sorted(grid)
        j = np.minimum(np.maximum(np.searchsorted(ge, eps), 1), ge.size - 1)
        lo = np.minimum(gs[j - 1], gs[j])
        hi = np.maximum(gs[j - 1], gs[j])
        if side == "upper":
            capped, tiny = eps > ge[-1], eps < ge[0]
        else:
            capped, tiny = eps < ge[0], eps > ge[-1]
        s_cap, s_min = float(grid.s.max()), float(grid.s.min())
        s = np.where(capped, s_cap, np.sqrt(lo * hi))
        free = ~capped
        rows = np.zeros((top + 1, *eps.shape))
        known = np.zeros(eps.shape, dtype=bool)
        if free.any():
            e_f = eps[free]
            lo_f = np.where(tiny[free], 1e-300, lo[free])
            hi_f = np.where(tiny[free], s_min, hi[free])
            ja = j[free]
            x0 = _hermite_start(grid, by_eps, ja, e_f, sg)
            x0 = np.where(
                tiny[free] | ~np.isfinite(x0),
                np.sqrt(lo_f * hi_f),
                np.minimum(np.maximum(x0, lo_f), hi_f),
            )
            # Taylor finish near the guess, up to TAYLOR_ROUNDS passes.
            s = s.copy()
            fi = np.flatnonzero(free)
            x = x0
            for _ in range(TAYLOR_ROUNDS):
                d0 = self.derivatives(tilt(x, side), top)
                step = _taylor_root(x, d0, e_f, sg)
                near = np.abs(step) <= TAYLOR_STEP * x
                near &= (x + step >= lo_f) & (x + step <= hi_f)
                if near.all():
                    s[fi] = x + step
                    rows[:, fi] = taylor_shift(d0, sg * step)
                    known[fi] = True
                    fi, x_prev, d_prev = fi[:0], x[:0], d0[:, :0]
                    break
                if near.any():
                    s[fi[near]] = x[near] + step[near]
                    rows[:, fi[near]] = taylor_shift(d0[:, near], sg * step[near])
                    known[fi[near]] = True
                far = ~near
                fi, e_f, lo_f, hi_f = fi[far], e_f[far], lo_f[far], hi_f[far]
                x_next = x[far] + step[far]
                ok = np.isfinite(x_next) & (x_next > lo_f) & (x_next < hi_f)
                x_prev, d_prev = x[far], d0[:, far]
                x = np.where(ok, x_next, np.sqrt(lo_f * hi_f))
                if fi.size == 0:
                    break
            x0 = x
            last: dict[str, Any] = {"x": x_prev, "values": d_prev}

            def g(x: FloatArray) -> tuple[FloatArray, FloatArray]:
                # Only the moved entries go through the rules again.
                d = last["values"].copy()
                moved = x != last["x"]
                if moved.any():
                    d[:, moved] = self.derivatives(tilt(x[moved], side), top)
                last.update(x=x.copy(), values=d)
                m, v = d[1], d[2]
                val = sg * (m - e_f) - 1.0 / x - 1.0 / (1.0 + x)
                # A residual at the rounding level of its terms (which cancel)
                # counts as a root.
                noise = 1e-15 * (np.abs(m) + np.abs(e_f) + 1.0 / x + 1.0)
                val = np.where(np.abs(val) <= noise, 0.0, val)
                return val, v + 1.0 / x**2 + 1.0 / (1.0 + x) ** 2

            rest = fi
            if rest.size:
                s[rest] = bracketed_newton(
                    g,
                    np.zeros(lo_f.shape),
                    lo_f,
                    hi_f,
                    xtol=SOLVE_RTOL,
                    x0=x0,
                    geometric=True,
                    check_bracket=False,
                    max_iter=MAX_ITER,
                )
                if np.array_equal(last["x"], s[rest]):
                    rows[:, rest] = last["values"]
                    known[rest] = True
        t = tilt(s, side)
        if not known.all():
            rows[:, ~known] = self.derivatives(t[~known], top)
        k3_rows = np.where(capped, 0.0, rows[3]) if k3 else None
        vals = SaddleValues(s, tilt(s, side), rows[0], rows[1], rows[2], eps, k3_rows)
        return vals, capped, rows[2:]
