"""The mechanism of one step of a :class:`~symfdp.runs.run.Run`.

Under ``replace_one`` a symmetric family's values move by twice the sensitivity
bound, so its effect size doubles (``Gaussian(mu)`` becomes ``Gaussian(2 mu)``,
dp-accounting's ``REPLACE_ONE`` on a Gaussian event); a subsampled family uses
its own replace-one pair (:func:`symfdp.mechanisms.with_adjacency`).
"""

from __future__ import annotations

from typing import Any

from symfdp.adjacency import Adjacency
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
    if run.adjacency is Adjacency.REPLACE_ONE and not run.family.subsampled:
        # The values move by twice the sensitivity bound: mu doubles.
        m = type(m)(mu=2.0 * m.mu)
    return with_adjacency(m, run.adjacency.value)
