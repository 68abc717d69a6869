"""Minimal NumPy evaluations of the analytic formulas: the floors of bench_analytic.

Each floor evaluates the same formula as the accountant and solves the same root,
with everything that does not depend on the query computed beforehand (the
per-curve set-up, timed separately), and nothing else: no argument checks, no
repairs, no warnings, no error estimate, every pair of the curve in one
vectorised pass.

* :class:`EdgeworthFloor`: the order-``J`` two-sided tail formula (Zheng et al.
  (2020), Lemma 5.1) :math:`\\delta = S_Q(x_Q) - e^\\varepsilon S_P(x_P)`,
  :math:`S = \\Phi(-x) + \\phi(x) R_J(x)`, density :math:`\\phi q_J`, from the
  summed cumulants of every pair (coefficients of :math:`R_J` and :math:`q_J`
  from symfdp's compiled evaluators, and the formula on the accountant's bracket
  grid, in the set-up). ``epsilon``: the grid cell where the formula crosses
  ``d``, then Newton on :math:`\\log\\delta` from the log-linear interpolation
  of the cell's ends (linear where the formula is not positive at its right
  end; bisection only where the formula is not positive at an iterate), until
  the step is below 1e-12 relative; the answer is the maximum over the pairs.
* :class:`SaddlePointFloor`: order 2 for DP-SGD (Alghamdi et al. (2022), CF-S4 to
  CF-S6): :math:`K, K', K''` of the composed loss under Q at ``t`` for both
  pairs by one fixed quadrature rule in ``x`` (the add pair :math:`P = N(0,1)`,
  :math:`Q = (1-p)N(0,1) + pN(\\mu, 1)`, loss :math:`\\ell(x) = \\log(1 - p +
  p e^{\\mu x - \\mu^2/2})`; :math:`K_{add}(t) = n \\log E_P e^{(t+1)\\ell}`,
  :math:`K_{remove}(t) = n\\log E_P e^{-t\\ell}`), :math:`\\varepsilon(t) = K'(t)
  - 1/t - 1/(1+t)` and :math:`\\hat\\delta_2 = e^{K - \\varepsilon t}
  E[e^{t(\\varepsilon - Z)}(1 - e^{\\varepsilon - Z})_+]`, :math:`Z \\sim
  N(K', K'')`, in closed form; ``epsilon``: Newton in :math:`\\log t` from
  ``t = 1`` (steps capped at 1) on :math:`\\log\\hat\\delta_2 = \\log d` with
  the slope :math:`-t\\,\\varepsilon'(t)`; ``delta``: Newton in :math:`t` on
  :math:`\\varepsilon(t) = \\varepsilon`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from symfdp.numeric.compile import evaluator
from symfdp.numeric.edgeworth import correction_polynomial

_C = 1.0 / math.sqrt(2.0 * math.pi)


def _horner(c: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = c[-1] * x
    out += c[-2]
    for ck in c[-3::-1]:
        out *= x
        out += ck
    return out


class EdgeworthFloor:
    """The order-``J`` tail formula of every pair of a composition (Q, P laws)."""

    def __init__(self, cumulants: list[tuple[np.ndarray, np.ndarray]], order: int):
        """``cumulants``: per pair ``(K under Q, K under P)``, at least J + 2 each."""
        rows_m, rows_s, rows_r, rows_q = [], [], [], []
        for k_q, k_p in cumulants:
            for k in (k_q, k_p):
                lams = tuple(
                    float(k[r - 1]) / float(k[1]) ** (r / 2)
                    for r in range(3, order + 3)
                )
                r_poly = correction_polynomial(lams, order)
                kwargs = {f"lambda{i + 3}": v for i, v in enumerate(lams)}
                q_poly = np.atleast_1d(
                    evaluator("edgeworth_pdf_poly_coeffs", order)(**kwargs)
                )
                rows_m.append(float(k[0]))
                rows_s.append(math.sqrt(float(k[1])))
                rows_r.append(r_poly)
                rows_q.append(q_poly)
        deg = max(2, *(len(c) for c in rows_r + rows_q))
        pad = lambda c: np.pad(c, (0, deg - len(c)))  # noqa: E731
        shape = (len(cumulants), 2)
        self.mean = np.array(rows_m).reshape(shape)
        self.sd = np.array(rows_s).reshape(shape)
        self.r = np.stack([pad(c) for c in rows_r]).T.reshape((deg, *shape))
        self.q = np.stack([pad(c) for c in rows_q]).T.reshape((deg, *shape))
        # Per-curve bracket table (as the accountant's check grid): the formula
        # every 1/8 sd from -8 to +40 sd of the Q-law, eps >= 0, per pair.
        steps = np.arange(-64, 321) / 8.0
        grid = np.maximum(self.mean[:, :1] + self.sd[:, :1] * steps, 0.0)
        grid[:, 0] = 0.0
        self.grid = grid
        self.grid_delta = np.stack([self._delta_1d(g, i) for i, g in enumerate(grid)])

    def _delta_1d(self, e: np.ndarray, i: int) -> np.ndarray:
        x = (e[:, None] - self.mean[i]) / self.sd[i]
        phi = _C * np.exp(-0.5 * x * x)
        sf = special.ndtr(-x) + phi * _horner(self.r[:, i], x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return sf[:, 0] - np.exp(e + np.log(sf[:, 1]))

    def _eval(self, e: np.ndarray):
        x = (e[..., None] - self.mean) / self.sd
        phi = _C * np.exp(-0.5 * x * x)
        sf = special.ndtr(-x) + phi * _horner(self.r, x)
        dens = phi * _horner(self.q, x) / self.sd
        return sf, dens

    def delta(self, eps: np.ndarray) -> np.ndarray:
        """max over pairs of the tail formula at every ``eps`` (1-d)."""
        sf, _ = self._eval(np.asarray(eps, np.float64)[:, None])
        return np.max(sf[..., 0] - np.exp(eps[:, None] + np.log(sf[..., 1])), axis=1)

    def epsilon(self, delta: float) -> float:
        log_t = math.log(delta)
        vals = self.grid_delta
        j = (vals > delta).sum(axis=1)  # the profile is non-increasing here
        rows = np.arange(vals.shape[0])
        lo, hi = self.grid[rows, j - 1], self.grid[rows, j]
        with np.errstate(all="ignore"):
            d_lo, d_hi = vals[rows, j - 1], vals[rows, j]
            la, lb = np.log(d_lo), np.log(d_hi)
            frac = np.where(
                d_hi > 0, (la - log_t) / (la - lb), (d_lo - delta) / (d_lo - d_hi)
            )
            e = lo + (hi - lo) * frac
            e = np.where(np.isfinite(e), e, 0.5 * (lo + hi))
            for _ in range(100):
                sf, dens = self._eval(e)
                log_q = np.log(sf[:, 0])
                log_b = e + np.log(sf[:, 1])
                log_v = log_q + np.log1p(-np.exp(log_b - log_q))
                dlog = (
                    np.exp(e + np.log(dens[:, 1]) - log_v)
                    - np.exp(log_b - log_v)
                    - np.exp(np.log(dens[:, 0]) - log_v)
                )
                step = (log_v - log_t) / dlog
                new = e - step
                # The one safeguard: a non-finite step (the formula <= 0) bisects.
                ok = np.isfinite(new)
                lo = np.where(ok & (step < 0), e, lo)
                hi = np.where(ok & (step > 0) | ~ok, e, hi)
                e = np.where(ok, new, 0.5 * (lo + hi))
                if np.all(ok & (np.abs(step) <= 1e-12 * np.abs(e) + 1e-14)):
                    return float(e.max())
        raise RuntimeError("floor Newton did not converge")


class SaddlePointFloor:
    """Order-2 saddle point of n DP-SGD steps (add and remove pairs together)."""

    def __init__(self, sigma: float, p: float, n: int, points: int = 2001):
        mu = 1.0 / sigma
        x = np.linspace(-12.0, 12.0 + 12.0 * mu, points)
        log_w = -0.5 * x * x + math.log(_C * (x[1] - x[0]))
        ell = np.log1p(p * np.expm1(mu * x - 0.5 * mu * mu))
        self.n = n
        self.ell = ell
        self.log_w = log_w
        # add pair: exponent (t + 1) ell; remove pair: exponent -t ell.
        self.slope = np.array([[1.0], [-1.0]])
        self.shift = np.array([[1.0], [0.0]])

    def cgf(self, t: np.ndarray):
        """(K, K', K'') of the composed loss under Q for both pairs at t (2,)."""
        a = (t[:, None] + self.shift) * self.slope
        z = self.log_w + a * self.ell
        top = z.max(axis=1, keepdims=True)
        w = np.exp(z - top)
        total = w.sum(axis=1)
        k0 = top[:, 0] + np.log(total)
        lv = self.slope * self.ell
        m1 = (w * lv).sum(axis=1) / total
        m2 = (w * (lv - m1[:, None]) ** 2).sum(axis=1) / total
        return self.n * k0, self.n * m1, self.n * m2

    @staticmethod
    def _log_delta2(t, eps, k0, k1, k2):
        a = eps - k1
        sv = np.sqrt(k2)
        s1 = t + 1.0
        la = t * a + 0.5 * t * t * k2 + special.log_ndtr(-(a + t * k2) / sv)
        lb = s1 * a + 0.5 * s1 * s1 * k2 + special.log_ndtr(-(a + s1 * k2) / sv)
        return k0 - eps * t + la + np.log1p(-np.exp(lb - la))

    def epsilon(self, delta: float) -> float:
        log_d = math.log(delta)
        u = np.zeros(2)  # log t
        for _ in range(100):
            t = np.exp(u)
            k0, k1, k2 = self.cgf(t)
            eps = k1 - 1.0 / t - 1.0 / (1.0 + t)
            g = self._log_delta2(t, eps, k0, k1, k2) - log_d
            d_eps = k2 + 1.0 / t**2 + 1.0 / (1.0 + t) ** 2
            # Damped: at most a factor e in t per step (the slope is the
            # saddle-point approximation d log delta / d eps = -t).
            step = np.clip(g / (-t * d_eps * t), -1.0, 1.0)
            u = u - step
            if np.all(np.abs(step) <= 1e-10):
                return float(eps.max())
        raise RuntimeError("floor Newton did not converge")

    def delta(self, eps: np.ndarray) -> np.ndarray:
        e = np.asarray(eps, np.float64)[None, :] * np.ones((2, 1))
        t = np.ones(e.shape)
        for _ in range(100):
            k0, k1, k2 = self.cgf_grid(t)
            g = k1 - 1.0 / t - 1.0 / (1.0 + t) - e
            step = g / (k2 + 1.0 / t**2 + 1.0 / (1.0 + t) ** 2)
            t = np.maximum(t - step, 0.5 * t)
            if np.all(np.abs(step) <= 1e-10 * t):
                break
        k0, k1, k2 = self.cgf_grid(t)
        return np.exp(self._log_delta2(t, e, k0, k1, k2)).max(axis=0)

    def cgf_grid(self, t: np.ndarray):
        """(K, K', K'') at t of shape (2, m) (pair, point)."""
        a = (t + self.shift) * self.slope  # (2, m)
        z = self.log_w + a[..., None] * self.ell  # (2, m, N)
        top = z.max(axis=2, keepdims=True)
        w = np.exp(z - top)
        total = w.sum(axis=2)
        lv = self.slope[..., None] * self.ell
        m1 = (w * lv).sum(axis=2) / total
        m2 = (w * lv * lv).sum(axis=2) / total - m1 * m1
        return self.n * (top[..., 0] + np.log(total)), self.n * m1, self.n * m2
