"""A sweep spec: a grid of configurations, read from TOML (or YAML) and expanded
to rows.

Format (TOML; the same keys in YAML when PyYAML is installed)::

    mechanism = "subsampled-gaussian"    # one of symfdp account's mechanisms
    methods = ["numerical"]              # or tables {name = "edgeworth", order = 3}
    adjacency = "add_or_remove"          # optional: add_or_remove (default),
                                         # add, remove or replace_one

    [grid]                               # the axes, expanded in this order
    sigma = [0.8, 1.0, 1.5]              # a list, one value, or a range:
    sample_rate = {start = 1e-3, stop = 1e-2, num = 3, scale = "log"}
    steps = {start = 1000, stop = 3000, step = 1000}
    delta = 1e-5

A grid with ``target_eps`` or ``target_mu`` is a calibration sweep: each row is
the noise multiplier sigma that meets the target (as ``symfdp calibrate``); an
optional ``[calibrate]`` table sets ``sigma_range = [lo, hi]`` and ``rtol``.

Axes: ``sigma``, ``mu``, ``eps`` (the mechanism's parameter), ``sample_rate``,
``steps`` (or the DP-SGD form ``epochs``, ``dataset_size``, ``batch_size``),
``delta``, ``target_eps``, ``target_mu``. Ranges: ``{start, stop, num}`` gives
``num`` points from ``start`` to ``stop`` inclusive, evenly spaced
(``scale = "linear"``, default) or evenly in log (``scale = "log"``);
``{start, stop, step}`` gives ``start, start + step, ...`` up to ``stop``
inclusive. Rows are the Cartesian product of the axes (the first axis varies
slowest), each crossed with every method (innermost).

Every mistake (unknown mechanism, method or axis, an empty grid, an invalid
range or value, a missing axis) raises :class:`SpecError` with one message
before any row is computed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from symfdp.adjacency import Adjacency
from symfdp.runs import catalog
from symfdp.runs import methods as known
from symfdp.runs.errors import RequestError
from symfdp.runs.methods import SIGMA_RANGE, MethodSpec
from symfdp.runs.records import AccountRequest, CalibrateRequest
from symfdp.runs.run import Run, make_run

#: Axes and their domains: (kind, low, low open, high, high open).
AXES: Final[dict[str, tuple[str, float, bool, float, bool]]] = {
    "sigma": ("real", 0.0, True, math.inf, True),
    "mu": ("real", 0.0, False, math.inf, True),
    "eps": ("real", 0.0, False, math.inf, True),
    "sample_rate": ("real", 0.0, True, 1.0, False),
    "steps": ("int", 1, False, math.inf, True),
    "epochs": ("real", 0.0, True, math.inf, True),
    "dataset_size": ("int", 1, False, math.inf, True),
    "batch_size": ("int", 1, False, math.inf, True),
    "delta": ("real", 0.0, True, 1.0, True),
    "target_eps": ("real", 0.0, True, math.inf, True),
    "target_mu": ("real", 0.0, True, math.inf, True),
}
TOP_KEYS: Final = (
    "mechanism",
    "method",
    "methods",
    "adjacency",
    "pair",
    "grid",
    "calibrate",
)
CALIBRATE_KEYS: Final = ("sigma_range", "rtol")
RANGE_KEYS: Final = ("start", "stop", "num", "step", "scale")


class SpecError(ValueError):
    """A sweep spec that cannot run; the message says what and where."""


#: One method of a sweep: the accountant name and its options (``label``: the
#: row's ``method`` column).
Method = MethodSpec


@dataclass
class Sweep:
    """An expanded sweep: the task, the axis names, one config per row (its
    table columns and id) and the request that answers it."""

    task: str  # "account" or "calibrate"
    mechanism: str
    axes: list[str]
    rows: list[dict[str, Any]]
    requests: list[AccountRequest | CalibrateRequest]

    @property
    def ids(self) -> list[str]:
        return [row["id"] for row in self.rows]


def load(source: str | Path | dict[str, Any]) -> Sweep:
    """Read (a path to TOML/YAML, or the parsed mapping), check and expand a spec.

    Raises:
        SpecError: the spec is unreadable or invalid (one message).
    """
    if isinstance(source, dict):
        return expand(source)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read spec {path}: {exc.strerror}.") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise SpecError(
                f"{path}: YAML specs need PyYAML (pip install pyyaml); or use TOML."
            ) from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SpecError(f"{path}: invalid YAML: {exc}".splitlines()[0]) from None
    else:
        if sys.version_info >= (3, 11):
            import tomllib
        else:
            import tomli as tomllib
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise SpecError(f"{path}: invalid TOML: {exc}.") from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: a spec is a table of keys. Found {type(data)}.")
    try:
        return expand(data)
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}") from None


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"grid.{name}: values must be numbers. Found {value!r}.")
    if not math.isfinite(value):
        raise SpecError(f"grid.{name}: values must be finite. Found {value!r}.")
    return value


def _tidy(x: float) -> float:
    """``x`` to 12 significant digits (``0.30000000000000004`` -> ``0.3``), so
    that range points read as typed; integers stay integers."""
    return float(f"{x:.12g}") if isinstance(x, float) else x


def _range(name: str, table: dict[str, Any]) -> list[float]:
    unknown = sorted(set(table) - set(RANGE_KEYS))
    if unknown:
        raise SpecError(
            f"grid.{name}: unknown range key {unknown[0]!r}; a range is "
            "{start, stop, num[, scale]} or {start, stop, step}."
        )
    if "start" not in table or "stop" not in table:
        raise SpecError(f"grid.{name}: a range needs start and stop.")
    start = _number(name, table["start"])
    stop = _number(name, table["stop"])
    if ("num" in table) == ("step" in table):
        raise SpecError(f"grid.{name}: a range needs exactly one of num and step.")
    if start > stop:
        raise SpecError(
            f"grid.{name}: range start must be <= stop. Found start={start:g}, "
            f"stop={stop:g}."
        )
    if "step" in table:
        if "scale" in table:
            raise SpecError(f"grid.{name}: scale goes with num, not with step.")
        step = _number(name, table["step"])
        if step <= 0:
            raise SpecError(f"grid.{name}: range step must be > 0. Found {step:g}.")
        count = math.floor((stop - start) / step * (1 + 1e-12)) + 1
        if count > 10**7:
            raise SpecError(f"grid.{name}: range has {count} points (max 10^7).")
        return [_tidy(start + k * step) for k in range(count)]
    num = table["num"]
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise SpecError(
            f"grid.{name}: range num must be an integer >= 1. Found {num!r}."
        )
    scale = table.get("scale", "linear")
    if scale not in ("linear", "log"):
        raise SpecError(
            f"grid.{name}: range scale must be 'linear' or 'log'. Found {scale!r}."
        )
    if num == 1:
        return [start]
    if scale == "log":
        if start <= 0:
            raise SpecError(
                f"grid.{name}: a log range needs start > 0. Found {start:g}."
            )
        a, b = math.log(start), math.log(stop)
        values = [math.exp(a + (b - a) * k / (num - 1)) for k in range(num)]
        return [start, *(_tidy(v) for v in values[1:-1]), stop]
    return [_tidy(start + (stop - start) * k / (num - 1)) for k in range(num)]


def _check_value(name: str, value: float) -> float | int:
    kind, lo, lo_open, hi, hi_open = AXES[name]
    if kind == "int":
        if float(value) != math.floor(value):
            raise SpecError(f"grid.{name}: values must be integers. Found {value!r}.")
        value = round(value)
    else:
        value = float(value)  # 1 and 1.0 are one configuration
    bad_lo = value < lo or (lo_open and value == lo)
    bad_hi = value > hi or (hi_open and value == hi)
    if bad_lo or bad_hi:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        top = "inf" if math.isinf(hi) else f"{hi:g}"
        raise SpecError(
            f"grid.{name}: values must lie in {left}{lo:g}, {top}{right}. "
            f"Found {value:g}."
        )
    return value


def axis_values(name: str, spec: Any) -> list[float | int]:
    """The values of axis ``name``: one number, a list, or a range table."""
    if name not in AXES:
        raise SpecError(f"unknown grid axis {name!r}; the axes are: {', '.join(AXES)}.")
    if isinstance(spec, dict):
        raw = _range(name, spec)
    elif isinstance(spec, list):
        raw = [_number(name, v) for v in spec]
    else:
        raw = [_number(name, spec)]
    if not raw:
        raise SpecError(f"grid.{name} is empty: the grid has no rows.")
    values = [_check_value(name, v) for v in raw]
    if len(set(values)) != len(values):
        raise SpecError(f"grid.{name}: values repeat ({values}).")
    return values


def _methods(data: dict[str, Any], task: str) -> list[MethodSpec]:
    if "method" in data and "methods" in data:
        raise SpecError("give one of 'method' and 'methods', not both.")
    default = known.DEFAULT_METHOD if task == "account" else "auto"
    raw = data.get("methods", data.get("method", default))
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        raise SpecError("methods is empty: the grid has no rows.")
    names = tuple(known.METHODS) if task == "account" else known.CALIBRATE_METHODS
    out: list[MethodSpec] = []
    for item in items:
        if isinstance(item, str):
            name, options = item, {}
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            options = {k: v for k, v in item.items() if k != "name"}
            name = item["name"]
        else:
            raise SpecError(
                "each method is a name or a table {name = ..., options...}. "
                f"Found {item!r}."
            )
        if name not in names:
            raise SpecError(
                f"unknown method {name!r} for a {task} sweep; choose from "
                f"{', '.join(names)}."
            )
        if task == "calibrate":
            extra = sorted(set(options) - {"order"})
            if extra:
                raise SpecError(
                    f"method {name}: calibrate takes only the option 'order'. "
                    f"Found {extra[0]!r}."
                )
            if "order" in options and name not in known.ORDER_METHODS:
                raise SpecError(
                    f"method {name}: order applies to edgeworth and saddlepoint, "
                    f"not {name}."
                )
        try:
            method = MethodSpec(name, options)
            if task == "account" or name != "auto":
                method.build()  # bad options fail before any work
        except RequestError as exc:
            raise SpecError(exc.render(_word)) from None
        except Exception as exc:  # the accountant cannot be built here at all
            raise SpecError(f"method {name}: {type(exc).__name__}: {exc}") from None
        if method in out:
            raise SpecError(f"method {method.label} is listed twice.")
        out.append(method)
    return out


def _word(name: str) -> str:
    """A request field in the spec's words (``sigma_range`` is in ``[calibrate]``)."""
    return {"sigma_range": "calibrate.sigma_range"}.get(name, name)


def row_id(config: dict[str, Any]) -> str:
    """A stable identifier of a configuration (its canonical JSON, hashed)."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def expand(data: dict[str, Any]) -> Sweep:
    """Check a parsed spec and expand it to one config per row.

    Raises:
        SpecError: the first problem found (before any work).
    """
    families = catalog.families()
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise SpecError(
            f"unknown key {unknown[0]!r}; a spec has: {', '.join(TOP_KEYS)}."
        )
    mechanism = data.get("mechanism")
    if mechanism is None:
        raise SpecError(f"give a mechanism: one of {', '.join(families)}.")
    if mechanism not in families:
        raise SpecError(
            f"unknown mechanism {mechanism!r}; choose from {', '.join(families)}."
        )
    grid = data.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise SpecError("the grid is empty: give a [grid] table with its axes.")
    targets = [k for k in ("target_eps", "target_mu") if k in grid]
    task = "calibrate" if targets or "calibrate" in data else "account"
    pair = data.get("pair")
    adjacency = data.get("adjacency")
    if pair is not None and adjacency is not None:
        raise SpecError("give adjacency only (pair is its older spelling).")
    try:
        if pair is not None:  # the older key, mapped once, here
            adjacency = Adjacency.from_pair(pair)
        elif adjacency is not None:
            adjacency = Adjacency.parse(adjacency)
    except ValueError as exc:
        raise SpecError(
            str(exc).replace("('add', 'remove', 'both')", "'add', 'remove' or 'both'")
        ) from None
    values = {name: axis_values(name, spec) for name, spec in grid.items()}
    methods = _methods(data, task)
    extras: dict[str, Any] = {}
    if task == "calibrate":
        if len(targets) != 1:
            raise SpecError(
                "a calibrate sweep needs exactly one of grid.target_eps and "
                f"grid.target_mu. Found {targets or 'neither'}."
            )
        if mechanism not in catalog.CALIBRATE_MECHANISMS:
            raise SpecError(
                "calibrate sweeps take mechanism 'subsampled-gaussian' or "
                f"'gaussian'. Found {mechanism!r}."
            )
        given = [k for k in ("sigma", "mu", "eps") if k in values]
        if given:
            raise SpecError(
                f"grid.{given[0]} does not go in a calibrate sweep: sigma is the "
                "answer."
            )
        if targets == ["target_eps"] and "delta" not in values:
            raise SpecError("grid.target_eps needs grid.delta.")
        extras = _calibrate_options(data.get("calibrate", {}))
        if adjacency == "replace_one":
            raise SpecError("calibrate sweeps take no adjacency 'replace_one'.")
    else:
        if "delta" not in values:
            raise SpecError("give grid.delta (the delta of epsilon(delta)).")
        allowed = families[mechanism].parameters
        given = [k for k in ("sigma", "mu", "eps") if k in values]
        if not given or given[0] not in allowed or len(given) > 1:
            raise SpecError(
                f"{mechanism} takes exactly one parameter axis: "
                + " or ".join(f"grid.{k}" for k in allowed)
                + f". Found {', '.join('grid.' + k for k in given) or 'none'}."
            )
    if pair is not None and not families[mechanism].subsampled:
        raise SpecError(f"pair applies to subsampled mechanisms only, not {mechanism}.")
    axes = list(values)
    rows: list[dict[str, Any]] = []
    requests: list[AccountRequest | CalibrateRequest] = []
    for combo in itertools.product(*(values[a] for a in axes)):
        point = dict(zip(axes, combo, strict=True))
        try:
            run = make_run(
                mechanism,
                **{k: point.get(k) for k in ("sigma", "mu", "eps", "sample_rate")},
                **{k: point.get(k) for k in ("steps", "epochs", "dataset_size")},
                batch_size=point.get("batch_size"),
                adjacency=adjacency,
                parameter=task == "account",
            )
        except RequestError as exc:
            where = ", ".join(f"{k}={v:g}" for k, v in point.items())
            raise SpecError(f"row ({where}): {exc.render(_word)}") from None
        for method in methods:
            config: dict[str, Any] = {
                "task": task,
                "mechanism": mechanism,
                **point,
                "sample_rate": run.sample_rate,
                "steps": run.steps,
                "pair": _pair_column(run),
                "method": method.name,
                "options": dict(method.options),
                **extras,
            }
            config["id"] = row_id(config)
            config["method_label"] = method.label
            rows.append(config)
            requests.append(_request(task, run, method, point, extras))
    return Sweep(task, mechanism, axes, rows, requests)


def _request(
    task: str,
    run: Run,
    method: MethodSpec,
    point: dict[str, Any],
    extras: dict[str, Any],
) -> AccountRequest | CalibrateRequest:
    """The request that answers one row."""
    delta = point.get("delta")
    try:
        if task == "account":
            deltas = (float(point["delta"]),)  # an account grid has one (checked)
            return AccountRequest(run=run, deltas=deltas, methods=(method,))
        return CalibrateRequest(
            run=run,
            target_eps=point.get("target_eps"),
            target_mu=point.get("target_mu"),
            delta=None if delta is None else float(delta),
            method=method,
            sigma_range=tuple(extras["sigma_range"]),
            rtol=extras["rtol"],
        )
    except RequestError as exc:
        where = ", ".join(f"{k}={v:g}" for k, v in point.items())
        raise SpecError(f"row ({where}): {exc.render(_word)}") from None


def _pair_column(run: Run) -> str | None:
    """The ``pair`` column of a row: the relation of a subsampled mechanism as
    "both", "add" or "remove", or "replace_one" (any mechanism)."""
    if run.adjacency is Adjacency.REPLACE_ONE:
        return "replace_one"
    return run.pair


def _calibrate_options(table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise SpecError("[calibrate] must be a table.")
    unknown = sorted(set(table) - set(CALIBRATE_KEYS))
    if unknown:
        raise SpecError(
            f"unknown calibrate key {unknown[0]!r}; it takes "
            f"{', '.join(CALIBRATE_KEYS)}."
        )
    lo, hi = table.get("sigma_range", SIGMA_RANGE)
    lo = _number("sigma_range", lo)
    hi = _number("sigma_range", hi)
    if not 0 < lo < hi:
        raise SpecError(
            f"calibrate.sigma_range must satisfy 0 < lo < hi. Found [{lo:g}, {hi:g}]."
        )
    rtol = _number("rtol", table.get("rtol", 1e-6))
    if not 0 < rtol <= 0.1:
        raise SpecError(f"calibrate.rtol must lie in (0, 0.1]. Found {rtol:g}.")
    return {"sigma_range": [lo, hi], "rtol": rtol}
