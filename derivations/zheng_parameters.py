"""Zheng et al. (2020), Sec. 5.3 and App. E.2: the sampling rates of the NoisySGD runs.

The CLT of Bu et al. ([BDLS19]) for g = (p G_{1/sigma} + (1 - p) Id)^{(x)n} needs
p sqrt(n) -> nu > 0. Sec. 5.3 runs p = 0.5/n^{1/4} ("the regime that the
performance of CLT does not have theoretical guarantees") and says: "We also
investigated the case p = 0.5/n^{-1/2}, where the convergence of CLT is
guaranteed ... deferred to Appendix E.2". App. E.2 and the captions of Figs. E.1
and E.2 use p = 0.5/n^{1/2}. The script checks, exactly (SymPy):

1. p = 0.5/n^{1/4}: a probability for n >= 1, and p sqrt(n) = n^{1/4}/2 -> oo
   (outside the CLT condition, as the text says);
2. p = 0.5/n^{1/2} (App. E.2): p sqrt(n) = 1/2 = nu (the CLT condition holds);
3. the printed p = 0.5/n^{-1/2} = sqrt(n)/2 exceeds 1 for n > 4 and
   p sqrt(n) = n/2 has no finite limit: it is neither a sampling rate nor the
   CLT regime.
"""

from __future__ import annotations

import sys

import sympy as sp
from _report import Report

FINDING = "zheng2020-sec53-sampling-rate"


def main() -> int:
    report = Report("Zheng et al. (2020), Sec. 5.3 / App. E.2: sampling rates")
    n = sp.Symbol("n", positive=True, integer=True)
    half = sp.Rational(1, 2)
    main_rate = half / n ** sp.Rational(1, 4)
    appendix = half / sp.sqrt(n)
    printed = half / n ** sp.Rational(-1, 2)

    report.check(
        "p = 0.5/n^{1/4}: p <= 1/2 and p sqrt(n) = n^{1/4}/2 -> oo (no CLT guarantee)",
        sp.limit(main_rate * sp.sqrt(n), n, sp.oo) == sp.oo
        and sp.simplify(main_rate.subs(n, 1) - half) == 0,
    )
    report.check(
        "p = 0.5/n^{1/2} (App. E.2): p sqrt(n) = 1/2 for every n (CLT condition)",
        sp.simplify(appendix * sp.sqrt(n) - half) == 0,
    )
    report.show("printed p = 0.5/n^{-1/2}", sp.simplify(printed))
    first_bad = next(k for k in range(1, 100) if printed.subs(n, k) > 1)
    report.check(
        "printed p = 0.5/n^{-1/2} = sqrt(n)/2 exceeds 1 from n = 5 on",
        first_bad == 5,
        f"first n with p > 1: {first_bad}",
    )
    report.check(
        "printed p: p sqrt(n) = n/2 -> oo (not the CLT regime it is quoted for)",
        sp.simplify(printed * sp.sqrt(n) - n / 2) == 0
        and sp.limit(printed * sp.sqrt(n), n, sp.oo) == sp.oo,
    )
    report.misprint(
        FINDING,
        "Zheng et al. (2020), Sec. 5.3: the CLT regime deferred to App. E.2",
        "p = 0.5/n^{-1/2}",
        "p = 0.5/n^{1/2} (App. E.2, Figs. E.1 and E.2): p sqrt(n) = 1/2",
    )
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
