r"""``Edgeworth``: the two-sided Edgeworth approximation of Zheng et al. (2020), Sec. 3.

The composed loss :math:`T_n = \sum_i L_i` has summed cumulants :math:`K^P_r`,
:math:`K^Q_r` under P and Q (Zheng et al. (2020), eq. (A.2);
:mod:`symfdp.accountants._cumulant_sums`). With :math:`m = K_1`, :math:`s =
\sqrt{K_2}` per law, the standardised laws are replaced by their order-``J``
Edgeworth expansions :math:`\tilde F_P, \tilde F_Q` in :math:`\lambda_r =
K_r/K_2^{r/2}` (:class:`~symfdp.numeric.edgeworth.EdgeworthDistribution`):

* **trade-off** (eq. (3.5), the two-sided formula), with :math:`\alpha = P_P(T_n >
  \tau)`,

  .. math::  f(\alpha) = \tilde F_Q\Big(\frac{m_P + s_P\, x(\alpha) - m_Q}{s_Q}\Big),
             \qquad x(\alpha) = \tilde F_P^{-1}(1 - \alpha),

  :math:`x` from the inverse survival function (``inverse="numerical"``, Method
  (i)) or the Cornish–Fisher polynomial in :math:`z = \Phi^{-1}(1-\alpha)`
  (``inverse="cornish_fisher"``, Method (ii), eq. (3.9) for ``J = 2``);
* **profile** (the tail formula, Zheng et al. (2020), Lemma 5.1):

  .. math::  \tilde\delta(\varepsilon) = \tilde S_Q\Big(\frac{\varepsilon -
             m_Q}{s_Q}\Big) - e^{\varepsilon}\, \tilde S_P\Big(\frac{\varepsilon -
             m_P}{s_P}\Big),

  from the Horner coefficients of :mod:`symfdp.numeric.edgeworth`; it
  is never larger than the conjugate :math:`1 + f^*(-e^\varepsilon)` of the
  approximate trade-off, and equal where the approximate likelihood ratio is exact;
* **error estimate** (:meth:`EdgeworthPairCurve._delta_answer`): three times the
  largest change of the tail formula between consecutive orders ``J - 1 .. J + 2``
  plus the size of any repair; for epsilon divided by :math:`|\tilde\delta'|`, and
  ``inf`` where that band reaches the end of an empty upper tail of the
  Q-expansion (:meth:`EdgeworthPairCurve._tail_end_error`).

Order 0 is the two-sided normal approximation (:math:`G_\mu` when :math:`s_P =
s_Q`); for the Gaussian mechanism every order is exact. Cost independent of ``n``
for a homogeneous composition.

**Repairs** (each recorded in the answer, :class:`~symfdp.curve.Repair`; the
curve warns):

1. *Invalid CDFs.* Outside :meth:`EdgeworthDistribution.valid_interval` each law
   uses the normal-tail splice of :mod:`symfdp.numeric.edgeworth`. If the
   expansion reaches 0 or 1 before its density vanishes, the spliced tail is empty
   and :math:`\tilde\delta = 0` beyond :math:`\varepsilon^* = m_Q + s_Q b_Q`:
   anti-conservative wherever the composed loss
   (:meth:`~symfdp.mechanisms.Mechanism.plrv_support`) can exceed it (not for the
   bounded Laplace pair of Zheng et al. Sec. 5.2). Queries there
   warn separately and ``info["zero_mass_tail_eps"]`` records :math:`\varepsilon^*`;
   :class:`~symfdp.accountants.Numerical` is the method for such (strongly skewed,
   short) compositions.
2. *Trade-off.* Values above :math:`1 - \alpha` are clipped, and the curve is
   replaced by its greatest convex minorant (lower convex hull of the hull's nodes
   on :func:`~symfdp.numeric.tabulate.alpha_grid` and the queried points); both
   only lower :math:`f`. :meth:`EdgeworthPairCurve.raw_tradeoff` is unrepaired.
3. *Cornish–Fisher.* Beyond the interval :math:`[z_-, z_+] \ni 0` where :math:`x(z)`
   increases, :math:`x(z) = x(z_\pm) + (z - z_\pm)` (Zheng et al. (2020), Fig. 3.1:
   the raw polynomial is non-monotone for small ``n``).
4. *Profile.* Negative values are set to 0; a profile that is not non-increasing is
   replaced by its smallest non-increasing majorant :math:`\hat\delta(\varepsilon) =
   \sup_{s \ge \varepsilon}\tilde\delta(s)` (conservative). Maxima are located on a
   grid of spacing 1/15 over :math:`\pm 40` standard deviations (valid-interval ends
   as nodes) from the sign changes of :math:`\tilde\delta'(\varepsilon) = -\tilde
   q(\varepsilon) + e^\varepsilon(\tilde p(\varepsilon) - \tilde S_P(\varepsilon))`;
   a wiggle narrower than the grid could be missed.
"""

from __future__ import annotations

from typing import Any

from symfdp._validation import check_choice, check_order
from symfdp.accountants._cumulant_sums import summed_cumulants, surely_varies
from symfdp.accountants.base import (
    DEFAULT_WARN_REL_ERROR,
    Accountant,
    Components,
    loss_range,
)
from symfdp.accountants.edgeworth.pair import INVERSES, EdgeworthPairCurve
from symfdp.curve import PairCurve

__all__ = ["INVERSES", "Edgeworth", "EdgeworthPairCurve"]


class Edgeworth(Accountant):
    r"""Two-sided Edgeworth approximation of order ``J`` (Zheng et al. 2020).

    Args:
        order: Number of :math:`n^{-1/2}` correction terms (``0`` = two-sided normal
            approximation; ``2`` = the paper's "degree 2"). Any ``J >= 0``.
        inverse: ``"numerical"`` (Method (i), default) or ``"cornish_fisher"``
            (Method (ii)) for :math:`F_P^{-1}`.
        warn_rel_error: Estimated relative error above which a query warns
            (the error estimate of the pair curves, module docstring).

    An approximation, not a bound; ``curve.info["pairs"]`` holds per-direction
    diagnostics.

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = Edgeworth(order=2).compose(M.Gaussian(mu=1.0), n=4)
        >>> exact = M.Gaussian(mu=2.0).tradeoff(0.5)
        >>> bool(abs(curve.tradeoff(0.5) - exact) < 1e-12)
        True

    Raises:
        ValueError: ``order`` is not a non-negative integer or ``inverse`` unknown.
    """

    method = "Edgeworth"

    def __init__(
        self,
        order: int = 2,
        inverse: str = "numerical",
        *,
        warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR,
    ) -> None:
        super().__init__(warn_rel_error=warn_rel_error)
        self.order = check_order(order)
        self.inverse = check_choice("inverse", inverse, INVERSES)

    @property
    def cumulant_order(self) -> int:  # type: ignore[override]
        """``J + 4``: the next two orders' terms of the error estimate too."""
        return self.order + 4

    def _is_identity(self, components: Components) -> bool:
        """The base check, skipped when a component's loss surely varies
        (:func:`~symfdp.accountants._cumulant_sums.surely_varies`)."""
        if surely_varies(components):
            return False
        return super()._is_identity(components)

    def compose_pair(self, components: Components) -> PairCurve:
        k_p = summed_cumulants(components, self.cumulant_order, "P")
        k_q = summed_cumulants(components, self.cumulant_order, "Q")
        return EdgeworthPairCurve._fit(
            k_p, k_q, self.order, self.inverse, loss_range(components)[1]
        )

    def describe(self, components: Components) -> dict[str, Any]:
        info = super().describe(components)
        info.update({"order": self.order, "inverse": self.inverse})
        return info

    def __repr__(self) -> str:
        return f"Edgeworth(order={self.order}, inverse={self.inverse!r})"
