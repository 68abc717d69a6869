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

import math
from dataclasses import dataclass
from typing import ClassVar, cast

from symfdp.mechanisms.base import Pair, Param
from symfdp.mechanisms.laplace import Laplace
from symfdp.mechanisms.subsampled import PoissonSubsampled


@dataclass(frozen=True, init=False, repr=False)
class SubsampledLaplace(PoissonSubsampled):
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

    @property
    def mu(self) -> float:
        """Effect size of one step."""
        return float(cast(Laplace, self.base).mu)

    def __repr__(self) -> str:
        return f"SubsampledLaplace(p={self.p!r}, mu={self.mu!r}, pair={self.pair!r})"
