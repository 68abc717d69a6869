r"""Hockey-stick divergence :math:`\delta(\varepsilon) = \int (q - e^\varepsilon p)_+`
by mpmath quadrature (Zheng et al. 2020, Lemma 5.1), for tests and experiments.

Each pair is integrated over its output space with ``mpmath.quad`` (tanh-sinh),
the integrand scaled to O(1) (``quad`` stops on an absolute error estimate, which
would accept a wrong deep-tail value such as 1e-91), split at the kinks of the
integrand: the point where :math:`L(x) = \varepsilon`
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
            tol = mpmath.mpf(10) ** (-(dps + GUARD_DIGITS) + 5)
            diffs = [q - mpmath.exp(e) * p for p, q in zip(ps, qs, strict=True)]
            return +mpmath.fsum(d for d in diffs if d > tol)
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
        # Far in a Gaussian tail the integrand decays on the scale 1/|x|: extra
        # breakpoints around the kink keep tanh-sinh on that scale, and the bulk
        # of both densities gets breakpoints too.
        kinks = [x for x in points[1:] if mpmath.isfinite(x)]
        extra = [mpmath.mpf(c) for c in (-8, -4, -2, 0, 2, 4, 8)]
        extra += [mu + c for c in (-2, 2, 4, 8)]
        for x0 in kinks:
            scale = 1 / max(abs(x0), 1)
            extra += [x0 + sg * c * scale for c in (0.25, 1, 4, 16) for sg in (1, -1)]
        points = [*sorted(set(points + extra)), mpmath.mpf("inf")]

        noise = mpmath.mpf(10) ** (-(dps + GUARD_DIGITS) + 5)

        def raw(x: mpmath.mpf) -> mpmath.mpf:
            # Differences at the rounding level of q + e^eps p are exact zeros
            # (e.g. Laplace beyond mu at eps = mu).
            a, b = q_(x), mpmath.exp(e) * p_(x)
            return a - b if a - b > noise * (a + b) else mpmath.mpf(0)

        # mpmath.quad stops on an *absolute* error estimate, so the integrand is
        # scaled to O(1) where it is positive (deep-tail deltas are ~1e-90).
        finite = [x for x in points if mpmath.isfinite(x)]
        scale = max(raw(x) for x in finite)
        if scale == 0:
            scale = max(q_(x) + mpmath.exp(e) * p_(x) for x in (kinks or finite))

        def integrand(x: mpmath.mpf) -> mpmath.mpf:
            return raw(x) / scale

        val, err = mpmath.quad(integrand, points, error=True)
        val, err = val * scale, err * scale
        if val != 0 and err > mpmath.mpf(10) ** (-dps - 5) * abs(
            val
        ):  # pragma: no cover
            raise ArithmeticError(
                f"profile quadrature did not converge ({err} vs {val})."
            )
        return +val
