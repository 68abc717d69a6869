"""Sphinx extension of the symfdp site: what is generated at build time.

- Figures: ``site_figures.draw_all`` draws every figure from the package into
  ``docs/_generated/figures/`` when the build starts (pages show them with a
  ``{figure}`` directive); nothing is committed as an image.
- Benchmark tables: the ``{benchmark-table}`` directive renders a table from a
  results file of ``benchmarks/results/`` (``benchmark_tables.py``), so the
  benchmark pages show the committed results, never pasted copies.
- Links: the guide pages link to ``../README.md`` and ``../CHANGELOG.md`` (right
  on GitHub and for ``tests/_pages.py``); on the site those are the pages that
  include them, so the links are rewritten as the sources are read. The README
  included by ``index.md`` and ``getting-started.md`` links to ``docs/X.md``, which
  on the site is ``X.md``.
- ``SYMFDP_DOCS_MATHJAX=DIR`` copies a local MathJax 3 (``es5`` folder) into the
  site, for reading it offline.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any, ClassVar

import benchmark_tables
import site_figures
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOGGER = logging.getLogger(__name__)
DOCS = Path(__file__).resolve().parents[1]
GENERATED = DOCS / "_generated"

# Links of the guide pages (relative to docs/) to files outside the site.
_PAGE_LINKS = (
    (re.compile(r"\]\(\.\./README\.md#"), "](getting-started.md#"),
    (re.compile(r"\]\(\.\./README\.md\)"), "](index.md)"),
    (re.compile(r"\]\(\.\./CHANGELOG\.md"), "](changelog.md"),
)
# Links of README.md and CHANGELOG.md (relative to the checkout's top).
_TOP_LINKS = (
    (re.compile(r"\]\(docs/\)"), "](index.md)"),
    (re.compile(r"\]\(docs/([^)]*)\)"), r"](\1)"),
    (re.compile(r"\]\(README\.md#"), "](getting-started.md#"),
    (re.compile(r"\]\(README\.md\)"), "](index.md)"),
    (re.compile(r"\]\(CHANGELOG\.md"), "](changelog.md"),
)


def _rewrite(text: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for pattern, repl in rules:
        text = pattern.sub(repl, text)
    return text


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    source[0] = _rewrite(source[0], _PAGE_LINKS)


def _include_read(
    app: Sphinx, relative_path: Path, parent_docname: str, content: list[str]
) -> None:
    if relative_path.name in ("README.md", "CHANGELOG.md"):
        content[0] = _rewrite(content[0], _TOP_LINKS)


#: A single colon outside inline code (napoleon's test for "type: description").
_SINGLE_COLON = re.compile(r"(?<!:):(?!:)")
_CODE = re.compile(r"``.*?``|`.*?`")


def _no_inline_type(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Napoleon reads the first line of an attribute or property docstring as
    ``type: description``; the package's summaries are sentences that may hold a
    colon ("The pairs an accountant must cover: ..."), and their types come
    from the annotations. A first line holding only an escaped line break
    (which reST drops; napoleon skips blank lines, not this one) keeps the
    sentence whole."""
    if what in ("attribute", "data", "property") and lines:
        if _SINGLE_COLON.search(_CODE.sub("", lines[0])):
            lines.insert(0, "\\")


def _draw_figures(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    start = time.perf_counter()
    paths = site_figures.draw_all(GENERATED / "figures")
    LOGGER.info(
        "[symfdp] drew %d figures in %.1f s", len(paths), time.perf_counter() - start
    )


def _copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    source = os.environ.get("SYMFDP_DOCS_MATHJAX")
    if exception is not None or not source or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    shutil.copytree(source, target, dirs_exist_ok=True)


class BenchmarkTable(SphinxDirective):
    """``{benchmark-table} NAME``: the table ``NAME`` of ``benchmark_tables``,
    rendered from its results file, with a line saying where it came from."""

    required_arguments = 1
    optional_arguments = 0
    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"file": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        try:
            render = benchmark_tables.TABLES[name]
        except KeyError:
            raise self.error(
                f"unknown benchmark table {name!r}; known: "
                f"{', '.join(sorted(benchmark_tables.TABLES))}"
            ) from None
        kwargs: dict[str, Any] = {}
        if "file" in self.options:
            kwargs["file"] = self.options["file"]
        text, used = render(**kwargs)
        for path in used:
            self.env.note_dependency(str(path))
        return self.parse_text_to_nodes(text)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _draw_figures)
    app.connect("source-read", _source_read)
    # before napoleon (priority 500) turns the docstring into fields
    app.connect("autodoc-process-docstring", _no_inline_type, priority=400)
    app.connect("include-read", _include_read)
    app.connect("build-finished", _copy_mathjax)
    app.add_directive("benchmark-table", BenchmarkTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
