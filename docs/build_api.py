"""Build the API reference (HTML, math rendered) from the docstrings with pdoc.

Run: ``python docs/build_api.py [OUT]`` (default ``docs/api``; needs
``pip install pdoc``, part of the ``docs`` extra). Any warning of pdoc (a name in
``__all__`` that does not resolve, a broken cross-reference) is an error, so the
reference cannot rot silently; ``tests/test_docs.py`` builds it in CI.

symfdp imports its submodules and classes lazily (``import symfdp`` stays fast);
the build resolves every lazily exported name first, so that pdoc sees them.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
import warnings
from pathlib import Path

#: The documented modules, in the order of the reference's index.
MODULES = (
    "symfdp",
    "symfdp.mechanisms",
    "symfdp.accountants",
    "symfdp.curve",
    "symfdp.tradeoff",
    "symfdp.training",
    "symfdp.calibrate",
    "symfdp.rero",
    "symfdp.plotting",
    "symfdp.export",
    "symfdp.interop",
    "symfdp.interop.dp_events",
    "symfdp.interop.dp_accounting",
    "symfdp.interop.opacus",
    "symfdp.symbolic",
    "symfdp.numeric",
    "symfdp.functionals",
)


def resolve_lazy_exports(names: tuple[str, ...]) -> None:
    """Bind every name of each module's ``__all__`` in the module itself."""
    for name in names:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            if attr not in vars(module):
                setattr(module, attr, getattr(module, attr))


#: A reST math role, possibly wrapped over lines by the 88-column limit.
_MATH_ROLE = re.compile(r":math:`([^`]*)`", re.DOTALL)


def _join_wrapped_math(docstring: str) -> str:
    """``:math:`a <newline> b``` as one line: pdoc converts a role only when it
    does not span lines."""
    return _MATH_ROLE.sub(
        lambda m: ":math:`" + " ".join(m.group(1).split()) + "`", docstring
    )


def _patch_docstring_conversion() -> None:
    import pdoc.docstrings

    convert = pdoc.docstrings.convert
    if getattr(convert, "joins_math", False):
        return

    @functools.wraps(convert)
    def patched(docstring: str, *args: object, **kwargs: object) -> str:
        return convert(_join_wrapped_math(docstring), *args, **kwargs)

    patched.joins_math = True  # type: ignore[attr-defined]
    pdoc.docstrings.convert = patched  # type: ignore[assignment]


def build(out: Path) -> Path:
    """Write the reference to ``out``; return its index page.

    Raises:
        RuntimeError: pdoc warned (the messages are listed).
    """
    import pdoc
    import pdoc.render

    resolve_lazy_exports(MODULES)
    _patch_docstring_conversion()
    pdoc.render.configure(docformat="google", math=True, show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*MODULES, output_directory=out)
    problems = sorted({str(w.message) for w in caught})
    if problems:
        raise RuntimeError("pdoc warned:\n" + "\n".join(problems))
    return out / "index.html"


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "api"
    print(f"wrote {build(target)}")
