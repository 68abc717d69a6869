r"""Summed cumulants of a composition under P and Q (for the expansion accountants).

For a composition of independent pairs, the privacy-loss variable is
:math:`T_n = \sum_i L_i` and its cumulants add (Zheng et al. (2020), eq. (A.2)):

.. math::  K_r = \sum_i n_i\, \kappa_r(L_i), \qquad r = 1, 2, \dots

under P and under Q separately, cached per mechanism: a homogeneous composition
costs one evaluation whatever ``n`` is (Zheng et al. (2020), Sec. 3.3). Mechanism
families that compute many settings at once (a classmethod ``_cumulants_many``,
e.g. the subsampled Gaussian) are summed as one matrix product.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from symfdp.mechanisms.base import Mechanism, Under
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian

FloatArray = NDArray[np.float64]

#: Distinct (mechanism, order, under) entries kept in the cache.
CACHE_SIZE = 4096


@functools.lru_cache(maxsize=CACHE_SIZE)
def mechanism_cumulants(mechanism: Mechanism, order: int, under: Under) -> FloatArray:
    r"""Cumulants :math:`\kappa_1..\kappa_{order}` of one pair's loss, cached.

    Returns a read-only array.

    Raises:
        FloatingPointError: the mechanism returned non-finite cumulants.
    """
    values = np.array(mechanism.cumulants(order, under), dtype=np.float64)
    if values.shape != (order,) or not np.all(np.isfinite(values)):
        raise FloatingPointError(
            f"{mechanism!r}.cumulants({order}, {under!r}) returned {values!r}; "
            "expected finite values."
        )
    values.setflags(write=False)
    return values


def surely_varies(components: Sequence[tuple[Mechanism, int]]) -> bool:
    r"""Whether the composed loss of one direction surely has a variance far
    from 0 (a subsampled Gaussian with ``mu >= 1e-3``, ``p >= 1e-12``), without
    computing cumulants; ``False`` means "not known"."""

    return any(
        isinstance(m, SubsampledGaussian) and m.mu >= 1e-3 and m.p >= 1e-12
        for m, _ in components
    )


def summed_cumulants(
    components: Sequence[tuple[Mechanism, int]], order: int, under: Under
) -> FloatArray:
    r""":math:`K_r = \sum_i n_i \kappa_r(L_i)`, :math:`r = 1..order`, under P or Q.

    Args:
        components: ``(pair mechanism, count)`` tuples (one direction of a
            composition, see :func:`symfdp.accountants.base.pair_compositions`).
        order: Highest cumulant order.
        under: ``"P"`` or ``"Q"``.
    """
    total = np.zeros(order)
    rest: list[tuple[Mechanism, int]] = []
    families: dict[Any, list[tuple[Mechanism, int]]] = {}
    by_type: dict[type, list[tuple[Mechanism, int]]] = {}
    for component in components:
        by_type.setdefault(type(component[0]), []).append(component)
    for kind, members in by_type.items():
        many = getattr(kind, "_cumulants_many", None)
        if many is None:
            rest.extend(members)
        else:
            families.setdefault(many, []).extend(members)
    for many, members in families.items():
        if len(members) == 1:
            rest.extend(members)
            continue
        rows, served = many([m for m, _ in members], order, under)
        counts = np.array([n for _, n in members], dtype=np.float64)
        total += counts[served] @ rows[served]
        rest.extend(c for c, s in zip(members, served, strict=True) if not s)
    for mechanism, count in rest:
        total += count * mechanism_cumulants(mechanism, order, under)
    return total
