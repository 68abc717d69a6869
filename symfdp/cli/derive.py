"""`symfdp derive`: print a derived expansion as LaTeX, SymPy or Python.

``symfdp derive edgeworth|cornish-fisher|cumulants --order J --format FMT``, with
``FMT`` one of latex, sympy, python.

- ``edgeworth``: the Edgeworth CDF of order ``J`` of a standardised sum, term by
  term (term ``j`` is the :math:`n^{-j/2}` one), in ``x`` and the standardised
  cumulants ``lambda3``, ``lambda4``, ...; with ``--format sympy`` the last line
  is the full CDF ``Phi(x) - phi(x)*(...)``, parsable by ``sympy.parse_expr``.
- ``cornish-fisher``: the quantile ``x(z)`` of order ``J``, in ``z`` and the same
  lambdas (last line: the full quantile).
- ``cumulants``: the cumulants ``kappa0..kappaJ`` in the raw moments ``m1..mJ``
  (last line: the list).

- ``saddlepoint``: the correction terms T_1..T_{J-2} of ``SaddlePoint(order=J)``
  (the tilted Edgeworth terms, in the kernel's Hermite moments ``D{k}`` and the
  standardised tilted cumulants), then the closed forms of the Hermite moments
  ``G_k`` (upper and lower side) in ``hb``, ``hw``, ``mills``.

``--format python`` prints the compiled NumPy evaluator's source (edgeworth,
cornish-fisher) or Python assignments (cumulants).
"""

from __future__ import annotations

import argparse

KINDS = ("edgeworth", "cornish-fisher", "cumulants", "saddlepoint")
FORMATS = ("latex", "sympy", "python")


def _order(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"order must be a non-negative integer. Found {text!r}."
        ) from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "derive",
        help="print a derived expansion (Edgeworth, Cornish-Fisher, cumulants)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    p.add_argument("kind", choices=KINDS, help="what to derive")
    p.add_argument(
        "--order",
        "-J",
        type=_order,
        default=2,
        help="number of n^{-1/2} correction terms (cumulants: highest order)",
    )
    p.add_argument("--format", "-f", choices=FORMATS, default="latex", dest="fmt")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from symfdp._validation import check_order

    order = check_order(args.order)
    if args.kind == "cumulants":
        lines = _cumulants(order, args.fmt)
    elif args.kind == "saddlepoint":
        lines = _saddlepoint(order, args.fmt)
    else:
        lines = _expansion(args.kind, order, args.fmt)
    print("\n".join(lines))
    return 0


def _expansion(kind: str, order: int, fmt: str) -> list[str]:
    import sympy as sp

    if kind == "edgeworth":
        from symfdp.symbolic.edgeworth import edgeworth_cdf_expr, edgeworth_cdf_terms

        terms, full, lhs, name = (
            edgeworth_cdf_terms(order),
            edgeworth_cdf_expr(order),
            "F(x)",
            "edgeworth_cdf",
        )
        title = f"Edgeworth CDF of order {order}"
    else:
        from symfdp.symbolic.cornish_fisher import (
            cornish_fisher_expr,
            cornish_fisher_terms,
        )

        terms, full, lhs, name = (
            cornish_fisher_terms(order),
            cornish_fisher_expr(order),
            "x(z)",
            "cornish_fisher",
        )
        title = f"Cornish-Fisher quantile of order {order} (z = Phi^{{-1}}(u))"
    note = "lambda_r = K_r / K_2^(r/2): standardised cumulants of the sum"
    if fmt == "latex":
        lines = [f"% {title}; {note}"]
        for j, term in enumerate(terms):
            lines.append(f"% n^{{-{j}/2}}:\n{sp.latex(term)}")
        lines.append(f"{lhs} = {sp.latex(full)}")
        return lines
    if fmt == "sympy":
        lines = [f"# {title}; {note}"]
        lines += [f"# n^(-{j}/2): {sp.sstr(term)}" for j, term in enumerate(terms)]
        lines.append(sp.sstr(full))
        return lines
    from symfdp.numeric.compile import evaluator

    ev = evaluator(name, order)
    header = (
        f"# {title}; {note}\n"
        "# Phi = scipy.special.ndtr, phi = normal density "
        "(symfdp.numeric.compile.NUMERIC_FUNCS)"
    )
    return [header, ev.source.rstrip()]


def _cumulants(order: int, fmt: str) -> list[str]:
    import sympy as sp

    from symfdp.symbolic.cumulants import cumulant_from_moments_expr

    exprs = [cumulant_from_moments_expr(r) for r in range(order + 1)]
    title = f"cumulants kappa_0..kappa_{order} from raw moments m_r = E[X^r]"
    if fmt == "latex":
        lines = [f"% {title}"]
        lines += [f"\\kappa_{{{r}}} = {sp.latex(e)}" for r, e in enumerate(exprs)]
        return lines
    if fmt == "sympy":
        lines = [f"# {title}"]
        lines += [f"# kappa{r} = {sp.sstr(e)}" for r, e in enumerate(exprs)]
        lines.append(sp.sstr(list(exprs)))
        return lines
    lines = [f"# {title}"]
    lines += [f"kappa{r} = {sp.pycode(e)}" for r, e in enumerate(exprs)]
    return lines


def _saddlepoint(order: int, fmt: str) -> list[str]:
    import sympy as sp

    from symfdp.symbolic import saddlepoint as S

    if order < 3:
        return [
            f"# SaddlePoint(order={order}) has no correction terms (order 1: "
            "delta_hat_1, CF-S5; order 2: delta_hat_2, CF-S6)"
        ]
    terms = S.correction_terms_expr(order, "upper")
    kmax = S.max_hermite_degree(order)
    title = (
        f"SaddlePoint(order={order}): delta_J = e^(K - eps t) phi(c) (D0 + T1 + ... "
        f"+ T{order - 2}); lambda_r = K^(r)(t)/K''(t)^(r/2) of the tilted loss; "
        "D{k} = G_k(t sqrt v) - G_k((t+1) sqrt v) (upper side), c = (eps - m)/sqrt v"
    )
    ks = sorted(
        {
            k
            for row in S.tilted_edgeworth_coefficients(order)
            for k, c in enumerate(row)
            if c != 0
        }
        | {0}
    )
    if fmt == "latex":
        lines = [f"% {title}"]
        lines += [f"T_{{{j}}} = {sp.latex(e)}" for j, e in enumerate(terms, 1)]
        for side in S.SIDES:
            lines += [
                f"G^{{{side}}}_{{{k}}} = "
                f"{sp.latex(S.kernel_hermite_moment_expr(k, side))}"
                for k in ks
            ]
        return lines
    if fmt == "sympy":
        lines = [f"# {title}"]
        lines += [f"# T{j} = {sp.sstr(e)}" for j, e in enumerate(terms, 1)]
        for side in S.SIDES:
            lines += [
                f"# G_{side}_{k} = {sp.sstr(S.kernel_hermite_moment_expr(k, side))}"
                for k in ks
            ]
        lines.append(sp.sstr(list(terms)))
        return lines
    from symfdp.accountants.saddlepoint import orders as _orders  # noqa: F401
    from symfdp.numeric.compile import evaluator

    lines = [f"# {title}"]
    lines.append(
        evaluator("saddlepoint_tilted_edgeworth_coeffs", order).source.rstrip()
    )
    for side in S.SIDES:
        ev = evaluator(f"saddlepoint_kernel_hermite_{side}", kmax)
        lines.append(ev.source.rstrip())
    return lines
