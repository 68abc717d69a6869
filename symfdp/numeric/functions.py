r"""Numeric implementations of the undefined functions of the symbolic layer.

:mod:`symfdp.symbolic.symbols` declares :math:`\Phi`, :math:`\phi`,
:math:`\Phi^{-1}` and :math:`\log\Phi` as undefined SymPy functions; compiled
evaluators call these SciPy/NumPy implementations (:data:`NUMERIC_FUNCS`), and
the disk cache resolves generated code against the same table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import scipy.special as special

_INV_SQRT_2PI: Final = 1.0 / math.sqrt(2.0 * math.pi)


def normal_pdf(x: Any) -> Any:
    r"""The standard normal density :math:`\phi(x) = e^{-x^2/2}/\sqrt{2\pi}`."""
    return np.exp(-0.5 * np.square(x)) * _INV_SQRT_2PI


#: Numeric implementations of the undefined functions of ``symfdp.symbolic.symbols``.
NUMERIC_FUNCS: Final[dict[str, Callable[..., Any]]] = {
    "Phi": special.ndtr,
    "phi": normal_pdf,
    "Phi_inv": special.ndtri,
    "log_Phi": special.log_ndtr,
}
