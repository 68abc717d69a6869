"""Every command and Python block that README.md and the pages under docs/ show runs,
and prints the numbers the page shows.

The conventions (also in ``docs/CONTRIBUTING-pages.md``):

Which fences run
    A ``console`` fence runs: each line starting with ``$ `` is a command (a trailing
    ``\\`` continues it on the next line), run by ``bash`` in a fresh temporary
    directory per block (commands of one block share it, in order; it holds a link
    to the checkout's ``examples/``). ``symfdp`` there is this checkout's code. A
    ``python`` fence runs as pasted, as a script in a fresh subprocess (imports
    included: no REPL transcripts, no names from earlier blocks). Every other fence
    (none, ``text``, ``toml``, ``bash``, ...) is shown, never run.

Expected output
    In a console fence, the lines after a command up to the next ``$ `` line are
    what it prints (stdout and stderr together, as a terminal shows them). For a
    python fence, a ``text`` fence right after it (only blank lines between) is its
    expected stdout; without one, the block must only run without error. Warnings
    go to stderr and are not compared. A shown line ``...`` stands for any number
    of printed lines; ``...`` within a shown line stands for any text (to cut a
    long message or an address that changes).

How a line is compared
    Words must be equal, with runs of whitespace collapsed (columns may shift).
    Timings, a number followed by a unit of time (``765 ms``, ``0.9s``, ``23.80 s``;
    units ms, us, µs, s, min, h), match any timing. Every other number must round to
    the one shown: it may differ by at most half a unit in the last digit shown
    (``4.99847`` accepts [4.998465, 4.998475]; ``1.6e-14`` accepts
    [1.55e-14, 1.65e-14]; integers are exact). A number is a run of digits with an
    optional sign, fraction and exponent that is not part of a word (``dong2019``,
    ``x2``, hex ids are words).

Exit status
    A command or block must exit with status 0 and print no traceback; a command
    whose shown output has a line starting with ``symfdp: error:`` must exit with
    status 2.

Markers (rare; a reason is required)
    An HTML comment right above a runnable fence (blank lines allowed between),
    ``<!-- pages: OPTION: REASON; ... -->``, with OPTION one of:
    ``skip`` (not run: the reason says why, e.g. it needs a GPU or runs for an
    hour), ``slow`` (run only with ``--run-slow``), ``needs=MODULE`` (skipped
    where MODULE, from an optional extra, is not installed), ``rtol=X`` (a relative
    tolerance added to every number's half unit, e.g. for the ends of a certified
    bracket whose resolution the reason states).

Links between the pages (relative links, with their ``#heading`` anchors) must
resolve.

Every mismatch is reported with the page, the line, the text shown and the text
printed. ``python -m tests._pages PAGE...`` prints what each block of the given
pages prints, next to the mismatches, when a page needs updating.
"""

from __future__ import annotations

import doctest
import os
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

import symfdp
from tests import _pages
from tests._pages import Block, PageError, compare, number_matches, parse_page

BLOCKS = [block for page in _pages.pages() for block in parse_page(page)]


@pytest.fixture(scope="session")
def page_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The blocks' environment; the test's ``SYMFDP_CACHE_DIR`` when set (so the
    derived expansions are cached across blocks), else one for the session."""
    base = tmp_path_factory.mktemp("pages")
    cache = os.environ.get("SYMFDP_CACHE_DIR") or str(base / "cache")
    return _pages.environment(Path(cache), base / "bin")


def _param(block: Block) -> object:
    marks = []
    if block.options.skip:
        marks.append(pytest.mark.skip(reason=block.options.skip))
    if block.options.slow:
        marks.append(pytest.mark.slow)
    missing = _pages.missing_modules(block)
    if missing:
        marks.append(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))
    return pytest.param(block, id=block.name, marks=marks)


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_page_block_prints_what_the_page_shows(
    block: Block, page_env: dict[str, str], tmp_path: Path
) -> None:
    outcome = _pages.run_block(block, page_env, tmp_path)
    assert outcome.ok, "\n".join(outcome.mismatches)


def test_the_pages_have_runnable_blocks() -> None:
    readme = [b for b in BLOCKS if b.page.name == "README.md"]
    assert {b.language for b in readme} == {"console", "python"}
    assert all(b.expected is not None for b in readme if b.language == "python")
    assert all(c.expected for b in readme for c in b.commands)
    # opting out is rare and always says why
    skipped = [b for b in BLOCKS if b.options.skip]
    assert len(skipped) <= 0.1 * len(BLOCKS) + 1, [b.name for b in skipped]


@pytest.mark.parametrize("page", _pages.pages(), ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    assert _pages.broken_links(page) == []


def test_package_docstring_example() -> None:
    """The hello-world of ``help(symfdp)`` (the certified default) prints what it
    shows."""
    (test,) = [t for t in doctest.DocTestFinder().find(symfdp) if t.name == "symfdp"]
    result = doctest.DocTestRunner().run(test)
    assert result.attempted >= 5 and result.failed == 0


# ------------------------------------------------------------ the runner itself
def test_broken_links_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## What `certified` means\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md) [ok](other.md#what-certified-means) [ok](#a-heading)\n"
        "[web](https://example.org/x.md) [gone](missing.md) [bad](other.md#nope)\n"
        "# A heading\n```text\n[in a fence](missing.md)\n```\n"
    )
    assert _pages.broken_links(page) == [
        "page.md: missing.md (no such file)",
        "page.md: other.md#nope (no such heading)",
    ]
    assert _pages.anchor("Numerical at n = 10^6 steps") == "numerical-at-n--106-steps"


def _page(tmp_path: Path, text: str) -> list[Block]:
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent(text))
    return parse_page(page)


def test_a_right_and_a_wrong_number(tmp_path: Path, page_env: dict[str, str]) -> None:
    blocks = _page(
        tmp_path,
        """\
        # A tiny page

        ```python
        import math
        print(f"pi = {math.pi:.6f}")
        ```

        ```text
        pi = 3.1416
        ```

        ```python
        import math
        print(f"pi = {math.pi:.6f}")
        ```

        ```text
        pi = 3.1417
        ```

        ```console
        $ echo "e = 2.71828 in 12.5 s"
        e = 2.718 in 0.3 s
        $ echo "e = 2.71828"
        e = 2.7182
        ```
        """,
    )
    assert [b.language for b in blocks] == ["python", "python", "console"]
    right, wrong, console = (_pages.run_block(b, page_env, tmp_path) for b in blocks)
    assert right.ok, right.mismatches
    assert not wrong.ok
    (report,) = wrong.mismatches
    assert report.startswith(f"{tmp_path / 'page.md'}:18: 3.141593 is not 3.1417")
    assert "page:    pi = 3.1417" in report and "printed: pi = 3.141593" in report
    (report,) = console.mismatches  # the timing is skipped, 2.7182 is wrong
    assert ":25: 2.71828 is not 2.7182" in report


def test_exit_status_and_traceback(tmp_path: Path, page_env: dict[str, str]) -> None:
    blocks = _page(
        tmp_path,
        """\
        ```python
        raise SystemExit("boom")
        ```

        ```console
        $ symfdp account --sigma 1 --sample-rate 1.5 --steps 10 --delta 1e-5
        symfdp: error: --sample-rate must lie in (0, 1]. Found 1.5.
        $ false
        ```
        """,
    )
    failing, console = (_pages.run_block(b, page_env, tmp_path) for b in blocks)
    assert "exited with status 1" in failing.mismatches[0]
    (report,) = console.mismatches  # the error exits 2 as shown; `false` exits 1
    assert "`false` exited with status 1 (the page implies 0)" in report


@pytest.mark.parametrize(
    ("shown", "printed", "ok"),
    [
        ("4.99847", "4.998465", True),
        ("4.99847", "4.9984749", True),
        ("4.99847", "4.998476", False),
        ("4.99847", "4.99846", False),
        ("1.6e-14", "1.649e-14", True),
        ("1.6e-14", "1.66e-14", False),
        ("60000", "60000", True),
        ("60000", "60001", False),
        ("1e-05", "1e-5", True),
        ("-0.7", "-0.70000001", True),
        ("0.5", "0.55", True),  # exactly half a unit
        ("0.5", "0.5500001", False),
    ],
)
def test_number_matches_to_the_digits_shown(shown: str, printed: str, ok: bool) -> None:
    assert number_matches(shown, printed) is ok


def test_rtol_widens_every_number() -> None:
    assert not number_matches("2.0000", "2.0010")
    assert number_matches("2.0000", "2.0010", Decimal("1e-3"))


def test_compare_words_whitespace_ellipsis_and_timings() -> None:
    shown = [
        "method   epsilon   time",
        "numerical  4.99847   765 ms",
        "...",
        "done in 1.9s: 4/4 claims hold",
        "warning: the estimate is 8.12% at delta = 1e-05 ...",
        "CGFDomainError: the CGF of ... is finite only for t in (-inf, 0.333333); ...",
    ]
    printed = [
        "method epsilon time",
        "numerical      4.998472      3 s",
        "anything",
        "else",
        "done in 12.0s: 4/4 claims hold",
        "warning: the estimate is 8.1249% at delta = 1e-05 (answer 1.8795), above",
        "CGFDomainError: the CGF of p=exp(-x**2/2) is finite only for t in "
        "(-inf, 0.3333331); t = 0.35 was requested.",
    ]
    assert compare(shown, printed, 1) == []
    words = compare(["two claims hold"], ["three claims hold"], 7)
    assert [(m.line, m.why) for m in words] == [(7, "the words differ")]
    more = compare(["a 1"], ["a 1", "b 2"], 3)
    assert more[0].why == "printed 1 more line(s) than the page shows"
    missing = compare(["a 1", "b 2"], ["a 1"], 3)
    assert (missing[0].line, missing[0].why) == (4, "not printed")
    # a number is not a word's digits, and words are not numbers
    assert compare(["dong2019-fig3 x2"], ["dong2019-fig3 x2"], 1) == []
    assert compare(["id 374a483c"], ["id 374a483d"], 1)[0].why == "the words differ"


def test_parse_markers_and_fences(tmp_path: Path) -> None:
    blocks = _page(
        tmp_path,
        """\
        <!-- pages: skip: needs a GPU -->
        ```python
        import torch
        ```

        <!-- pages: rtol=1e-4: the lattice step moves the ends; needs=opacus: extra -->

        ```console
        $ symfdp account --sigma 1 \\
              --steps 10
        out
        ```

        ````markdown
        ```python
        not run: inside a longer fence
        ```
        ````
        """,
    )
    assert [b.language for b in blocks] == ["python", "console"]
    assert blocks[0].options.skip == "needs a GPU"
    assert blocks[1].options.rtol == Decimal("1e-4")
    assert blocks[1].options.needs == ("opacus",)
    (cmd,) = blocks[1].commands
    assert cmd.text == "symfdp account --sigma 1       --steps 10"
    assert (cmd.line, cmd.expected, cmd.expected_line) == (9, ("out",), 11)


@pytest.mark.parametrize(
    "text",
    [
        "<!-- pages: skip -->\n```python\npass\n```\n",  # no reason
        "<!-- pages: fast: why -->\n```python\npass\n```\n",  # unknown option
        "<!-- pages: rtol=2: why -->\n```python\npass\n```\n",  # out of range
        "<!-- pages: needs: why -->\n```python\npass\n```\n",  # no module
        "<!-- pages: skip: why -->\n```text\nx\n```\n",  # on a fence that never runs
        "<!-- pages: skip: why -->\nprose\n```python\npass\n```\n",  # not above
        "```python\npass\n",  # never closed
        "```console\nnot a command\n```\n",
    ],
)
def test_page_errors(tmp_path: Path, text: str) -> None:
    with pytest.raises(PageError):
        _page(tmp_path, text)
