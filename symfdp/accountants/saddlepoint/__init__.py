r"""``SaddlePoint``: the saddle-point accountant of Alghamdi et al. (2022).

The slides' loss :math:`\log dP/dQ` is symfdp's :math:`L = \log dQ/dP` read under
:math:`Q`: :math:`\delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - L})_+]` and
:math:`K(t) = \sum_i n_i K_i(t)`, :math:`K_i` = ``m_i.cgf(t, under="Q")``.

Upper side. :math:`\delta(\varepsilon) = \frac{1}{2\pi}\int e^{F_\varepsilon(t+is)}ds`,
:math:`F_\varepsilon(z) = K(z) - z\varepsilon - \log z - \log(1+z)`, :math:`t > 0`
(CF-S3); the saddle point solves :math:`K'(t) = \varepsilon + 1/t + 1/(1+t)` (CF-S4);

.. math::  \hat\delta_1 = \frac{e^{K(t_*) - \varepsilon t_*}}{\sqrt{2\pi[t_*^2
           (1+t_*)^2 K''(t_*) + t_*^2 + (1+t_*)^2]}}, \qquad
           \hat\delta_2 = e^{K(t_*) - \varepsilon t_*}\, E[e^{t_*(\varepsilon - Z)}
           (1 - e^{\varepsilon - Z})_+]

with :math:`Z \sim N(K'(t_*), K''(t_*))` (CF-S5, CF-S6; closed forms in
:mod:`symfdp.symbolic.saddlepoint`, proofs in ``derivations/saddlepoint_formulas.py``).

Lower side. Below :math:`\varepsilon_{mid} = K'(-\tfrac12)` the saddle point
approaches the pole at 0, so the complementary representation
:math:`\delta = 1 - e^{\varepsilon + K(-1)} + E_Q[(e^{\varepsilon - L} - 1)_+]` is
used, its integral taken on :math:`t < -1` (the mirror :math:`z \mapsto -1 - z`).
Exact ends: :math:`\delta = 0` for :math:`\varepsilon \ge \operatorname{ess\,sup}
L`, :math:`1 - e^{\varepsilon + K(-1)}` for :math:`\varepsilon \le
\operatorname{ess\,inf} L`.

Error bound (CF-S7), implemented as printed (constant 1; the paper, arXiv
2208.09595, is not among the sources):

.. math::  |\delta - \hat\delta_2| \le e^{K(t_*) - \varepsilon t_*}
           \Big(\frac{t_*}{1+t_*}\Big)^{t_*} \frac{P_{t_*}}{K''(t_*)^{3/2}},
           \qquad P_t = \sum_i n_i E|\tilde L_i - E\tilde L_i|^3.

A Berry–Esseen reading gives :math:`2C/(1+t_*)` for the constant, :math:`\le 1` for
:math:`t_* \ge 0.12` with :math:`C \le 0.56` (Dong et al. 2019, Thm D.4). It bounds
an asymptotic approximation, so SaddlePoint is not ``certified``;
``pairs[k].delta_error_bound(eps)`` reports it.

Repairs (never NaN): beyond the last saddle point searched (``S_MAX``) and for
estimates above it, the Chernoff bound :math:`e^{K(t) - \varepsilon t}(s/(1+s))^s/
(1+s)`, an upper bound whose error estimate is the bracket down to the floor below;
estimates outside :math:`[\max(0, 1 - e^{\varepsilon + K(-1)}), 1]` are clipped and
:math:`\hat\delta_1` is used where the two Gaussian terms of :math:`\hat\delta_2`
cancel to 8 digits (each with an :class:`~symfdp.ApproximationWarning`).

Proven brackets. :math:`\max(1 - e^{\varepsilon + K(-1)}, Q(L = b)(1 -
e^{\varepsilon - b}))_+ \le \delta(\varepsilon) \le \min(\min_t e^{K(t) -
\varepsilon t}(t/(1+t))^t/(1+t), (1 - e^{\varepsilon - b})_+)` (:math:`b` the top of
the loss, the minimum over the saddle grid's tilts), and the inverse bracket of
:math:`\varepsilon(\delta)`; every error estimate is at most the distance to the far
end of its bracket, which the answers carry as ``lower, upper``.

Valid range. Where the tilted skewness :math:`|\lambda_3| = |K'''(t_*)| /
K''(t_*)^{3/2}` exceeds ``SKEWNESS_MAX`` (few effective compositions), the error
estimates' floor :math:`0.05\lambda_3^4` of delta exceeds the default
``warn_rel_error`` of 5%, so queries warn and recommend ``accountants.Numerical``
(errors on DP-SGD: ``benchmarks/results/accuracy_map.md``).

Higher orders. ``order = J >= 3`` replaces the normal tilted law by its Edgeworth
expansion in :math:`\lambda_r = K^{(r)}(t_*)/K''(t_*)^{r/2}`, ``r = 3..J``
(:mod:`~symfdp.accountants.saddlepoint.orders`); the series is asymptotic
(``benchmarks/results/saddlepoint_orders.md``). ``curve.delta_error`` /
``epsilon_error`` estimate the error from the spread of orders ``J..J+3``, at
least ``0.05 lambda_3^4`` of the value, plus the atom term of
:mod:`~symfdp.accountants.saddlepoint.atom_term` (the excess modulus of the tilted
characteristic function over the normal one: atoms, lattices, few-component
mixtures that no order sees). The trade-off's estimate is the larger move of its
supporting lines when the profile table takes the ends of its error estimates,
through the points where the convex profile may dip between the table's nodes
(:func:`~symfdp.accountants.saddlepoint.tradeoff.hidden_points`).
Cost independent of ``n`` (``benchmarks/saddlepoint_speed.py``, ``bench_analytic.py``).
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
        """The base check, skipped when a component's loss surely varies."""
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
            "approximation (asymptotic, not certified); curve.delta_error(eps) / "
            "epsilon_error(delta): the error estimate (spread of "
            "the orders J..J+3, validity floor 0.05 lambda_3^4, plus the atom term)"
        )
        return info

    def __repr__(self) -> str:
        return f"SaddlePoint(order={self.order})"
