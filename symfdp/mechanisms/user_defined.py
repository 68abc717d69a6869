r"""A dominating pair given by two densities on the real line (user-defined).

:class:`DensityPair` describes :math:`(P, Q)` by the log-densities on a support
:math:`(a, b)` and the loss :math:`L(x) = \log q(x)/p(x)` split into *pieces*
on which :math:`L` is smooth and strictly monotone or constant (:class:`Piece`).
The law of L comes from :math:`\{L \le l\}` on each piece (a constant piece is
an atom), with :math:`L^{-1}` by bisection to adjacent floats and masses as sums
of positive adaptive Gauss–Legendre panel masses (:mod:`._panels`), each tail
from its own end; infinite ends are cut where both log-densities are 760 below
their peak (dropped mass below :math:`e^{-745}`). Cumulants from the panel rule
of P; the CGF :math:`K_P(t) = \log\int p^{1-t} q^t` on a rule per tilt
(:class:`CGFDomainError` outside :meth:`DensityPair.cgf_domain`); the profile
:math:`\delta(\varepsilon) = \int_{L > \varepsilon} q\,(1 - e^{\varepsilon -
L})\,dx`, a positive integrand.

**Accuracy.** Masses and moments about :math:`10^{-14}` relative
(:attr:`DensityPair.cdf_rtol`) plus the error of the log-densities; the
certified bracket of ``Numerical`` assumes :data:`symfdp.pld.compose.CDF_RTOL`
(64 ulps), so it is certified up to a round-off allowance about ten times the
stated one (:math:`\sim 10^{-13}` of the tail)."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from symfdp._validation import (
    check_array,
    check_bool,
    check_callable,
    check_choice,
    check_int,
    scalar_or_array,
)
from symfdp.mechanisms._panels import (
    LOG_NEGLIGIBLE,
    PANEL_RTOL,
    _eval,
    adaptive_edges,
    log_panel_masses,
    panel_nodes,
    tail_cut,
)
from symfdp.mechanisms.base import (
    MAX_CUMULANT_ORDER,
    FloatArray,
    Mechanism,
    Param,
    PLRVQuadrature,
    QuadratureLimitError,
    Under,
)

Fn = Callable[[FloatArray], FloatArray]

#: Initial panels per piece.
_INIT_PANELS = 16
#: Largest number of bisection steps of the inverse of L (to adjacent floats).
_BISECT_STEPS = 1200
#: Samples per piece when locating critical points of L.
_CRIT_SAMPLES = 4001
#: Largest reach of the support searched for the tails.
_REACH = 1e10
#: Tilts are cached up to this many entries.
_TILT_CACHE = 4096


class CGFDomainError(ValueError):
    """The CGF of the privacy loss is infinite at the tilt requested."""


@dataclass(frozen=True)
class Piece:
    """A piece ``(a, b)`` of the support on which ``L`` is smooth and monotone.

    Attributes:
        a, b: Ends (infinite at an infinite end of the support).
        llr: ``L`` on the piece (vectorised).
        slope: ``+1`` increasing, ``-1`` decreasing, ``0`` constant (an atom).
        value: The constant value of ``L`` when ``slope == 0``.
    """

    a: float
    b: float
    llr: Fn
    slope: int
    value: float = math.nan


@dataclass(frozen=True)
class _Layout:
    """Truncated ends and panel masses of one piece."""

    piece: Piece
    lo: float
    hi: float
    edges: FloatArray
    log_mass: dict[str, FloatArray]
    prefix: dict[str, FloatArray]
    suffix: dict[str, FloatArray]
    l_lo: float
    l_hi: float

    def total(self, under: str) -> float:
        return float(self.prefix[under][-1])


def _cums(log_mass: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``prefix[j]`` = mass of panels < j, ``suffix[j]`` = mass of panels >= j."""
    m = np.exp(log_mass)
    prefix = np.concatenate(([0.0], np.cumsum(m)))
    suffix = np.concatenate((np.cumsum(m[::-1])[::-1], [0.0]))
    return prefix, suffix


def _normalised(parts: list[tuple[Any, ...]]) -> list[_Layout]:
    """Layouts with the masses scaled to total 1 (so the CDF does not overshoot
    1): P uniformly, Q on the monotone pieces only (atoms keep ``Q = e^c P``)."""
    z_p = special.logsumexp(np.concatenate([p[4]["P"] for p in parts]))
    atoms_q = [p[4]["P"] - z_p + p[0].value for p in parts if p[0].slope == 0]
    cont_q = [p[4]["Q"] for p in parts if p[0].slope != 0]
    mass_atoms = (
        float(np.exp(special.logsumexp(np.concatenate(atoms_q)))) if atoms_q else 0.0
    )
    z_q = special.logsumexp(np.concatenate(cont_q)) if cont_q else 0.0
    shift_q = z_q - math.log(max(1.0 - mass_atoms, 1e-300)) if cont_q else 0.0
    out = []
    for pc, lo, hi, edges, lm, l_lo, l_hi in parts:
        log_mass = {"P": lm["P"] - z_p}
        if pc.slope == 0:
            log_mass["Q"] = log_mass["P"] + pc.value
        else:
            log_mass["Q"] = lm["Q"] - shift_q
        prefix, suffix = {}, {}
        for u in ("P", "Q"):
            prefix[u], suffix[u] = _cums(log_mass[u])
        out.append(_Layout(pc, lo, hi, edges, log_mass, prefix, suffix, l_lo, l_hi))
    return out


def split_monotone(a: float, b: float, llr: Fn, dllr: Fn | None = None) -> list[Piece]:
    """Split a smooth piece ``(a, b)`` of ``L`` at its critical points: sign
    changes of ``dllr`` (central differences if not given) on :data:`_CRIT_SAMPLES`
    points, refined by Brent's method; a piece with zero derivative everywhere is
    constant."""
    xs = _sample_points(a, b)
    if dllr is None:
        step = 1e-6 * np.maximum(1.0, np.abs(xs))

        def dllr(x: FloatArray) -> FloatArray:
            h = 1e-6 * np.maximum(1.0, np.abs(x))
            return (np.asarray(llr(x + h)) - np.asarray(llr(x - h))) / (2 * h)

        del step
    d = np.asarray(_eval(dllr, xs), dtype=np.float64) if xs.size else np.zeros(0)
    d = np.broadcast_to(d, xs.shape)
    if xs.size and np.all(d == 0.0):
        mid = _midpoint(a, b)
        return [Piece(a, b, llr, 0, float(np.asarray(llr(np.array([mid])))[0]))]
    sgn = np.sign(d)
    roots = []
    last = 0
    for i in range(1, xs.size):
        if sgn[i] == 0:
            continue
        if sgn[last] != 0 and sgn[i] != sgn[last]:
            f = lambda x: float(np.asarray(dllr(np.array([x])))[0])  # noqa: E731
            roots.append(
                optimize.brentq(
                    f, xs[last], xs[i], xtol=1e-300, rtol=4 * np.finfo(float).eps
                )
            )
        last = i
    cuts = [a, *roots, b]
    out = []
    for lo, hi in itertools.pairwise(cuts):
        mid = _midpoint(lo, hi)
        s = float(np.asarray(dllr(np.array([mid])))[0])
        if s == 0.0:
            inside = xs[(xs > lo) & (xs < hi)]
            vals = np.asarray(_eval(dllr, inside)) if inside.size else np.zeros(1)
            s = float(vals[np.argmax(np.abs(vals))]) if vals.size else 0.0
        out.append(Piece(lo, hi, llr, 1 if s > 0 else -1))
    return out


def _midpoint(a: float, b: float) -> float:
    if math.isfinite(a) and math.isfinite(b):
        return 0.5 * (a + b)
    if math.isfinite(a):
        return a + 1.0
    if math.isfinite(b):
        return b - 1.0
    return 0.0


def _sample_points(a: float, b: float) -> FloatArray:
    lo = a if math.isfinite(a) else min(-1e3, b - 1e3 if math.isfinite(b) else -1e3)
    hi = b if math.isfinite(b) else max(1e3, a + 1e3 if math.isfinite(a) else 1e3)
    xs = np.linspace(lo, hi, _CRIT_SAMPLES)[1:-1]
    geo = 2.0 ** np.arange(1, 24)
    if not math.isfinite(a):
        xs = np.concatenate((lo - (hi - lo) * geo[::-1], xs))
    if not math.isfinite(b):
        xs = np.concatenate((xs, hi + (hi - lo) * geo))
    return xs[(xs > a) & (xs < b)]


@dataclass(frozen=True, eq=False)
class DensityPair(Mechanism):
    r"""A dominating pair given by log-densities and monotone pieces of ``L``.

    Build one with :func:`~symfdp.mechanisms.from_densities` (SymPy) or
    :func:`~symfdp.mechanisms.from_log_likelihood_ratio` (callables); the
    constructor takes the pieces already split.

    Args:
        log_p, log_q: Vectorised log-densities of P and Q on the support.
        pieces: Consecutive :class:`Piece` objects covering the support.
        label: Name shown in ``repr``.
        domain: ``(t_lo, t_hi)``, the open interval of tilts where
            :math:`K_P(t) = \log\int p^{1-t}q^t` is finite, if known exactly
            (otherwise found numerically on first need).
        exprs: SymPy expressions (``"p"``, ``"q"``, ``"L"``, ``"cgf"``) kept for
            display and derivations, if any.
        cumulant_fn: ``(order, under) -> cumulants`` in closed form (or None).
        symmetric: Whether ``T(P, Q) = T(Q, P)`` (the law of ``-L`` under Q is
            that of ``L`` under P); accountants then cover one direction.
    """

    log_p: Fn
    log_q: Fn
    pieces: tuple[Piece, ...]
    label: str = "user-defined"
    domain: tuple[float, float] | None = None
    exprs: dict[str, Any] = field(default_factory=dict, repr=False)
    cumulant_fn: Callable[[int, str], FloatArray] | None = field(
        default=None, repr=False
    )

    symmetric: bool = False

    name: ClassVar[str] = "user-defined"
    PARAMS: ClassVar[dict[str, Param]] = {}
    #: Relative accuracy of the masses (the panel tolerance).
    cdf_rtol: ClassVar[float] = PANEL_RTOL

    @property
    def is_symmetric(self) -> bool:
        """As declared (``symmetric=True`` is checked by the front ends)."""
        return self.symmetric

    @functools.cached_property
    def _layouts(self) -> tuple[_Layout, ...]:
        gs = (self.log_p, self.log_q)
        peak = self._peak()
        out = []
        for pc in self.pieces:
            lo, hi = pc.a, pc.b
            if not math.isfinite(lo):
                start = hi if math.isfinite(hi) else 0.0
                cut = tail_cut(gs, start, 1.0, up=False, reach=_REACH, top=peak)
                if cut is None:
                    raise ValueError(
                        f"{self.label}: the densities do not decay towards -inf "
                        f"(not 760 below their peak by x = -{_REACH:g})."
                    )
                lo = cut
            if not math.isfinite(hi):
                start = pc.a if math.isfinite(pc.a) else 0.0
                cut = tail_cut(gs, start, 1.0, up=True, reach=_REACH, top=peak)
                if cut is None:
                    raise ValueError(
                        f"{self.label}: the densities do not decay towards +inf "
                        f"(not 760 below their peak by x = {_REACH:g})."
                    )
                hi = cut
            if not math.isfinite(pc.a) and not math.isfinite(pc.b):
                lo, hi = min(lo, hi), max(lo, hi)
            edges = adaptive_edges(gs, np.linspace(lo, hi, _INIT_PANELS + 1))
            log_mass = {"P": log_panel_masses(self.log_p, edges[:-1], edges[1:])}
            if pc.slope == 0:
                # q = p e^c on an atom's piece: Q-mass = e^c P-mass exactly.
                log_mass["Q"] = log_mass["P"] + pc.value
            else:
                log_mass["Q"] = log_panel_masses(self.log_q, edges[:-1], edges[1:])
            if pc.slope == 0:
                l_lo = l_hi = pc.value
            else:
                ends = np.asarray(pc.llr(np.array([lo, hi])), dtype=np.float64)
                l_lo, l_hi = float(np.min(ends)), float(np.max(ends))
            out.append((pc, lo, hi, edges, log_mass, l_lo, l_hi))
        return tuple(_normalised(out))

    def _peak(self) -> float:
        """Largest log-density seen on a coarse grid of the support."""
        lo, hi = self.pieces[0].a, self.pieces[-1].b
        xs = _sample_points(lo, hi)
        xs = np.concatenate((xs, [pc.a for pc in self.pieces if math.isfinite(pc.a)]))
        return float(max(np.max(_eval(self.log_p, xs)), np.max(_eval(self.log_q, xs))))

    def masses(self) -> tuple[float, float]:
        """Total masses of P and Q on the support by quadrature, before the
        layouts are normalised (1 for normalised densities)."""
        lay = self._layouts
        out = []
        for logf in (self.log_p, self.log_q):
            parts = [
                special.logsumexp(log_panel_masses(logf, x.edges[:-1], x.edges[1:]))
                for x in lay
            ]
            out.append(float(np.exp(special.logsumexp(parts))))
        return out[0], out[1]

    def _logf(self, under: str) -> Fn:
        return self.log_p if under == "P" else self.log_q

    def _partial(
        self, lay: _Layout, x: FloatArray, under: str, left: bool
    ) -> FloatArray:
        """Mass of ``[lo, x]`` (``left``) or ``[x, hi]`` of the piece, for ``x`` in
        ``[lo, hi]``, each from its own end (sums of positive terms)."""
        out = np.zeros(x.shape)
        if x.size == 0:
            return out
        e = lay.edges
        j = np.clip(np.searchsorted(e, x, side="right") - 1, 0, e.size - 2)
        if left:
            a, b = e[j], x
            base = lay.prefix[under][j]
        else:
            a, b = x, e[j + 1]
            base = lay.suffix[under][j + 1]
        nodes, logw = panel_nodes(a, b)
        vals = _eval(self._logf(under), nodes) + logw
        part = np.exp(special.logsumexp(vals, axis=1))
        part = np.where(b > a, part, 0.0)
        return base + part

    def _invert(self, lay: _Layout, l: FloatArray) -> FloatArray:
        """``x`` in ``[lo, hi]`` with ``L(x) = l`` on a monotone piece (``l``
        inside the piece's range), by bisection to adjacent floats."""
        lo = np.full(l.shape, lay.lo)
        hi = np.full(l.shape, lay.hi)
        inc = lay.piece.slope > 0
        active = np.arange(l.size)
        for _ in range(_BISECT_STEPS):
            if active.size == 0:
                break
            a, b = lo[active], hi[active]
            mid = 0.5 * (a + b)
            with np.errstate(all="ignore"):
                f = np.asarray(lay.piece.llr(mid), dtype=np.float64)
            f = np.broadcast_to(f, mid.shape)
            right = (f < l[active]) if inc else (f > l[active])
            lo[active] = np.where(right, mid, a)
            hi[active] = np.where(right, b, mid)
            done = (mid <= a) | (mid >= b) | (f == l[active])
            hi[active] = np.where(f == l[active], mid, hi[active])
            lo[active] = np.where(f == l[active], mid, lo[active])
            active = active[~done]
        return cast(FloatArray, 0.5 * (lo + hi))

    def _law(
        self, l: FloatArray, under: str, lower: bool, inclusive: bool
    ) -> FloatArray:
        """``P(L <= l)`` / ``P(L < l)`` (``lower``) or ``P(L > l)`` / ``P(L >= l)``."""
        out = np.zeros(l.shape)
        for lay in self._layouts:
            pc = lay.piece
            total = lay.total(under)
            if pc.slope == 0:
                c = pc.value
                if lower:
                    hit = (l >= c) if inclusive else (l > c)
                else:
                    hit = (l <= c) if inclusive else (l < c)
                out += np.where(hit, total, 0.0)
                continue
            below = l <= lay.l_lo
            above = l >= lay.l_hi
            inner = ~(below | above) & np.isfinite(l)
            full = above if lower else below
            part = np.zeros(l.shape)
            if inner.any():
                x = self._invert(lay, l[inner])
                # {L <= l} is the left part of an increasing piece.
                left = (pc.slope > 0) == lower
                part[inner] = self._partial(lay, x, under, left)
            out += np.where(full, total, np.where(inner, part, 0.0))
        return np.clip(out, 0.0, 1.0)

    def log_likelihood_ratio(self, x: ArrayLike) -> FloatArray:
        return scalar_or_array(self._llr(check_array("x", x, allow_inf=True)))

    def _llr(self, xs: FloatArray) -> FloatArray:
        """``L`` piece by piece (``-inf`` outside the support)."""
        xs = np.asarray(xs, dtype=np.float64)
        out = np.full(xs.shape, -np.inf)
        for pc in self.pieces:
            inside = (xs >= pc.a) & (xs <= pc.b)
            if inside.any():
                if pc.slope == 0:
                    out[inside] = pc.value
                else:
                    with np.errstate(all="ignore"):
                        vals = np.asarray(pc.llr(xs[inside]), dtype=np.float64)
                    out[inside] = np.broadcast_to(vals, xs[inside].shape)
        return out

    def pdf(self, x: ArrayLike, under: Under = "P") -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        xs = check_array("x", x, allow_inf=True)
        lo, hi = self.pieces[0].a, self.pieces[-1].b
        inside = (xs >= lo) & (xs <= hi)
        vals = np.exp(_eval(self._logf(under), np.where(inside, xs, 0.0)))
        return scalar_or_array(np.where(inside, vals, 0.0))

    def plrv_cdf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = True
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        flat = ls.reshape(-1)
        return scalar_or_array(
            self._law(flat, under, True, bool(inclusive)).reshape(ls.shape)
        )

    def plrv_sf(
        self, l: ArrayLike, under: Under = "P", *, inclusive: bool = False
    ) -> FloatArray:
        check_choice("under", under, ("P", "Q"))
        ls = check_array("l", l, allow_inf=True)
        flat = ls.reshape(-1)
        return scalar_or_array(
            self._law(flat, under, False, bool(inclusive)).reshape(ls.shape)
        )

    def plrv_support(self) -> tuple[float, float]:
        """Range of L over the pieces; an end of a monotone piece at an infinite
        end of the support counts as unbounded (a conservative superset)."""
        lo, hi = math.inf, -math.inf
        for lay in self._layouts:
            pc = lay.piece
            if pc.slope == 0:
                lo, hi = min(lo, pc.value), max(hi, pc.value)
                continue
            ends = [(pc.a, lay.lo), (pc.b, lay.hi)]
            for end, cut in ends:
                val = float(np.asarray(pc.llr(np.array([cut])))[0])
                if not math.isfinite(end):
                    # L keeps moving beyond the cut: unbounded in that direction.
                    other = lay.hi if cut == lay.lo else lay.lo
                    oval = float(np.asarray(pc.llr(np.array([other])))[0])
                    val = math.inf if val > oval else -math.inf
                lo, hi = min(lo, val), max(hi, val)
        return lo, hi

    @functools.cached_property
    def _rule(self) -> PLRVQuadrature:
        nodes, logw = [], []
        for lay in self._layouts:
            pc = lay.piece
            if pc.slope == 0:
                nodes.append(np.array([pc.value]))
                logw.append(np.array([math.log(lay.total("P"))]))
                continue
            x, lw = panel_nodes(lay.edges[:-1], lay.edges[1:])
            x, lw = x.reshape(-1), lw.reshape(-1)
            lw = lw + _eval(self.log_p, x)
            keep = lw > LOG_NEGLIGIBLE - 50
            nodes.append(np.asarray(pc.llr(x[keep]), dtype=np.float64))
            logw.append(lw[keep])
        n = np.concatenate(nodes)
        w = np.concatenate(logw)
        ok = np.isfinite(n) & np.isfinite(w)
        return PLRVQuadrature(n[ok], w[ok])

    def plrv_quadrature(self) -> PLRVQuadrature:
        """The panel rule of P mapped through L (atoms of constant pieces as
        nodes); accurate for smooth functions of L of moderate growth."""
        return self._rule

    def cumulants(self, order: int, under: Under = "P") -> FloatArray:
        """Cumulants of L: exact ones where the front end derived them, else the
        central moments of the panel rule (about 1e-14 relative)."""
        order = check_int("order", order, lo=1, hi=MAX_CUMULANT_ORDER)
        check_choice("under", under, ("P", "Q"))
        if self.cumulant_fn is not None:
            exact = self.cumulant_fn(order, under)
            if exact is not None:
                return np.asarray(exact, dtype=np.float64)
        return super().cumulants(order, under)

    def cgf_domain(self) -> tuple[float, float]:
        """The open interval of ``t`` where :math:`K_P(t)` is finite (shifted by -1
        under Q): the front end's, or found by bisection (3 significant digits)."""
        if self.domain is not None:
            return self.domain
        return self._numeric_domain

    @functools.cached_property
    def _numeric_domain(self) -> tuple[float, float]:
        def ok(t: float) -> bool:
            return self._tilt_range(t) is not None

        ends = []
        for sign in (-1.0, 1.0):
            good, bad = (0.0 if sign < 0 else 1.0), None
            for k in range(0, 12):
                cand = sign * 2.0**k + (0.0 if sign < 0 else 1.0)
                if ok(cand):
                    good = cand
                else:
                    bad = cand
                    break
            if bad is None:
                ends.append(sign * math.inf)
                continue
            for _ in range(30):
                mid = 0.5 * (good + bad)
                if ok(mid):
                    good = mid
                else:
                    bad = mid
                if abs(bad - good) <= 1e-4 * max(1.0, abs(good)):
                    break
            ends.append(bad)
        return (ends[0], ends[1])

    def _tilt_range(self, t: float) -> list[tuple[float, float]] | None:
        """Truncated range of each piece for the tilted log-density, or None if
        it does not decay (the CGF is infinite)."""
        g = self._tilted_logf(t)
        lays = self._layouts
        peak = -math.inf
        for lay in lays:
            xs = np.linspace(lay.lo, lay.hi, 257)
            peak = max(peak, float(np.max(_eval(g, xs))))
        out = []
        for lay in lays:
            pc = lay.piece
            lo, hi = lay.lo, lay.hi
            if not math.isfinite(pc.a):
                cut = tail_cut([g], lay.hi, 1.0, up=False, reach=_REACH, top=peak)
                if cut is None:
                    return None
                lo = min(lo, cut)
            if not math.isfinite(pc.b):
                cut = tail_cut([g], lay.lo, 1.0, up=True, reach=_REACH, top=peak)
                if cut is None:
                    return None
                hi = max(hi, cut)
            out.append((lo, hi))
        return out

    def _tilted_logf(self, t: float) -> Fn:
        def g(x: FloatArray) -> FloatArray:
            lp = _eval(self.log_p, x)
            if t == 0.0:
                return lp
            # log p + t L, with L evaluated directly: (1-t) log p + t log q
            # cancels for large t.
            return lp + t * self._llr(x)

        return g

    def _check_domain(self, s: FloatArray, under: str) -> None:
        lo, hi = self.cgf_domain()
        bad = (s <= lo) | (s >= hi)
        if np.any(bad):
            shift = 0.0 if under == "P" else 1.0
            t_bad = float(s[bad][0] - shift)
            raise CGFDomainError(
                f"the CGF of the privacy loss of {self.label} under {under} is "
                f"finite only for t in ({lo - shift:.6g}, {hi - shift:.6g}); "
                f"t = {t_bad:g} was requested. Methods that need the CGF there "
                "(saddle-point tilts, RDP orders) cannot serve this pair; "
                "Numerical and Edgeworth (cumulants only) can."
            )

    def _tilt_magnitude(self, t: float) -> Fn:
        r""":math:`|\log p| + |t L|`: the terms the tilted log-density sums
        (its absolute rounding error is :math:`u` times this)."""

        def h(x: FloatArray) -> FloatArray:
            return np.abs(_eval(self.log_p, x)) + abs(t) * np.abs(self._llr(x))

        return h

    @functools.lru_cache(maxsize=_TILT_CACHE)  # noqa: B019
    def _tilted_rule(self, s: float) -> tuple[FloatArray, FloatArray]:
        """``(L nodes, log-weights)`` of :math:`p^{1-s} q^{s}` (unnormalised)."""
        if s == 0.0 or s == 1.0:
            rule = self._rule
            lw = rule.log_weights + (rule.nodes if s == 1.0 else 0.0)
            return rule.nodes, lw
        ranges = self._tilt_range(s)
        if ranges is None:
            raise CGFDomainError(
                f"the CGF of the privacy loss of {self.label} is infinite at "
                f"t = {s:g} under P."
            )
        g = self._tilted_logf(s)
        nodes, logw = [], []
        for lay, (lo, hi) in zip(self._layouts, ranges, strict=True):
            pc = lay.piece
            if pc.slope == 0:
                total = special.logsumexp(
                    log_panel_masses(g, lay.edges[:-1], lay.edges[1:])
                )
                nodes.append(np.array([pc.value]))
                logw.append(np.array([total]))
                continue
            init = np.unique(
                np.concatenate((np.linspace(lo, hi, _INIT_PANELS + 1), lay.edges))
            )
            try:
                edges = adaptive_edges([g], init, magnitudes=[self._tilt_magnitude(s)])
            except ValueError as exc:
                raise QuadratureLimitError(
                    f"{self.label}: no panel rule resolves the tilted density at "
                    f"t = {s:g} (under P): {exc} accountants.Numerical (certified) "
                    "and Edgeworth (cumulants only) do not need tilted densities."
                ) from None
            x, lw = panel_nodes(edges[:-1], edges[1:])
            x, lw = x.reshape(-1), lw.reshape(-1)
            lw = lw + _eval(g, x)
            keep = np.isfinite(lw)
            nodes.append(np.asarray(pc.llr(x[keep]), dtype=np.float64))
            logw.append(lw[keep])
        n = np.concatenate(nodes)
        w = np.concatenate(logw)
        ok = np.isfinite(n)
        return n[ok], w[ok]

    def _tilted_values(
        self, t: ArrayLike, under: Under, what: str
    ) -> tuple[FloatArray, ...]:
        check_choice("under", under, ("P", "Q"))
        ts = check_array("t", t)
        s = ts.reshape(-1) + (0.0 if under == "P" else 1.0)
        self._check_domain(s, under)
        outs = [np.empty(s.size) for _ in range(3 if what == "cgf" else 2)]
        for i, si in enumerate(s):
            n, lw = self._tilted_rule(float(si))
            a = lw
            k0 = float(special.logsumexp(a))
            w = np.exp(a - k0)
            m1 = float(w @ n)
            if what == "cgf":
                outs[0][i] = k0
                outs[1][i] = m1
                outs[2][i] = float(w @ (n - m1) ** 2)
            else:
                outs[0][i] = m1
                outs[1][i] = float(w @ np.abs(n - m1) ** 3)
        return tuple(scalar_or_array(o.reshape(ts.shape)) for o in outs)

    def cgf_derivatives(
        self, t: ArrayLike, under: Under = "P"
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r""":math:`(K, K', K'')` from a panel rule of :math:`p^{1-s}q^{s}`
        (:math:`s = t`, or :math:`t + 1` under Q) built for each tilt.

        Raises:
            CGFDomainError: ``t`` is outside :meth:`cgf_domain`.
        """
        k0, k1, k2 = self._tilted_values(t, under, "cgf")
        return k0, k1, k2

    def tilted_abs_moment3(
        self, t: ArrayLike, under: Under = "Q"
    ) -> tuple[FloatArray, FloatArray]:
        mean, m3 = self._tilted_values(t, under, "m3")
        return mean, m3

    def privacy_profile(self, eps: ArrayLike) -> FloatArray:
        r""":math:`\delta(\varepsilon) = \int_{L > \varepsilon} q\,(1 -
        e^{\varepsilon - L})\,dx` piece by piece (positive integrand)."""
        e = check_array("eps", eps, allow_inf=True)
        flat = e.reshape(-1)
        out = np.zeros(flat.size)
        for lay in self._layouts:
            pc = lay.piece
            if pc.slope == 0:
                with np.errstate(over="ignore"):
                    gain = -np.expm1(flat - pc.value)
                out += np.where(flat < pc.value, lay.total("Q") * gain, 0.0)
                continue
            full = flat < lay.l_lo
            inner = (flat >= lay.l_lo) & (flat < lay.l_hi)
            if full.any():
                out[full] += self._profile_part(lay, flat[full], None)
            if inner.any():
                x = self._invert(lay, flat[inner])
                out[inner] += self._profile_part(lay, flat[inner], x)
        return scalar_or_array(np.clip(out, 0.0, 1.0).reshape(e.shape))

    def _profile_part(
        self, lay: _Layout, e: FloatArray, x: FloatArray | None
    ) -> FloatArray:
        """Integral of ``q (1 - e^{eps - L})`` over ``{L > eps}`` of one piece
        (the whole piece when ``x`` is None)."""
        edges = lay.edges
        up = lay.piece.slope > 0
        out = np.zeros(e.size)
        nodes, logw = panel_nodes(edges[:-1], edges[1:])
        lq = _eval(self.log_q, nodes) + logw
        lv = np.asarray(lay.piece.llr(nodes), dtype=np.float64)
        for i in range(e.size):
            with np.errstate(over="ignore", invalid="ignore"):
                gain = np.maximum(-np.expm1(e[i] - lv), 0.0)
            vals = np.exp(lq) * gain
            if x is None:
                out[i] = vals.sum()
                continue
            j = int(
                np.clip(
                    np.searchsorted(edges, x[i], side="right") - 1, 0, edges.size - 2
                )
            )
            if up:
                full = vals[j + 1 :].sum()
                a, b = np.array([x[i]]), np.array([edges[j + 1]])
            else:
                full = vals[:j].sum()
                a, b = np.array([edges[j]]), np.array([x[i]])
            pn, pw = panel_nodes(a, b)
            with np.errstate(over="ignore", invalid="ignore"):
                pg = np.maximum(
                    -np.expm1(e[i] - np.asarray(lay.piece.llr(pn), dtype=np.float64)),
                    0.0,
                )
            part = (
                float(np.sum(np.exp(_eval(self.log_q, pn) + pw) * pg))
                if b[0] > a[0]
                else 0.0
            )
            out[i] = full + part
        return out

    def expect(self, fn: Callable[[FloatArray], ArrayLike], under: Under = "P") -> Any:
        check_callable("fn", fn)
        return super().expect(fn, under)

    def __repr__(self) -> str:
        return f"DensityPair({self.label})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the call that built it (its front end), so that process pools
        and Dask can ship user-defined mechanisms."""
        recipe = self.__dict__.get("_recipe")
        if recipe is None:
            raise TypeError(
                f"{self!r} was constructed from compiled functions directly and "
                "cannot be pickled; build it with from_densities (SymPy) or "
                "from_log_likelihood_ratio (module-level functions)."
            )
        return (_rebuild, recipe)


def _rebuild(
    fn: Callable[..., DensityPair], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Unpickle a :class:`DensityPair`: call its front end again."""
    return fn(*args, **kwargs)


def remember_recipe(
    m: DensityPair,
    fn: Callable[..., DensityPair],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> DensityPair:
    """Record the front-end call that built ``m`` (for pickling)."""
    object.__setattr__(m, "_recipe", (fn, tuple(args), dict(kwargs)))
    return m


def from_log_likelihood_ratio(
    llr: Callable[[FloatArray], ArrayLike],
    density: Callable[[FloatArray], ArrayLike],
    support: tuple[float, float] = (-math.inf, math.inf),
    *,
    breakpoints: Sequence[float] = (),
    name: str = "user-defined",
    log_density: bool = False,
    symmetric: bool = False,
) -> DensityPair:
    r"""A mechanism from its privacy loss :math:`L(x)` and the density of P,
    :math:`q = p\,e^{L}`, by quadrature (:class:`DensityPair`). ``L`` must be
    smooth between ``breakpoints``; a monotone piece on which it varies by less
    than :math:`10^{-13}` relative is an atom.

    Args:
        llr: Vectorised :math:`L(x) = \log q(x)/p(x)`.
        density: Vectorised density of P (its logarithm with ``log_density``).
        support: ``(lo, hi)``, the support of P (and Q).
        breakpoints: Points where ``L`` or the density is not smooth.
        name: Label of the mechanism.
        log_density: ``density`` returns :math:`\log p`.
        symmetric: Declare ``T(P, Q) = T(Q, P)`` (checked on the cumulants).

    Raises:
        ValueError: the support or breakpoints are not increasing reals, or the
            densities do not integrate to 1 (1e-9).
    """
    check_callable("llr", llr)
    check_callable("density", density)
    lo, hi = _check_support(support)
    bps = _check_breakpoints(breakpoints, lo, hi)

    def f_llr(x: FloatArray) -> FloatArray:
        return np.asarray(llr(x), dtype=np.float64)

    if log_density:

        def log_p(x: FloatArray) -> FloatArray:
            return np.asarray(density(x), dtype=np.float64)
    else:

        def log_p(x: FloatArray) -> FloatArray:
            with np.errstate(divide="ignore"):
                return np.log(np.asarray(density(x), dtype=np.float64))

    def log_q(x: FloatArray) -> FloatArray:
        return log_p(x) + f_llr(x)

    pieces: list[Piece] = []
    cuts = [lo, *bps, hi]
    for a, b in itertools.pairwise(cuts):
        pieces.extend(_numeric_pieces(a, b, f_llr))
    m = DensityPair(
        log_p,
        log_q,
        tuple(pieces),
        label=name,
        symmetric=check_bool("symmetric", symmetric),
    )
    check_normalised(m)
    check_symmetric(m)
    kwargs = {
        "breakpoints": tuple(bps),
        "name": name,
        "log_density": log_density,
        "symmetric": symmetric,
    }
    return remember_recipe(
        m, from_log_likelihood_ratio, (llr, density, support), kwargs
    )


def _numeric_pieces(a: float, b: float, llr: Fn) -> list[Piece]:
    xs = _sample_points(a, b)
    vals = np.asarray(llr(xs), dtype=np.float64) if xs.size else np.zeros(0)
    if xs.size:
        span = float(np.max(vals) - np.min(vals))
        if span <= 1e-13 * max(1.0, float(np.max(np.abs(vals)))):
            return [Piece(a, b, llr, 0, float(np.median(vals)))]
    return split_monotone(a, b, llr)


def _check_support(support: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in support)
    except (TypeError, ValueError):
        raise TypeError(
            f"support must be a pair (lo, hi) of reals. Found {support!r}."
        ) from None
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise ValueError(f"support must satisfy lo < hi. Found {support!r}.")
    return lo, hi


def _check_breakpoints(bps: Any, lo: float, hi: float) -> list[float]:
    try:
        vals = sorted(float(v) for v in bps)
    except (TypeError, ValueError):
        raise TypeError(
            f"breakpoints must be a sequence of reals. Found {bps!r}."
        ) from None
    if any(not math.isfinite(v) for v in vals):
        raise ValueError(f"breakpoints must be finite. Found {bps!r}.")
    return sorted({v for v in vals if lo < v < hi})


def check_symmetric(m: DensityPair, tol: float = 1e-9) -> None:
    """Raise ``ValueError`` if ``m`` is declared symmetric but the cumulants of
    L under P and of -L under Q (orders 1-6) differ by more than ``tol``."""
    if not m.symmetric:
        return
    kp = np.asarray(DensityPair.cumulants(m, 6, "P"))
    kq = np.asarray(DensityPair.cumulants(m, 6, "Q")) * (-1.0) ** np.arange(1, 7)
    scale = max(1.0, float(np.max(np.abs(kp))))
    if np.max(np.abs(kp - kq)) > tol * scale:
        raise ValueError(
            f"symmetric=True, but {m.label} is not symmetric: the cumulants of L "
            f"under P {kp[:3]} differ from those of -L under Q {kq[:3]}."
        )


def check_normalised(m: DensityPair, tol: float = 1e-9) -> None:
    """Raise ``ValueError`` unless P and Q each integrate to 1 within ``tol``."""
    mp, mq = m.masses()
    for which, mass in (("p", mp), ("q", mq)):
        if not abs(mass - 1.0) <= tol:
            raise ValueError(
                f"the density {which} of {m.label} integrates to {mass:.12g} over "
                f"the support, not 1 (tolerance {tol:g}); normalise it (or, for q "
                "given through L, check that L = log q/p)."
            )
