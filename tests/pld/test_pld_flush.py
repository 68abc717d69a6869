"""FFT compositions whose lattice mass is (nearly) all flushed below e^-700.

A composition of n parts that each carry Q-mass s < 1 on the lattice has
total lattice mass s^n; when n log s is near or below -700 its spectrum is
flushed, at the hot frequencies (near the peak, summed directly) too. The
composition must still be returned with masses and error bounds that hold
against the exact (binomial) masses, and the accountant must answer.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from symfdp.pld import compose as C
from symfdp.pld.discretise import DiscretePLD
from symfdp.pld.window import Window

#: n eta ||q||_1 reaches the direct sums' threshold from about n = 3e4.
N_PARTS = 60_000


def _spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Record how many hot and live frequencies the next composition has."""
    seen: dict[str, int] = {}
    hot, powers = C._hot_frequencies, C._log_powers

    def hot_spy(total_b, parts):  # type: ignore[no-untyped-def]
        out = hot(total_b, parts)
        seen["hot"] = int(out.size)
        return out

    def powers_spy(chunks, size, count):  # type: ignore[no-untyped-def]
        seen["live"] = int(size)
        return powers(chunks, size, count)

    monkeypatch.setattr(C, "_hot_frequencies", hot_spy)
    monkeypatch.setattr(C, "_log_powers", powers_spy)
    return seen


@pytest.mark.skipif(
    C._U_LD >= C.UNIT_ROUNDOFF / 64, reason="no extended precision: no direct sums"
)
@pytest.mark.parametrize("dominating", [False, True])
@pytest.mark.parametrize(
    ("log_mass", "live"),
    [(-1212.2, "none"), (-705.0, "none"), (-699.0, "some"), (-690.0, "some")],
)
def test_flushed_composition_within_its_bounds(
    monkeypatch: pytest.MonkeyPatch, log_mass: float, live: str, dominating: bool
) -> None:
    """Two-point parts (masses 0.7 s and 0.3 s at 0 and h, the rest at
    +infinity or dropped) composed 6e4 times: every frequency, or some of the
    hot ones, flushed. The masses are within E_2 + E_inf of the exact binomial
    masses s^n C(n, j) 0.7^(n-j) 0.3^j at every point, and the mass at
    +infinity is 1 - s^n."""
    n = N_PARTS
    s = math.exp(log_mass / n)
    part = DiscretePLD(
        h=1.0,
        origin=0.0,
        k_lo=0,
        q=np.array([0.7 * s, 0.3 * s]),
        inf_mass=1.0 - s if dominating else 0.0,
        dropped=0.0 if dominating else 1.0 - s,
        dominating=dominating,
    )
    seen = _spied(monkeypatch)
    out = C.compose_fft([(part, n)], Window(0.0, float(n), 0.0), 2**20)
    assert seen["hot"] > 0
    if live == "none":
        assert seen["live"] == 0
    else:
        assert 0 < seen["live"] < seen["hot"]
    j = np.arange(out.size)
    exact = np.exp(log_mass + binom.logpmf(j, n, 0.3))
    assert np.all(np.abs(out.q - exact) <= out.fft_l2 + out.fft_linf)
    assert out.fft_l2 < 1e-300 and out.fft_linf <= 2e-300
    want_inf = -math.expm1(log_mass) if dominating else 0.0
    assert out.inf_mass == pytest.approx(want_inf, rel=1e-12, abs=0.0)
