"""Curves as tables, CSV and JSON; notebook displays of curves and plots."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from scipy import special

from symfdp import accountants as A
from symfdp import export
from symfdp import mechanisms as M


def _gdp_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    # Dong et al. (2019), Cor. 2.13: delta(eps) of G_mu.
    return special.ndtr(-eps / mu + mu / 2) - np.exp(eps) * special.ndtr(
        -eps / mu - mu / 2
    )


def test_profile_table_csv_and_json_of_a_certified_curve(tmp_path) -> None:
    curve = A.Numerical().compose(M.Gaussian(mu=0.5), 4)  # G_1
    grid = [0.0, 0.5, 1.0, 2.0]
    path = export.to_csv(curve, tmp_path / "profile.csv", grid=grid)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["eps", "delta", "delta_lower", "delta_upper"]
    values = np.array(rows[1:], dtype=float)
    exact = _gdp_delta(1.0, np.array(grid))
    np.testing.assert_array_equal(values[:, 0], grid)
    assert np.all(values[:, 2] <= exact) and np.all(exact <= values[:, 3])
    np.testing.assert_allclose(values[:, 1], exact, rtol=1e-3)
    data = json.loads(export.to_json(curve, deltas=[1e-5], grid=grid))
    assert data["method"] == "Numerical" and data["certified"] is True
    assert data["composition"] == "Gaussian(mu=0.5) x 4"
    (answer,) = data["epsilon"]
    assert answer["eps_lower"] <= answer["eps"] <= answer["eps_upper"]
    assert data["table"]["delta"] == [float(v) for v in values[:, 1]]


def test_tradeoff_table_and_approximation_columns(tmp_path) -> None:
    curve = A.CLT().compose(M.Gaussian(mu=0.5), 4)
    cols = export.table(curve, "tradeoff", grid=[0.0, 0.25, 1.0])
    assert list(cols) == ["alpha", "beta"]
    # G_1(alpha) = Phi(Phi^{-1}(1 - alpha) - 1)
    expected = special.ndtr(special.ndtri(1 - np.array([0.0, 0.25, 1.0])) - 1.0)
    np.testing.assert_allclose(cols["beta"], expected, atol=1e-12)
    sp = A.SaddlePoint().compose(M.SubsampledGaussian(p=0.05, sigma=1.1), 2000)
    cols = export.table(sp, grid=[1.0, 2.0])
    # the error-estimate column exactly when the approximation estimates it
    assert set(cols) - {"eps", "delta"} == (
        {"delta_error"} if sp.estimates_error else set()
    )
    text = export.to_json(sp, deltas=[1e-5], kind=None)
    assert "table" not in json.loads(text)
    assert ("eps_error" in json.loads(text)["epsilon"][0]) == sp.estimates_error
    # infinite values are written as strings (JSON has no inf)
    inf_json = json.loads(export.to_json(curve, deltas=[], grid=[-math.inf]))
    assert inf_json["table"]["eps"] == ["-inf"]


def test_export_rejects_bad_input(tmp_path) -> None:
    curve = A.CLT().compose(M.Gaussian(mu=1.0), 1)
    with pytest.raises(TypeError, match="curve"):
        export.table(object())
    with pytest.raises(ValueError, match="kind"):
        export.table(curve, kind="profiles")
    with pytest.raises(ValueError, match="grid"):
        export.table(curve, "tradeoff", grid=[1.5])
    with pytest.raises(ValueError, match="deltas"):
        export.summary(curve, deltas=[0.0])


def test_notebook_displays() -> None:
    curve = A.Numerical().compose(M.SubsampledGaussian(p=0.01, sigma=1.1), 100)
    md = curve._repr_markdown_()
    assert "Numerical" in md and "certified" in md
    assert "SubsampledGaussian(p=0.01, sigma=1.1, pair='both') x 100" in md
    png = curve.plot()._repr_png_()
    assert png.startswith(b"\x89PNG")
