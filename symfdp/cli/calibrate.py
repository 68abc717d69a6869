"""`symfdp calibrate`: the noise multiplier, sample rate or number of steps that
meets a privacy target.

``symfdp calibrate --target-eps 3 --delta 1e-5 --sample-rate 0.004 --steps 60000``
prints sigma and the epsilon it achieves; ``--target-delta D --eps E`` aims at
delta(eps), ``--target-mu M`` at the GDP summary mu* (see ``symfdp account``).
``--solve-for sample-rate`` (or ``steps``) with ``--sigma S`` calibrates the
largest sample rate (number of steps) instead. The run is given as in ``symfdp
account`` (``--sample-rate/--steps`` or ``--epochs/--dataset-size/--batch-size``).
With ``--method auto`` (default) a closed-form GDP start and analytic secant
steps come close, and the certified numerical accountant ends the search
(:mod:`symfdp.calibrate`), usually in one or two compositions: the value
printed is the riskiest whose *certified upper bound* meets the target (the
printed bracket's upper end is at most the target, within ``--rtol``), so the
target can be published as a guarantee.

The work is :func:`symfdp.runs.calibrate`'s; ``--json`` prints its
:class:`~symfdp.runs.CalibrateResult`'s ``as_json()``.
"""

from __future__ import annotations

import argparse
import decimal
import json
import sys
import time

from symfdp import runs
from symfdp._progress import status
from symfdp.cli.common import (
    UsageError,
    add_run_arguments,
    cli_words,
    integer,
    number,
    run_from_args,
    usage,
)
from symfdp.cli.tables import round_to
from symfdp.runs.catalog import CALIBRATE_MECHANISMS
from symfdp.runs.errors import RequestError
from symfdp.runs.methods import CALIBRATE_METHODS, ORDER_METHODS, SIGMA_RANGE

#: ``--method`` choices.
METHODS = CALIBRATE_METHODS
#: ``--solve-for`` choices (the request's ``solve_for`` with dashes).
SOLVE_FOR = tuple(name.replace("_", "-") for name in runs.SOLVE_FOR)
#: Seconds before the first progress line, and between two.
STATUS_EVERY = 2.0
#: The placeholder of the solved field in the run (ignored by the search).
_PLACEHOLDER = {"sample_rate": 1.0, "steps": 1}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``calibrate`` subcommand and its flags to ``sub``."""
    p = sub.add_parser(
        "calibrate",
        help="noise multiplier sigma for a target epsilon (or mu*)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument(
        "--mechanism",
        "-m",
        choices=CALIBRATE_MECHANISMS,
        default="subsampled-gaussian",
        help="the per-step mechanism (default subsampled-gaussian)",
    )
    t = p.add_argument_group("the target (one of)")
    t.add_argument("--target-eps", type=number, metavar="EPS", help="epsilon at delta")
    t.add_argument(
        "--target-delta", type=number, metavar="DELTA", help="delta at --eps"
    )
    t.add_argument("--target-mu", type=number, metavar="MU", help="GDP mu*")
    p.add_argument("--delta", "-d", type=number, help="delta (with --target-eps)")
    p.add_argument("--eps", type=number, help="epsilon (with --target-delta)")
    p.add_argument(
        "--solve-for",
        choices=SOLVE_FOR,
        default="sigma",
        help="what to calibrate: sigma (default, the smallest), sample-rate or "
        "steps (the largest; give --sigma)",
    )
    p.add_argument(
        "--sigma", type=number, help="noise multiplier (with --solve-for other)"
    )
    add_run_arguments(p)
    p.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="accountant of the search (default auto: saddlepoint, then numerical)",
    )
    p.add_argument(
        "--order",
        "-J",
        type=integer,
        default=None,
        help="order of edgeworth (default 2) or saddlepoint (1..16)",
    )
    p.add_argument(
        "--sigma-range",
        type=number,
        nargs=2,
        metavar=("LO", "HI"),
        default=SIGMA_RANGE,
        help="searched range of sigma, needed only to restrict it (default "
        f"{SIGMA_RANGE[0]:g} {SIGMA_RANGE[1]:g})",
    )
    p.add_argument(
        "--rtol",
        type=number,
        default=1e-3,
        help="relative tolerance on the target (default 1e-3)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def request_from_args(args: argparse.Namespace) -> runs.CalibrateRequest:
    """The request the flags describe.

    Raises:
        UsageError: the first problem, naming the flags.
    """
    if args.order is not None and args.method not in ORDER_METHODS:
        raise UsageError(
            f"--order applies to edgeworth and saddlepoint, not {args.method}."
        )
    solve_for = args.solve_for.replace("-", "_")
    if solve_for == "sigma" and args.sigma is not None:
        raise UsageError("--sigma is the answer of --solve-for sigma: leave it out.")
    if solve_for != "sigma":
        if args.sigma is None:
            raise UsageError(f"--solve-for {args.solve_for} needs --sigma.")
        if getattr(args, solve_for) is not None:
            raise UsageError(
                f"--{args.solve_for} is the answer of --solve-for {args.solve_for}: "
                "leave it out."
            )
        if solve_for == "sample_rate" and args.mechanism == "gaussian":
            raise UsageError(
                "--solve-for sample-rate needs a subsampled mechanism; gaussian "
                "has no sample rate."
            )
        setattr(args, solve_for, _PLACEHOLDER[solve_for])
    run_ = run_from_args(args, args.mechanism, parameter=solve_for != "sigma")
    options = {} if args.order is None else {"order": args.order}
    try:
        return runs.CalibrateRequest(
            run=run_,
            target_eps=args.target_eps,
            target_delta=args.target_delta,
            target_mu=args.target_mu,
            delta=args.delta,
            eps=args.eps,
            solve_for=solve_for,
            method=runs.MethodSpec(args.method, options),
            sigma_range=tuple(args.sigma_range),
            rtol=args.rtol,
        )
    except RequestError as exc:
        raise usage(exc) from None


class _Progress:
    """A status line once the search has run :data:`STATUS_EVERY` seconds (what
    it does), and one every :data:`STATUS_EVERY` seconds after (how far)."""

    def __init__(self, doing: str, what: str) -> None:
        self.doing = doing
        self.what = what
        self.count = 0
        self.start = self.last = time.monotonic()

    def __call__(self, value: float) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.last >= STATUS_EVERY:
            if self.last == self.start:
                status(f"calibrate: {self.doing} ...")
            self.last = now
            status(
                f"calibrate: {self.count} compositions, {now - self.start:.0f} s; "
                f"the last gave {self.what} = {value:.6g}"
            )


#: What the target quantity is called in progress lines and in the summary.
_WHAT = {"eps": "the upper epsilon", "delta": "the upper delta", "mu": "mu*"}


def run(args: argparse.Namespace) -> int:
    """Execute ``symfdp calibrate``; returns the exit status."""
    request = request_from_args(args)
    if request.method.name != "auto":
        try:
            request.method.build()  # validates --order before any work
        except RequestError as exc:
            raise usage(exc) from None
    name = (
        "GDP start, analytic steps, then Numerical"
        if request.method.name == "auto"
        else repr(request.method.build())
    )
    solved = request.solve_for.replace("_", " ")
    doing = (
        f"{solved} for {request.kind} = {request.target:g} with {name} "
        f"(rtol {request.rtol:g})"
    )
    try:
        result = runs.calibrate(request, on_value=_Progress(doing, _WHAT[request.kind]))
    except RequestError as exc:
        raise usage(exc) from None
    if args.json:
        print(json.dumps(result.as_json(), indent=2))
        return 0
    print(request.describe())
    if request.run.epochs is not None:
        print(request.run.epochs.describe())
    print(_answer(result))
    achieved = result.achieved
    parts = []
    if request.kind == "delta":
        parts.append(_bracket_text(f"delta({request.eps:g})", result, request.target))
    if achieved.epsilon is not None:
        text = f"eps({request.delta:g}) = {achieved.epsilon:.6g}"
        if achieved.epsilon_bounds is not None:
            b = achieved.epsilon_bounds
            lo_text = round_to(b[0], 6, decimal.ROUND_FLOOR)
            hi_text = round_to(b[1], 6, decimal.ROUND_CEILING)
            text += f", certified bracket [{lo_text}, {hi_text}]"
            if request.kind == "eps":
                text += f" (upper end <= target {request.target:g})"
        parts.append(text)
    if request.kind == "mu":
        parts.append(_bracket_text("mu*", result, request.target))
    else:
        parts.append(f"mu* = {achieved.mu_star:.4g}")
    print(f"achieves {'; '.join(parts)} ({achieved.method}); {result.seconds:.2f} s")
    cost = result.cost
    print(
        f"search: {cost.certified_evaluations} certified and "
        f"{cost.approach_evaluations} analytic compositions"
        + (f" ({cost.approach})" if cost.approach else "")
        + f"; GDP start {cost.start:.6g}"
    )
    for note in result.warnings:
        print(f"symfdp: warning: {cli_words(note)}", file=sys.stderr)
    return 0


def _answer(result: runs.CalibrateResult) -> str:
    """``sigma = 1.53113`` (rounded towards the safe side: a larger sigma, a
    smaller sample rate; steps are whole)."""
    solved = result.request.solve_for
    if solved == "steps":
        return f"steps = {result.steps}"
    if solved == "sample_rate":
        return f"sample_rate = {round_to(result.sample_rate, 6, decimal.ROUND_FLOOR)}"
    return f"sigma = {round_to(result.sigma, 6, decimal.ROUND_CEILING)}"


def _bracket_text(name: str, result: runs.CalibrateResult, target: float) -> str:
    """``mu* = 0.99 , certified bracket [.., ..] (upper end <= target 1)``."""
    achieved = result.achieved
    text = f"{name} = {achieved.estimate:.6g}"
    if achieved.bounds is not None:
        lo_text = round_to(achieved.bounds[0], 6, decimal.ROUND_FLOOR)
        hi_text = round_to(achieved.bounds[1], 6, decimal.ROUND_CEILING)
        text += f", certified bracket [{lo_text}, {hi_text}]"
        text += f" (upper end <= target {target:g})"
    return text
