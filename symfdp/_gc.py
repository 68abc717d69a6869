"""Pausing Python's cyclic garbage collector around allocation-heavy work."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Run the block with the cyclic garbage collector paused (if it is on).

    A composition of many distinct mechanisms allocates tens of thousands of
    small acyclic objects (pair mechanisms, their caches, tuples); each
    allocation burst triggers full collections that traverse the whole heap,
    SymPy's objects included (a quarter of a second at 10^4 components).
    Reference counting frees those objects all the same; cycles made inside the
    block are collected after it. The collector's state is restored on exit.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
