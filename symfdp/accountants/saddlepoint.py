r"""``SaddlePoint``: the saddle-point accountant of Alghamdi et al. (2022).

Direction. The slides write :math:`L = \log dP/dQ(X)`, :math:`X \sim P`; symfdp's
loss is :math:`L = \log dQ/dP` with :math:`\delta(\varepsilon) =
E_Q[(1 - e^{\varepsilon - L})_+]`, so the slides' :math:`K_L(t)` is
:math:`K(t) = \sum_i n_i\, K_i(t)` with :math:`K_i` = ``m_i.cgf(t, under="Q")``
(:math:`= K_{P,i}(t+1)`), summed over the composition.

Upper side (the slides). For :math:`t > 0`, :math:`\delta(\varepsilon) =
\frac{1}{2\pi}\int e^{F_\varepsilon(t+is)}ds` with :math:`F_\varepsilon(z) = K(z)
- z\varepsilon - \log z - \log(1+z)` (CF-S3). The saddle point :math:`t_* > 0`
solves :math:`K'(t) = \varepsilon + 1/t + 1/(1+t)` (CF-S4) and

.. math::  \hat\delta_1 = \frac{e^{K(t_*) - \varepsilon t_*}}{\sqrt{2\pi[t_*^2
           (1+t_*)^2 K''(t_*) + t_*^2 + (1+t_*)^2]}}, \qquad
           \hat\delta_2 = e^{K(t_*) - \varepsilon t_*}\, E[e^{t_*(\varepsilon - Z)}
           (1 - e^{\varepsilon - Z})_+]

with :math:`Z \sim N(K'(t_*), K''(t_*))` (CF-S5, CF-S6; closed forms derived and
compiled in :mod:`symfdp.symbolic.saddlepoint`, proofs in
``derivations/saddlepoint_formulas.py``). ``order`` picks the point estimate.

Lower side (for all real :math:`\varepsilon`). The saddle point :math:`t_* > 0`
exists for every :math:`\varepsilon` below the essential supremum of :math:`L`, but
as :math:`\varepsilon` decreases it moves into the pole at 0 and the Gaussian
approximation of the contour integral degrades (the integral is then dominated by
the residue 1). Below the split point :math:`\varepsilon_{mid} = K'(-\tfrac12)`
(the mean of :math:`L` under the normalised :math:`\sqrt{PQ}`; 0 for symmetric
pairs) the accountant uses the complementary representation

.. math::  \delta(\varepsilon) = 1 - e^{\varepsilon + K(-1)} + E_Q[(e^{\varepsilon
           - L} - 1)_+], \qquad E_Q[(e^{\varepsilon - L} - 1)_+] =
           \frac{1}{2\pi}\int e^{F_\varepsilon(t + is)} ds, \ t < -1,

whose saddle point :math:`t_* < -1` solves the same equation; :math:`\hat\delta_1`
has the same formula and :math:`\hat\delta_2` uses the complementary kernel
:math:`(e^{\varepsilon - Z} - 1)_+`. The map :math:`z \mapsto -1 - z` leaves
:math:`\log z + \log(1+z)` unchanged, so the two sides mirror each other. Both
sides approximate the same exact quantity; at the split point they can differ by
their approximation errors. Exactly: :math:`\delta = 0` for :math:`\varepsilon \ge
\operatorname{ess\,sup} L` and :math:`\delta = 1 - e^{\varepsilon + K(-1)}` for
:math:`\varepsilon \le \operatorname{ess\,inf} L`.

Error bound (CF-S7). The slide states, for :math:`\varepsilon \ge 0`,

.. math::  |\delta(\varepsilon) - \hat\delta_2(\varepsilon)| \le
           e^{K(t_*) - \varepsilon t_*}\Big(\frac{t_*}{1+t_*}\Big)^{t_*}
           \frac{P_{t_*}}{K''(t_*)^{3/2}}, \qquad P_t = \sum_i n_i
           E|\tilde L_i - E\tilde L_i|^3,

with no numeric constant printed. Reading: the factor :math:`(t/(1+t))^t` is,
up to :math:`1/(1+t)`, the maximum of the tilted kernel :math:`e^{-tu}(1 -
e^{-u})_+` (proved in the derivation script), and :math:`P_t/K''^{3/2}` is the
Berry–Esseen ratio of the tilted sum, so the bound has the shape of
"total variation of the kernel :math:`\times` Berry–Esseen constant :math:`\times`
ratio". That argument gives the factor :math:`2C/(1+t_*)` in place of the printed
1; with :math:`C \le 0.56` (Dong et al. 2019, Thm D.4) it is :math:`\le 1` exactly
when :math:`t_* \ge 0.12`. We implement the bound **as printed** (constant 1) and
infer no other constant; the paper version (arXiv 2208.09595) is not among the
sources. It bounds the error of an asymptotic approximation and is *not* a
certified bracket, so SaddlePoint is not ``certified``:
``curve.pairs[k].delta_error_bound(eps)`` reports it (for ``order=1`` it adds
:math:`|\hat\delta_1 - \hat\delta_2|`). :math:`P_t` is computed from each
mechanism's quadrature rule under the tilted law; on the lower side the mirrored
factor :math:`(s/(1+s))^s`, :math:`s = -1 - t_*`, is used.

Repairs (each with an :class:`~symfdp.ApproximationWarning`; nothing returns
NaN):

* the saddle point lies beyond the last saddle point searched. The grid of
  saddle points grows in :math:`s` (:math:`s = t`, or :math:`-1 - t` on the lower
  side) while :math:`s \le 64` and beyond only while the tilted law stays away
  from a finite end of the support (its mean more than ten of its standard
  deviations from it; typical of short compositions of subsampled mechanisms,
  whose loss is bounded on one side), the estimate is above
  :math:`e^{-700}` and :math:`s \le` ``S_MAX``. Beyond it the contour integral is
  replaced by the Chernoff bound :math:`e^{K(t) - \varepsilon t}(s/(1+s))^s/(1+s)`
  at the last point, a rigorous upper bound on it (the warning is skipped when
  that bound is below :math:`e^{-690}`);
* an estimate above that Chernoff bound at :math:`t_*` (small compositions) is
  lowered to it;
* an estimate outside :math:`[\max(0, 1 - e^{\varepsilon + K(-1)}), 1]` is
  clipped into it;
* if the two Gaussian terms of :math:`\hat\delta_2` agree to 8 digits (their
  difference lost its precision), :math:`\hat\delta_1` is used there.

Speed: one evaluation of the component CGFs per Newton step, vectorised over
eps; nothing depends on the number of compositions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike

from symfdp._warnings import warn_approximation
from symfdp.accountants.base import Accountant, Components
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.numeric.compile import evaluator, register_derivation
from symfdp.numeric.roots import monotone_bisect

#: The saddle-point grid in s (s = t on the upper side, s = -1 - t on the lower):
#: a first stage, then stages of 12 points per factor 4, added only as needed,
#: up to ``S_MAX``.
_FIRST_STAGE: Final = np.geomspace(1e-4, 4.0, 97)
_STAGE_POINTS: Final = 12
#: Largest s ever searched.
S_MAX: Final = 4.0**11
#: Up to this s the grid grows regardless of degeneracy.
S_FREE: Final = 64.0
#: Beyond S_FREE, the tilted mean must stay this many tilted standard deviations
#: away from a finite end of the support for the grid to grow.
DEGENERATE_SD: Final = 10.0
#: The grid stops growing where the estimate falls below e^LOG_NEGLIGIBLE.
LOG_NEGLIGIBLE: Final = -700.0
#: Relative step at which the safeguarded Newton iterations stop.
_RTOL: Final = 1e-14
_MAX_ITER: Final = 100
_SIDES: Final = ("upper", "lower")

_DEPS: Final = ("symfdp.symbolic.saddlepoint", "symfdp.symbolic.symbols")


# ----------------------------------------------------------------- derivations
def _check_order_zero(order: int) -> None:
    if order != 0:
        raise ValueError(f"saddle-point formulas take order 0. Found {order}.")


def _build_log_delta1(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import saddlepoint as S

    _check_order_zero(order)
    return S.log_delta1_expr(), (S.K, S.eps, S.t, S.v)


def _build_delta2_upper(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import saddlepoint as S

    _check_order_zero(order)
    return S.delta2_log_terms_expr("upper"), (S.K, S.eps, S.t, S.m, S.v)


def _build_delta2_lower(order: int) -> tuple[Any, tuple[Any, ...]]:
    from symfdp.symbolic import saddlepoint as S

    _check_order_zero(order)
    return S.delta2_log_terms_expr("lower"), (S.K, S.eps, S.t, S.m, S.v)


register_derivation("saddlepoint_log_delta1", _build_log_delta1, depends=_DEPS)
register_derivation(
    "saddlepoint_delta2_log_terms_upper", _build_delta2_upper, depends=_DEPS
)
register_derivation(
    "saddlepoint_delta2_log_terms_lower", _build_delta2_lower, depends=_DEPS
)


def _log_delta1(
    K: FloatArray, eps: FloatArray, t: FloatArray, v: FloatArray
) -> FloatArray:
    return np.asarray(evaluator("saddlepoint_log_delta1", 0)(K=K, eps=eps, t=t, v=v))


def _delta2_log_terms(
    side: str,
    K: FloatArray,
    eps: FloatArray,
    t: FloatArray,
    m: FloatArray,
    v: FloatArray,
) -> FloatArray:
    ev = evaluator(f"saddlepoint_delta2_log_terms_{side}", 0)
    return np.asarray(ev(K=K, eps=eps, t=t, m=m, v=v))


# ----------------------------------------------------------------- helpers
def _sign(side: str) -> float:
    return 1.0 if side == "upper" else -1.0


def _tilt(s: FloatArray, side: str) -> FloatArray:
    """t = s (upper side) or t = -1 - s (lower side)."""
    return s if side == "upper" else -1.0 - s


def _log_kernel_max(s: FloatArray) -> FloatArray:
    r""":math:`\log[(s/(1+s))^s/(1+s)] = s\log s - (1+s)\log(1+s)`."""
    return s * np.log(s) - (1.0 + s) * np.log1p(s)


def _pack(
    s: FloatArray, side: str, k: FloatArray, m: FloatArray, v: FloatArray
) -> dict[str, FloatArray]:
    r"""Values at the saddle point ``t(s)``, with the ``eps`` solving
    :math:`F'_\varepsilon(t) = 0` there: :math:`\varepsilon = K'(t) - 1/t - 1/(1+t)`,
    i.e. :math:`K'(t) \mp (1/s + 1/(1+s))`."""
    eps = m - _sign(side) * (1.0 / s + 1.0 / (1.0 + s))
    return {"s": s, "t": _tilt(s, side), "K": k, "m": m, "v": v, "eps": eps}


def _log_delta_slope(s: FloatArray, v: FloatArray, v3: FloatArray) -> FloatArray:
    r""":math:`d\log\hat\delta_1/ds` along the saddle points of the upper side.

    With :math:`\varepsilon(s) = K'(s) - 1/s - 1/(1+s)` and
    :math:`Q = s^2(1+s)^2K'' + s^2 + (1+s)^2` it is
    :math:`1/s + 1/(1+s) - sF''(s) - Q'/(2Q)`, where ``v3`` is the third
    derivative of K; it also serves as the slope for :math:`\hat\delta_2`.
    """
    a = s * (1.0 + s)
    q = a * a * v + s * s + (1.0 + s) ** 2
    dq = 2 * a * (1 + 2 * s) * v + a * a * v3 + 4 * s + 2
    curv = v + 1.0 / s**2 + 1.0 / (1.0 + s) ** 2
    return 1.0 / s + 1.0 / (1.0 + s) - s * curv - 0.5 * dq / q


def _newton(
    fn: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    lo: FloatArray,
    hi: FloatArray,
    x0: FloatArray,
    gtol: float = 0.0,
) -> FloatArray:
    """Safeguarded Newton for an increasing ``g`` with ``g(lo) <= 0 <= g(hi)``.

    ``fn(x) -> (g, dg)`` (``dg`` may be approximate). A step leaving the current
    bracket is replaced by bisection (geometric for wide positive brackets).
    Stops per entry when the step or the bracket is below ``_RTOL`` relative, or
    when ``|g| <= gtol``.

    Raises:
        RuntimeError: no convergence in ``_MAX_ITER`` steps.
    """
    lo, hi, x = lo.copy(), hi.copy(), x0.copy()
    active = np.ones(x.shape, dtype=bool)
    for _ in range(_MAX_ITER):
        g, dg = fn(x)
        lo = np.where(active & (g <= 0), x, lo)
        hi = np.where(active & (g >= 0), x, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = x - g / dg
        wide = (lo > 0) & (hi > 4 * lo)
        mid = np.where(wide, np.sqrt(lo * np.where(wide, hi, 1.0)), 0.5 * (lo + hi))
        inside = np.isfinite(step) & (step > lo) & (step < hi)
        new = np.where(inside, step, mid)
        done = (np.abs(g) <= gtol) | (np.abs(new - x) <= _RTOL * np.abs(x))
        done |= hi - lo <= _RTOL * np.abs(hi)
        active &= ~done
        x = np.where(active, new, x)
        if not active.any():
            return x
    raise RuntimeError(f"saddle-point Newton did not converge in {_MAX_ITER} steps.")


# ----------------------------------------------------------------- pair curve
class SaddlePointPairCurve:
    r"""Saddle-point approximation of one composed pair (``PairCurve``).

    Args:
        components: ``((mechanism, n), ...)`` of single dominating pairs.
        order: 1 or 2: the point estimate is :math:`\hat\delta_1` or
            :math:`\hat\delta_2`.
        symmetric: Whether every component is symmetric (the split point is then
            0 and the trade-off is built from :math:`\varepsilon \ge 0`).
    """

    def __init__(self, components: Components, order: int, symmetric: bool) -> None:
        self.components = components
        self.order = order
        self.symmetric = symmetric
        # One CGF call gives the split point and the first stage of the upper grid.
        s0 = _FIRST_STAGE
        k0, k1, k2 = self._cgf(np.concatenate(([-1.0, -0.5], s0)))
        #: log E_Q[e^{-L}] = log P(q > 0) (0 for mutually continuous pairs).
        self.log_p_mass = float(min(k0[0], 0.0))
        #: The split point eps_mid = K'(-1/2) between the lower and upper sides.
        self.eps_split = 0.0 if symmetric else float(k1[1])
        lo = hi = 0.0
        for m, n in components:
            a, b = m.plrv_support()
            lo, hi = lo + n * a, hi + n * b
        #: Essential support of the composed loss.
        self.support = (lo, hi)
        self._grids = {"upper": _pack(s0, "upper", k0[2:], k1[2:], k2[2:])}
        self.info: dict[str, Any] = {
            "eps_split": self.eps_split,
            "support": self.support,
            "order": order,
        }

    # ------------------------------------------------------------ CGF
    def _cgf(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(K, K', K'')`` of the composed loss under Q, summed over components.

        Tilts are evaluated in groups of similar magnitude (factors of 4 in
        ``1 + |t|``): a mechanism's quadrature for a large tilt costs more, and a
        mixed call would make every entry pay for the largest.
        """
        t = np.asarray(t, dtype=np.float64)
        flat = t.reshape(-1)
        k0, k1, k2 = np.zeros(flat.shape), np.zeros(flat.shape), np.zeros(flat.shape)
        level = np.floor(np.log(1.0 + np.abs(flat)) / math.log(4.0))
        level = np.where(level < 3, 0, level)  # |t| < 63: one group
        for lv in np.unique(level):
            idx = np.flatnonzero(level == lv)
            tt = flat[idx]
            for m, n in self.components:
                a, b, c = m.cgf_derivatives(tt, "Q")
                k0[idx] += n * np.asarray(a, dtype=np.float64)
                k1[idx] += n * np.asarray(b, dtype=np.float64)
                k2[idx] += n * np.asarray(c, dtype=np.float64)
        return k0.reshape(t.shape), k1.reshape(t.shape), k2.reshape(t.shape)

    def _at(self, s: FloatArray, side: str) -> dict[str, FloatArray]:
        """CGF values at ``t(s)`` and the saddle-consistent ``eps(s)``."""
        s = np.asarray(s, dtype=np.float64)
        return _pack(s, side, *self._cgf(_tilt(s, side)))

    # ------------------------------------------------------------ grid
    def _grid(self, side: str) -> dict[str, FloatArray]:
        if side not in self._grids:
            self._grids[side] = self._at(_FIRST_STAGE, side)
        return self._grids[side]

    def _degenerate(self, vals: dict[str, FloatArray], side: str) -> bool:
        """Whether the tilted law at the grid's last point (``s >= S_FREE``) is
        pressed against a finite end of the support: its mean within
        ``DEGENERATE_SD`` of its standard deviations of the end. There the saddle
        point runs off to infinity as eps approaches the end, and the CGF gets
        costly to evaluate at such tilts."""
        s, m, v = float(vals["s"][-1]), float(vals["m"][-1]), float(vals["v"][-1])
        end = self.support[1] if side == "upper" else self.support[0]
        if s < S_FREE or not math.isfinite(end):
            return False
        return abs(end - m) < DEGENERATE_SD * math.sqrt(max(v, 0.0))

    def _extend(self, side: str, small_s: bool, limit: float = S_MAX) -> bool:
        """Extend the grid of ``side`` towards small or large ``s``.

        Returns False when it cannot grow: ``s < 1e-12`` at the small end; at the
        large end ``limit`` (default ``S_MAX``), a degenerate tilted law
        (:meth:`_degenerate`) or a negligible estimate (below
        ``e^LOG_NEGLIGIBLE``).
        """
        grid = self._grid(side)
        if small_s:
            if grid["s"][0] < 1e-12:
                return False
            new = self._at(grid["s"][0] * np.geomspace(1e-4, 1.0, 9)[:-1], side)
            grid = {k: np.concatenate((new[k], grid[k])) for k in grid}
        else:
            last = {k: v[-1:] for k, v in grid.items()}
            s_end = float(last["s"][0])
            if s_end >= limit or self._degenerate(last, side):
                return False
            log1, log2, _ = self._log_integrals(last, side, np.zeros(1, bool), False)
            if min(log1[0], log2[0]) < LOG_NEGLIGIBLE:
                return False
            stage = np.geomspace(s_end, 4.0 * s_end, _STAGE_POINTS + 1)[1:]
            new = self._at(stage, side)
            grid = {k: np.concatenate((grid[k], new[k])) for k in grid}
        self._grids[side] = grid
        return True

    def _grid_covering(self, side: str, lo: float, hi: float) -> dict[str, FloatArray]:
        """The grid of ``side`` extended until its eps range covers [lo, hi] or
        cannot be extended further."""
        up = side == "upper"
        while True:
            g = self._grid(side)
            e_min, e_max = (
                (g["eps"][0], g["eps"][-1]) if up else (g["eps"][-1], g["eps"][0])
            )
            if e_min > lo and self._extend(side, small_s=up):
                continue
            if e_max < hi and self._extend(side, small_s=not up):
                continue
            return self._grid(side)

    # ------------------------------------------------------------ saddle point
    def _saddle(self, eps: FloatArray, side: str) -> tuple[dict[str, FloatArray], Any]:
        """Solve :math:`F'_\\varepsilon(t) = 0` for every ``eps`` on ``side``.

        In :math:`s` (:math:`t = s` or :math:`-1 - s`) the function
        :math:`g(s) = \\pm(\\varepsilon(s) - \\varepsilon)` is increasing with
        :math:`g' = F''`; the grid of :math:`\\varepsilon(s)` brackets each root.

        Returns:
            The CGF values at the saddle points (``eps`` set to the input) and
            the mask of entries whose saddle point lies beyond the grid (their
            values are taken at its last point).
        """
        sg = _sign(side)
        grid = self._grid_covering(side, float(eps.min()), float(eps.max()))
        order = np.argsort(grid["eps"])
        ge, gs = grid["eps"][order], grid["s"][order]
        k = np.clip(np.searchsorted(ge, eps), 1, ge.size - 1)
        lo = np.minimum(gs[k - 1], gs[k])
        hi = np.maximum(gs[k - 1], gs[k])
        if side == "upper":
            capped, tiny = eps > ge[-1], eps < ge[0]
        else:
            capped, tiny = eps < ge[0], eps > ge[-1]
        s_cap, s_min = float(grid["s"].max()), float(grid["s"].min())
        s = np.where(capped, s_cap, np.sqrt(lo * hi))
        free = ~capped
        if free.any():
            e_f = eps[free]
            lo_f = np.where(tiny[free], 1e-300, lo[free])
            hi_f = np.where(tiny[free], s_min, hi[free])

            def g(x: FloatArray) -> tuple[FloatArray, FloatArray]:
                _, m, v = self._cgf(_tilt(x, side))
                val = sg * (m - e_f) - 1.0 / x - 1.0 / (1.0 + x)
                # A residual at the rounding level of its terms counts as a root.
                noise = 1e-15 * (np.abs(m) + np.abs(e_f) + 1.0 / x + 1.0)
                val = np.where(np.abs(val) <= noise, 0.0, val)
                return val, v + 1.0 / x**2 + 1.0 / (1.0 + x) ** 2

            s = s.copy()
            s[free] = _newton(g, lo_f, hi_f, np.sqrt(lo_f * hi_f))
        vals = self._at(s, side)
        vals["eps"] = eps
        return vals, capped

    # ------------------------------------------------------------ estimates
    def _log_integrals(
        self, vals: dict[str, FloatArray], side: str, capped: Any, warn: bool
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""``(log I_1, log I_2, log C)``: the two approximations of the contour
        integral and the Chernoff bound, at the given points, with the repairs of
        the module docstring applied."""
        kk, eps, t, m, v, s = (vals[k] for k in ("K", "eps", "t", "m", "v", "s"))
        log_c = kk - eps * t + _log_kernel_max(s)
        log1 = _log_delta1(kk, eps, t, v)
        la, lb = _delta2_log_terms(side, kk, eps, t, m, v)
        gap = lb - la
        lost = ~(gap < -1e-8)
        log2 = np.where(lost, log1, la + np.log(-np.expm1(np.where(lost, -1.0, gap))))
        capped = np.asarray(capped, dtype=bool)
        over1 = (log1 > log_c + 1e-12) & ~capped
        over2 = (log2 > log_c + 1e-12) & ~capped
        if warn:
            if (capped & (log_c > -690.0)).any():
                warn_approximation(
                    "SaddlePoint: the saddle point lies beyond the searched range "
                    "(the tilted law is degenerate near the end of the support); "
                    "the contour integral was replaced by the Chernoff bound "
                    "e^{K(t)-eps t} (t/(1+t))^t/(1+t) at the last saddle point, an "
                    "upper bound.",
                    stacklevel=5,
                )
            if (over2 if self.order == 2 else over1).any():
                warn_approximation(
                    "SaddlePoint: the estimate exceeded the Chernoff bound "
                    "e^{K(t)-eps t} (t/(1+t))^t/(1+t) at the saddle point (too few "
                    "compositions for the approximation); lowered to that bound.",
                    stacklevel=5,
                )
            if self.order == 2 and (lost & ~capped).any():
                warn_approximation(
                    "SaddlePoint: the two Gaussian terms of delta_hat_2 agree to 8 "
                    "digits (degenerate tilted law); delta_hat_1 used instead.",
                    stacklevel=5,
                )
        log1 = np.where(capped | over1, log_c, log1)
        log2 = np.where(capped | over2, log_c, log2)
        return log1, log2, log_c

    def _from_integral(
        self, log_i: FloatArray, eps: FloatArray, side: str
    ) -> FloatArray:
        if side == "upper":
            return np.exp(log_i)
        return -np.expm1(eps + self.log_p_mass) + np.exp(log_i)

    def _repair(self, delta: FloatArray, eps: FloatArray, warn: bool) -> FloatArray:
        """Clip into ``[max(0, 1 - e^{eps + K(-1)}), 1]`` (with a warning)."""
        floor = np.maximum(-np.expm1(np.minimum(eps + self.log_p_mass, 0.0)), 0.0)
        bad = (delta > 1.0 + 1e-12) | (delta < floor * (1.0 - 1e-12))
        if warn and bad.any():
            warn_approximation(
                "SaddlePoint: delta(eps) left [max(0, 1 - e^eps), 1]; clipped into "
                "it. The approximation is outside its valid regime here "
                "(accountants.Numerical gives certified values).",
                stacklevel=5,
            )
        return np.clip(delta, floor, 1.0)

    def _estimates(self, eps: FloatArray, side: str, warn: bool = True) -> dict:
        vals, capped = self._saddle(eps, side)
        log1, log2, log_c = self._log_integrals(vals, side, capped, warn)
        d1 = self._from_integral(log1, eps, side)
        d2 = self._from_integral(log2, eps, side)
        chosen = self._repair(d2 if self.order == 2 else d1, eps, warn)
        return {
            "vals": vals,
            "capped": capped,
            "d1": d1,
            "d2": d2,
            "delta": chosen,
            "log_c": log_c,
        }

    def _regions(self, e: FloatArray) -> dict[str, Any]:
        lo, hi = self.support
        zero = e >= hi
        full = (e <= lo) & ~zero
        rest = ~zero & ~full
        return {
            "zero": zero,
            "full": full,
            "upper": rest & (e >= self.eps_split),
            "lower": rest & (e < self.eps_split),
        }

    def delta(self, eps: ArrayLike) -> FloatArray:
        r"""The estimate :math:`\hat\delta_{order}(\varepsilon)` for real ``eps``."""
        e = np.asarray(eps, dtype=np.float64)
        flat = e.reshape(-1)
        out = np.zeros(flat.shape)
        reg = self._regions(flat)
        with np.errstate(over="ignore"):
            out[reg["full"]] = np.maximum(
                -np.expm1(flat[reg["full"]] + self.log_p_mass), 0.0
            )
        for side in _SIDES:
            if reg[side].any():
                out[reg[side]] = self._estimates(flat[reg[side]], side)["delta"]
        return out.reshape(e.shape)

    def delta_estimates(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        r"""Both estimates :math:`(\hat\delta_1, \hat\delta_2)` (unrepaired except
        for the Chernoff cap), for real ``eps``."""
        e = np.asarray(eps, dtype=np.float64)
        flat = e.reshape(-1)
        d1, d2 = np.zeros(flat.shape), np.zeros(flat.shape)
        reg = self._regions(flat)
        full = np.maximum(-np.expm1(flat[reg["full"]] + self.log_p_mass), 0.0)
        d1[reg["full"]] = d2[reg["full"]] = full
        for side in _SIDES:
            if reg[side].any():
                est = self._estimates(flat[reg[side]], side)
                d1[reg[side]], d2[reg[side]] = est["d1"], est["d2"]
        return d1.reshape(e.shape), d2.reshape(e.shape)

    # ------------------------------------------------------------ error bound
    def third_abs_moment(self, t: ArrayLike) -> FloatArray:
        r""":math:`P_t = \sum_i n_i E|\tilde L_i - E\tilde L_i|^3` under the tilted
        laws :math:`\propto e^{tl}\,dQ_{L_i}(l)`, from each mechanism's quadrature
        rule (CF-S7). Warns when a rule does not resolve the tilted law (its mean
        differs from :math:`K_i'(t)` by more than :math:`10^{-6}` standard
        deviations)."""
        tt = np.asarray(t, dtype=np.float64).reshape(-1)
        total = np.zeros(tt.shape)
        for m, n in self.components:
            rule = m.plrv_quadrature()
            keep = np.isfinite(rule.nodes)
            nodes = rule.nodes[keep]
            logw = (rule.log_weights + rule.nodes)[keep]
            a = logw[None, :] + tt[:, None] * nodes[None, :]
            a = a - a.max(axis=1, keepdims=True)
            w = np.exp(a)
            w /= w.sum(axis=1, keepdims=True)
            mean = w @ nodes
            total += n * (w * np.abs(nodes[None, :] - mean[:, None]) ** 3).sum(axis=1)
            _, k1, k2 = m.cgf_derivatives(tt, "Q")
            sd = np.sqrt(np.maximum(np.asarray(k2, dtype=np.float64), 0.0))
            if np.any(np.abs(mean - k1) > 1e-6 * sd + 1e-12):
                warn_approximation(
                    f"SaddlePoint: the quadrature rule of {m!r} does not resolve its "
                    "tilted law at the saddle point; the CF-S7 error bound there is "
                    "approximate.",
                    stacklevel=4,
                )
        return total.reshape(np.shape(t))

    def delta_error_bound(self, eps: ArrayLike) -> FloatArray:
        r"""The CF-S7 bound on :math:`|\delta(\varepsilon) - \hat\delta_2(\varepsilon)|`
        as printed (constant 1; see the module docstring), for real ``eps``.

        For ``order=1`` the bound on :math:`|\delta - \hat\delta_1|` is this plus
        :math:`|\hat\delta_1 - \hat\delta_2|`. Where the saddle point lies beyond the
        cap the Chernoff bound (which dominates both :math:`\delta` and the repaired
        estimate) is returned. Zero where :math:`\delta` is known exactly. It bounds
        the error of an asymptotic approximation; it is not a certified bracket.
        """
        e = np.asarray(eps, dtype=np.float64)
        flat = e.reshape(-1)
        out = np.zeros(flat.shape)
        reg = self._regions(flat)
        for side in _SIDES:
            if not reg[side].any():
                continue
            est = self._estimates(flat[reg[side]], side)
            vals = est["vals"]
            kk, ee, t, v, s = (vals[k] for k in ("K", "eps", "t", "v", "s"))
            p3 = self.third_abs_moment(t)
            with np.errstate(divide="ignore"):
                log_b = (
                    kk
                    - ee * t
                    + s * (np.log(s) - np.log1p(s))
                    + np.log(p3)
                    - 1.5 * np.log(v)
                )
            bound = np.where(est["capped"], np.exp(est["log_c"]), np.exp(log_b))
            if self.order == 1:
                bound = bound + np.abs(est["d1"] - est["d2"])
            out[reg[side]] = bound
        return out.reshape(e.shape)

    # ------------------------------------------------------------ epsilon
    def epsilon(self, delta: ArrayLike) -> FloatArray:
        r""":math:`\inf\{\varepsilon \ge 0 : \hat\delta(\varepsilon) \le d\}`.

        Solved in the saddle-point variable :math:`s` on the upper side, where
        :math:`\varepsilon(s) = K'(s) - 1/s - 1/(1+s)` is explicit, so each Newton
        step costs one CGF evaluation (:math:`d\log\hat\delta/ds \approx
        -sF''(s)`). Answers below the split point (asymmetric pairs with
        :math:`\varepsilon_{mid} > 0`) are found by bisection on ``delta``.
        """
        d = np.asarray(delta, dtype=np.float64)
        flat = d.reshape(-1)
        out = np.zeros(flat.shape)
        if self.support[1] <= 0.0 or flat.size == 0:
            return out.reshape(d.shape)
        e_lo = max(0.0, self.eps_split)
        if e_lo >= self.support[1]:
            return out.reshape(d.shape)
        eps, below = self._invert_upper(flat, e_lo)
        out[~below] = eps[~below]
        if below.any() and self.eps_split > 0.0:
            lo = np.zeros(int(below.sum()))
            out[below] = monotone_bisect(
                self.delta, flat[below], lo, np.full_like(lo, self.eps_split)
            )
        return out.reshape(d.shape)

    def _upper_log_delta(self, vals: dict, warn: bool = False) -> FloatArray:
        """log of the chosen estimate at saddle-consistent points ``vals``."""
        shape = np.shape(vals["s"])
        log1, log2, _ = self._log_integrals(vals, "upper", np.zeros(shape, bool), warn)
        return log2 if self.order == 2 else log1

    def _invert_upper(self, d: FloatArray, e_lo: float) -> tuple[FloatArray, Any]:
        """Upper-side inverse; returns ``(eps, below)`` with ``below`` marking
        targets whose answer lies below ``e_lo``."""
        log_d = np.log(d)
        self._grid_covering("upper", e_lo, e_lo)
        while True:
            g = self._grid("upper")
            gl = self._upper_log_delta(g)
            if gl[-1] <= log_d.min() or not self._extend("upper", False):
                break
        ge, gs = g["eps"], g["s"]
        j0 = max(int(np.searchsorted(ge, e_lo)) - 1, 0)
        ok = gl[None, j0:] <= log_d[:, None]
        found = ok.any(axis=1)
        idx = j0 + np.argmax(ok, axis=1)
        eps = np.zeros(d.shape)
        below = found & (idx == j0)
        capped = ~found
        if capped.any():
            warn_approximation(
                "SaddlePoint: epsilon(delta) needs a saddle point beyond the "
                "searched range (degenerate tilted law near the end of the "
                "support); it was bounded with the Chernoff bound at the last "
                "saddle point (an upper bound on epsilon, capped at the end of the "
                "support).",
                stacklevel=4,
            )
            kk, t, s = g["K"][-1], g["t"][-1], gs[-1]
            eps_c = (kk + _log_kernel_max(np.array(s)) - log_d[capped]) / t
            eps[capped] = np.minimum(np.maximum(eps_c, ge[-1]), self.support[1])
        solve = found & ~below
        if solve.any():
            i = idx[solve]
            s_lo, s_hi = gs[i - 1], gs[i]
            target = log_d[solve]
            # First step for free: Newton from the grid's right end, with K''' from
            # the grid's own divided difference (g is increasing and convex here).
            v3_grid = (g["v"][i] - g["v"][i - 1]) / (s_hi - s_lo)
            slope_hi = _log_delta_slope(s_hi, g["v"][i], v3_grid)
            x0 = s_hi - (target - gl[i]) / -slope_hi
            bad = ~((x0 > s_lo) & (x0 < s_hi))
            x0 = np.where(bad, np.sqrt(s_lo * s_hi), x0)
            last: dict[str, Any] = {}
            h = 1e-5

            def fn(x: FloatArray) -> tuple[FloatArray, FloatArray]:
                # K''' by a forward difference of K'' (one vectorised CGF call
                # evaluates both points).
                both = self._at(np.concatenate((x, x * (1.0 + h))), "upper")
                vals = {k: val[: x.size] for k, val in both.items()}
                last.update(vals)
                v3 = (both["v"][x.size :] - vals["v"]) / (x * h)
                slope = _log_delta_slope(x, vals["v"], v3)
                return target - self._upper_log_delta(vals), -slope

            s = _newton(fn, s_lo, s_hi, x0, gtol=1e-10)
            vals = last if np.array_equal(last["s"], s) else self._at(s, "upper")
            self._upper_log_delta(vals, warn=True)
            eps[solve] = vals["eps"]
            below[solve] = vals["eps"] < e_lo
        return eps, below

    # ------------------------------------------------------------ trade-off
    def profile_table(self) -> tuple[FloatArray, FloatArray]:
        r"""``(eps, delta)`` at the images :math:`\varepsilon(s)` of 240 log-spaced
        saddle points per side, up to the end of the extended grid (no root
        solving: :math:`\varepsilon(s)` is explicit and the estimate is evaluated
        there directly), plus 0, the split point and the support's ends; computed
        once per pair."""
        if "table" not in self._grids:
            eps_parts, delta_parts = [], []
            sides = ("upper",) if self.symmetric else _SIDES
            # Tilts beyond ~32 standard deviations of the loss add nothing visible.
            sd0 = math.sqrt(max(float(self._grid("upper")["v"][0]), 1e-300))
            limit = 32.0 * max(1.0, 1.0 / sd0)
            for side in sides:
                while self._extend(side, small_s=False, limit=limit):
                    pass
                s_end = float(self._grid(side)["s"][-1])
                vals = self._at(np.geomspace(1e-3, max(s_end, 1.0), 240), side)
                e = vals["eps"]
                keep = (
                    (e >= self.eps_split) if side == "upper" else (e < self.eps_split)
                )
                lo, hi = self.support
                keep &= (e > lo) & (e < hi)
                vals = {k: v[keep] for k, v in vals.items()}
                log1, log2, _ = self._log_integrals(
                    vals, side, np.zeros(int(keep.sum()), bool), warn=False
                )
                d = self._from_integral(
                    log2 if self.order == 2 else log1, e[keep], side
                )
                eps_parts.append(e[keep])
                delta_parts.append(self._repair(d, e[keep], warn=False))
            extra = [
                0.0,
                self.eps_split,
                *(b for b in self.support if math.isfinite(b)),
            ]
            extra_e = np.array(extra)
            eps_parts.append(extra_e)
            delta_parts.append(self.delta(extra_e))
            eps = np.concatenate(eps_parts)
            delta = np.concatenate(delta_parts)
            eps, idx = np.unique(eps, return_index=True)
            delta = delta[idx]
            if self.symmetric:
                delta, eps = delta[eps >= 0.0], eps[eps >= 0.0]
            self._grids["table"] = {"eps": eps, "delta": delta}
        table = self._grids["table"]
        return table["eps"], table["delta"]

    def tradeoff(self, alpha: ArrayLike) -> FloatArray:
        r""":math:`f(\alpha) = \max\{0, \max_k 1 - \hat\delta(\varepsilon_k)
        - e^{\varepsilon_k}\alpha\}` over :meth:`profile_table` (Dong et al.
        2019, Prop. 2.8): the upper envelope of the supporting lines, with the
        mirrored lines for symmetric compositions. Each line is exact for the
        estimated profile; between the 240 saddle points per side the envelope
        is not refined."""
        from symfdp import tradeoff as T

        a = np.asarray(alpha, dtype=np.float64)
        eps, delta = self.profile_table()

        def lookup(x: FloatArray) -> FloatArray:
            return np.interp(x, eps, delta)

        out = T.tradeoff_from_profile(
            lookup, a, eps, symmetric=self.symmetric, refine=False
        )
        return np.asarray(out, dtype=np.float64).reshape(a.shape)


# ----------------------------------------------------------------- accountant
class SaddlePoint(Accountant):
    r"""The saddle-point accountant (Alghamdi et al. 2022): CGFs add over the
    composition, so the cost is independent of ``n``.

    Args:
        order: 1 for :math:`\hat\delta_1` (CF-S5) or 2 for :math:`\hat\delta_2`
            (CF-S6, default) as the point estimate.

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = SaddlePoint().compose(M.Gaussian(mu=0.5), n=16)
        >>> exact = float(M.Gaussian(mu=2.0).privacy_profile(1.0))
        >>> abs(curve.delta(1.0) / exact - 1) < 1e-12
        True
    """

    method = "SaddlePoint"
    certified = False

    def __init__(self, order: int = 2) -> None:
        if isinstance(order, bool) or order not in (1, 2):
            raise ValueError(f"order must be 1 or 2. Found {order!r}.")
        self.order = int(order)

    def compose_pair(self, components: Components) -> SaddlePointPairCurve:
        symmetric = all(m.is_symmetric for m, _ in components)
        return SaddlePointPairCurve(components, self.order, symmetric)

    def compose(
        self,
        mechanism: Mechanism | Any,
        n: int | None = None,
    ) -> PrivacyCurve:
        curve = super().compose(mechanism, n)
        curve.info["pairs"] = [p.info for p in curve.pairs]
        curve.info["error_bound"] = (
            "pairs[k].delta_error_bound(eps): the CF-S7 bound on the error of the "
            "approximation (asymptotic, not certified)"
        )
        return curve

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        info["order"] = self.order
        return info

    def __repr__(self) -> str:
        return f"SaddlePoint(order={self.order})"
