r"""Saddle-point estimates at given saddle points, and their CF-S7 error bound.

The closed forms of :math:`\hat\delta_1` (CF-S5) and of the two Gaussian terms of
:math:`\hat\delta_2` (CF-S6) are derived in :mod:`symfdp.symbolic.saddlepoint` and
compiled here, with the CF-S7 bound and the validity check (mathematics and repairs
in :mod:`symfdp.accountants.saddlepoint`). Values at the saddle points come as a
:class:`~symfdp.accountants.saddlepoint.records.SaddleValues` record ``vals``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast

import numpy as np
from scipy import special

from symfdp.accountants.base import Components
from symfdp.accountants.saddlepoint.records import SaddleValues
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.numeric.compile import _evaluator, register_derivation

_DEPS: Final = ("symfdp.symbolic.saddlepoint", "symfdp.symbolic.symbols")
#: Validity threshold on the tilted skewness |K'''(t)|/K''(t)^{3/2}.
SKEWNESS_MAX: Final = 1.0


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


@functools.cache
def _compiled(name: str) -> Any:
    """The order-0 evaluator ``name`` (looked up once per process)."""
    return _evaluator(name, 0)


def _direct(name: str, **values: FloatArray) -> Any:
    """The compiled function of evaluator ``name`` (order 0) called on checked
    ``values`` (a vector evaluator returns a list of arrays)."""
    ev = _compiled(name)
    args = [values[a] for a in ev.args]
    shape = np.shape(args[0])
    if any(np.shape(a) != shape for a in args):
        shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    out = ev.fn(*args)

    def full(o: Any) -> FloatArray:
        if isinstance(o, np.ndarray) and o.shape == shape and o.dtype == np.float64:
            return o
        return np.broadcast_to(np.asarray(o, dtype=np.float64), shape)

    if ev.n_outputs is None:
        return full(out)
    return [full(o) for o in out]


def log_delta1(K: FloatArray, eps: FloatArray, t: FloatArray, v: FloatArray) -> Any:
    r""":math:`\log\hat\delta_1` (CF-S5), compiled."""
    return _direct("saddlepoint_log_delta1", K=K, eps=eps, t=t, v=v)


def delta2_log_terms(
    side: str,
    K: FloatArray,
    eps: FloatArray,
    t: FloatArray,
    m: FloatArray,
    v: FloatArray,
) -> Any:
    r"""The logs of the two Gaussian terms whose difference is
    :math:`\hat\delta_2` (CF-S6) on ``side``, compiled (a pair of arrays)."""
    return _direct(f"saddlepoint_delta2_log_terms_{side}", K=K, eps=eps, t=t, m=m, v=v)


# ----------------------------------------------------------------- kernels
def log_kernel_max(s: FloatArray) -> FloatArray:
    r""":math:`\log[(s/(1+s))^s/(1+s)] = s\log s - (1+s)\log(1+s)`."""
    return s * np.log(s) - (1.0 + s) * np.log1p(s)


#: Python floats (the one-point path) or arrays.
_Real = TypeVar("_Real", float, FloatArray)


def log_delta_slope(s: _Real, v: _Real, v3: _Real) -> _Real:
    r""":math:`d\log\hat\delta_1/ds = 1/s + 1/(1+s) - sF''(s) - Q'/(2Q)` along the
    upper saddle points, :math:`Q = s^2(1+s)^2K'' + s^2 + (1+s)^2`, ``v3`` =
    :math:`K'''`; plain arithmetic, for floats or arrays."""
    a = s * (1.0 + s)
    q = a * a * v + s * s + (1.0 + s) ** 2
    dq = 2 * a * (1 + 2 * s) * v + a * a * v3 + 4 * s + 2
    curv = v + 1.0 / s**2 + 1.0 / (1.0 + s) ** 2
    return 1.0 / s + 1.0 / (1.0 + s) - s * curv - 0.5 * dq / q


_SQRT_HALF_PI: Final = float(np.sqrt(np.pi / 2.0))
_SQRT2: Final = float(np.sqrt(2.0))


def log_delta2_slope(s: FloatArray, v: FloatArray, v3: FloatArray) -> FloatArray:
    r""":math:`d\log\hat\delta_2/ds` along the upper saddle points, exact for
    CF-S6: :math:`((\log A)' - r(\log B)')/(1 - r)`, :math:`r = B/A`, for the two
    Gaussian terms :math:`\hat\delta_2 = A - B`, :math:`\log A = K - sK' + s^2v/2
    + \log\Phi(z_a)`, :math:`\log B = K - sK' - q + (1+s)^2v/2 + \log\Phi(z_b)`,
    :math:`q = 1/s + 1/(1+s)`, :math:`z_a = (q - sv)/\sqrt v`, :math:`z_b = (q -
    (1+s)v)/\sqrt v`; :func:`log_delta_slope` where
    :math:`r` is within 1e-8 of 1 or the value is not finite.
    """
    # phi(z) / Phi(z) = 1 / R(-z), R(w) = sqrt(pi/2) erfcx(w / sqrt 2).
    c, sq2 = _SQRT_HALF_PI, _SQRT2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sv = np.sqrt(v)
        q = 1.0 / s + 1.0 / (1.0 + s)
        dq = -1.0 / s**2 - 1.0 / (1.0 + s) ** 2
        b = 1.0 + s
        za = (q - s * v) / sv
        zb = (q - b * v) / sv
        dza = (dq - v - s * v3) / sv - za * v3 / (2.0 * v)
        dzb = (dq - v - b * v3) / sv - zb * v3 / (2.0 * v)
        dla = 0.5 * s * s * v3 + dza / (c * special.erfcx(-za / sq2))
        dlb = v - dq + 0.5 * b * b * v3 + dzb / (c * special.erfcx(-zb / sq2))
        gap = -q + 0.5 * (2.0 * s + 1.0) * v + special.log_ndtr(zb)
        gap = gap - special.log_ndtr(za)
        r = np.exp(gap)
        out = (dla - r * dlb) / (1.0 - r)
        fine = np.isfinite(out) & (gap < -1e-8)
        if fine.all():
            return cast(FloatArray, out)
        return np.where(fine, out, log_delta_slope(s, v, v3))


# ----------------------------------------------------------------- estimates
@dataclass(frozen=True)
class IntegralRepairs:
    """What :func:`log_integrals` repaired (the pair curve decides how to warn).

    Chernoff caps (saddle points beyond the searched range, estimates above the
    bound) are not listed: the pair reports them through its error estimate.

    Attributes:
        terms_lost: The two Gaussian terms of delta_hat_2 cancelled to 8 digits;
            delta_hat_1 was used (order 2 only).
    """

    terms_lost: bool


def log_integrals(
    vals: SaddleValues, side: str, capped: Any, order: int
) -> tuple[FloatArray, FloatArray, FloatArray, IntegralRepairs]:
    r"""``(log I_1, log I_2, log C, repairs)``: the two approximations of the
    contour integral and the Chernoff bound, repaired as in
    :mod:`symfdp.accountants.saddlepoint` (``order``: whose repairs are reported)."""
    kk, eps, t, m, v, s = vals.K, vals.eps, vals.t, vals.m, vals.v, vals.s
    log_c = kk - eps * t + log_kernel_max(s)
    # A tilted variance of 0 (point mass) takes the Chernoff bound, as capped ones.
    capped = np.asarray(capped, dtype=bool) | ~(v > 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log1 = log_delta1(kk, eps, t, v)
        la, lb = delta2_log_terms(side, kk, eps, t, m, v)
        gap = lb - la
        lost = ~(gap < -1e-8)
        log2 = np.where(lost, log1, la + np.log(-np.expm1(np.where(lost, -1.0, gap))))
    over1 = (log1 > log_c + 1e-12) & ~capped
    over2 = (log2 > log_c + 1e-12) & ~capped
    repairs = IntegralRepairs(
        terms_lost=order == 2 and bool((lost & ~capped).any()),
    )
    log1 = np.where(capped | over1, log_c, log1)
    log2 = np.where(capped | over2, log_c, log2)
    return log1, log2, log_c, repairs


# ----------------------------------------------------------------- error bound
def third_abs_moment(
    components: Components, t: Any
) -> tuple[FloatArray, list[Mechanism]]:
    r"""``(P_t, unresolved)``: :math:`P_t = \sum_i n_i E|\tilde L_i -
    E\tilde L_i|^3` under the tilted laws :math:`\propto e^{tl}\,dQ_{L_i}(l)`
    (CF-S7), from each mechanism's
    :meth:`~symfdp.mechanisms.Mechanism.tilted_abs_moment3`, and the mechanisms
    whose rule's tilted mean misses :math:`K_i'(t)` by :math:`10^{-6}` sd (their
    term is approximate)."""
    tt = np.asarray(t, dtype=np.float64).reshape(-1)
    total = np.zeros(tt.shape)
    unresolved: list[Mechanism] = []
    level = np.floor(np.log(1.0 + np.abs(tt)) / np.log(4.0))
    level = np.where(level < 3, 0, level)
    for lv in np.unique(level):
        idx = np.flatnonzero(level == lv)
        for m, n in components:
            mean, m3 = m.tilted_abs_moment3(tt[idx], "Q")
            total[idx] += n * np.asarray(m3, dtype=np.float64)
            _, k1, k2 = m.cgf_derivatives(tt[idx], "Q")
            sd = np.sqrt(np.maximum(np.asarray(k2, dtype=np.float64), 0.0))
            if np.any(np.abs(np.asarray(mean) - k1) > 1e-6 * sd + 1e-12):
                unresolved.append(m)
    return cast(FloatArray, total.reshape(np.shape(t))), unresolved


def log_error_bound(vals: SaddleValues, p3: FloatArray) -> FloatArray:
    r"""Log of the CF-S7 bound as printed (constant 1):
    :math:`K(t) - \varepsilon t + s\log(s/(1+s)) + \log P_t - \tfrac32\log K''`,
    with :math:`s = t` (upper side) or :math:`-1 - t` (lower side)."""
    kk, ee, t, v, s = vals.K, vals.eps, vals.t, vals.v, vals.s
    with np.errstate(divide="ignore"):
        return cast(
            FloatArray,
            kk - ee * t + s * (np.log(s) - np.log1p(s)) + np.log(p3) - 1.5 * np.log(v),
        )


# ----------------------------------------------------------------- validity
def skewness(vals: SaddleValues) -> FloatArray:
    r""":math:`|\lambda_3| = |K'''(t)|/K''(t)^{3/2}`, the skewness of the tilted
    loss sum (the law :math:`\propto e^{tl}\,dQ_L(l)`) at the saddle points."""
    k3 = cast(FloatArray, vals.k3)  # computed at the points passed here
    with np.errstate(divide="ignore", invalid="ignore"):
        lam3 = np.abs(k3) / vals.v**1.5
    return np.where(np.isfinite(lam3), lam3, 0.0)
