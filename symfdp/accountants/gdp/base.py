r"""The template of the Gaussian-DP methods: one symmetric :math:`G_\mu` curve
per composition (:class:`GDPAccountant`)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from symfdp.accountants.base import OnePairAccountant
from symfdp.curve import PairCurve


class GDPAccountant(OnePairAccountant):
    r"""A Gaussian-DP method: one symmetric curve built from a parameter
    :math:`\mu` (``info["mu"]``) of the whole composition (CLT, Berry–Esseen).
    A composition without variance is :math:`\mathrm{Id} = G_0`, with the
    summary :attr:`identity_summary`."""

    #: The summary of the :math:`\mathrm{Id}` curve.
    identity_summary: ClassVar[Mapping[str, Any]] = MappingProxyType({"mu": 0.0})

    def summary(self, pairs: tuple[PairCurve, ...]) -> dict[str, Any]:
        """The pair's own ``info`` (:attr:`identity_summary` for Id, whose
        pair has none)."""
        info = pairs[0].info
        return dict(info if info else self.identity_summary)
