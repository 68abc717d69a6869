r"""Saddle-point estimates of order :math:`J \ge 3`: the tilted Edgeworth terms.

:math:`\hat\delta_2` (CF-S6) replaces the tilted loss :math:`Z` (the law
:math:`\propto e^{t_*l}\,dQ_L(l)`, mean :math:`m = K'(t_*)`, variance
:math:`v = K''(t_*)`) by :math:`N(m, v)` in

.. math::  \delta = e^{K(t_*) - \varepsilon t_*}\,E[e^{t_*(\varepsilon - Z)}
           (1 - e^{\varepsilon - Z})_+].

Order :math:`J` replaces it instead by its Edgeworth law: :math:`X = (Z - m)/\sqrt
v` has density :math:`\phi(x)(1 + \sum_{j=1}^{J-2}\sum_k c_{jk}(\lambda)He_k(x))`
with the standardised tilted cumulants :math:`\lambda_r = K^{(r)}(t_*)/
K''(t_*)^{r/2}`, term ``j`` being the one of :math:`K''^{-j/2}` (grouped as in
:mod:`symfdp.symbolic.edgeworth`). So order 2 has no correction, order 3 adds the
:math:`\lambda_3` term, order 4 the :math:`\lambda_4` and :math:`\lambda_3^2`
terms, and order ``J`` needs :math:`\lambda_3..\lambda_J`. Each Hermite term
integrates against the kernel in closed form
(:func:`symfdp.symbolic.saddlepoint.kernel_hermite_moment_expr`):

.. math::  \hat\delta_J = e^{K - \varepsilon t_*}\phi(c)\Big(D_0 +
           \sum_{j=1}^{J-2}\sum_k c_{jk}D_k\Big), \qquad c = (\varepsilon -
           m)/\sqrt v,

with :math:`D_k = G_k(t_*\sqrt v) - G_k((t_*+1)\sqrt v)` (upper side; the
complementary kernel of the lower side swaps the two). :math:`G_k` and
:math:`c_{jk}` are derived by SymPy for any order and compiled
(:mod:`symfdp.numeric.compile`, disk-cached); here they are polynomials
evaluated with the Mills ratio :math:`R(w) = \Phi(-w)/\phi(w)` as an input.

Accuracy. The expansion is asymptotic in :math:`K''^{-1/2}`, not convergent: in
the deep tail of a composition with few effective steps (large :math:`|\lambda_3|`)
the terms grow and the orders oscillate; the gap between consecutive orders is
the error estimate (:mod:`symfdp.accountants.saddlepoint.pair`). The closed form
of :math:`G_k` is a difference of terms of size :math:`b^k R(w)` and loses about
:math:`k\log_{10}b` digits for large :math:`b = t_*\sqrt v` (the terms of degree
24 at :math:`b = 8` keep about six digits).
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
from scipy import special

from symfdp.accountants.base import Components
from symfdp.accountants.saddlepoint.tilted import standardised, tilted_cumulants
from symfdp.mechanisms.base import FloatArray
from symfdp.numeric.compile import evaluator, register_derivation

_DEPS: Final = (
    "symfdp.symbolic.saddlepoint",
    "symfdp.symbolic.edgeworth",
    "symfdp.symbolic.hermite",
    "symfdp.symbolic.symbols",
)
#: Largest order accepted by ``SaddlePoint(order=...)`` (the error estimate
#: evaluates two more).
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
        raise ValueError(f"tilted Edgeworth coefficients need order >= 3. Found {order}.")
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
    return math.sqrt(math.pi / 2.0) * special.erfcx(w / math.sqrt(2.0))


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
    \sum_{j \le J'-2} T_j`. ``lam`` holds :math:`\lambda_3..\lambda_J` (rows)."""
    sv = np.sqrt(v)
    c = (eps - m) / sv
    b1, b2 = t * sv, (t + 1.0) * sv
    w1, w2 = c + b1, c + b2
    sg = 1.0 if side == "upper" else -1.0
    kmax = 3 * (order - 2)
    ev = evaluator(f"saddlepoint_kernel_hermite_{side}", kmax)
    with np.errstate(over="ignore", invalid="ignore"):
        g1 = ev(hb=b1, hw=w1, mills=mills_ratio(sg * w1))
        g2 = ev(hb=b2, hw=w2, mills=mills_ratio(sg * w2))
        d = g1 - g2 if side == "upper" else g2 - g1
    coeffs = evaluator("saddlepoint_tilted_edgeworth_coeffs", order)
    lam_kw = {f"lambda{r}": lam[r - 3] for r in range(3, order + 1)}
    cm = np.asarray(coeffs(**lam_kw)).reshape(order - 2, kmax + 1, -1)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.einsum("jkn,kn->jn", cm, d.reshape(kmax + 1, -1))
    log_pref = -eps * t - 0.5 * c * c - _LOG_SQRT_2PI
    return log_pref, terms.reshape((order - 2, *np.shape(eps)))


def log_ratios(
    components: Components,
    vals: dict[str, FloatArray],
    side: str,
    log2: FloatArray,
    order_max: int,
    usable: Any,
) -> tuple[FloatArray, FloatArray]:
    r"""``(rho, ok)``: :math:`\rho_J = \hat I_J/\hat I_2` for ``J = 2..order_max``
    (rows; row 0 is 1) at the saddle points ``vals``, where :math:`\hat I_J` is
    the order-``J`` approximation of the contour integral and ``log2`` the log of
    :math:`\hat I_2`; ``ok`` marks the points where every term is finite
    (elsewhere :math:`\rho = 1`). Only entries with ``usable`` are evaluated (the
    others are capped or degenerate and keep :math:`\rho = 1`, ``ok = False``).
    """
    shape = np.shape(vals["t"])
    rho = np.ones((order_max - 1, *shape))
    ok = np.zeros(shape, dtype=bool)
    if order_max < 3:
        ok[...] = np.asarray(usable, dtype=bool)
        return rho, ok
    idx = np.flatnonzero(np.asarray(usable, dtype=bool).reshape(-1))
    if idx.size == 0:
        return rho, ok
    t = vals["t"].reshape(-1)[idx]
    kappa = tilted_cumulants(components, t, order_max)
    lam = standardised(kappa)
    eps, m, v, kk = (vals[k].reshape(-1)[idx] for k in ("eps", "m", "v", "K"))
    log_pref, terms = correction_terms(side, eps, t, m, v, lam, order_max)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = np.exp(kk + log_pref - log2.reshape(-1)[idx])
        cum = 1.0 + np.cumsum(terms, axis=0) * scale
    good = np.all(np.isfinite(cum), axis=0)
    flat_rho = rho.reshape(order_max - 1, -1)
    flat_rho[1:, idx] = np.where(good, cum, 1.0)
    ok.reshape(-1)[idx] = good
    return rho, ok
