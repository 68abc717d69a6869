"""Compositions run with the cyclic collector paused and restore its state."""

from __future__ import annotations

import gc

import pytest

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp._gc import cyclic_gc_paused


def test_compose_pauses_the_collector_and_restores_it() -> None:
    seen: list[bool] = []
    real = A.Edgeworth._curve

    def spy(self: A.Edgeworth, components: object) -> object:
        seen.append(gc.isenabled())
        return real(self, components)  # type: ignore[arg-type]

    assert gc.isenabled()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(A.Edgeworth, "_curve", spy)
        A.Edgeworth().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 100)
    assert seen == [False]
    assert gc.isenabled()


def test_a_failing_composition_restores_the_collector() -> None:
    with pytest.raises(ValueError, match="n must"):
        A.Edgeworth().compose(M.Gaussian(mu=1.0), 0)
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
