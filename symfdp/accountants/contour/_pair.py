r"""``ContourPairCurve``: the contour integral of one composed pair (mathematics in
:mod:`symfdp.accountants.contour`)."""

from __future__ import annotations

import functools
import math
from typing import Any, Final, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp.accountants.base import Components, loss_range
from symfdp.accountants.contour._integral import (
    MAX_NODES,
    ROUND,
    trapezoid_integral,
)
from symfdp.accountants.saddlepoint.formulas import delta2_log_terms
from symfdp.curve import Answer, PairCurve, Query
from symfdp.mechanisms._complex_mgf import LogMGF
from symfdp.mechanisms.base import FloatArray, Mechanism, QuadratureLimitError
from symfdp.numeric.roots import bracketed_newton, positive_root

__all__ = ["ContourPairCurve", "refusal"]

#: Largest saddle point s (t = s, or -1 - s on the lower side) searched;
#: beyond it the integral is bracketed by [0, Chernoff bound].
S_CAP: Final = 1000.0
#: Below this distance to the nearer pole, in units of K''(t)^{-1/2}, the
#: middle line -1 < t < 0 is used.
POLE_RATIO: Final = 0.3
#: Above this many alphas, the trade-off is the envelope of a dense table.
DENSE_ALPHAS: Final = 64

#: Newton iterates of epsilon(delta) whose integral may fail before giving up.
MAX_FAILED_ITERATES: Final = 2
#: Relative tolerance of epsilon(delta) on log delta.
LOG_DELTA_TOL: Final = 1e-8
#: Iterations of the Halley solve of epsilon(delta) before it gives up.
MAX_HALLEY: Final = 30


def _lower_side(
    eps: FloatArray, integral: FloatArray, d_integral: FloatArray
) -> tuple[FloatArray, FloatArray]:
    r""":math:`\delta = 1 - e^{\varepsilon} + I` and its slope. For
    :math:`\varepsilon > 0` (then :math:`I \approx e^\varepsilon`) the form
    :math:`1 - e^{\varepsilon}(1 - Ie^{-\varepsilon})` avoids overflow."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        pos = eps > 0
        gap = -np.expm1(np.log(np.maximum(integral, 1e-300)) - eps)
        delta = np.where(
            pos,
            -np.expm1(eps + np.log(np.maximum(gap, 1e-300))),
            -np.expm1(np.minimum(eps, 0.0)) + integral,
        )
        delta = np.where(pos & (gap <= 0), 1.0, delta)
        slope = -np.exp(np.minimum(eps, 700.0)) + d_integral
    return delta, slope


def refusal(m: Mechanism) -> str:
    """The message of the ``ValueError`` refusing ``m``: why, and the methods
    that serve it."""
    if m.complex_log_mgf() is None:
        return (
            f"Contour cannot serve {m!r}: it needs the moment generating function "
            "of the privacy loss at complex arguments (Mechanism.complex_log_mgf), "
            "implemented for the Gaussian and the Poisson-subsampled Gaussian "
            "(add/remove pairs) only: a pair given by densities, PMFs or its "
            "privacy loss and a replace-one mixture pair have none, and a loss "
            "with atoms (pure DP, Laplace, discrete laws) would not converge. Use "
            "accountants.Numerical (certified) or accountants.SaddlePoint (an "
            "estimate) instead."
        )
    return (
        f"Contour cannot serve {m!r}: its privacy loss has atoms, so the contour "
        "integrand does not decay along the vertical line and the trapezoid rule "
        "does not converge. Use accountants.Numerical (certified) instead."
    )


class ContourPairCurve(PairCurve):
    r"""The contour integral of one composed pair (a :class:`~symfdp.curve.PairCurve`).

    Every query raises ``ValueError`` (naming Numerical) where the trapezoid
    rule does not converge within ``max_nodes``.

    Args:
        components: ``((mechanism, n), ...)`` of single dominating pairs, each
            with ``continuous_loss`` and a complex log-MGF.
        symmetric: Whether every component is symmetric (split point 0).
        max_nodes: Node cap of the trapezoid rule per eps.
    """

    def __init__(
        self, components: Components, symmetric: bool, max_nodes: int = MAX_NODES
    ) -> None:
        self.components = components
        self.symmetric = symmetric
        self.max_nodes = int(max_nodes)
        parts: list[tuple[LogMGF, int]] = []
        for m, n in components:
            fn = m.complex_log_mgf()
            if fn is None:
                raise ValueError(refusal(m))
            parts.append((fn, int(n)))
        self._parts = tuple(parts)
        self.support: tuple[float, float] = loss_range(components)
        self._tables: dict[str, tuple[FloatArray, FloatArray]] = {}
        self.eps_split = 0.0 if symmetric else float(self.cgf(np.array([-0.5]))[1][0])
        self.info: dict[str, Any] = {
            "eps_split": self.eps_split,
            "support": self.support,
        }

    # ------------------------------------------------------------ K
    def cgf(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(K, K', K'')`` of the composed loss under Q at real ``t``."""
        k0, k1, k2 = np.zeros(t.shape), np.zeros(t.shape), np.zeros(t.shape)
        for fn, n in self._parts:
            a, b, c = fn.real(t)
            k0 += n * a
            k1 += n * b
            k2 += n * c
        return k0, k1, k2

    def log_mgf(self, z: Any) -> Any:
        r""":math:`\sum_i n_i \operatorname{Log} M_i(z)` at complex ``z``."""
        z = np.asarray(z, dtype=np.complex128)
        out = np.zeros(z.shape, dtype=np.complex128)
        for fn, n in self._parts:
            out += n * fn(z)
        return out

    # ------------------------------------------------------------ saddle point
    def saddle(
        self, eps: FloatArray, side: str
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
        r"""``(t, sigma, capped)``: the saddle point on ``side`` (``"upper"``:
        :math:`t > 0`; ``"lower"``: :math:`t < -1`; ``"middle"``:
        :math:`-1 < t < 0`) for each ``eps``, :math:`F''_\varepsilon(t)^{-1/2}`,
        and the entries whose saddle point lies beyond :math:`s =` ``S_CAP``
        (:math:`s = t` or :math:`-1 - t`; returned there)."""
        t, sigma, capped, _ = self._saddle_k2(eps, side)
        return t, sigma, capped

    def _saddle_k2(
        self, eps: FloatArray, side: str
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], FloatArray]:
        r""":meth:`saddle` and :math:`K''` at the saddle points (relative step
        1e-6)."""
        if side == "middle":
            t, sigma, capped = self._saddle_middle(eps)
            return t, sigma, capped, 1.0 / sigma**2 - 1.0 / t**2 - 1.0 / (1.0 + t) ** 2
        sg = 1.0 if side == "upper" else -1.0

        def g(s: FloatArray, idx: Any) -> tuple[FloatArray, FloatArray]:
            t = s if side == "upper" else -1.0 - s
            _, k1, k2 = self.cgf(t)
            val = sg * (k1 - eps[idx]) - 1.0 / s - 1.0 / (1.0 + s)
            return val, k2 + 1.0 / s**2 + 1.0 / (1.0 + s) ** 2

        found = self._table_bracket(eps, side)
        if found is None:
            s, capped = positive_root(g, eps.size, x_max=S_CAP, xtol=1e-6)
        else:
            lo, hi, x0 = found
            every = np.arange(eps.size)
            s = bracketed_newton(
                lambda x: g(x, every),
                np.zeros(eps.shape),
                lo,
                hi,
                xtol=1e-6,
                x0=x0,
                geometric=True,
                check_bracket=False,
            )
            capped = np.zeros(eps.shape, dtype=bool)
        t = s if side == "upper" else -1.0 - s
        _, _, k2 = self.cgf(t)
        sigma = 1.0 / np.sqrt(k2 + 1.0 / s**2 + 1.0 / (1.0 + s) ** 2)
        return t, sigma, capped, k2

    def _saddle_table(self, side: str, extend: bool) -> tuple[FloatArray, FloatArray]:
        r"""``(s, K'(t(s)))`` on a cached, log-spaced table of ``s`` (``t = s``
        or ``-1 - s``), extended up to ``S_CAP`` when ``extend``."""
        tab = self._tables.get(side)
        if tab is None:
            s = np.geomspace(1e-3, 16.0, 65)
            tab = (s, self.cgf(s if side == "upper" else -1.0 - s)[1])
        elif extend and tab[0][-1] < S_CAP:
            s_new = np.minimum(tab[0][-1] * np.geomspace(1.0, 4.0, 9)[1:], S_CAP)
            try:
                k1 = self.cgf(s_new if side == "upper" else -1.0 - s_new)[1]
            except QuadratureLimitError:
                return tab
            tab = (np.concatenate((tab[0], s_new)), np.concatenate((tab[1], k1)))
        self._tables[side] = tab
        return tab

    def _table_bracket(
        self, eps: FloatArray, side: str
    ) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        """``(lo, hi, x0)``: a bracket of each entry's saddle point in ``s`` from
        :meth:`_saddle_table` and the secant start in ``log s``; ``None`` where
        some entry lies below the table or beyond its end."""
        sg = 1.0 if side == "upper" else -1.0
        s, k1 = self._saddle_table(side, False)
        while True:
            q = 1.0 / s + 1.0 / (1.0 + s)
            g = sg * (k1[None, :] - eps[:, None]) - q[None, :]
            j = np.sum(g < 0, axis=1)
            if np.all(j < s.size) or s[-1] >= S_CAP:
                break
            size = s.size
            s, k1 = self._saddle_table(side, True)
            if s.size == size:  # the table cannot grow
                break
        if not np.all((j > 0) & (j < s.size)):
            return None
        rows = np.arange(eps.size)
        g_lo, g_hi = g[rows, j - 1], g[rows, j]
        lo, hi = s[j - 1], s[j]
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.clip(g_lo / (g_lo - g_hi), 0.0, 1.0)
        x0 = np.exp(np.log(lo) + frac * (np.log(hi) - np.log(lo)))
        return lo, hi, np.where(np.isfinite(x0), x0, np.sqrt(lo * hi))

    def _saddle_middle(
        self, eps: FloatArray
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
        r"""The saddle point in (-1, 0), solved in :math:`x = \log(-t/(1+t))`
        (:math:`dt/dx = t(1+t)`), on which the equation is decreasing."""

        def tilt(x: FloatArray) -> FloatArray:
            return cast(FloatArray, -special.expit(x))

        def g(x: FloatArray) -> tuple[FloatArray, FloatArray]:
            t = tilt(x)
            _, k1, k2 = self.cgf(t)
            val = k1 - eps - 1.0 / t - 1.0 / (1.0 + t)
            return val, (k2 + 1.0 / t**2 + 1.0 / (1.0 + t) ** 2) * t * (1.0 + t)

        x = bracketed_newton(
            g,
            np.zeros(eps.shape),
            np.full(eps.shape, -36.0),
            np.full(eps.shape, 36.0),
            increasing=False,
            xtol=0.0,
            xatol=1e-8,
            check_bracket=False,
        )
        t = tilt(x)
        k2 = self.cgf(t)[2]
        sigma = 1.0 / np.sqrt(k2 + 1.0 / t**2 + 1.0 / (1.0 + t) ** 2)
        return t, sigma, np.zeros(eps.shape, dtype=bool)

    def pole_ratio(self, t: FloatArray) -> FloatArray:
        r""":math:`\min(|t|, |1+t|)\sqrt{K''(t)}`: distance to the nearer pole in
        units of :math:`K''^{-1/2}`."""
        return np.minimum(np.abs(t), np.abs(1.0 + t)) * np.sqrt(self.cgf(t)[2])

    def log_chernoff(self, eps: FloatArray, t: FloatArray) -> FloatArray:
        r""":math:`\log` of the Chernoff bound :math:`e^{K(t) - t\varepsilon}
        (s/(1+s))^s/(1+s)` on the integral, :math:`s = t` or :math:`-1 - t`."""
        k0 = self.cgf(t)[0]
        s = np.where(t > 0, t, -1.0 - t)
        return cast(FloatArray, k0 - t * eps + s * np.log(s / (1.0 + s)) - np.log1p(s))

    def integral(
        self, eps: FloatArray, t: FloatArray, sigma: FloatArray
    ) -> dict[str, FloatArray]:
        """:func:`~symfdp.accountants.contour._integral.trapezoid_integral` on
        the line through ``t`` (``sigma``: the saddle point's scale)."""
        return trapezoid_integral(self.log_mgf, eps, t, sigma, self.max_nodes)

    # ------------------------------------------------------------ delta
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

    def evaluate(self, eps: ArrayLike) -> dict[str, FloatArray]:
        r"""``delta``, ``error`` (absolute estimate), ``slope``
        (:math:`d\delta/d\varepsilon`) and ``converged`` at real ``eps``, on the
        line chosen as in :mod:`symfdp.accountants.contour`."""
        e = np.asarray(eps, dtype=np.float64).reshape(-1)
        delta = np.zeros(e.shape)
        err = np.zeros(e.shape)
        slope = np.zeros(e.shape)
        ok = np.ones(e.shape, dtype=bool)
        reg = self._regions(e)
        full = reg["full"]
        with np.errstate(over="ignore"):
            delta[full] = -np.expm1(e[full])
            slope[full] = -np.exp(e[full])
        err[full] = ROUND * np.abs(delta[full])
        jobs: list[tuple[str, Any, Any]] = []
        for side in ("upper", "lower"):
            idx = np.flatnonzero(reg[side])
            if idx.size == 0:
                continue
            t, sigma, capped, k2 = self._saddle_k2(e[idx], side)
            ratio = np.minimum(np.abs(t), np.abs(1.0 + t)) * np.sqrt(k2)
            near = ~capped & (ratio < POLE_RATIO)
            if near.any():
                jobs.append(("middle", idx[near], self.saddle(e[idx[near]], "middle")))
            keep = ~near
            jobs.append((side, idx[keep], (t[keep], sigma[keep], capped[keep])))
        # alpha = P_P(L > eps) = -e^{-eps} delta', beta = P_Q(L <= eps)
        # = 1 - delta + delta' and d alpha / d eps (the trade-off's points).
        alpha = np.where(e >= self.support[1], 0.0, 1.0)
        beta = 1.0 - alpha
        d_alpha = np.zeros(e.shape)
        for side, idx, (t, sigma, capped) in jobs:
            if idx.size == 0:
                continue
            es = e[idx]
            val = np.zeros(es.shape)
            d1 = np.zeros(es.shape)
            d2 = np.zeros(es.shape)
            rel_err = np.ones(es.shape)
            converged = np.ones(es.shape, dtype=bool)
            free = ~capped
            if free.any():
                res = self.integral(es[free], t[free], sigma[free])
                with np.errstate(over="ignore"):
                    val[free] = res["sign"] * np.exp(res["log_i"])
                d1[free] = val[free] * res["slope"]
                d2[free] = val[free] * res["curvature"]
                rel_err[free] = res["rel_err"]
                converged[free] = res["converged"]
            if capped.any():
                # The integral lies in [0, C]: reported as C/2 +- C/2.
                val[capped] = 0.5 * np.exp(self.log_chernoff(es[capped], t[capped]))
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                scale = np.exp(np.minimum(-es, 700.0))
                if side == "upper":
                    delta[idx], slope[idx] = val, d1
                    alpha[idx] = -scale * d1
                    beta[idx] = 1.0 - val + d1
                elif side == "middle":
                    delta[idx], slope[idx] = 1.0 + val, d1
                    alpha[idx] = -scale * d1
                    beta[idx] = d1 - val
                else:
                    delta[idx], slope[idx] = _lower_side(es, val, d1)
                    alpha[idx] = 1.0 - scale * d1
                    beta[idx] = d1 - val
                d_alpha[idx] = scale * (d1 - d2)
            alpha[idx[capped]] = np.nan
            # The integral's error and one rounding of the result.
            err[idx] = np.abs(val) * rel_err + ROUND * np.abs(delta[idx])
            ok[idx] = converged
        return {
            "delta": delta,
            "error": err,
            "slope": slope,
            "converged": ok,
            "alpha": alpha,
            "beta": beta,
            "d_alpha": d_alpha,
        }

    @property
    def estimates_error(self) -> bool:
        return True

    def answer(self, query: Query, points: FloatArray) -> Answer:
        """:meth:`evaluate` (delta), :meth:`_epsilon` (epsilon) or
        :meth:`_tradeoff`, with the error estimates of the first two.

        Raises:
            ValueError: the trapezoid rule did not converge (too few
                compositions for the integrand to decay).
        """
        if query is Query.DELTA:
            res = self.evaluate(points)
            self._require(res["converged"], points)
            return Answer(res["delta"], res["error"])
        if query is Query.EPSILON:
            eps, err, ok = self._epsilon(points)
            self._require(ok, eps)
            return Answer(eps, err)
        return Answer(self._tradeoff(points))

    def _require(self, converged: Any, eps: FloatArray) -> None:
        if not np.all(converged):
            bad = eps[~np.asarray(converged)]
            raise ValueError(
                "Contour: the contour integral did not converge within "
                f"{self.max_nodes} trapezoid nodes at eps = {float(bad[0]):.6g} "
                f"({bad.size} point(s)): the characteristic function of the composed "
                "privacy loss decays too slowly (too few compositions, or a loss "
                "close to a lattice). Use accountants.Numerical (certified) instead."
            )

    # ------------------------------------------------------------ epsilon
    def _chernoff_log(self, t: FloatArray) -> tuple[FloatArray, FloatArray]:
        r"""``(eps(t), log C(t))`` on the upper side: :math:`\varepsilon(t) =
        K'(t) - 1/t - 1/(1+t)` and the Chernoff bound :math:`\delta(\varepsilon)
        \le e^{K(t) - t\varepsilon}(t/(1+t))^t/(1+t)`, :math:`t > 0`."""
        k0, k1, _ = self.cgf(t)
        e = k1 - 1.0 / t - 1.0 / (1.0 + t)
        return e, k0 - t * e + t * np.log(t / (1.0 + t)) - np.log1p(t)

    def _epsilon(self, d: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        r"""``(eps, error, converged)``: :meth:`_solve_in_tilt` for targets below
        :math:`\delta(e_{lo})`, :math:`e_{lo} = \max(0, \varepsilon_{mid})`, else
        safeguarded Newton on ``log delta`` in :math:`[e_{lo}, \varepsilon(t_{hi})]`
        (Chernoff bound at :math:`t_{hi}` below the target) or :math:`[0, e_{lo}]`."""
        eps = np.zeros(d.shape)
        err = np.zeros(d.shape)
        ok = np.ones(d.shape, dtype=bool)
        e_lo = max(0.0, self.eps_split)
        if d.size == 0 or e_lo >= self.support[1]:
            return eps, err, ok
        at_lo = self._at_split
        upper = d < at_lo["delta"][0]
        if upper.any():
            sel = np.flatnonzero(upper)
            found = self._solve_in_tilt(d[sel])
            if found is not None:
                eps[sel], err[sel], ok[sel] = found
            else:
                e_hi = self._chernoff_end(d[sel])
                # log delta is concave in the tail, where Newton from the right
                # end converges monotonically.
                eps[sel], err[sel], ok[sel] = self._solve(
                    d[sel], np.full(sel.size, e_lo), e_hi, x0=e_hi
                )
        below = ~upper
        if below.any() and e_lo > 0.0:
            at0 = self.evaluate(np.zeros(1))
            sel = np.flatnonzero(below & (d < at0["delta"][0]))
            if sel.size:
                eps[sel], err[sel], ok[sel] = self._solve(
                    d[sel], np.zeros(sel.size), np.full(sel.size, e_lo)
                )
            ok &= bool(at0["converged"][0])
        ok &= bool(at_lo["converged"][0])
        return eps, err, ok

    @functools.cached_property
    def _tilt_split(self) -> float:
        r"""The upper saddle point of :math:`\max(0, \varepsilon_{mid})`
        (``nan`` if it lies beyond ``S_CAP``); once per pair."""
        t, _, capped = self.saddle(np.array([max(0.0, self.eps_split)]), "upper")
        return math.nan if bool(capped[0]) else float(t[0])

    def _tilt_guess(self, log_d: FloatArray, u_lo: float) -> FloatArray:
        r"""``log t`` where the saddle-point estimate :math:`\hat\delta_2`
        (CF-S6) of :math:`\varepsilon(t)` meets ``log_d``: the start of
        :meth:`_solve_in_tilt` (real CGF values only)."""

        def fn(u: FloatArray) -> tuple[FloatArray, FloatArray]:
            t = np.exp(u)
            k0, k1, k2 = self.cgf(t)
            e = k1 - 1.0 / t - 1.0 / (1.0 + t)
            de = k2 + 1.0 / t**2 + 1.0 / (1.0 + t) ** 2
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                la, lb = delta2_log_terms("upper", k0, e, t, k1, k2)
                log2 = la + np.log(-np.expm1(np.minimum(lb - la, -1e-300)))
                q = t * t * (1.0 + t) ** 2 * k2 + t * t + (1.0 + t) ** 2
                log1 = k0 - e * t - 0.5 * np.log(2.0 * math.pi * q)
            return np.where(np.isfinite(log2), log2, log1), -t * t * de

        # Start where the Gaussian tail of the loss (variance K''(1)) puts it,
        # log delta ~ -t^2 K''/2: Newton from below overshoots where log delta
        # is strongly concave in log t.
        k2 = self.cgf(np.ones(1))[2]
        with np.errstate(divide="ignore", invalid="ignore"):
            u0 = 0.5 * np.log(-2.0 * log_d / k2)
        u0 = np.where(np.isfinite(u0), u0, 0.0)
        u0 = np.minimum(np.maximum(u0, u_lo), math.log(S_CAP))
        return bracketed_newton(
            fn,
            log_d,
            np.full(log_d.shape, u_lo),
            np.full(log_d.shape, math.log(S_CAP)),
            increasing=False,
            xtol=0.0,
            xatol=1e-4,
            x0=u0,
            check_bracket=False,
        )

    def _solve_in_tilt(
        self, d: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        r"""``(eps, error, converged)`` for targets below :math:`\delta(e_{lo})`:
        Halley's iteration on :math:`f = \log\delta(\varepsilon) - \log d`
        (:math:`f'`, :math:`f''` from the same integral), the line following the
        saddle point to first order, :math:`t \leftarrow t +
        \Delta\varepsilon/\varepsilon'(t)` (any upper line is exact). ``None``
        near a pole (``POLE_RATIO``), after ``MAX_FAILED_ITERATES`` failed
        integrals or ``MAX_HALLEY`` steps; the caller then solves in eps."""
        try:
            return self._halley_in_eps(d)
        except (RuntimeError, QuadratureLimitError):
            return None

    def _halley_in_eps(
        self, d: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        """The iteration of :meth:`_solve_in_tilt`."""
        t_lo = self._tilt_split
        if not math.isfinite(t_lo):
            return None
        log_d = np.log(d)
        e_lo = max(0.0, self.eps_split)
        t = np.exp(self._tilt_guess(log_d, math.log(t_lo)))
        if np.any(t >= S_CAP * (1.0 - 1e-9)):
            return None
        _, k1, _ = self.cgf(t)
        e = k1 - 1.0 / t - 1.0 / (1.0 + t)
        lo = np.full(d.shape, e_lo)
        hi = np.full(d.shape, self.support[1])
        active = np.ones(d.shape, dtype=bool)
        res: dict[str, FloatArray] = {}
        failures = 0
        for _ in range(MAX_HALLEY):
            idx = np.flatnonzero(active)
            ta, ea = t[idx], e[idx]
            _, _, k2 = self.cgf(ta)
            if np.any(np.minimum(ta, 1.0 + ta) * np.sqrt(k2) < POLE_RATIO):
                return None
            de = k2 + 1.0 / ta**2 + 1.0 / (1.0 + ta) ** 2
            got = self.integral(ea, ta, 1.0 / np.sqrt(de))
            if not np.all(got["converged"]):
                failures += 1
                if failures > MAX_FAILED_ITERATES:
                    return None
            if not res:
                res = {k: np.zeros(d.shape, dtype=v.dtype) for k, v in got.items()}
            for k, v in got.items():
                res[k][idx] = v
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                f = np.where(got["sign"] > 0, got["log_i"], -np.inf) - log_d[idx]
                g1 = got["slope"]
                g2 = got["curvature"] - g1 * g1
                lo[idx] = np.where(f > 0, ea, lo[idx])
                hi[idx] = np.where(f < 0, ea, hi[idx])
                step = -2.0 * f * g1 / (2.0 * g1 * g1 - f * g2)
                step = np.where(np.isfinite(step), step, -f / g1)
                new = ea + step
            done = (np.abs(f) <= LOG_DELTA_TOL) | (np.abs(step) <= 1e-12 * np.abs(ea))
            inside = np.isfinite(new) & (new > lo[idx]) & (new < hi[idx])
            bounded = np.isfinite(hi[idx])
            new = np.where(inside | ~bounded, new, 0.5 * (lo[idx] + hi[idx]))
            if not np.all(np.isfinite(new) | done):
                return None
            move = ~done
            t_new = ta + (new - ea) / de
            t_new = np.minimum(np.maximum(t_new, 0.5 * ta), S_CAP)
            t[idx] = np.where(move, t_new, ta)
            e[idx] = np.where(move, new, ea)
            active[idx] = move
            if not active.any():
                break
        else:
            return None
        with np.errstate(over="ignore"):
            delta = res["sign"] * np.exp(res["log_i"])
        d_delta = delta * res["slope"]
        error = np.abs(delta) * res["rel_err"] + ROUND * np.abs(delta)
        err = (error + np.abs(delta - d)) / np.abs(d_delta)
        return np.minimum(e, self.support[1]), err, res["converged"]

    @functools.cached_property
    def _at_split(self) -> dict[str, FloatArray]:
        r""":meth:`evaluate` at :math:`\max(0, \varepsilon_{mid})` (once per pair)."""
        return self.evaluate(np.array([max(0.0, self.eps_split)]))

    def _chernoff_end(self, d: FloatArray) -> FloatArray:
        r""":math:`\varepsilon(t_{hi})` with the Chernoff bound at the upper
        saddle point :math:`t_{hi}` at most, and close to, ``d``."""
        log_d = np.log(d)
        t_hi = np.ones(d.shape)
        while True:
            e_hi, log_c = self._chernoff_log(t_hi)
            need = (log_c > log_d) & (t_hi < S_CAP)
            if not need.any():
                break
            t_hi = np.where(need, np.minimum(2.0 * t_hi, S_CAP), t_hi)
        if np.any(log_c > log_d):
            raise ValueError(
                "Contour: epsilon(delta) lies beyond the largest saddle point "
                f"searched (t = {S_CAP:g}, next to the end of the loss support); "
                "use accountants.Numerical instead."
            )
        t_lo = 0.5 * t_hi
        for _ in range(12):
            mid = np.sqrt(t_lo * t_hi)
            _, log_c = self._chernoff_log(mid)
            below = log_c <= log_d
            t_hi = np.where(below, mid, t_hi)
            t_lo = np.where(below, t_lo, mid)
        e_hi, _ = self._chernoff_log(t_hi)
        return np.minimum(e_hi, self.support[1])

    def _solve(
        self, d: FloatArray, lo: FloatArray, hi: FloatArray, x0: Any = None
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Newton on ``log delta`` in ``[lo, hi]``; convergence of the integral is
        judged at the answer. On failure every entry returns ``hi`` (an upper
        bound when it is the Chernoff end) with an infinite error."""
        log_d = np.log(d)
        state: dict[str, Any] = {}

        failures = [0]

        def fn(e: FloatArray) -> tuple[FloatArray, FloatArray]:
            res = self.evaluate(e)
            if not np.all(res["converged"]):
                failures[0] += 1
                if failures[0] > MAX_FAILED_ITERATES:
                    raise RuntimeError("the contour integral does not converge")
            state.update(e=e, res=res)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.log(res["delta"]), res["slope"] / res["delta"]

        try:
            e = bracketed_newton(
                fn,
                log_d,
                lo,
                np.maximum(hi, lo),
                increasing=False,
                xtol=1e-12,
                ftol=LOG_DELTA_TOL,
                x0=x0,
                check_bracket=False,
            )
            # None (no evaluation yet) compares unequal, as array_equal does.
            if not np.array_equal(cast(Any, state.get("e")), e):
                fn(e)
        except RuntimeError:
            return np.maximum(hi, lo), np.full(d.shape, np.inf), np.zeros(d.shape, bool)
        res = state["res"]
        resid = np.abs(res["delta"] - d)
        err = (res["error"] + resid) / np.abs(res["slope"])
        return e, err, res["converged"]

    # ------------------------------------------------------------ trade-off
    def profile_grid(self, points: int = 48) -> FloatArray:
        """The eps grid of :meth:`tradeoff`: :math:`\\varepsilon(t)` of log-spaced
        saddle points on both sides, out to a Chernoff bound of 1e-17."""
        t_lo = float(self.saddle(np.array([self.eps_split]), "upper")[0][0])
        t_hi = min(max(2.0 * t_lo, 1.0), S_CAP)
        while t_hi < S_CAP:
            e, log_c = self._chernoff_log(np.array([t_hi]))
            if log_c[0] < math.log(1e-17) or e[0] >= self.support[1]:
                break
            t_hi = min(2.0 * t_hi, S_CAP)
        s = np.geomspace(t_lo, t_hi, points)
        k1 = self.cgf(s)[1]
        # The lower side reaches further (alpha close to 1, where the reflected
        # curve of the symmetrisation needs f > 0).
        s_low = np.geomspace(t_lo, min(8.0 * t_hi, S_CAP), 2 * points)
        k1_low = self.cgf(-1.0 - s_low)[1]
        grids = [
            k1 - 1.0 / s - 1.0 / (1.0 + s),
            k1_low + 1.0 / s_low + 1.0 / (1.0 + s_low),
            np.array([self.eps_split, 0.0]),
        ]
        eps = np.unique(np.concatenate(grids))
        lo, hi = self.support
        return cast(FloatArray, eps[(eps > lo) & (eps < hi) & np.isfinite(eps)])

    @staticmethod
    def _hermite(
        target: FloatArray, eps: FloatArray, alpha: FloatArray, beta: FloatArray
    ) -> FloatArray:
        """Cubic Hermite interpolation of the exact points ``(alpha_k, beta_k)``
        with their exact slopes :math:`-e^{\\varepsilon_k}`; 0 outside the
        table (the caller's supporting lines serve there)."""
        order = np.argsort(alpha)
        x, y = alpha[order], beta[order]
        dy = -np.exp(np.minimum(eps[order], 700.0))
        out = np.zeros(target.shape)
        j = np.searchsorted(x, target) - 1
        ok = (j >= 0) & (j < x.size - 1)
        j = j[ok]
        h = x[j + 1] - x[j]
        good = h > 0
        u = np.where(good, (target[ok] - x[j]) / np.where(good, h, 1.0), 0.0)
        h00 = (1 + 2 * u) * (1 - u) ** 2
        h10 = u * (1 - u) ** 2
        h01 = u * u * (3 - 2 * u)
        h11 = u * u * (u - 1)
        val = h00 * y[j] + h10 * h * dy[j] + h01 * y[j + 1] + h11 * h * dy[j + 1]
        out[ok] = np.where(good, val, y[j])
        return out

    def _tradeoff(self, a: FloatArray) -> FloatArray:
        r""":math:`f(\alpha) = T(P^n, Q^n)(\alpha)` from the Neyman–Pearson points
        (Dong et al. 2019, Prop. 2.8; see :mod:`symfdp.accountants.contour`), each
        :math:`\alpha` solved for :math:`\varepsilon`; outside the table of
        :meth:`profile_grid`, its supporting lines.

        Raises:
            ValueError: the contour integral did not converge at a point.
        """
        flat = a
        # Many points (a tabulation): the envelope of a denser table only.
        dense = flat.size > DENSE_ALPHAS
        grid = self.profile_grid(points=256 if dense else 48)
        tab = self.evaluate(grid)
        self._require(tab["converged"], grid)
        keep = np.isfinite(tab["alpha"])
        g_eps, g_alpha = grid[keep], tab["alpha"][keep]
        g_delta = tab["delta"][keep]
        with np.errstate(over="ignore", invalid="ignore"):
            slope_term = np.exp(g_eps)[None, :] * flat[:, None]
        # alpha = 0: the lines all pass through (0, 1 - delta(eps_k)).
        slope_term = np.where(flat[:, None] > 0, slope_term, 0.0)
        lines = 1.0 - g_delta[None, :] - slope_term
        out = np.maximum(np.max(lines, axis=1, initial=0.0), 0.0)
        if dense:
            out = np.maximum(
                out, self._hermite(flat, g_eps, g_alpha, tab["beta"][keep])
            )
        # alpha(eps) is decreasing; interior targets are solved exactly.
        inner = (flat < g_alpha.max()) & (flat > g_alpha.min()) & (flat > 0)
        inner &= not dense
        if inner.any():
            order = np.argsort(g_eps)
            ge, ga = g_eps[order], g_alpha[order]
            target = flat[inner]
            # The last table point with alpha >= target, and the next one.
            k = np.sum(ga[None, :] >= target[:, None], axis=1) - 1
            k = np.clip(k, 0, ge.size - 2)
            state: dict[str, Any] = {}

            def fn(e: FloatArray) -> tuple[FloatArray, FloatArray]:
                res = self.evaluate(e)
                state.update(e=e, res=res)
                with np.errstate(divide="ignore", invalid="ignore"):
                    return np.log(res["alpha"]), res["d_alpha"] / res["alpha"]

            e_star = bracketed_newton(
                fn,
                np.log(target),
                ge[k],
                ge[k + 1],
                increasing=False,
                xtol=1e-13,
                ftol=1e-12,
                check_bracket=False,
            )
            # None (no evaluation yet) compares unequal, as array_equal does.
            if not np.array_equal(cast(Any, state.get("e")), e_star):
                fn(e_star)
            res = state["res"]
            self._require(res["converged"], e_star)
            # First-order correction along the supporting line of slope -e^eps.
            with np.errstate(over="ignore", invalid="ignore"):
                exact = res["beta"] - np.exp(e_star) * (target - res["alpha"])
            out[inner] = np.maximum(out[inner], np.where(np.isfinite(exact), exact, 0))
        return cast(FloatArray, np.clip(out, 0.0, 1.0 - flat))
