r"""The swapped pair :math:`(Q, P)` of a mechanism :math:`(P, Q)`.

Its PLRV is :math:`L' = \log dP/dQ = -L`, with :math:`L'` under :math:`P' = Q`
distributed as :math:`-L` under Q, so

* :math:`P_{P'}(L' \le l) = P_Q(L \ge -l)`;
* :math:`\kappa_r(L' \mid P') = (-1)^r \kappa_r(L \mid Q)`;
* :math:`K_{P'}(t) = \log E_Q[e^{-tL}] = K_P(1 - t)` and :math:`K_{Q'}(t) = K_P(-t)`;
* :math:`T(Q, P) = T(P, Q)^{-1}` (Dong et al. 2019, Sec. 2.1).
"""

from __future__ import annotations

from symfdp.mechanisms.base import Swapped

__all__ = ["Swapped"]
