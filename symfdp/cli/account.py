"""`symfdp account`: the privacy of a training run (or any composition) in one line.

``symfdp account --sigma 1.1 --sample-rate 0.004 --steps 60000 --delta 1e-5``
prints, for each chosen method, epsilon(delta), the certified bracket where the
method has one, the GDP summary mu* and the runtime. ``--noise-multiplier`` is
``--sigma`` (the Python name); ``--delta`` takes several targets and ``--at-eps``
asks for delta(eps) at one or more epsilons. DP-SGD users may give
``--epochs E --dataset-size N --batch-size B`` instead of ``--sample-rate`` and
``--steps``: then sample_rate = B/N and steps = ceil(E*N/B) (printed).
``--method all`` runs every method that serves the run; one that fails is named
with its reason, and the others still answer.

mu* is the parameter of the Gaussian trade-off G_mu that meets the method's
trade-off curve on the diagonal, the mu* of the (mu*, gamma) interpreter of Zheng
et al. (2020), Sec. 4, computed from delta(0) (:func:`symfdp.runs.mu_star`);
for ``clt`` it is the CLT's mu itself.

The work is :func:`symfdp.runs.account`'s; this module reads the flags into an
:class:`~symfdp.runs.AccountRequest` and prints the
:class:`~symfdp.runs.AccountResult` (``--json``: its ``as_json()``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from symfdp import runs
from symfdp._progress import status
from symfdp.cli.common import (
    OPTION_FLAGS,
    Lazy,
    UsageError,
    add_run_arguments,
    cli_words,
    integer,
    number,
    run_from_args,
    usage,
)
from symfdp.cli.plot import Drawn, check_plot_path, write_plot
from symfdp.cli.tables import (
    format_delta_table,
    format_multi_table,
    format_risk_tables,
    format_sampler_table,
    format_table,
)
from symfdp.runs import catalog
from symfdp.runs import methods as known
from symfdp.runs.errors import RequestError

#: The default ``--method``: certified.
DEFAULT_METHOD = known.DEFAULT_METHOD
#: ``--method`` choices: every registered method, and ``all``.
METHOD_CHOICES = Lazy(lambda: (*known.METHODS, "all"))
#: ``--mechanism`` choices: the families a run can build (read from the source).
MECHANISMS = Lazy(lambda: tuple(catalog.families()))
#: ``--sampler`` choices: every batch sampler (read from the source), and ``all``.
SAMPLER_CHOICES = Lazy(lambda: (*catalog.sampler_names(), "all"))
#: ``--adjacency`` choices.
ADJACENCIES = ("add_or_remove", "replace_one", "add", "remove")
#: The mechanism flags, in order of preference.
PARAM_FLAGS = catalog.PARAMETERS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``account`` subcommand and its flags to ``sub``."""
    p = sub.add_parser(
        "account",
        help="epsilon(delta), mu* and runtime of a composition (e.g. DP-SGD)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument(
        "--mechanism",
        "-m",
        choices=MECHANISMS,
        metavar="MECHANISM",
        default="subsampled-gaussian",
        help="the per-step mechanism, one of %(choices)s (default subsampled-gaussian)",
    )
    g = p.add_argument_group("mechanism parameters")
    g.add_argument(
        "--sigma",
        "--noise-multiplier",
        dest="sigma",
        type=number,
        help="noise multiplier (Gaussian mechanisms); --noise-multiplier is the "
        "same flag (TrainingAccountant's and Opacus's name)",
    )
    g.add_argument("--mu", type=number, help="effect size (Gaussian, Laplace)")
    g.add_argument("--eps", type=number, help="epsilon of one pure-DP step")
    add_run_arguments(p)
    p.add_argument(
        "--delta",
        "-d",
        type=number,
        nargs="+",
        action="extend",
        metavar="DELTA",
        help="target delta(s): epsilon(delta) for each (give --delta and/or --at-eps)",
    )
    p.add_argument(
        "--at-eps",
        type=number,
        nargs="+",
        action="extend",
        metavar="EPS",
        help="also (or instead) report delta(eps) at these epsilons",
    )
    p.add_argument(
        "--method",
        choices=METHOD_CHOICES,
        metavar="METHOD",
        default=DEFAULT_METHOD,
        help="accountant, one of %(choices)s "
        f"(default {DEFAULT_METHOD}: a certified bracket; auto: "
        "the fastest method whose error estimate is within 1%%, else numerical; "
        "rdp: Renyi DP converted as Opacus does, an upper bound); "
        "'all' runs every method that serves the run",
    )
    o = p.add_argument_group("method options")
    o.add_argument(
        "--order",
        "-J",
        type=integer,
        default=None,
        help="order of the Edgeworth expansion (default 2) or of the "
        "saddle-point estimate (1..16, default 2)",
    )
    o.add_argument(
        "--eps-rel-tol",
        type=number,
        default=None,
        metavar="TOL",
        help="numerical: target width of the certified bracket on epsilon, "
        "relative to max(epsilon, 1) (default 1e-3)",
    )
    o.add_argument(
        "--max-fft-size",
        type=integer,
        default=None,
        metavar="N",
        help="numerical: largest FFT length (time and memory guard, about 8 bytes "
        "per point; default 2**23)",
    )
    o.add_argument(
        "--warn-rel-error",
        type=number,
        default=None,
        metavar="R",
        help="approximations: warn when the estimated relative error exceeds R "
        "(default 0.05)",
    )
    s = p.add_argument_group("batch sampler")
    s.add_argument(
        "--sampler",
        choices=SAMPLER_CHOICES,
        metavar="SAMPLER",
        default=None,
        help="how the batches are picked, one of %(choices)s (default poisson: "
        "the run as given). Other samplers take the step mechanism without Poisson "
        "sampling and answer certified, each marked two-sided, upper bound or "
        "lower bound (shuffle: only a lower bound, Poisson numbers do not hold); "
        "'all' prints a comparison table",
    )
    s.add_argument(
        "--max-batch",
        type=integer,
        default=None,
        metavar="B",
        help="truncated-poisson: the largest batch (with --dataset-size)",
    )
    s.add_argument(
        "--cycle-length",
        type=integer,
        default=None,
        metavar="B",
        help="cyclic-poisson: the number of groups taken in turn (the rate within "
        "a group is B times --sample-rate)",
    )
    r = p.add_argument_group("risk report")
    r.add_argument(
        "--report",
        action="store_true",
        help="also report the risk measures of each method's curve: TPR at each "
        "--fpr (add, remove, worst direction), advantage, Bayes risk at --prior, "
        "ReRo gamma at --kappa, mu-GDP and its regret (certified brackets from "
        "certified methods)",
    )
    r.add_argument(
        "--fpr",
        type=number,
        nargs="+",
        action="extend",
        metavar="FPR",
        help="false-positive rates of the TPR (default 0.001 0.01 0.1)",
    )
    r.add_argument(
        "--prior", type=number, help="prior of the Bayes risk, in (0, 1) (default 0.5)"
    )
    r.add_argument(
        "--kappa", type=number, help="ReRo prior kappa, in (0, 1) (default 0.01)"
    )
    r.add_argument(
        "--report-plot",
        metavar="OUT.png",
        help="draw the first method's risk report: trade-off curve, bracket, "
        "fitted G_mu and operating points (and OUT.csv beside it); implies --report",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--plot",
        metavar="OUT.png",
        help="draw every computed method's trade-off curve (and OUT.csv beside it)",
    )
    p.set_defaults(run=run)


def _given_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        k: getattr(args, k) for k in OPTION_FLAGS if getattr(args, k, None) is not None
    }


def _and(names: list[str]) -> str:
    return (
        " and ".join(names)
        if len(names) < 3
        else f"{', '.join(names[:-1])} and {names[-1]}"
    )


def method_specs(args: argparse.Namespace, names: list[str]) -> tuple[Any, ...]:
    """Each method with the options its flags give it. Alone, a method must take
    every option given; with ``--method all`` each option goes to the methods
    that take it (``--order``: to edgeworth only, as saddlepoint's orders
    differ)."""
    given = _given_options(args)
    alone = args.method != "all"
    specs = []
    for name in names:
        takes = set(known.parameters(name))
        if not alone and name not in ("edgeworth",):
            takes.discard("order")
        if alone:
            refused = [k for k in given if k not in takes]
            if refused:
                users = [
                    n for n in known.METHODS if refused[0] in known.parameters(n)
                    and (refused[0] != "order" or n in known.ORDER_METHODS)
                ]  # fmt: skip
                raise UsageError(
                    f"{OPTION_FLAGS[refused[0]]} applies to {_and(users)}, not {name}."
                )
        options = {k: v for k, v in given.items() if k in takes}
        try:
            specs.append(runs.MethodSpec(name, options))
        except RequestError as exc:
            raise usage(exc) from None
    return tuple(specs)


def run(args: argparse.Namespace) -> int:
    """Execute ``symfdp account``; returns the exit status."""
    deltas = list(args.delta or [])
    at_eps = list(args.at_eps or [])
    if not deltas and not at_eps:
        raise UsageError("give --delta (one or more target deltas) or --at-eps.")
    run_ = run_from_args(args, args.mechanism)
    extra = (args.max_batch, args.cycle_length)
    if args.sampler not in (None, "poisson") or extra != (None, None):
        return _run_samplers(args, run_, deltas, at_eps)
    if args.plot:
        check_plot_path(args.plot)
    if args.report_plot:
        check_plot_path(args.report_plot, "--report-plot")
    reporting = args.report or args.report_plot is not None
    risk_flags = {"fpr": args.fpr, "prior": args.prior, "kappa": args.kappa}
    if not reporting and any(v is not None for v in risk_flags.values()):
        raise UsageError("--fpr, --prior and --kappa need --report.")
    names = list(runs.methods_serving(run_)) if args.method == "all" else [args.method]
    done: list[Any] = []
    assessed = None
    try:
        request = runs.AccountRequest(
            run=run_,
            deltas=tuple(deltas),
            at_eps=tuple(at_eps),
            methods=method_specs(args, names),
        )
        progress = {
            "on_start": lambda spec: status(
                f"account: composing {run_.steps} steps with {spec.name} ..."
            ),
            "on_result": done.append,
        }
        if reporting:
            given = {k: v for k, v in risk_flags.items() if v is not None}
            if "fpr" in given:
                given["fpr"] = tuple(given["fpr"])
            assessed = runs.assess(
                runs.RiskRequest(account=request, **given), **progress
            )
            result = assessed.accounted
        else:
            result = runs.account(request, **progress)
    except RequestError as exc:
        raise usage(exc) from None
    except KeyboardInterrupt:
        if not done:
            raise
        # Keep what finished: print it, and name what did not run.
        result = runs.AccountResult(request, tuple(done))
        missing = [s.name for s in request.methods[len(done) :]]
        _print(args, result, None)
        print(f"symfdp: interrupted; not run: {', '.join(missing)}", file=sys.stderr)
        return 130
    if len(result.results) == 1 and result.failed:
        (only,) = result.failed
        raise ValueError(f"{only.method}: {only.error}")
    drawn = None
    if args.plot:
        status(f"account: drawing {args.plot} ...")
        drawn = write_plot(
            args.plot,
            list(result.results),
            request.describe(),
            deltas[0] if deltas else None,
        )
    figure = None
    if assessed is not None and args.report_plot:
        figure = _report_plot(args.report_plot, assessed)
    _print(args, result, drawn, assessed, figure)
    return 0


def _run_samplers(
    args: argparse.Namespace, run_: Any, deltas: list[float], at_eps: list[float]
) -> int:
    """``--sampler``: the run under one or every batch sampler, certified."""
    if args.sampler is None:
        raise UsageError(
            "--max-batch and --cycle-length apply with --sampler (truncated-poisson, "
            "cyclic-poisson or all)."
        )
    if at_eps or not deltas:
        raise UsageError("--sampler answers epsilon(delta): give --delta only.")
    if args.method != DEFAULT_METHOD or _given_options(args) or args.plot:
        raise UsageError(
            "--sampler answers with the certified accountant: drop --method, its "
            "options and --plot."
        )
    try:
        request = runs.SamplerRequest(
            run=run_,
            deltas=tuple(deltas),
            samplers=(args.sampler,),
            max_batch=args.max_batch,
            cycle_length=args.cycle_length,
        )
        status(f"account: {len(request.samplers)} sampler(s), {run_.steps} steps ...")
        result = runs.account_samplers(request)
    except RequestError as exc:
        raise usage(exc) from None
    if len(result.rows) == 1 and result.rows[0].error is not None:
        raise ValueError(f"{args.sampler}: {result.rows[0].error}")
    if args.json:
        print(json.dumps(result.as_json(), indent=2))
        return 0
    print(request.describe())
    if run_.epochs is not None:
        print(run_.epochs.describe())
    print("\n".join(format_sampler_table(result.rows)))
    for r in result.rows:
        for w in r.warnings:
            print(f"symfdp: warning ({r.sampler}): {cli_words(w)}", file=sys.stderr)
    return 0


def _report_plot(path: str, assessed: Any) -> tuple[str, str]:
    """Draw the first method's risk report (``--report-plot``)."""
    from symfdp.risk.figure import write_report_figure

    for method, risk in zip(assessed.accounted.results, assessed.risks, strict=True):
        if risk.report is not None and method.curve is not None:
            status(f"account: drawing {path} ...")
            out, csv = write_report_figure(method.curve, risk.report, path)
            return str(out), str(csv)
    raise ValueError("--report-plot: no method produced a risk report to draw.")


def _print(
    args: argparse.Namespace,
    result: Any,
    drawn: Drawn | None,
    assessed: Any = None,
    figure: tuple[str, str] | None = None,
) -> None:
    """The result as text tables, or as JSON with ``--json``."""
    request = result.request
    deltas, at_eps = request.deltas, request.at_eps
    if args.json:
        payload = result.as_json() if assessed is None else assessed.as_json()
        if assessed is not None:
            payload["report_plot"] = None if figure is None else list(figure)
        payload["plot"] = args.plot
        payload["plot_data"] = None if drawn is None else drawn.data
        if drawn is not None:
            payload["plot_left_out"] = [
                {"method": m, "reason": why} for m, why in drawn.left_out
            ]
        print(json.dumps(payload, indent=2))
        return
    print(request.describe())
    if request.run.epochs is not None:
        print(request.run.epochs.describe())
    if len(deltas) == 1:
        print("\n".join(format_table(result.results)))
    elif deltas:
        print("\n".join(format_multi_table(result.results)))
    if at_eps:
        if not deltas:
            for r in result.failed:
                print(f"{r.method}: note: {cli_words(r.error or '')}")
        print("\n".join(format_delta_table(result.results)))
    if deltas:
        print(runs.MU_NOTE)
    for r in result.results:
        for w in r.warnings:
            print(f"symfdp: warning ({r.method}): {cli_words(w)}", file=sys.stderr)
    if drawn is not None:
        print(f"wrote {drawn.figure} and {drawn.data}")
        for method, why in drawn.left_out:
            print(f"not drawn: {method} ({cli_words(why)})")
    if assessed is not None:
        print("\n".join(format_risk_tables(assessed.risks)))
        for risk in assessed.risks:
            for w in risk.warnings:
                print(
                    f"symfdp: warning ({risk.method}, risk): {cli_words(w)}",
                    file=sys.stderr,
                )
    if figure is not None:
        print(f"wrote {figure[0]} and {figure[1]}")
