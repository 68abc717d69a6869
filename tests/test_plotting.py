"""symfdp.plotting: what is drawn is the curve's data; supporting lines support."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import special

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import plotting
from symfdp import tradeoff as T


@pytest.fixture(scope="module")
def curve():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000)


def _line(ax, label):
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return line


def test_tradeoff_draws_the_curve(curve, tmp_path):
    alpha = np.linspace(0, 1, 51)
    ax = plotting.plot_tradeoff(curve, alpha=alpha, label="num")
    x, y = _line(ax, "num").get_data()
    np.testing.assert_array_equal(x, alpha)
    np.testing.assert_array_equal(y, curve.tradeoff(alpha))
    assert any(ln.get_label().startswith("Id") for ln in ax.get_lines())
    assert ax.get_xlim() == (0, 1) and ax.get_ylim() == (0, 1)
    ax.figure.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_privacy_curve_plot_method_delegates(curve):
    ax = curve.plot(label="via PrivacyCurve.plot")
    assert _line(ax, "via PrivacyCurve.plot") is not None
    again = plotting.plot_tradeoff(T.Gaussian(1.0), ax=ax)
    assert again is ax
    # identity is drawn only on a new Axes.
    assert sum(ln.get_label().startswith("Id") for ln in ax.get_lines()) == 1


def test_supporting_lines_support_the_curve():
    """Both lines of (eps, delta(eps)) lie below G_mu and touch it (Dong et al.
    2019, Prop. 2.4: f is the envelope of its supporting lines)."""
    mu, eps = 1.0, 0.7
    f = T.Gaussian(mu)
    ax = plotting.plot_tradeoff(f, eps=eps)
    delta = float(f.privacy_profile(eps))
    a = np.linspace(0, 1, 200001)
    fa = f(a)
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 2
    for ln in dashed:
        (x0, x1), (y0, y1) = ln.get_data()
        slope = (y1 - y0) / (x1 - x0)
        line = y0 + slope * a
        gap = fa - line
        assert gap.min() > -1e-12  # below the curve
        assert gap.min() < 1e-6  # and touching it
    slopes = sorted((ln.get_data()[1][1] - ln.get_data()[1][0]) / ln.get_data()[0][1]
                    for ln in dashed)  # fmt: skip
    assert slopes == pytest.approx([-math.exp(eps), -math.exp(-eps)], rel=1e-12)
    assert dashed[0].get_data()[1][0] == pytest.approx(1 - delta, rel=1e-14)


def test_supporting_lines_from_delta(curve):
    ax = plotting.plot_tradeoff(curve, delta=1e-5)
    eps = float(curve.epsilon(1e-5))
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert any(f"{eps:.3g}" in label for label in labels)


def test_privacy_profile_log_axis_and_data(curve):
    eps = np.linspace(0, 3, 31)
    ax = plotting.plot_privacy_profile(curve, eps=eps, label="num", bounds=True)
    assert ax.get_yscale() == "log"
    x, y = _line(ax, "num").get_data()
    np.testing.assert_array_equal(x, eps)
    np.testing.assert_array_equal(np.ma.getdata(y), curve.delta(eps))
    assert len(ax.collections) == 1  # the certified band


def test_profile_hides_zero_delta():
    # Pure DP: delta(eps) = 0 for eps >= n * eps0; those points are masked.
    curve = A.Exact().compose(M.PureDP(eps=0.5), n=2)
    ax = plotting.plot_privacy_profile(curve, eps=np.linspace(0, 2, 21), label="rr")
    y = _line(ax, "rr").get_data()[1]
    assert np.ma.is_masked(y) and np.ma.count_masked(y) == 11


def test_mu_star_gamma_picture_for_gmu():
    mu = 1.3
    ax = plotting.plot_mu_star_gamma(T.Gaussian(mu), labels=["G"])
    labels = [ln.get_label() for ln in ax.get_lines()]
    # gamma = AUC(G_mu) = Phi(-mu/sqrt 2) (closed form, Dong et al. 2019).
    gamma = special.ndtr(-mu / math.sqrt(2))
    assert any(f"mu^*={mu:.4g}" in s and f"gamma={gamma:.4g}" in s for s in labels)
    (marker,) = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    x, y = marker.get_data()
    a_star = special.ndtr(-mu / 2)
    assert x[0] == pytest.approx(a_star, rel=1e-12) and y[0] == x[0]
    assert len(ax.collections) == 1  # gamma shaded for a single curve


def test_mu_star_gamma_two_curves_and_privacy_curves(curve):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        longer = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 2000)
    ax = plotting.plot_mu_star_gamma({"n=1000": curve, "n=2000": longer})
    markers = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert len(markers) == 2
    # More steps: less private, so its fixed point is nearer the origin.
    assert markers[1].get_data()[0][0] < markers[0].get_data()[0][0]
    assert len(ax.collections) == 0


def test_input_errors(curve):
    with pytest.raises(TypeError, match="PrivacyCurve"):
        plotting.plot_tradeoff("G_mu")
    with pytest.raises(ValueError, match="not both"):
        plotting.plot_tradeoff(curve, eps=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="profile"):
        plotting.plot_tradeoff(lambda a: 1 - a, delta=1e-5)
    with pytest.raises(TypeError, match="PrivacyCurve or a TradeOff"):
        plotting.plot_privacy_profile(lambda a: 1 - a)
    with pytest.raises(ValueError, match="labels"):
        plotting.plot_mu_star_gamma([curve], labels=["a", "b"])
    with pytest.raises(ValueError, match="alpha"):
        plotting.plot_tradeoff(curve, alpha=[0.5, 1.5])
    with pytest.raises(ValueError, match="empty"):
        plotting.plot_mu_star_gamma([])
