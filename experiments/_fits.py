"""Straight-line fits behind the experiments' shape claims.

A rate or a runtime "in n" is checked through the slope of a least-squares
line: :func:`loglog_slope` for power laws (error ~ n^s, time ~ n^s) and
:func:`affine_fit` for linear growth (time = a + b n).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def loglog_slope(x: Any, y: Any) -> float:
    """Slope s of the least-squares line log y = c + s log x."""
    log_x = np.log(np.asarray(x, dtype=float))
    return float(np.polyfit(log_x, np.log(np.asarray(y, dtype=float)), 1)[0])


def affine_fit(x: Any, y: Any) -> tuple[float, float, float]:
    """Least-squares y = a + b x: returns (a, b, R^2)."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y)
    b, a = np.polyfit(xs, ys, 1)
    resid = ys - (a + b * xs)
    r2 = 1.0 - float(np.sum(resid**2) / np.sum((ys - ys.mean()) ** 2))
    return float(a), float(b), r2
