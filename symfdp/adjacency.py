"""The neighbouring relation of an accounted composition, in one vocabulary.

The relations are dp-accounting's ``NeighboringRelation`` values: datasets
differ by adding *or* removing one record (``ADD_OR_REMOVE``, the default; a
composition then covers both directions and its delta is the larger), by
replacing one record (``REPLACE_ONE``), or by one direction only (``ADD``,
``REMOVE``). The deprecated ``pair`` spelling (``"add"``, ``"remove"``,
``"both"``) is mapped once, here (:meth:`Adjacency.from_pair`).
"""

from __future__ import annotations

import enum
from typing import Final


class Adjacency(str, enum.Enum):
    """A neighbouring relation; its value is the name used on the command line,
    in sweep specs and in ``compose(..., adjacency=)``."""

    ADD_OR_REMOVE = "add_or_remove"
    REPLACE_ONE = "replace_one"
    ADD = "add"
    REMOVE = "remove"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: object, name: str = "adjacency") -> Adjacency:
        """``value`` (an :class:`Adjacency` or its name) as an :class:`Adjacency`.

        Raises:
            ValueError: ``value`` names no relation (the message lists them).
        """
        if isinstance(value, cls):
            return value
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(repr(a.value) for a in cls)
            raise ValueError(
                f"{name} must be one of {names}. Found {value!r}."
            ) from None

    @classmethod
    def from_pair(cls, pair: str) -> Adjacency:
        """The relation of the deprecated ``pair`` value (``"both"`` is
        add-or-remove).

        Raises:
            ValueError: ``pair`` is not one of :data:`PAIRS`.
        """
        if pair not in _FROM_PAIR:
            names = ", ".join(repr(p) for p in PAIRS)
            raise ValueError(f"pair must be one of {names}. Found {pair!r}.")
        return _FROM_PAIR[pair]

    @property
    def pair(self) -> str:
        """The relation in the ``pair`` column's words: ``"both"``, ``"add"``,
        ``"remove"`` or ``"replace_one"``."""
        return "both" if self is Adjacency.ADD_OR_REMOVE else self.value


#: The deprecated ``pair=`` values.
PAIRS: Final = ("add", "remove", "both")
_FROM_PAIR: Final = {
    "add": Adjacency.ADD,
    "remove": Adjacency.REMOVE,
    "both": Adjacency.ADD_OR_REMOVE,
}
#: The relation of a composition when none is given.
DEFAULT_ADJACENCY: Final = Adjacency.ADD_OR_REMOVE
#: Every relation's name, in declaration order.
ADJACENCIES: Final = tuple(a.value for a in Adjacency)
