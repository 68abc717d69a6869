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

What these four kinds print is kept in the disk cache of derived results
(:func:`symfdp.numeric.disk_cache.cached_text`, under ``SYMFDP_CACHE_DIR``),
keyed by the sources of the modules that derive and print it (:data:`DEPENDS`)
and SymPy's version: a repeated command reads the text back without importing
SymPy.

``cumulants --mechanism NAME`` prints instead the exact cumulants of the privacy
loss of a built-in mechanism (gaussian, laplace, pure-dp) in its parameter, and
``cumulants --p EXPR --q EXPR [--param mu=0.7] [--support LO HI]`` those of a
user-defined pair (:func:`symfdp.mechanisms.from_densities`, variable ``x``):
derivatives of the CGF where SymPy integrates it, quadrature values otherwise.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from tokenize import TokenError
from typing import Any

from symfdp.cli.common import Lazy
from symfdp.numeric import disk_cache

KINDS = ("edgeworth", "cornish-fisher", "cumulants", "saddlepoint")
#: The modules whose source decides what ``derive`` prints for KINDS: the printed
#: text is kept in the disk cache under their digests (and the SymPy version).
DEPENDS = (
    "symfdp.cli.derive",
    "symfdp.symbolic.symbols",
    "symfdp.symbolic.hermite",
    "symfdp.symbolic.cumulants",
    "symfdp.symbolic.edgeworth",
    "symfdp.symbolic.cornish_fisher",
    "symfdp.symbolic.saddlepoint",
    "symfdp.numeric.functions",
    "symfdp.numeric.compile",
    "symfdp.accountants.saddlepoint.orders",
)
_NOTE = "lambda_r = K_r / K_2^(r/2): standardised cumulants of the sum"


def _symbolic_families() -> tuple[str, ...]:
    from symfdp.mechanisms import REGISTRY

    return tuple(n for n, c in REGISTRY.items() if hasattr(c, "cumulant_exprs"))


#: Registry families with exact cumulant expressions (``cumulant_exprs``).
MECHANISMS = Lazy(_symbolic_families)
FORMATS = ("latex", "sympy", "python")


def _order(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"order must be a non-negative integer. Found {text!r}."
        ) from None


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    p.add_argument(
        "--mechanism",
        choices=MECHANISMS,
        metavar="MECHANISM",
        help="cumulants: of the privacy loss of this built-in mechanism, one of "
        "%(choices)s",
    )
    p.add_argument("--p", help="cumulants: density of P (SymPy, in x)")
    p.add_argument("--q", help="cumulants: density of Q (SymPy, in x)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="cumulants: a parameter of --p/--q (repeatable)",
    )
    p.add_argument(
        "--support",
        nargs=2,
        metavar=("LO", "HI"),
        default=None,
        help="cumulants: support of --p/--q, reals or +-inf (default: the real line)",
    )
    p.add_argument(
        "--under", choices=("P", "Q"), default="P", help="cumulants: law of L"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    mech = getattr(args, "mechanism", None)
    user = getattr(args, "p", None) is not None or getattr(args, "q", None) is not None
    if not (mech or user):
        # The text of a derivation is kept in the disk cache: a warm run reads it
        # and imports neither SymPy nor NumPy. The order is checked when the text
        # is rendered (a stored text exists only for an order that was valid).
        kind, fmt, order = args.kind, args.fmt, args.order
        print(
            disk_cache.cached_text(
                f"derive-{kind}-{fmt}",
                order,
                lambda: _render(kind, order, fmt),
                DEPENDS,
            )
        )
        return 0
    from symfdp._validation import check_order

    order = check_order(args.order)
    if args.kind != "cumulants":
        raise ValueError("--mechanism, --p and --q go with 'derive cumulants'.")
    if mech and user:
        raise ValueError("give either --mechanism or --p/--q, not both.")
    if order < 1:
        raise ValueError("--order must be >= 1 for the cumulants of a mechanism.")
    if mech:
        lines = _mechanism_cumulants(mech, order, args.fmt, args.under)
    else:
        lines = _user_cumulants(args, order)
    print("\n".join(lines))
    return 0


def _render(kind: str, order: int, fmt: str) -> str:
    """What ``derive KIND --order J --format FMT`` prints (KINDS)."""
    from symfdp._validation import check_order

    return "\n".join(_RENDERERS[kind](kind, check_order(order), fmt))


def _title(kind: str, order: int) -> str:
    if kind == "edgeworth":
        return f"Edgeworth CDF of order {order}"
    return f"Cornish-Fisher quantile of order {order} (z = Phi^{{-1}}(u))"


def _expansion(kind: str, order: int, fmt: str) -> list[str]:
    if fmt == "python":
        return _expansion_source(kind, order)
    import sympy as sp

    if kind == "edgeworth":
        from symfdp.symbolic.edgeworth import edgeworth_cdf_expr, edgeworth_cdf_terms

        terms, full, lhs = (
            edgeworth_cdf_terms(order),
            edgeworth_cdf_expr(order),
            "F(x)",
        )
    else:
        from symfdp.symbolic.cornish_fisher import (
            cornish_fisher_expr,
            cornish_fisher_terms,
        )

        terms, full, lhs = (
            cornish_fisher_terms(order),
            cornish_fisher_expr(order),
            "x(z)",
        )
    title, note = _title(kind, order), _NOTE
    if fmt == "latex":
        lines = [f"% {title}; {note}"]
        for j, term in enumerate(terms):
            lines.append(f"% n^{{-{j}/2}}:\n{sp.latex(term)}")
        lines.append(f"{lhs} = {sp.latex(full)}")
        return lines
    lines = [f"# {title}; {note}"]
    lines += [f"# n^(-{j}/2): {sp.sstr(term)}" for j, term in enumerate(terms)]
    lines.append(sp.sstr(full))
    return lines


def _expansion_source(kind: str, order: int) -> list[str]:
    """The compiled evaluator's source (from its own disk cache: no SymPy warm)."""
    from symfdp.numeric.compile import evaluator

    name = "edgeworth_cdf" if kind == "edgeworth" else "cornish_fisher"
    header = (
        f"# {_title(kind, order)}; {_NOTE}\n"
        "# Phi = scipy.special.ndtr, phi = normal density "
        "(symfdp.numeric.compile.NUMERIC_FUNCS)"
    )
    return [header, evaluator(name, order).source.rstrip()]


def _cumulants(kind: str, order: int, fmt: str) -> list[str]:
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


def _saddlepoint(kind: str, order: int, fmt: str) -> list[str]:
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
    legend = (
        "where t is the saddle point, K = K(t), m = K'(t), v = K''(t) (the composed "
        "loss's CGF under Q and its derivatives); G_k(b) is G_k at hb = b, "
        "hw = c + b, mills = Phi(-hw)/phi(hw) on the upper side and Phi(hw)/phi(hw) "
        "on the lower side (the Mills ratio), with G_k(b) = e^(b c) Int_c^inf He_k(x) "
        "phi(x) e^(-b x) dx / phi(c) (upper; lower: Int_-inf^c, and D{k} = G_k((t+1) "
        "sqrt v) - G_k(t sqrt v)); phi, Phi: standard normal density and CDF; He_k: "
        "Hermite polynomials (Alghamdi et al. 2022, CF-S3 to CF-S7)"
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
        lines = [f"% {title}", f"% {legend}"]
        lines += [f"T_{{{j}}} = {sp.latex(e)}" for j, e in enumerate(terms, 1)]
        for side in S.SIDES:
            lines += [
                f"G^{{{side}}}_{{{k}}} = "
                f"{sp.latex(S.kernel_hermite_moment_expr(k, side))}"
                for k in ks
            ]
        return lines
    if fmt == "sympy":
        lines = [f"# {title}", f"# {legend}"]
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

    lines = [f"# {title}", f"# {legend}"]
    lines.append(
        evaluator("saddlepoint_tilted_edgeworth_coeffs", order).source.rstrip()
    )
    for side in S.SIDES:
        ev = evaluator(f"saddlepoint_kernel_hermite_{side}", kmax)
        lines.append(ev.source.rstrip())
    return lines


#: What each kind prints, as lines: ``render(kind, order, fmt)``.
_RENDERERS: dict[str, Callable[[str, int, str], list[str]]] = {
    "edgeworth": _expansion,
    "cornish-fisher": _expansion,
    "cumulants": _cumulants,
    "saddlepoint": _saddlepoint,
}


def _format_cumulants(title: str, exprs: list[Any], fmt: str) -> list[str]:
    import sympy as sp

    if fmt == "latex":
        lines = [f"% {title}"]
        lines += [f"\\kappa_{{{r}}} = {sp.latex(e)}" for r, e in enumerate(exprs, 1)]
        return lines
    if fmt == "sympy":
        lines = [f"# {title}"]
        lines += [f"# kappa{r} = {sp.sstr(e)}" for r, e in enumerate(exprs, 1)]
        lines.append(sp.sstr(list(exprs)))
        return lines
    lines = [f"# {title}"]
    lines += [f"kappa{r} = {sp.pycode(e)}" for r, e in enumerate(exprs, 1)]
    return lines


def _mechanism_cumulants(name: str, order: int, fmt: str, under: str) -> list[str]:
    from symfdp.mechanisms import REGISTRY

    cls = REGISTRY[name]
    typical = {k: 1.0 for k in cls.PARAMS}
    exprs = cls(**typical).cumulant_exprs(order, under)  # type: ignore[attr-defined]  # symbolic families
    title = (
        f"cumulants kappa_1..kappa_{order} of the privacy loss of {name} under {under}"
    )
    return _format_cumulants(title, list(exprs), fmt)


def _parse_params(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            if not sep or not name.isidentifier():
                raise ValueError
            out[name] = float(value)
        except ValueError:
            raise ValueError(
                f"--param must be NAME=VALUE with a real VALUE. Found {item!r}."
            ) from None
    return out


def _parse_support(values: list[str] | None) -> tuple[float, float]:
    if not values:
        return (-math.inf, math.inf)
    try:
        lo, hi = (float(v) for v in values)
    except ValueError:
        lo = hi = math.nan
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise ValueError(
            f"--support must be two numbers LO < HI (+-inf allowed). Found {values}."
        )
    return lo, hi


def _user_cumulants(args: argparse.Namespace, order: int) -> list[str]:
    import sympy as sp

    from symfdp.mechanisms import from_densities

    if args.p is None or args.q is None:
        raise ValueError("give both --p and --q (the densities of P and Q).")
    x = sp.Symbol("x", real=True)
    exprs = {}
    for flag, text in (("--p", args.p), ("--q", args.q)):
        try:
            exprs[flag] = sp.parse_expr(text, local_dict={"x": x})
        except (sp.SympifyError, SyntaxError, TypeError, TokenError) as exc:
            raise ValueError(f"{flag}: cannot parse {text!r} ({exc}).") from None
    support = _parse_support(args.support)
    m = from_densities(
        exprs["--p"], exprs["--q"], x, support, **_parse_params(args.param)
    )
    title = (
        f"cumulants kappa_1..kappa_{order} of L = log q/p under {args.under}, "
        f"L(x) = {sp.sstr(m.exprs['L'])}"
    )
    k = m.exprs.get("cgf")
    if k is not None:
        t = m.exprs["t"]
        at = 0 if args.under == "P" else 1
        out = [sp.simplify(sp.diff(k, t, r).subs(t, at)) for r in range(1, order + 1)]
        return _format_cumulants(title + " (closed form)", out, args.fmt)
    vals = [sp.Float(v, 15) for v in m.cumulants(order, args.under)]
    return _format_cumulants(title + " (quadrature, 1e-14)", vals, args.fmt)
