"""`symfdp account` (not yet available)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("account", help="(not yet available)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    raise SystemExit("symfdp account is not available yet")
