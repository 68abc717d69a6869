"""TrainingAccountant: run-length history, equality with one-shot composition,
exact JSON state round trip, validation; mu* from delta(0)."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from _tolerances import RTOL_REF
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, special

import symfdp
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import tradeoff as T
from symfdp.training import TrainingAccountant, make_accountant, mu_star

DELTA = 1e-5
#: The fixed point of a curve found by bisection on its tabulated trade-off agrees
#: with the delta(0) identity only to the grid's resolution (alpha_grid, ~1e-6).
ATOL_FIXED_POINT_MU = 2e-5


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", symfdp.ApproximationWarning)
        yield


def test_lazy_export():
    assert symfdp.TrainingAccountant is TrainingAccountant


@pytest.mark.parametrize("method", ["saddlepoint", "edgeworth", "clt", "numerical"])
def test_million_identical_steps_equal_one_shot_compose(method):
    sigma, p, n = 1.1, 0.004, 10**6
    acc = TrainingAccountant(method=method)
    for _ in range(1000):
        acc.step(noise_multiplier=sigma, sample_rate=p)
    acc.step(noise_multiplier=sigma, sample_rate=p, num_steps=n - 1000)
    assert acc.history == ((sigma, p, n),)
    assert acc.steps == n
    one_shot = make_accountant(method).compose(
        M.SubsampledGaussian(sigma=sigma, p=p), n
    )
    assert acc.get_epsilon(DELTA) == float(one_shot.epsilon(DELTA))
    assert acc.get_delta(2.0) == float(one_shot.delta(2.0))
    assert acc.get_mu() == mu_star(one_shot)


def test_default_is_certified_and_the_saddle_point_warns_where_it_is_off():
    """The default method is numerical (as for ``symfdp account``): its estimate
    is the one-shot compose estimate and lies in its certified bracket. After 100
    steps of sigma = 1, p = 0.01 the saddle point is ~22% high (the add pair's
    tilted loss is far from normal) and its error estimate says so."""
    from symfdp.cli import account

    assert symfdp.training.DEFAULT_METHOD == account.DEFAULT_METHOD == "numerical"
    acc = TrainingAccountant()
    assert acc.method == "numerical"
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=100)
    lo, hi = acc.get_epsilon_bounds(DELTA)
    eps = acc.get_epsilon(DELTA)
    assert lo <= eps <= hi
    one_shot = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 100)
    assert eps == float(one_shot.epsilon(DELTA))
    fast = TrainingAccountant.from_state_dict(
        {**acc.state_dict(), "method": "saddlepoint"}
    )
    with pytest.warns(symfdp.ApproximationWarning, match="estimated relative error"):
        eps_fast = fast.get_epsilon(DELTA)
    assert eps_fast > 1.1 * hi


def test_heterogeneous_history_is_run_length_encoded_and_order_free():
    a, b = (1.0, 0.01), (2.0, 0.02)
    acc = TrainingAccountant(method="saddlepoint", adjacency="add_or_remove")
    for sigma, p, k in [(*a, 100), (*a, 50), (*b, 30), (*a, 20)]:
        acc.step(noise_multiplier=sigma, sample_rate=p, num_steps=k)
    assert acc.history == ((*a, 150), (*b, 30), (*a, 20))
    expected = A.SaddlePoint().compose(
        [
            (M.SubsampledGaussian(sigma=a[0], p=a[1]), 170),
            (M.SubsampledGaussian(sigma=b[0], p=b[1]), 30),
        ]
    )
    assert acc.get_epsilon(DELTA) == float(expected.epsilon(DELTA))
    swapped = TrainingAccountant(method="saddlepoint")
    swapped.step(noise_multiplier=b[0], sample_rate=b[1], num_steps=30)
    swapped.step(noise_multiplier=a[0], sample_rate=a[1], num_steps=170)
    assert swapped.get_epsilon(DELTA) == pytest.approx(
        acc.get_epsilon(DELTA), rel=1e-12
    )


def test_curve_is_cached_until_the_history_changes():
    acc = TrainingAccountant(method="clt")
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=10)
    first = acc.curve()
    assert acc.curve() is first
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.curve() is not first
    assert acc.get_epsilon(DELTA) > float(first.epsilon(DELTA))


def test_more_steps_never_less_epsilon():
    acc = TrainingAccountant(method="numerical")
    eps = []
    for _ in range(4):
        acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=250)
        eps.append(acc.get_epsilon_bounds(DELTA)[1])
    assert np.all(np.diff(eps) > 0)


def test_numerical_bounds_contain_estimate_and_adjacency_is_used():
    acc = TrainingAccountant(method="numerical", adjacency="add")
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=1000)
    lo, hi = acc.get_epsilon_bounds(DELTA)
    assert lo <= acc.get_epsilon(DELTA) <= hi
    both = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000)
    # add/remove adjacency covers the add pair, so its epsilon is at least as large.
    assert both.epsilon_bounds(DELTA)[1] >= lo


@pytest.mark.parametrize(
    ("pair", "adjacency"),
    [("both", "add_or_remove"), ("add", "add"), ("remove", "remove")],
)
def test_pair_is_deprecated_for_adjacency(pair, adjacency):
    with pytest.warns(DeprecationWarning, match="adjacency="):
        old = TrainingAccountant(method="clt", pair=pair)
    new = TrainingAccountant(method="clt", adjacency=adjacency)
    assert old.adjacency == adjacency and old.pair == pair == new.pair
    for acc in (old, new):
        acc.step(noise_multiplier=1.0, sample_rate=0.05, num_steps=200)
    assert old.get_epsilon(DELTA) == new.get_epsilon(DELTA)
    with pytest.raises(ValueError, match="adjacency only"):
        TrainingAccountant(pair=pair, adjacency=adjacency)


def test_add_or_remove_is_the_worse_direction():
    """add-or-remove is the worse of the two directions at every delta."""
    eps = {}
    for rel in ("add_or_remove", "add", "remove"):
        acc = TrainingAccountant(method="numerical", adjacency=rel)
        acc.step(noise_multiplier=0.8, sample_rate=0.05, num_steps=100)
        eps[rel] = [acc.get_epsilon_bounds(d) for d in (1e-2, 1e-5, 1e-9)]
    for both, add, rem in zip(*eps.values(), strict=True):
        assert both[1] >= max(add[0], rem[0])
        assert both[0] <= max(add[1], rem[1])


def test_replace_one_matches_dp_accounting():
    dpa = pytest.importorskip("dp_accounting")
    acc = TrainingAccountant(adjacency="replace_one")
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=500)
    lo, hi = acc.get_epsilon_bounds(DELTA)
    ref = dpa.pld.PLDAccountant(
        dpa.NeighboringRelation.REPLACE_ONE, value_discretization_interval=1e-4
    )
    ref.compose(
        dpa.SelfComposedDpEvent(
            dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 500
        )
    )
    # dp-accounting's pessimistic PLD: an upper bound, within 1e-3 of ours.
    assert lo <= ref.get_epsilon(DELTA) <= hi * (1 + 1e-3)


def test_version_1_states_load():
    state = _state()
    state.pop("adjacency")
    state.update(version=1, pair="add")
    acc = TrainingAccountant.from_state_dict(state)
    assert acc.adjacency == "add" and acc.steps == 3


def test_gaussian_steps_match_the_closed_form():
    """sample_rate = 1 is the Gaussian mechanism: n steps with sigma are G_mu with
    mu = sqrt(n)/sigma (Dong et al. 2019, Cor. 3.3); eps(delta) solved here from
    Cor. 2.13 independently of the accountants."""
    n, sigma = 16, 2.0
    mu = math.sqrt(n) / sigma

    def profile(eps: float) -> float:
        return special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(
            -eps / mu - mu / 2
        )

    eps_ref = optimize.brentq(lambda e: profile(e) - DELTA, 0.0, 50.0, xtol=1e-14)
    acc = TrainingAccountant(method="exact")
    acc.step(noise_multiplier=sigma, sample_rate=1.0, num_steps=n)
    assert acc.get_epsilon(DELTA) == pytest.approx(eps_ref, rel=RTOL_REF)
    assert acc.get_mu() == pytest.approx(mu, rel=RTOL_REF)


def test_empty_accountant_is_perfectly_private():
    acc = TrainingAccountant()
    assert acc.get_epsilon(DELTA) == 0.0
    assert acc.get_mu() == 0.0
    assert acc.get_delta(1.0) == 0.0
    assert acc.curve() is None
    assert acc.steps == 0


def test_state_round_trips_through_json_exactly():
    acc = TrainingAccountant(method="edgeworth", order=3)
    settings = [(0.1 + 0.2, 1 / 3, 7), (math.pi, 2**-30, 1), (1.1, 0.004, 123456)]
    for sigma, p, k in settings:
        acc.step(noise_multiplier=sigma, sample_rate=p, num_steps=k)
    text = json.dumps(acc.state_dict())
    restored = TrainingAccountant.from_state_dict(json.loads(text))
    assert restored.state_dict() == acc.state_dict()
    assert restored.history == tuple(settings)
    assert restored.method == "edgeworth" and restored._options == {"order": 3}
    assert restored.get_epsilon(DELTA) == acc.get_epsilon(DELTA)
    # Resuming continues the same run-length encoding.
    restored.step(noise_multiplier=1.1, sample_rate=0.004)
    assert restored.history[-1] == (1.1, 0.004, 123457)


def test_load_state_dict_replaces_method_and_history():
    src = TrainingAccountant(method="clt")
    src.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=10)
    dst = TrainingAccountant(method="saddlepoint")
    dst.step(noise_multiplier=5.0, sample_rate=0.5)
    dst.load_state_dict(src.state_dict())
    assert dst.method == "clt" and dst.history == src.history
    assert dst.get_epsilon(DELTA) == src.get_epsilon(DELTA)


def _state(**changes):
    acc = TrainingAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=3)
    state = acc.state_dict()
    state.update(changes)
    return state


@pytest.mark.parametrize(
    ("state", "error", "match"),
    [
        ([], TypeError, "state must be a dict"),
        (_state(format="opacus"), ValueError, "format"),
        (_state(version=3), ValueError, "version"),
        (_state(method="prv"), ValueError, "method"),
        (_state(adjacency="neither"), ValueError, "adjacency"),
        (_state(version=1), ValueError, "unknown keys"),
        (_state(options=[1]), TypeError, "options"),
        (_state(options={"bogus": 1}), TypeError, "invalid option"),
        (_state(history={"a": 1}), TypeError, "history"),
        (_state(history=[[1.0, 0.01]]), ValueError, r"history'\]\[0\]"),
        (_state(history=[[1.0, 1.5, 3]]), ValueError, "sample_rate"),
        (_state(history=[[1.0, 0.1, 3], [0.0, 0.1, 3]]), ValueError, "noise_mult"),
        (_state(history=[[1.0, 0.1, 2.5]]), TypeError, "num_steps"),
    ],
)
def test_load_state_dict_validates_and_leaves_state_alone(state, error, match):
    acc = TrainingAccountant(method="clt")
    acc.step(noise_multiplier=2.0, sample_rate=0.1, num_steps=5)
    before = acc.state_dict()
    with pytest.raises(error, match=match):
        acc.load_state_dict(state)
    assert acc.state_dict() == before


def test_missing_keys_are_named():
    state = _state()
    del state["history"]
    with pytest.raises(ValueError, match="missing"):
        TrainingAccountant().load_state_dict(state)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"noise_multiplier": 0.0, "sample_rate": 0.1}, ValueError, "noise_multiplier"),
        ({"noise_multiplier": -1, "sample_rate": 0.1}, ValueError, "noise_multiplier"),
        ({"noise_multiplier": math.inf, "sample_rate": 0.1}, ValueError, "noise_mult"),
        ({"noise_multiplier": 1.0, "sample_rate": 1.5}, ValueError, "sample_rate"),
        ({"noise_multiplier": 1.0, "sample_rate": 0.0}, ValueError, "sample_rate"),
        ({"noise_multiplier": "1", "sample_rate": 0.1}, TypeError, "noise_multiplier"),
        (
            {"noise_multiplier": 1.0, "sample_rate": 0.1, "num_steps": 0},
            ValueError,
            "num",
        ),
        (
            {"noise_multiplier": 1.0, "sample_rate": 0.1, "num_steps": 1.5},
            TypeError,
            "num",
        ),
    ],
)
def test_step_validates_and_records_nothing(kwargs, error, match):
    acc = TrainingAccountant()
    with pytest.raises(error, match=match):
        acc.step(**kwargs)
    assert acc.history == () and acc.steps == 0


def test_step_is_keyword_only():
    with pytest.raises(TypeError):
        TrainingAccountant().step(1.0, 0.01)  # type: ignore[misc]


def test_constructor_validation_and_names():
    assert TrainingAccountant(method="Saddle_Point").method == "saddlepoint"
    assert TrainingAccountant(method="berry_esseen").method == "berry-esseen"
    with pytest.raises(ValueError, match="method"):
        TrainingAccountant(method="prv")
    with pytest.raises(ValueError, match="pair"):
        TrainingAccountant(pair="replace")
    with pytest.raises(ValueError, match="adjacency"):
        TrainingAccountant(adjacency="both")
    with pytest.raises(TypeError, match="JSON"):
        TrainingAccountant(method="numerical", eps_grid=np.linspace(-1, 1, 5))
    with pytest.raises(ValueError, match="order"):
        TrainingAccountant(method="saddlepoint", order=17)
    with pytest.raises(ValueError, match="delta"):
        TrainingAccountant().get_epsilon(0.0)
    with pytest.raises(ValueError, match="certified"):
        TrainingAccountant(method="saddlepoint").get_epsilon_bounds(DELTA)


# ---------------------------------------------------------------- mu*
def test_mu_star_matches_the_fixed_point_interpreter():
    """mu* from delta(0) equals -2 Phi^{-1}(alpha*) with alpha* found by bisection
    on the trade-off (Zheng et al. 2020, Sec. 4), for curves with no reported mu."""
    exact = A.Exact().compose(M.PureDP(eps=0.3), n=20)
    assert "mu" not in exact.info
    assert mu_star(exact) == pytest.approx(exact.mu_star_gamma()[0], abs=1e-9)
    numerical = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000)
    assert mu_star(numerical) == pytest.approx(
        numerical.mu_star_gamma()[0], abs=ATOL_FIXED_POINT_MU
    )
    lo, hi = mu_star(numerical, bounds=True)
    assert lo <= mu_star(numerical) <= hi


def test_mu_star_of_gdp_curves_is_mu():
    curve = A.Numerical().compose(M.Gaussian(mu=0.5), n=4)  # G_1
    lo, hi = mu_star(curve, bounds=True)
    assert lo <= 1.0 <= hi
    clt = A.CLT().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 100)
    assert mu_star(clt) == clt.info["mu"]
    # The formula itself, on the closed-form G_mu profile.
    g = T.Gaussian(2.5)
    tv = float(g.privacy_profile(0.0))
    assert -2 * special.ndtri((1 - tv) / 2) == pytest.approx(2.5, rel=1e-12)


def test_mu_star_beyond_double_precision_warns_and_is_inf():
    curve = A.Edgeworth().compose(M.Gaussian(mu=20.0), n=1)  # exact for Gaussians
    with pytest.warns(symfdp.ApproximationWarning, match="not resolved"):
        assert mu_star(curve) == math.inf
    with pytest.raises(TypeError, match="PrivacyCurve"):
        mu_star(T.Gaussian(1.0))


SETTINGS = st.sampled_from([(1.0, 0.01), (1.0, 0.02), (0.7, 0.01), (2.0, 1.0)])


@given(st.lists(st.tuples(SETTINGS, st.integers(1, 1000)), max_size=30))
def test_history_invariants_and_round_trip(steps):
    acc = TrainingAccountant(method="clt")
    for (sigma, p), k in steps:
        acc.step(noise_multiplier=sigma, sample_rate=p, num_steps=k)
    hist = acc.history
    assert sum(k for _, _, k in hist) == sum(k for _, k in steps) == acc.steps
    assert all(hist[i][:2] != hist[i + 1][:2] for i in range(len(hist) - 1))
    restored = TrainingAccountant.from_state_dict(
        json.loads(json.dumps(acc.state_dict()))
    )
    assert restored.history == hist


def test_rdp_by_name_converts_as_opacus():
    # Opacus 1.x RDPAccountant (improved conversion of Canonne, Kamath and Steinke
    # 2020): eps 5.93 for sigma 0.8, q = 0.01024, 2,930 steps, delta 1e-5.
    acc = TrainingAccountant(method="rdp")
    acc.step(noise_multiplier=0.8, sample_rate=0.01024, num_steps=2930)
    assert round(acc.get_epsilon(1e-5), 2) == 5.93
    classic = TrainingAccountant(method="rdp", conversion="classic")
    classic.load_state_dict(acc.state_dict() | {"options": {"conversion": "classic"}})
    assert classic.get_epsilon(1e-5) > acc.get_epsilon(1e-5)
