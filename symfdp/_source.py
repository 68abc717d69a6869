"""Classes of a package read from its source text, without importing it.

The command line lists the accountants and mechanisms it offers (names,
guarantees, options, parameters) before it has any work to do; importing them
would load SciPy's statistics, SymPy and every accountant (seconds). A static
read answers in milliseconds: every top-level ``class`` statement of the
package's files is located by a regular expression, and the classes of interest
(the descendants of a given root class) are parsed with :mod:`ast`, one class
block at a time (the whole file where a block does not parse alone).

What the read sees, per class: its base classes by name, the literal values
(:func:`ast.literal_eval`) and dict-display keys bound in its body, the names
it defines, its ``@abstractmethod`` methods, the parameters of an ``__init__``
written in its body, and its ``@dataclass`` fields. Inheritance is resolved by
name within the package (C3 linearisation). Anything computed at import time is
invisible here; the registries that use this read check it against the
imported classes (:mod:`symfdp.accountants.registry`, the tests).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

#: A top-level ``class`` statement: name and (optional) bases.
_CLASS: Final = re.compile(r"^class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:", re.MULTILINE)
#: The first line of the next top-level statement (not a comment).
_TOP: Final = re.compile(r"^(?=[^\s#])", re.MULTILINE)
#: What :func:`ast.literal_eval` raises for an expression that is no literal.
_NOT_LITERAL: Final = (ValueError, TypeError, SyntaxError, RecursionError)


@dataclass(frozen=True, slots=True)
class ClassSketch:
    """What the source of one class says about it.

    Attributes:
        name: The class name.
        module: The dotted name of the module that defines it.
        bases: Its base classes' simple names (``a.B`` is ``B``).
        literals: Names bound in the body to a literal value, with the value.
        keys: Names bound in the body to a dict display whose keys are all
            string constants, with those keys.
        defined: Every name the body binds (assignments, methods, properties).
        abstract: The body's methods decorated with ``abstractmethod``.
        init: The parameters (``self`` excepted) of an ``__init__`` defined in
            the body; ``None`` without one.
        fields: Dataclass fields declared in the body: ``(name, in __init__)``.
        dataclass_init: ``None`` for a class not decorated with ``dataclass``,
            else whether the decorator writes an ``__init__``.
    """

    name: str
    module: str
    bases: tuple[str, ...]
    literals: dict[str, Any]
    keys: dict[str, tuple[str, ...]]
    defined: frozenset[str]
    abstract: frozenset[str]
    init: tuple[str, ...] | None
    fields: tuple[tuple[str, bool], ...]
    dataclass_init: bool | None


@dataclass(frozen=True, slots=True)
class _Header:
    """A ``class`` statement located in a file: enough to resolve inheritance."""

    name: str
    module: str
    bases: tuple[str, ...]
    path: Path
    start: int
    end: int


class Hierarchy:
    """The classes of a package, with inheritance resolved by name; a class's
    body is parsed only when asked for (:meth:`sketch`)."""

    def __init__(self, headers: list[_Header]) -> None:
        self._by_name: dict[str, list[_Header]] = {}
        for h in headers:
            self._by_name.setdefault(h.name, []).append(h)
        self._mro: dict[_Header, tuple[_Header, ...]] = {}
        self._sketches: dict[_Header, ClassSketch] = {}
        self._header_of: dict[int, _Header] = {}

    def _find(
        self, name: str, module: str | None, besides: _Header | None = None
    ) -> _Header | None:
        found = [h for h in self._by_name.get(name, []) if h is not besides]
        for h in found:
            if h.module == module:
                return h
        return found[0] if found else None

    def _bases(self, h: _Header) -> list[_Header]:
        found = (self._find(b, h.module, h) for b in h.bases)
        return [b for b in found if b is not None]

    def _linear(self, h: _Header) -> tuple[_Header, ...]:
        if h not in self._mro:
            self._mro[h] = (h,)  # (a cycle of names stops here)
            self._mro[h] = _c3(h, [list(self._linear(b)) for b in self._bases(h)])
        return self._mro[h]

    def _header(self, cls: ClassSketch) -> _Header:
        return self._header_of[id(cls)]

    def sketch(self, h: _Header) -> ClassSketch:
        """The parsed body of the class at ``h``."""
        if h not in self._sketches:
            cls = self._sketches[h] = _parse(h)
            self._header_of[id(cls)] = h
        return self._sketches[h]

    def find(self, name: str, module: str | None = None) -> ClassSketch | None:
        """The class ``name`` (the one of ``module`` when several share it)."""
        h = self._find(name, module)
        return None if h is None else self.sketch(h)

    def mro(self, cls: ClassSketch) -> tuple[ClassSketch, ...]:
        """The C3 linearisation of ``cls`` over the package's classes."""
        return tuple(self.sketch(h) for h in self._linear(self._header(cls)))

    def descendants(self, root: ClassSketch) -> list[ClassSketch]:
        """Every class of the package with ``root`` in its MRO (``root`` excluded),
        in file order."""
        top = self._header(root)
        return [
            self.sketch(h)
            for group in self._by_name.values()
            for h in group
            if h is not top and top in self._linear(h)
        ]

    def lookup(self, cls: ClassSketch, attr: str) -> ClassSketch | None:
        """The first class in the MRO of ``cls`` whose body binds ``attr``."""
        for c in self.mro(cls):
            if attr in c.defined:
                return c
        return None

    def is_abstract(self, cls: ClassSketch) -> bool:
        """Whether ``cls`` leaves an ``abstractmethod`` unimplemented (as
        :func:`inspect.isabstract`)."""
        names = {a for c in self.mro(cls) for a in c.abstract}
        for name in names:
            owner = self.lookup(cls, name)
            if owner is not None and name in owner.abstract:
                return True
        return False

    def init_parameters(self, cls: ClassSketch) -> tuple[str, ...]:
        """The constructor's parameter names (as ``inspect.signature(cls)``):
        the first ``__init__`` in the MRO, written or made by ``dataclass``."""
        for c in self.mro(cls):
            if c.init is not None:
                return c.init
            if c.dataclass_init:
                fields: dict[str, bool] = {}
                for d in reversed(self.mro(c)):
                    if d.dataclass_init is not None:
                        fields.update(d.fields)
                return tuple(name for name, init in fields.items() if init)
        return ()


def _c3(head: _Header, seqs: list[list[_Header]]) -> tuple[_Header, ...]:
    """C3 merge of the bases' linearisations (depth-first where inconsistent)."""
    seqs = [*seqs, [s[0] for s in seqs if s]]
    out = [head]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return tuple(out)
        nxt = next(
            (s[0] for s in seqs if not any(s[0] in t[1:] for t in seqs)), seqs[0][0]
        )
        out.append(nxt)
        seqs = [[x for x in s if x is not nxt] for s in seqs]


@functools.cache
def read_package(directory: str, package: str) -> Hierarchy:
    """Every top-level class of the package ``package`` found in ``directory``
    (recursively), located but not yet parsed.

    Args:
        directory: The package's directory.
        package: Its dotted name (``"symfdp.accountants"``).
    """
    root = Path(directory)
    headers: list[_Header] = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        module = ".".join((package, *parts))
        text = path.read_text(encoding="utf-8")
        for match in _CLASS.finditer(text):
            end_match = _TOP.search(text, match.end())
            headers.append(
                _Header(
                    name=match.group(1),
                    module=module,
                    bases=tuple(_base_names(match.group(2) or "")),
                    path=path,
                    start=_decorators_start(text, match.start()),
                    end=len(text) if end_match is None else end_match.start(),
                )
            )
    return Hierarchy(headers)


def _base_names(text: str) -> Iterator[str]:
    """The simple names of a ``class`` statement's bases (keywords left out)."""
    for part in text.split(","):
        part = part.strip()
        if part and "=" not in part:
            yield part.split("[")[0].split(".")[-1].strip()


def _parse(h: _Header) -> ClassSketch:
    """Parse the block of ``h`` with its methods' bodies left out, or the whole
    block, or its whole file, whichever parses first into the class."""
    text = h.path.read_text(encoding="utf-8")
    block = text[h.start : h.end]
    for candidate in (_skeleton(block), block):
        try:
            node = ast.parse(candidate).body[-1]
        except SyntaxError:
            continue
        if isinstance(node, ast.ClassDef) and node.name == h.name:
            return _sketch(node, h.module)
    whole = next(
        n
        for n in ast.parse(text).body
        if isinstance(n, ast.ClassDef) and n.name == h.name
    )
    return _sketch(whole, h.module)


#: A method's first line, at any indentation.
_DEF: Final = re.compile(r"^(\s+)(?:async\s+)?def\s")


def _skeleton(block: str) -> str:
    """``block`` (a class statement) with the body of every method replaced by
    ``...``: what the read needs (signatures, decorators, class-level names) in a
    fraction of the text. Lines are told apart by indentation only, so a string
    that breaks the rule makes the result fail to parse (then the block is
    parsed whole)."""
    out: list[str] = []
    body: int | None = None  # the class body's indentation
    skipping = False  # inside a method body (lines deeper than ``body``)
    signature = False  # inside a method's signature
    depth = 0  # its bracket depth
    for line in block.split("\n"):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if skipping:
            if not stripped or indent > (body or 0):
                continue
            skipping = False
        if body is None and stripped and indent > 0:
            body = indent
        out.append(line)
        match = _DEF.match(line)
        if not signature and match and len(match.group(1)) == body:
            signature, depth = True, 0
        if signature:
            code = stripped.split("#")[0].rstrip()
            depth += sum(map(code.count, "([{")) - sum(map(code.count, ")]}"))
            if depth <= 0:
                signature = False
                if code.endswith(":"):  # else the body shares the line
                    out.append(" " * (indent + 4) + "...")
                    skipping = True
    return "\n".join(out)


def _decorators_start(text: str, start: int) -> int:
    """Where the decorator lines directly above a ``class`` line begin."""
    while start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if not text.startswith("@", prev):
            break
        start = prev
    return start


def _name(node: ast.expr) -> str:
    """``a.b.C`` and ``C`` as ``C``; a call as its callee's name."""
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return ""


def _keyword(call: ast.expr, key: str, default: Any) -> Any:
    if isinstance(call, ast.Call):
        for kw in call.keywords:
            if kw.arg == key:
                try:
                    return ast.literal_eval(kw.value)
                except _NOT_LITERAL:
                    return default
    return default


def _sketch(node: ast.ClassDef, module: str) -> ClassSketch:
    literals: dict[str, Any] = {}
    keys: dict[str, tuple[str, ...]] = {}
    defined: set[str] = set()
    abstract: set[str] = set()
    fields: list[tuple[str, bool]] = []
    init: tuple[str, ...] | None = None

    def bind(name: str, value: ast.expr | None) -> None:
        if value is None:
            return
        defined.add(name)
        try:
            literals[name] = ast.literal_eval(value)
        except _NOT_LITERAL:
            literals.pop(name, None)
        if isinstance(value, ast.Dict):
            found = [
                k.value
                for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
            if len(found) == len(value.keys):
                keys[name] = tuple(found)

    for stmt in node.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    bind(target.id, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            bind(name, stmt.value)
            if _name(stmt.annotation) not in ("ClassVar", "KW_ONLY"):
                in_init = not (
                    isinstance(stmt.value, ast.Call)
                    and _name(stmt.value) == "field"
                    and _keyword(stmt.value, "init", True) is False
                )
                fields.append((name, in_init))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(stmt.name)
            if any(_name(d) == "abstractmethod" for d in stmt.decorator_list):
                abstract.add(stmt.name)
            if stmt.name == "__init__":
                a = stmt.args
                names = [x.arg for x in (*a.posonlyargs, *a.args)][1:]
                if a.vararg is not None:
                    names.append(a.vararg.arg)
                names += [x.arg for x in a.kwonlyargs]
                if a.kwarg is not None:
                    names.append(a.kwarg.arg)
                init = tuple(names)
        elif isinstance(stmt, ast.ClassDef):
            defined.add(stmt.name)
    dataclass_init: bool | None = None
    for deco in node.decorator_list:
        if _name(deco) == "dataclass":
            dataclass_init = bool(_keyword(deco, "init", True))
    return ClassSketch(
        name=node.name,
        module=module,
        bases=tuple(_name(b) for b in node.bases),
        literals=literals,
        keys=keys,
        defined=frozenset(defined),
        abstract=frozenset(abstract),
        init=init,
        fields=tuple(fields),
        dataclass_init=dataclass_init,
    )
