"""Tidy tables for the experiments: columns filled block by block.

An experiment's table is a dict of equal-length 1-D columns, one row per point
(see symfdp.reproduce). :class:`Rows` collects such a table from blocks of rows,
e.g. one curve at a time: the array-valued entries of a block give its rows and
the scalar entries (numbers, strings) are repeated on each of them.
:func:`keyed_table` turns per-key records (``{n: {"sup": ..., ...}}``) into
columns, and :func:`select` reads a table's rows back by their labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

Table = dict[str, np.ndarray]


class Rows:
    """The columns of a tidy table, filled by :meth:`add`.

    Args:
        *names: The column names, in output order.
    """

    def __init__(self, *names: str) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in names}

    def add(self, *values: Any, **named: Any) -> None:
        """Append one block of rows; every column must be given, positionally
        (in column order) or by name.

        Array-likes (lists, 1-D arrays) must share one length, the number of
        rows added; scalars are repeated on every row (one row when all entries
        are scalars).

        Raises:
            ValueError: a column is missing, unknown or given twice, or the
                lengths differ.
        """
        given = dict(zip(self.columns, values, strict=False))
        if len(values) > len(self.columns) or set(given) & set(named):
            raise ValueError(f"Rows.add: too many values for {list(self.columns)}.")
        given.update(named)
        if set(given) != set(self.columns):
            raise ValueError(
                f"Rows.add needs exactly the columns {list(self.columns)}. "
                f"Found {list(given)}."
            )
        sizes = {len(v) for v in given.values() if np.ndim(v) > 0}
        if len(sizes) > 1:
            raise ValueError(f"Rows.add: columns of unequal lengths {sorted(sizes)}.")
        size = sizes.pop() if sizes else 1
        for name, column in self.columns.items():
            value = given[name]
            column += list(value) if np.ndim(value) > 0 else [value] * size

    def table(self) -> Table:
        """The columns as NumPy arrays."""
        return {name: np.asarray(column) for name, column in self.columns.items()}


def select(table: Table, *columns: str, **where: Any) -> tuple[np.ndarray, ...]:
    """The ``columns`` of the rows where every ``column == value`` of ``where``
    holds, e.g. ``select(data, "alpha", "beta", curve="f")``."""
    keep = np.ones(len(next(iter(table.values()))), dtype=bool)
    for name, value in where.items():
        keep &= table[name] == value
    return tuple(table[c][keep] for c in columns)


def keyed_table(records: Mapping[Any, Mapping[str, float]], key: str = "n") -> Table:
    """One row per record: the key column (as float) and the records' fields.

    Every record has the fields of the first one, in its order.
    """
    fields = list(next(iter(records.values())))
    return {
        key: np.array(list(records), dtype=float),
        **{f: np.array([r[f] for r in records.values()], dtype=float) for f in fields},
    }
