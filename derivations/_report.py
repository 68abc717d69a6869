"""Shared reporting for derivation scripts.

Every script in ``derivations/`` builds a :class:`Report`, records checks and
source misprints, and ends with ``sys.exit(report.finish())``: exit status 0 when
every check holds, 1 otherwise. A misprint in a source (a formula that does not hold
as printed) is *reported* with its corrected form; it is not a failure of the
derivation, as long as the corrected form is proved. Each misprint names its id in the
registry :mod:`symfdp.findings`; ``symfdp verify`` reads the id from the
``[MISPRINT] <id>: <label>`` line and rejects ids outside the registry.
"""

from __future__ import annotations

import sys
from typing import Any


class Report:
    """Collects the outcome of one derivation script."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.failures: list[str] = []
        self.misprints: list[str] = []
        self.passed = 0
        print(f"== {title}")

    def show(self, label: str, value: Any) -> None:
        """Print a derived object (SymPy expression, LaTeX string or number)."""
        print(f"{label}: {value}")

    def check(self, label: str, ok: bool, detail: str = "") -> bool:
        """Record a check; a failing check makes the script exit non-zero."""
        status = "ok  " if ok else "FAIL"
        print(f"[{status}] {label}" + (f" -- {detail}" if detail else ""))
        if ok:
            self.passed += 1
        else:
            self.failures.append(label)
        return ok

    def misprint(self, finding: str, label: str, printed: Any, corrected: Any) -> None:
        """Record a formula that does not hold as printed in its source.

        Args:
            finding: The finding's id in :mod:`symfdp.findings`.
            label: Where the formula stands in the source.
            printed: The formula as printed.
            corrected: The form that holds.
        """
        self.misprints.append(finding)
        print(f"[MISPRINT] {finding}: {label}")
        print(f"    as printed: {printed}")
        print(f"    corrected:  {corrected}")

    def finish(self) -> int:
        """Print the summary line and return the exit status."""
        n_mis = len(self.misprints)
        extra = f", {n_mis} misprint(s) reported" if n_mis else ""
        if self.failures:
            print(f"== FAIL: {len(self.failures)} failed, {self.passed} passed{extra}")
            return 1
        print(f"== PASS: {self.passed} checks{extra}")
        sys.stdout.flush()
        return 0
