"""The one polynomial kernel of the Edgeworth evaluators: Horner's rule over
stacked coefficient arrays, and the powers for the matrix form of the same sums.

Every polynomial of :mod:`symfdp.numeric.edgeworth` (the correction ``R_J``, the
density factor ``q_J``, the order differences, the Cornish–Fisher quantile) is
evaluated here, for one law (:class:`~.distribution.EdgeworthDistribution`) or
both laws of a pair at once (:class:`~.pair_tails.TailKernel`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


def horner(coeffs: FloatArray, x: FloatArray) -> FloatArray:
    """Polynomials with ascending coefficients ``coeffs[k]`` at ``x`` (Horner).

    ``coeffs`` has shape ``(deg + 1, *S)``: one polynomial per index of ``S``;
    the result has the broadcast shape of ``S`` and ``x`` (a polynomial of
    ``S``'s index at the ``x`` it broadcasts against).
    """
    if len(coeffs) == 1:
        return cast(
            FloatArray,
            np.zeros(np.broadcast_shapes(coeffs.shape[1:], np.shape(x))) + coeffs[0],
        )
    out = coeffs[-1] * x
    out += coeffs[-2]
    for c in coeffs[-3::-1]:
        out *= x
        out += c
    return cast(FloatArray, out)


def stack_coefficients(polys: Sequence[Sequence[FloatArray]]) -> FloatArray:
    """Ascending coefficients ``polys[law][k]`` as one ``(deg + 1, L, K, 1)``
    array, zero padded to a common degree of at least 1 (a zero leading
    coefficient leaves a polynomial's values unchanged): :func:`horner` of it
    at ``x[:, None, :]`` (``x`` of shape ``(L, N)``) is ``(L, K, N)``."""
    deg = max(2, *(len(c) for row in polys for c in row))
    out = np.zeros((deg, len(polys), len(polys[0]), 1))
    for i, row in enumerate(polys):
        for k, c in enumerate(row):
            out[: len(c), i, k, 0] = c
    return out


def powers(x: FloatArray, count: int) -> FloatArray:
    r"""``(L, count, N)``: :math:`x^0, \dots, x^{count - 1}` of ``x`` ``(L, N)``
    (each the previous times ``x``, in one accumulation)."""
    out = np.empty((x.shape[0], count, x.shape[1]))
    out[:, 0] = 1.0
    out[:, 1:] = x[:, None, :]
    np.multiply.accumulate(out, axis=1, out=out)
    return out
