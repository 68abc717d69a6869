r"""Hockey-stick divergence :math:`\delta(\varepsilon) = \int (q - e^\varepsilon p)_+`
by mpmath quadrature (Zheng et al. 2020, Lemma 5.1), for tests and experiments.

Each pair is integrated over its output space with ``mpmath.quad`` (tanh-sinh),
split at the kinks of the integrand: the point where :math:`L(x) = \varepsilon`
(found in closed form from the monotone structure of :math:`L`) and, for the
Laplace family, the points :math:`0` and :math:`\mu`. Randomised response is a
finite sum. Independent of :mod:`symfdp.mechanisms` except for the parameters.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath

from symfdp.mechanisms.base import Mechanism
from symfdp.reference.plrv import GUARD_DIGITS, _kind

Density = Callable[[mpmath.mpf], mpmath.mpf]


def _phi(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)


def _lap(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(-abs(x)) / 2


def _ell_inverse(s: mpmath.mpf, p: mpmath.mpf) -> mpmath.mpf | None:
    """``y`` with ``log(1 - p + p e^y) = s``, or None when ``s <= log(1-p)``."""
    arg = mpmath.expm1(s) + p
    if arg <= 0:
        return None
    return mpmath.log(arg / p)


def _pair(
    kind: str, params: dict[str, float]
) -> tuple[Density, Density, str, mpmath.mpf, mpmath.mpf | None]:
    """``(p, q, family, mu, sampling p)`` of the *add* version of the pair."""
    sub = kind.startswith("sub-")
    base = kind.split(":")[1] if sub else kind
    mu = mpmath.mpf(params["mu"])
    samp = mpmath.mpf(params["p"]) if sub else None
    if base == "gaussian":
        dens, fam = _phi, "gaussian"
    elif base == "laplace":
        dens, fam = _lap, "laplace"
    else:
        raise TypeError(f"no profile reference for {kind}.")

    def p_(x: mpmath.mpf) -> mpmath.mpf:
        return dens(x)

    def q_(x: mpmath.mpf) -> mpmath.mpf:
        shifted = dens(x - mu)
        return shifted if samp is None else (1 - samp) * dens(x) + samp * shifted

    return p_, q_, fam, mu, samp


def privacy_profile(mech: Mechanism, eps: float, dps: int = 30) -> mpmath.mpf:
    r""":math:`\delta(\varepsilon)` of the single pair ``mech`` (``pair="add"`` or
    ``"remove"``, or a base pair, or a ``Swapped`` one) to ``dps`` digits."""
    kind, params = _kind(mech)
    with mpmath.workdps(dps + GUARD_DIGITS):
        e = mpmath.mpf(eps)
        swap = kind.startswith("swap:")
        if swap:
            kind = kind[5:]
        if kind.startswith("sub-remove"):
            swap = not swap
            kind = "sub-add" + kind[len("sub-remove") :]
        if kind == "pure-dp":
            ee = mpmath.mpf(params["eps"])
            ps = [1 / (1 + mpmath.exp(-ee)), 1 / (1 + mpmath.exp(ee))]
            qs = list(reversed(ps))
            if swap:
                ps, qs = qs, ps
            terms = (max(q - mpmath.exp(e) * p, 0) for p, q in zip(ps, qs, strict=True))
            return +mpmath.fsum(terms)
        p_, q_, fam, mu, samp = _pair(kind, params)
        if swap:
            p_, q_ = q_, p_
        # The kink: L(x) = +eps (add) or L(x) = -eps (swapped), L = ell(L_b(x)).
        target = -e if swap else e
        y = target if samp is None else _ell_inverse(target, samp)
        points: list[mpmath.mpf] = [mpmath.mpf("-inf")]
        if fam == "laplace":
            points += [mpmath.mpf(0), mu]
            if y is not None and -mu < y < mu:
                points.append((y + mu) / 2)
        elif y is not None and mu > 0:
            points.append((y + mu * mu / 2) / mu)
        points = [*sorted(set(points)), mpmath.mpf("inf")]

        def integrand(x: mpmath.mpf) -> mpmath.mpf:
            return max(q_(x) - mpmath.exp(e) * p_(x), 0)

        return +mpmath.quad(integrand, points)
