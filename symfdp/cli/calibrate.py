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
"""

from __future__ import annotations

import argparse
import decimal
import json
import sys
import time
import warnings
from typing import TYPE_CHECKING, Any, cast

from symfdp.cli.account import (
    MU_NOTE,
    _integer,
    _number,
    _round,
    add_run_arguments,
    derived_line,
    resolve_run,
)

if TYPE_CHECKING:
    from symfdp.mechanisms.base import Pair

METHODS = ("auto", "saddlepoint", "edgeworth", "numerical", "clt", "exact")


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
        choices=("subsampled-gaussian", "gaussian"),
        default="subsampled-gaussian",
        help="the per-step mechanism (default subsampled-gaussian)",
    )
    t = p.add_argument_group("the target (one of)")
    t.add_argument("--target-eps", type=_number, metavar="EPS", help="epsilon at delta")
    t.add_argument("--target-mu", type=_number, metavar="MU", help="GDP mu*")
    p.add_argument("--delta", "-d", type=_number, help="delta (with --target-eps)")
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
        type=_integer,
        default=None,
        help="order of edgeworth (default 2) or saddlepoint (1..16)",
    )
    p.add_argument(
        "--sigma-range",
        type=_number,
        nargs=2,
        metavar=("LO", "HI"),
        default=(0.1, 100.0),
        help="search range of sigma (default 0.1 100)",
    )
    p.add_argument(
        "--rtol", type=_number, default=1e-6, help="relative tolerance on sigma"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run)


def _target(args: argparse.Namespace) -> tuple[str, float]:
    from symfdp.cli import UsageError

    if (args.target_eps is None) == (args.target_mu is None):
        raise UsageError("give exactly one of --target-eps and --target-mu.")
    if args.delta is not None and not 0 < args.delta < 1:
        raise UsageError(f"--delta must lie in (0, 1). Found {args.delta:g}.")
    if args.target_eps is not None:
        if args.delta is None:
            raise UsageError("--target-eps needs --delta.")
        if args.target_eps <= 0:
            raise UsageError(f"--target-eps must be > 0. Found {args.target_eps:g}.")
        return "eps", float(args.target_eps)
    if args.target_mu <= 0:
        raise UsageError(f"--target-mu must be > 0. Found {args.target_mu:g}.")
    return "mu", float(args.target_mu)


def _accountant(args: argparse.Namespace) -> Any:
    from symfdp.cli import UsageError
    from symfdp.training import make_accountant

    if args.order is not None and args.method not in ("edgeworth", "saddlepoint"):
        raise UsageError(
            f"--order applies to edgeworth and saddlepoint, not {args.method}."
        )
    if args.method == "auto":
        return None
    options = {} if args.order is None else {"order": args.order}
    return make_accountant(args.method, **options)


def calibrate_one(
    kind: str,
    target: float,
    delta: float | None,
    *,
    mechanism: str,
    sample_rate: float | None,
    steps: int,
    pair: str | None,
    method: str = "auto",
    order: int | None = None,
    sigma_range: tuple[float, float] = (0.1, 100.0),
    rtol: float = 1e-6,
) -> dict[str, Any]:
    """Calibrate sigma for one target (``kind`` "eps" at ``delta``, or "mu").

    Returns ``{"sigma", "achieved", "seconds", "warnings"}``: the calibrated
    sigma, what it achieves by the accountant that had the last word
    (``method``, ``mu_star`` and, with ``delta``, ``epsilon`` and the certified
    ``epsilon_bounds`` where that accountant has them), the search time and the
    warnings of the final composition. A target out of reach raises
    ``ValueError``. Used by ``symfdp calibrate`` and by each calibrate row of
    ``symfdp sweep``.
    """
    from symfdp import accountants as A
    from symfdp import calibrate as C
    from symfdp import mechanisms as M
    from symfdp.training import mu_star

    accountant = _accountant(argparse.Namespace(method=method, order=order))
    lo, hi = sigma_range
    p = 1.0 if sample_rate is None else sample_rate
    pair = pair or "both"
    common: dict[str, Any] = {"sigma_bracket": (lo, hi), "rtol": rtol}
    start = time.perf_counter()
    with warnings.catch_warnings():
        # The search visits extreme sigmas (the bracket ends), where the
        # approximations warn; only the answer's own warnings are reported.
        warnings.simplefilter("ignore")
        if kind == "eps":
            # kind "eps" comes with a delta (checked by the callers).
            eps_delta = cast(float, delta)
            sigma = C.sigma_for_epsilon(
                target, eps_delta, p, steps, accountant, mechanism, pair, **common
            )
        else:
            sigma = C.noise_for(
                lambda curve: C.mu_upper(curve) if curve.certified else mu_star(curve),
                target,
                p,
                steps,
                accountant,
                mechanism,
                pair,
                what="mu*",
                **common,
            )
    seconds = time.perf_counter() - start
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # What sigma achieves, by the accountant that had the last word.
        final = accountant if accountant is not None else A.Numerical()
        mech = (
            M.Gaussian(sigma=sigma)
            if mechanism == "gaussian"
            else M.SubsampledGaussian(p=p, sigma=sigma).with_pair(cast("Pair", pair))
        )
        curve = final.compose(mech, steps)
        achieved: dict[str, Any] = {"method": final_name(method)}
        achieved["mu_star"] = float(mu_star(curve))
        if delta is not None:
            achieved["delta"] = delta
            achieved["epsilon"] = float(curve.epsilon(delta))
            if curve.certified:
                b = curve.epsilon_bounds(delta)
                achieved["epsilon_bounds"] = [float(b[0]), float(b[1])]
    notes = list(
        dict.fromkeys(
            f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught
        )
    )
    return {
        "sigma": float(sigma),
        "achieved": achieved,
        "seconds": seconds,
        "warnings": notes,
    }


def run(args: argparse.Namespace) -> int:
    """Execute ``symfdp calibrate``; returns the exit status."""
    kind, target = _target(args)
    spec = resolve_run(args, args.mechanism, params=False)
    if spec.adjacency == "replace_one":
        from symfdp.cli import UsageError

        raise UsageError(
            "calibrate: --adjacency replace_one is not served; calibrate sigma for "
            "add_or_remove (the sensitivity bound C), or halve the target mu."
        )
    accountant = _accountant(args)  # validates --order before any work
    p = 1.0 if spec.sample_rate is None else spec.sample_rate
    pair = spec.pair or "both"
    from symfdp._progress import status

    lo, hi = args.sigma_range
    name = "Auto, then Numerical" if accountant is None else repr(accountant)
    status(
        f"calibrate: searching sigma in [{lo:g}, {hi:g}] for {kind} = {target:g} "
        f"with {name} (rtol {args.rtol:g}) ..."
    )
    try:
        answer = calibrate_one(
            kind,
            target,
            args.delta,
            mechanism=args.mechanism,
            sample_rate=spec.sample_rate,
            steps=spec.steps,
            pair=spec.pair,
            method=args.method,
            order=args.order,
            sigma_range=tuple(args.sigma_range),
            rtol=args.rtol,
        )
    except ValueError as exc:
        raise ValueError(str(exc).replace("sigma_bracket", "--sigma-range")) from None
    sigma, achieved = answer["sigma"], answer["achieved"]
    seconds, notes = answer["seconds"], answer["warnings"]
    title = (
        f"{args.mechanism}"
        + (f"(sample_rate={p:g}, pair={pair})" if args.mechanism != "gaussian" else "")
        + (" x 1 step" if spec.steps == 1 else f" x {spec.steps} steps")
    )
    goal = (
        f"target eps = {target:g} at delta = {args.delta:g}"
        if kind == "eps"
        else f"target mu* = {target:g}"
    )
    if args.json:
        payload = {
            "mechanism": args.mechanism,
            "sample_rate": p,
            "steps": spec.steps,
            "pair": pair if args.mechanism != "gaussian" else None,
            "derived": spec.derived,
            "target": {"kind": kind, "value": target, "delta": args.delta},
            "method": args.method,
            "sigma": sigma,
            "achieved": achieved,
            "seconds": seconds,
            "warnings": notes,
            "mu_star_definition": MU_NOTE,
        }
        print(json.dumps(payload, indent=2))
        return 0
    print(f"{title}; {goal}")
    line = derived_line(spec)
    if line:
        print(line)
    # Rounded up: a larger sigma keeps the target met (privacy is monotone).
    print(f"sigma = {_round(sigma, 6, decimal.ROUND_CEILING)}")
    parts = []
    if "epsilon" in achieved:
        text = f"eps({args.delta:g}) = {achieved['epsilon']:.6g}"
        if "epsilon_bounds" in achieved:
            b = achieved["epsilon_bounds"]
            lo = _round(b[0], 6, decimal.ROUND_FLOOR)
            hi = _round(b[1], 6, decimal.ROUND_CEILING)
            text += f", certified bracket [{lo}, {hi}]"
            if kind == "eps":
                text += f" (upper end <= target {target:g})"
        parts.append(text)
    parts.append(f"mu* = {achieved['mu_star']:.4g}")
    print(f"achieves {'; '.join(parts)} ({achieved['method']}); {seconds:.2f} s")
    for note in notes:
        print(f"symfdp: warning: {note}", file=sys.stderr)
    return 0


def final_name(method: str) -> str:
    """The accountant whose numbers are reported."""
    return "numerical, after an auto search" if method == "auto" else method
