"""symfdp: a symbolic-numeric toolkit for f-differential privacy.

SymPy derives the mathematics once (cumulants, Edgeworth and Cornish–Fisher
expansions of any order, saddle-point formulas, functionals of trade-off curves);
the derived expressions are compiled into cached, vectorised NumPy evaluators, and
the accountants built on them return :class:`~symfdp.curve.PrivacyCurve` objects.

The default is certified: :class:`~symfdp.accountants.Numerical` returns a bracket
that contains the exact epsilon(delta) (publish its upper end)::

    >>> from symfdp import accountants as A, mechanisms as M
    >>> m = M.SubsampledGaussian(sigma=1.0, p=0.01)  # one DP-SGD step
    >>> lo, hi = A.Numerical().compose(m, n=2000).epsilon_bounds(1e-5)
    >>> print(f"epsilon(1e-5) in [{lo:.5f}, {hi:.5f}]")
    epsilon(1e-5) in [2.58363, 2.58423]

An approximation is fast but not a bound; read it with its error estimate::

    >>> fast = A.SaddlePoint().compose(m, n=2000)
    >>> print(f"{fast.epsilon(1e-5):.4f} +- {fast.epsilon_error(1e-5):.2g}")
    2.5744 +- 0.013

Submodules are imported lazily, so that ``import symfdp`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from symfdp._version import __version__
from symfdp._warnings import ApproximationWarning

_SUBMODULES = frozenset(
    {
        "accountants",
        "calibrate",
        "curve",
        "export",
        "functionals",
        "interop",
        "mechanisms",
        "numeric",
        "plotting",
        "reference",
        "rero",
        "risk",
        "runs",
        "sweeps",
        "symbolic",
        "tradeoff",
        "training",
    }
)
_LAZY_ATTRS = {
    "from_dp_event": ("symfdp.interop.dp_events", "from_dp_event"),
    "PrivacyCurve": ("symfdp.curve", "PrivacyCurve"),
    "TrainingAccountant": ("symfdp.training", "TrainingAccountant"),
    "sweep": ("symfdp.sweeps", "sweep"),
}

__all__ = [
    "ApproximationWarning",
    "PrivacyCurve",
    "TrainingAccountant",
    "__version__",
    "from_dp_event",
    "sweep",
]

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.curve import PrivacyCurve
    from symfdp.interop.dp_events import from_dp_event
    from symfdp.sweeps import sweep
    from symfdp.training import TrainingAccountant


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"symfdp.{name}")
    if name in _LAZY_ATTRS:
        module, attr = _LAZY_ATTRS[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'symfdp' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _SUBMODULES | set(_LAZY_ATTRS))
