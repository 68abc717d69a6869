"""The application layer: typed requests in, typed results out.

The command line (``symfdp account``, ``symfdp calibrate``), sweeps
(:mod:`symfdp.sweeps`) and ``TrainingAccountant`` describe their work with the
same records and run it with the same functions::

    from symfdp import runs
    run = runs.Run(mechanism="subsampled-gaussian", sigma=1.1,
                   sample_rate=0.004, steps=60_000)
    result = runs.account(runs.AccountRequest(run=run, deltas=(1e-5,)))
    result.results[0].epsilon_bounds          # certified: (lo, hi)

* :class:`Run` (and :func:`make_run`, from rates and counts or epochs), the
  composition; :class:`MethodSpec`, a method and its options;
* :class:`AccountRequest` -> :func:`account` -> :class:`AccountResult` (a
  :class:`MethodResult` per method: values, bracket or error estimate,
  guarantee, mu*, time, warnings, or the reason it failed);
* :class:`CalibrateRequest` -> :func:`calibrate` -> :class:`CalibrateResult`;
* :class:`RequestError`: an invalid request, its fields spelled per front end.

The names are imported on first use, so that ``symfdp --help`` (which lists
the methods and mechanisms through :mod:`symfdp.runs.methods` and
:mod:`symfdp.runs.catalog`) imports no accountant.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY = {
    "Adjacency": "symfdp.adjacency",
    "RequestError": "symfdp.runs.errors",
    "Family": "symfdp.runs.catalog",
    "families": "symfdp.runs.catalog",
    "MethodSpec": "symfdp.runs.methods",
    "make_accountant": "symfdp.runs.methods",
    "normalize_method": "symfdp.runs.methods",
    "Epochs": "symfdp.runs.run",
    "Run": "symfdp.runs.run",
    "make_run": "symfdp.runs.run",
    "MU_NOTE": "symfdp.runs.records",
    "AccountRequest": "symfdp.runs.records",
    "AccountResult": "symfdp.runs.records",
    "MethodResult": "symfdp.runs.records",
    "EpsilonAnswer": "symfdp.runs.records",
    "DeltaAnswer": "symfdp.runs.records",
    "CalibrateRequest": "symfdp.runs.records",
    "CalibrateResult": "symfdp.runs.records",
    "Achieved": "symfdp.runs.records",
    "SearchCost": "symfdp.runs.records",
    "SOLVE_FOR": "symfdp.runs.records",
    "build_mechanism": "symfdp.runs.build",
    "account": "symfdp.runs.accounting",
    "methods_serving": "symfdp.runs.accounting",
    "calibrate": "symfdp.runs.calibration",
    "mu_star": "symfdp.runs.summary",
    "sampler_names": "symfdp.runs.catalog",
    "SamplerRequest": "symfdp.runs.sampling",
    "SamplerResult": "symfdp.runs.sampling",
    "account_samplers": "symfdp.runs.sampling",
    "RiskRequest": "symfdp.runs.risk",
    "RiskResult": "symfdp.runs.risk",
    "MethodRisk": "symfdp.runs.risk",
    "assess": "symfdp.runs.risk",
}

__all__ = [
    "MU_NOTE",
    "SOLVE_FOR",
    "AccountRequest",
    "AccountResult",
    "Achieved",
    "Adjacency",
    "CalibrateRequest",
    "CalibrateResult",
    "DeltaAnswer",
    "Epochs",
    "EpsilonAnswer",
    "Family",
    "MethodResult",
    "MethodRisk",
    "MethodSpec",
    "RequestError",
    "RiskRequest",
    "RiskResult",
    "Run",
    "SamplerRequest",
    "SamplerResult",
    "SearchCost",
    "account",
    "account_samplers",
    "assess",
    "build_mechanism",
    "calibrate",
    "families",
    "make_accountant",
    "make_run",
    "methods_serving",
    "mu_star",
    "normalize_method",
    "sampler_names",
]

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.adjacency import Adjacency
    from symfdp.runs.accounting import account, methods_serving
    from symfdp.runs.build import build_mechanism
    from symfdp.runs.calibration import calibrate
    from symfdp.runs.catalog import Family, families, sampler_names
    from symfdp.runs.errors import RequestError
    from symfdp.runs.methods import MethodSpec, make_accountant, normalize_method
    from symfdp.runs.records import (
        MU_NOTE,
        SOLVE_FOR,
        AccountRequest,
        AccountResult,
        Achieved,
        CalibrateRequest,
        CalibrateResult,
        DeltaAnswer,
        EpsilonAnswer,
        MethodResult,
        SearchCost,
    )
    from symfdp.runs.run import Epochs, Run, make_run
    from symfdp.runs.sampling import SamplerRequest, SamplerResult, account_samplers
    from symfdp.runs.summary import mu_star


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'symfdp.runs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
