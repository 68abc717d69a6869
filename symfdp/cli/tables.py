"""The text tables of ``symfdp account``: one row per method (and per delta or
eps), certified brackets rounded outwards so that the printed bracket still
contains the exact value."""

from __future__ import annotations

import decimal
import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from symfdp.cli.common import cli_words

if TYPE_CHECKING:  # pragma: no cover
    from symfdp.risk import RiskValue
    from symfdp.runs.records import MethodResult
    from symfdp.runs.risk import MethodRisk

_HEAD = f"{'certified bracket / est. error':<31}"


def round_to(x: float, digits: int, rounding: str) -> str:
    """``x`` to ``digits`` significant digits, rounded down or up (for brackets)."""
    if not math.isfinite(x):
        return str(x)
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = rounding
        return str(+decimal.Decimal(x))


#: Error estimates below this are printed as ``<1e-12``: their digits are the
#: round-off of the evaluation, which differs from run to run.
ESTIMATE_FLOOR = 1e-12


def bracket(
    bounds: tuple[float, float] | None,
    error: float | None,
    guarantee: str,
    digits: int = 6,
) -> str:
    """``[lo, hi]`` rounded outwards, ``+- e (estimate)``, or what the
    guarantee is."""
    if bounds is not None:
        lo = round_to(bounds[0], digits, decimal.ROUND_FLOOR)
        hi = round_to(bounds[1], digits, decimal.ROUND_CEILING)
        return f"[{lo}, {hi}]"
    if error is not None:
        if error < ESTIMATE_FLOOR:
            return f"+- <{ESTIMATE_FLOOR:.0e} (estimate)"
        return f"+- {error:.2g} (estimate)"
    return {"bound": "(upper bound)"}.get(guarantee, "")


def _mu_and_time(r: MethodResult) -> tuple[str, str]:
    mu = "-" if r.mu_star is None else f"{r.mu_star:.4g}"
    ms = f"{1e3 * r.seconds:.0f} ms" if r.seconds < 10 else f"{r.seconds:.1f} s"
    return mu, ms


def note(r: MethodResult, indent: int = 13) -> str:
    """The method's failure, wrapped under its row."""
    return textwrap.fill(
        cli_words(r.error or ""),
        width=88,
        initial_indent=" " * indent + "note: ",
        subsequent_indent=" " * (indent + 6),
    )


def format_table(results: Sequence[MethodResult]) -> list[str]:
    """The table for one delta, one row per method."""
    lines = [f"{'method':<13}{'epsilon':>10}  {_HEAD}{'mu*':>9}{'time':>10}"]
    for r in results:
        eps = "-" if r.epsilon is None else f"{r.epsilon:.6g}"
        text = bracket(r.epsilon_bounds, r.epsilon_error, r.guarantee)
        mu, ms = _mu_and_time(r)
        lines.append(f"{r.method:<13}{eps:>10}  {text:<31}{mu:>9}{ms:>10}")
        if r.answered_by:
            lines.append(f"{'':13}answered by {r.answered_by}")
        if r.error:
            lines.append(note(r))
    return lines


def format_multi_table(results: Sequence[MethodResult]) -> list[str]:
    """The table for several deltas: one row per (method, delta); mu* and the
    time on each method's first row."""
    lines = [
        f"{'method':<13}{'delta':>8}{'epsilon':>10}  {_HEAD}{'mu*':>9}{'time':>10}"
    ]
    for r in results:
        mu, ms = _mu_and_time(r)
        if not r.by_delta:
            lines.append(f"{r.method:<13}{'-':>8}{'-':>10}  {'':<31}{mu:>9}{ms:>10}")
        for k, a in enumerate(r.by_delta):
            name, tail = (r.method, f"{mu:>9}{ms:>10}") if k == 0 else ("", "")
            text = bracket(a.epsilon_bounds, a.epsilon_error_estimate, r.guarantee)
            row = f"{name:<13}{a.delta:>8.2g}{a.epsilon:>10.6g}  {text:<31}{tail}"
            lines.append(row.rstrip())
        if r.error:
            lines.append(" " * 13 + "note: " + cli_words(r.error))
    return lines


def format_delta_table(results: Sequence[MethodResult]) -> list[str]:
    """delta(eps) at the ``--at-eps`` values, one row per (method, eps)."""
    lines = [f"{'method':<13}{'eps':>8}{'delta':>12}  certified bracket / est. error"]
    for r in results:
        for k, a in enumerate(r.at_eps):
            name = r.method if k == 0 else ""
            text = (
                bracket(a.delta_bounds, None, r.guarantee, digits=4)
                if a.delta_bounds
                else bracket(None, a.delta_error_estimate, r.guarantee)
            )
            lines.append(f"{name:<13}{a.eps:>8.4g}{a.delta:>12.4g}  {text}")
    return lines


def _run_bounds(lo: float, hi: float) -> str:
    """Bounds on the run, rounded outwards: ``[lo, hi]``, ``<= hi`` or ``>= lo``."""
    if hi == math.inf:
        return f">= {round_to(lo, 6, decimal.ROUND_FLOOR)}"
    if lo == 0.0:
        return f"<= {round_to(hi, 6, decimal.ROUND_CEILING)}"
    return bracket((lo, hi), None, "certified")


def format_sampler_table(rows: Sequence[Any]) -> list[str]:
    """``--sampler``: one row per (sampler, delta) with what the run may
    report, the certified bounds on the run and the guarantee; a sampler that
    cannot serve the run is named with its reason. The guarantees' meanings
    follow the table."""
    lines = [
        f"{'sampler':<25}{'delta':>8}{'epsilon':>10}  {'certified, on the run':<24}"
        f"{'guarantee':<13}{'time':>8}"
    ]
    seen = {}
    for r in rows:
        if r.error is not None:
            lines.append(f"{r.sampler:<25}not served: {cli_words(r.error)}")
            continue
        seen[r.guarantee.value] = r.statement
        for k, (d, e, (lo, hi)) in enumerate(
            zip(r.deltas, r.epsilon, r.epsilon_bounds, strict=True)
        ):
            name, g, ms = (
                (r.sampler, r.guarantee.value, f"{r.seconds:.2f}s")
                if k == 0
                else ("", "", "")
            )
            bounds = _run_bounds(lo, hi)
            row = f"{name:<25}{d:>8.2g}{e:>10.6g}  {bounds:<24}{g:<13}{ms:>8}"
            lines.append(row.rstrip())
    lines.extend(seen.values())
    if any(r.sampler.startswith("fixed-batch") and r.error is None for r in rows):
        lines.append(
            "fixed-batch rows: replace-one neighbours (noise at sensitivity 2)"
        )
    return lines


def _risk_row(label: str, value: RiskValue) -> str:
    """One risk value: the estimate, then its bracket rounded outwards (the
    riskier end first in the words: 'riskier above' or 'safer above')."""
    if value.certified:
        text = bracket((value.lower, value.upper), None, "certified", digits=5)
    else:
        text = bracket(None, value.error, "estimate") or "(no error estimate)"
    way = "larger is riskier" if value.larger_is_riskier else "larger is safer"
    return f"  {label:<30}{value.estimate:>12.6g}  {text:<28}{way}"


def format_risk_tables(risks: Sequence[MethodRisk]) -> list[str]:
    """Each method's risk report (``--report``): one row per measure."""
    lines: list[str] = []
    for risk in risks:
        found = risk.report
        if found is None:
            lines.append(f"risk ({risk.method}): none: {cli_words(risk.error or '')}")
            continue
        guarantee = "certified brackets" if found.certified else "estimates"
        lines.append(f"risk ({risk.method}, {guarantee}):")
        for p in found.tpr:
            lines.append(_risk_row(f"TPR at FPR {p.fpr:g} (worst)", p.worst))
            lines.append(_risk_row(f"TPR at FPR {p.fpr:g} (add)", p.add))
            if p.remove is not None:
                lines.append(_risk_row(f"TPR at FPR {p.fpr:g} (remove)", p.remove))
        lines.append(_risk_row("advantage", found.advantage))
        lines.append(_risk_row(f"Bayes risk, prior {found.prior:g}", found.bayes_risk))
        lines.append(_risk_row(f"ReRo gamma, kappa {found.kappa:g}", found.rero_gamma))
        lines.append(_risk_row("mu (GDP)", found.gdp.mu))
        lines.append(
            _risk_row(f"regret of mu = {found.gdp.reported_mu:.4g}", found.gdp.regret)
        )
    return lines
