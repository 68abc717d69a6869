r"""A fixed-size batch drawn with replacement (replace-one neighbours).

A batch of :math:`m` records is drawn uniformly *with* replacement from
:math:`N`; the record that differs between neighbours appears
:math:`K \sim \mathrm{Bin}(m, 1/N)` times. Given the drawn indices, the
outputs are a pair at group size :math:`K` (each copy moves the query by the
replace-one sensitivity), so by the joint convexity of the hockey-stick
divergence the mechanism is dominated by the mixture of the group pairs

.. math::  \sum_{k=0}^{m} \binom{m}{k} N^{-k} (1 - 1/N)^{m-k}\,
           (P^{(k)}, Q^{(k)})

(:class:`~symfdp.mechanisms.pair_mixture.PairMixture`; the per-epsilon form
is Balle, Barthe & Gaboardi 2018, Thm 10). The binomial is kept up to the
first :math:`k` whose upper tail is below :data:`TAIL_MASS`; that tail is
given to the group pair :math:`k = m`, the worst one, so the pair still
dominates."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special

from symfdp._validation import check_int
from symfdp.mechanisms.base import Mechanism
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.pair_mixture import pair_mixture

#: Upper tail of the binomial beyond which the group sizes are merged into
#: the largest one.
TAIL_MASS = 1e-40


def sampled_with_replacement(
    group_pair: Callable[[int], Mechanism],
    batch_size: int,
    dataset_size: int,
) -> Mechanism:
    r"""The mixture of group pairs over the count of the differing record.

    Args:
        group_pair: ``k -> `` the single (replace-one) dominating pair of the
            base mechanism when the differing record is counted ``k >= 1``
            times (its sensitivity ``k`` times the replace-one one).
        batch_size: ``m >= 1``.
        dataset_size: ``N >= 1``.

    Returns:
        The dominating pair (module docstring).
    """
    m = check_int("batch_size", batch_size, lo=1)
    n = check_int("dataset_size", dataset_size, lo=1)
    ks = np.arange(0, m + 1)
    r = 1.0 / n
    tails = special.bdtrc(ks, m, r)  # P(K > k)
    log_pmf = (
        special.gammaln(m + 1.0)
        - special.gammaln(ks + 1.0)
        - special.gammaln(m - ks + 1.0)
        + special.xlogy(ks, r)
        + special.xlog1py(m - ks, -r)
    )
    cut = int(min(m, np.argmax(tails < TAIL_MASS) if np.any(tails < TAIL_MASS) else m))
    kept = ks[: cut + 1]
    weights = list(np.exp(log_pmf[: cut + 1]))
    pairs: list[Mechanism] = [
        Gaussian(mu=0.0) if k == 0 else group_pair(int(k)) for k in kept
    ]
    rest = float(tails[cut]) if cut < m else 0.0
    if rest > 0.0:
        weights.append(rest)
        pairs.append(group_pair(m))
    total = float(np.sum(weights))
    return pair_mixture([w / total for w in weights], pairs)
