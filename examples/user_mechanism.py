"""Bring your own mechanism: densities in SymPy, every accountant on it.

1. The Laplace mechanism written by hand: symfdp finds the atoms of its privacy
   loss, SymPy integrates its CGF, the cumulants are derived symbolically and
   checked against 30-digit quadrature (mpmath) and the built-in Laplace.
2. A generalised Gaussian location pair, p(x) ~ exp(-|x|^1.5), shift 0.5: no
   built-in, no closed form; every accountant serves it (Numerical certified).
3. P = N(0, 1), Q = N(0, 4): the privacy loss is quadratic, its CGF is finite
   only for t < 4/3 under P; the saddle-point method refuses with the domain,
   Numerical and Edgeworth serve it.

Run: ``python examples/user_mechanism.py`` (about 10 seconds).
"""

from __future__ import annotations

import warnings

import mpmath
import sympy as sp

from symfdp import accountants as A
from symfdp import mechanisms as M

DELTA = 1e-5
x, mu = sp.symbols("x mu", real=True)


def laplace_by_hand() -> None:
    print("1. Laplace written by hand: p = exp(-|x|)/2, q = exp(-|x - mu|)/2")
    lap = M.from_densities(
        sp.exp(-sp.Abs(x)) / 2, sp.exp(-sp.Abs(x - mu)) / 2, x, mu=0.7, symmetric=True
    )
    for piece in lap.pieces:
        kind = f"atom L = {piece.value:g}" if piece.slope == 0 else "L increasing"
        print(f"   x in ({piece.a:g}, {piece.b:g}): {kind}")
    k, t = lap.exprs["cgf"], lap.exprs["t"]
    print(f"   K_P(t) = {sp.sstr(sp.simplify(k))}")
    # Symbolic cumulants: derivatives of the closed-form CGF at t = 0.
    exact = [sp.simplify(sp.diff(k, t, r).subs(t, 0)) for r in range(1, 5)]
    # Independent check: E_P[L^r] by 30-digit quadrature on the three pieces.
    mpmath.mp.dps = 30
    m7 = mpmath.mpf(7) / 10

    def moment(r: int) -> mpmath.mpf:
        left = (-m7) ** r / 2
        right = m7**r * mpmath.exp(-m7) / 2
        mid = mpmath.quad(lambda v: (2 * v - m7) ** r * mpmath.exp(-v) / 2, [0, m7])
        return left + mid + right

    m = [moment(r) for r in range(1, 5)]
    quad = [m[0], m[1] - m[0] ** 2]
    quad.append(m[2] - 3 * m[1] * m[0] + 2 * m[0] ** 3)
    quad.append(
        m[3] - 4 * m[2] * m[0] - 3 * m[1] ** 2 + 12 * m[1] * m[0] ** 2 - 6 * m[0] ** 4
    )
    builtin = M.Laplace(mu=0.7).cumulants(4)
    worst = 0.0
    for r, (e, q, b) in enumerate(zip(exact, quad, builtin, strict=True), start=1):
        diff = abs(sp.N(e, 30) - sp.Float(str(q), 30))
        worst = max(worst, float(diff))
        print(f"   kappa_{r} = {sp.sstr(e)}")
        print(f"           = {sp.N(e, 25)}  (|SymPy - quadrature| = {float(diff):.1e},")
        print(
            f"             |float - built-in| = {abs(lap.cumulants(4)[r - 1] - b):.1e})"
        )
    if worst > 1e-25:
        raise SystemExit("symbolic cumulants disagree with 30-digit quadrature")
    lo, hi = A.Numerical().compose(lap, 10).epsilon_bounds(DELTA)
    blo, bhi = A.Numerical().compose(M.Laplace(mu=0.7), 10).epsilon_bounds(DELTA)
    print(f"   n = 10, delta = {DELTA:g}: epsilon in [{lo:.6f}, {hi:.6f}]")
    print(f"   built-in Laplace:           epsilon in [{blo:.6f}, {bhi:.6f}]")


def generalised_gaussian() -> None:
    print("\n2. Generalised Gaussian, p(x) ~ exp(-|x|^1.5), location mu = 0.5")

    def dens(m: object) -> sp.Expr:
        return sp.exp(-(sp.Abs(x - m) ** sp.Rational(3, 2))) / (
            2 * sp.gamma(sp.Rational(5, 3))
        )

    gg = M.from_densities(dens(0), dens(mu), x, mu=0.5, symmetric=True, budget=0)
    print(f"   cumulants under P: {gg.cumulants(4)}")
    n = 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # approximations warn about their errors
        lo, hi = A.Numerical().compose(gg, n).epsilon_bounds(DELTA)
        print(
            f"   n = {n}, delta = {DELTA:g}: certified epsilon in [{lo:.5f}, {hi:.5f}]"
        )
        for acc in (A.CLT(), A.Edgeworth(order=2), A.SaddlePoint(order=2)):
            print(
                f"   {acc.method:14s} epsilon = {acc.compose(gg, n).epsilon(DELTA):.5f}"
            )


def variance_pair() -> None:
    print("\n3. P = N(0, 1), Q = N(0, 4): L = 3x^2/8 - log 2")
    phi = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)
    wide = sp.exp(-(x**2) / 8) / sp.sqrt(8 * sp.pi)
    m = M.from_densities(phi, wide, x, name="N(0,1) vs N(0,4)")
    print(f"   CGF domain under P: t in {m.cgf_domain()}")
    try:
        A.SaddlePoint().compose(m, 5).delta(1.0)
    except M.CGFDomainError as exc:
        print(f"   SaddlePoint refuses: {exc}")
    lo, hi = A.Numerical().compose(m, 5).delta_bounds(1.0)
    print(f"   Numerical, n = 5: delta(1) in [{lo:.6f}, {hi:.6f}]")


def main() -> None:
    laplace_by_hand()
    generalised_gaussian()
    variance_pair()


if __name__ == "__main__":
    main()
