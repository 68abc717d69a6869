r"""The Poisson-subsampled Laplace mechanism.

Add pair :math:`P = \mathrm{Lap}(0,1)`,
:math:`Q = (1-p)\,\mathrm{Lap}(0,1) + p\,\mathrm{Lap}(\mu,1)` (Kaissis et al. 2023,
Sec. 2, SLM; Zheng et al. 2020, Sec. 5.2 uses the unsubsampled pair), trade-off
:math:`p f_{\mathrm{Lap},\mu} + (1-p)\mathrm{Id}`; the remove pair is its swap and
``pair="both"`` covers both (see :class:`PoissonSubsampled`). The PLRV has atoms
at :math:`\ell(\pm\mu)` and a smooth part, so the base Gauss–Legendre rule makes
every expectation spectrally accurate.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from symfdp.mechanisms.base import FloatArray, Mechanism, Pair, Param
from symfdp.mechanisms.laplace import Laplace
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.user_defined import from_log_likelihood_ratio


@dataclass(frozen=True, init=False, repr=False)
class SubsampledLaplace(PoissonSubsampled, base_family=Laplace):
    """Poisson-subsampled Laplace mechanism.

    Args:
        p: Sampling probability, ``0 < p <= 1``.
        mu: Effect size of one step (sensitivity / scale), ``mu >= 0``.
        pair: Deprecated (``DeprecationWarning``): give the relation to
            ``compose(..., adjacency=)``. ``"add"``, ``"remove"`` or ``"both"``
            (the default, add-or-remove; its PLRV methods describe the add pair).
    """

    name: ClassVar[str] = "subsampled-laplace"
    PARAMS: ClassVar[dict[str, Param]] = {
        "p": Param("sampling probability", (0.0, 1.0), (1e-4, 1.0), lo_open=True),
        "mu": Param("effect size Delta_1 / b", (0.0, math.inf), (0.05, 5.0)),
    }

    def __init__(self, p: float, mu: float, pair: Pair | None = None) -> None:
        object.__setattr__(self, "base", Laplace(mu))
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "pair", pair)
        object.__setattr__(self, "_cache", {})
        self.__post_init__()

    @classmethod
    def _from_base(cls, base: Mechanism, p: float) -> Mechanism:
        return cls(p=p, mu=cast(Laplace, base).mu)

    @property
    def mu(self) -> float:
        """Effect size of one step."""
        return float(cast(Laplace, self.base).mu)

    def replace_one(self) -> Mechanism:
        r"""The dominating pair under replace-one neighbours,

        .. math::  P = (1-p)\,\mathrm{Lap}(0,1) + p\,\mathrm{Lap}(\mu,1), \qquad
                   Q = (1-p)\,\mathrm{Lap}(0,1) + p\,\mathrm{Lap}(-\mu,1),

        symmetric under :math:`x \mapsto -x` (the replace-one pair of a
        Poisson-sampled additive-noise mechanism, as dp-accounting's ``REPLACE``
        adjacency for the Gaussian; at ``p = 1`` the Laplace mechanism with
        effect size :math:`2\mu`), by quadrature between the kinks
        :math:`-\mu, 0, \mu` (:func:`~symfdp.mechanisms.from_log_likelihood_ratio`;
        the loss is constant, an atom, beyond :math:`\pm\mu`)."""
        if self.mu == 0.0 or self.p == 1.0:
            return Laplace(mu=2.0 * self.mu)
        args = (math.log1p(-self.p), math.log(self.p), self.mu)
        return from_log_likelihood_ratio(
            functools.partial(_replace_one_llr, *args),
            functools.partial(_log_mixture, *args),
            breakpoints=(-self.mu, 0.0, self.mu),
            log_density=True,
            symmetric=True,
            name=f"replace-one SubsampledLaplace(p={self.p!r}, mu={self.mu!r})",
        )

    def __repr__(self) -> str:
        return f"SubsampledLaplace(p={self.p!r}, mu={self.mu!r}, pair={self.pair!r})"


def _log_mixture(log_keep: float, log_p: float, shift: float, x: Any) -> FloatArray:
    r""":math:`\log((1-p)\tfrac12 e^{-|x|} + p\tfrac12 e^{-|x - shift|})`."""
    xs = np.asarray(x, dtype=np.float64)
    return np.logaddexp(log_keep - np.abs(xs), log_p - np.abs(xs - shift)) - math.log(
        2.0
    )


def _replace_one_llr(log_keep: float, log_p: float, mu: float, x: Any) -> FloatArray:
    r""":math:`L = \log q/p` of the replace-one pair (see ``replace_one``)."""
    return _log_mixture(log_keep, log_p, -mu, x) - _log_mixture(log_keep, log_p, mu, x)
