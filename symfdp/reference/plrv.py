r"""Slow high-precision references for the privacy-loss random variable.

Computed in mpmath from the *definition* of each pair, independently of
:mod:`symfdp.mechanisms` (only ``mu``, ``p``, ``eps``, ``pair`` are read). The
law of :math:`L` under P is a discrete rule at working precision :math:`D`
digits: for Gaussian output the trapezoid rule with :math:`W = \sqrt{2 D \ln 10}
+ 4` and :math:`h = 0.8 \min(\pi\sqrt{2/(D\ln 10)}, 2\pi^2/(\mu D \ln 10))`
(Gaussian-factor and strip errors below :math:`10^{-D}`); for Laplace two atoms
and Gauss–Legendre on :math:`(-\mu, \mu)`; for randomised response two atoms.
Subsampled pairs map values through ``log1p(p*expm1(y))``; remove pairs negate
them with Q-weights. Cumulants from central moments at ``dps + 30`` digits."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import mpmath
from mpmath.calculus.quadrature import GaussLegendre

from symfdp.mechanisms.base import Mechanism

Rule = tuple[list[mpmath.mpf], list[mpmath.mpf]]

#: Extra working digits on top of the requested accuracy.
GUARD_DIGITS = 30


def _kind(mech: Mechanism) -> tuple[str, dict[str, float]]:
    """Identify the pair by class name and read its parameters."""
    name = type(mech).__name__
    if name == "Swapped":
        inner, params = _kind(mech.base)  # type: ignore[attr-defined]  # Swapped.base
        return f"swap:{inner}", params
    if name == "Gaussian":
        return "gaussian", {"mu": mech.mu}  # type: ignore[attr-defined]  # named class
    if name == "Laplace":
        return "laplace", {"mu": mech.mu}  # type: ignore[attr-defined]  # named class
    if name == "PureDP":
        return "pure-dp", {"eps": mech.eps}  # type: ignore[attr-defined]  # named class
    if hasattr(mech, "base") and hasattr(mech, "p") and hasattr(mech, "pair"):
        base_kind, params = _kind(mech.base)
        params = dict(params, p=mech.p)
        pair = "remove" if mech.pair == "remove" else "add"
        return f"sub-{pair}:{base_kind}", params
    raise TypeError(f"no reference for {name}.")


def _gaussian_x_rule(mu: mpmath.mpf, dps: int, t_lo: float, t_hi: float) -> Rule:
    d_ln10 = (dps + 10) * mpmath.log(10)
    h = mpmath.pi * mpmath.sqrt(2 / d_ln10)
    if mu > 0:
        h = min(h, 2 * mpmath.pi**2 / (mu * d_ln10))
        # Negative tilts turn the singularities of log(1-p+pe^y) into poles of
        # order |t|: the error is ~exp(-8 pi^2 / (h^2 |t| mu^2)).
        if t_lo < -1:
            h = min(h, mpmath.pi * mpmath.sqrt(8 / (-t_lo * mu * mu * d_ln10)))
    h *= mpmath.mpf("0.8")
    w_half = mpmath.sqrt(2 * d_ln10) + 4
    lo = -w_half - max(-t_lo, 0) * mu
    hi = mu + w_half + max(t_hi, 1) * mu
    n_lo = int(mpmath.floor(lo / h))
    n_hi = int(mpmath.ceil(hi / h))
    c = h / mpmath.sqrt(2 * mpmath.pi)
    xs = [k * h for k in range(n_lo, n_hi + 1)]
    return xs, [c * mpmath.exp(-x * x / 2) for x in xs]


@functools.lru_cache(maxsize=32)
def _gl_nodes(degree: int, prec: int) -> tuple[tuple[mpmath.mpf, mpmath.mpf], ...]:
    with mpmath.workprec(prec):
        return tuple(GaussLegendre(mpmath.mp).calc_nodes(degree, prec))


def _gl_rule(a: mpmath.mpf, b: mpmath.mpf, degree: int) -> Rule:
    nodes = _gl_nodes(degree, mpmath.mp.prec)
    half = (b - a) / 2
    mid = (a + b) / 2
    return [mid + half * x for x, _ in nodes], [half * w for _, w in nodes]


def _base_rule(
    kind: str, params: dict[str, float], dps: int, t_lo: float, t_hi: float, tail: int
) -> Rule:
    r"""Values and P-weights of the base pair's PLRV law at the current precision.

    ``[t_lo, t_hi]`` is the CGF tilt to resolve; ``tail`` widens the Gaussian
    grid for heavy-tailed moments of subsampled losses (``E[L^k]`` with
    :math:`L \approx p e^{Y}` is tilted by :math:`k\mu`).
    """
    if kind == "gaussian":
        mu = mpmath.mpf(params["mu"])
        xs, ws = _gaussian_x_rule(mu, dps, t_lo, max(t_hi, tail))
        return [mu * x - mu * mu / 2 for x in xs], ws
    if kind == "laplace":
        mu = mpmath.mpf(params["mu"])
        if mu == 0:
            return [mpmath.mpf(0)], [mpmath.mpf(1)]
        # Gauss-Legendre for e^{t l - l/2} on (-mu, mu): n ~ 0.6 D + 0.8 |t| mu.
        need = 0.6 * (dps + 20) + 0.8 * float(mu) * (1 + max(abs(t_lo), abs(t_hi)))
        degree = 6
        while 3 * 2 ** (degree - 1) < need:
            degree += 1
        ls, ws = _gl_rule(-mu, mu, degree)
        dens = [w * mpmath.exp(-(l + mu) / 2) / 4 for l, w in zip(ls, ws, strict=True)]
        return [-mu, *ls, mu], [mpmath.mpf(1) / 2, *dens, mpmath.exp(-mu) / 2]
    if kind == "pure-dp":
        e = mpmath.mpf(params["eps"])
        return [-e, e], [1 / (1 + mpmath.exp(-e)), 1 / (1 + mpmath.exp(e))]
    raise TypeError(f"no reference rule for {kind}.")


def _swap(rule: Rule) -> Rule:
    vals, ws = rule
    return [-v for v in vals], [
        w * mpmath.exp(v) for v, w in zip(vals, ws, strict=True)
    ]


def reference_rule(
    mech: Mechanism, dps: int, t_lo: float = -1.0, t_hi: float = 2.0, tail: int = 2
) -> Rule:
    r"""The PLRV law under P of ``mech`` as ``(values, weights)`` in mpmath.

    Must be called inside ``mpmath.workdps``; ``[t_lo, t_hi]`` is the range of CGF
    arguments the rule must resolve (under P).
    """
    kind, params = _kind(mech)
    swap = kind.startswith("swap:")
    if swap:
        kind = kind[5:]
        t_lo, t_hi = min(t_lo, 1 - t_hi), max(t_hi, 1 - t_lo)
    if kind.startswith("sub-"):
        pair, base_kind = kind[4:].split(":")
        p = mpmath.mpf(params["p"])
        # The tilt of the remove pair (weights e^L, negated values) is covered too.
        lo, hi = min(t_lo, -t_hi) - 1, max(t_hi, -t_lo) + 1
        vals, ws = _base_rule(base_kind, params, dps, lo, hi, tail)
        vals = [mpmath.log1p(p * mpmath.expm1(v)) for v in vals]
        rule: Rule = (vals, ws)
        if pair == "remove":
            rule = _swap(rule)
    else:
        rule = _base_rule(kind, params, dps, t_lo, t_hi, tail)
    return _swap(rule) if swap else rule


def _weights(rule: Rule, under: str) -> list[mpmath.mpf]:
    vals, ws = rule
    if under == "P":
        return ws
    if under == "Q":
        return [w * mpmath.exp(v) for v, w in zip(vals, ws, strict=True)]
    raise ValueError(f"under must be one of 'P', 'Q'. Found {under!r}.")


def cumulants_from_central(
    mean: mpmath.mpf, central: Sequence[mpmath.mpf]
) -> list[mpmath.mpf]:
    r""":math:`\kappa_1 = ` mean and the recursion on central moments ``c_1..c_n``."""
    m = [mpmath.mpf(1), *central]
    m[1] = mpmath.mpf(0)
    order = len(central)
    kap = [mpmath.mpf(0)] * (order + 1)
    for r in range(2, order + 1):
        acc = m[r]
        for k in range(2, r - 1):
            acc -= mpmath.binomial(r - 1, k - 1) * kap[k] * m[r - k]
        kap[r] = acc
    kap[1] = mean
    return kap[1:]


def plrv_cumulants(
    mech: Mechanism, order: int, under: str = "P", dps: int = 30
) -> list[mpmath.mpf]:
    """Cumulants ``kappa_1..kappa_order`` of L under P or Q to ``dps`` digits."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        rule = reference_rule(mech, dps + GUARD_DIGITS, -1.0, 2.0, tail=order + 1)
        vals = rule[0]
        ws = _weights(rule, under)
        tot = mpmath.fsum(ws)
        mean = mpmath.fsum(w * v for w, v in zip(ws, vals, strict=True)) / tot
        dev = [v - mean for v in vals]
        central = []
        pw = list(ws)
        for _ in range(order):
            pw = [a * b for a, b in zip(pw, dev, strict=True)]
            central.append(mpmath.fsum(pw) / tot)
        out = cumulants_from_central(mean, central)
    with mpmath.workdps(dps + 5):
        return [+x for x in out]


def plrv_total_mass(mech: Mechanism, under: str = "P", dps: int = 30) -> mpmath.mpf:
    """``E_P[1]`` or ``E_Q[1] = E_P[e^L]`` of the reference rule (both 1)."""
    with mpmath.workdps(dps + GUARD_DIGITS):
        return mpmath.fsum(_weights(reference_rule(mech, dps + GUARD_DIGITS), under))


def plrv_cgf_function(
    mech: Mechanism,
    under: str = "P",
    dps: int = 30,
    t_range: tuple[float, float] = (-2, 3),
) -> Callable[[mpmath.mpf], mpmath.mpf]:
    r""":math:`t \mapsto K(t) = \log E[e^{tL}]` at the current mpmath precision.

    The rule is built once, at ``dps + 30`` digits, for ``t`` in ``t_range``.
    """
    shift = 0.0 if under == "P" else 1.0
    with mpmath.workdps(dps + GUARD_DIGITS):
        vals, ws = reference_rule(
            mech, dps + GUARD_DIGITS, t_range[0] + shift, t_range[1] + shift
        )

    def k(t: mpmath.mpf) -> mpmath.mpf:
        s = mpmath.mpf(t) + shift
        return mpmath.log(
            mpmath.fsum(w * mpmath.exp(s * v) for v, w in zip(vals, ws, strict=True))
        )

    return k


def plrv_cgf_derivatives(
    mech: Mechanism,
    t: float,
    under: str = "P",
    dps: int = 30,
    *,
    method: str = "direct",
) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    r"""``(K, K', K'')`` at ``t``.

    ``method="direct"``: :math:`K'` and :math:`K''` are the mean and variance of
    the tilted rule :math:`w_i e^{t l_i}` (exact at working precision).
    ``method="diff"``: both by ``mpmath.diff`` (finite differences) of :math:`K`,
    with :math:`K` built at ``2 * dps + 30`` digits so that the differences keep
    ``dps`` digits.
    """
    rng = (min(t, 0) - 1, max(t, 1) + 1)
    if method == "diff":
        k = plrv_cgf_function(mech, under, 2 * dps, rng)
        with mpmath.workdps(2 * dps + GUARD_DIGITS):
            tt = mpmath.mpf(t)
            out = (k(tt), mpmath.diff(k, tt, 1), mpmath.diff(k, tt, 2))
        return out[0], out[1], out[2]
    if method != "direct":
        raise ValueError(f"method must be 'direct' or 'diff'. Found {method!r}.")
    shift = 0.0 if under == "P" else 1.0
    with mpmath.workdps(dps + GUARD_DIGITS):
        vals, ws = reference_rule(
            mech, dps + GUARD_DIGITS, rng[0] + shift, rng[1] + shift
        )
        s = mpmath.mpf(t) + shift
        tw = [w * mpmath.exp(s * v) for v, w in zip(vals, ws, strict=True)]
        tot = mpmath.fsum(tw)
        m1 = mpmath.fsum(a * v for a, v in zip(tw, vals, strict=True)) / tot
        m2 = mpmath.fsum(a * (v - m1) ** 2 for a, v in zip(tw, vals, strict=True)) / tot
        return mpmath.log(tot), m1, m2
