r"""Trade-off functions and their calculus (f-DP, Dong, Roth and Su 2019).

A trade-off function :math:`f = T(P, Q)` maps a type I error :math:`\alpha` to
the smallest type II error of a level-:math:`\alpha` test of P against Q. The
objects here are small, immutable descriptions evaluated on arrays::

    from symfdp import tradeoff as T
    f = T.Subsampled(T.Gaussian(1.8), p=0.35)     # C_p(G_mu), Dong et al. eq. (14)
    f(np.linspace(0, 1, 5)); f.privacy_profile([0.5, 1.0]); f.fixed_point()
    T.mu_star_gamma(f)                            # Zheng et al. (2020), Sec. 4

Classes: :class:`TradeOff` (the base), :class:`Gaussian`, :class:`EpsDelta`,
:class:`Laplace`, :class:`Identity`, :class:`Mixture`, :class:`Inverse`,
:class:`Symmetrized`, :class:`Subsampled`, :class:`ScaledByDelta`,
:class:`GroupPrivacy`, :class:`Tabulated`, :class:`FromPrivacyProfile`.

Functions: :func:`inverse`, :func:`symmetrize`, :func:`subsample`,
:func:`subsampled_eps_delta`, :func:`group_privacy`, :func:`compose_gaussian`,
:func:`conjugate`, :func:`privacy_profile`, :func:`tradeoff_from_profile`,
:func:`fixed_point`, :func:`auc`, :func:`mu_star_gamma`,
:func:`compare_mu_star_gamma`.

These names (``__all__``) are the whole public namespace; ``dir()`` lists only
them, and the submodules are implementation detail.
"""

from __future__ import annotations

import math as _math
from typing import Any as _Any

from symfdp._validation import check_real as _check_real
from symfdp.tradeoff._base import Inverse, TradeOff
from symfdp.tradeoff._base import check_tradeoff as _check_tradeoff
from symfdp.tradeoff.duality import conjugate, privacy_profile, tradeoff_from_profile
from symfdp.tradeoff.hull import Symmetrized
from symfdp.tradeoff.interpret import (
    auc,
    compare_mu_star_gamma,
    fixed_point,
    mu_star_gamma,
)
from symfdp.tradeoff.operators import GroupPrivacy, Mixture, ScaledByDelta
from symfdp.tradeoff.primitives import EpsDelta, Gaussian, Identity, Laplace
from symfdp.tradeoff.sampling import Subsampled, subsampled_eps_delta
from symfdp.tradeoff.tabulated import FromPrivacyProfile, Tabulated


def inverse(f: TradeOff) -> TradeOff:
    r""":math:`f^{-1}(\alpha) = \inf\{t : f(t) \le \alpha\}`.

    Dong et al. (2019), eq. (4).
    """
    return _check_tradeoff("f", f).inverse()


def symmetrize(f: TradeOff) -> TradeOff:
    r""":math:`\min\{f, f^{-1}\}^{**}` (``f`` itself when it is symmetric)."""
    f = _check_tradeoff("f", f)
    return f if f.is_symmetric else Symmetrized(f)


def subsample(f: TradeOff, p: float) -> TradeOff:
    r"""The sampling operator :math:`C_p(f)`, Dong et al. (2019), Def. 4.1."""
    return Subsampled(_check_tradeoff("f", f), p)


def group_privacy(f: TradeOff, k: int) -> TradeOff:
    r""":math:`1 - (1-f)^{\circ k}` (Dong et al. 2019, Thm `groupthm`).

    In closed form for :math:`G_\mu` (:math:`G_{k\mu}`) and the Laplace family.
    """
    g = GroupPrivacy(_check_tradeoff("f", f), k)
    return g.closed_form if g.closed_form is not None else g


def compose_gaussian(*mus: _Any) -> Gaussian:
    r""":math:`G_{\mu_1} \otimes \cdots \otimes G_{\mu_n} = G_{\sqrt{\mu_1^2 + \cdots
    + \mu_n^2}}`, Dong et al. (2019), Cor. 3.3.

    Args:
        *mus: Each a number :math:`\mu_i \ge 0` or a :class:`Gaussian`.
    """
    values = [
        m.mu if isinstance(m, Gaussian) else _check_real("mu", m, 0.0) for m in mus
    ]
    return Gaussian(_math.hypot(*values))


__all__ = [
    "EpsDelta",
    "FromPrivacyProfile",
    "Gaussian",
    "GroupPrivacy",
    "Identity",
    "Inverse",
    "Laplace",
    "Mixture",
    "ScaledByDelta",
    "Subsampled",
    "Symmetrized",
    "Tabulated",
    "TradeOff",
    "auc",
    "compare_mu_star_gamma",
    "compose_gaussian",
    "conjugate",
    "fixed_point",
    "group_privacy",
    "inverse",
    "mu_star_gamma",
    "privacy_profile",
    "subsample",
    "subsampled_eps_delta",
    "symmetrize",
    "tradeoff_from_profile",
]


def __dir__() -> list[str]:
    return sorted(__all__)
