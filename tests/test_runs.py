"""The application layer (symfdp.runs): typed requests, their validation in each
front end's words, and the results of account() and calibrate()."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import subprocess
import sys
import warnings
from fractions import Fraction

import pytest
from scipy import optimize, special

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp import runs
from symfdp.adjacency import Adjacency
from symfdp.runs.errors import RequestError

DPSGD = runs.Run(sigma=1.0, sample_rate=0.01, steps=1000)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def gaussian_epsilon(mu: float, delta: float) -> float:
    """eps(delta) of G_mu, Dong et al. (2019), Cor. 2.13, solved here."""

    def profile(eps: float) -> float:
        return special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(
            -eps / mu - mu / 2
        )

    return optimize.brentq(lambda e: profile(e) - delta, 0.0, 100.0, xtol=1e-14)


def gaussian_delta_closed(mu: float, eps: float) -> float:
    """delta(eps) of G_mu, Dong et al. (2019), Cor. 2.13."""
    return float(
        special.ndtr(-eps / mu + mu / 2)
        - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
    )


# ---------------------------------------------------------------- requests
@pytest.mark.parametrize(
    ("kwargs", "python", "cli"),
    [
        (
            {"sigma": 1, "sample_rate": 1.5, "steps": 10},
            "sample_rate must lie in (0, 1]. Found 1.5.",
            "--sample-rate must lie in (0, 1]. Found 1.5.",
        ),
        (
            {"sample_rate": 0.1, "steps": 3},
            "subsampled-gaussian needs sigma or mu.",
            "subsampled-gaussian needs --sigma or --mu.",
        ),
        (
            {"sigma": 1, "epochs": 3, "dataset_size": 100},
            "epochs, dataset_size needs batch_size too (epochs, dataset_size and "
            "batch_size go together).",
            "--epochs, --dataset-size needs --batch-size too (--epochs, "
            "--dataset-size and --batch-size go together).",
        ),
        (
            {"sigma": 1, "sample_rate": 0.1, "steps": 3, "epochs": 1},
            "sample_rate conflicts with epochs: give either sample_rate and steps, "
            "or epochs, dataset_size and batch_size.",
            "--sample-rate conflicts with --epochs: give either --sample-rate and "
            "--steps, or --epochs, --dataset-size and --batch-size.",
        ),
        (
            {"sigma": 1, "sample_rate": 0.1, "steps": 2**53 + 1},
            "steps must be at most 9007199254740992",
            "--steps must be at most 9007199254740992",
        ),
        (
            {"eps": 1, "sample_rate": 0.1, "steps": 3},
            "eps does not apply to subsampled-gaussian; it takes sigma or mu.",
            "--eps does not apply to subsampled-gaussian; it takes --sigma or --mu.",
        ),
    ],
)
def test_run_errors_name_the_fields_in_each_front_ends_words(kwargs, python, cli):
    with pytest.raises(RequestError) as info:
        runs.make_run("subsampled-gaussian", **kwargs)
    assert str(info.value).startswith(python)
    assert info.value.render(_flag).startswith(cli)
    assert pickle.loads(pickle.dumps(info.value)).template == info.value.template


def test_epochs_are_read_as_the_decimals_they_print():
    # 0.1 * 1000 / 100 is 1 step (float arithmetic would give 1.0000000000000002).
    for epochs in (0.1, Fraction(1, 10), "0.1"):
        if isinstance(epochs, str):
            with pytest.raises(RequestError, match="epochs must be a number"):
                runs.Epochs(epochs, 1000, 100)  # type: ignore[arg-type]
            continue
        schedule = runs.Epochs(epochs, 1000, 100)
        assert schedule.steps == 1 and schedule.sample_rate == 0.1
    run = runs.make_run(
        "subsampled-gaussian", sigma=1.1, epochs=3, dataset_size=60000, batch_size=256
    )
    assert (run.steps, run.sample_rate) == (704, 256 / 60000)
    assert run.epochs is not None and "ceil(3*60000/256) = 704" in run.epochs.describe()
    with pytest.raises(RequestError, match="must be those of"):
        dataclasses.replace(run, steps=703)


def test_a_run_is_a_frozen_record_that_describes_and_builds():
    run = runs.Run(mechanism="gaussian", sigma=2.0, steps=4, adjacency="replace_one")
    assert run.adjacency is Adjacency.REPLACE_ONE
    assert (
        run.describe()
        == "gaussian(sigma=2, adjacency=replace_one (mu doubled)) x 4 steps"
    )
    assert run.pair is None and run.parameter == ("sigma", 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.steps = 5  # type: ignore[misc]
    # Replace-one neighbours move a Gaussian's values by twice the sensitivity.
    assert runs.build_mechanism(run) == M.Gaussian(mu=1.0)
    add = dataclasses.replace(DPSGD, adjacency=Adjacency.ADD)
    assert add.pair == "add" and DPSGD.pair == "both"
    assert "pair=both" in DPSGD.describe()
    # A subsampled family uses its own replace-one pair (a symmetric mixture).
    laplace = runs.Run(
        mechanism="subsampled-laplace", mu=1.0, sample_rate=0.1, steps=3,
        adjacency="replace_one",
    )  # fmt: skip
    assert runs.build_mechanism(laplace).is_symmetric
    with pytest.raises(RequestError, match="adjacency must be one of"):
        runs.Run(sigma=1.0, sample_rate=0.1, steps=3, adjacency="both")


def test_requests_validate_when_built():
    with pytest.raises(RequestError, match=r"give delta \(one or more"):
        runs.AccountRequest(run=DPSGD)
    with pytest.raises(RequestError, match=r"delta must lie in \(0, 1\)"):
        runs.AccountRequest(run=DPSGD, deltas=(1.5,))
    with pytest.raises(RequestError, match="needs sigma or mu"):
        runs.AccountRequest(run=runs.Run(sample_rate=0.1, steps=3), deltas=(1e-5,))
    with pytest.raises(RequestError, match="unknown method 'prv'"):
        runs.MethodSpec("prv")
    with pytest.raises(RequestError, match="plain JSON"):
        runs.MethodSpec("numerical", {"eps_grid": object()})
    assert runs.MethodSpec("Saddle_Point", {"order": 3}).label == "saddlepoint(order=3)"
    bare = runs.Run(sample_rate=0.01, steps=100)
    with pytest.raises(
        RequestError, match="exactly one of target_eps, target_delta and target_mu"
    ):
        runs.CalibrateRequest(run=bare)
    with pytest.raises(RequestError, match="target_eps needs delta"):
        runs.CalibrateRequest(run=bare, target_eps=1.0)
    with pytest.raises(RequestError, match="sigma is its answer"):
        runs.CalibrateRequest(run=DPSGD, target_mu=1.0)
    with pytest.raises(RequestError, match="order applies to edgeworth"):
        runs.CalibrateRequest(
            run=bare, target_mu=1.0, method=runs.MethodSpec("clt", {"order": 3})
        )
    error = pytest.raises(RequestError, match="sigma_range must satisfy")
    with error as info:
        runs.CalibrateRequest(run=bare, target_mu=1.0, sigma_range=(2.0, 1.0))
    assert info.value.render(_flag).startswith("--sigma-range must satisfy")


def test_the_accountant_refuses_options_in_the_option_s_name():
    spec = runs.MethodSpec("saddlepoint", {"order": 17})
    with pytest.raises(RequestError) as info:
        spec.build()
    assert info.value.fields == ("order",)
    assert "--order must be an integer in [1, 16]" in info.value.render(_flag)


# ---------------------------------------------------------------- account
def test_account_gives_the_library_s_numbers_as_records():
    request = runs.AccountRequest(
        run=DPSGD,
        deltas=(1e-5, 1e-7),
        at_eps=(1.0,),
        methods=(runs.MethodSpec("numerical"), runs.MethodSpec("clt")),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = runs.account(request)
        curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000)
    numerical, clt = result.results
    assert result.answered == result.results and result.failed == ()
    lo, hi = curve.epsilon_bounds(1e-5)
    assert numerical.epsilon_bounds == (float(lo), float(hi))
    assert numerical.guarantee == "certified" and clt.guarantee == "estimate"
    assert [a.delta for a in numerical.by_delta] == [1e-5, 1e-7]
    (at,) = numerical.at_eps
    dlo, dhi = curve.delta_bounds(1.0)
    assert at.delta_bounds == (float(dlo), float(dhi))
    assert clt.epsilon_error is not None and clt.epsilon_bounds is None
    assert numerical.mu_star_bounds is not None
    assert (
        numerical.mu_star_bounds[0] <= numerical.mu_star <= numerical.mu_star_bounds[1]
    )
    data = json.loads(json.dumps(result.as_json()))
    assert data["deltas"] == [1e-5, 1e-7] and data["pair"] == "both"
    assert [r["method"] for r in data["results"]] == ["numerical", "clt"]
    assert data["results"][0]["epsilon_bounds"] == [float(lo), float(hi)]
    assert "curve" not in data["results"][0]


def test_one_broken_method_loses_no_other_answer(monkeypatch):
    """A method that breaks (not a refusal: a bug) is that method's result; the
    others answer. Alone, its error is raised (nothing else to keep)."""
    cls = A.Contour

    def broken(self, *args, **kwargs):
        raise IndexError("index 0 is out of bounds for axis 0 with size 0")

    monkeypatch.setattr(cls, "compose_pair", broken)
    methods = tuple(runs.MethodSpec(m) for m in ("clt", "contour", "saddlepoint"))
    request = runs.AccountRequest(run=DPSGD, deltas=(1e-5,), methods=methods)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = runs.account(request)
    assert [r.method for r in result.answered] == ["clt", "saddlepoint"]
    (failed,) = result.failed
    assert failed.method == "contour" and failed.epsilon is None
    assert failed.error.startswith("IndexError: index 0 is out of bounds")
    alone = dataclasses.replace(request, methods=(runs.MethodSpec("contour"),))
    with pytest.raises(IndexError):
        runs.account(alone)


def test_a_refusal_keeps_what_was_answered_before_it():
    request = runs.AccountRequest(
        run=DPSGD, deltas=(1e-5,), methods=(runs.MethodSpec("berry-esseen"),)
    )
    (result,) = runs.account(request).results
    assert not result.answered and "no finite epsilon" in result.error
    assert result.mu_star is not None and result.by_delta == ()


def test_methods_serving_adds_exact_where_a_closed_form_exists():
    gaussian = runs.Run(mechanism="gaussian", mu=0.5, steps=4)
    assert "exact" in runs.methods_serving(gaussian)
    assert "exact" not in runs.methods_serving(DPSGD)


# ---------------------------------------------------------------- calibrate
def test_calibrate_meets_a_closed_form_target():
    request = runs.CalibrateRequest(
        run=runs.Run(mechanism="gaussian", steps=1),
        target_eps=1.0,
        delta=1e-5,
        method=runs.MethodSpec("exact"),
        rtol=1e-7,
    )
    seen: list[float] = []
    result = runs.calibrate(request, on_value=seen.append)
    assert gaussian_epsilon(1.0 / result.sigma, 1e-5) == pytest.approx(1.0, rel=1e-5)
    assert result.achieved.epsilon == pytest.approx(1.0, rel=1e-5)
    assert result.achieved.method == "exact" and seen
    data = result.as_json()
    assert data["target"] == {"kind": "eps", "value": 1.0, "delta": 1e-5, "eps": None}
    assert data["sample_rate"] == 1.0 and data["pair"] is None


def test_calibrate_steps_and_sample_rate_requests():
    # n Gaussian steps are G_{sqrt(n)/sigma}: the largest n meeting eps(1e-5) = 1
    # at sigma = 10 is floor((10 mu)^2), mu solving delta_mu(1) = 1e-5.
    mu = optimize.brentq(
        lambda m: gaussian_delta_closed(m, 1.0) - 1e-5, 0.01, 10.0, xtol=1e-15
    )
    request = runs.CalibrateRequest(
        run=runs.Run(mechanism="gaussian", sigma=10.0, steps=1),
        target_eps=1.0,
        delta=1e-5,
        solve_for="steps",
        method=runs.MethodSpec("exact"),
        rtol=1e-9,
    )
    result = runs.calibrate(request)
    assert result.steps == result.value == math.floor((10 * mu) ** 2)
    data = result.as_json()
    assert data["solve_for"] == "steps" and data["steps"] == result.steps
    assert data["search"]["certified_evaluations"] >= 1
    rate = runs.CalibrateRequest(
        run=runs.Run(sample_rate=1.0, steps=1000, sigma=1.0),
        target_delta=1e-6,
        eps=2.0,
        solve_for="sample_rate",
    )
    found = runs.calibrate(rate)
    assert found.achieved.bounds is not None
    assert 1e-6 * (1 - 1e-3) <= found.achieved.bounds[1] <= 1e-6
    assert found.achieved.published == found.achieved.bounds[1]


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"solve_for": "noise"}, "solve_for"),
        ({"solve_for": "steps"}, "needs sigma"),
        ({"target_delta": 1e-6}, "target_delta needs eps"),
        ({"target_delta": 1.5, "eps": 1.0}, r"target_delta must be \(0, 1\)"),
        ({"eps": 1.0}, "eps goes with target_delta"),
        ({"sigma_range": (0.01, 10.0)}, "sigma_range"),
    ],
)
def test_calibrate_requests_validate_the_new_fields(fields, match):
    base = {"target_eps": 1.0, "delta": 1e-5}
    if "target_delta" in fields:
        base = {}
    with pytest.raises(RequestError, match=match):
        runs.CalibrateRequest(
            run=runs.Run(sample_rate=0.01, steps=100), **{**base, **fields}
        )


def test_an_unreachable_target_names_the_range_field():
    request = runs.CalibrateRequest(
        run=runs.Run(sample_rate=0.01, steps=1000),
        target_eps=1e-3,
        delta=1e-5,
        method=runs.MethodSpec("clt"),
        sigma_range=(0.5, 20.0),
    )
    with pytest.raises(RequestError) as info:
        runs.calibrate(request)
    assert "sigma_range" in info.value.fields
    assert "--sigma-range" in info.value.render(_flag)


# ---------------------------------------------------------------- layering
def test_sweeps_and_training_never_import_the_command_line():
    code = (
        "import sys, symfdp.sweeps, symfdp.training, symfdp.runs.accounting; "
        "print(sorted(m for m in sys.modules if m.startswith('symfdp.cli')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_building_a_request_imports_no_mechanism_or_numpy():
    """A command line's mistakes are found before any heavy import."""
    code = (
        "import sys; from symfdp import runs\n"
        "try: runs.make_run('subsampled-gaussian', sigma=1, sample_rate=2, steps=3)\n"
        "except runs.RequestError: pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('numpy', "
        "'symfdp.mechanisms', 'symfdp.accountants.'))"
        " and m != 'symfdp.accountants.registry'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
