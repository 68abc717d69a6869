"""Errors of a request, in the words of whoever made it.

A request's fields are spelled differently by each front end: ``sample_rate``
in Python and in a sweep spec, ``--sample-rate`` on the command line. A
:class:`RequestError` keeps its message as a template whose ``{field}``
placeholders name the request's fields; ``str(error)`` spells them as Python
does, :meth:`RequestError.render` as a front end does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

#: A placeholder: ``{name}``, a field of a request.
_FIELD: Final = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class RequestError(ValueError):
    """An invalid request (a ``ValueError``).

    Args:
        template: The message; ``{name}`` stands for the request field ``name``.
    """

    def __init__(self, template: str) -> None:
        self.template = template
        super().__init__(self.render(lambda name: name))

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields the message names, in order of appearance."""
        return tuple(dict.fromkeys(_FIELD.findall(self.template)))

    def render(self, spell: Callable[[str], str]) -> str:
        """The message with each field spelled by ``spell`` (``"sample_rate" ->
        "--sample-rate"`` on the command line)."""
        return _FIELD.sub(lambda m: spell(m.group(1)), self.template)

    def __reduce__(self) -> tuple[type[RequestError], tuple[str]]:
        return type(self), (self.template,)
