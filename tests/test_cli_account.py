"""`symfdp account` and `symfdp calibrate`: numbers, JSON, plots and user errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import pytest
from scipy import optimize, special

from symfdp import ApproximationWarning
from symfdp import accountants as A
from symfdp import mechanisms as M
from symfdp.cli import main

DPSGD = ["--sigma", "1", "--sample-rate", "0.01", "--steps", "1000", "--delta", "1e-5"]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(capsys, *argv: str) -> dict:
    code, out, _ = _run(capsys, *argv, "--json")
    assert code == 0
    return json.loads(out)


def gaussian_epsilon(mu: float, delta: float) -> float:
    """eps(delta) of G_mu from Dong et al. (2019), Cor. 2.13, solved here."""

    def profile(eps: float) -> float:
        return special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(
            -eps / mu - mu / 2
        )

    return optimize.brentq(lambda e: profile(e) - delta, 0.0, 100.0, xtol=1e-14)


def test_numerical_eps_lies_in_its_certified_bracket(capsys):
    data = _json(capsys, "account", *DPSGD, "--method", "numerical")
    (row,) = data["results"]
    lo, hi = row["epsilon_bounds"]
    assert lo <= row["epsilon"] <= hi
    assert hi - lo < 1e-3 * row["epsilon"]
    # The same bracket as the library's, computed here independently of the CLI.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = A.Numerical().compose(M.SubsampledGaussian(sigma=1.0, p=0.01), 1000)
    assert [lo, hi] == [float(x) for x in curve.epsilon_bounds(1e-5)]
    assert row["guarantee"] == "certified" and row["error"] is None
    assert data["steps"] == 1000 and data["sample_rate"] == 0.01
    assert data["pair"] == "both"


def test_text_output_shows_eps_bracket_mu_and_time(capsys):
    code, out, err = _run(capsys, "account", *DPSGD, "--method", "numerical")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("subsampled-gaussian(sigma=1, sample_rate=0.01")
    row = lines[2].split()
    assert row[0] == "numerical"
    eps, lo, hi = float(row[1]), float(row[2].strip("[,")), float(row[3].strip("]"))
    assert lo <= eps <= hi
    assert row[-1] == "ms"
    assert "mu*" in lines[1] and lines[-1].startswith("mu*:")


def test_all_methods_each_answer(capsys):
    data = _json(capsys, "account", *DPSGD, "--method", "all")
    rows = {r["method"]: r for r in data["results"]}
    # Every registered accountant but exact (no closed form here), in registry
    # order: certified, bounds, estimates.
    assert list(rows) == [
        "numerical",
        "berry-esseen",
        "rdp",
        "auto",
        "clt",
        "contour",
        "edgeworth",
        "saddlepoint",
    ]
    lo, hi = rows["numerical"]["epsilon_bounds"]
    for name in ("edgeworth", "saddlepoint", "contour", "clt", "auto"):
        assert rows[name]["epsilon"] > 0 and rows[name]["epsilon_bounds"] is None
        assert rows[name]["epsilon_error_estimate"] >= 0
        assert rows[name]["seconds"] >= 0
    assert rows["auto"]["answered_by"]
    # Contour (near-exact) lies within its estimate of the certified bracket.
    est = rows["contour"]["epsilon_error_estimate"]
    assert lo - 3 * est <= rows["contour"]["epsilon"] <= hi + 3 * est
    # Each approximation is within 10% of the certified answer here; the CLT
    # underestimates (Zheng et al. 2020, Sec. 5.3).
    for name in ("edgeworth", "saddlepoint"):
        assert abs(rows[name]["epsilon"] / hi - 1) < 0.1
    assert rows["clt"]["epsilon"] < lo
    # Berry-Esseen certifies no finite epsilon at this delta: reported, not fatal.
    assert rows["berry-esseen"]["epsilon"] is None
    assert "no finite epsilon" in rows["berry-esseen"]["error"]
    assert rows["berry-esseen"]["mu_star"] > rows["numerical"]["mu_star"]


def test_gaussian_exact_matches_closed_form(capsys):
    """4 steps of G_{0.5} are G_1: eps from Cor. 2.13 and mu* = 1."""
    data = _json(
        capsys, "account", "--mechanism", "gaussian", "--mu", "0.5", "--steps", "4",
        "--delta", "1e-5", "--method", "all",
    )  # fmt: skip
    rows = {r["method"]: r for r in data["results"]}
    assert "exact" in rows
    ref = gaussian_epsilon(1.0, 1e-5)
    assert rows["exact"]["epsilon"] == pytest.approx(ref, rel=1e-9)
    assert rows["clt"]["epsilon"] == pytest.approx(ref, rel=1e-9)
    assert rows["exact"]["mu_star"] == pytest.approx(1.0, rel=1e-12)
    lo, hi = rows["numerical"]["epsilon_bounds"]
    assert lo <= ref <= hi


def test_pure_dp_numerical_bracket_contains_exact(capsys):
    data = _json(
        capsys, "account", "--mechanism", "pure-dp", "--eps", "0.1", "--steps", "100",
        "--delta", "1e-5", "--method", "all",
    )  # fmt: skip
    rows = {r["method"]: r for r in data["results"]}
    lo, hi = rows["numerical"]["epsilon_bounds"]
    assert lo <= rows["exact"]["epsilon"] <= hi


def test_epochs_form_is_sample_rate_and_steps(capsys):
    epochs = _json(
        capsys, "account", "--sigma", "1.1", "--epochs", "3", "--dataset-size",
        "60000", "--batch-size", "256", "--delta", "1e-5", "--method", "clt",
    )  # fmt: skip
    # 3 * 60000 / 256 = 703.125 steps, rounded up.
    assert epochs["steps"] == 704
    assert epochs["sample_rate"] == 256 / 60000
    assert epochs["derived"]["batch_size"] == 256
    direct = _json(
        capsys, "account", "--sigma", "1.1", "--sample-rate", repr(256 / 60000),
        "--steps", "704", "--delta", "1e-5", "--method", "clt",
    )  # fmt: skip
    assert epochs["results"][0]["epsilon"] == direct["results"][0]["epsilon"]
    code, out, _ = _run(
        capsys, "account", "--sigma", "1.1", "--epochs", "3", "--dataset-size",
        "60000", "--batch-size", "256", "--delta", "1e-5", "--method", "clt",
    )  # fmt: skip
    assert code == 0
    assert (
        "steps = ceil(epochs*dataset_size/batch_size) = ceil(3*60000/256) = 704" in out
    )


def test_fractional_epochs_are_exact(capsys):
    # 0.1 * 1000 / 100 = 1 exactly (a float product would give 1.0000000000000002).
    data = _json(
        capsys, "account", "--sigma", "1", "--epochs", "0.1", "--dataset-size",
        "1000", "--batch-size", "100", "--delta", "1e-5", "--method", "clt",
    )  # fmt: skip
    assert data["steps"] == 1


def test_order_and_pair_reach_the_accountant(capsys):
    data = _json(capsys, "account", *DPSGD, "--method", "edgeworth", "--order", "4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = A.Edgeworth(order=4).compose(
            M.SubsampledGaussian(sigma=1.0, p=0.01), 1000
        )
    # Edgeworth order 4 estimates ~8% relative error here, above warn_rel_error.
    with pytest.warns(ApproximationWarning, match=r"Edgeworth\(order=4\).*epsilon"):
        eps_ref = float(ref.epsilon(1e-5))
    assert data["results"][0]["epsilon"] == eps_ref
    add = _json(
        capsys, "account", *DPSGD, "--method", "numerical", "--adjacency", "add"
    )
    both = _json(capsys, "account", *DPSGD, "--method", "numerical")
    assert add["pair"] == "add" and add["adjacency"] == "add"
    assert both["adjacency"] == "add_or_remove"
    assert (
        add["results"][0]["epsilon_bounds"][0]
        <= both["results"][0]["epsilon_bounds"][1]
    )


def test_pair_flag_is_deprecated(capsys):
    code, out, err = _run(
        capsys, "account", *DPSGD, "--method", "clt", "--pair", "remove", "--json"
    )
    assert code == 0 and "--pair is deprecated; use --adjacency remove" in err
    assert json.loads(out)["adjacency"] == "remove"


def test_replace_one_doubles_the_gaussian_effect_size(capsys):
    """dp-accounting's REPLACE_ONE on GaussianDpEvent(2) is G_1 (sensitivity 2C):
    4 steps are G_2, eps(delta) from Cor. 2.13."""
    argv = ("account", "-m", "gaussian", "--sigma", "2", "-n", "4", "--delta")
    data = _json(
        capsys, *argv, "1e-5", "--method", "exact", "--adjacency", "replace_one"
    )
    assert data["adjacency"] == "replace_one"
    ref = gaussian_epsilon(2.0, 1e-5)
    assert data["results"][0]["epsilon"] == pytest.approx(ref, rel=1e-9)
    # A subsampled family answers from its own replace-one pair (a mixture over
    # the replaced and the replacing record), which covers more than add/remove.
    sampled = ("account", "-m", "subsampled-laplace", "--mu", "1", "-p", "0.01",
               "-n", "10", "--delta", "1e-5", "--method", "numerical")  # fmt: skip
    replace = _json(capsys, *sampled, "--adjacency", "replace_one")
    either = _json(capsys, *sampled, "--adjacency", "add_or_remove")
    assert replace["results"][0]["epsilon"] > either["results"][0]["epsilon"]


def test_plot_writes_png_and_csv(capsys, tmp_path):
    out = tmp_path / "curves.png"
    code, text, _ = _run(
        capsys, "account", *DPSGD, "--method", "all", "--plot", str(out)
    )
    assert code == 0 and f"wrote {out}" in text
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = (tmp_path / "curves.csv").read_text().splitlines()
    assert lines[0] == "panel,method,x,y"
    methods = {line.split(",")[1] for line in lines[1:]}
    assert methods == {
        "auto",
        "edgeworth",
        "saddlepoint",
        "contour",
        "numerical",
        "clt",
        "berry-esseen",
        "rdp",
    }


USER_ERRORS = [
    (["account", *DPSGD[:-2]], "--delta"),  # missing delta
    (["account", "--sigma", "1", "--sample-rate", "1.5", "--steps", "10",
      "--delta", "1e-5"], "--sample-rate must lie in (0, 1]"),
    (["account", *DPSGD, "--epochs", "3"], "conflicts with --epochs"),
    (["account", "--sigma", "1", "--epochs", "3", "--dataset-size", "100",
      "--delta", "1e-5"], "needs --batch-size"),
    (["account", "--sigma", "1", "--epochs", "3", "--dataset-size", "100",
      "--batch-size", "10", "--steps", "3", "--delta", "1e-5"], "conflicts"),
    (["account", "--sigma", "1", "--epochs", "3", "--dataset-size", "10",
      "--batch-size", "100", "--delta", "1e-5"], "--batch-size must lie"),
    (["account", "--sigma", "1", "--sample-rate", "0.1", "--delta", "1e-5"],
     "give --steps"),
    (["account", "--sample-rate", "0.1", "--steps", "3", "--delta", "1e-5"],
     "needs --sigma or --mu"),
    (["account", "--sigma", "1", "--mu", "1", "--sample-rate", "0.1", "--steps",
      "3", "--delta", "1e-5"], "not both"),
    (["account", "--sigma", "0", "--sample-rate", "0.1", "--steps", "3",
      "--delta", "1e-5"], "--sigma must be > 0"),
    (["account", "--sigma", "one", "--sample-rate", "0.1", "--steps", "3",
      "--delta", "1e-5"], "not a number"),
    (["account", *DPSGD[:-1], "1.5"], "--delta must lie in (0, 1)"),
    (["account", "--sigma", "1", "--sample-rate", "0.1", "--steps", "2.5",
      "--delta", "1e-5"], "not an integer"),
    (["account", "--mechanism", "gaussian", "--sigma", "1", "--sample-rate",
      "0.1", "--steps", "3", "--delta", "1e-5"], "subsampled mechanisms only"),
    (["account", "--mechanism", "laplace", "--sigma", "1", "--steps", "3",
      "--delta", "1e-5"], "it takes --mu"),
    (["account", "--mechanism", "gaussian", "--mu", "1", "--steps", "3",
      "--delta", "1e-5", "--pair", "add"], "--pair applies"),
    (["account", *DPSGD, "--method", "clt", "--order", "3"], "--order applies"),
    (["account", *DPSGD, "--method", "saddlepoint", "--order", "17"],
     "--order must be an integer in [1, 16]"),
    (["account", *DPSGD, "--method", "edgeworth", "--order", "99"], "order"),
    (["account", *DPSGD, "--method", "prv"], "invalid choice"),
    (["account", *DPSGD, "--method", "berry-esseen"], "no finite epsilon"),
    (["account", *DPSGD, "--plot", "/nonexistent-dir/x.png"], "does not exist"),
    (["account", *DPSGD, "--plot", "x.txt"], ".png"),
    (["calibrate", "--target-eps", "3", "--sample-rate", "0.01", "--steps", "10"],
     "needs --delta"),
    (["calibrate", "--target-eps", "3", "--target-mu", "1", "--delta", "1e-5",
      "--sample-rate", "0.01", "--steps", "10"], "exactly one"),
    (["calibrate", "--target-eps", "-1", "--delta", "1e-5", "--sample-rate",
      "0.01", "--steps", "10"], "--target-eps must be > 0"),
    (["calibrate", "--target-eps", "1e-3", "--delta", "1e-5", "--sample-rate",
      "0.01", "--steps", "1000", "--method", "clt", "--sigma-range", "0.5", "20"],
     "--sigma-range"),
    (["calibrate", "--target-eps", "1e-3", "--delta", "1e-5", "--sample-rate",
      "0.01", "--steps", "1000", "--method", "clt", "--sigma-range", "0.01", "20"],
     "--sigma-range must satisfy 0.05 <= lo < hi <= 10000"),
    (["calibrate", "--target-eps", "3", "--delta", "1e-5", "--sample-rate",
      "0.01", "--solve-for", "steps"], "--solve-for steps needs --sigma"),
    (["calibrate", "--target-eps", "3", "--delta", "1e-5", "--sample-rate",
      "0.01", "--steps", "10", "--sigma", "1", "--solve-for", "steps"],
     "--steps is the answer of --solve-for steps"),
    (["calibrate", "--target-eps", "3", "--delta", "1e-5", "--sample-rate",
      "0.01", "--steps", "10", "--sigma", "1"], "--sigma is the answer"),
    (["calibrate", "--target-delta", "1e-6", "--sample-rate", "0.01", "--steps",
      "10"], "--target-delta needs --eps"),
    (["calibrate", "--target-delta", "2", "--eps", "1", "--sample-rate", "0.01",
      "--steps", "10"], "--target-delta must be (0, 1)"),
    (["calibrate", "--target-eps", "1", "--delta", "1e-5", "--mechanism",
      "gaussian", "--steps", "10", "--sigma", "1", "--solve-for", "sample-rate"],
     "needs a subsampled mechanism"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "fragment"), USER_ERRORS)
def test_user_errors_print_one_line_and_exit_2(capsys, argv, fragment):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("symfdp: error: ")
    assert fragment in lines[0]


def test_user_error_in_a_real_process_has_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "symfdp", "account", "--sigma", "1", "--sample-rate",
         "2", "--steps", "10", "--delta", "1e-5"],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "symfdp: error: --sample-rate must lie in (0, 1]. Found 2."
    )


# ---------------------------------------------------------------- calibrate
def test_calibrate_gaussian_reaches_the_closed_form_target(capsys):
    data = _json(
        capsys, "calibrate", "--mechanism", "gaussian", "--steps", "1",
        "--target-eps", "1", "--delta", "1e-5", "--method", "exact",
    )  # fmt: skip
    sigma = data["sigma"]
    assert gaussian_epsilon(1.0 / sigma, 1e-5) == pytest.approx(1.0, rel=1e-5)
    assert data["achieved"]["epsilon"] == pytest.approx(1.0, rel=1e-5)


def test_calibrate_default_is_certified_and_hits_the_target(capsys):
    code, out, _ = _run(
        capsys, "calibrate", "--target-eps", "2", "--delta", "1e-5",
        "--sample-rate", "0.01", "--steps", "1000",
    )  # fmt: skip
    assert code == 0
    sigma = float(out.splitlines()[1].split("=")[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = A.Numerical().compose(M.SubsampledGaussian(sigma=sigma, p=0.01), 1000)
    hi = curve.epsilon_bounds(1e-5)[1]
    # sigma is printed rounded up (safer): the upper end stays at most the
    # target, within the default rtol (1e-3) and the rounding (~1e-5).
    assert 2.0 * (1 - 1.1e-3) <= hi <= 2.0
    assert "certified bracket" in out
    assert "certified and" in out  # the search's cost is reported


def test_calibrate_mu_target(capsys):
    data = _json(
        capsys, "calibrate", "--target-mu", "0.5", "--sample-rate", "0.01",
        "--steps", "1000", "--method", "clt", "--rtol", "1e-7",
    )  # fmt: skip
    # CLT (moments) mu of the composition at the calibrated sigma.
    curve = A.CLT().compose(M.SubsampledGaussian(sigma=data["sigma"], p=0.01), 1000)
    assert curve.info["mu"] == pytest.approx(0.5, rel=1e-5)
    assert data["achieved"]["mu_star"] == pytest.approx(0.5, rel=1e-5)


def test_closed_pipe_ends_quietly():
    """``symfdp account ... | head``: the reader is gone before the command
    writes, so the write fails with EPIPE; no traceback, status 141."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "symfdp", "account", *DPSGD, "--method", "clt",
         "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away at once
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err
    assert proc.returncode == 141


# ------------------------------------------------ one vocabulary (issue 14)
def test_noise_multiplier_is_sigma_and_several_deltas(capsys):
    argv = ["--sample-rate", "0.01", "--steps", "300", "--method", "numerical"]
    by_sigma = _json(capsys, "account", "--sigma", "1.1", *argv, "--delta", "1e-5")
    data = _json(
        capsys,
        "account",
        "--noise-multiplier",
        "1.1",
        *argv,
        "--delta",
        "1e-5",
        "1e-7",
        "--delta",
        "1e-9",
    )
    (row,) = data["results"]
    assert data["deltas"] == [1e-5, 1e-7, 1e-9] and data["delta"] == 1e-5
    assert row["epsilon"] == by_sigma["results"][0]["epsilon"]
    eps = [r["epsilon"] for r in row["by_delta"]]
    assert eps[0] == row["epsilon"] and eps[0] < eps[1] < eps[2]
    for r in row["by_delta"]:
        lo, hi = r["epsilon_bounds"]
        assert lo <= r["epsilon"] <= hi
    code, out, _ = _run(
        capsys, "account", "--sigma", "1.1", *argv, "--delta", "1e-5", "1e-7"
    )
    assert code == 0 and "1e-07" in out and out.count("[") == 2


def test_delta_at_eps_of_a_gaussian(capsys):
    # G_mu with mu = 1 (4 Gaussians with mu = 0.5): Dong et al. (2019), Cor. 2.13.
    data = _json(
        capsys,
        "account",
        "--mechanism",
        "gaussian",
        "--mu",
        "0.5",
        "--steps",
        "4",
        "--at-eps",
        "0.5",
        "2",
        "--method",
        "numerical",
    )
    (row,) = data["results"]
    assert row["by_delta"] == [] and row["epsilon"] is None
    for r in row["at_eps"]:
        e = r["eps"]
        exact = special.ndtr(-e + 0.5) - math.exp(e) * special.ndtr(-e - 0.5)
        lo, hi = r["delta_bounds"]
        assert lo <= exact <= hi
        assert r["delta"] == pytest.approx(exact, rel=1e-3)
    code, out, _ = _run(
        capsys, "account", "--mechanism", "gaussian", "--mu", "1", "--steps", "1",
        "--at-eps", "1", "--method", "clt",
    )  # fmt: skip
    exact = special.ndtr(-0.5) - math.e * special.ndtr(-1.5)
    assert code == 0 and f"{exact:.4g}" in out


def test_rdp_by_name_gives_the_opacus_number(capsys):
    # Opacus 1.x RDPAccountant (improved conversion) for sigma 0.8, q = 0.01024,
    # 2,930 steps, delta 1e-5: 5.93 (quoted in issue 14).
    data = _json(
        capsys,
        "account",
        "--noise-multiplier",
        "0.8",
        "--sample-rate",
        "0.01024",
        "--steps",
        "2930",
        "--delta",
        "1e-5",
        "--method",
        "rdp",
    )
    (row,) = data["results"]
    assert round(row["epsilon"], 2) == 5.93 and row["guarantee"] == "bound"
    assert row["mu_star"] is None


def test_plot_of_several_methods_marks_the_answers(tmp_path):
    from symfdp import runs
    from symfdp.cli import plot as cp

    run = runs.Run(sigma=1.0, sample_rate=0.01, steps=1000)
    request = runs.AccountRequest(
        run=run,
        deltas=(1e-5,),
        at_eps=(1.0,),
        methods=tuple(runs.MethodSpec(m) for m in ("clt", "saddlepoint", "rdp")),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = runs.account(request)
    out = tmp_path / "methods.png"
    drawn = cp.write_plot(str(out), list(result.results), "three methods", 1e-5)
    assert out.read_bytes()[:4] == b"\x89PNG" and drawn.left_out == ()
    methods = {line.split(",")[1] for line in open(drawn.data).read().splitlines()[1:]}
    assert methods == {"clt", "saddlepoint", "rdp"}
    styles = [cp.PLOT_STYLES[k] for k in range(3)]
    assert len({s for s, _ in styles}) == 3 and len({m for _, m in styles}) == 3
