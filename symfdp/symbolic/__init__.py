r"""Exact symbolic derivations (SymPy only, Rationals only, no floats).

Submodules, each with one job:

- :mod:`~symfdp.symbolic.symbols`: the canonical symbols (``x``, ``z``, ``n``,
  ``lam(r)`` = :math:`\lambda_r`, ...) and the undefined functions ``Phi``, ``phi``,
  ``Phi_inv``.
- :mod:`~symfdp.symbolic.cumulants`: raw moments <-> cumulants (Bell polynomials),
  standardised cumulants.
- :mod:`~symfdp.symbolic.hermite`: probabilists' Hermite polynomials :math:`He_k`.
- :mod:`~symfdp.symbolic.edgeworth`: Edgeworth CDF/PDF of any order.
- :mod:`~symfdp.symbolic.cornish_fisher`: Cornish–Fisher quantile of any order.
- :mod:`~symfdp.symbolic.saddlepoint`: saddle-point accountant formulas.
- :mod:`~symfdp.symbolic.gdp_fit`: the local GDP parameter of an Edgeworth
  curve to order :math:`n^{-1/2}` (why GDP fits).

The package imports nothing heavy: ``import symfdp.symbolic`` does not import SymPy
(the numeric layer locates these modules without loading them); each submodule is
loaded on first attribute access.
"""

from __future__ import annotations

import importlib
from typing import Any

_SUBMODULES = frozenset(
    {
        "cornish_fisher",
        "cumulants",
        "edgeworth",
        "functionals",
        "gdp_fit",
        "hermite",
        "plrv",
        "saddlepoint",
        "symbols",
    }
)

__all__ = sorted(_SUBMODULES)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"symfdp.symbolic.{name}")
    raise AttributeError(f"module 'symfdp.symbolic' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES)
