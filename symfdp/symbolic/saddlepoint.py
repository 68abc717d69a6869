r"""Saddle-point formulas of the saddle-point accountant (exact, SymPy only).

Source: Alghamdi et al. 2022 (slides CF-S3 to CF-S7). symfdp's loss is
:math:`L = \log dQ/dP` (the slides' is :math:`\log dP/dQ` under P), so the slides'
:math:`K_L(t)` is ``cgf(t, under="Q")``; :math:`K` below is that CGF of the
*composed* loss. For :math:`t > 0` (CF-S3)

.. math::  \delta(\varepsilon) = \frac{1}{2\pi}\int_{-\infty}^{\infty}
           e^{F_\varepsilon(t + is)}\,ds, \qquad
           F_\varepsilon(z) = K(z) - z\varepsilon - \log z - \log(1+z);

for :math:`t < -1` the same integral is :math:`E_Q[(e^{\varepsilon - L} - 1)_+]`
and :math:`\delta(\varepsilon) = 1 - e^{\varepsilon + K(-1)} + E_Q[(e^{\varepsilon
- L} - 1)_+]` (the *lower* side; :math:`z \mapsto -1 - z` mirrors every formula).

Symbols are the evaluators' keyword names: ``t``, ``eps``, ``K`` (:math:`K(t)`),
``m`` (:math:`K'(t)`) and ``v`` (:math:`K''(t)`)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, Final

import sympy as sp
from sympy.polys.rings import ring

from symfdp._validation import check_int, check_order
from symfdp.symbolic.edgeworth import characteristic_coefficients
from symfdp.symbolic.hermite import hermite_he_sequence
from symfdp.symbolic.symbols import Phi, log_Phi

#: The tilt parameter (real part of the contour).
t: Final = sp.Symbol("t", real=True)
#: The privacy parameter epsilon (any real).
eps: Final = sp.Symbol("eps", real=True)
#: Value of the composed CGF at t.
K: Final = sp.Symbol("K", real=True)
#: First derivative K'(t): the mean of the tilted loss.
m: Final = sp.Symbol("m", real=True)
#: Second derivative K''(t): the variance of the tilted loss.
v: Final = sp.Symbol("v", positive=True)
#: Integration variable.
zvar: Final = sp.Symbol("zvar", real=True)
#: The CGF as an undefined function, for differentiating F.
Kfun: Final = sp.Function("K")

SIDES: Final = ("upper", "lower")


def _check_side(side: object) -> str:
    if not isinstance(side, str) or side not in SIDES:
        raise ValueError(f"side must be one of 'upper', 'lower'. Found {side!r}.")
    return str(side)


def _side_cache(fn: Callable[[str], Any]) -> Callable[..., Any]:
    """``functools.cache`` keyed on a validated ``side`` (ValueError, not TypeError)."""
    cached = functools.cache(fn)

    @functools.wraps(fn)
    def wrapper(side: object = "upper") -> Any:
        return cached(_check_side(side))

    return wrapper


def saddle_function_expr() -> sp.Expr:
    r""":math:`F_\varepsilon(t) = K(t) - t\varepsilon - \log t - \log(1+t)`
    (Alghamdi et al. 2022, CF-S3), with :math:`K` an undefined function."""
    return Kfun(t) - t * eps - sp.log(t) - sp.log(1 + t)


def _values(expr: sp.Expr) -> sp.Expr:
    """Replace K(t), K'(t), K''(t) by the symbols K, m, v."""
    d2 = sp.Derivative(Kfun(t), (t, 2))
    d1 = sp.Derivative(Kfun(t), t)
    return expr.subs(d2, v).subs(d1, m).subs(Kfun(t), K)


@functools.cache
def saddle_equation_expr() -> sp.Expr:
    r""":math:`F'_\varepsilon(t) = m - \varepsilon - 1/t - 1/(1+t)` (CF-S4)."""
    return _values(sp.diff(saddle_function_expr(), t))


@functools.cache
def saddle_curvature_expr() -> sp.Expr:
    r""":math:`F''_\varepsilon(t) = v + 1/t^2 + 1/(1+t)^2` (CF-S4)."""
    return _values(sp.diff(saddle_function_expr(), t, 2))


@functools.cache
def delta1_expr() -> sp.Expr:
    r""":math:`\hat\delta_1 = e^{F}/\sqrt{2\pi F''}` at the saddle point, derived
    from :math:`F_\varepsilon` (CF-S5, first form)."""
    f = _values(saddle_function_expr())
    return sp.exp(f) / sp.sqrt(2 * sp.pi * saddle_curvature_expr())


def delta1_printed_expr() -> sp.Expr:
    r"""CF-S5 as printed on the slides: :math:`e^{K - \varepsilon t}/\sqrt{2\pi
    [t^2(1+t)^2 K'' + t^2 + (t+1)^2]}`."""
    return sp.exp(K - eps * t) / sp.sqrt(
        2 * sp.pi * (t**2 * (1 + t) ** 2 * v + t**2 + (t + 1) ** 2)
    )


@functools.cache
def log_delta1_expr() -> sp.Expr:
    r""":math:`\log\hat\delta_1 = K - \varepsilon t - \tfrac12\log(2\pi[t^2(1+t)^2 v
    + t^2 + (1+t)^2])`, valid on both sides (:math:`t > 0` and :math:`t < -1`,
    where :math:`t(1+t) > 0`)."""
    # Keep t^2 (1+t)^2 v factored: expanded, it cancels badly near t = -1.
    rest = sp.cancel(t**2 * (1 + t) ** 2 * (saddle_curvature_expr() - v))
    quad = t**2 * (1 + t) ** 2 * v + rest
    return K - eps * t - sp.log(2 * sp.pi * quad) / 2


def truncated_exponential_moment_expr(a: sp.Expr, side: str = "upper") -> sp.Expr:
    r""":math:`E[e^{a(\varepsilon - Z)} 1\{Z > \varepsilon\}]` (``upper``) or
    :math:`E[e^{a(\varepsilon - Z)} 1\{Z < \varepsilon\}]` (``lower``) for
    :math:`Z \sim N(m, v)`, by completing the square:

    .. math::  e^{a(\varepsilon - m) + a^2 v/2}\,
               \Phi\bigl(\pm(m - \varepsilon - a v)/\sqrt v\bigr).
    """
    arg = (m - eps - a * v) / sp.sqrt(v)
    sign = 1 if _check_side(side) == "upper" else -1
    return sp.exp(a * (eps - m) + a**2 * v / 2) * Phi(sign * arg)


@_side_cache
def delta2_expr(side: str = "upper") -> sp.Expr:
    r"""The Gaussian-tilted approximation of the contour integral (CF-S6).

    ``upper`` (:math:`t > 0`): :math:`e^{K - \varepsilon t}E[e^{t(\varepsilon - Z)}
    (1 - e^{\varepsilon - Z})_+]`; ``lower`` (:math:`t < -1`): :math:`e^{K -
    \varepsilon t}E[e^{t(\varepsilon - Z)}(e^{\varepsilon - Z} - 1)_+]`, the
    approximation of :math:`E_Q[(e^{\varepsilon - L} - 1)_+]`.
    """
    side = _check_side(side)
    low = truncated_exponential_moment_expr(t, side)
    high = truncated_exponential_moment_expr(t + 1, side)
    sign = 1 if side == "upper" else -1
    return sp.exp(K - eps * t) * sign * (low - high)


@_side_cache
def delta2_log_terms_expr(side: str = "upper") -> sp.Tuple:
    r"""``(log A, log B)`` with :math:`\hat\delta_2 = A - B`, :math:`A > B > 0`.

    Each is :math:`K - \varepsilon t + a(\varepsilon - m) + a^2 v/2 + \log\Phi(\cdot)`
    with :math:`a = t` in :math:`A` and :math:`a = t+1` in :math:`B` (``upper``;
    swapped for ``lower``)."""
    side = _check_side(side)
    sign = 1 if side == "upper" else -1

    def log_term(a: sp.Expr) -> sp.Expr:
        arg = sign * (m - eps - a * v) / sp.sqrt(v)
        return K - eps * t + a * (eps - m) + a**2 * v / 2 + log_Phi(arg)

    first, second = (t, t + 1) if side == "upper" else (t + 1, t)
    return sp.Tuple(log_term(first), log_term(second))


def kernel_expr(side: str = "upper") -> sp.Expr:
    r"""The tilted kernel in :math:`u = l - \varepsilon`: :math:`e^{-tu}(1 -
    e^{-u})` for :math:`u > 0` (``upper``) and :math:`e^{-tu}(e^{-u} - 1)` for
    :math:`u < 0` (``lower``)."""
    u = sp.Symbol("u", real=True)
    if _check_side(side) == "upper":
        return sp.exp(-t * u) * (1 - sp.exp(-u))
    return sp.exp(-t * u) * (sp.exp(-u) - 1)


def kernel_max_expr() -> sp.Expr:
    r""":math:`\max_{u>0} e^{-tu}(1 - e^{-u}) = (t/(1+t))^t/(1+t)` for
    :math:`t > 0` (the lower kernel: same maximum at :math:`-1 - t`); the constant
    of the Chernoff bound :math:`\delta \le e^{K(t) - \varepsilon t}(t/(1+t))^t/(1+t)`.
    """
    return (t / (1 + t)) ** t / (1 + t)


def error_bound_expr() -> sp.Expr:
    r"""CF-S7 as printed: :math:`e^{K - \varepsilon t}(t/(1+t))^t P_t/v^{3/2}`,
    with ``P`` (symbol) the sum of the third absolute central moments of the
    tilted losses."""
    big_p = sp.Symbol("P", positive=True)
    return sp.exp(K - eps * t) * (t / (1 + t)) ** t * big_p / v ** sp.Rational(3, 2)


def normal_cdf_expr(x: sp.Expr) -> sp.Expr:
    r""":math:`\Phi(x) = (1 + \operatorname{erf}(x/\sqrt2))/2`, to evaluate
    ``Phi`` exactly."""
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


def with_erf(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every ``Phi(x)`` replaced by its erf form."""
    return expr.replace(Phi, lambda arg: normal_cdf_expr(arg))


#: ``b = a sqrt(v)``, with X = (L - m)/sqrt(v) the standardised loss.
hb: Final = sp.Symbol("hb", real=True)
#: ``w = c + b`` with ``c = (eps - m)/sqrt(v)``: the shifted truncation point.
hw: Final = sp.Symbol("hw", real=True)
#: The Mills ratio R(w) = Phi(-w)/phi(w) (upper side) or R(-w) (lower side).
mills: Final = sp.Symbol("mills", positive=True)
#: Standardised truncation point ``c = (eps - m)/sqrt(v)`` (derivation checks).
cvar: Final = sp.Symbol("c", real=True)


def max_hermite_degree(order: int) -> int:
    r"""Highest Hermite degree in the tilted Edgeworth density of saddle-point
    ``order`` ``J`` (term ``j`` has degrees ``j+2, j+4, ..., 3j``): ``3(J-2)``."""
    return 3 * max(check_order(order) - 2, 0)


def kernel_hermite_moment_expr(k: int, side: str = "upper") -> sp.Expr:
    r""":math:`G_k(b, w, R)`, the closed-form Hermite moment of the tilted kernel.

    With :math:`b = a\sqrt v`, :math:`c = (\varepsilon - m)/\sqrt v`, :math:`w = c + b`:

    .. math::  e^{bc}\int_c^\infty He_k(x)\phi(x)e^{-bx}dx = \phi(c)\,G_k^+,
               \quad G_k^+ = (-b)^k R(w) + \sum_{i=1}^{k}\binom{k}{i}(-b)^{k-i}
               He_{i-1}(w),

    :math:`R(w) = \Phi(-w)/\phi(w)` (``upper``); ``lower`` integrates over
    :math:`(-\infty, c)` and gives :math:`G_k^- = (-b)^k R(-w) - \sum_i(\dots)`.
    Proof and check against direct integration: ``derivations/saddlepoint_orders.py``.
    """
    return _kernel_hermite_moment(check_int("k", k, lo=0), _check_side(side))


@functools.cache
def _kernel_hermite_moment(k: int, side: str) -> sp.Expr:
    # Expanded over QQ in (hb, hw, mills) by sparse polynomial arithmetic.
    sign = 1 if side == "upper" else -1
    _, bg, wg, rg = ring((hb, hw, mills), sp.QQ)
    he = hermite_he_sequence(max(k - 1, 0), wg)
    poly = sum(
        ((-bg) ** (k - i) * he[i - 1] * math.comb(k, i) for i in range(1, k + 1)),
        rg.ring.zero,
    )
    return ((-bg) ** k * rg + poly * sign).as_expr()


def tilted_edgeworth_coefficients(order: int) -> tuple[tuple[sp.Expr, ...], ...]:
    r"""The Hermite coefficients :math:`c_{jk}(\lambda)` of the tilted Edgeworth
    density :math:`\phi(x)(1 + \sum_{j=1}^{J-2}\sum_k c_{jk} He_k(x))` of
    saddle-point order ``J``: row ``j - 1`` holds :math:`c_{j0}, \dots,
    c_{j,3(J-2)}`, in :math:`\lambda_r = K^{(r)}(t_*)/K''(t_*)^{r/2}`
    (the terms :math:`P_j` of :mod:`symfdp.symbolic.edgeworth`)."""
    return _tilted_edgeworth_coefficients(check_order(order))


@functools.cache
def _tilted_edgeworth_coefficients(order: int) -> tuple[tuple[sp.Expr, ...], ...]:
    j_max = max(order - 2, 0)
    if j_max == 0:
        return ()
    return characteristic_coefficients(j_max)[1:]


def correction_terms_expr(order: int, side: str = "upper") -> tuple[sp.Expr, ...]:
    r"""The correction terms :math:`T_j = \sum_k c_{jk} D_k`, :math:`j = 1..J-2`, of
    saddle-point order ``J``, with symbols ``D{k}``:

    .. math::  \hat\delta_J = e^{K - \varepsilon t}\phi(c)\Big(D_0 +
               \sum_{j=1}^{J-2} T_j\Big),

    :math:`D_k = G_k^+(b_1, w_1) - G_k^+(b_2, w_2)` (``upper``; :math:`b_1 = t\sqrt v`,
    :math:`b_2 = (t+1)\sqrt v`, :math:`w_i = c + b_i`) and :math:`D_k = G_k^-(b_2, w_2)
    - G_k^-(b_1, w_1)` (``lower``); :math:`\phi(c)D_0` is :math:`\hat\delta_2`'s."""
    order = check_order(order)
    _check_side(side)
    out = []
    for row in _tilted_edgeworth_coefficients(order):
        out.append(sum(c * sp.Symbol(f"D{k}") for k, c in enumerate(row) if c != 0))
    return tuple(out)
