"""A minimal progress bar on stderr (standard library only).

It draws only when stderr is a terminal or ``SYMFDP_PROGRESS=1``; set
``SYMFDP_PROGRESS=0`` to silence it. With ``status_every=S`` a bar that does not
draw prints a status line (done/total, rate, ETA) every ``S`` seconds instead,
for logs; ``SYMFDP_PROGRESS=0`` silences that too.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def _enabled() -> bool:
    flag = os.environ.get("SYMFDP_PROGRESS")
    if flag is not None:
        return flag not in ("", "0", "false", "no")
    return sys.stderr.isatty()


class Progress:
    """Progress over ``total`` units of work, drawn at most ten times a second."""

    def __init__(
        self,
        total: int,
        label: str = "",
        *,
        enabled: bool | None = None,
        status_every: float | None = None,
    ):
        self.total = max(int(total), 0)
        self.label = label
        self.done = 0
        self.enabled = _enabled() if enabled is None else enabled
        silenced = os.environ.get("SYMFDP_PROGRESS") in ("0", "false", "no")
        self.status_every = None if self.enabled or silenced else status_every
        self._start = time.monotonic()
        self._last = 0.0
        self._last_status = self._start

    def update(self, k: int = 1) -> None:
        self.done += k
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            self._draw(now)
        elif self.status_every and now - self._last_status >= self.status_every:
            self._last_status = now
            self._status(now)

    def _rate_eta(self, now: float) -> tuple[float, float, float]:
        elapsed = now - self._start
        frac = self.done / self.total if self.total else 1.0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = elapsed / frac - elapsed if 0 < frac < 1 else 0.0
        return elapsed, rate, eta

    def _draw(self, now: float) -> None:
        width = 30
        frac = self.done / self.total if self.total else 1.0
        filled = round(width * min(frac, 1.0))
        elapsed, rate, eta = self._rate_eta(now)
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(
            f"\r{self.label} [{bar}] {self.done}/{self.total} "
            f"{elapsed:5.1f}s {rate:6.2f}/s eta {eta:5.1f}s"
        )
        sys.stderr.flush()

    def _status(self, now: float) -> None:
        elapsed, rate, eta = self._rate_eta(now)
        sys.stderr.write(
            f"{self.label}: {self.done}/{self.total} done, {elapsed:.0f} s, "
            f"{rate:.2f}/s, eta {eta:.0f} s\n"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            sys.stderr.write("\n")
            sys.stderr.flush()
        elif self.status_every and self._last_status > self._start:
            self._status(time.monotonic())  # the last line of a long run

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(items: Iterable[T], total: int, label: str = "") -> Iterator[T]:
    """Iterate over ``items`` while drawing a progress bar."""
    with Progress(total, label) as bar:
        for item in items:
            yield item
            bar.update()


def status(message: str) -> None:
    """One status line on stderr (``symfdp: message``) for work of more than a
    couple of seconds, under the same rule as the bar: only when stderr is a
    terminal or ``SYMFDP_PROGRESS=1``; ``SYMFDP_PROGRESS=0`` silences it."""
    if _enabled():
        sys.stderr.write(f"symfdp: {message}\n")
        sys.stderr.flush()
