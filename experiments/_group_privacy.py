r"""Group privacy of pure DP by iteration (Dong et al. 2019, Thm 2.14, Lemma A.6).

A group of k individuals turns an f-DP guarantee into 1 - (1 - f)^{\circ k};
for f = f_{eps,0} this tends to T(Lap(0,1), Lap(k eps,1)) (Lemma A.6). Both
experiments that check this evaluate the iteration directly, independently of
``symfdp.tradeoff.GroupPrivacy``, which they compare against.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def pure_dp_tradeoff(eps: float, x: Any) -> np.ndarray:
    """f_{eps,0}(x) = max{0, 1 - e^eps x, e^{-eps} (1 - x)}, Dong et al. (2019),
    eq. (5)."""
    return np.maximum(0.0, np.maximum(1 - np.exp(eps) * x, np.exp(-eps) * (1 - x)))


def group_tradeoff(eps: float, k: int, x: Any) -> np.ndarray:
    """1 - (1 - f_{eps,0})^{\\circ k}(x): iterate u -> 1 - f_{eps,0}(u) k times
    from u = x."""
    u = np.array(x, dtype=float, copy=True)
    for _ in range(k):
        u = 1 - pure_dp_tradeoff(eps, u)
    return 1 - u
