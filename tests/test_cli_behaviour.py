"""How the command line behaves around the numbers: no prefix-matched options,
every answer kept when a method fails, messages in flags, status lines, and
summaries that say what REPORT.md says."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from symfdp import accountants as A
from symfdp.cli import main
from symfdp.cli.common import cli_words

DPSGD = ["--sigma", "1", "--sample-rate", "0.01", "--steps", "1000", "--delta", "1e-5"]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "argv",
    [
        ["account", "--sigma", "1", "--sample-rat", "0.01", "--steps", "10",
         "--delta", "1e-5"],
        ["account", "--sig", "1", "--sample-rate", "0.01", "--steps", "10",
         "--delta", "1e-5"],
        ["calibrate", "--target-e", "1", "--delta", "1e-5", "--sample-rate", "0.01",
         "--steps", "10"],
        ["verify", "--find"],
    ],
)  # fmt: skip
def test_no_option_is_matched_by_a_prefix(capsys, argv):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("symfdp: error: unrecognized arguments: --")


def test_messages_name_flags_not_python_knobs():
    text = (
        "Numerical: n = 1e9 compositions need at least 9e6 lattice points at step "
        "1e-3 (set by eps_rel_tol=0.001), more than max_fft_size=8388608; "
        "Numerical(eps_rel_tol=0.0025) fits; a larger max_fft_size costs about 8 "
        "bytes; or use accountants.SaddlePoint / accountants.Edgeworth, or "
        "accountants.RDP; above warn_rel_error = 0.05. Use accountants.Numerical "
        "for a certified bracket (curve.epsilon_bounds / delta_bounds)."
    )
    assert cli_words(text) == (
        "Numerical: n = 1e9 compositions need at least 9e6 lattice points at step "
        "1e-3 (set by --eps-rel-tol 0.001), more than --max-fft-size 8388608; "
        "--eps-rel-tol 0.0025 fits; a larger --max-fft-size costs about 8 bytes; "
        "or use --method saddlepoint / --method edgeworth, or --method rdp; above "
        "--warn-rel-error 0.05. Use --method numerical for a certified bracket."
    )


def test_the_numerical_options_have_flags(capsys):
    code, out, _ = _run(
        capsys, "account", *DPSGD, "--eps-rel-tol", "0.01", "--max-fft-size",
        "65536", "--json",
    )  # fmt: skip
    assert code == 0
    (row,) = json.loads(out)["results"]
    assert row["options"] == {"eps_rel_tol": 0.01, "max_fft_size": 65536}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from symfdp import mechanisms as M

        curve = A.Numerical(eps_rel_tol=0.01, max_fft_size=65536).compose(
            M.SubsampledGaussian(sigma=1.0, p=0.01), 1000
        )
    assert row["epsilon_bounds"] == [float(x) for x in curve.epsilon_bounds(1e-5)]
    code, _, err = _run(
        capsys, "account", *DPSGD, "--method", "clt", "--eps-rel-tol", "0.01"
    )
    assert code == 2 and "--eps-rel-tol applies to numerical, not clt." in err


def _broken(self, *args, **kwargs):
    raise IndexError("index 0 is out of bounds for axis 0 with size 0")


def test_method_all_keeps_every_answer_when_one_breaks(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(A.Contour, "compose_pair", _broken)
    out_png = tmp_path / "all.png"
    code, out, _ = _run(
        capsys, "account", *DPSGD, "--method", "all", "--plot", str(out_png)
    )
    assert code == 0
    names = {
        "numerical", "berry-esseen", "rdp", "auto", "clt", "contour", "edgeworth",
        "saddlepoint",
    }  # fmt: skip
    rows = {
        line.split()[0]: line
        for line in out.splitlines()
        if line and line.split()[0] in names
    }
    assert set(rows) == names
    assert rows["contour"].split()[1] == "-"
    assert "note: IndexError: index 0 is out of bounds" in out
    assert "not drawn: contour" in out and out_png.exists()
    drawn = {
        line.split(",")[1]
        for line in out_png.with_suffix(".csv").read_text().splitlines()[1:]
    }
    assert "contour" not in drawn and {"numerical", "clt", "saddlepoint"} <= drawn


def test_an_interrupt_keeps_the_answers_already_found(capsys, monkeypatch):
    from symfdp.runs import accounting

    answer = accounting.account_method

    def interrupted(spec, *args, **kwargs):
        if spec.name == "contour":
            raise KeyboardInterrupt  # (Ctrl-C while contour composes)
        return answer(spec, *args, **kwargs)

    monkeypatch.setattr(accounting, "account_method", interrupted)
    code, out, err = _run(capsys, "account", *DPSGD, "--method", "all")
    assert code == 130
    names = {"numerical", "berry-esseen", "rdp", "auto", "clt", "contour"}
    shown = {line.split()[0] for line in out.splitlines() if line.strip()} & names
    assert shown == names - {"contour"}  # the methods before it, in order
    assert err.strip().endswith(
        "symfdp: interrupted; not run: contour, edgeworth, saddlepoint"
    )


def test_the_plot_draws_what_it_can_and_says_what_it_left_out(
    capsys, monkeypatch, tmp_path
):
    from symfdp.curve import PrivacyCurve

    original = PrivacyCurve.tradeoff

    def tradeoff(self, alpha, *args, **kwargs):
        if self.method.lower() == "rdp":
            raise ValueError("RDP gives no trade-off curve here")
        return original(self, alpha, *args, **kwargs)

    monkeypatch.setattr(PrivacyCurve, "tradeoff", tradeoff)
    out_png = tmp_path / "m.png"
    code, out, _ = _run(
        capsys, "account", *DPSGD, "--method", "all", "--plot", str(out_png), "--json"
    )
    assert code == 0 and out_png.read_bytes()[:4] == b"\x89PNG"
    data = json.loads(out)
    left = {item["method"]: item["reason"] for item in data["plot_left_out"]}
    assert left == {"rdp": "RDP gives no trade-off curve here"}
    drawn = {
        line.split(",")[1]
        for line in Path(data["plot_data"]).read_text().splitlines()[1:]
    }
    assert "rdp" not in drawn and "numerical" in drawn


# ---------------------------------------------------------------- status lines
def test_verify_says_when_each_script_starts_and_what_still_runs(
    capsys, monkeypatch, tmp_path
):
    from symfdp.cli import verify

    script = tmp_path / "slow_check.py"
    script.write_text("import time\ntime.sleep(1.0)\nprint('checked')\n")
    monkeypatch.setenv("SYMFDP_PROGRESS", "1")
    monkeypatch.setattr(verify, "STILL_RUNNING_EVERY", 0.2)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "verify", str(script))
    assert code == 0 and out.startswith("PASS  slow_check")
    assert "symfdp: verify: slow_check started" in err
    assert "symfdp: verify: still running: slow_check (" in err


# ---------------------------------------------------------------- reproduce
def test_terminal_and_report_say_the_same_about_the_claims(tmp_path):
    from symfdp.reproduce import report

    claims = [{"verdict": "PASS"}] * 156 + [{"verdict": "FAIL (source)"}] * 11
    counts = report.verdict_counts(claims)
    sentence = report.verdict_summary(counts, 0)
    assert sentence.startswith("156/167 claims hold, 11 FAIL (source)")
    assert sentence.endswith("0 experiment error(s)")
    assert report.verdict_summary({"PASS": 4, "FAIL": 0, "FAIL (source)": 0}, 0) == (
        "4/4 claims hold, 0 experiment error(s)"
    )
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"git_sha": "abc"}))
    rows = [
        {"id": f"c{k}", "statement": "s", "published": "1", "ours": "1",
         "criterion": "c", "verdict": c["verdict"], "source_error": "",
         "finding": ""}
        for k, c in enumerate(claims)
    ]  # fmt: skip
    (folder / "claims.json").write_text(json.dumps(rows))
    path = report.write_report(tmp_path, ["toy"], {})
    assert f"**{sentence}.**" in path.read_text()


def test_status_lines_stay_off_a_pipe_by_default(capsys, monkeypatch):
    monkeypatch.delenv("SYMFDP_PROGRESS", raising=False)
    code, _, err = _run(capsys, "account", *DPSGD, "--method", "clt")
    assert code == 0 and "composing" not in err
    monkeypatch.setenv("SYMFDP_PROGRESS", "1")
    code, _, err = _run(capsys, "account", *DPSGD, "--method", "clt")
    assert "symfdp: account: composing 1000 steps with clt ..." in err
