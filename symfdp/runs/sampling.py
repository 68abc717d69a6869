"""A run under other batch samplers: one statement per sampler, or all of them.

A :class:`~symfdp.runs.run.Run` of a subsampled family describes Poisson
sampling; :class:`SamplerRequest` asks what the same run may report when its
batches are picked otherwise (:mod:`symfdp.samplers`): the step mechanism is the
family's base (``subsampled-gaussian`` -> the Gaussian with the same ``sigma``),
the sampler is built from the run's rate, steps and DP-SGD form
(``dataset_size``, ``batch_size``) and ``max_batch``, and each answer is
certified, typed two-sided, upper or lower
(:class:`~symfdp.samplers.records.Guarantee`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from symfdp.adjacency import Adjacency
from symfdp.mechanisms.base import Mechanism
from symfdp.runs.build import build_mechanism
from symfdp.runs.catalog import sampler_names
from symfdp.runs.errors import RequestError
from symfdp.runs.run import Run
from symfdp.samplers import ComparisonRow, RunShape, compare_samplers

#: ``--sampler all``.
ALL = "all"


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplerRequest:
    """epsilon(delta) of ``run`` under each of ``samplers``.

    Args:
        run: The run (a subsampled family: its rate describes the batches).
        deltas: Target deltas in (0, 1).
        samplers: Sampler names (:func:`~symfdp.runs.catalog.sampler_names`),
            or ``("all",)``.
        max_batch: Largest batch of truncated Poisson sampling.
        cycle_length: Groups of cyclic Poisson sampling.

    Raises:
        RequestError: the first problem, naming the fields.
    """

    run: Run
    deltas: tuple[float, ...]
    samplers: tuple[str, ...] = (ALL,)
    max_batch: int | None = None
    cycle_length: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.run, Run):
            raise RequestError(f"{{run}} must be a Run. Found {self.run!r}.")
        if self.run.adjacency is not Adjacency.ADD_OR_REMOVE:
            raise RequestError(
                "{adjacency} is the samplers' own (add_or_remove; replace_one for "
                f"fixed batches). Found {self.run.adjacency.value}."
            )
        if not self.deltas or not all(0 < d < 1 for d in self.deltas):
            raise RequestError(
                "{delta} must be one or more values in (0, 1). "
                f"Found {self.deltas!r}."
            )
        known = sampler_names()
        names = known if tuple(self.samplers) == (ALL,) else tuple(self.samplers)
        for n in names:
            if n not in known:
                raise RequestError(
                    f"{{sampler}} must be one of {', '.join((*known, ALL))}. "
                    f"Found {n!r}."
                )
        for field in ("max_batch", "cycle_length"):
            value = getattr(self, field)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise RequestError(
                    f"{{{field}}} must be an integer >= 1. Found {value!r}."
                )
        object.__setattr__(self, "samplers", names)
        object.__setattr__(self, "deltas", tuple(float(d) for d in self.deltas))

    @property
    def shape(self) -> RunShape:
        """What the run says about its batches."""
        e = self.run.epochs
        return RunShape(
            steps=self.run.steps,
            sample_rate=self.run.sample_rate,
            batch_size=None if e is None else e.batch_size,
            dataset_size=None if e is None else e.dataset_size,
            max_batch=self.max_batch,
            cycle_length=self.cycle_length,
        )

    def describe(self) -> str:
        """The run, its step mechanism and the deltas, in one line."""
        ds = ", ".join(f"{d:g}" for d in self.deltas)
        step = step_mechanism(self.run)
        return f"{self.run.describe()}; step mechanism {step!r}; delta={ds}"


@dataclass(frozen=True, slots=True)
class SamplerResult:
    """One :class:`~symfdp.samplers.ComparisonRow` per sampler."""

    request: SamplerRequest
    rows: tuple[ComparisonRow, ...]

    def as_json(self) -> dict[str, Any]:
        """The result as plain JSON data."""
        return {
            **self.request.run.as_json(),
            "deltas": list(self.request.deltas),
            "max_batch": self.request.max_batch,
            "cycle_length": self.request.cycle_length,
            "samplers": [r.as_json() for r in self.rows],
        }


def step_mechanism(run: Run) -> Mechanism:
    """The mechanism of one step with the record in the batch: the family's
    base for a subsampled family, else the family's mechanism."""
    m = build_mechanism(run)
    base = getattr(m, "base", None)
    return base if isinstance(base, Mechanism) and run.family.subsampled else m


def account_samplers(request: SamplerRequest) -> SamplerResult:
    """Every requested sampler's certified answer (or its reason)."""
    rows = compare_samplers(
        step_mechanism(request.run),
        request.shape,
        deltas=request.deltas,
        samplers=request.samplers,
    )
    return SamplerResult(request, rows)


__all__ = [
    "ALL",
    "SamplerRequest",
    "SamplerResult",
    "account_samplers",
    "step_mechanism",
]
