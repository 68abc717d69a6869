"""Read the runnable blocks of a Markdown page and compare what they print with it.

The conventions (which fences run, how expected output is written, how numbers are
compared, how a block opts out) are stated once, in the docstring of
``tests/test_pages_run.py`` and in ``docs/CONTRIBUTING-pages.md``. This module has
no pytest dependency: ``python -m tests._pages PAGE...`` runs the blocks of the
given pages and prints what each printed next to what the page shows.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Seconds a block may run before it fails (the slowest guide block takes ~1 min).
TIMEOUT_S = 600

#: Fence languages that run; everything else is shown, never run.
RUN_LANGUAGES = ("console", "python")
#: The fence that, right after a ``python`` fence, holds its expected stdout.
OUTPUT_LANGUAGE = "text"

# A number as printed: optional sign, digits with an optional fraction (or a bare
# fraction), optional exponent; not part of a word, a version or a longer number.
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER = re.compile(rf"(?<![\w.]){_NUM}(?![\w])(?!\.\d)")
# A timing: a number followed by a unit of time.
_TIME_UNITS = r"(?:ms|us|µs|s|min|h)"
_TIMING = re.compile(rf"(?<![\w.]){_NUM}\s?{_TIME_UNITS}(?![\w])")
_ELLIPSIS = "..."
_MARKER = re.compile(r"^\s*<!--\s*pages:\s*(?P<body>.*?)\s*-->\s*$")
_OPTION = re.compile(
    r"^(?P<name>skip|slow|rtol|needs)(?:=(?P<value>[^:\s]+))?\s*:\s*(?P<reason>\S.*)$"
)
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


class PageError(ValueError):
    """A page breaks the conventions (unclosed fence, marker without a reason)."""


@dataclass(frozen=True)
class Options:
    """What a ``<!-- pages: ... -->`` marker asks of the block below it.

    Attributes:
        skip: The reason the block is not run, or ``None``.
        slow: The reason the block runs only with ``--run-slow``, or ``None``.
        rtol: A relative tolerance added to every number's half unit.
        rtol_reason: Why the block needs ``rtol``.
        needs: Modules the block imports from an optional extra; it is skipped
            where one of them is not installed.
    """

    skip: str | None = None
    slow: str | None = None
    rtol: Decimal = Decimal(0)
    rtol_reason: str | None = None
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Command:
    """One ``$ ...`` line of a console block and the lines the page shows after it."""

    text: str
    line: int
    expected: tuple[str, ...]
    expected_line: int


@dataclass(frozen=True)
class Block:
    """A runnable fence of a page.

    Attributes:
        page: The page's path.
        line: The 1-based line of the opening fence.
        language: ``"console"`` or ``"python"``.
        source: The block's text (Python source; a console block's raw text).
        commands: A console block's commands with their expected output.
        expected: A python block's expected stdout (the ``text`` fence after
            it), or ``None`` when the page shows none.
        expected_line: The page line of the first expected line.
        options: The block's marker.
    """

    page: Path
    line: int
    language: str
    source: str
    commands: tuple[Command, ...] = ()
    expected: tuple[str, ...] | None = None
    expected_line: int = 0
    options: Options = field(default_factory=Options)

    @property
    def page_label(self) -> str:
        """The page's path, relative to the checkout where possible."""
        try:
            return str(self.page.resolve().relative_to(ROOT))
        except ValueError:
            return str(self.page)

    @property
    def name(self) -> str:
        """``page:line`` of the opening fence."""
        return f"{self.page_label}:{self.line}"


@dataclass(frozen=True)
class _Fence:
    language: str
    line: int
    body: tuple[str, ...]
    marker: str | None


def _parse_options(body: str, where: str) -> Options:
    skip = slow = rtol_reason = None
    rtol = Decimal(0)
    needs: list[str] = []
    for part in filter(None, (p.strip() for p in body.split(";"))):
        m = _OPTION.match(part)
        if m is None:
            raise PageError(
                f"{where}: marker option {part!r} is not 'skip: REASON', "
                "'slow: REASON', 'rtol=X: REASON' or 'needs=MODULE: REASON' (a "
                "reason is required)"
            )
        name, value, reason = m["name"], m["value"], m["reason"]
        if (name in ("rtol", "needs")) != (value is not None):
            raise PageError(f"{where}: rtol and needs take a value ({part!r})")
        if name == "skip":
            skip = reason
        elif name == "slow":
            slow = reason
        elif name == "needs":
            needs.append(value)
        else:
            try:
                rtol = Decimal(value)
            except InvalidOperation:
                raise PageError(f"{where}: rtol={value!r} is not a number") from None
            if not rtol.is_finite() or not 0 < rtol < 1:
                raise PageError(f"{where}: rtol must lie in (0, 1). Found {value}.")
            rtol_reason = reason
    return Options(
        skip=skip, slow=slow, rtol=rtol, rtol_reason=rtol_reason, needs=tuple(needs)
    )


def _fences(text: str, where: str) -> Iterator[_Fence]:
    lines = text.splitlines()
    i, marker = 0, None
    while i < len(lines):
        line = lines[i]
        m = _FENCE.match(line)
        if m is None:
            mk = _MARKER.match(line)
            if mk is not None:
                if marker is not None:
                    raise PageError(f"{where}:{i + 1}: two markers for one block")
                marker = mk["body"]
                marker_line = i + 1
            elif line.strip() and marker is not None:
                raise PageError(
                    f"{where}:{marker_line}: a pages marker must stand right "
                    "above a fence (blank lines allowed)"
                )
            i += 1
            continue
        fence, info = m["fence"], m["info"].strip()
        if fence[0] == "`" and "`" in info:  # an inline code span, not a fence
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if (
                close is not None
                and close["fence"][0] == fence[0]
                and len(close["fence"]) >= len(fence)
                and not close["info"].strip()
            ):
                break
            body.append(lines[i][len(m["indent"]) :])
            i += 1
        else:
            raise PageError(f"{where}:{start}: fence {fence} is never closed")
        language = info.split()[0].lower() if info else ""
        yield _Fence(language, start, tuple(body), marker)
        marker = None
        i += 1
    if marker is not None:
        raise PageError(f"{where}:{marker_line}: a pages marker with no fence below")


def _console_commands(fence: _Fence) -> tuple[Command, ...]:
    commands: list[Command] = []
    body = list(fence.body)
    j = 0
    while j < len(body) and not body[j].startswith("$ "):
        if body[j].strip():
            raise PageError(
                f"line {fence.line + 1 + j}: a console block starts with a '$ ' line"
            )
        j += 1
    while j < len(body):
        first = fence.line + 1 + j
        text = body[j][2:]
        while text.endswith("\\") and j + 1 < len(body):
            j += 1
            text = text[:-1] + body[j]
        j += 1
        out_start = j
        while j < len(body) and not body[j].startswith("$ "):
            j += 1
        expected = tuple(body[out_start:j])
        commands.append(
            Command(text.strip(), first, expected, fence.line + 1 + out_start)
        )
    return tuple(commands)


def parse_page(path: Path, text: str | None = None) -> list[Block]:
    """The runnable blocks of a Markdown page, in page order.

    Raises:
        PageError: the page breaks the conventions.
    """
    if text is None:
        text = path.read_text(encoding="utf-8")
    fences = list(_fences(text, str(path)))
    blocks: list[Block] = []
    for k, fence in enumerate(fences):
        where = f"{path}:{fence.line}"
        options = _parse_options(fence.marker, where) if fence.marker else Options()
        if fence.language not in RUN_LANGUAGES:
            if fence.marker is not None:
                raise PageError(f"{where}: a pages marker on a fence that never runs")
            continue
        if fence.language == "console":
            commands = _console_commands(fence)
            blocks.append(
                Block(
                    path,
                    fence.line,
                    "console",
                    "\n".join(fence.body),
                    commands,
                    options=options,
                )
            )
            continue
        expected, expected_line = None, 0
        nxt = fences[k + 1] if k + 1 < len(fences) else None
        if nxt is not None and nxt.language == OUTPUT_LANGUAGE:
            gap = text.splitlines()[fence.line + len(fence.body) + 1 : nxt.line - 1]
            if not any(g.strip() for g in gap):
                expected, expected_line = nxt.body, nxt.line + 1
        blocks.append(
            Block(
                path,
                fence.line,
                "python",
                "\n".join(fence.body) + "\n",
                expected=expected,
                expected_line=expected_line,
                options=options,
            )
        )
    return blocks


# ----------------------------------------------------------------- comparison
@dataclass(frozen=True)
class Mismatch:
    """One difference between a page and what its block printed."""

    line: int
    expected: str
    printed: str
    why: str

    def format(self, page: str) -> str:
        return (
            f"{page}:{self.line}: {self.why}\n"
            f"    page:    {self.expected}\n"
            f"    printed: {self.printed}"
        )


@dataclass(frozen=True)
class _LinePattern:
    regex: re.Pattern[str]
    numbers: tuple[str, ...]


def _line_pattern(line: str) -> _LinePattern:
    """A regex that matches a printed line equal to ``line`` up to the values of
    its numbers (captured), its timings (any), its runs of whitespace and the
    text that each ``...`` of it stands for."""
    parts: list[str] = []
    numbers: list[str] = []
    for segment in line.strip().split(_ELLIPSIS):
        segment_regex, segment_numbers = _segment(segment)
        parts.append(segment_regex)
        numbers.extend(segment_numbers)
    return _LinePattern(re.compile("^" + ".*?".join(parts) + "$"), tuple(numbers))


def _segment(text: str) -> tuple[str, list[str]]:
    """The regex of a piece of a shown line without ``...``, and its numbers."""
    timings = [(m.start(), m.end()) for m in _TIMING.finditer(text)]
    tokens = sorted(
        [(a, b, "time") for a, b in timings]
        + [
            (m.start(), m.end(), "num")
            for m in _NUMBER.finditer(text)
            if not any(a <= m.start() < b for a, b in timings)
        ]
    )
    parts: list[str] = []
    numbers: list[str] = []
    pos = 0
    for start, end, kind in tokens:
        parts.append(_literal(text[pos:start]))
        if kind == "time":
            parts.append(rf"{_NUM}\s?{_TIME_UNITS}")
        else:
            parts.append(rf"(?<![\w.])({_NUM})(?![\w])(?!\.\d)")
            numbers.append(text[start:end])
        pos = end
    parts.append(_literal(text[pos:]))
    return "".join(parts), numbers


def _literal(text: str) -> str:
    """``text`` as a regex in which each run of whitespace inside it matches any
    run, and whitespace at its ends (next to a number or a ``...``) matches any
    run or none."""
    inner = r"\s+".join(re.escape(chunk) for chunk in text.split())
    head = r"\s*" if text[:1].isspace() else ""
    tail = r"\s*" if text[-1:].isspace() and inner else ""
    return head + inner + tail


def half_unit(shown: str) -> Decimal:
    """Half a unit in the last place of a number as the page shows it."""
    mantissa, _, exponent = shown.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return Decimal(5).scaleb(-decimals - 1 + (int(exponent) if exponent else 0))


def number_matches(shown: str, printed: str, rtol: Decimal = Decimal(0)) -> bool:
    """Whether ``printed`` rounds to ``shown`` (within half a unit of its last
    digit), or lies within ``rtol`` of it relatively."""
    a, b = Decimal(shown), Decimal(printed)
    return abs(a - b) <= half_unit(shown) + rtol * abs(a)


def compare(
    expected: Sequence[str],
    printed: Sequence[str],
    first_line: int,
    rtol: Decimal = Decimal(0),
) -> list[Mismatch]:
    """Differences between the lines a page shows (from page line ``first_line``)
    and the lines a block printed.

    A shown line ``...`` stands for any number of printed lines; within a line,
    ``...`` stands for any text. Every other shown line matches one printed
    line with the same words (whitespace runs collapsed), the same timings up to
    their values, and numbers that round to the shown ones.
    """
    exp = _trim(expected)
    out = _trim(printed)
    found: list[Mismatch] = []
    i = j = 0
    while i < len(exp):
        line_no = first_line + i
        if exp[i].strip() == _ELLIPSIS:
            i += 1
            if i == len(exp):
                return found
            pattern = _line_pattern(exp[i])
            while j < len(out) and not pattern.regex.match(out[j].strip()):
                j += 1
            if j == len(out):
                found.append(
                    Mismatch(first_line + i, exp[i], "(no such line)", "not printed")
                )
                return found
            continue
        if j >= len(out):
            found.append(Mismatch(line_no, exp[i], "(nothing more)", "not printed"))
            return found
        pattern = _line_pattern(exp[i])
        m = pattern.regex.match(out[j].strip())
        if m is None:
            found.append(Mismatch(line_no, exp[i], out[j], "the words differ"))
            return found
        for shown, got in zip(pattern.numbers, m.groups(), strict=True):
            if not number_matches(shown, got, rtol):
                why = f"{got} is not {shown} to the digits shown"
                if rtol:
                    why += f" (nor within rtol={rtol})"
                found.append(Mismatch(line_no, exp[i], out[j], why))
        i += 1
        j += 1
    if j < len(out):
        found.append(
            Mismatch(
                first_line + len(exp),
                "(end of the shown output)",
                out[j],
                f"printed {len(out) - j} more line(s) than the page shows",
            )
        )
    return found


def _trim(lines: Sequence[str]) -> list[str]:
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


# ------------------------------------------------------------------ running
@dataclass(frozen=True)
class Outcome:
    """What running a block found."""

    block: Block
    mismatches: tuple[str, ...]
    transcript: str

    @property
    def ok(self) -> bool:
        return not self.mismatches


def environment(cache_dir: Path, shim_dir: Path) -> dict[str, str]:
    """The environment of a block: this checkout first on ``PYTHONPATH``, a
    ``symfdp`` on ``PATH`` that runs it with this interpreter, the given cache,
    no progress lines, Agg figures, the default terminal width."""
    shim = shim_dir / "symfdp"
    if not shim.exists():
        shim_dir.mkdir(parents=True, exist_ok=True)
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m symfdp "$@"\n')
        shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    paths = [str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    env.update(
        PYTHONPATH=os.pathsep.join(paths),
        PATH=os.pathsep.join([str(shim_dir), env.get("PATH", "")]),
        SYMFDP_CACHE_DIR=str(cache_dir),
        SYMFDP_PROGRESS="0",
        MPLBACKEND="Agg",
        PYTHONIOENCODING="utf-8",
        PYTHONUNBUFFERED="1",  # stdout and stderr interleaved as on a terminal
    )
    env.pop("PYTHONWARNINGS", None)
    return env


def _workdir(base: Path) -> Path:
    """A fresh directory with a link to the checkout's ``examples/``."""
    work = Path(tempfile.mkdtemp(prefix="page-", dir=base))
    (work / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return work


def run_block(
    block: Block, env: Mapping[str, str], base: Path, timeout: float = TIMEOUT_S
) -> Outcome:
    """Run ``block`` in a fresh directory under ``base`` and compare its output
    with the page."""
    work = _workdir(base)
    if block.language == "python":
        return _run_python(block, env, work, timeout)
    return _run_console(block, env, work, timeout)


def _run_python(
    block: Block, env: Mapping[str, str], work: Path, timeout: float
) -> Outcome:
    script = work / "snippet.py"
    script.write_text(block.source, encoding="utf-8")
    try:
        proc = subprocess.run(
            [sys.executable, script.name],
            cwd=work,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(block, (f"{block.name}: did not finish in {timeout:g} s",), "")
    transcript = proc.stdout + ("\n[stderr]\n" + proc.stderr if proc.stderr else "")
    problems: list[str] = []
    if proc.returncode != 0 or "Traceback (most recent call last)" in proc.stderr:
        problems.append(
            f"{block.name}: exited with status {proc.returncode}\n"
            + _indent(proc.stderr[-3000:])
        )
    if block.expected is not None:
        for mm in compare(
            block.expected,
            proc.stdout.splitlines(),
            block.expected_line,
            block.options.rtol,
        ):
            problems.append(mm.format(block.page_label))
    return Outcome(block, tuple(problems), transcript)


def _run_console(
    block: Block, env: Mapping[str, str], work: Path, timeout: float
) -> Outcome:
    problems: list[str] = []
    transcript: list[str] = []
    for cmd in block.commands:
        try:
            proc = subprocess.run(
                ["bash", "-c", cmd.text],
                cwd=work,
                env=dict(env),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            problems.append(
                f"{block.page_label}:{cmd.line}: `{cmd.text}` did not finish in "
                f"{timeout:g} s"
            )
            break
        transcript.append(f"$ {cmd.text}\n{proc.stdout}")
        shows_error = any(line.startswith("symfdp: error:") for line in cmd.expected)
        wanted = 2 if shows_error else 0
        if proc.returncode != wanted or "Traceback (most recent call last)" in (
            proc.stdout
        ):
            problems.append(
                f"{block.page_label}:{cmd.line}: `{cmd.text}` exited with status "
                f"{proc.returncode} (the page implies {wanted})\n"
                + _indent(proc.stdout[-3000:])
            )
            continue
        for mm in compare(
            cmd.expected,
            proc.stdout.splitlines(),
            cmd.expected_line,
            block.options.rtol,
        ):
            problems.append(mm.format(block.page_label))
    return Outcome(block, tuple(problems), "".join(transcript))


def _indent(text: str) -> str:
    return "".join(f"    | {line}\n" for line in text.rstrip().splitlines())


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def anchor(heading: str) -> str:
    """The anchor of a Markdown heading, as GitHub and MyST make it: lower case,
    punctuation dropped (``-`` and ``_`` kept), spaces as ``-``."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of the headings of a page (outside fences)."""
    found: set[str] = set()
    fence = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _FENCE.match(line)
        if m is not None:
            mark = m["fence"]
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        h = _HEADING.match(line)
        if fence is None and h is not None:
            found.add(anchor(h[1]))
    return found


def broken_links(path: Path) -> list[str]:
    """The relative links of a page (outside fences) whose file or heading does
    not exist."""
    broken: list[str] = []
    text = path.read_text(encoding="utf-8")
    body = "\n".join(line for line in _without_fences(text.splitlines()))
    for target in _LINK.findall(body):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, frag = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(f"{path.name}: {target} (no such file)")
        elif frag and dest.suffix == ".md" and frag not in anchors(dest):
            broken.append(f"{path.name}: {target} (no such heading)")
    return broken


def _without_fences(lines: list[str]) -> Iterator[str]:
    fence = None
    for line in lines:
        m = _FENCE.match(line)
        if m is not None:
            mark = m["fence"]
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        if fence is None:
            yield line


def missing_modules(block: Block) -> list[str]:
    """The modules of the block's ``needs`` that are not installed."""
    return [m for m in block.options.needs if importlib.util.find_spec(m) is None]


def pages(root: Path = ROOT) -> list[Path]:
    """README.md and every Markdown page under ``docs/``."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def main(argv: Sequence[str]) -> int:
    """Run the blocks of the given pages (default: all) and print, per block,
    what it printed and where it differs from the page."""
    paths = [Path(a) for a in argv] or pages()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        cache = Path(os.environ.get("SYMFDP_CACHE_DIR") or base / "cache")
        env = environment(cache, base / "bin")
        for path in paths:
            for block in parse_page(path):
                missing = missing_modules(block)
                if block.options.skip or missing:
                    why = block.options.skip or f"needs {', '.join(missing)}"
                    print(f"--- {block.name}: skipped ({why})")
                    continue
                outcome = run_block(block, env, base)
                state = "ok" if outcome.ok else "FAIL"
                print(f"--- {block.name}: {state}")
                print(outcome.transcript.rstrip())
                for problem in outcome.mismatches:
                    print(problem)
                failed += not outcome.ok
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
