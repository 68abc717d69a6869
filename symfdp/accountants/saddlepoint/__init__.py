r"""``SaddlePoint``: the saddle-point accountant of Alghamdi et al. (2022).

Direction. The slides write :math:`L = \log dP/dQ(X)`, :math:`X \sim P`; symfdp's
loss is :math:`L = \log dQ/dP` with :math:`\delta(\varepsilon) =
E_Q[(1 - e^{\varepsilon - L})_+]`, so the slides' :math:`K_L(t)` is
:math:`K(t) = \sum_i n_i\, K_i(t)` with :math:`K_i` = ``m_i.cgf(t, under="Q")``
(:math:`= K_{P,i}(t+1)`), summed over the composition.

Upper side (the slides). For :math:`t > 0`, :math:`\delta(\varepsilon) =
\frac{1}{2\pi}\int e^{F_\varepsilon(t+is)}ds` with :math:`F_\varepsilon(z) = K(z)
- z\varepsilon - \log z - \log(1+z)` (CF-S3). The saddle point :math:`t_* > 0`
solves :math:`K'(t) = \varepsilon + 1/t + 1/(1+t)` (CF-S4) and

.. math::  \hat\delta_1 = \frac{e^{K(t_*) - \varepsilon t_*}}{\sqrt{2\pi[t_*^2
           (1+t_*)^2 K''(t_*) + t_*^2 + (1+t_*)^2]}}, \qquad
           \hat\delta_2 = e^{K(t_*) - \varepsilon t_*}\, E[e^{t_*(\varepsilon - Z)}
           (1 - e^{\varepsilon - Z})_+]

with :math:`Z \sim N(K'(t_*), K''(t_*))` (CF-S5, CF-S6; closed forms derived and
compiled in :mod:`symfdp.symbolic.saddlepoint`, proofs in
``derivations/saddlepoint_formulas.py``). ``order`` picks the point estimate.

Lower side (for all real :math:`\varepsilon`). The saddle point :math:`t_* > 0`
exists for every :math:`\varepsilon` below the essential supremum of :math:`L`, but
as :math:`\varepsilon` decreases it moves into the pole at 0 and the Gaussian
approximation of the contour integral degrades (the integral is then dominated by
the residue 1). Below the split point :math:`\varepsilon_{mid} = K'(-\tfrac12)`
(the mean of :math:`L` under the normalised :math:`\sqrt{PQ}`; 0 for symmetric
pairs) the accountant uses the complementary representation

.. math::  \delta(\varepsilon) = 1 - e^{\varepsilon + K(-1)} + E_Q[(e^{\varepsilon
           - L} - 1)_+], \qquad E_Q[(e^{\varepsilon - L} - 1)_+] =
           \frac{1}{2\pi}\int e^{F_\varepsilon(t + is)} ds, \ t < -1,

whose saddle point :math:`t_* < -1` solves the same equation; :math:`\hat\delta_1`
has the same formula and :math:`\hat\delta_2` uses the complementary kernel
:math:`(e^{\varepsilon - Z} - 1)_+`. The map :math:`z \mapsto -1 - z` leaves
:math:`\log z + \log(1+z)` unchanged, so the two sides mirror each other. Both
sides approximate the same exact quantity; at the split point they can differ by
their approximation errors. Exactly: :math:`\delta = 0` for :math:`\varepsilon \ge
\operatorname{ess\,sup} L` and :math:`\delta = 1 - e^{\varepsilon + K(-1)}` for
:math:`\varepsilon \le \operatorname{ess\,inf} L`.

Error bound (CF-S7). The slide states, for :math:`\varepsilon \ge 0`,

.. math::  |\delta(\varepsilon) - \hat\delta_2(\varepsilon)| \le
           e^{K(t_*) - \varepsilon t_*}\Big(\frac{t_*}{1+t_*}\Big)^{t_*}
           \frac{P_{t_*}}{K''(t_*)^{3/2}}, \qquad P_t = \sum_i n_i
           E|\tilde L_i - E\tilde L_i|^3,

with no numeric constant printed. Reading: the factor :math:`(t/(1+t))^t` is,
up to :math:`1/(1+t)`, the maximum of the tilted kernel :math:`e^{-tu}(1 -
e^{-u})_+` (proved in the derivation script), and :math:`P_t/K''^{3/2}` is the
Berry–Esseen ratio of the tilted sum, so the bound has the shape of
"total variation of the kernel :math:`\times` Berry–Esseen constant :math:`\times`
ratio". That argument gives the factor :math:`2C/(1+t_*)` in place of the printed
1; with :math:`C \le 0.56` (Dong et al. 2019, Thm D.4) it is :math:`\le 1` exactly
when :math:`t_* \ge 0.12`. We implement the bound **as printed** (constant 1) and
infer no other constant; the paper version (arXiv 2208.09595) is not among the
sources. It bounds the error of an asymptotic approximation and is *not* a
certified bracket, so SaddlePoint is not ``certified``:
``curve.pairs[k].delta_error_bound(eps)`` reports it (for ``order=1`` it adds
:math:`|\hat\delta_1 - \hat\delta_2|`). :math:`P_t` is computed from each
mechanism's quadrature rule under the tilted law; on the lower side the mirrored
factor :math:`(s/(1+s))^s`, :math:`s = -1 - t_*`, is used.

Repairs (each with an :class:`~symfdp.ApproximationWarning`; nothing returns
NaN):

* the saddle point lies beyond the last saddle point searched. The grid of
  saddle points grows in :math:`s` (:math:`s = t`, or :math:`-1 - t` on the lower
  side) while :math:`s \le 64` and beyond only while the tilted law stays away
  from a finite end of the support (its mean more than ten of its standard
  deviations from it; typical of short compositions of subsampled mechanisms,
  whose loss is bounded on one side), the estimate is above
  :math:`e^{-700}` and :math:`s \le` ``S_MAX``. Beyond it the contour integral is
  replaced by the Chernoff bound :math:`e^{K(t) - \varepsilon t}(s/(1+s))^s/(1+s)`
  at the last point, a rigorous upper bound on it (the warning is skipped when
  that bound is below :math:`e^{-690}`);
* an estimate above that Chernoff bound at :math:`t_*` (small compositions) is
  lowered to it;
* an estimate outside :math:`[\max(0, 1 - e^{\varepsilon + K(-1)}), 1]` is
  clipped into it;
* if the two Gaussian terms of :math:`\hat\delta_2` agree to 8 digits (their
  difference lost its precision), :math:`\hat\delta_1` is used there.

Valid range. Both estimates replace the tilted loss sum (the law
:math:`\propto e^{t_* l}\,dQ_L(l)`) by a normal law with its mean and variance.
Where it is far from normal, with skewness :math:`|\lambda_3| = |K'''(t_*)| /
K''(t_*)^{3/2} > 1` (``SKEWNESS_MAX``) at any evaluated point, ``delta``,
``epsilon`` and ``tradeoff`` warn, once per call, and recommend
``accountants.Numerical``. This is the regime of few effective compositions,
typically the add pair of a subsampled mechanism with few expected samples
:math:`np`: for sigma = 1, p = 0.01, delta = 1e-5 the add pair's
:math:`\varepsilon` is 22% high at n = 100 (:math:`|\lambda_3|` = 2.1) and 1.4%
low at n = 1000 (1.8), while the remove pair is within the certified bracket
(0.27, 0.12). Over DP-SGD settings (sigma in {0.65, 1, 2}, p in {1e-3, 1e-2,
0.1}, n in {10, ..., 1e4}, both pairs, delta in {1e-3, 1e-5, 1e-8}; 182 points
against Numerical's brackets) every point above the threshold had a relative
error of delta above 10%, every point below at most 8.3% (eps: 1.3%). The ratio
of the CF-S7 bound to the estimate is no such indicator: it is 1.0 for the remove
pair at n = 1e4 (eps error 2e-5), 3.7 at n = 2000 and up to 950 on accurate
points, and where a mechanism's quadrature rule misses the tilted law it can even
fall below the true error (sigma = 2, p = 0.001: :math:`P_t` came out below
:math:`|K'''|`, which bounds it from below). :math:`K'''(t_*)` comes free with the
pass over the rules that gives :math:`K, K', K''` at the saddle point.

Higher orders. ``order = J >= 3`` replaces the normal tilted law of
:math:`\hat\delta_2` by its Edgeworth expansion in the standardised tilted
cumulants :math:`\lambda_r = K^{(r)}(t_*)/K''(t_*)^{r/2}`, ``r = 3..J`` (order 3:
the :math:`\lambda_3` term; order 4: adds :math:`\lambda_4, \lambda_3^2`; term
``j`` is the one of :math:`K''^{-j/2}`), each Hermite term integrated against the
kernel in closed form (:mod:`~symfdp.accountants.saddlepoint.orders`,
``symfdp derive saddlepoint --order J``). The series is asymptotic: on DP-SGD it
improves on order 2 where :math:`n p` is large (sigma = 1, p = 0.01, n = 2000,
delta = 1e-13: delta 15% high at order 2, 8% at order 4, 5% at order 8) and
saturates where the tilted law is far from normal (small :math:`n p`), see
``benchmarks/results/saddlepoint_orders.md``.

Error estimate. ``pairs[k].delta_and_error(eps)`` and
``pairs[k].epsilon_and_error(delta)`` return the value and an estimate of its
absolute error: the spread of the orders ``J..J+3`` at the same saddle point
(for eps turned into an eps-gap by the profile's slope), at least
``0.05 lambda_3^4`` times the value (validity of the tilted law), plus the atom
term of :mod:`~symfdp.accountants._atom_term` (the excess modulus of the tilted
characteristic function: atoms, lattices, few-component mixtures); see
:meth:`~symfdp.accountants.saddlepoint.pair.SaddlePointPairCurve.delta_and_error`.

Speed: K, K', K'' (and higher) of the subsampled components come from one pass
over a cached, tilt-following quadrature rule
(:mod:`~symfdp.accountants.saddlepoint.rules`). delta(eps), vectorised over eps:
a cubic Hermite guess of the saddle point from the cached grid, one pass there
(to the order the error estimate needs), and Newton on the Taylor series of
:math:`K'` to finish the root and shift the values, so usually one pass per
point in all. eps(delta): one root in the tilt (eps(t) is explicit) by Newton
with the exact slope of :math:`\log\hat\delta_2` (orders >= 3 add the secant
slope of the smooth correction factor) from a cubic Hermite guess on the grid
(which carries :math:`K^{(3)}`), the steps taken on the Taylor series of one pass
over the rules (a new pass only where a step leaves ``TAYLOR_STEP`` of it);
the error estimate reuses the derivatives at the root. The Hermite terms of
orders >= 3 are Appell sums (a few array operations per order). Nothing
depends on the number of compositions; ``benchmarks/saddlepoint_speed.py``
and ``benchmarks/bench_analytic.py`` time the queries against a minimal NumPy
evaluation of the same formulas.

Modules: the accountant is here; the saddle-point equation and its grid are in
:mod:`~symfdp.accountants.saddlepoint.equation`, the compiled estimates and the
CF-S7 bound in :mod:`~symfdp.accountants.saddlepoint.formulas`, the tilted
Edgeworth terms in :mod:`~symfdp.accountants.saddlepoint.orders`, the tilted
cumulants in :mod:`~symfdp.accountants.saddlepoint.tilted` and
:mod:`~symfdp.accountants.saddlepoint.rules`, the choice of side (exact ends,
upper, complementary lower) and the clipping repair in
:mod:`~symfdp.accountants.saddlepoint.branches`, the records passed between them
in :mod:`~symfdp.accountants.saddlepoint.records`, and the curve of one composed
pair in :mod:`~symfdp.accountants.saddlepoint.pair`.
"""

from __future__ import annotations

import numbers
from typing import Any

from symfdp.accountants._cumulant_sums import surely_varies
from symfdp.accountants.base import DEFAULT_WARN_REL_ERROR, Accountant, Components
from symfdp.accountants.saddlepoint.equation import (
    DEGENERATE_SD,
    LOG_NEGLIGIBLE,
    S_FREE,
    S_MAX,
)
from symfdp.accountants.saddlepoint.formulas import SKEWNESS_MAX
from symfdp.accountants.saddlepoint.orders import MAX_ORDER
from symfdp.accountants.saddlepoint.pair import SaddlePointPairCurve

__all__ = [
    "DEGENERATE_SD",
    "LOG_NEGLIGIBLE",
    "SKEWNESS_MAX",
    "S_FREE",
    "S_MAX",
    "SaddlePoint",
    "SaddlePointPairCurve",
]


# ----------------------------------------------------------------- accountant
class SaddlePoint(Accountant):
    r"""The saddle-point accountant (Alghamdi et al. 2022): CGFs add over the
    composition, so the cost is independent of ``n``.

    Args:
        order: 1 for :math:`\hat\delta_1` (CF-S5), 2 for :math:`\hat\delta_2`
            (CF-S6, default), ``J`` in 3..16 for the order-``J`` tilted
            Edgeworth estimate, as the point estimate.
        warn_rel_error: Relative error estimate above which queries warn
            (used by the public curve layer).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = SaddlePoint().compose(M.Gaussian(mu=0.5), n=16)
        >>> exact = float(M.Gaussian(mu=2.0).privacy_profile(1.0))
        >>> abs(curve.delta(1.0) / exact - 1) < 1e-12
        True
    """

    method = "SaddlePoint"
    certified = False
    order: int

    def __init__(
        self, order: int = 2, *, warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR
    ) -> None:
        super().__init__(warn_rel_error=warn_rel_error)
        if (
            isinstance(order, bool)
            or not isinstance(order, numbers.Integral)
            or not 1 <= order <= MAX_ORDER
        ):
            raise ValueError(
                f"order must be an integer in [1, {MAX_ORDER}]. Found {order!r}."
            )
        self.order = int(order)

    def _is_identity(self, components: Components) -> bool:
        """The base check, skipped when a component's loss surely varies
        (:func:`~symfdp.accountants._cumulant_sums.surely_varies`): the method
        needs no cumulants of its own."""
        if surely_varies(components):
            return False
        return super()._is_identity(components)

    def compose_pair(self, components: Components) -> Any:
        symmetric = all(m.is_symmetric for m, _ in components)
        return SaddlePointPairCurve(components, self.order, symmetric)

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        info["order"] = self.order
        info["error_bound"] = (
            "pairs[k].delta_error_bound(eps): the CF-S7 bound on the error of the "
            "approximation (asymptotic, not certified); pairs[k].delta_and_error("
            "eps) / epsilon_and_error(delta): value and error estimate (spread of "
            "the orders J..J+3, validity floor 0.05 lambda_3^4, plus the atom term)"
        )
        return info

    def __repr__(self) -> str:
        return f"SaddlePoint(order={self.order})"
