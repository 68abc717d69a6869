r"""Saddle-point formulas of the saddle-point accountant (exact, SymPy only).

Direction convention. The slides (Alghamdi et al. 2022) write
:math:`L = \log dP/dQ(X)` with :math:`X \sim P`; in symfdp the loss is
:math:`L = \log dQ/dP` and the profile is :math:`\delta(\varepsilon) =
E_Q[(1 - e^{\varepsilon - L})_+]`, so the slides' :math:`K_L(t)` is symfdp's
``cgf(t, under="Q")`` (:math:`= K_P(t+1)`). Below, :math:`K` is that CGF of the
*composed* loss.

The slides' derivation (CF-S3). For any :math:`t > 0`, tilting by
:math:`e^{tL}` and Plancherel give

.. math::  \delta(\varepsilon) = \frac{1}{2\pi}\int_{-\infty}^{\infty}
           e^{F_\varepsilon(t + is)}\,ds, \qquad
           F_\varepsilon(z) = K(z) - z\varepsilon - \log z - \log(1+z),

because :math:`\int_\varepsilon^\infty e^{-zl}(1 - e^{\varepsilon - l})\,dl =
e^{-z\varepsilon}/(z(1+z))`. The same kernel transform holds for
:math:`\operatorname{Re} z < -1` with the *complementary* kernel:
:math:`\int_{-\infty}^{\varepsilon} e^{-zl}(e^{\varepsilon - l} - 1)\,dl =
e^{-z\varepsilon}/(z(1+z))` as well, so for :math:`t < -1` the same contour
integral equals :math:`E_Q[(e^{\varepsilon - L} - 1)_+]`, and

.. math::  \delta(\varepsilon) = 1 - e^{\varepsilon + K(-1)}
           + E_Q[(e^{\varepsilon - L} - 1)_+]

(:math:`e^{K(-1)} = E_Q[e^{-L}] = P(q > 0)`). This is the *lower* side used by the
accountant below the split point; :math:`z \mapsto -1 - z` maps
:math:`\log z + \log(1+z)` to itself, so every formula has a mirror image.

Saddle point (CF-S4): :math:`F'_\varepsilon(t) = K'(t) - \varepsilon - 1/t -
1/(1+t) = 0`, with :math:`F''_\varepsilon = K'' + 1/t^2 + 1/(1+t)^2 > 0`.

* First approximation (CF-S5): :math:`\hat\delta_1 = e^{F(t_*)}/\sqrt{2\pi
  F''(t_*)}`, i.e.
  :math:`e^{K - \varepsilon t}/\sqrt{2\pi[t^2(1+t)^2K'' + t^2 + (1+t)^2]}`.
* Second approximation (CF-S6): replace the tilted loss by
  :math:`Z \sim N(m, v)`, :math:`m = K'(t_*)`, :math:`v = K''(t_*)`:
  :math:`\hat\delta_2 = e^{K - \varepsilon t}E[e^{t(\varepsilon - Z)}
  (1 - e^{\varepsilon - Z})_+]`. Completing the square,
  :math:`E[e^{a(\varepsilon - Z)}1\{Z > \varepsilon\}] =
  e^{a(\varepsilon - m) + a^2 v/2}\,\Phi((m - \varepsilon - av)/\sqrt v)`,
  and with :math:`a = t` and :math:`a = t + 1` this gives the closed form.

Symbols are the evaluators' keyword names: ``t``, ``eps``, ``K`` (the value
:math:`K(t)`), ``m`` (:math:`K'(t)`) and ``v`` (:math:`K''(t)`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

import sympy as sp

from symfdp._validation import check_int, check_order
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
    """``functools.cache`` keyed on a validated ``side``: a bad or unhashable
    side raises the ValueError of :func:`_check_side`, not the cache's
    ``TypeError: unhashable type``."""
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

    ``upper``: :math:`A` carries :math:`a = t`, :math:`B` carries :math:`a = t+1`;
    ``lower``: the other way round. Each is
    :math:`K - \varepsilon t + a(\varepsilon - m) + a^2 v/2 + \log\Phi(\cdot)`; in
    the accountant's regime :math:`a^2 v/2 \approx \log(1/\delta)`, so forming the
    sum costs no relative precision that matters.
    """
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
    :math:`t > 0`; the lower kernel has the same maximum at :math:`-1 - t`.

    It is the constant of the Chernoff (moments-accountant) bound
    :math:`\delta(\varepsilon) \le e^{K(t) - \varepsilon t}\,(t/(1+t))^t/(1+t)` and,
    doubled, the total variation of the kernel, the factor a Berry–Esseen argument
    multiplies by :math:`\sup|F_{\tilde L} - \Phi|`.
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


# ----------------------------------------------------------------- higher orders
#: ``b = a sqrt(v)``: the exponent of the kernel part e^{a(eps - L)} in the
#: standardised variable X = (L - m)/sqrt(v).
hb: Final = sp.Symbol("hb", real=True)
#: ``w = c + b`` with ``c = (eps - m)/sqrt(v)``: the shifted truncation point.
hw: Final = sp.Symbol("hw", real=True)
#: The Mills ratio at the truncation point: ``R(w) = Phi(-w)/phi(w)`` on the
#: upper side, ``R(-w) = Phi(w)/phi(w)`` on the lower side.
mills: Final = sp.Symbol("mills", positive=True)
#: Standardised truncation point ``c = (eps - m)/sqrt(v)`` (derivation checks).
cvar: Final = sp.Symbol("c", real=True)


def max_hermite_degree(order: int) -> int:
    r"""Highest Hermite degree in the tilted Edgeworth density of saddle-point
    ``order`` ``J`` (term ``j`` has degrees ``j+2, j+4, ..., 3j``): ``3(J-2)``."""
    return 3 * max(check_order(order) - 2, 0)


def kernel_hermite_moment_expr(k: int, side: str = "upper") -> sp.Expr:
    r""":math:`G_k(b, w, R)`, the closed-form Hermite moment of the tilted kernel.

    For :math:`X` with density :math:`\phi`, :math:`b = a\sqrt v`,
    :math:`c = (\varepsilon - m)/\sqrt v` and :math:`w = c + b`:

    .. math::  e^{bc}\int_c^\infty He_k(x)\phi(x)e^{-bx}dx = \phi(c)\,G_k^+,
               \quad G_k^+ = (-b)^k R(w) + \sum_{i=1}^{k}\binom{k}{i}(-b)^{k-i}
               He_{i-1}(w),

    with :math:`R(w) = \Phi(-w)/\phi(w)` (``upper``), and

    .. math::  e^{bc}\int_{-\infty}^c He_k(x)\phi(x)e^{-bx}dx = \phi(c)\,G_k^-,
               \quad G_k^- = (-b)^k R(-w) - \sum_{i=1}^{k}\binom{k}{i}(-b)^{k-i}
               He_{i-1}(w)

    (``lower``). Proof: :math:`\phi(x)e^{-bx} = e^{b^2/2}\phi(x+b)`; substitute
    :math:`y = x + b`, expand :math:`He_k(y - b) = \sum_i \binom{k}{i}
    He_i(y)(-b)^{k-i}` (Appell property) and use :math:`\int_w^\infty He_i\phi =
    He_{i-1}(w)\phi(w)` (:math:`i \ge 1`, from :math:`(He_{i-1}\phi)' =
    -He_i\phi`); finally :math:`e^{bc + b^2/2}\phi(w) = \phi(c)`. The factor
    :math:`e^{bc} = e^{a(\varepsilon - m)}` is the kernel's value at the mean.
    ``derivations/saddlepoint_orders.py`` checks it against direct integration.
    """
    return _kernel_hermite_moment(check_int("k", k, lo=0), _check_side(side))


@functools.cache
def _kernel_hermite_moment(k: int, side: str) -> sp.Expr:
    from symfdp.symbolic.hermite import hermite_he

    sign = 1 if side == "upper" else -1
    poly = sp.S.Zero
    for i in range(1, k + 1):
        poly += sp.binomial(k, i) * (-hb) ** (k - i) * hermite_he(i - 1, hw)
    return sp.expand((-hb) ** k * mills + sign * poly)


def tilted_edgeworth_coefficients(order: int) -> tuple[tuple[sp.Expr, ...], ...]:
    r"""The Hermite coefficients :math:`c_{jk}(\lambda)` of the tilted Edgeworth
    density :math:`\phi(x)(1 + \sum_{j=1}^{J-2}\sum_k c_{jk} He_k(x))` of
    saddle-point order ``J``: row ``j - 1`` holds :math:`c_{j0}, \dots,
    c_{j,3(J-2)}`.

    Term ``j`` is the Edgeworth term of :math:`K''^{-j/2}` (the coefficient of
    :math:`(it)^k` in :math:`P_j`, :mod:`symfdp.symbolic.edgeworth`), in the
    standardised cumulants :math:`\lambda_r = K^{(r)}(t_*)/K''(t_*)^{r/2}` of the
    tilted loss; order ``J`` keeps ``j = 1..J-2`` and needs
    :math:`\lambda_3..\lambda_J` (order 2: none; order 3: the
    :math:`\lambda_3` term; order 4: adds :math:`\lambda_4, \lambda_3^2`).
    """
    return _tilted_edgeworth_coefficients(check_order(order))


@functools.cache
def _tilted_edgeworth_coefficients(order: int) -> tuple[tuple[sp.Expr, ...], ...]:
    from symfdp.symbolic.edgeworth import characteristic_polynomials
    from symfdp.symbolic.symbols import s as svar

    j_max = max(order - 2, 0)
    if j_max == 0:
        return ()
    kmax = max_hermite_degree(order)
    rows = []
    for poly in characteristic_polynomials(j_max)[1:]:
        p = sp.Poly(poly, svar)
        rows.append(
            tuple(sp.expand(p.coeff_monomial(svar**k)) for k in range(kmax + 1))
        )
    return tuple(rows)


def correction_terms_expr(order: int, side: str = "upper") -> tuple[sp.Expr, ...]:
    r"""The correction terms :math:`T_1, \dots, T_{J-2}` of saddle-point order
    ``J``, in :math:`G_k` notation.

    With :math:`Z = m + \sqrt v X` following the tilted Edgeworth law,

    .. math::  \hat\delta_J = e^{K - \varepsilon t}\phi(c)\Big(D_0 +
               \sum_{j=1}^{J-2} T_j\Big), \qquad T_j = \sum_k c_{jk} D_k,

    :math:`D_k = G_k^+(b_1, w_1) - G_k^+(b_2, w_2)` on the upper side (kernel
    :math:`e^{t(\varepsilon - Z)} - e^{(t+1)(\varepsilon - Z)}` on
    :math:`Z > \varepsilon`; :math:`b_1 = t\sqrt v`, :math:`b_2 = (t+1)\sqrt v`,
    :math:`w_i = c + b_i`) and :math:`D_k = G_k^-(b_2, w_2) - G_k^-(b_1, w_1)` on
    the lower side; :math:`\phi(c)D_0` is :math:`\hat\delta_2`'s expectation
    (CF-S6). Returned with symbols ``G{k}`` standing for the differences
    :math:`D_k`.
    """
    order = check_order(order)
    _check_side(side)
    out = []
    for row in _tilted_edgeworth_coefficients(order):
        out.append(sum(c * sp.Symbol(f"D{k}") for k, c in enumerate(row) if c != 0))
    return tuple(out)
