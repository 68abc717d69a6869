"""Check a closed form of your own with ``symfdp verify``.

A check script prints what it checked, prints ``[MISPRINT] ...`` for a formula of a
source that does not hold as printed, and exits non-zero when a check fails;
``symfdp verify PATH...`` runs such scripts (yours or the package's
``derivations/``) and reports PASS/FAIL per script in one format.

This one checks two closed forms for the Gaussian mechanism:

1. SymPy: the privacy loss of N(0,1) vs N(mu,1) is L = mu x - mu^2/2 with
   E_P[L] = -mu^2/2 and Var L = mu^2, so its cumulants of order >= 3 vanish
   (every Edgeworth correction is zero): derived here from the log-MGF.
2. Numbers: the privacy profile of G_mu (Dong et al. 2019, Cor. 2.13),
   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
   lies inside symfdp's certified bracket for 4 composed Gaussians with mu = 0.5
   (GDP composition: mu = sqrt(4) * 0.5 = 1).

Run: ``python examples/verify_closed_form.py`` or
``symfdp verify examples/verify_closed_form.py`` (a few seconds).
"""

from __future__ import annotations

import sys

import numpy as np
import sympy as sp
from scipy import special

from symfdp import accountants as A
from symfdp import mechanisms as M

failures: list[str] = []


def check(label: str, ok: bool, detail: str = "") -> None:
    print(f"[{'ok  ' if ok else 'FAIL'}] {label}" + (f" -- {detail}" if detail else ""))
    if not ok:
        failures.append(label)


# 1. Cumulants of the Gaussian privacy loss under P = N(0, 1), from the log-MGF
#    log E[exp(t L)] with L = mu X - mu^2/2, X ~ N(0, 1).
t, mu = sp.symbols("t mu", positive=True)
log_mgf = sp.expand(t * (-(mu**2) / 2) + (t * mu) ** 2 / 2)
kappa = [sp.simplify(sp.diff(log_mgf, t, r).subs(t, 0)) for r in range(1, 6)]
print("cumulants of L under P:", kappa)
check("kappa_1 = -mu^2/2", sp.simplify(kappa[0] + mu**2 / 2) == 0)
check("kappa_2 = mu^2", sp.simplify(kappa[1] - mu**2) == 0)
check("kappa_r = 0 for r = 3..5", all(k == 0 for k in kappa[2:]))

# 2. The closed-form profile of G_1 against the certified bracket.
eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
closed = special.ndtr(-eps + 0.5) - np.exp(eps) * special.ndtr(-eps - 0.5)
curve = A.Numerical().compose(M.Gaussian(mu=0.5), 4)
lo, hi = curve.delta_bounds(eps)
for e, d, a, b in zip(eps, closed, lo, hi, strict=True):
    check(f"delta({e:g}) = {d:.6g} in [{a:.6g}, {b:.6g}]", a <= d <= b)

print(f"{'all checks hold' if not failures else f'{len(failures)} check(s) failed'}")
sys.exit(1 if failures else 0)
