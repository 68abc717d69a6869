r"""Random allocation (k of t steps per epoch), certified on both sides.

Each example takes part in exactly :math:`k` of the :math:`t` steps of an epoch,
the steps drawn uniformly without replacement (balls in bins is :math:`k = 1`);
each step runs a mechanism with dominating pair :math:`(P, Q)`.

**One of t** (:math:`k = 1`). The pair of one epoch is
:math:`(P^{\otimes t}, \frac1t\sum_i P^{\otimes i-1}\otimes Q\otimes
P^{\otimes t-i})` (Feldman & Shenfeld 2025, arXiv 2502.08202: the
random allocation of any mechanism dominated by :math:`(P, Q)` is dominated by
it); "remove" is this pair, "add" its swap (arXiv 2602.17284, App. C,
Algorithms 1 and 2). Its likelihood ratio is the average :math:`W_t` of :math:`t`
i.i.d. copies of :math:`V = dQ/dP` under :math:`P`, and

.. math::  \delta_{rem}(\varepsilon) = E_P[(W_t - e^\varepsilon)_+], \qquad
           \delta_{add}(\varepsilon) = E_P[(1 - e^\varepsilon W_t)_+].

:mod:`symfdp.samplers.average` brackets the law of :math:`W_t` in the convex
order in :math:`O(N^2 \log t)`; here each bracket becomes, per direction, a
dominating and a dominated discrete PLD on the lattice :math:`kh` of
:math:`\log W` (the swap reverses the lattice and exchanges P- and Q-masses),
and epochs are composed by the certified FFT engine
(:class:`~symfdp.pld.certified.CertifiedPairCurve`).

**k of t.** Random allocation of :math:`k` of :math:`t` steps is dominated by
the composition of :math:`k - r` allocations of one of :math:`\lfloor
t/k\rfloor` steps and :math:`r` of one of :math:`\lfloor t/k\rfloor + 1` steps,
:math:`r = t - k\lfloor t/k\rfloor` (Feldman & Shenfeld 2025, arXiv 2502.08202,
the reduction of :math:`k > 1` to :math:`k = 1`; arXiv 2602.17284 uses
the same split). For :math:`k > 1` the bracket is therefore a certified
*upper* bound on the privacy of the scheme (its upper end) together with the
lower end of that bound, not a lower bound on the scheme itself:
``RandomAllocationCurve.lower_is_certified`` says which.

**Round-off.** The P- and Q-mass round-off of the laws (bounds ``err_p``,
``err_q``) enters as Q-mass at :math:`+\infty` of the dominating measures and as
a constant subtracted from the lower bound; base CDF errors are the engine's
model (:mod:`symfdp.pld.compose`), counted once per draw of the base mechanism
(``t`` per allocation), and tilted refinements of the FFT bracket are not used
(they would not carry this allowance).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from symfdp._validation import (
    check_array,
    check_instance,
    check_int,
    check_real,
    scalar_or_array,
)
from symfdp.mechanisms.base import FloatArray, Mechanism
from symfdp.pld.cells import has_atom
from symfdp.pld.certified import CertifiedPairCurve, CompositionParts
from symfdp.pld.compose import CDF_RTOL, compose_fft
from symfdp.pld.discretise import PULL_RTOL, DiscretePLD, dominated_from_cells
from symfdp.pld.grid import component_grid
from symfdp.pld.window import chernoff_window
from symfdp.samplers.average import (
    MergedLaw,
    SpreadLaw,
    averages,
    base_laws,
    combinations,
    combine_merged,
    combine_spread,
    step_for,
)

#: Default lattice step of log W (second-order error: the eps bracket narrows
#: about fourfold per halving; see the benchmark).
DEFAULT_STEP = 0.01
#: Steps of the averages of many ratios are halved until at most this many
#: standard deviations of log W_m (times grid_step / its default), so that the
#: concentrating law keeps about as many points per standard deviation.
RESOLUTION = 0.1
#: Relative width above which CertifiedPairCurve would tilt; set beyond reach
#: (module docstring, round-off).
_NO_TILT = 1.0


@dataclass(frozen=True)
class DirectionPair:
    """One direction of the allocation: its certified pair curve."""

    name: str
    curve: CertifiedPairCurve


@dataclass(frozen=True)
class RandomAllocationCurve:
    r"""Certified bracket on the privacy of random allocation over epochs.

    ``delta_bounds(eps)`` and ``epsilon_bounds(delta)`` return ``(lower,
    upper)`` for add-or-remove adjacency (the maximum over the two directions);
    :attr:`pairs` holds the directions' certified pair curves (``remove``:
    the mixture against :math:`P^{\otimes t}`, ``add``: its swap).

    Attributes:
        pairs: The two directions.
        lower_is_certified: True for :math:`k = 1` (the lower end bounds the
            scheme); False for :math:`k > 1` (the lower end bounds the
            decomposition's upper bound, module docstring).
        info: Parameters and diagnostics (the components, grid steps and
            lattice sizes).
    """

    pairs: tuple[DirectionPair, ...]
    lower_is_certified: bool
    info: Mapping[str, Any]

    def delta_bounds(self, eps: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Certified ``(lower, upper)`` on delta(eps) for finite eps (floats for
        a scalar, arrays of its shape for an array)."""
        e = check_array("eps", eps)
        los, his = zip(*(p.curve.delta_bounds(e) for p in self.pairs), strict=True)
        return (
            scalar_or_array(np.maximum.reduce(los)),
            scalar_or_array(np.maximum.reduce(his)),
        )

    def epsilon_bounds(self, delta: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Certified ``(lower, upper)`` on eps(delta) for delta in (0, 1); the
        upper end is ``inf`` where no eps reaches delta within the bounds."""
        d = check_array("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        los, his = zip(*(p.curve.epsilon_bounds(d) for p in self.pairs), strict=True)
        return (
            scalar_or_array(np.maximum.reduce(los)),
            scalar_or_array(np.maximum.reduce(his)),
        )


def _check_mechanism(mechanism: Any) -> tuple[Mechanism, ...]:
    check_instance("mechanism", mechanism, Mechanism)
    if float(getattr(mechanism, "blatant_mass", 0.0)) > 0.0:
        raise ValueError(
            "random_allocation: mechanism has blatant mass (an infinite privacy "
            f"loss with positive probability): {mechanism!r}. Only pairs without "
            "blatant outcomes are served."
        )
    return tuple(mechanism.pairs)


def random_allocation(
    mechanism: Mechanism,
    *,
    t: int,
    k: int = 1,
    epochs: int = 1,
    grid_step: float | None = None,
    tail_mass: float = 1e-14,
    max_fft_size: int = 2**23,
) -> RandomAllocationCurve:
    r"""Certified bracket on random allocation of ``k`` of ``t`` steps per epoch.

    Args:
        mechanism: The mechanism of each step (any symfdp ``Mechanism`` without
            blatant mass; a mechanism with two pairs, add and remove, is
            allocated pair by pair and the maximum taken).
        t: Steps per epoch (>= 1).
        k: Steps each example takes part in per epoch (1 <= k <= t).
        epochs: Number of epochs composed (>= 1).
        grid_step: Lattice step :math:`h` of :math:`\log W` of one step (the
            averages of many steps refine it, :data:`RESOLUTION`); the bracket's
            width scales as :math:`h^2` and the cost as :math:`h^{-2}\log t`.
            Default: :data:`DEFAULT_STEP` times the standard deviation of the
            privacy loss under P when it exceeds 1.
        tail_mass: Mass allowed to be cut off the tails (enters the bounds
            additively).
        max_fft_size: Largest FFT length of the epoch composition.

    Returns:
        A :class:`RandomAllocationCurve`.

    Raises:
        ValueError: a parameter is out of range, or the mechanism has blatant
            mass.
    """
    pairs = _check_mechanism(mechanism)
    t = check_int("t", t, lo=1)
    k = check_int("k", k, lo=1, hi=t)
    epochs = check_int("epochs", epochs, lo=1)
    if grid_step is not None:
        grid_step = check_real("grid_step", grid_step, 0.0, 1.0, lo_open=True)
    tail_mass = check_real("tail_mass", tail_mass, 0.0, 1e-3, lo_open=True)
    max_fft_size = check_int("max_fft_size", max_fft_size, lo=16)

    base, rem = divmod(t, k)
    parts = [(s, n * epochs) for s, n in ((base, k - rem), (base + 1, rem)) if n]
    n_comp = k * epochs
    stages = max(combinations(s) for s, _ in parts) + 1
    budget = tail_mass / (16.0 * n_comp * stages)
    directions: list[DirectionPair] = []
    info: dict[str, Any] = {
        "t": t,
        "k": k,
        "epochs": epochs,
        "components": tuple(parts),
    }
    for i, pair in enumerate(pairs):
        auto = _default_step(pair)
        h = _aligned(pair, grid_step if grid_step is not None else auto)
        grid = component_grid(pair, h, tail_mass / (16.0 * n_comp))
        spread, merged = base_laws(pair, h, grid.l_lo, grid.l_hi)
        counts = tuple(s for s, _ in parts)
        var_v = max(float(np.sum(spread.p * spread.values**2)) - 1.0, 0.0)
        res = RESOLUTION * h / auto

        def step(m: int, h: float = h, var_v: float = var_v, res: float = res) -> float:
            return step_for(m, h, var_v, res)

        spreads = averages(spread, counts, combine_spread, budget, budget, step)
        mergeds = averages(merged, counts, combine_merged, budget, budget, step)
        fine = min(
            min(law.h for law in spreads.values()),
            min(law.h for law in mergeds.values()),
        )
        spreads = {s: law.refined(fine) for s, law in spreads.items()}
        mergeds = {s: law.refined(fine) for s, law in mergeds.items()}
        sizes = {s: (spreads[s].p.size, mergeds[s].p.size) for s in counts}
        info[f"lattice_sizes_{i}"] = sizes
        info[f"grid_step_{i}"] = h
        info[f"final_step_{i}"] = fine
        for name, swap in (("remove", False), ("add", True)):
            ups, lows, up_err, low_err = [], [], 0.0, 0.0
            for s, n in parts:
                z, zerr = _dominating(spreads[s], swap)
                y, yerr = _dominated(mergeds[s], swap)
                ups.append((z, n))
                lows.append((y, n))
                up_err += n * zerr
                low_err += n * yerr
            draws = sum(s * n for s, n in parts)
            curve = _certified(
                ups, lows, up_err, low_err, draws, tail_mass, max_fft_size
            )
            label = name if len(pairs) == 1 else f"{name}[{i}]"
            directions.append(DirectionPair(label, curve))
    return RandomAllocationCurve(tuple(directions), k == 1, MappingProxyType(info))


def _default_step(pair: Mechanism) -> float:
    """:data:`DEFAULT_STEP` times the standard deviation of the loss under P
    when it exceeds 1 (a wide loss needs no finer lattice for the same relative
    accuracy), at most 0.1."""
    var = float(pair.cumulants(2, "P")[1])
    return min(DEFAULT_STEP * max(1.0, math.sqrt(max(var, 0.0))), 0.1)


def _aligned(pair: Mechanism, h: float) -> float:
    """``h``, shrunk (by less than a factor 2) so that an atom of the loss at
    a finite end of its support lies on the lattice (the upper end first):
    the end atom then keeps a cell of its own in the dominated law."""
    for end in reversed(pair.plrv_support()):
        if end != 0.0 and math.isfinite(end) and has_atom(pair, end):
            return abs(end) / math.ceil(abs(end) / h - 1e-9)
    return h


def _dominating(law: SpreadLaw, swap: bool) -> tuple[DiscretePLD, float]:
    r"""The dominating discrete PLD of one direction and its round-off bound
    (moved to :math:`+\infty` by the caller). Remove: Q-masses
    :math:`\gamma_j p_j` on :math:`\log\gamma_j`, Q-mass ``q_inf`` at
    :math:`+\infty`, the atom at 0 carries no Q-mass. Add (the swap): P and Q
    exchange, :math:`L \to -L`: Q-masses :math:`p_j` on :math:`-\log\gamma_j`
    and ``p_zero`` at :math:`+\infty`."""
    if not swap:
        q = law.p * law.values
        return (
            DiscretePLD(law.h, 0.0, law.k_lo, q, law.q_inf + law.err_q, 0.0, True),
            law.err_q,
        )
    k_lo = -(law.k_lo + law.p.size - 1)
    q = law.p[::-1].copy()
    return (
        DiscretePLD(law.h, 0.0, k_lo, q, law.p_zero + law.err_p, 0.0, True),
        law.err_p,
    )


def _dominated(law: MergedLaw, swap: bool) -> tuple[DiscretePLD, float]:
    """The dominated discrete PLD of one direction (barycentric rounding of
    the merged cells, :func:`~symfdp.pld.discretise.dominated_from_cells`)
    and its round-off bound (subtracted by the caller)."""
    if not swap:
        return dominated_from_cells(law.h, law.k_lo, law.p, law.q), law.err_q
    k_lo = -(law.k_lo + law.p.size - 1)
    return (
        dominated_from_cells(law.h, k_lo, law.q[::-1], law.p[::-1]),
        law.err_p,
    )


def _sd(parts: list[tuple[DiscretePLD, int]]) -> float:
    """Standard deviation of the composed loss under Q (normalised masses)."""
    var = 0.0
    for d, n in parts:
        q = d.q
        tot = float(q.sum())
        if tot <= 0.0:
            continue
        x = d.points
        mean = float(np.dot(q, x)) / tot
        var += n * float(np.dot(q, (x - mean) ** 2)) / tot
    return math.sqrt(var)


def _certified(
    ups: list[tuple[DiscretePLD, int]],
    lows: list[tuple[DiscretePLD, int]],
    up_err: float,
    low_err: float,
    draws: int,
    tail_mass: float,
    max_fft_size: int,
) -> CertifiedPairCurve:
    """The engine's certified pair curve of the epoch composition, with the
    allowances of the module docstring."""
    h = ups[0][0].h
    sd = _sd(ups)
    window = chernoff_window([ups, lows], tail_mass / 4, sd)
    up = compose_fft(ups, window, max_fft_size)
    low = compose_fft(lows, window, max_fft_size)
    n_total = sum(n for _, n in ups)
    rate = math.exp(h) * (4 * CDF_RTOL * draws + 2 * PULL_RTOL * n_total)
    up = dataclasses.replace(up, tail_rate=rate)
    low = dataclasses.replace(low, tail_rate=rate, fp_const=low.fp_const + low_err)
    return CertifiedPairCurve.from_composed(
        low,
        up,
        CompositionParts(ups, lows, window, max_fft_size),
        eps_rel_tol=_NO_TILT,
        loss_range=(-math.inf, math.inf),
        tail_shift=min(1.0, max(0.5 * sd, 4.0 * h)),
        info={
            "grid_step": h,
            "fft_size": up.size,
            "roundoff": (low_err, up_err),
            "inf_mass": up.inf_mass,
        },
    )


__all__ = ["RandomAllocationCurve", "random_allocation"]
