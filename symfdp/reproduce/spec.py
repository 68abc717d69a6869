"""Experiment specifications, results and claims."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

Table = dict[str, NDArray[Any]]

Verdict = Literal["PASS", "FAIL", "FAIL (source)"]


@dataclass(frozen=True)
class Spec:
    """What an experiment reproduces and with which parameters.

    Attributes:
        id: Registry id, e.g. ``"zheng2020-fig5.1"``; the module's file name is the
            id with ``-`` and ``.`` replaced by ``_``.
        title: One-line description.
        source: The artifact in the source, e.g. ``"Zheng et al. (2020), Fig. 5.1"``.
        params: JSON-serialisable parameters of the full run.
        quick: Overrides of ``params`` for ``--quick`` (coarser grids, fewer n).
        notes: Assumptions made where the source is silent (shown in the report).
    """

    id: str
    title: str
    source: str
    params: Mapping[str, Any]
    quick: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def resolved(self, quick: bool) -> dict[str, Any]:
        """The parameters of a run, with the quick overrides applied if asked."""
        out = dict(self.params)
        if quick:
            out.update(self.quick)
        return out

    @property
    def module_name(self) -> str:
        return self.id.replace("-", "_").replace(".", "_")


@dataclass(frozen=True)
class Claim:
    """One published claim, our value, and the verdict under a stated criterion.

    Attributes:
        id: Short slug, unique within the experiment.
        statement: The claim as the source makes it.
        published: The published number or statement (the only place a number
            from the source may appear).
        ours: Our computed value, formatted.
        passed: Whether the criterion holds.
        criterion: The tolerance or test applied, stated in words/formula.
        source_error: Evidence that the source itself is wrong (a misprint), in
            which case a failure is reported as ``FAIL (source)``.
        finding: The id of that error in the registry :mod:`symfdp.findings`
            (required with ``source_error``).
        timed: The verdict rests on measured run times, which depend on the
            machine and its load: ``reproduce`` reports it like any other, the
            test suite records it without asserting it.
    """

    id: str
    statement: str
    published: str
    ours: str
    passed: bool
    criterion: str
    source_error: str = ""
    finding: str = ""
    timed: bool = False

    @property
    def verdict(self) -> Verdict:
        if self.passed:
            return "PASS"
        return "FAIL (source)" if self.source_error else "FAIL"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "statement": self.statement,
            "published": self.published,
            "ours": self.ours,
            "criterion": self.criterion,
            "verdict": self.verdict,
            "source_error": self.source_error,
            "finding": self.finding,
            "timed": self.timed,
        }


@dataclass(frozen=True)
class Result:
    """The output of ``compute``: named tables and the checked claims.

    ``tables["data"]`` is written to ``data.csv``; any other table ``name`` to
    ``name.csv``. Every table is a dict of equal-length 1-D columns.
    """

    tables: dict[str, Table]
    claims: tuple[Claim, ...]
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if "data" not in self.tables:
            raise ValueError("a Result needs a 'data' table.")
        for name, table in self.tables.items():
            lengths = {len(np.atleast_1d(col)) for col in table.values()}
            if len(lengths) > 1:
                raise ValueError(f"table {name!r} has columns of unequal length.")
        ids = [c.id for c in self.claims]
        if len(ids) != len(set(ids)):
            raise ValueError(f"claim ids must be unique. Found {ids}.")


def _fmt(x: float, digits: int | None = None) -> str:
    if digits is not None:
        return f"{x:.{digits}f}"
    return f"{x:.6g}"


def claim_close(
    id: str,
    statement: str,
    published: float,
    ours: float,
    *,
    digits: int | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    source_error: str = "",
    finding: str = "",
) -> Claim:
    """A numeric claim: ours matches the published number.

    With ``digits`` the criterion is the STYLE rule "half a unit in the last
    printed digit": ``|ours - published| <= 0.5 * 10**-digits``. Otherwise
    ``|ours - published| <= atol + rtol * |published|``.
    """
    if digits is not None:
        tol = 0.5 * 10.0 ** (-digits)
        criterion = f"|ours - published| <= {tol:g} (half a unit in the last digit)"
    else:
        a = atol or 0.0
        r = rtol or 0.0
        tol = a + r * abs(published)
        parts = [f"{a:g}"] if a else []
        if r:
            parts.append(f"{r:g}*|published|")
        criterion = f"|ours - published| <= {' + '.join(parts) or '0'}"
    passed = bool(math.isfinite(ours) and abs(ours - published) <= tol * (1 + 1e-12))
    return Claim(
        id=id,
        statement=statement,
        published=_fmt(published, digits),
        ours=_fmt(ours, digits + 2 if digits is not None else None),
        passed=passed,
        criterion=criterion,
        source_error=source_error,
        finding=finding,
    )


def claim_holds(
    id: str,
    statement: str,
    published: str,
    ours: str,
    passed: bool,
    criterion: str,
    source_error: str = "",
    finding: str = "",
    *,
    timed: bool = False,
) -> Claim:
    """A qualitative claim (e.g. "Edgeworth closer to Numerical than CLT");
    ``timed`` marks a verdict that rests on measured run times."""
    return Claim(
        id,
        statement,
        published,
        ours,
        bool(passed),
        criterion,
        source_error,
        finding,
        timed,
    )
