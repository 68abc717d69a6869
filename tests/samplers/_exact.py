"""Exact references for random allocation, computed without the code under test.

* Gaussian, one of two steps: the inner expectation over one coordinate is the
  Black-Scholes closed form of a lognormal (call for the remove direction, put
  for the add direction), the outer one an mpmath quadrature at 30 digits.
* Two-point likelihood ratios (randomized response): the average of the
  ratios is a binomial law, enumerated exactly; k of t by enumerating every
  subset of steps.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import mpmath as mp

from tests._tolerances import MP_DPS

Atoms = list[tuple[mp.mpf, mp.mpf]]  # (P-mass, Q-mass) of each outcome


def gaussian_one_of_two(mu: float, eps: float, direction: str) -> mp.mpf:
    r"""delta of random allocation of one of two Gaussian steps (N(0,1) vs
    N(mu,1)): :math:`E[((V_1 + V_2)/2 - c)_+]` (remove) or
    :math:`E[(1 - c(V_1 + V_2)/2)_+]` (add), :math:`V = e^{\mu X - \mu^2/2}`."""
    with mp.workdps(MP_DPS):
        m = mp.mpf(mu)
        c = mp.exp(mp.mpf(eps))

        def call(alpha: mp.mpf, strike: mp.mpf) -> mp.mpf:  # E[(alpha V - K)_+]
            if strike <= 0:
                return alpha - strike
            d1 = (mp.log(alpha / strike) + m * m / 2) / m
            return alpha * mp.ncdf(d1) - strike * mp.ncdf(d1 - m)

        def put(strike: mp.mpf) -> mp.mpf:  # E[(K - V)_+]
            if strike <= 0:
                return mp.mpf(0)
            d1 = (mp.log(1 / strike) + m * m / 2) / m
            return strike * mp.ncdf(-(d1 - m)) - mp.ncdf(-d1)

        def integrand(x: mp.mpf) -> mp.mpf:
            v1 = mp.exp(m * x - m * m / 2)
            if direction == "remove":
                inner = call(mp.mpf(1) / 2, c - v1 / 2)
            else:
                inner = c / 2 * put(2 / c - v1)
            return inner * mp.npdf(x)

        # The integrand has a kink where the strike crosses 0 (v_1 = 2c for
        # remove, 2/c for add): a breakpoint there.
        kink = (mp.log(2 * c if direction == "remove" else 2 / c) + m * m / 2) / m
        pts = sorted({mp.mpf(-8), mp.mpf(0), mp.mpf(8), kink})
        return mp.quad(integrand, [-mp.inf, *pts, mp.inf])


def finite_allocation(
    p_values: Sequence[str], q_values: Sequence[str], t: int, k: int = 1
) -> Atoms:
    r"""Atoms of random allocation of k of t steps of the finite pair with
    PMFs ``p_values``, ``q_values`` (decimal strings, exact): every outcome
    of the t coordinates, with :math:`W = \binom{t}{k}^{-1} \sum_{|S| = k}
    \prod_{i \in S} V_i`, :math:`V = q/p`."""
    with mp.workdps(MP_DPS):
        ps = [mp.mpf(x) for x in p_values]
        vs = [mp.mpf(q) / mp.mpf(p) for p, q in zip(p_values, q_values, strict=True)]
        subsets = list(itertools.combinations(range(t), k))
        atoms: Atoms = []
        for idx in itertools.product(range(len(ps)), repeat=t):
            p = mp.fprod(ps[i] for i in idx)
            w = mp.fsum(mp.fprod(vs[idx[i]] for i in s) for s in subsets)
            atoms.append((p, p * w / len(subsets)))
        return atoms


def two_point_allocation(eps0: float, t: int, k: int = 1) -> Atoms:
    r"""Atoms of random allocation of k of t steps of randomized response
    (:math:`V \in \{e^{-\varepsilon_0}, e^{\varepsilon_0}\}`,
    :math:`P(V = e^{\varepsilon_0}) = 1/(1 + e^{\varepsilon_0})`)."""
    with mp.workdps(MP_DPS):
        e = mp.exp(mp.mpf(eps0))
        p_hi = 1 / (1 + e)
        return finite_allocation(
            [mp.nstr(1 - p_hi, 40), mp.nstr(p_hi, 40)],
            [mp.nstr(p_hi, 40), mp.nstr(1 - p_hi, 40)],
            t,
            k,
        )


def laplace_one_of_two(mu: float, eps: float, direction: str) -> mp.mpf:
    r"""delta of random allocation of one of two Laplace steps (Lap(0,1) vs
    Lap(mu,1)). Under P, :math:`L = -\mu` w.p. 1/2, :math:`L = \mu` w.p.
    :math:`e^{-\mu}/2`, and :math:`L = 2x - \mu` for :math:`x \in (0, \mu)`
    with density :math:`e^{-x}/2`. The inner expectation
    :math:`E[(\alpha V_2 + \beta)_+]` is in closed form (antiderivative
    :math:`\alpha e^{x - \mu}/2 - \beta e^{-x}/2` on the interval where the
    integrand is positive), the outer one an mpmath quadrature."""
    with mp.workdps(MP_DPS):
        m = mp.mpf(mu)
        c = mp.exp(mp.mpf(eps))
        atoms = [(mp.exp(-m), mp.mpf(1) / 2), (mp.exp(m), mp.exp(-m) / 2)]

        def anti(x: mp.mpf, alpha: mp.mpf, beta: mp.mpf) -> mp.mpf:
            return alpha * mp.exp(x - m) / 2 - beta * mp.exp(-x) / 2

        def inner(v1: mp.mpf) -> mp.mpf:
            if direction == "remove":
                alpha, beta = mp.mpf(1) / 2, v1 / 2 - c
            else:
                alpha, beta = -c / 2, 1 - c * v1 / 2
            out = mp.fsum(w * max(alpha * v + beta, 0) for v, w in atoms)
            lo, hi = mp.mpf(0), m
            if alpha * mp.exp(-m) + beta <= 0 and alpha * mp.exp(m) + beta <= 0:
                return out
            if (alpha * mp.exp(-m) + beta) * (alpha * mp.exp(m) + beta) < 0:
                cut = (mp.log(-beta / alpha) + m) / 2
                lo, hi = (cut, hi) if alpha > 0 else (lo, cut)
            return out + anti(hi, alpha, beta) - anti(lo, alpha, beta)

        total = mp.fsum(w * inner(v) for v, w in atoms)
        # Kinks of the inner expectation: the cut crosses the ends of (0, mu).
        kinks = []
        for v2 in (mp.exp(-m), mp.exp(m)):
            v1 = 2 * c - v2 if direction == "remove" else 2 / c - v2
            if v1 > 0:
                x = (mp.log(v1) + m) / 2
                if 0 < x < m:
                    kinks.append(x)
        pts = [mp.mpf(0), *sorted(kinks), m]
        return total + mp.quad(lambda x: inner(mp.exp(2 * x - m)) * mp.exp(-x) / 2, pts)


def compose(atoms: Atoms, n: int) -> Atoms:
    """Atoms of the n-fold product pair."""
    out: Atoms = [(mp.mpf(1), mp.mpf(1))]
    for _ in range(n):
        out = [(p * a, q * b) for p, q in out for a, b in atoms]
    return out


def delta(atoms: Atoms, eps: float, direction: str) -> mp.mpf:
    """Hockey stick of a finite pair: sum (q - e^eps p)_+ (remove) or
    sum (p - e^eps q)_+ (add)."""
    with mp.workdps(MP_DPS):
        c = mp.exp(mp.mpf(eps))
        if direction == "remove":
            return mp.fsum(max(q - c * p, 0) for p, q in atoms)
        return mp.fsum(max(p - c * q, 0) for p, q in atoms)


def both(atoms: Atoms, eps: Sequence[float]) -> list[float]:
    """max over the two directions, as floats."""
    return [float(max(delta(atoms, e, "remove"), delta(atoms, e, "add"))) for e in eps]


def max_coordinate_lower(
    sigma: float, t: int, eps: float, caps: Sequence[float]
) -> mp.mpf:
    r"""A lower bound on the remove direction of one of t Gaussian steps: the
    hockey stick restricted to the sets :math:`\{\max_i x_i > C\}`, i.e.
    :math:`\max_C Q(E_C) - e^\varepsilon P(E_C)` with
    :math:`P(E_C) = 1 - \Phi(C/\sigma)^t`,
    :math:`Q(E_C) = 1 - \Phi((C - 1)/\sigma)\Phi(C/\sigma)^{t-1}` (Chua et
    al. 2024, arXiv 2403.17673, the cube test sets), at 30 digits."""
    with mp.workdps(MP_DPS):
        s = mp.mpf(sigma)
        c = mp.exp(mp.mpf(eps))
        best = mp.mpf(0)
        for cap in caps:
            x = mp.mpf(cap)
            inside = mp.ncdf(x / s) ** (t - 1)
            value = (1 - mp.ncdf((x - 1) / s) * inside) - c * (
                1 - inside * mp.ncdf(x / s)
            )
            best = max(best, value)
        return best
