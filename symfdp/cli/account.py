"""`symfdp account`: the privacy of a training run (or any composition) in one line.

``symfdp account --sigma 1.1 --sample-rate 0.004 --steps 60000 --delta 1e-5``
prints, for each chosen method, epsilon(delta), the certified bracket where the
method has one, the GDP summary mu* and the runtime. ``--noise-multiplier`` is
``--sigma`` (the Python name); ``--delta`` takes several targets and ``--at-eps``
asks for delta(eps) at one or more epsilons. DP-SGD users may give
``--epochs E --dataset-size N --batch-size B`` instead of ``--sample-rate`` and
``--steps``: then sample_rate = B/N and steps = ceil(E*N/B) (printed).

mu* is the parameter of the Gaussian trade-off G_mu that meets the method's
trade-off curve on the diagonal, the mu* of the (mu*, gamma) interpreter of Zheng
et al. (2020), Sec. 4, computed from delta(0) (:func:`symfdp.training.mu_star`);
for ``clt`` it is the CLT's mu itself.
"""

from __future__ import annotations

import argparse
import decimal
import json
import math
import sys
import textwrap
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


class Lazy(Sequence[str]):
    """A tuple of names computed on first use, so that building the parser imports
    no accountant or mechanism (argparse reads ``choices`` only when it parses,
    reports an error or prints help)."""

    def __init__(self, make: Callable[[], tuple[str, ...]]) -> None:
        self._make = make
        self._items: tuple[str, ...] | None = None

    def _get(self) -> tuple[str, ...]:
        if self._items is None:
            self._items = tuple(self._make())
        return self._items

    def __getitem__(self, i: Any) -> Any:
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())

    def __contains__(self, item: object) -> bool:
        return item in self._get()

    def __repr__(self) -> str:
        return repr(self._get())


def _accountants() -> dict[str, Any]:
    from symfdp.accountants.registry import accountant_classes

    return accountant_classes()


#: Methods of ``--method all``: every registered accountant that serves any
#: composition (one with a ``serves`` test, e.g. ``exact``, only where it does),
#: in registry order.
METHOD_CHOICES = Lazy(
    lambda: tuple(n for n, c in _accountants().items() if not hasattr(c, "serves"))
)
#: The default ``--method``: certified. Equal to ``symfdp.training.DEFAULT_METHOD``
#: (spelled out so that building the parser imports no accountant).
DEFAULT_METHOD = "numerical"
#: Registered methods that serve only some compositions (``serves``).
EXTRA_METHODS = Lazy(
    lambda: tuple(n for n, c in _accountants().items() if hasattr(c, "serves"))
)
#: ``--adjacency`` choices (:data:`symfdp.mechanisms.ADJACENCIES`, spelled out so
#: that building the parser imports no mechanism; a test checks they agree).
ADJACENCIES = ("add_or_remove", "replace_one", "add", "remove")
_PAIR_OF = {"add_or_remove": "both", "add": "add", "remove": "remove"}
#: The mechanism flags, in order of preference.
PARAM_FLAGS = ("sigma", "mu", "eps")


def _cli_families() -> dict[str, Any]:
    """The registry families the flags can build: every parameter but the
    sampling rate ``p`` is one of :data:`PARAM_FLAGS`."""
    from symfdp.mechanisms import REGISTRY

    return {
        name: cls
        for name, cls in REGISTRY.items()
        if set(cls.PARAMS) - {"p"} <= set(PARAM_FLAGS)
    }


def mechanism_flags(name: str) -> tuple[str, ...]:
    """Which of ``--sigma`` / ``--mu`` / ``--eps`` mechanism ``name`` takes
    (first = preferred): its constructor arguments among :data:`PARAM_FLAGS`."""
    import inspect

    args = inspect.signature(_cli_families()[name]).parameters
    return tuple(k for k in PARAM_FLAGS if k in args)


#: ``--mechanism`` choices: the buildable registry families (derived).
MECHANISMS = Lazy(lambda: tuple(_cli_families()))
#: The subsampled ones (``p`` in their ``PARAMS``: they take ``--sample-rate``).
SUBSAMPLED = Lazy(
    lambda: tuple(n for n, c in _cli_families().items() if "p" in c.PARAMS)
)
MU_NOTE = (
    "mu*: GDP parameter of the G_mu meeting the curve on the diagonal "
    "(Zheng et al. 2020, Sec. 4)"
)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite. Found {text!r}.")
    return value


def _integer(text: str) -> int:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value.denominator != 1:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    return int(value)


def _exact(text: str) -> Fraction:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The flags that describe a run: steps and sampling, or epochs/dataset/batch."""
    g = p.add_argument_group("the run (give --sample-rate/--steps or the DP-SGD form)")
    g.add_argument(
        "--sample-rate",
        "-p",
        type=_number,
        metavar="P",
        help="Poisson sampling probability in (0, 1] (subsampled mechanisms)",
    )
    g.add_argument(
        "--steps", "-n", type=_integer, metavar="N", help="number of compositions"
    )
    g.add_argument(
        "--epochs", type=_exact, metavar="E", help="epochs (with the next two)"
    )
    g.add_argument("--dataset-size", type=_integer, metavar="N", help="dataset size")
    g.add_argument("--batch-size", type=_integer, metavar="B", help="expected batch")
    p.add_argument(
        "--adjacency",
        choices=ADJACENCIES,
        default=None,
        help="the neighbouring relation (dp-accounting's NeighboringRelation): "
        "add_or_remove (default; the worse of the two directions), add, remove, or "
        "replace_one (Gaussian and Laplace: the values move by 2x the sensitivity "
        "bound, so mu doubles; subsampled-gaussian: the mixture pair of the "
        "replaced and the replacing record)",
    )
    p.add_argument(
        "--pair",
        choices=("add", "remove", "both"),
        default=None,
        help="deprecated spelling of --adjacency (both = add_or_remove)",
    )


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
        type=_number,
        help="noise multiplier (Gaussian mechanisms); --noise-multiplier is the "
        "same flag (TrainingAccountant's and Opacus's name)",
    )
    g.add_argument("--mu", type=_number, help="effect size (Gaussian, Laplace)")
    g.add_argument("--eps", type=_number, help="epsilon of one pure-DP step")
    add_run_arguments(p)
    p.add_argument(
        "--delta",
        "-d",
        type=_number,
        nargs="+",
        action="extend",
        metavar="DELTA",
        help="target delta(s): epsilon(delta) for each (give --delta and/or --at-eps)",
    )
    p.add_argument(
        "--at-eps",
        type=_number,
        nargs="+",
        action="extend",
        metavar="EPS",
        help="also (or instead) report delta(eps) at these epsilons",
    )
    p.add_argument(
        "--method",
        choices=Lazy(lambda: (*METHOD_CHOICES, *EXTRA_METHODS, "all")),
        metavar="METHOD",
        default=DEFAULT_METHOD,
        help="accountant, one of %(choices)s "
        f"(default {DEFAULT_METHOD}: a certified bracket; auto: "
        "the fastest method whose error estimate is within 1%%, else numerical; "
        "rdp: Renyi DP converted as Opacus does, an upper bound); "
        "'all' runs every method",
    )
    p.add_argument(
        "--order",
        "-J",
        type=_integer,
        default=None,
        help="order of the Edgeworth expansion (default 2) or of the "
        "saddle-point estimate (1..16, default 2)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--plot",
        metavar="OUT.png",
        help="draw every computed method's trade-off curve (and OUT.csv beside it)",
    )
    p.set_defaults(run=run)


@dataclass
class Run:
    """A validated command line: mechanism, composition length, sampling."""

    mechanism: str
    params: dict[str, float]
    steps: int
    sample_rate: float | None
    pair: str | None
    derived: dict[str, Any] | None = None
    #: Factor on the effect size mu: 2 under ``--adjacency replace_one``.
    effect_factor: float = 1.0
    #: Subsampled mechanisms under ``--adjacency replace_one``: their own pair.
    replace_one: bool = False

    def build(self) -> Any:
        """The mechanism object of one step."""
        from symfdp.mechanisms import REGISTRY

        kwargs: dict[str, Any] = dict(self.params)
        if self.sample_rate is not None:
            kwargs["p"] = self.sample_rate
        # The family is chosen at run time; mu, with_pair and replace_one are
        # asked of it only where the flags allow them.
        m: Any = REGISTRY[self.mechanism](**kwargs)
        if self.effect_factor != 1.0:
            m = type(m)(mu=self.effect_factor * m.mu)
        if self.sample_rate is not None and self.pair not in (None, "both"):
            m = m.with_pair(self.pair)
        if self.replace_one:
            m = m.replace_one()
        return m

    @property
    def adjacency(self) -> str:
        """The neighbouring relation of the run."""
        if self.effect_factor != 1.0 or self.replace_one:
            return "replace_one"
        return {"add": "add", "remove": "remove"}.get(self.pair or "", "add_or_remove")

    def describe(self) -> str:
        """One line: mechanism, parameters, sampling and number of steps."""
        parts = [f"{k}={v:g}" for k, v in self.params.items()]
        if self.sample_rate is not None:
            parts.append(f"sample_rate={self.sample_rate:g}")
            if not self.replace_one:
                parts.append(f"pair={self.pair or 'both'}")
        if self.effect_factor != 1.0:
            parts.append("adjacency=replace_one (mu doubled)")
        if self.replace_one:
            parts.append("adjacency=replace_one")
        steps = "1 step" if self.steps == 1 else f"{self.steps} steps"
        return f"{self.mechanism}({', '.join(parts)}) x {steps}"


def resolve_run(
    args: argparse.Namespace, mechanism: str, *, params: bool = True
) -> Run:
    """Validate the run flags (all user errors raise UsageError, one line)."""
    from symfdp.cli import UsageError

    subsampled = mechanism in SUBSAMPLED
    chosen: dict[str, float] = {}
    if params:
        allowed = mechanism_flags(mechanism)
        given = [k for k in ("sigma", "mu", "eps") if getattr(args, k) is not None]
        extra = [k for k in given if k not in allowed]
        if extra:
            raise UsageError(
                f"--{extra[0]} does not apply to {mechanism}; it takes "
                + " or ".join(f"--{k}" for k in allowed)
                + "."
            )
        if not given:
            raise UsageError(
                f"{mechanism} needs " + " or ".join(f"--{k}" for k in allowed) + "."
            )
        if len(given) > 1:
            raise UsageError(f"give one of --{given[0]} and --{given[1]}, not both.")
        name = given[0]
        value = float(getattr(args, name))
        if name == "sigma" and value <= 0:
            raise UsageError(f"--sigma must be > 0. Found {value:g}.")
        if name in ("mu", "eps") and value < 0:
            raise UsageError(f"--{name} must be >= 0. Found {value:g}.")
        chosen[name] = value
    epoch_flags = {
        "--epochs": args.epochs,
        "--dataset-size": args.dataset_size,
        "--batch-size": args.batch_size,
    }
    given_epoch = [k for k, v in epoch_flags.items() if v is not None]
    adjacency = getattr(args, "adjacency", None)
    effect_factor = 1.0
    replace_one = False
    if args.pair is not None and adjacency is not None:
        raise UsageError("give --adjacency only (--pair is its deprecated spelling).")
    if args.pair is not None:
        if not subsampled:
            raise UsageError(
                f"--pair applies to subsampled mechanisms only; {mechanism} is "
                "symmetric."
            )
        relation = {"both": "add_or_remove"}.get(args.pair, args.pair)
        print(
            f"symfdp: warning: --pair is deprecated; use --adjacency {relation}.",
            file=sys.stderr,
        )
    pair = args.pair
    if adjacency == "replace_one" and subsampled:
        if not hasattr(_cli_families()[mechanism], "replace_one"):
            raise UsageError(
                f"--adjacency replace_one is not served for {mechanism}: under "
                "replace-one neighbours Poisson sampling has its own dominating "
                "pair (a mixture over the replaced and the replacing record), "
                "implemented for subsampled-gaussian. Use add_or_remove."
            )
        replace_one = True
    elif adjacency == "replace_one":
        if "mu" not in mechanism_flags(mechanism):
            raise UsageError(
                f"--adjacency replace_one does not apply to {mechanism}: its --eps "
                "is the guarantee of one step under the relation you state."
            )
        effect_factor = 2.0
    elif adjacency is not None:
        pair = _PAIR_OF[adjacency] if subsampled else None
    derived = None
    if given_epoch:
        if not subsampled:
            raise UsageError(
                f"{given_epoch[0]} applies to subsampled mechanisms only "
                f"(not {mechanism}); give --steps."
            )
        clash = [
            k
            for k, v in (("--sample-rate", args.sample_rate), ("--steps", args.steps))
            if v is not None
        ]
        if clash:
            raise UsageError(
                f"{clash[0]} conflicts with {given_epoch[0]}: give either "
                "--sample-rate and --steps, or --epochs, --dataset-size and "
                "--batch-size."
            )
        missing = [k for k, v in epoch_flags.items() if v is None]
        if missing:
            raise UsageError(
                f"{', '.join(given_epoch)} needs {' and '.join(missing)} too "
                "(--epochs, --dataset-size and --batch-size go together)."
            )
        epochs, size, batch = args.epochs, args.dataset_size, args.batch_size
        if epochs <= 0:
            raise UsageError(f"--epochs must be > 0. Found {float(epochs):g}.")
        if size < 1:
            raise UsageError(f"--dataset-size must be >= 1. Found {size}.")
        if not 1 <= batch <= size:
            raise UsageError(
                f"--batch-size must lie in [1, --dataset-size = {size}]. Found {batch}."
            )
        sample_rate = batch / size
        steps = math.ceil(epochs * size / batch)
        derived = {
            "epochs": float(epochs),
            "dataset_size": size,
            "batch_size": batch,
            "rule": "sample_rate = batch_size/dataset_size, "
            "steps = ceil(epochs*dataset_size/batch_size)",
        }
    else:
        sample_rate = args.sample_rate
        steps = args.steps
        if subsampled and sample_rate is None:
            raise UsageError(
                f"{mechanism} needs --sample-rate (or --epochs, --dataset-size and "
                "--batch-size)."
            )
        if not subsampled and sample_rate is not None:
            raise UsageError(
                f"--sample-rate applies to subsampled mechanisms only (not "
                f"{mechanism})."
            )
        if steps is None:
            raise UsageError(
                "give --steps (or --epochs, --dataset-size and --batch-size)."
            )
    if sample_rate is not None and not 0 < sample_rate <= 1:
        raise UsageError(f"--sample-rate must lie in (0, 1]. Found {sample_rate:g}.")
    if steps < 1:
        raise UsageError(f"--steps must be >= 1. Found {steps}.")
    from symfdp._validation import MAX_COMPOSITIONS

    if steps > MAX_COMPOSITIONS:
        raise UsageError(
            f"--steps must be at most {MAX_COMPOSITIONS} (2**53, the largest count "
            f"any accountant serves). Found {steps:.4g}."
        )
    return Run(
        mechanism,
        chosen,
        int(steps),
        sample_rate,
        pair,
        derived,
        effect_factor,
        replace_one,
    )


def derived_line(run: Run) -> str | None:
    """The DP-SGD conversion, spelled out, or None."""
    if run.derived is None:
        return None
    d = run.derived
    return (
        f"sample_rate = batch_size/dataset_size = {d['batch_size']}/"
        f"{d['dataset_size']} = {run.sample_rate:.6g}; steps = "
        f"ceil(epochs*dataset_size/batch_size) = ceil({d['epochs']:g}*"
        f"{d['dataset_size']}/{d['batch_size']}) = {run.steps}"
    )


@dataclass
class Result:
    """One method's answer."""

    method: str
    epsilon: float | None = None
    epsilon_error: float | None = None
    answered_by: str | None = None
    epsilon_bounds: tuple[float, float] | None = None
    mu_star: float | None = None
    mu_star_bounds: tuple[float, float] | None = None
    guarantee: str = ""
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    curve: Any = None
    #: epsilon(delta) at every ``--delta`` (the fields above: the first one).
    by_delta: list[dict[str, Any]] = field(default_factory=list)
    #: delta(eps) at every ``--at-eps``.
    at_eps: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The result as plain JSON data (the curve itself is left out)."""
        return {
            "method": self.method,
            "guarantee": self.guarantee,
            "epsilon": self.epsilon,
            "epsilon_error_estimate": self.epsilon_error,
            "answered_by": self.answered_by,
            "epsilon_bounds": list(self.epsilon_bounds)
            if self.epsilon_bounds
            else None,
            "mu_star": self.mu_star,
            "mu_star_bounds": list(self.mu_star_bounds)
            if self.mu_star_bounds
            else None,
            "seconds": self.seconds,
            "warnings": self.warnings,
            "error": self.error,
            "by_delta": self.by_delta,
            "at_eps": self.at_eps,
        }


def methods_for(args: argparse.Namespace, run: Run) -> list[str]:
    """The methods to run: the one asked for, or with ``all`` every method that
    applies (``exact`` only where a closed form exists)."""
    from symfdp.cli import UsageError

    if args.method != "all":
        if args.order is not None and args.method not in ("edgeworth", "saddlepoint"):
            raise UsageError(
                f"--order applies to edgeworth and saddlepoint, not {args.method}."
            )
        return [args.method]
    from symfdp.accountants.base import normalize_composition

    components = normalize_composition(run.build(), run.steps)
    classes = _accountants()
    methods = list(METHOD_CHOICES)
    methods += [n for n in EXTRA_METHODS if classes[n].serves(components)]
    return methods


def options_for(method: str, args: argparse.Namespace) -> dict[str, Any]:
    """Accountant options from the flags: ``--order`` goes to edgeworth, and to
    saddlepoint when it is the only method."""
    from symfdp.cli import UsageError

    if args.order is None:
        return {}
    if method == "edgeworth":
        return {"order": args.order}
    if method == "saddlepoint" and args.method == "saddlepoint":
        from symfdp.accountants.saddlepoint.orders import MAX_ORDER

        if not 1 <= args.order <= MAX_ORDER:
            raise UsageError(
                f"--order for saddlepoint must be in 1..{MAX_ORDER}. "
                f"Found {args.order}."
            )
        return {"order": args.order}
    return {}


def _epsilon_row(curve: Any, delta: float) -> dict[str, Any]:
    """epsilon(delta) with the certified bracket or the error estimate."""
    row: dict[str, Any] = {"delta": delta, "epsilon": float(curve.epsilon(delta))}
    row["epsilon_bounds"] = row["epsilon_error_estimate"] = row["answered_by"] = None
    if curve.certified:
        lo, hi = curve.epsilon_bounds(delta)
        row["epsilon_bounds"] = [float(lo), float(hi)]
    elif getattr(curve, "last_answer", None) is not None:  # Auto
        row["epsilon_error_estimate"] = float(curve.last_answer.error.flat[0])
        row["answered_by"] = curve.last_answer.method[0]
    elif curve.estimates_error:
        row["epsilon_error_estimate"] = float(curve.epsilon_error(delta))
    return row


def _delta_row(curve: Any, eps: float) -> dict[str, Any]:
    """delta(eps) with the certified bracket or the error estimate."""
    row: dict[str, Any] = {"eps": eps, "delta": float(curve.delta(eps))}
    row["delta_bounds"] = row["delta_error_estimate"] = None
    if curve.certified:
        lo, hi = curve.delta_bounds(eps)
        row["delta_bounds"] = [float(lo), float(hi)]
    elif getattr(curve, "estimates_error", False):
        row["delta_error_estimate"] = float(curve.delta_error(eps))
    return row


def account_one(
    method: str,
    mechanism: Any,
    steps: int,
    delta: float | list[float],
    options: dict[str, Any],
    at_eps: list[float] = (),  # type: ignore[assignment]  # immutable empty default
) -> Result:
    """Compose, then mu*, epsilon at each delta, delta at each eps and the
    certified brackets; timed (the module imports excluded), with the warnings
    kept. A ``ValueError`` after composing (e.g. no finite epsilon certified) is
    recorded in ``Result.error``; one while composing is raised. mu* is not
    reported for ``rdp`` (its delta(0) bound is 1, which says nothing).
    """
    from symfdp.training import GUARANTEES, make_accountant, mu_star

    deltas = [delta] if isinstance(delta, (int, float)) else list(delta)
    result = Result(method=method, guarantee=GUARANTEES[method])
    accountant = make_accountant(method, **options)  # imports happen here, untimed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        curve = accountant.compose(mechanism, steps)
        result.curve = curve
        try:
            if method != "rdp":
                result.mu_star = float(mu_star(curve))
            if curve.certified:
                mlo, mhi = mu_star(curve, bounds=True)
                result.mu_star_bounds = (float(mlo), float(mhi))
            result.by_delta = [_epsilon_row(curve, d) for d in deltas]
            if result.by_delta:
                first = result.by_delta[0]
                result.epsilon = first["epsilon"]
                bounds = first["epsilon_bounds"]
                result.epsilon_bounds = tuple(bounds) if bounds else None
                result.epsilon_error = first["epsilon_error_estimate"]
                result.answered_by = first["answered_by"]
            result.at_eps = [_delta_row(curve, e) for e in at_eps]
        except (ValueError, FloatingPointError) as exc:
            result.error = str(exc).splitlines()[0]
        result.seconds = time.perf_counter() - start
    seen: dict[str, None] = {}
    for w in caught:
        seen.setdefault(f"{w.category.__name__}: {str(w.message).splitlines()[0]}")
    result.warnings = list(seen)
    return result


def _round(x: float, digits: int, rounding: str) -> str:
    """``x`` to ``digits`` significant digits, rounded down or up (for brackets)."""
    if not math.isfinite(x):
        return str(x)
    with decimal.localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = rounding
        return str(+decimal.Decimal(x))


def format_table(results: list[Result]) -> list[str]:
    """The text table, one row per method; certified brackets are rounded
    outwards so that the printed bracket still contains the exact value."""
    lines = [
        f"{'method':<13}{'epsilon':>10}  {'certified bracket / est. error':<31}"
        f"{'mu*':>9}{'time':>10}"
    ]
    for r in results:
        eps = "-" if r.epsilon is None else f"{r.epsilon:.6g}"
        if r.epsilon_bounds is not None:
            lo = _round(r.epsilon_bounds[0], 6, decimal.ROUND_FLOOR)
            hi = _round(r.epsilon_bounds[1], 6, decimal.ROUND_CEILING)
            bracket = f"[{lo}, {hi}]"
        elif r.epsilon_error is not None:
            bracket = f"+- {r.epsilon_error:.2g} (estimate)"
        else:
            bracket = {"bound": "(upper bound)"}.get(r.guarantee, "")
        mu = "-" if r.mu_star is None else f"{r.mu_star:.4g}"
        ms = f"{1e3 * r.seconds:.0f} ms" if r.seconds < 10 else f"{r.seconds:.1f} s"
        lines.append(f"{r.method:<13}{eps:>10}  {bracket:<31}{mu:>9}{ms:>10}")
        if r.answered_by:
            lines.append(f"{'':13}answered by {r.answered_by}")
        if r.error:
            lines.append(
                textwrap.fill(
                    r.error,
                    width=88,
                    initial_indent=" " * 13 + "note: ",
                    subsequent_indent=" " * 19,
                )
            )
    return lines


def _bracket(bounds: Any, error: Any, guarantee: str, digits: int = 6) -> str:
    if bounds is not None:
        lo = _round(bounds[0], digits, decimal.ROUND_FLOOR)
        hi = _round(bounds[1], digits, decimal.ROUND_CEILING)
        return f"[{lo}, {hi}]"
    if error is not None:
        return f"+- {error:.2g} (estimate)"
    return {"bound": "(upper bound)"}.get(guarantee, "")


def format_multi_table(results: list[Result]) -> list[str]:
    """The table for several deltas: one row per (method, delta); mu* and the
    time on each method's first row."""
    lines = [
        f"{'method':<13}{'delta':>8}{'epsilon':>10}  "
        f"{'certified bracket / est. error':<31}{'mu*':>9}{'time':>10}"
    ]
    for r in results:
        mu = "-" if r.mu_star is None else f"{r.mu_star:.4g}"
        ms = f"{1e3 * r.seconds:.0f} ms" if r.seconds < 10 else f"{r.seconds:.1f} s"
        rows: Sequence[dict[str, Any] | None] = r.by_delta if r.by_delta else [None]
        for k, row in enumerate(rows):
            name, tail = (r.method, f"{mu:>9}{ms:>10}") if k == 0 else ("", "")
            if row is None:
                lines.append(f"{name:<13}{'-':>8}{'-':>10}  {'':<31}{tail}")
                continue
            bracket = _bracket(
                row["epsilon_bounds"], row["epsilon_error_estimate"], r.guarantee
            )
            lines.append(
                f"{name:<13}{row['delta']:>8.2g}{row['epsilon']:>10.6g}  "
                f"{bracket:<31}{tail}".rstrip()
            )
        if r.error:
            lines.append(" " * 13 + "note: " + r.error)
    return lines


def format_delta_table(results: list[Result]) -> list[str]:
    """delta(eps) at the ``--at-eps`` values, one row per (method, eps)."""
    lines = [f"{'method':<13}{'eps':>8}{'delta':>12}  certified bracket / est. error"]
    for r in results:
        for k, row in enumerate(r.at_eps):
            name = r.method if k == 0 else ""
            bounds = row["delta_bounds"]
            bracket = (
                f"[{_round(bounds[0], 4, decimal.ROUND_FLOOR)}, "
                f"{_round(bounds[1], 4, decimal.ROUND_CEILING)}]"
                if bounds
                else _bracket(None, row["delta_error_estimate"], r.guarantee)
            )
            lines.append(
                f"{name:<13}{row['eps']:>8.4g}{row['delta']:>12.4g}  {bracket}"
            )
    return lines


def check_plot_path(path: str) -> Any:
    """The ``--plot`` target as a Path; its directory must exist."""
    from pathlib import Path

    from symfdp.cli import UsageError

    out = Path(path)
    if out.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise UsageError(f"--plot must name a .png, .pdf or .svg file. Found {path!r}.")
    if not out.parent.is_dir():
        raise UsageError(f"--plot: directory {out.parent} does not exist.")
    return out


#: Line style and marker per method on ``--plot`` (methods that agree draw on top
#: of each other; the dashes and sparse markers keep each one visible).
PLOT_STYLES = (
    ("-", ""),
    ("--", "o"),
    ("-.", "s"),
    (":", "^"),
    ((0, (5, 1.5)), "D"),
    ((0, (3, 1, 1, 1, 1, 1)), "v"),
    ((0, (1, 1)), "x"),
    ((0, (8, 2)), "P"),
    ((0, (2, 2)), "*"),
)


def write_plot(
    path: str, results: list[Result], title: str, delta: float | None
) -> str:
    """Overlay the methods' trade-off curves (left) and privacy profiles on a log
    axis (right), each method in its own line style and marker, the point
    (epsilon(delta), delta) where each method's answer is read marked on the
    profile; write ``path`` and the data as a tidy CSV beside it."""
    import numpy as np
    from matplotlib.figure import Figure

    from symfdp import plotting

    out = check_plot_path(path)
    curves = [(r, r.curve) for r in results if r.curve is not None]
    if not curves:
        raise ValueError("--plot: no method produced a curve.")
    finite = [r.epsilon for r in results if r.epsilon is not None]
    finite += [row["eps"] for r in results for row in r.at_eps]
    top = 1.3 * max(finite) if finite and max(finite) > 0 else 10.0
    alpha = plotting.default_alpha_grid()
    eps = np.linspace(0.0, top, 240)
    fig = Figure(figsize=(9.0, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    rows: list[tuple[str, str, np.ndarray, np.ndarray]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # already reported with the numbers
        for k, (r, curve) in enumerate(curves):
            ls, marker = PLOT_STYLES[k % len(PLOT_STYLES)]
            style: dict[str, Any] = {
                "color": f"C{k}",
                "ls": ls,
                "marker": marker,
                "markevery": (0.02 * k, 0.12),
                "markersize": 5,
                "fillstyle": "none",
                "lw": 1.6 if k == 0 else 1.3,
            }
            plotting.plot_tradeoff(
                curve,
                ax=left,
                alpha=alpha,
                label=r.method,
                identity=k == len(curves) - 1,
                **style,
            )
            plotting.plot_privacy_profile(
                curve, ax=right, eps=eps, label=r.method, **style
            )
            for row in r.by_delta[:1] + r.at_eps:
                right.plot(
                    row.get("epsilon", row.get("eps")),
                    row["delta"],
                    marker=marker or "o",
                    color=f"C{k}",
                    markersize=8,
                    ls="none",
                    zorder=5,
                )
            rows.append(("tradeoff", r.method, alpha, curve.tradeoff(alpha)))
            rows.append(("profile", r.method, eps, curve.delta(eps)))
    if delta is not None:
        right.axhline(delta, color="0.5", lw=0.8, ls=":")
        right.annotate(
            f"delta = {delta:g}: eps read here", (0.0, delta), fontsize=8, va="bottom"
        )
    for ax in (left, right):
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
    handles, labels = left.get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(labels), 5),
        fontsize=8,
        frameon=False,
    )
    fig.suptitle(title, fontsize=9)
    fig.savefig(out, dpi=150)
    csv = out.with_suffix(".csv")
    with open(csv, "w", encoding="utf-8") as fh:
        fh.write("panel,method,x,y\n")
        for panel, method, x, y in rows:
            for xi, yi in zip(x, np.asarray(y, dtype=np.float64), strict=True):
                fh.write(f"{panel},{method},{float(xi)!r},{float(yi)!r}\n")
    return str(csv)


def run(args: argparse.Namespace) -> int:
    """Execute ``symfdp account``; returns the exit status."""
    from symfdp.cli import UsageError

    deltas = list(args.delta or [])
    at_eps = list(args.at_eps or [])
    if not deltas and not at_eps:
        raise UsageError("give --delta (one or more target deltas) or --at-eps.")
    for d in deltas:
        if not 0 < d < 1:
            raise UsageError(f"--delta must lie in (0, 1). Found {d:g}.")
    for e in at_eps:
        if e < 0:
            raise UsageError(f"--at-eps must be >= 0. Found {e:g}.")
    spec = resolve_run(args, args.mechanism)
    if args.plot:
        check_plot_path(args.plot)
    methods = methods_for(args, spec)
    options = {m: options_for(m, args) for m in methods}
    mechanism = spec.build()
    from symfdp._progress import status

    results: list[Result] = []
    for method in methods:
        status(f"account: composing {spec.steps} steps with {method} ...")
        try:
            result = account_one(
                method, mechanism, spec.steps, deltas, options[method], at_eps
            )
        except (ValueError, FloatingPointError) as exc:
            result = Result(method=method, error=str(exc).splitlines()[0])
        if result.error and len(methods) == 1:
            raise ValueError(f"{method}: {result.error}")
        results.append(result)
    plot_csv = None
    asked = []
    if deltas:
        asked.append("delta=" + ", ".join(f"{d:g}" for d in deltas))
    if at_eps:
        asked.append("at eps=" + ", ".join(f"{e:g}" for e in at_eps))
    title = f"{spec.describe()}, {'; '.join(asked)}"
    if args.plot:
        status(f"account: drawing {args.plot} ...")
        plot_csv = write_plot(args.plot, results, title, deltas[0] if deltas else None)
    if args.json:
        payload = {
            "mechanism": spec.mechanism,
            "parameters": spec.params,
            "sample_rate": spec.sample_rate,
            "steps": spec.steps,
            "pair": (spec.pair or "both") if spec.sample_rate is not None else None,
            "adjacency": spec.adjacency,
            "delta": deltas[0] if deltas else None,
            "deltas": deltas,
            "at_eps": at_eps,
            "derived": spec.derived,
            "mu_star_definition": MU_NOTE,
            "results": [r.as_json() for r in results],
            "plot": args.plot,
            "plot_data": plot_csv,
        }
        print(json.dumps(payload, indent=2))
        return 0
    print(title)
    line = derived_line(spec)
    if line:
        print(line)
    if len(deltas) == 1:
        print("\n".join(format_table(results)))
    elif deltas:
        print("\n".join(format_multi_table(results)))
    if at_eps:
        if not deltas:
            for r in results:
                if r.error:
                    print(f"{r.method}: note: {r.error}")
        print("\n".join(format_delta_table(results)))
    if deltas:
        print(MU_NOTE)
    for r in results:
        for w in r.warnings:
            print(f"symfdp: warning ({r.method}): {w}", file=sys.stderr)
    if args.plot:
        print(f"wrote {args.plot} and {plot_csv}")
    return 0
