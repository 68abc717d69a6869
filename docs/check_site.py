"""Check the internal links of the built site, without a network.

Run after the build: ``python docs/check_site.py docs/_build/html``. Every
relative ``href`` and ``src`` of every page must name a file of the site, and a
``#fragment`` must name an ``id`` on the target page; no page may show a reST
role that was not rendered (``:math:``, ``:class:``, ...). Links with a scheme
(``https:``, ``mailto:``) are left alone. Exit status 1 lists what is broken.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: A reST role left in the text of a page (the docstring markup did not render).
_RAW_ROLE = re.compile(r":(?:math|class|func|meth|mod|attr|data|exc|ref):`")


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key):
                self.ids.add(str(values[key]))
        for key in ("href", "src"):
            if tag in ("a", "img", "link", "script") and values.get(key):
                self.links.append(str(values[key]))
        if tag in ("script", "style", "pre", "code"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "pre", "code") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pages(site: Path) -> list[Path]:
    """The site's pages (not the theme's templates copied into ``_static``)."""
    return [
        p
        for p in sorted(site.rglob("*.html"))
        if not p.relative_to(site).parts[0].startswith("_")
    ]


def problems(site: Path) -> list[str]:
    """The broken internal links and unrendered roles of the site under ``site``."""
    pages = {p.resolve(): _parse(p) for p in _pages(site)}
    found: list[str] = []
    for path, page in pages.items():
        where = path.relative_to(site.resolve())
        for role in sorted(set(_RAW_ROLE.findall("".join(page.text)))):
            found.append(f"{where}: unrendered role {role}")
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("//"):
                continue
            target = (
                (path.parent / unquote(parts.path)).resolve() if parts.path else path
            )
            if not target.exists():
                found.append(f"{where}: {link} (no such file)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    found.append(f"{where}: {link} (no such anchor)")
    return found


def main(argv: list[str]) -> int:
    site = Path(argv[0]) if argv else Path(__file__).parent / "_build" / "html"
    if not (site / "index.html").is_file():
        print(f"{site}: no built site (index.html missing)", file=sys.stderr)
        return 1
    found = problems(site)
    count = len(_pages(site))
    for line in found:
        print(line)
    print(f"{count} pages checked: {len(found)} broken link(s) or unrendered role(s)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
