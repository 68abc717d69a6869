"""The mechanism of one step of a :class:`~symfdp.runs.run.Run`.

The relation is applied by :func:`symfdp.mechanisms.with_adjacency`: under
``replace_one`` a shift family's effect size doubles (``Gaussian(mu)`` becomes
``Gaussian(2 mu)``, dp-accounting's ``REPLACE_ONE`` on a Gaussian event) and a
subsampled family uses its own replace-one pair.
"""

from __future__ import annotations

from typing import Any

from symfdp.mechanisms import REGISTRY, with_adjacency
from symfdp.mechanisms.base import Mechanism
from symfdp.runs.errors import RequestError
from symfdp.runs.run import Run


def build_mechanism(run: Run) -> Mechanism:
    """The mechanism of one step of ``run`` under its relation.

    Raises:
        RequestError: the run gives no parameter (a calibration's run).
    """
    if run.parameter is None:
        wanted = " or ".join(f"{{{k}}}" for k in run.family.parameters)
        raise RequestError(f"{run.mechanism} needs {wanted}.")
    kwargs: dict[str, Any] = dict([run.parameter])
    if run.sample_rate is not None:
        kwargs["p"] = run.sample_rate
    m: Any = REGISTRY[run.mechanism](**kwargs)
    return with_adjacency(m, run.adjacency.value)
