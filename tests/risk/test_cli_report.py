"""`symfdp account --report` and `--report-plot`: JSON, text and the figure."""

from __future__ import annotations

import json

import pytest
from scipy import special

from symfdp.cli import main
from symfdp.runs import RequestError, RiskRequest

GAUSS = [
    "account",
    "--mechanism",
    "gaussian",
    "--mu",
    "1",
    "--steps",
    "4",
    "--delta",
    "1e-5",
]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_report_brackets_the_closed_forms(capsys):
    """G_2 (four Gaussian steps of mu = 1): TPR = Phi(Phi^{-1}(a) + 2) and
    advantage 2 Phi(1) - 1, inside the printed certified brackets."""
    code, out, _ = _run(
        capsys, *GAUSS, "--method", "exact", "--report", "--fpr", "0.01", "0.2",
        "--prior", "0.3", "--kappa", "0.05", "--json",
    )  # fmt: skip
    assert code == 0
    payload = json.loads(out)
    assert payload["risk"] == {"fpr": [0.01, 0.2], "prior": 0.3, "kappa": 0.05}
    (found,) = payload["risk_reports"]
    report = found["report"]
    assert report["certified"]
    for point in report["tpr_at_fpr"]:
        exact = special.ndtr(special.ndtri(point["fpr"]) + 2.0)
        worst = point["worst"]
        assert worst["lower"] - 1e-12 <= exact <= worst["upper"] + 1e-12
        assert worst["larger_is_riskier"]
    adv = report["advantage"]
    assert adv["lower"] - 1e-12 <= 2 * special.ndtr(1.0) - 1 <= adv["upper"] + 1e-12
    assert report["bayes_risk"]["larger_is_riskier"] is False
    gdp = report["gdp"]
    assert gdp["mu"]["lower"] <= 2.0 <= gdp["mu"]["upper"]
    assert payload["results"][0]["epsilon"] is not None  # the account is kept


def test_text_report_and_plot(capsys, tmp_path):
    target = tmp_path / "risk.png"
    code, out, _ = _run(
        capsys, "account", "--sigma", "1", "--sample-rate", "0.01", "--steps", "100",
        "--delta", "1e-5", "--report-plot", str(target),
    )  # fmt: skip
    assert code == 0
    assert "risk (numerical, certified brackets):" in out
    assert "TPR at FPR 0.001 (remove)" in out and "larger is safer" in out
    assert target.stat().st_size > 10_000
    assert target.with_suffix(".csv").read_text().startswith("curve,alpha,beta\n")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--prior", "0.3"], "need --report"),
        (["--report", "--prior", "1.5"], "prior"),
        (["--report", "--kappa", "0"], "kappa"),
        (["--report", "--fpr", "2"], "fpr"),
        (["--report-plot", "out.txt"], ".png"),
    ],
)
def test_user_errors(capsys, argv, fragment):
    code, _, err = _run(capsys, *GAUSS, *argv)
    assert code == 2
    assert fragment in err


def test_request_validates():
    with pytest.raises(RequestError, match="account"):
        RiskRequest(account=None)  # type: ignore[arg-type]


def test_a_method_without_pairs_is_named_not_fatal(capsys):
    """A method whose curve cannot serve the report (Auto's answering tier
    exposes one pair, no remove direction): its report is 'none' with the
    reason, and the account still prints."""
    code, out, _ = _run(capsys, *GAUSS, "--method", "auto", "--report")
    assert code == 0
    assert "risk (auto): none: direction='remove' needs" in out
    assert "answered by" in out
