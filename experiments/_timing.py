"""CPU-time measurement for the runtime tables and panels.

Times are CPU seconds of this process (``time.process_time``), not wall time:
the machine is shared, and preemption by other jobs would otherwise be counted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any


def best_cpu_time(fn: Callable[[], Any], repeats: int, min_seconds: float) -> float:
    """Best over ``repeats`` samples of the mean CPU time of ``fn`` (timeit style).

    One untimed call sizes the samples: each repeats ``fn`` until it lasts about
    ``min_seconds``.
    """
    start = time.process_time()
    fn()
    once = max(time.process_time() - start, 1e-7)
    number = max(1, math.ceil(min_seconds / once))
    best = math.inf
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - start) / number)
    return best
