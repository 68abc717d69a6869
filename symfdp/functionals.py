r"""Moment functionals of trade-off functions and the CLT / Berry–Esseen parameters.

Dong et al. (2019), Sec. 3.2, define for a trade-off function :math:`f`

.. math::  \mathrm{kl}(f) = -\int_0^1 \log|f'|, \quad
           \kappa_2(f) = \int_0^1 \log^2|f'|, \quad
           \kappa_3(f) = \int_0^1 |\log|f'||^3, \quad
           \bar\kappa_3(f) = \int_0^1 |\log|f'| + \mathrm{kl}(f)|^3,

and :math:`\chi^2_+(f) = \int_0^1 (|f'| - 1)_+^2` (Thm 5.2, ``mixturerep``).
For :math:`f = T(P, Q)`, :math:`|f'(x)| = e^{L}` with :math:`L = \log dQ/dP`
distributed **under P**, so :math:`\mathrm{kl} = -E_P L = D_{KL}(P\|Q)`,
:math:`\kappa_2 = E_P L^2`, :math:`\kappa_3 = E_P|L|^3`,
:math:`\bar\kappa_3 = E_P|L - E_P L|^3`, :math:`\chi^2_+ = E_P[(e^L - 1)_+^2]`.

A ``pair="both"`` mechanism contributes the functionals of
:math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}` (Dong et al. Thm 4.2, eq. (14));
with the add pair's loss (Lemma G.2, G.3 with :math:`1 + pg = e^L`):

.. math::  \mathrm{kl} = E_P[(e^L - 1)L;\,L>0],\quad
           \kappa_r = E_P[(1 + e^L)|L|^r;\,L>0],\quad
           \chi^2_+ = E_P[(e^L - 1)^2;\,L>0],

and :math:`\bar\kappa_3 = E_P[|L + \mathrm{kl}|^3 + e^L|L - \mathrm{kl}|^3;\,L>0]
+ (1 - P(L>0) - Q(L>0))\,\mathrm{kl}^3`. The last term, the flat segment of
:math:`C_p f`, is missing from Dong et al.'s ``functionalGmurep`` (finding
``dong2019-kappa3bar-flat-segment``, ``derivations/functional_gmu_rep.py``).

Expectations are computed on piecewise Gauss–Legendre rules split exactly at
every kink (:func:`_pieces`), to about 1e-14."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from symfdp._validation import check_array, check_int, check_real
from symfdp.mechanisms import SubsampledGaussian
from symfdp.mechanisms._panels import Rule, fixed_panels
from symfdp.mechanisms.base import Mechanism
from symfdp.numeric.roots import monotone_bisect

FloatArray = NDArray[np.float64]

#: Berry–Esseen constant used by Dong et al. (2019), Thm 3.4/``berryrep`` [She10].
BERRY_ESSEEN_CONSTANT = 0.56


@dataclass(frozen=True)
class MomentFunctionals:
    """The five functionals of one trade-off function (Dong et al. 2019)."""

    kl: float
    kappa2: float
    kappa3: float
    kappa3_bar: float
    chi2_plus: float


def _pieces(m: Any, cuts: list[float]) -> list[Rule]:
    """Rules for the loss law under P on the intervals between sorted ``cuts``
    (:meth:`~symfdp.mechanisms.Mechanism.plrv_pieces`)."""
    return list(m.plrv_pieces(sorted(cuts)))


def _e(rule: Rule, fn: Callable[[FloatArray], FloatArray]) -> float:
    l, w = rule
    return float(w @ fn(l)) if l.size else 0.0


def _mechanism_functionals(m: Any) -> MomentFunctionals:

    mu = m.gaussian_mu()
    if mu is not None:
        # Closed forms: chi2_plus's integrand peaks at x = 2 mu, off _pieces' span.
        g = gmu_functionals(mu)
        return dataclasses.replace(g, chi2_plus=float(chi2_plus_gmu(mu)))
    both = len(m.pairs) == 2
    if not both:
        k = m.cumulants(2, "P")
        mean = float(k[0])
        rules = _pieces(m, sorted({0.0, mean}))
        k3 = sum(_e(r, lambda l: np.abs(l) ** 3) for r in rules)
        k3b = sum(_e(r, lambda l: np.abs(l - mean) ** 3) for r in rules)
        chi = sum(
            _e(r, lambda l: np.where(l > 0, np.expm1(l) ** 2, 0.0)) for r in rules
        )
        return MomentFunctionals(-mean, float(k[1] + k[0] ** 2), k3, k3b, chi)
    add = m.pairs[0]
    _, hi = _pieces(add, [0.0])
    kl_v = _e(hi, lambda l: np.expm1(l) * l)
    k2 = _e(hi, lambda l: (2 + np.expm1(l)) * l**2)
    k3 = _e(hi, lambda l: (2 + np.expm1(l)) * l**3)
    mass0 = 1.0 - _e(hi, lambda l: 2 + np.expm1(l))
    # |L - kl| has a kink at L = kl > 0: split there as well.
    _, inner, outer = _pieces(add, [0.0, kl_v])
    k3b = sum(
        _e(r, lambda l: np.abs(l + kl_v) ** 3 + np.exp(l) * np.abs(l - kl_v) ** 3)
        for r in (inner, outer)
    )
    k3b += max(mass0, 0.0) * kl_v**3  # finding: dong2019-kappa3bar-flat-segment
    chi = _e(hi, lambda l: np.expm1(l) ** 2)
    return MomentFunctionals(kl_v, k2, k3, k3b, chi)


def _fixed_point(f: Callable[[FloatArray], Any]) -> float:
    fp = getattr(f, "fixed_point", None)
    if callable(fp):
        return float(fp())
    # The fixed point of a symmetric trade-off lies in [0, 1/2], where
    # f(x) - x decreases.
    root = monotone_bisect(
        lambda x: np.asarray(f(x), dtype=np.float64) - x,
        np.zeros(1),
        0.0,
        0.5,
        xtol=1e-17,
        rtol=4e-16,
    )
    return float(root[0])


def _slope_numeric(f: Callable[[FloatArray], Any], y: FloatArray) -> FloatArray:
    r""":math:`|f'(x)|` at :math:`x = \Phi(-y)` by a 5-point stencil in :math:`y`.

    Differentiates :math:`u(y) = \log(1 - f(\Phi(-y)))` (tail-stable through the
    trade-off's ``_one_minus`` when it has one), then
    :math:`|f'| = -u'(y)\,e^{u(y)}/\varphi(y)`.
    """
    one_minus = getattr(f, "_one_minus", None)

    def u(yy: FloatArray) -> FloatArray:
        x = special.ndtr(-yy)
        if callable(one_minus):
            v = np.asarray(one_minus(x), dtype=np.float64)
        else:
            v = 1.0 - np.asarray(f(x), dtype=np.float64)
        return np.log(v)

    h = 1e-3
    du = (8 * (u(y + h) - u(y - h)) - (u(y + 2 * h) - u(y - 2 * h))) / (12 * h)
    return -du * np.exp(u(y) + 0.5 * y * y + 0.5 * math.log(2 * math.pi))


def _tradeoff_functionals(
    f: Callable[[FloatArray], Any],
    p: float | None,
    slope: Callable[[FloatArray], FloatArray] | None,
) -> MomentFunctionals:
    r"""Dong et al. (2019), Lemma G.2 (``p=None``) and Lemma G.3 (:math:`C_p(f)`),
    integrated over :math:`[0, x^*]` in :math:`y = \Phi^{-1}(1 - x)` on composite
    Gauss–Legendre panels."""
    x_star = _fixed_point(f)
    y_star = float(-special.ndtri(x_star))
    # Beyond y = 35 (x ~ 1e-268) the stencil would reach subnormal x.
    y_max = 38.0 if slope is not None else 35.0

    def rule(lo: float, hi: float) -> tuple[FloatArray, ...]:
        y, w = fixed_panels(lo, hi)
        w = w * np.exp(-0.5 * y * y) / math.sqrt(2 * math.pi)
        a = np.asarray(slope(y) if slope is not None else _slope_numeric(f, y), float)
        if not np.all(np.isfinite(a)):
            raise ValueError(
                "the numerical slope of f is not finite on [0, x*]; pass slope= "
                "(|f'| as a function of y = Phi^{-1}(1 - x))."
            )
        # log|f_p'| = log(1 + p g) with g = |f'| - 1 (log|f'| itself when p is None).
        la = np.log(a) if p is None else np.log1p(p * (a - 1))
        return y, w, a, la

    y, w, a, la = rule(y_star, y_max)
    q = 1.0 if p is None else p
    # |f_p'| = 1 + q g (Lemma G.2 for f_p on [0, x*] = Lemma G.3 for C_p(f)).
    kl_v = float(w @ (q * (a - 1) * la))
    k2 = float(w @ ((2 + q * (a - 1)) * la**2))
    k3 = float(w @ ((2 + q * (a - 1)) * la**3))
    chi = q * q * float(w @ (a - 1) ** 2)
    # kappa3_bar has a kink where log|f_p'| = kl (increasing in y): split there.
    y_kink = _monotone_crossing(y, la, kl_v)
    k3b = 0.0
    for lo, hi in ((y_star, y_kink), (y_kink, y_max)):
        if hi > lo:
            _, wk, ak, lk = rule(lo, hi)
            k3b += float(
                wk
                @ (np.abs(lk + kl_v) ** 3 + (1 + q * (ak - 1)) * np.abs(lk - kl_v) ** 3)
            )
    if p is not None:
        # The flat segment [x*, f_p(x*)] of C_p(f), where log|C_p(f)'| = 0.
        # finding: dong2019-kappa3bar-flat-segment
        k3b += (1 - p) * (1 - 2 * x_star) * kl_v**3
    return MomentFunctionals(kl_v, k2, k3, k3b, chi)


def _monotone_crossing(y: FloatArray, v: FloatArray, level: float) -> float:
    """First ``y`` where the (increasing) samples ``v`` reach ``level``, by linear
    interpolation (the quadrature is exact on either side of any split)."""
    idx = int(np.searchsorted(v, level))
    if idx <= 0:
        return float(y[0])
    if idx >= y.size:
        return float(y[-1])
    y0, y1, v0, v1 = y[idx - 1], y[idx], v[idx - 1], v[idx]
    return float(y0 + (level - v0) * (y1 - y0) / (v1 - v0)) if v1 > v0 else float(y0)


def moment_functionals(
    obj: Any,
    *,
    p: float | None = None,
    slope: Callable[[FloatArray], FloatArray] | None = None,
) -> MomentFunctionals:
    r"""kl, kappa2, kappa3, kappa3_bar and chi2_plus of a mechanism or trade-off.

    Args:
        obj: A :class:`~symfdp.mechanisms.Mechanism` (functionals of its trade-off
            function; see the module docstring for ``pair="both"``) or a symmetric
            trade-off callable ``f(alpha)`` with ``f(0) = 1``.
        p: For a trade-off callable only: return the functionals of
            :math:`C_p(f)` (Dong et al. 2019, Lemma G.3) instead of :math:`f`.
        slope: For a trade-off callable only: :math:`|f'(x)|` as a function of
            :math:`y = \Phi^{-1}(1-x)` (default: numerical differentiation).

    Returns:
        A :class:`MomentFunctionals`.
    """

    if isinstance(obj, Mechanism):
        if p is not None or slope is not None:
            raise ValueError("p and slope apply to trade-off callables only.")
        return _mechanism_functionals(obj)
    if not callable(obj):
        raise TypeError(
            f"obj must be a Mechanism or a trade-off callable. Found {obj!r}."
        )
    if p is not None:
        p = check_real("p", p, 0.0, 1.0, lo_open=True)
    return _tradeoff_functionals(obj, p, slope)


def kl(obj: Any, **kwargs: Any) -> float:
    r""":math:`\mathrm{kl}(f) = -\int_0^1 \log|f'|` (Dong et al. 2019, Sec. 3.2)."""
    return moment_functionals(obj, **kwargs).kl


def kappa2(obj: Any, **kwargs: Any) -> float:
    r""":math:`\kappa_2(f) = \int_0^1 \log^2|f'|` (Dong et al. 2019, Sec. 3.2)."""
    return moment_functionals(obj, **kwargs).kappa2


def kappa3(obj: Any, **kwargs: Any) -> float:
    r""":math:`\kappa_3(f) = \int_0^1 |\log|f'||^3` (Dong et al. 2019, Sec. 3.2)."""
    return moment_functionals(obj, **kwargs).kappa3


def kappa3_bar(obj: Any, **kwargs: Any) -> float:
    r""":math:`\bar\kappa_3(f) = \int_0^1 |\log|f'| + \mathrm{kl}(f)|^3`
    (Dong et al. 2019, Sec. 3.2)."""
    return moment_functionals(obj, **kwargs).kappa3_bar


def chi2_plus(obj: Any, **kwargs: Any) -> float:
    r""":math:`\chi^2_+(f) = \int_0^1 (|f'| - 1)_+^2` (Dong et al. 2019, Thm 5.2)."""
    return moment_functionals(obj, **kwargs).chi2_plus


_GMU_NAMES = ("kl", "kappa2", "kappa3", "kappa3_bar", "chi2_plus")


def _build_gmu_functionals(order: int) -> tuple[Any, tuple[Any, ...]]:
    """Derivation for :mod:`symfdp.numeric.compile`: the five G_mu closed forms."""
    from symfdp.symbolic.functionals import gmu_functional_exprs
    from symfdp.symbolic.symbols import mu

    exprs = gmu_functional_exprs()
    return [exprs[k] for k in _GMU_NAMES], (mu,)


@functools.cache
def _gmu_evaluator() -> Any:
    from symfdp.numeric import compile as C

    C.register_derivation(
        "gmu_functionals",
        _build_gmu_functionals,
        depends=("symfdp.symbolic.functionals",),
    )
    return C.evaluator("gmu_functionals", 0)


def gmu_functionals(mu: float) -> MomentFunctionals:
    r"""The five closed forms for :math:`G_\mu` of :mod:`symfdp.symbolic.functionals`
    (compiled and cached by :mod:`symfdp.numeric.compile`)."""
    mu = check_real("mu", mu, 0.0)
    with np.errstate(over="ignore"):  # chi2_plus = inf beyond mu = 26.6 (e^{mu^2})
        vals = np.asarray(_gmu_evaluator()(mu=mu), dtype=np.float64).reshape(-1)
    return MomentFunctionals(**dict(zip(_GMU_NAMES, map(float, vals), strict=True)))


def chi2_plus_gmu(mu: ArrayLike) -> Any:
    r""":math:`\chi^2_+(G_\mu) = e^{\mu^2}\Phi(3\mu/2) + 3\Phi(-\mu/2) - 2`, Dong et al.
    (2019), Lemma ``chirep`` (CF-D17), vectorised; for :math:`\mu < 0.1` the defining
    integral :math:`E[(e^{\mu Z - \mu^2/2} - 1)^2;\ Z > \mu/2]` by Gauss–Legendre
    (no cancellation)."""
    m = check_array("mu", mu, 0.0)
    flat = m.reshape(-1)
    with np.errstate(over="ignore"):  # inf beyond mu = 26.6 (e^{mu^2})
        out = (
            np.exp(flat * flat) * special.ndtr(1.5 * flat)
            + 3 * special.ndtr(-0.5 * flat)
            - 2
        )
    small = np.flatnonzero(flat < 0.1)
    if small.size:
        y, w = fixed_panels(0.0, 38.0)
        for idx in small:
            mm = float(flat[idx])
            z = y + mm / 2
            wz = w * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
            out[idx] = float(wz @ np.expm1(mm * z - mm * mm / 2) ** 2)
    out = out.reshape(m.shape)
    return float(out) if out.ndim == 0 else out


def noisy_sgd_mu_chi2(p: float, sigma: float, n: int) -> float:
    r"""NoisySGD CLT parameter of Dong et al. (2019), Cor. ``SGDlimitrep``
    (Thm 5.2 ``mixturerep`` with :math:`f = G_{1/\sigma}`):

    .. math::  \mu = \sqrt{2}\,c\,\sqrt{\chi^2_+(G_{1/\sigma})}, \qquad
               c = p\sqrt{n}\ (\,= m\sqrt{T}/n\ \text{in the paper}),

    the limit of :math:`C_p(G_{1/\sigma})^{\otimes n}` (each step symmetrised).
    """
    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    sigma = check_real("sigma", sigma, 0.0, math.inf, lo_open=True)
    n = check_int("n", n, lo=1)
    return p * math.sqrt(2 * n * chi2_plus_gmu(1.0 / sigma))


def noisy_sgd_mu_exp(p: float, sigma: float, n: int) -> float:
    r""":math:`\mu = p\sqrt{n(e^{1/\sigma^2} - 1)}`, the CLT limit of
    :math:`(p G_{1/\sigma} + (1-p)\mathrm{Id})^{\otimes n}` (Bu et al., used by
    Zheng et al. 2020, Sec. 5.3, and Kaissis et al. 2023, CF-Z19/CF-K6):
    :math:`e^{\mu^2} - 1 = \chi^2(N(\mu,1)\|N(0,1))`."""
    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    sigma = check_real("sigma", sigma, 0.0, math.inf, lo_open=True)
    n = check_int("n", n, lo=1)
    return p * math.sqrt(n * math.expm1(1.0 / sigma**2))


def berry_esseen_mu_gamma(
    kl_values: ArrayLike,
    kappa2_values: ArrayLike,
    kappa3_bar_values: ArrayLike,
    counts: ArrayLike | None = None,
) -> tuple[float, float]:
    r"""Dong et al. (2019), Thm 3.4 (``berryrep``), for symmetric :math:`f_1..f_n`:

    .. math::  \mu = \frac{2\|\mathrm{kl}\|_1}{\sqrt{\|\kappa_2\|_1
               - \|\mathrm{kl}\|_2^2}}, \qquad
               \gamma = \frac{0.56\,\|\bar\kappa_3\|_1}
               {(\|\kappa_2\|_1 - \|\mathrm{kl}\|_2^2)^{3/2}},

    and for :math:`\gamma < 1/2`, :math:`G_\mu(\alpha+\gamma) - \gamma \le
    f_1\otimes\cdots\otimes f_n(\alpha) \le G_\mu(\alpha-\gamma) + \gamma`.

    Args:
        kl_values, kappa2_values, kappa3_bar_values: The functionals of each
            distinct component.
        counts: How many times each component occurs (default once each).
    """
    kl_v = check_array("kl_values", kl_values, 0.0).reshape(-1)
    k2 = check_array("kappa2_values", kappa2_values, 0.0).reshape(-1)
    k3b = check_array("kappa3_bar_values", kappa3_bar_values, 0.0).reshape(-1)
    n = np.ones_like(kl_v) if counts is None else check_array("counts", counts, 0.0)
    var = float(n @ k2 - n @ kl_v**2)
    if not var > 0:
        raise ValueError(f"kappa2 - kl^2 must be positive. Found {var:g}.")
    mu = 2 * float(n @ kl_v) / math.sqrt(var)
    return mu, BERRY_ESSEEN_CONSTANT * float(n @ k3b) / var**1.5


def noisy_sgd_berry_esseen(p: float, sigma: float, n: int) -> tuple[float, float]:
    r"""Dong et al. (2019), Cor. ``SGDBerryrep``: with the functionals of
    :math:`C_p(G_{1/\sigma})`,

    .. math::  \tilde\mu = \frac{2\sqrt{n}\,\mathrm{kl}}{\sqrt{\kappa_2
               - \mathrm{kl}^2}}, \qquad \gamma = \frac{0.56}{\sqrt{n}}
               \frac{\bar\kappa_3}{(\kappa_2 - \mathrm{kl}^2)^{3/2}},

    and NoisySGD is :math:`\max\{G_{\tilde\mu}(\alpha+\gamma) - \gamma, 0\}`-DP
    (functionals with the flat-segment term, module docstring)."""

    n = check_int("n", n, lo=1)
    f = moment_functionals(SubsampledGaussian(p=p, sigma=sigma))
    return berry_esseen_mu_gamma([f.kl], [f.kappa2], [f.kappa3_bar], [n])
