"""Sphinx configuration of the symfdp documentation site.

Build: ``pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs
docs/_build/html`` (``docs/_ext/symfdp_docs.py`` draws the figures and reads the
benchmark results at build time; ``docs/check_site.py`` checks the built site's
internal links). The pages are the Markdown files of this folder (MyST), the API
reference is generated from the docstrings (autodoc, Google style via napoleon,
``.. math::`` rendered by MathJax).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import symfdp  # noqa: E402

project = "symfdp"
author = "The symfdp authors"
copyright = "2026, The symfdp authors"
release = version = symfdp.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "symfdp_docs",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated/**/*.md", "Thumbs.db", ".DS_Store"]

# MyST: heading anchors as GitHub makes them (the pages link to #headings, and
# tests/_pages.py checks those links the same way); $...$ math in the guide.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_dmath_double_inline = True

# Warnings are errors (-W); "misc.highlighting_failure" would otherwise fail
# on console transcripts that Pygments cannot lex exactly.
suppress_warnings = ["misc.highlighting_failure"]
nitpicky = False

# autodoc: members in source order, type hints in the description, not the
# signature (they are long), Google-style sections.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_default_options = {"members": True, "show-inheritance": True}
# Keep NumPy's aliases short in the rendered hints (the package's modules use
# ``from __future__ import annotations``, so the names are resolved here).
autodoc_type_aliases = {
    "ArrayLike": "numpy.typing.ArrayLike",
    "NDArray": "numpy.typing.NDArray",
    "FloatArray": "numpy.typing.NDArray",
}
autodoc_mock_imports = ["dp_accounting", "opacus", "torch", "dask", "distributed"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_attr_annotations = True
# symfdp.symbolic.symbols lists its symbols and functions like arguments.
napoleon_custom_sections = [("Symbols", "params_style"), ("Functions", "params_style")]

# MathJax: from its CDN by default; SYMFDP_DOCS_MATHJAX=DIR (a MathJax 3 "es5"
# folder, e.g. from the npm package) serves a local copy, for reading offline.
if os.environ.get("SYMFDP_DOCS_MATHJAX"):
    mathjax_path = "mathjax/tex-chtml.js"

html_theme = "pydata_sphinx_theme"
html_title = f"symfdp {version}"
html_static_path = ["_static"]
html_css_files = ["symfdp.css"]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navbar_align": "left",
    "header_links_before_dropdown": 8,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
# Pages without sub-pages have no section navigation: no left sidebar.
html_sidebars = {"index": [], "getting-started": [], "benchmarks": []}
