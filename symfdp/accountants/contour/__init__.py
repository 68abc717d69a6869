r"""``Contour``: the privacy profile as a contour integral, evaluated numerically.

Direction as in :mod:`symfdp.accountants.saddlepoint`: symfdp's loss is
:math:`L = \log dQ/dP`, :math:`\delta(\varepsilon) = E_Q[(1 - e^{\varepsilon -
L})_+]`, and the slides' :math:`K_L` is :math:`K(z) = \sum_i n_i \log M_i(z)`,
:math:`M_i(z) = E_Q[e^{zL_i}]`.

Upper side (Alghamdi et al. 2022, CF-S3). For every :math:`t > 0` with
:math:`K(t) < \infty`,

.. math::  \delta(\varepsilon) = \frac{1}{2\pi}\int_{-\infty}^{\infty}
           e^{F_\varepsilon(t + is)}\,ds, \qquad F_\varepsilon(z) = K(z) -
           z\varepsilon - \log z - \log(1+z),

an equality (Fourier inversion of :math:`E_Q[h(L)]` with the two-sided Laplace
transform :math:`\int e^{-zl}(1 - e^{\varepsilon - l})_+\,dl =
e^{-z\varepsilon}/(z(1+z))`). It holds for any such :math:`t`; the accountant
takes the saddle point :math:`t_*` (CF-S4, :math:`K'(t) = \varepsilon + 1/t +
1/(1+t)`), where the integrand is concentrated on a scale :math:`\sigma =
F''_\varepsilon(t_*)^{-1/2}` and does not oscillate near :math:`s = 0`.

Lower side. For :math:`\varepsilon` below the split point
:math:`\varepsilon_{mid} = K'(-\tfrac12)` (0 for symmetric pairs) the saddle
point would approach the pole at 0, and the complementary representation is
used (the line moved across the poles at 0 and -1, residues 1 and
:math:`-e^{\varepsilon + K(-1)}`):

.. math::  \delta(\varepsilon) = 1 - e^{\varepsilon + K(-1)} + \frac{1}{2\pi}
           \int e^{F_\varepsilon(t + is)}\,ds, \qquad t < -1,

with the saddle point :math:`t_* < -1` of the same equation; both terms are
non-negative, so no cancellation occurs. Only mutually continuous pairs are
served, so :math:`K(-1) = 0`. Exactly, :math:`\delta = 0` for
:math:`\varepsilon \ge \operatorname{ess\,sup} L` and :math:`\delta = 1 -
e^{\varepsilon}` for :math:`\varepsilon \le \operatorname{ess\,inf} L`.

Middle line. For a strongly distinguishing pair (e.g. DP-SGD with
:math:`p = 0.1`, :math:`n = 10^6`) and :math:`\varepsilon` many standard
deviations inside the bulk, both saddle points above lie next to a pole
(:math:`\min(|t|, |1+t|)\sqrt{K''(t)}` below ``POLE_RATIO``) and the
integrand is a slowly decaying oscillation :math:`\approx e^{is/t}/(1 +
is/t)`. There the line through the saddle point :math:`-1 < t_* < 0` of the
same equation is used: crossing the pole at 0 gives :math:`\delta = 1 +
\frac{1}{2\pi}\int e^{F_\varepsilon(t+is)}ds` (the integral is
:math:`-(1-\delta) < 0`), accurate where :math:`\delta` is close to 1, which
is where this happens.

Trade-off. For a continuous loss the Neyman–Pearson test that rejects when
:math:`L > \varepsilon` gives the exact point :math:`(\alpha, f(\alpha)) =
(P_P(L > \varepsilon), P_Q(L \le \varepsilon)) = (-e^{-\varepsilon}
\delta'(\varepsilon), 1 - \delta(\varepsilon) + \delta'(\varepsilon))`
(Dong et al. 2019, Prop. 2.8, the supporting line of slope
:math:`-e^{\varepsilon}`); :math:`\delta'` and :math:`\delta''` are the
contour integrals with the extra factors :math:`-z` and :math:`z^2` on the same
nodes.

Evaluation. :math:`K(z)` comes from the components' complex log-MGFs
(:mod:`symfdp.mechanisms._complex_mgf`): closed form for the Gaussian, a cached
trapezoid rule in the Gaussian variable for the subsampled Gaussian. For
integer counts :math:`e^{\sum_i n_i \operatorname{Log} M_i(z)} = \prod_i
M_i(z)^{n_i}` for the principal logarithm, so no branch of the logarithm
matters. The real part of the integrand is even in :math:`s`, so
:math:`\delta = \frac{1}{\pi}\int_0^\infty \operatorname{Re}
e^{F_\varepsilon(t+is)}\,ds`, integrated by the trapezoid rule after the
substitution :math:`s = \sigma \sinh u` (which turns the algebraic decay
:math:`|z(1+z)|^{-1}` of a slowly decaying characteristic function into an
exponential one). The rule starts with ``N0`` nodes on :math:`[0, U_0]`,
:math:`U_0 = \operatorname{asinh} 40`, and doubles the nodes (halving the step,
or doubling :math:`U` while the integrand at :math:`U` is not negligible) until
the step-halving change is below ``TRAP_RTOL`` relative, up to ``max_nodes``.
Cost: independent of the number of compositions.

Error estimate (:meth:`ContourPairCurve.delta_and_error`). The step-halving
difference :math:`|I_h - I_{h/2}|` (the trapezoid rule of an integrand analytic
in a strip converges geometrically, so it bounds the error of the finer value
once the rule converges; Trefethen & Weideman 2014, Sec. 5), plus the truncation
(:math:`|\text{integrand}|` near :math:`U` times its e-folding length in
:math:`u`), plus the rounding of the exponent (:math:`2^{-52}` times
:math:`\sum |\text{term}|(4 + \text{magnitudes of the exponent's terms})`,
and the same for the normalisation :math:`K(t_*) - t_*\varepsilon`). The
halving difference is a generous estimate (the finer value is usually far
better: a measured 1e-16 where the estimate says 1e-10), and never small where
the rule is still far from converged. Where the rule has not converged within
``max_nodes`` (too few compositions: the characteristic function of the tilted
loss does not decay, e.g. a near-atom for a small expected number of sampled
steps :math:`np`), the estimate is ``inf`` and ``delta``/``epsilon`` raise
``ValueError`` naming Numerical. The saddle-point solve needs no tolerance of
its own: any :math:`t` on the correct side gives the exact integral,
:math:`t_*` only makes it cheap.

Refused (``ValueError`` at ``compose``): losses with atoms or a lattice
(``PureDP``, ``Laplace``, ``SubsampledLaplace``), for which the integrand does
not decay in :math:`s`; their mechanisms report ``continuous_loss = False``.
"""

from __future__ import annotations

from typing import Any

from symfdp._validation import check_int
from symfdp.accountants.base import DEFAULT_WARN_REL_ERROR, Accountant, Components
from symfdp.accountants.contour._integral import MAX_NODES, N0
from symfdp.accountants.contour._pair import ContourPairCurve, refusal

__all__ = ["Contour", "ContourPairCurve"]


class Contour(Accountant):
    r"""The privacy profile as the exact contour integral of Alghamdi et al.
    (2022), CF-S3, evaluated numerically along the line through the saddle
    point; the cost is independent of ``n``.

    Serves compositions of Gaussian and Poisson-subsampled Gaussian mechanisms
    (any mix, add/remove/both); refuses losses with atoms (``ValueError``
    naming ``accountants.Numerical``).

    Args:
        max_nodes: Node cap of the trapezoid rule per eps (beyond it the
            integral is declared not converged).
        warn_rel_error: Relative error estimate above which the public queries
            warn (used by :class:`~symfdp.curve.PrivacyCurve`).

    Example:
        >>> from symfdp import mechanisms as M
        >>> curve = Contour().compose(M.Gaussian(mu=0.5), n=16)
        >>> exact = float(M.Gaussian(mu=2.0).privacy_profile(1.0))
        >>> abs(curve.delta(1.0) / exact - 1) < 1e-10
        True
    """

    method = "Contour"
    certified = False
    identity_without_variance = False  # an atom at 0: refused like every atom

    def __init__(
        self,
        max_nodes: int = MAX_NODES,
        *,
        warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR,
    ) -> None:
        super().__init__(warn_rel_error=warn_rel_error)
        self.max_nodes = check_int("max_nodes", max_nodes, lo=4 * N0, hi=2**20)

    def compose_pair(self, components: Components) -> Any:
        for m, _ in components:
            if not getattr(m, "continuous_loss", False):
                raise ValueError(refusal(m))
        symmetric = all(m.is_symmetric for m, _ in components)
        return ContourPairCurve(components, symmetric, self.max_nodes)

    def __repr__(self) -> str:
        return f"Contour(max_nodes={self.max_nodes})"
