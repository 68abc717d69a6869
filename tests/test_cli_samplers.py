"""`symfdp account --sampler`: one statement per sampler, and the comparison
table, from the same run; the names the command line offers are the records'."""

from __future__ import annotations

import json
import math

import pytest

from symfdp import samplers as S
from symfdp.cli import main
from symfdp.runs import catalog

RUN = ["--sigma", "1", "--epochs", "1", "--dataset-size", "400", "--batch-size", "8"]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_source_listing_equals_the_imported_registry() -> None:
    assert catalog.sampler_names() == S.sampler_names()


def test_all_rows_carry_their_guarantee_and_bounds(capsys) -> None:
    code, out, _ = _run(
        capsys, "account", *RUN, "--delta", "1e-5", "--sampler", "all",
        "--max-batch", "12", "--cycle-length", "2", "--json",
    )  # fmt: skip
    assert code == 0
    rows = {r["sampler"]: r for r in json.loads(out)["samplers"]}
    assert set(rows) == set(S.sampler_names())
    assert all(r["error"] is None for r in rows.values())
    for name, r in rows.items():
        (lo, hi), (eps,) = r["epsilon_bounds"][0], r["epsilon"]
        if r["guarantee"] == "upper bound":
            assert lo == 0.0 and hi == eps, name
        elif r["guarantee"] == "lower bound":
            assert hi == math.inf and lo == eps, name
        else:
            assert lo <= eps <= hi, name
    assert rows["shuffle"]["guarantee"] == "lower bound"
    assert "Poisson numbers do not hold" in rows["shuffle"]["statement"]
    # The same run through the ordinary path gives Poisson's bracket (the
    # subsampled-Gaussian family against Poisson subsampling of a Gaussian:
    # two implementations of one law, equal to round-off).
    code, out, _ = _run(capsys, "account", *RUN, "--delta", "1e-5", "--json")
    plain = json.loads(out)["results"][0]["epsilon_bounds"]
    assert rows["poisson"]["epsilon_bounds"][0] == pytest.approx(plain, rel=1e-9)


def test_one_sampler_prints_one_sided_marks(capsys) -> None:
    code, out, _ = _run(
        capsys, "account", *RUN, "--delta", "1e-5", "--sampler", "shuffle"
    )
    assert code == 0
    assert ">= " in out and "lower bound" in out
    assert "Poisson numbers do not hold" in out
    code, out, _ = _run(
        capsys, "account", *RUN, "--delta", "1e-5", "--sampler", "fixed-batch"
    )
    assert "<= " in out and "upper bound" in out and "replace-one" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--sigma", "1", "--sample-rate", "0.01", "--steps", "100", "--delta",
          "1e-5", "--sampler", "shuffle"], "batch_size and dataset_size"),
        ([*RUN, "--at-eps", "1", "--sampler", "all"], "--delta only"),
        ([*RUN, "--delta", "1e-5", "--sampler", "shuffle", "--method", "clt"],
         "certified accountant"),
        ([*RUN, "--delta", "1e-5", "--max-batch", "3"], "--max-batch"),
        ([*RUN, "--delta", "1e-5", "--sampler", "cyclic-poisson"], "cycle_length"),
        ([*RUN, "--delta", "1e-5", "--sampler", "reservoir"], "invalid choice"),
        ([*RUN, "--delta", "1e-5", "--sampler", "random-allocation",
          "--adjacency", "add"], "adjacency"),
    ],
)  # fmt: skip
def test_user_errors_name_the_flag(capsys, argv, fragment) -> None:
    code, out, err = _run(capsys, "account", *argv)
    assert code == 2
    assert out == ""
    assert fragment in err
