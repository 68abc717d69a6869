r"""Certified numerical composition of privacy-loss distributions (PLDs).

The privacy profile of an :math:`n`-fold composition only needs the law of the
composed loss :math:`T = \sum_i L_i` under :math:`Q` (Zheng et al. 2020, Lemma 5.1):

.. math::  \delta(\varepsilon) = E_Q[(1 - e^{\varepsilon - T})_+].

This package brackets it from both sides, following the algorithm's nouns (one
concept per module):

* :mod:`~symfdp.pld.cells` -- tail-stable PLRV cell masses from the mechanism CDFs;
* :mod:`~symfdp.pld.grid` -- the grid step, per-component ranges and alignment;
* :mod:`~symfdp.pld.discretise` -- a *dominating* discrete pair (connect the dots)
  and a *dominated* one (barycentric rounding), both on the grid;
* :mod:`~symfdp.pld.window` -- Chernoff bounds that size the FFT window;
* :mod:`~symfdp.pld.compose` -- FFT composition with a floating-point error bound;
* :mod:`~symfdp.pld.profile` -- :math:`\delta(\varepsilon)`, its inverse and the
  trade-off of a discrete composed PLD, vectorised with suffix sums.

The accountant :class:`symfdp.accountants.Numerical` assembles them.
"""

from __future__ import annotations

from symfdp.pld.compose import ComposedPLD, compose_fft
from symfdp.pld.discretise import (
    DiscretePLD,
    discretise,
    discretise_many,
    dominated_pld,
    dominating_pld,
)
from symfdp.pld.grid import ComponentGrid, choose_step, component_grid
from symfdp.pld.profile import DiscreteProfile

__all__ = [
    "ComponentGrid",
    "ComposedPLD",
    "DiscretePLD",
    "DiscreteProfile",
    "choose_step",
    "component_grid",
    "compose_fft",
    "discretise",
    "discretise_many",
    "dominated_pld",
    "dominating_pld",
]
