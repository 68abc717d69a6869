"""The accountant template: one final ``compose``, read-only curve metadata, the
identity curve for a loss without variance, and ``Auto``'s curve as a
``PrivacyCurve``."""

from __future__ import annotations

import copy
import inspect
import pickle
import warnings

import numpy as np
import pytest

from symfdp import accountants as A
from symfdp import calibrate, training
from symfdp import mechanisms as M
from symfdp.accountants.base import Accountant
from symfdp.curve import PrivacyCurve

NAMES = sorted(n for n in A.__all__ if n not in ("Accountant", "normalize_composition"))


@pytest.mark.parametrize("name", NAMES)
def test_compose_is_the_template(name: str) -> None:
    cls = getattr(A, name)
    assert "compose" not in vars(cls), f"{name} overrides Accountant.compose"
    assert cls.compose is Accountant.compose
    params = inspect.signature(cls.compose).parameters
    assert params["adjacency"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(
    "make",
    [A.CLT, A.BerryEsseen, A.Edgeworth, A.SaddlePoint, A.Exact, A.RDP, A.Auto],
    ids=lambda c: c.__name__,
)
def test_info_is_read_only(make) -> None:
    curve = make().compose(M.Gaussian(mu=0.5), 4)
    assert curve.info["n"] == 4
    with pytest.raises(TypeError):
        curve.info["n"] = 5  # type: ignore[index]
    assert curve.info["n"] == 4


def test_curves_pickle_and_copy_with_their_info() -> None:
    curve = A.CLT().compose(M.Gaussian(mu=0.5), 4)  # G_1
    for other in (pickle.loads(pickle.dumps(curve)), copy.deepcopy(curve)):
        assert other.info["mu"] == pytest.approx(1.0, rel=1e-14)
        with pytest.raises(TypeError):
            other.info["mu"] = 2.0  # type: ignore[index]
        assert other.epsilon(1e-5) == pytest.approx(curve.epsilon(1e-5), rel=1e-15)


def test_clt_and_berry_esseen_share_the_gdp_base() -> None:
    from symfdp.accountants.gdp.base import GDPAccountant

    assert issubclass(A.CLT, GDPAccountant) and issubclass(A.BerryEsseen, GDPAccountant)
    # G_mu of mu = 1 under the CLT; Dong et al. (2019), Cor. D.7 for 100 x eps = 0.1:
    # mu = 2 sqrt(n) sinh(eps / 2) = 1.000417 (BerryEsseen's mu).
    assert A.CLT().compose(M.Gaussian(mu=0.5), 4).info["mu"] == pytest.approx(1.0)
    mu = A.BerryEsseen().compose(M.PureDP(eps=0.1), n=100).info["mu"]
    assert mu == pytest.approx(2 * 10 * np.sinh(0.05), rel=1e-6)


@pytest.mark.parametrize(
    "make",
    [A.CLT, A.BerryEsseen, A.Edgeworth, A.SaddlePoint, A.Numerical],
    ids=lambda c: c.__name__,
)
@pytest.mark.parametrize(
    "mechanism",
    [M.Gaussian(mu=0.0), M.Laplace(mu=0.0)],
    ids=["gaussian", "laplace"],
)
def test_a_loss_without_variance_is_the_identity(make, mechanism) -> None:
    """P = Q: delta(eps) = (1 - e^eps)_+, epsilon = 0, f(alpha) = 1 - alpha, with
    no warning (the curve is exact)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = make().compose(mechanism, 10)
        eps = np.array([-0.5, 0.0, 0.5])
        np.testing.assert_allclose(
            curve.delta(eps), [1 - np.exp(-0.5), 0.0, 0.0], atol=1e-15
        )
        assert curve.epsilon(1e-5) == 0.0
        alpha = np.array([0.0, 0.25, 1.0])
        np.testing.assert_allclose(curve.tradeoff(alpha), 1 - alpha, atol=1e-12)
        if curve.estimates_error:
            assert curve.epsilon_error(1e-5) == 0.0


def test_auto_curve_is_a_privacy_curve() -> None:
    curve = A.Auto().compose(M.Gaussian(mu=0.5), 4)  # G_1
    assert isinstance(curve, PrivacyCurve)
    assert curve.info["composition"] == [("Gaussian(mu=0.5)", 4)]
    # G_1: delta(0) = 2 Phi(1/2) - 1 = 0.382925, mu* = 1.
    assert curve.delta(0.0) == pytest.approx(0.3829249225480262, rel=1e-6)
    assert training.mu_star(curve) == pytest.approx(1.0, rel=1e-6)
    assert calibrate.curve_mu(curve) == pytest.approx(1.0, rel=1e-3)
    with pytest.raises(NotImplementedError):
        curve.raw()
