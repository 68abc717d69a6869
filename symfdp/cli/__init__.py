"""The ``symfdp`` command: derive | verify | reproduce | account | calibrate | sweep.

Each subcommand lives in its own module exposing ``register(subparsers)`` and
``run(args) -> int``; the work itself is the library's (:mod:`symfdp.runs` for
``account``, ``calibrate`` and ``sweep``): the modules here read flags and
print. Building the parser imports no accountant or mechanism, so that
``symfdp --help`` stays fast. Options are never matched by a prefix
(``--sample-rat`` is an error, not ``--sample-rate``). A user error (bad flag or
value) prints one line and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from symfdp._version import __version__
from symfdp.cli.common import UsageError, cli_words, flag
from symfdp.runs.errors import RequestError

__all__ = ["SUBCOMMANDS", "UsageError", "build_parser", "main"]

SUBCOMMANDS: tuple[str, ...] = (
    "derive",
    "verify",
    "reproduce",
    "account",
    "calibrate",
    "sweep",
)


class _Parser(argparse.ArgumentParser):
    """An argument parser that takes no abbreviation of a long option and
    reports errors as :class:`UsageError`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="symfdp",
        description="Symbolic-numeric toolkit for f-differential privacy.",
    )
    parser.add_argument("--version", action="version", version=f"symfdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"symfdp.cli.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.run(args) or 0)
    except UsageError as exc:
        print(f"symfdp: error: {exc}", file=sys.stderr)
        return 2
    except RequestError as exc:
        print(f"symfdp: error: {cli_words(exc.render(flag))}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:
        # Validation errors from the library are user errors at the command line.
        print(f"symfdp: error: {cli_words(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("symfdp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``symfdp ... | head``): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
