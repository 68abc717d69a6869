"""What the ``account``, ``calibrate`` and ``sweep`` commands share: number
types, the run's flags and their reading into a :class:`~symfdp.runs.run.Run`,
and the command line's words for the library's (``--sample-rate`` for
``sample_rate``, ``--method numerical`` for ``accountants.Numerical``).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Final

from symfdp import runs
from symfdp.accountants import registry
from symfdp.adjacency import Adjacency
from symfdp.runs.errors import RequestError


class UsageError(Exception):
    """A mistake in the command line; reported in one line with exit status 2."""


class Lazy(Sequence[str]):
    """A tuple of names computed on first use, so that building the parser reads
    no registry (argparse reads ``choices`` only when it parses, reports an
    error or prints help)."""

    def __init__(self, make: Callable[[], Sequence[str]]) -> None:
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


def number(text: str) -> float:
    """A finite float."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite. Found {text!r}.")
    return value


def integer(text: str) -> int:
    """An integer, also written ``1e6``."""
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value.denominator != 1:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    return int(value)


def exact(text: str) -> Fraction:
    """A number read exactly (``0.1`` is 1/10)."""
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


# ------------------------------------------------------------------ words
#: Python names (request fields, accountant options, search arguments) whose
#: flag is not ``--`` + the name with hyphens.
_FLAG_OF: Final = {
    "deltas": "--delta",
    "sigma_bracket": "--sigma-range",
    "p": "--sample-rate",
    "n": "--steps",
    "method": "--method",
}
#: Accountant options that have a flag, and the flag.
OPTION_FLAGS: Final = {
    "order": "--order",
    "eps_rel_tol": "--eps-rel-tol",
    "max_fft_size": "--max-fft-size",
    "warn_rel_error": "--warn-rel-error",
}
#: Knobs the library's messages name that are flags here (``order`` is left
#: alone: it is also a word, and ``Edgeworth(order=4)`` a method's name).
_KNOBS: Final = (*(k for k in OPTION_FLAGS if k != "order"), "sigma_bracket")


def flag(name: str) -> str:
    """The flag of a request field or accountant option (``sample_rate`` ->
    ``--sample-rate``)."""
    return _FLAG_OF.get(name) or OPTION_FLAGS.get(name) or "--" + name.replace("_", "-")


def cli_words(message: str) -> str:
    """A library message in the command line's words: ``Numerical(eps_rel_tol=
    0.0025)`` -> ``--eps-rel-tol 0.0025``, ``max_fft_size=N`` ->
    ``--max-fft-size N``, ``accountants.SaddlePoint`` -> ``--method
    saddlepoint``; Python-only pointers (``(curve.epsilon_bounds / ...)``) are
    left out."""
    for knob in _KNOBS:
        name = flag(knob)
        message = re.sub(rf"\b[A-Z]\w*\({knob}=([^,()]+)\)", rf"{name} \1", message)
        message = re.sub(rf"(?<![\w.-]){knob}\s*=\s*", f"{name} ", message)
        message = re.sub(rf"(?<![\w.-]){knob}\b", name, message)
    names = {i.class_name: n for n, i in registry.listing().items()}
    message = re.sub(
        r"\b(?:symfdp\.)?accountants\.([A-Z]\w*)(?:\(\))?",
        lambda m: (
            f"--method {names[m.group(1)]}" if m.group(1) in names else m.group(0)
        ),
        message,
    )
    return re.sub(r"\s*\(curve\.[^)]*\)", "", message)


def usage(exc: RequestError) -> UsageError:
    """``exc`` with its fields spelled as flags, as a :class:`UsageError`."""
    return UsageError(exc.render(flag))


def warn(message: str) -> None:
    """One warning line on stderr, in the command line's words."""
    print(f"symfdp: warning: {cli_words(message)}", file=sys.stderr)


# ------------------------------------------------------------------ the run
def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The flags that describe a run: steps and sampling, or epochs/dataset/batch."""
    g = p.add_argument_group("the run (give --sample-rate/--steps or the DP-SGD form)")
    g.add_argument(
        "--sample-rate",
        "-p",
        type=number,
        metavar="P",
        help="Poisson sampling probability in (0, 1] (subsampled mechanisms)",
    )
    g.add_argument(
        "--steps", "-n", type=integer, metavar="N", help="number of compositions"
    )
    g.add_argument(
        "--epochs", type=exact, metavar="E", help="epochs (with the next two)"
    )
    g.add_argument("--dataset-size", type=integer, metavar="N", help="dataset size")
    g.add_argument("--batch-size", type=integer, metavar="B", help="expected batch")
    p.add_argument(
        "--adjacency",
        choices=tuple(a.value for a in Adjacency),
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


def relation(args: argparse.Namespace, mechanism: str) -> str | None:
    """``--adjacency``, or the deprecated ``--pair`` (warned) mapped to it."""
    if args.pair is None:
        return args.adjacency  # type: ignore[no-any-return]
    if args.adjacency is not None:
        raise UsageError("give --adjacency only (--pair is its deprecated spelling).")
    family = runs.families().get(mechanism)
    if family is not None and not family.subsampled:
        raise UsageError(
            f"--pair applies to subsampled mechanisms only; {mechanism} is symmetric."
        )
    adjacency = Adjacency.from_pair(args.pair).value
    print(
        f"symfdp: warning: --pair is deprecated; use --adjacency {adjacency}.",
        file=sys.stderr,
    )
    return adjacency


def run_from_args(
    args: argparse.Namespace, mechanism: str, *, parameter: bool = True
) -> runs.Run:
    """The run the flags describe.

    Raises:
        UsageError: the first problem, naming the flags.
    """
    adjacency = relation(args, mechanism)
    given = {k: getattr(args, k, None) for k in ("sigma", "mu", "eps")}
    try:
        return runs.make_run(
            mechanism,
            **(given if parameter else {}),
            sample_rate=args.sample_rate,
            steps=args.steps,
            epochs=args.epochs,
            dataset_size=args.dataset_size,
            batch_size=args.batch_size,
            adjacency=adjacency,
            parameter=parameter,
        )
    except RequestError as exc:
        raise usage(exc) from None
