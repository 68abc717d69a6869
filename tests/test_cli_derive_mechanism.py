"""``symfdp derive cumulants --mechanism`` and ``--p/--q`` (issue 13)."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from symfdp.cli import main


def _run(capsys: pytest.CaptureFixture[str], argv: str) -> list[str]:
    assert main(argv.split()) == 0
    return capsys.readouterr().out.strip().splitlines()


def test_builtin_mechanism_cumulants(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "derive cumulants --mechanism gaussian --order 3 -f sympy")
    mu = sp.Symbol("mu", positive=True)
    got = sp.sympify(out[-1], locals={"mu": mu})
    want = [-(mu**2) / 2, mu**2, 0]
    assert [sp.simplify(g - w) for g, w in zip(got, want, strict=True)] == [0, 0, 0]


def test_user_pair_cumulants_closed_form(capsys: pytest.CaptureFixture[str]) -> None:
    argv = (
        "derive cumulants --order 3 -f sympy --p exp(-Abs(x))/2 "
        "--q exp(-Abs(x-mu))/2 --param mu=0.7"
    )
    out = _run(capsys, argv)
    assert "closed form" in out[0] and "Abs(x - 7/10)" in out[0]
    got = [float(v) for v in sp.sympify(out[-1])]
    # Laplace(0,1) vs Laplace(mu,1): kappa_1 = mu - 1 + e^{-mu} with the sign of
    # E_P[L] (Kaissis et al. 2023): -(mu - 1 + e^{-mu}).
    assert got[0] == pytest.approx(-(0.7 - 1 + math.exp(-0.7)), rel=1e-15)
