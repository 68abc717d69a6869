r"""``Contour``: the privacy profile as a contour integral, evaluated numerically.

Notation as in :mod:`symfdp.accountants.saddlepoint`; here :math:`K(z) = \sum_i n_i
\log M_i(z)`, :math:`M_i(z) = E_Q[e^{zL_i}]`. For every :math:`t > 0` with
:math:`K(t) < \infty` (Alghamdi et al. 2022, CF-S3; an equality by Fourier inversion)

.. math::  \delta(\varepsilon) = \frac{1}{2\pi}\int_{-\infty}^{\infty}
           e^{F_\varepsilon(t + is)}\,ds, \qquad F_\varepsilon(z) = K(z) -
           z\varepsilon - \log z - \log(1+z);

:math:`t` is the saddle point of CF-S4, where the integrand does not oscillate.
Below :math:`\varepsilon_{mid} = K'(-\tfrac12)` the line :math:`t < -1` is used,
:math:`\delta = 1 - e^{\varepsilon + K(-1)} + \frac{1}{2\pi}\int e^{F_\varepsilon}ds`
(residues at 0 and -1; both terms non-negative). Where both saddle points lie next
to a pole (:math:`\min(|t|, |1+t|)\sqrt{K''(t)}` below ``POLE_RATIO``, e.g. DP-SGD
at :math:`p = 0.1`, :math:`n = 10^6`) the line :math:`-1 < t < 0` gives
:math:`\delta = 1 + \frac{1}{2\pi}\int e^{F_\varepsilon}ds`, accurate where
:math:`\delta \approx 1`. Exact ends: :math:`\delta = 0` for :math:`\varepsilon \ge
\operatorname{ess\,sup} L`, :math:`1 - e^{\varepsilon}` for :math:`\varepsilon \le
\operatorname{ess\,inf} L`.

Trade-off: the Neyman–Pearson point :math:`(\alpha, f(\alpha)) =
(-e^{-\varepsilon}\delta'(\varepsilon), 1 - \delta(\varepsilon) +
\delta'(\varepsilon))` (Dong et al. 2019, Prop. 2.8); :math:`\delta'`,
:math:`\delta''` are the same integrals with the factors :math:`-z`, :math:`z^2`.

Evaluation: :math:`K` from the components' complex log-MGFs
(:mod:`symfdp.mechanisms._complex_mgf`; integer counts make the branch irrelevant);
:math:`\delta = \frac{1}{\pi}\int_0^\infty \operatorname{Re} e^{F_\varepsilon(t+is)}ds`
by the trapezoid rule in :math:`s = \sigma \sinh u`, nodes doubled until the change
is below ``TRAP_RTOL``, up to ``max_nodes``. Cost independent of ``n``.

Error estimate (:meth:`ContourPairCurve.evaluate`): the step-halving
difference (geometric convergence for integrands analytic in a strip, Trefethen &
Weideman 2014, Sec. 5) plus the truncation and the rounding of the exponent; ``inf``
when the rule has not converged within ``max_nodes`` (a non-decaying characteristic
function, e.g. small :math:`np`), and then ``delta``/``epsilon`` raise ``ValueError``
naming Numerical.

Refused at ``compose`` (``ValueError`` saying why and naming Numerical): laws
without a complex log-MGF (``Mechanism.complex_log_mgf`` None: losses with
atoms, user pairs, replace-one mixture pairs) and losses with atoms.
"""

from __future__ import annotations

from typing import Any

from symfdp._validation import check_int
from symfdp.accountants.base import DEFAULT_WARN_REL_ERROR, Accountant, Components
from symfdp.accountants.contour._integral import MAX_NODES, N0
from symfdp.accountants.contour._pair import ContourPairCurve, refusal

__all__ = ["Contour", "ContourPairCurve"]


class Contour(Accountant):
    r"""The contour integral of Alghamdi et al. (2022), CF-S3, for compositions of
    Gaussian and Poisson-subsampled Gaussian mechanisms (any mix and pair).

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
            if not m.continuous_loss or m.complex_log_mgf() is None:
                raise ValueError(refusal(m))
        symmetric = all(m.is_symmetric for m, _ in components)
        return ContourPairCurve(components, symmetric, self.max_nodes)

    def __repr__(self) -> str:
        return f"Contour(max_nodes={self.max_nodes})"
