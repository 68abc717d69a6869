"""Independent 30-digit references for the risk measures (mpmath closed forms)."""

from __future__ import annotations

import mpmath as mp

from tests._tolerances import MP_DPS

mp.mp.dps = MP_DPS


def gauss_tpr(mu: float, alpha: float) -> mp.mpf:
    """1 - G_mu(alpha) = Phi(Phi^{-1}(alpha) + mu) (Dong et al. 2019, eq. (6))."""
    z = mp.sqrt(2) * mp.erfinv(2 * mp.mpf(alpha) - 1)
    return mp.ncdf(z + mu)


def gauss_tradeoff(mu: float, alpha: mp.mpf) -> mp.mpf:
    return 1 - gauss_tpr(mu, alpha)


def gauss_delta(mu: float, eps: mp.mpf) -> mp.mpf:
    """Dong et al. (2019), Cor. 2.13."""
    mu = mp.mpf(mu)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def laplace_tradeoff(mu: float, alpha: mp.mpf) -> mp.mpf:
    """T(Lap(0,1), Lap(mu,1)) (Dong et al. 2019, Sec. 2.2), alpha <= 1/2 branch
    and its mirror image."""
    a, m = mp.mpf(alpha), mp.mpf(mu)
    if a < mp.exp(-m) / 2:
        return 1 - mp.exp(m) * a
    if a <= mp.mpf(1) / 2:
        return mp.exp(-m) / (4 * a)
    return mp.exp(-m) * (1 - a)


def laplace_delta(mu: float, eps: mp.mpf) -> mp.mpf:
    """delta(eps) of the Laplace pair for |eps| <= mu: 1 - e^{(eps - mu)/2} for
    eps >= 0 and 1 - e^eps (1 - delta(-eps)) below (Dong et al. 2019, Sec. 2.2)."""
    m, e = mp.mpf(mu), mp.mpf(eps)
    if e >= 0:
        return 1 - mp.exp((e - m) / 2)
    return 1 - mp.exp(e) * mp.exp((-e - m) / 2)


def maximise(
    fn, lo: float, hi: float, points: int = 400, sections: int = 100
) -> mp.mpf:
    """max of a unimodal ``fn`` on [lo, hi] in log space: a scan, then golden
    sections on the best bracket (to ~1e-20 in the argument)."""
    lo_l, hi_l = mp.log(lo), mp.log(hi)
    xs = [lo_l + (hi_l - lo_l) * k / points for k in range(points + 1)]
    vals = [fn(mp.exp(x)) for x in xs]
    k = max(range(len(vals)), key=lambda i: vals[i])
    a, b = xs[max(k - 1, 0)], xs[min(k + 1, points)]
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(sections):
        c, d = b - g * (b - a), a + g * (b - a)
        if fn(mp.exp(c)) > fn(mp.exp(d)):
            b = d
        else:
            a = c
    return max(fn(mp.exp((a + b) / 2)), vals[k])


def gdp_mu_of(tradeoff, lo: float = 1e-10) -> mp.mpf:
    """sup over alpha in [lo, 1/2] of Phi^{-1}(1-alpha) + Phi^{-1}(1 - f(alpha))."""

    def isf(p: mp.mpf) -> mp.mpf:
        return -mp.sqrt(2) * mp.erfinv(2 * p - 1)

    return maximise(lambda a: isf(a) + isf(tradeoff(a)), lo, 0.5)


def divergence(f, g, lo: float = 1e-12, hi: float = 0.999) -> mp.mpf:
    """Delta(f || g) = sup over alpha of the smallest kappa with f(alpha + kappa)
    - kappa <= g(alpha), by mpmath root finding per alpha."""

    def kappa(a: mp.mpf) -> mp.mpf:
        level = g(a)
        if f(a) <= level:
            return mp.mpf(0)
        lo_k, hi_k = mp.mpf(0), 1 - a  # f(a + k) - k decreases in k
        for _ in range(64):  # to 1e-19 of the unit interval
            mid = (lo_k + hi_k) / 2
            if f(a + mid) - mid > level:
                lo_k = mid
            else:
                hi_k = mid
        return (lo_k + hi_k) / 2

    return maximise(kappa, lo, hi, points=48, sections=48)


def gauss_divergence(a: float, b: float) -> mp.mpf:
    """Delta(G_a || G_b) in the quantile parametrisation: the point (Phi(-t),
    Phi(t - b)) of G_b moves along the diagonal to (Phi(-s), Phi(s - a)) on G_a,
    Phi(-s) - Phi(-t) = Phi(s - a) - Phi(t - b); ncdf only (no erfinv)."""
    a, b = mp.mpf(a), mp.mpf(b)

    def kappa(t: mp.mpf) -> mp.mpf:
        level = mp.ncdf(t - b) - mp.ncdf(-t)

        def gap(s: mp.mpf) -> mp.mpf:  # increases as s decreases
            return mp.ncdf(s - a) - mp.ncdf(-s) - level

        if gap(t) <= 0:
            return mp.mpf(0)
        lo, hi = t - 40, t  # gap(lo) < 0 <= gap(hi)
        for _ in range(60):  # s to 4e-17
            mid = (lo + hi) / 2
            if gap(mid) > 0:
                hi = mid
            else:
                lo = mid
        return mp.ncdf(-(lo + hi) / 2) - mp.ncdf(-t)

    ts = [mp.mpf(-8) + 16 * mp.mpf(k) / 40 for k in range(41)]
    vals = [kappa(t) for t in ts]
    k = max(range(len(vals)), key=lambda i: vals[i])
    lo, hi = ts[max(k - 1, 0)], ts[min(k + 1, 40)]
    g = (mp.sqrt(5) - 1) / 2
    for _ in range(40):  # t to 1e-8: kappa is flat at its maximum
        c, d = hi - g * (hi - lo), lo + g * (hi - lo)
        if kappa(c) > kappa(d):
            hi = d
        else:
            lo = c
    return max(kappa((lo + hi) / 2), vals[k])
