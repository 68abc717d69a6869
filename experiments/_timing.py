"""CPU-time measurement for the runtime tables and panels.

Times are CPU seconds of this process (``time.process_time``), not wall time:
the machine is shared, and preemption by other jobs would otherwise be counted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any


def best_cpu_times(
    fns: dict[Any, Callable[[], Any]], repeats: int, min_seconds: float
) -> dict[Any, float]:
    """Best over ``repeats`` samples of the mean CPU time of every ``fns[key]``
    (timeit style: one untimed call sizes the samples, each repeating the call
    until it lasts about ``min_seconds``). The samples are taken in rounds, one
    of each function per round, so that a slow phase of a shared machine falls
    on all keys alike instead of on the ones timed during it."""
    number = {}
    for key, fn in fns.items():
        start = time.process_time()
        fn()
        once = max(time.process_time() - start, 1e-7)
        number[key] = max(1, math.ceil(min_seconds / once))
    best = dict.fromkeys(fns, math.inf)
    for _ in range(repeats):
        for key, fn in fns.items():
            start = time.process_time()
            for _ in range(number[key]):
                fn()
            best[key] = min(best[key], (time.process_time() - start) / number[key])
    return best
