"""Huge numbers of compositions: a right answer or a clear refusal, never a
silently wrong value (issue 12)."""

from __future__ import annotations

import math
import warnings

import pytest
from scipy.stats import norm

from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp._validation import MAX_COMPOSITIONS
from symfdp.cli import main
from symfdp.pld.compose import FFTSizeError, RoundoffRangeError
from symfdp.training import TrainingAccountant


def gaussian_delta(mu: float, eps: float) -> float:
    """Dong et al. 2019, Cor. 2.13: the profile of G_mu."""
    return float(
        norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)
    )


@pytest.mark.parametrize("n", [2**63, 10**18, MAX_COMPOSITIONS + 1])
@pytest.mark.parametrize("acc", [A.Numerical, A.SaddlePoint, A.RDP])
def test_counts_beyond_the_range_are_refused(acc, n) -> None:
    with pytest.raises(ValueError, match=r"\bn\b"):
        acc().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), n=n)


def test_a_composition_totalling_beyond_the_range_is_refused() -> None:
    m1, m2 = M.SubsampledGaussian(sigma=1.0, p=0.01), M.Gaussian(mu=0.1)
    with pytest.raises(ValueError, match=r"\bn\b must total"):
        A.SaddlePoint().compose([(m1, MAX_COMPOSITIONS), (m2, 1)])


def test_training_accountant_refuses_runs_beyond_the_range() -> None:
    acc = TrainingAccountant()
    with pytest.raises(ValueError, match="num_steps"):
        acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=10**18)
    acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=MAX_COMPOSITIONS)
    with pytest.raises(ValueError, match="num_steps"):
        acc.step(noise_multiplier=2.0, sample_rate=0.01, num_steps=1)
    assert acc.steps == MAX_COMPOSITIONS  # the refused step recorded nothing


def test_cli_refuses_steps_beyond_the_range(capsys) -> None:
    argv = ["account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "1e20"]
    argv += ["--delta", "1e-5"]
    assert main(argv) == 2
    assert "--steps" in capsys.readouterr().err


def test_numerical_refuses_n_1e12_naming_n() -> None:
    """Its FFT at the default accuracy would need ~4e8 points."""
    with pytest.raises(FFTSizeError, match=r"n = 1000000000000\b"):
        A.Numerical().compose(M.Gaussian(mu=1e-6), n=10**12)


@pytest.mark.parametrize("n", [10**13, 10**15])
def test_numerical_refuses_a_vacuous_roundoff_bound(n) -> None:
    """A coarse explicit grid keeps the FFT small; the round-off of the powers
    (up to exp(n * 5e-14)) then makes every bracket vacuous: refused, naming n."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RoundoffRangeError, match=rf"n = {n}\b"):
            A.Numerical(grid_step=0.05, max_fft_size=2**27).compose(
                M.Gaussian(mu=1 / math.sqrt(n)), n=n
            )


def test_gaussian_closed_form_in_bracket_at_n_1e9() -> None:
    """G_{1/sqrt(n)} composed n = 1e9 times is G_1 (about 1 s)."""
    n = 10**9
    curve = A.Numerical(eps_rel_tol=0.1).compose(M.Gaussian(mu=1 / math.sqrt(n)), n)
    for eps in (0.5, 1.0, 2.0):
        lo, hi = curve.delta_bounds(eps)
        assert lo <= gaussian_delta(1.0, eps) <= hi


def test_small_delta_refinement_targets_the_queried_delta() -> None:
    """SubsampledGaussian(0.6, 1e-3), n = 1e6, delta = 1e-10: the remove pair's
    plain bracket is capped only by the loss range (~1000), and tilting at its
    midpoint spent every tilt far from the answer ([32.38, 38.21]); the first
    tilt now comes from the Chernoff exponent of the queried delta."""
    curve = A.Numerical().compose(M.SubsampledGaussian(sigma=0.6, p=1e-3), 10**6)
    lo, hi = curve.epsilon_bounds(1e-10)
    assert hi - lo <= 1e-3 * hi


@pytest.mark.parametrize("n", [10**9, 10**12])
def test_huge_n_subsampled_gaussian_is_refused_fast_with_alternatives(n) -> None:
    """The lattice of SubsampledGaussian(2, 1e-5) at the default accuracy needs
    about 1.2e7 points at n = 1e9 and 3.8e8 at n = 1e12 (its length grows like
    sqrt(n / eps_rel_tol)): refused before any FFT, naming n, the methods that
    serve it and, at 1e9, the tolerance that fits."""
    with pytest.raises(FFTSizeError, match=rf"n = {n}\b") as info:
        A.Numerical().compose(M.SubsampledGaussian(sigma=2.0, p=1e-5), n=n)
    message = str(info.value)
    assert "SaddlePoint" in message and "RDP" in message
    assert ("fits" in message) == (n == 10**9)


@pytest.mark.slow
def test_a_looser_tolerance_answers_at_n_1e9() -> None:
    """n = 1e9 steps of SubsampledGaussian(2, 1e-5) at eps_rel_tol = 0.01 (a
    lattice of 3.8e6 points, about 7 s): a certified bracket of the stated
    width around the saddle-point estimate 0.6018 of eps(1e-5)."""
    curve = A.Numerical(eps_rel_tol=0.01).compose(
        M.SubsampledGaussian(sigma=2.0, p=1e-5), n=10**9
    )
    lo, hi = curve.epsilon_bounds(1e-5)
    assert lo <= 0.6018 <= hi
    assert hi - lo <= 0.01
