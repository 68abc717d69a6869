"""`symfdp verify`: run derivation and check scripts and report PASS/FAIL.

Each ``derivations/*.py`` (files starting with ``_`` are helpers, skipped) runs in
its own subprocess with the current Python, from the directory that holds
``derivations/``; its exit status decides PASS (0) or FAIL. One line per script:
status, name, seconds and the source misprints it reported, by finding id
(``[MISPRINT] <id>: ...`` lines; the ids belong to the registry
:mod:`symfdp.findings`). Exit status 1 if any script fails or reports an id
outside the registry. ``--findings`` lists the registry instead (``--format
markdown`` for the README's table). ``derivations/`` is found beside the package
in a checkout, or in ``<prefix>/share/symfdp/`` of an installed copy
(:func:`symfdp.reproduce.paths.derivations_dir`).

A user's own check scripts run the same way: ``symfdp verify my_check.py
checks/`` (a ``.py`` file, or every ``*.py`` not starting with ``_`` in a
directory), from the current directory. The contract is the same as for
``derivations/``: print what was checked, print ``[MISPRINT] ...`` for a formula
of a source that does not hold as printed, exit non-zero when a check fails
(``examples/verify_closed_form.py`` is one).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

from symfdp._progress import status

MISPRINT_TAG = "[MISPRINT]"


@dataclass(frozen=True)
class ScriptResult:
    """Outcome of one derivation script."""

    name: str
    returncode: int
    seconds: float
    output: str
    findings: tuple[str, ...]
    timed_out: bool = False

    @property
    def misprints(self) -> int:
        return len(self.findings)

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        help="run every derivation script (derivations/*.py) and report PASS/FAIL",
        description="Run every script in derivations/ and report PASS/FAIL.",
    )
    p.add_argument(
        "scripts",
        nargs="*",
        metavar="NAME",
        help="run only these scripts of derivations/ (name, with or without "
        ".py), or your own: a path to a .py file or to a directory of them",
    )
    p.add_argument("--jobs", "-j", type=int, default=1, help="scripts run at once")
    p.add_argument(
        "-v", "--verbose", action="store_true", help="show each script's output"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        help="seconds allowed per script (default 1800)",
    )
    p.add_argument(
        "--findings",
        action="store_true",
        help="list every finding about the sources (symfdp.findings) and exit",
    )
    p.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="format of --findings (default text)",
    )
    p.set_defaults(run=run)


def derivations_dir() -> Path:
    """``derivations/`` of the checkout or of the installed copy.

    Raises:
        FileNotFoundError: neither exists.
    """
    from symfdp.reproduce.paths import derivations_dir as find

    return find()


def user_scripts(args: list[str]) -> tuple[list[Path], list[str]]:
    """Split ``verify``'s arguments into a user's scripts (existing ``.py``
    files, and the ``*.py`` of existing directories) and names of
    ``derivations/`` scripts."""
    paths: list[Path] = []
    names: list[str] = []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            paths += discover(p)
        elif p.suffix == ".py" and p.is_file():
            paths.append(p)
        elif p.suffix == ".py" and (os.sep in arg or "/" in arg):
            raise ValueError(f"no such script: {arg}")
        else:
            names.append(arg)
    return paths, names


def discover(directory: Path) -> list[Path]:
    """Every ``*.py`` in ``directory`` not starting with ``_``, sorted by name."""
    return sorted(p for p in directory.glob("*.py") if not p.name.startswith("_"))


def run_script(path: Path, root: Path, timeout: float) -> ScriptResult:
    """Run one script with the current interpreter; never raises."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root), *filter(None, [env.get("PYTHONPATH")])]
    )
    env.setdefault("MPLBACKEND", "Agg")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(path)],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        output = proc.stdout + (("\n" + proc.stderr) if proc.stderr else "")
        code, timed_out = proc.returncode, False
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        output = out.decode() if isinstance(out, bytes) else out
        output += f"\n(timed out after {timeout:g} s)"
        code, timed_out = -1, True
    seconds = time.perf_counter() - start
    return ScriptResult(
        path.stem, code, seconds, output, parse_findings(output), timed_out
    )


def parse_findings(output: str) -> tuple[str, ...]:
    """The finding ids of the ``[MISPRINT] <id>: <label>`` lines of ``output``."""
    ids = []
    for line in output.splitlines():
        if line.startswith(MISPRINT_TAG):
            rest = line[len(MISPRINT_TAG) :].strip()
            ids.append(rest.split(":", 1)[0].strip() if ":" in rest else rest)
    return tuple(ids)


#: Seconds between two "still running" status lines.
STILL_RUNNING_EVERY = 30.0


class _Running:
    """The scripts running now and when each started (for status lines)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.started: dict[str, float] = {}
        self.lock = threading.Lock()

    def run(self, path: Path, root: Path, timeout: float) -> ScriptResult:
        status(f"verify: {path.stem} started")
        with self.lock:
            self.started[path.stem] = time.monotonic()
        try:
            result = run_script(path, root, timeout)
        finally:
            with self.lock:
                self.started.pop(path.stem, None)
        if self.jobs > 1:  # its line may wait for an earlier script's
            verdict = "PASS" if result.passed else "FAIL"
            status(f"verify: {path.stem} finished ({verdict}, {result.seconds:.1f} s)")
        return result

    def report(self) -> None:
        now = time.monotonic()
        with self.lock:
            running = [f"{n} ({now - t:.0f} s)" for n, t in self.started.items()]
        if running:
            status(f"verify: still running: {', '.join(running)}")


def _format(result: ScriptResult) -> str:
    status = "PASS" if result.passed else "FAIL"
    extra = ""
    if result.misprints:
        extra += (
            f"  ({result.misprints} misprint(s) reported: {', '.join(result.findings)})"
        )
    if result.timed_out:
        extra += "  (timed out)"
    elif not result.passed:
        extra += f"  (exit status {result.returncode})"
    return f"{status}  {result.name:<40s} {result.seconds:7.2f} s{extra}"


def list_findings(fmt: str) -> int:
    """Print the registry of findings (``--findings``)."""
    from symfdp import findings

    render = findings.render_markdown if fmt == "markdown" else findings.render_text
    print(render(), end="")
    return 0


def run(args: argparse.Namespace) -> int:
    from symfdp import findings
    from symfdp._validation import check_int, check_real

    if args.findings:
        return list_findings(args.format)
    jobs = check_int("--jobs", args.jobs, lo=1)
    timeout = check_real("--timeout", args.timeout, 0.0, lo_open=True)

    own, names = user_scripts(args.scripts)
    tasks: list[tuple[Path, Path]] = [(p, Path.cwd()) for p in own]
    if names or not own:
        try:
            directory = derivations_dir()
        except FileNotFoundError as exc:
            print(f"symfdp verify: {exc}", file=sys.stderr)
            return 2
        if not directory.is_dir():
            print(
                f"symfdp verify: no derivations/ directory at {directory}; "
                "reinstall symfdp or set SYMFDP_DERIVATIONS_DIR.",
                file=sys.stderr,
            )
            return 2
        scripts = discover(directory)
        if names:
            wanted = {s[:-3] if s.endswith(".py") else s for s in names}
            unknown = wanted - {p.stem for p in scripts}
            if unknown:
                known = ", ".join(p.stem for p in scripts)
                raise ValueError(
                    f"unknown derivation script(s) {sorted(unknown)}; known: "
                    f"{known}; or give the path of your own script."
                )
            scripts = [p for p in scripts if p.stem in wanted]
        if not scripts:
            print(f"symfdp verify: no scripts in {directory}.", file=sys.stderr)
            return 1
        tasks = [(p, directory.parent) for p in scripts] + tasks
    if not tasks:
        print("symfdp verify: no scripts given.", file=sys.stderr)
        return 1
    status(
        f"verify: running {len(tasks)} script(s), {jobs} at a time; one line "
        "per script as each finishes (in order)"
    )
    results: list[ScriptResult] = []
    running = _Running(jobs)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(running.run, p, r, timeout) for p, r in tasks]
        for future in futures:
            while True:
                try:
                    result = future.result(timeout=STILL_RUNNING_EVERY)
                    break
                except FutureTimeout:
                    running.report()
            results.append(result)
            if args.verbose:
                print(f"---- {result.name}")
                print(result.output.rstrip())
            print(_format(result), flush=True)
    failed = [r.name for r in results if not r.passed]
    misprints = sum(r.misprints for r in results)
    known = findings.registry()
    unregistered = sorted({f for r in results for f in r.findings} - set(known))
    print(
        f"{len(results) - len(failed)}/{len(results)} passed"
        + (f"; failed: {', '.join(failed)}" if failed else "")
        + (f"; {misprints} source misprint(s) reported" if misprints else "")
    )
    if not args.scripts:
        by_verify = sum(
            any(c.kind == "verify" for c in f.checks) for f in known.values()
        )
        print(
            f"{len(known)} finding(s) about the sources in the registry: "
            f"{by_verify} checked by these scripts, {len(known) - by_verify} by "
            "symfdp reproduce claims (list: symfdp verify --findings)"
        )
    if unregistered:
        print(
            f"misprint(s) reported outside the registry symfdp.findings: "
            f"{', '.join(unregistered)}"
        )
    return 1 if failed or unregistered else 0
