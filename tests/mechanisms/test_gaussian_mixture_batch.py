"""The subsampled-Gaussian cumulants of many settings at once agree with the
one-setting routes."""

from __future__ import annotations

import numpy as np
import pytest

from symfdp import mechanisms as M
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.mechanisms import subsampled_gaussian as sg
from symfdp.mechanisms._gaussian_mixture import subsampled_gaussian_cumulants
from symfdp.mechanisms._gaussian_mixture_batch import (
    subsampled_gaussian_cumulants_many,
)

# Several steps h (mu up to 5), the shift and the moment routes, p near 0 and 1.
MU = np.array([0.05, 0.5, 1.0, 1.7, 2.5, 5.0, 0.9, 1.3, 0.0])
P = np.array([1e-5, 0.01, 0.3, 0.999, 0.02, 0.5, 0.9, 1e-3, 0.1])


@pytest.mark.parametrize("order", [2, 6])
@pytest.mark.parametrize("unders", [("P",), ("Q",), ("P", "Q"), ("Q", "P")])
def test_many_settings_match_one_setting_routes(
    order: int, unders: tuple[str, ...]
) -> None:
    got = subsampled_gaussian_cumulants_many(MU, P, order, unders)
    assert got.shape == (len(unders), MU.size, order)
    for j, under in enumerate(unders):
        for i, (mu, p) in enumerate(zip(MU, P, strict=True)):
            if mu == 0.0:
                np.testing.assert_array_equal(got[j, i], np.zeros(order))
                continue
            ref = subsampled_gaussian_cumulants(float(mu), float(p), order, under)[0]
            np.testing.assert_allclose(got[j, i], ref, rtol=1e-10, atol=0.0)


def test_summed_cumulants_of_distinct_components_match_fresh_mechanisms() -> None:
    # The sums fill every mechanism's cache in one pass; fresh mechanisms
    # (each computed alone, one setting at a time) give the same cumulants.
    settings = [(0.8 + 0.1 * i, 0.002 * (i + 1)) for i in range(12)]
    comp = [
        (M.SubsampledGaussian(sigma=s, p=q), 10 + i)
        for i, (s, q) in enumerate(settings)
    ]
    for direction in (0, 1):
        pairs = tuple((m.pairs[direction], n) for m, n in comp)
        for under in ("P", "Q"):
            total = summed_cumulants(pairs, 4, under)
            ref = np.zeros(4)
            for (s, q), (_, n) in zip(settings, comp, strict=True):
                alone = M.SubsampledGaussian(sigma=s, p=q).pairs[direction]
                mu = 1.0 / s
                add_under = under if direction == 0 else ("Q" if under == "P" else "P")
                k = subsampled_gaussian_cumulants(mu, q, 4, add_under)[0]
                if direction == 1:
                    k = k * (-1.0) ** np.arange(1, 5)
                np.testing.assert_allclose(alone.cumulants(4, under), k, rtol=1e-10)
                ref += n * k
            np.testing.assert_allclose(total, ref, rtol=1e-10)


def test_summed_cumulants_of_a_mixed_composition_match_the_per_mechanism_sum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Subsampled Gaussians summed as one family (rows of the batched pass, the
    remove pairs' signs, a repeated setting), p = 1 left to the mechanism, and
    other mechanisms summed one by one: the total is the sum of each fresh
    mechanism's own cumulants (computed one setting at a time; the batched
    pass's cache emptied first), and each mechanism then answers its row."""

    def build() -> list[tuple[M.Mechanism, int]]:
        return [
            (M.SubsampledGaussian(sigma=1.2, p=0.01), 7),
            (M.SubsampledGaussian(sigma=0.9, p=1.0), 3),
            (M.Gaussian(mu=0.7), 2),
            (M.SubsampledGaussian(sigma=2.0, p=0.3), 5),
            (M.SubsampledLaplace(mu=1.0, p=0.01), 4),
            (M.SubsampledGaussian(sigma=1.2, p=0.01), 1),
        ]

    comp = build()
    for direction in (0, 1):
        pairs = tuple((m.pairs[min(direction, len(m.pairs) - 1)], n) for m, n in comp)
        for under in ("P", "Q"):
            monkeypatch.setattr(sg, "_ADD_CUMULANTS", {})
            total = summed_cumulants(pairs, 5, under)
            ref = np.zeros(5)
            for m, n in build():
                alone = m.pairs[min(direction, len(m.pairs) - 1)]
                ref += n * np.asarray(alone.cumulants(5, under))
            np.testing.assert_allclose(total, ref, rtol=1e-10, atol=1e-300)
            for m, _ in pairs:
                fresh = [x for x, _ in build()][[p for p, _ in pairs].index(m)]
                want = fresh.pairs[min(direction, len(fresh.pairs) - 1)]
                np.testing.assert_allclose(
                    m.cumulants(5, under), want.cumulants(5, under), rtol=1e-10
                )
