"""`symfdp calibrate`: the noise multiplier sigma that reaches a privacy target.

``symfdp calibrate --target-eps 3 --delta 1e-5 --sample-rate 0.004 --steps 60000``
prints sigma and the epsilon it achieves; ``--target-mu M`` calibrates the GDP
summary mu* instead (see ``symfdp account``). The run is given as in ``symfdp
account`` (``--sample-rate/--steps`` or ``--epochs/--dataset-size/--batch-size``).
With ``--method auto`` (default) ``accountants.Auto`` locates sigma and the
certified numerical accountant refines it (:mod:`symfdp.calibrate`): the sigma
printed is the smallest (within ``--rtol``) whose *certified upper bound* meets
the target (the printed bracket's upper end is at most the target), so the
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
#: Seconds between two progress lines of a long search.
STATUS_EVERY = 5.0


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
    t.add_argument("--target-mu", type=number, metavar="MU", help="GDP mu*")
    p.add_argument("--delta", "-d", type=number, help="delta (with --target-eps)")
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
        help=f"search range of sigma (default {SIGMA_RANGE[0]:g} {SIGMA_RANGE[1]:g})",
    )
    p.add_argument(
        "--rtol", type=number, default=1e-6, help="relative tolerance on sigma"
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
    run_ = run_from_args(args, args.mechanism, parameter=False)
    options = {} if args.order is None else {"order": args.order}
    try:
        return runs.CalibrateRequest(
            run=run_,
            target_eps=args.target_eps,
            target_mu=args.target_mu,
            delta=args.delta,
            method=runs.MethodSpec(args.method, options),
            sigma_range=tuple(args.sigma_range),
            rtol=args.rtol,
        )
    except RequestError as exc:
        raise usage(exc) from None


class _Progress:
    """A status line every :data:`STATUS_EVERY` seconds while the search runs."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.count = 0
        self.start = self.last = time.monotonic()

    def __call__(self, value: float) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.last >= STATUS_EVERY:
            self.last = now
            status(
                f"calibrate: {self.count} compositions, {now - self.start:.0f} s; "
                f"the last gave {self.what} = {value:.6g}"
            )


def run(args: argparse.Namespace) -> int:
    """Execute ``symfdp calibrate``; returns the exit status."""
    request = request_from_args(args)
    if request.method.name != "auto":
        try:
            request.method.build()  # validates --order before any work
        except RequestError as exc:
            raise usage(exc) from None
    lo, hi = request.sigma_range
    name = (
        "Auto, then Numerical"
        if request.method.name == "auto"
        else repr(request.method.build())
    )
    status(
        f"calibrate: searching sigma in [{lo:g}, {hi:g}] for {request.kind} = "
        f"{request.target:g} with {name} (rtol {request.rtol:g}) ..."
    )
    what = "the upper epsilon" if request.kind == "eps" else "mu*"
    try:
        result = runs.calibrate(request, on_value=_Progress(what))
    except RequestError as exc:
        raise usage(exc) from None
    if args.json:
        print(json.dumps(result.as_json(), indent=2))
        return 0
    print(request.describe())
    if request.run.epochs is not None:
        print(request.run.epochs.describe())
    # Rounded up: a larger sigma keeps the target met (privacy is monotone).
    print(f"sigma = {round_to(result.sigma, 6, decimal.ROUND_CEILING)}")
    achieved = result.achieved
    parts = []
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
    parts.append(f"mu* = {achieved.mu_star:.4g}")
    print(f"achieves {'; '.join(parts)} ({achieved.method}); {result.seconds:.2f} s")
    for note in result.warnings:
        print(f"symfdp: warning: {cli_words(note)}", file=sys.stderr)
    return 0
