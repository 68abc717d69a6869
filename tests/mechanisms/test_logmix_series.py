"""The remainders of :mod:`symfdp.mechanisms._logmix` keep full relative
precision: against mpmath at 700 digits (enough for ``x**2`` next to ``x`` at
``|x| = 1e-300``), on every band of their Taylor series and at the band edges."""

from __future__ import annotations

from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest

from symfdp.mechanisms import _logmix as lm

#: Relative error allowed: a few roundings of Horner's rule and of the product.
RTOL = 4e-15

REFERENCES: dict[str, Callable[[mp.mpf], mp.mpf]] = {
    "expm1_minus": lambda x: mp.expm1(x) - x,
    "log1p_minus": lambda u: mp.log1p(u) - u,
    "xlog1p_minus": lambda u: (1 + u) * mp.log1p(u) - u,
}


def _points() -> np.ndarray:
    rng = np.random.default_rng(5)
    edges = np.array(lm._BAND_EDGES)
    near = np.concatenate([np.nextafter(edges, 0.0), edges, np.nextafter(edges, 1.0)])
    return np.concatenate(
        [
            rng.uniform(-0.6, 0.6, 300),
            10.0 ** rng.uniform(-150, 0, 150) * rng.choice([-1.0, 1.0], 150),
            near,
            -near,
            [0.0, -0.0, 0.9, -0.9, 3.0],
        ]
    )


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_remainders_against_mpmath(name: str) -> None:
    x = _points()
    got = getattr(lm, name)(x)
    assert got.shape == x.shape
    with mp.workdps(700):
        for xi, gi in zip(x.tolist(), got.tolist(), strict=True):
            ref = REFERENCES[name](mp.mpf(xi))
            if ref == 0:
                assert gi == 0.0, (name, xi)
                continue
            rel = abs((mp.mpf(gi) - ref) / ref)
            assert rel <= RTOL, (name, xi, gi, float(rel))


def test_series_bands_use_the_terms_they_need() -> None:
    # The first term left out of each band is below 2^-56 of the leading one,
    # and one term fewer would not be.
    for coeffs, terms in [
        (lm._EXPM1_COEFFS, lm._EXPM1_TERMS),
        (lm._LOG1P_COEFFS, lm._LOG1P_TERMS),
        (lm._XLOG1P_COEFFS, lm._XLOG1P_TERMS),
    ]:
        for b, count in zip(lm._BAND_EDGES, terms, strict=False):
            lead = abs(coeffs[0])
            assert abs(coeffs[count]) * b**count < 2.0**-56 * lead
            assert abs(coeffs[count - 1]) * b ** (count - 1) >= 2.0**-56 * lead
