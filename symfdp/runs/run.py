r"""A run: one mechanism of a family, composed ``steps`` times under a relation.

A DP-SGD run with Poisson sampling is ``steps`` compositions of the subsampled
Gaussian :math:`C_p(G_{1/\sigma})` (Dong et al. 2019, Thm 5.1, NoisySGD); any
family of :func:`~symfdp.runs.catalog.families` may be named, with its one
parameter (``sigma``, ``mu`` or ``eps``). DP-SGD users may give epochs instead
of the rate and the count (:class:`Epochs`): ``sample_rate = batch_size /
dataset_size`` and ``steps = ceil(epochs * dataset_size / batch_size)``.

A run describes; :func:`symfdp.runs.build.build_mechanism` builds its mechanism.
Validating a run reads only the source's catalogue (no NumPy, no mechanism
imported), so that a mistake on the command line is reported at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from symfdp._limits import MAX_COMPOSITIONS
from symfdp.adjacency import Adjacency
from symfdp.runs.catalog import Family, families
from symfdp.runs.errors import RequestError


def _family(name: object) -> Family:
    found = families()
    if not isinstance(name, str) or name not in found:
        raise RequestError(
            f"unknown {{mechanism}} {name!r}; choose from {', '.join(found)}."
        )
    return found[name]


def _or(fields: tuple[str, ...]) -> str:
    return " or ".join(f"{{{k}}}" for k in fields)


def _real(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise RequestError(f"{{{name}}} must be a number. Found {value!r}.")
    x = float(value)
    if not math.isfinite(x):
        raise RequestError(f"{{{name}}} must be finite. Found {value!r}.")
    return x


def _count(name: str, value: object) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{{{name}}} must be an integer. Found {value!r}.")
    return value


def check_parameters(
    mechanism: str, given: dict[str, float | None], *, required: bool
) -> dict[str, float]:
    """The one parameter of ``mechanism`` among ``given`` (``{name: value or
    None}``), checked: it applies to the family, is the only one, and lies in
    its range (``sigma > 0``; ``mu, eps >= 0``).

    Raises:
        RequestError: the first problem, naming the fields.
    """
    family = _family(mechanism)
    named = [k for k, v in given.items() if v is not None]
    extra = [k for k in named if k not in family.parameters]
    if extra:
        raise RequestError(
            f"{{{extra[0]}}} does not apply to {mechanism}; it takes "
            f"{_or(family.parameters)}."
        )
    if not named and required:
        raise RequestError(f"{mechanism} needs {_or(family.parameters)}.")
    if len(named) > 1:
        raise RequestError(f"give one of {{{named[0]}}} and {{{named[1]}}}, not both.")
    out: dict[str, float] = {}
    for name in named:
        value = _real(name, given[name])
        if name == "sigma" and value <= 0:
            raise RequestError(f"{{sigma}} must be > 0. Found {value:g}.")
        if value < 0:
            raise RequestError(f"{{{name}}} must be >= 0. Found {value:g}.")
        out[name] = value
    return out


def check_adjacency(mechanism: str, adjacency: object) -> Adjacency:
    """``adjacency`` as an :class:`~symfdp.adjacency.Adjacency` that
    ``mechanism`` serves.

    Raises:
        RequestError: an unknown relation, or ``replace_one`` for a family
            without a replace-one pair.
    """
    family = _family(mechanism)
    try:
        relation = Adjacency.parse(adjacency)
    except ValueError:
        names = ", ".join(a.value for a in Adjacency)
        raise RequestError(
            f"{{adjacency}} must be one of {names}. Found {adjacency!r}."
        ) from None
    if relation is not Adjacency.REPLACE_ONE:
        return relation
    if family.subsampled and not family.replace_one:
        raise RequestError(
            f"{{adjacency}} replace_one is not served for {mechanism}: under "
            "replace-one neighbours Poisson sampling has its own dominating "
            "pair (a mixture over the replaced and the replacing record), "
            "implemented for subsampled-gaussian. Use add_or_remove."
        )
    if not family.subsampled and "mu" not in family.parameters:
        raise RequestError(
            f"{{adjacency}} replace_one does not apply to {mechanism}: its "
            f"{_or(family.parameters)} is the guarantee of one step under the "
            "relation you state."
        )
    return relation


@dataclass(frozen=True, slots=True)
class Epochs:
    """A DP-SGD schedule: ``epochs`` passes over ``dataset_size`` records in
    Poisson batches of expected size ``batch_size``.

    Args:
        epochs: Number of epochs, > 0 (a float is read as the decimal it
            prints, so that ``0.1 * 1000 / 100`` is 1 step, not 2).
        dataset_size: Number of records, >= 1.
        batch_size: Expected batch size, in [1, dataset_size].

    Raises:
        RequestError: a value outside its range.
    """

    epochs: Fraction | float
    dataset_size: int
    batch_size: int

    def __post_init__(self) -> None:
        epochs = self.epochs
        if isinstance(epochs, float) and math.isfinite(epochs):
            epochs = Fraction(repr(epochs))
        if isinstance(epochs, bool) or not isinstance(epochs, (int, Fraction)):
            raise RequestError(f"{{epochs}} must be a number. Found {epochs!r}.")
        epochs = Fraction(epochs)
        if epochs <= 0:
            raise RequestError(f"{{epochs}} must be > 0. Found {float(epochs):g}.")
        size = _count("dataset_size", self.dataset_size)
        batch = _count("batch_size", self.batch_size)
        if size < 1:
            raise RequestError(f"{{dataset_size}} must be >= 1. Found {size}.")
        if not 1 <= batch <= size:
            raise RequestError(
                f"{{batch_size}} must lie in [1, {{dataset_size}} = {size}]. "
                f"Found {batch}."
            )
        object.__setattr__(self, "epochs", epochs)
        object.__setattr__(self, "dataset_size", size)
        object.__setattr__(self, "batch_size", batch)

    @property
    def sample_rate(self) -> float:
        """``batch_size / dataset_size``."""
        return self.batch_size / self.dataset_size

    @property
    def steps(self) -> int:
        """``ceil(epochs * dataset_size / batch_size)``, in exact arithmetic."""
        return math.ceil(self.epochs * self.dataset_size / self.batch_size)

    def describe(self) -> str:
        """The conversion spelled out, with its numbers."""
        return (
            f"sample_rate = batch_size/dataset_size = {self.batch_size}/"
            f"{self.dataset_size} = {self.sample_rate:.6g}; steps = "
            f"ceil(epochs*dataset_size/batch_size) = ceil({float(self.epochs):g}*"
            f"{self.dataset_size}/{self.batch_size}) = {self.steps}"
        )

    def as_json(self) -> dict[str, Any]:
        """The schedule and the rule that turns it into a rate and a count."""
        return {
            "epochs": float(self.epochs),
            "dataset_size": self.dataset_size,
            "batch_size": self.batch_size,
            "rule": "sample_rate = batch_size/dataset_size, "
            "steps = ceil(epochs*dataset_size/batch_size)",
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """``steps`` compositions of one mechanism of a family, under ``adjacency``.

    Args:
        mechanism: A family of :func:`~symfdp.runs.catalog.families`.
        steps: Number of compositions, in [1, 2**53].
        sample_rate: Poisson sampling probability in (0, 1] (subsampled
            families only, and required there).
        sigma, mu, eps: The family's parameter (at most one; a calibration's
            run has none: sigma is its answer).
        adjacency: The neighbouring relation (default add-or-remove).
        epochs: The DP-SGD schedule ``sample_rate`` and ``steps`` came from,
            if any (they must agree with it).

    Raises:
        RequestError: the first problem, naming the fields.
    """

    mechanism: str = "subsampled-gaussian"
    steps: int
    sample_rate: float | None = None
    sigma: float | None = None
    mu: float | None = None
    eps: float | None = None
    adjacency: Adjacency = Adjacency.ADD_OR_REMOVE
    epochs: Epochs | None = None

    def __post_init__(self) -> None:
        family = _family(self.mechanism)
        given = {"sigma": self.sigma, "mu": self.mu, "eps": self.eps}
        for name, value in check_parameters(
            self.mechanism, given, required=False
        ).items():
            object.__setattr__(self, name, value)
        object.__setattr__(
            self, "adjacency", check_adjacency(self.mechanism, self.adjacency)
        )
        if family.subsampled and self.sample_rate is None:
            raise RequestError(
                f"{self.mechanism} needs {{sample_rate}} (or {{epochs}}, "
                "{dataset_size} and {batch_size})."
            )
        if not family.subsampled and self.sample_rate is not None:
            raise RequestError(
                "{sample_rate} applies to subsampled mechanisms only (not "
                f"{self.mechanism})."
            )
        if self.sample_rate is not None:
            rate = _real("sample_rate", self.sample_rate)
            if not 0 < rate <= 1:
                raise RequestError(
                    f"{{sample_rate}} must lie in (0, 1]. Found {rate:g}."
                )
            object.__setattr__(self, "sample_rate", rate)
        steps = _count("steps", self.steps)
        if steps < 1:
            raise RequestError(f"{{steps}} must be >= 1. Found {steps}.")
        if steps > MAX_COMPOSITIONS:
            raise RequestError(
                f"{{steps}} must be at most {MAX_COMPOSITIONS} (2**53, the largest "
                f"count any accountant serves). Found {steps:.4g}."
            )
        object.__setattr__(self, "steps", steps)
        if self.epochs is not None:
            if not isinstance(self.epochs, Epochs):
                raise RequestError(
                    f"{{epochs}} must be an Epochs. Found {self.epochs!r}."
                )
            if (self.sample_rate, steps) != (
                self.epochs.sample_rate,
                self.epochs.steps,
            ):
                raise RequestError(
                    "{sample_rate} and {steps} must be those of {epochs} "
                    f"({self.epochs.sample_rate!r} and {self.epochs.steps}). Found "
                    f"{self.sample_rate!r} and {steps}."
                )

    @property
    def family(self) -> Family:
        """The family's entry in the catalogue."""
        return families()[self.mechanism]

    @property
    def parameter(self) -> tuple[str, float] | None:
        """``(name, value)`` of the mechanism's parameter, or None."""
        for name in ("sigma", "mu", "eps"):
            value = getattr(self, name)
            if value is not None:
                return name, float(value)
        return None

    @property
    def pair(self) -> str | None:
        """The relation in the ``pair`` column's words for a subsampled family
        (``"both"``, ``"add"``, ``"remove"``, ``"replace_one"``); None otherwise."""
        return self.adjacency.pair if self.family.subsampled else None

    def with_sigma(self, sigma: float) -> Run:
        """This run with noise multiplier ``sigma`` (a calibration's answer)."""
        return Run(
            mechanism=self.mechanism,
            steps=self.steps,
            sample_rate=self.sample_rate,
            sigma=sigma,
            adjacency=self.adjacency,
            epochs=self.epochs,
        )

    def describe(self) -> str:
        """One line: mechanism, parameter, sampling and number of steps."""
        given = self.parameter
        parts = [] if given is None else [f"{given[0]}={given[1]:g}"]
        replace = self.adjacency is Adjacency.REPLACE_ONE
        if self.sample_rate is not None:
            parts.append(f"sample_rate={self.sample_rate:g}")
            parts.append("adjacency=replace_one" if replace else f"pair={self.pair}")
        elif replace:
            parts.append("adjacency=replace_one (mu doubled)")
        steps = "1 step" if self.steps == 1 else f"{self.steps} steps"
        return f"{self.mechanism}({', '.join(parts)}) x {steps}"

    def as_json(self) -> dict[str, Any]:
        """The run's fields as plain JSON data."""
        name, value = self.parameter or (None, None)
        return {
            "mechanism": self.mechanism,
            "parameters": {} if name is None else {name: value},
            "sample_rate": self.sample_rate,
            "steps": self.steps,
            "pair": self.pair,
            "adjacency": self.adjacency.value,
            "derived": None if self.epochs is None else self.epochs.as_json(),
        }


def make_run(
    mechanism: str,
    *,
    sigma: float | None = None,
    mu: float | None = None,
    eps: float | None = None,
    sample_rate: float | None = None,
    steps: int | None = None,
    epochs: Fraction | float | None = None,
    dataset_size: int | None = None,
    batch_size: int | None = None,
    adjacency: Adjacency | str | None = None,
    parameter: bool = True,
) -> Run:
    """A :class:`Run` from what a user gave: a sampling rate and a count, or the
    DP-SGD form (``epochs``, ``dataset_size`` and ``batch_size`` together).

    Args:
        mechanism: The family.
        sigma, mu, eps: Its parameter (exactly one with ``parameter=True``,
            none with ``parameter=False``: a calibration's run).
        adjacency: The relation; None for add-or-remove.

    Raises:
        RequestError: the first problem, naming the fields (``{epochs}``,
            ``{sample_rate}``...).
    """
    family = _family(mechanism)
    given = {"sigma": sigma, "mu": mu, "eps": eps}
    if parameter:
        check_parameters(mechanism, given, required=True)
    relation = check_adjacency(
        mechanism, Adjacency.ADD_OR_REMOVE if adjacency is None else adjacency
    )
    form = {"epochs": epochs, "dataset_size": dataset_size, "batch_size": batch_size}
    named = [k for k, v in form.items() if v is not None]
    schedule = None
    if named:
        if not family.subsampled:
            raise RequestError(
                f"{{{named[0]}}} applies to subsampled mechanisms only (not "
                f"{mechanism}); give {{steps}}."
            )
        clash = [
            k
            for k, v in (("sample_rate", sample_rate), ("steps", steps))
            if v is not None
        ]
        if clash:
            raise RequestError(
                f"{{{clash[0]}}} conflicts with {{{named[0]}}}: give either "
                "{sample_rate} and {steps}, or {epochs}, {dataset_size} and "
                "{batch_size}."
            )
        missing = [k for k, v in form.items() if v is None]
        if missing:
            raise RequestError(
                f"{', '.join(f'{{{k}}}' for k in named)} needs "
                f"{' and '.join(f'{{{k}}}' for k in missing)} too ({{epochs}}, "
                "{dataset_size} and {batch_size} go together)."
            )
        schedule = Epochs(epochs, dataset_size, batch_size)  # type: ignore[arg-type]
        sample_rate, steps = schedule.sample_rate, schedule.steps
    else:
        if family.subsampled and sample_rate is None:
            raise RequestError(
                f"{mechanism} needs {{sample_rate}} (or {{epochs}}, "
                "{dataset_size} and {batch_size})."
            )
        if not family.subsampled and sample_rate is not None:
            raise RequestError(
                "{sample_rate} applies to subsampled mechanisms only (not "
                f"{mechanism})."
            )
        if steps is None:
            raise RequestError(
                "give {steps} (or {epochs}, {dataset_size} and {batch_size})."
            )
    return Run(
        mechanism=mechanism,
        steps=steps,
        sample_rate=sample_rate,
        sigma=sigma if parameter else None,
        mu=mu if parameter else None,
        eps=eps if parameter else None,
        adjacency=relation,
        epochs=schedule,
    )
