"""Zheng et al. (2020), Figure E.1: the estimation of g = (p G_1 + (1-p) Id)^n with
p = 0.5/n^{1/2} (before symmetrisation), four panels.

Appendix E: with p sqrt(n) = 0.5 the CLT of Bu et al. applies (g -> G_mu,
mu = p sqrt(n (e^{1/sigma^2} - 1))), "however, we still observe that Edgeworth
outperforms CLT".
"""

from __future__ import annotations

from typing import Any

import _zheng
import matplotlib.pyplot as plt

from symfdp.reproduce import Result, Spec

SPEC = Spec(
    id="zheng2020-figE.1",
    title="g = (p G_1 + (1-p) Id)^n, p = 0.5/sqrt(n): Numerical, Edgeworth, CLT",
    source="Zheng et al. (2020), Fig. E.1 and App. E",
    params={
        "ns": [1, 10, 100, 500],
        "sigma": 1.0,
        "p0": 0.5,
        "p_power": 0.5,
        "n_alpha": 100,
        "alpha_min": 1e-7,
    },
    quick={},
    notes=(
        "The four n are not stated; n = 1, 10, 100, 500 (the range 1-500 of Sec. 5.3) "
        "are drawn.",
        "p = 0.5/sqrt(n), sigma = 1, pair='add' (Lemma C.1); raw (asymmetric) g, "
        "PrivacyCurve.tradeoff(alpha, symmetric=False). CLT is G_mu with "
        "mu = p sqrt(n (e^{1/sigma^2} - 1)) = 0.5 sqrt(e - 1) for every n "
        "(A.CLT(form='exp')). Numerical is the certified FFT accountant.",
        "alpha grid linspace(1e-7, 1 - 1e-7, 100) as in the authors' code.",
        "'Outperforms' is read as: both the sup and the mean over alpha of "
        "|EW - Num| are smaller than those of |CLT - Num|, in every panel.",
    ),
)


def compute(params: dict[str, Any]) -> Result:
    return _zheng.appendix_e_result(params, symmetric=False)


def plot(tables: dict[str, Any], params: dict[str, Any]) -> plt.Figure:
    return _zheng.appendix_e_figure(tables["data"], params, symmetric=False)
