r"""Saddle-point estimates of order :math:`J \ge 3`: the tilted Edgeworth terms.

:math:`\hat\delta_2` (CF-S6) replaces the tilted loss :math:`Z` (the law
:math:`\propto e^{t_*l}\,dQ_L(l)`, mean :math:`m = K'(t_*)`, variance
:math:`v = K''(t_*)`) by :math:`N(m, v)` in

.. math::  \delta = e^{K(t_*) - \varepsilon t_*}\,E[e^{t_*(\varepsilon - Z)}
           (1 - e^{\varepsilon - Z})_+].

Order :math:`J` uses its Edgeworth law: :math:`X = (Z - m)/\sqrt v` has density
:math:`\phi(x)(1 + \sum_{j=1}^{J-2}\sum_k c_{jk}(\lambda)He_k(x))` in
:math:`\lambda_r = K^{(r)}(t_*)/K''(t_*)^{r/2}`, ``r = 3..J`` (term ``j`` of
:math:`K''^{-j/2}`, :mod:`symfdp.symbolic.edgeworth`); each Hermite term integrates
in closed form (:func:`symfdp.symbolic.saddlepoint.kernel_hermite_moment_expr`):

.. math::  \hat\delta_J = e^{K - \varepsilon t_*}\phi(c)\Big(D_0 +
           \sum_{j=1}^{J-2}\sum_k c_{jk}D_k\Big), \qquad c = (\varepsilon -
           m)/\sqrt v,

with :math:`D_k = G_k(t_*\sqrt v) - G_k((t_*+1)\sqrt v)` (upper side; swapped on
the lower), :math:`G_k`, :math:`c_{jk}` derived by SymPy and compiled
(:mod:`symfdp.numeric.compile`), :math:`R(w) = \Phi(-w)/\phi(w)` the Mills ratio.

Accuracy: asymptotic in :math:`K''^{-1/2}`, not convergent (large
:math:`|\lambda_3|`: the orders oscillate). Beyond ``W_SWITCH`` the closed form of
:math:`G_k` would lose :math:`k\log_{10}(t_*\sqrt v)` digits, so :math:`D_k` is
summed from :math:`M_i(w) = \int_0^\infty u^ie^{-wu-u^2/2}du` (Gauss–Laguerre).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, Final, cast

import numpy as np
from numpy.typing import NDArray
from scipy import special

from symfdp.accountants.saddlepoint.records import SaddleValues
from symfdp.accountants.saddlepoint.tilted import standardised
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.compile import _evaluator, register_derivation

_DEPS: Final = (
    "symfdp.symbolic.saddlepoint",
    "symfdp.symbolic.edgeworth",
    "symfdp.symbolic.hermite",
    "symfdp.symbolic.symbols",
)
#: Largest order accepted by ``SaddlePoint(order=...)`` (the error estimate
#: evaluates three more).
MAX_ORDER: Final = 16
_LOG_SQRT_2PI: Final = 0.5 * math.log(2.0 * math.pi)


def _build_kernel_hermite(side: str) -> Any:
    def build(order: int) -> tuple[Any, tuple[Any, ...]]:
        import sympy as sp

        from symfdp.symbolic import saddlepoint as S

        terms = [S.kernel_hermite_moment_expr(k, side) for k in range(order + 1)]
        return sp.Tuple(*terms), (S.hb, S.hw, S.mills)

    build.__qualname__ = f"_build_kernel_hermite_{side}"
    return build


def _build_coefficients(order: int) -> tuple[Any, tuple[Any, ...]]:
    import sympy as sp

    from symfdp.symbolic import saddlepoint as S
    from symfdp.symbolic.symbols import lambdas

    if order < 3:
        raise ValueError(
            f"tilted Edgeworth coefficients need order >= 3. Found {order}."
        )
    rows = S.tilted_edgeworth_coefficients(order)
    flat = [c for row in rows for c in row]
    return sp.Tuple(*flat), lambdas(order - 2)


_build_kernel_hermite_upper = _build_kernel_hermite("upper")
_build_kernel_hermite_lower = _build_kernel_hermite("lower")
register_derivation(
    "saddlepoint_kernel_hermite_upper", _build_kernel_hermite_upper, depends=_DEPS
)
register_derivation(
    "saddlepoint_kernel_hermite_lower", _build_kernel_hermite_lower, depends=_DEPS
)
register_derivation(
    "saddlepoint_tilted_edgeworth_coeffs", _build_coefficients, depends=_DEPS
)


def mills_ratio(w: FloatArray) -> FloatArray:
    r""":math:`R(w) = \Phi(-w)/\phi(w) = \sqrt{\pi/2}\,\mathrm{erfcx}(w/\sqrt2)`."""
    return cast(
        FloatArray, math.sqrt(math.pi / 2.0) * special.erfcx(w / math.sqrt(2.0))
    )


#: Gauss–Laguerre rule for the truncated-Gaussian moments M_i(w), w >= W_SWITCH.
_GL_NODES, _GL_WEIGHTS = np.polynomial.laguerre.laggauss(80)
#: Above this truncation point the Hermite moments are summed from M_i(w).
W_SWITCH: Final = 2.0


def truncated_moments(w: FloatArray, kmax: int) -> FloatArray:
    r""":math:`M_i(w) = \int_0^\infty u^i e^{-wu - u^2/2}du`, ``i = 0..kmax``, for
    :math:`w \ge` ``W_SWITCH``, by an 80-point Gauss–Laguerre rule in
    :math:`z = wu`. Shape ``(kmax + 1,) + w.shape``."""
    z = _GL_NODES[:, None]
    g = _GL_WEIGHTS[:, None] * np.exp(-0.5 * (z / w[None, :]) ** 2)
    scale = w[None, :] ** -np.arange(1, kmax + 2)[:, None]
    # einsum, not a BLAS product: a threaded GEMM of this shape stalls under load.
    return cast(FloatArray, np.einsum("ij,jn->in", _laguerre_powers(kmax), g) * scale)


@functools.cache
def _laguerre_powers(kmax: int) -> FloatArray:
    """``z_j^i`` for the Gauss–Laguerre nodes, ``i = 0..kmax`` (rows)."""
    return _GL_NODES[None, :] ** np.arange(kmax + 1)[:, None]


def hermite_values(c: FloatArray, kmax: int) -> FloatArray:
    """``He_0(c) .. He_kmax(c)`` by the three-term recurrence."""
    out = np.empty((kmax + 1, c.size))
    out[0] = 1.0
    if kmax >= 1:
        out[1] = c
    for k in range(1, kmax):
        out[k + 1] = c * out[k] - k * out[k - 1]
    return out


def _moment_differences(
    side: str, c: FloatArray, w1: FloatArray, w2: FloatArray, kmax: int
) -> FloatArray:
    r""":math:`D_k` for ``k = 0..kmax`` from the truncated moments: with
    :math:`u = x - c`, :math:`G_k^+ = \sum_i\binom{k}{i}He_{k-i}(c)M_i(w)` and
    :math:`G_k^- = \sum_i\binom{k}{i}He_{k-i}(c)(-1)^iM_i(-w)` (Appell
    property), a sum without cancellation for large :math:`|w|`."""
    sg = 1.0 if side == "upper" else -1.0
    both = truncated_moments(sg * np.concatenate((w1, w2)), kmax)
    m1, m2 = both[:, : w1.size], both[:, w1.size :]
    dm = (m1 - m2) if side == "upper" else (m2 - m1)
    dm = dm * (sg ** np.arange(kmax + 1))[:, None]
    he = hermite_values(c, kmax)
    binom, shift = _appell_tables(kmax)
    # out[k] = sum_i binom[k, i] He_{k-i}(c) dm[i]; He_{-1} := 0 pads i > k.
    he_pad = np.concatenate((he, np.zeros((1, c.size))))
    return cast(FloatArray, np.einsum("ki,kin,in->kn", binom, he_pad[shift], dm))


@functools.cache
def _appell_tables(kmax: int) -> tuple[FloatArray, Any]:
    """``binom[k, i] = C(k, i)`` (0 for i > k) and ``shift[k, i] = k - i``
    (``kmax + 1``, the zero row, for i > k)."""
    k = np.arange(kmax + 1)[:, None]
    i = np.arange(kmax + 1)[None, :]
    binom = np.array(
        [
            [math.comb(a, b) if b <= a else 0 for b in range(kmax + 1)]
            for a in range(kmax + 1)
        ],
        dtype=np.float64,
    )
    shift = np.where(i <= k, k - i, kmax + 1)
    return binom, shift


def _rows(out: Any, count: int, size: int | None = None) -> FloatArray:
    """The outputs of a compiled vector evaluator as a ``(count, size)`` array."""
    if size is None:
        size = next((np.size(o) for o in out if np.ndim(o) > 0), 1)
    rows = np.empty((count, size))
    for i, o in enumerate(out):
        rows[i] = o
    return rows


@functools.cache
def _coefficient_layout(order: int) -> tuple[Any, tuple[int, ...], FloatArray]:
    """The compiled tilted Edgeworth coefficients of ``order``, the indices of
    its outputs that depend on the lambdas and the values of all outputs at
    lambda = 0 (the constants; most entries are 0)."""
    ev = _evaluator("saddlepoint_tilted_edgeworth_coeffs", order)
    probe = [np.full(2, 0.5 + 0.1 * i) for i in range(order - 2)]
    out = ev.fn(*probe)
    varying = tuple(i for i, o in enumerate(out) if np.ndim(o) > 0)
    zero = ev.fn(*(0.0 for _ in range(order - 2)))
    base = np.array([0.0 if i in varying else float(o) for i, o in enumerate(zero)])
    return ev, varying, base


def _coefficient_rows(order: int, lams: list[FloatArray], size: int) -> FloatArray:
    r"""The coefficients :math:`c_{jk}(\lambda)` of saddle-point order ``order``
    as rows ``(J - 2) (3 (J - 2) + 1, size)`` (constant entries broadcast;
    ``inf`` where a power of an extreme lambda overflows, which the callers
    read as a diverged expansion)."""
    ev, varying, base = _coefficient_layout(order)
    with np.errstate(over="ignore", invalid="ignore"):
        out = ev.fn(*lams)
    rows = np.repeat(base[:, None], size, axis=1)
    for i in varying:
        rows[i] = out[i]
    return rows


def kernel_hermite_moments(
    side: str, b: FloatArray, w: FloatArray, kmax: int
) -> FloatArray:
    r""":math:`G_k^\pm(b, w)`, ``k = 0..kmax`` (rows), the closed form of
    :func:`symfdp.symbolic.saddlepoint.kernel_hermite_moment_expr` as its Appell
    sum :math:`G_k^\pm = (-b)^kR(\pm w) \pm \sum_{i=1}^k
    \binom{k}{i}(-b)^{k-i}He_{i-1}(w)`."""
    sg = 1.0 if side == "upper" else -1.0
    powers = np.empty((kmax + 1, b.size))
    powers[0] = 1.0
    for k in range(1, kmax + 1):
        np.multiply(powers[k - 1], -b, out=powers[k])
    out = powers * mills_ratio(sg * w)
    if kmax >= 1:
        he = hermite_values(w, kmax - 1)
        binom, shift = _appell_tables(kmax)
        # sum_{i >= 1} binom[k, i] (-b)^{k-i} He_{i-1}(w); row kmax + 1 of the
        # padded powers is zero (i > k).
        pad = np.concatenate((powers, np.zeros((1, b.size))))
        he_sh = np.concatenate((np.zeros((1, b.size)), he))
        out += sg * np.einsum("ki,kin,in->kn", binom, pad[shift], he_sh)
    return out


def correction_terms(
    side: str,
    eps: FloatArray,
    t: FloatArray,
    m: FloatArray,
    v: FloatArray,
    lam: FloatArray,
    order: int,
) -> tuple[FloatArray, FloatArray]:
    r"""``(log_pref, T)``: :math:`\log(e^{-\varepsilon t}\phi(c))` (without
    :math:`K`) and the terms :math:`T_1..T_{J-2}` (shape ``(J-2, n)``) of
    saddle-point order ``J = order``, so that the correction of order ``J'``
    :math:`\le J` to the contour integral is :math:`e^{K + \log pref}
    \sum_{j \le J'-2} T_j`. ``lam`` holds :math:`\lambda_3..\lambda_J` (rows).

    :math:`D_k` from :func:`kernel_hermite_moments` below ``W_SWITCH``, else from
    :func:`_moment_differences`.
    """
    eps, t, m, v = (np.asarray(a, dtype=np.float64).reshape(-1) for a in (eps, t, m, v))
    sv = np.sqrt(v)
    c = (eps - m) / sv
    b1, b2 = t * sv, (t + 1.0) * sv
    w1, w2 = c + b1, c + b2
    sg = 1.0 if side == "upper" else -1.0
    kmax = 3 * (order - 2)
    far = np.minimum(sg * w1, sg * w2) >= W_SWITCH
    near = ~far
    if far.all():
        d = _moment_differences(side, c, w1, w2, kmax)
    else:
        d = np.empty((kmax + 1, eps.size))
        bb = np.concatenate((b1[near], b2[near]))
        ww = np.concatenate((w1[near], w2[near]))
        with np.errstate(over="ignore", invalid="ignore"):
            gg = kernel_hermite_moments(side, bb, ww, kmax)
            g1, g2 = gg[:, : bb.size // 2], gg[:, bb.size // 2 :]
            d[:, near] = g1 - g2 if side == "upper" else g2 - g1
        if far.any():
            d[:, far] = _moment_differences(side, c[far], w1[far], w2[far], kmax)
    lams = [lam[r - 3].reshape(-1) for r in range(3, order + 1)]
    cm = _coefficient_rows(order, lams, eps.size).reshape(order - 2, kmax + 1, -1)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.einsum("jkn,kn->jn", cm, d)
    log_pref = -eps * t - 0.5 * c * c - _LOG_SQRT_2PI
    return log_pref, terms


def log_ratios(
    cumulants: Callable[[FloatArray, int], FloatArray],
    vals: SaddleValues,
    side: str,
    log2: FloatArray,
    order_max: int,
    usable: Any,
    kappa: FloatArray | None = None,
) -> tuple[FloatArray, NDArray[np.bool_], FloatArray]:
    r"""``(rho, ok, lam3)``: :math:`\rho_J = \hat I_J/\hat I_2` for ``J = 2..order_max``
    (rows; row 0 is 1) of the order-``J`` contour integrals at ``vals``
    (``log2`` = :math:`\log\hat I_2`); ``ok`` where every term is finite and
    ``usable`` (elsewhere :math:`\rho = 1`); ``lam3`` the tilted skewness (0
    elsewhere). ``cumulants(t, r)`` gives K'', ..., K^(r) (or ``kappa``).
    """
    shape = np.shape(vals.t)
    rho = np.ones((order_max - 1, *shape))
    ok = np.zeros(shape, dtype=bool)
    lam3 = np.zeros(shape)
    if order_max < 3:
        ok[...] = np.asarray(usable, dtype=bool)
        return rho, ok, lam3
    use = np.asarray(usable, dtype=bool).reshape(-1)
    # Every entry usable (the common case): slices, no gathering copies.
    idx: Any = slice(None) if use.all() else np.flatnonzero(use)
    if not use.any():
        return rho, ok, lam3
    t = vals.t.reshape(-1)[idx]
    if kappa is not None and np.shape(kappa)[0] >= order_max - 1:
        flat_k = np.asarray(kappa)[: order_max - 1].reshape(order_max - 1, -1)
        kappa = flat_k[:, idx]
    else:
        kappa = cumulants(t, order_max)
    lam = standardised(kappa)
    eps, m, v, kk = (a.reshape(-1)[idx] for a in (vals.eps, vals.m, vals.v, vals.K))
    log_pref, terms = correction_terms(side, eps, t, m, v, lam, order_max)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.exp(kk + log_pref - log2.reshape(-1)[idx])
        cum = 1.0 + np.cumsum(terms, axis=0) * scale
    good = np.all(np.isfinite(cum), axis=0)
    flat_rho = rho.reshape(order_max - 1, -1)
    flat_rho[1:, idx] = np.where(good, cum, 1.0)
    ok.reshape(-1)[idx] = good
    lam3.reshape(-1)[idx] = np.where(np.isfinite(lam[0]), lam[0], 0.0)
    return rho, ok, lam3
