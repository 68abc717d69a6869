r"""The ReRo bound :math:`\gamma = 1 - f(\kappa)` from any trade-off description.

Kaissis et al. (2023), Theorem 1: if a mechanism is :math:`f`-DP for its *add
one* dominating pair, it is :math:`(\eta, 1 - f(\kappa(\eta)))`-ReRo, and if it
is :math:`(\varepsilon, \delta)`-DP it is :math:`(\eta, \min\{e^\varepsilon
\kappa(\eta) + \delta, 1\})`-ReRo. ReRo concerns the add-one relation only, so
the raw add-pair trade-off is used (Sec. 2; Fig. 1f); ``symmetric=True`` gives
the paper's symmetrised variant :math:`\min\{f, f^{-1}\}^{**}` (Fig. 1e).

A :class:`~symfdp.curve.PrivacyCurve` holds its pairs in the order of the
mechanisms' ``pairs``, so its first pair is the add pair for ``pair="add"``
and ``pair="both"``; a ``pair="remove"`` curve gives the remove relation's
value. :func:`add_pair_curve` composes the add pair whatever the ``pair``."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from symfdp import accountants as A
from symfdp import tradeoff as T
from symfdp._validation import (
    check_array,
    check_bool,
    check_instance,
    scalar_or_array,
)
from symfdp._warnings import warn_approximation
from symfdp.accountants.base import normalize_composition
from symfdp.curve import PrivacyCurve, Query
from symfdp.curve.report import worst_relative_error
from symfdp.mechanisms.base import Mechanism
from symfdp.tradeoff import TradeOff

FloatArray = NDArray[np.float64]

#: What :func:`gamma` accepts besides a PrivacyCurve.
Source = Any


def _check_kappa(kappa: ArrayLike) -> FloatArray:
    return check_array("kappa", kappa, 0.0, 1.0, lo_open=True, hi_open=True)


def _finite(values: Any, what: str) -> FloatArray:
    out = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{what} returned a non-finite value (NaN or inf).")
    return out


def _with_relation(m: Mechanism, relation: str) -> Mechanism:
    """``m`` for a single step: the add pair of a ``pair="both"`` subsampled
    mechanism (``relation="add"``), or the symmetrised pair (``relation="both"``)."""
    pair = getattr(m, "pair", None)
    if pair is None or m.is_symmetric:
        return m
    if relation == "both" or pair == "both":
        return m.with_pair(relation)  # type: ignore[attr-defined, no-any-return]  # subsampled (pair set)
    return m


def _curve_gamma(
    curve: PrivacyCurve, k: FloatArray, symmetric: bool
) -> tuple[FloatArray, FloatArray | None]:
    """``(gamma, its error estimate or None)`` at ``k`` from a curve's raw pair
    answers (the estimate is the trade-off's, :meth:`PrivacyCurve.tradeoff_error`
    for the symmetrised curve)."""
    flat = k.ravel()
    answers = curve.pair_answers(Query.TRADEOFF, flat, first_only=not symmetric)
    raw = [1.0 - np.clip(found.values, 0.0, 1.0 - flat) for found in answers]
    errors = [found.errors for found in answers]
    if not symmetric or curve.symmetric:
        out = raw[0]
    else:
        # The symmetrised curve is below every raw curve; the maximum repairs
        # its grid interpolation's chord error.
        sym = 1.0 - np.asarray(curve.tradeoff(flat, symmetric=True), np.float64)
        out = np.max([sym, *raw], axis=0)
        try:
            errors.append(np.asarray(curve.tradeoff_error(flat), np.float64))
        except NotImplementedError:
            errors.append(None)
    given = [e for e in errors if e is not None]
    err = np.max(given, axis=0) if len(given) == len(errors) else None
    out = _finite(out, curve.method).reshape(k.shape)
    return out, None if err is None else err.reshape(k.shape)


def _warn_gamma_error(
    curve: PrivacyCurve, k: FloatArray, value: FloatArray, err: FloatArray | None
) -> None:
    """One ApproximationWarning when the estimated error of gamma exceeds the
    curve's ``warn_rel_error`` of the answer somewhere."""
    tol = curve.warn_rel_error
    if err is None or tol is None or curve.certified or err.size == 0:
        return
    i, worst = worst_relative_error(value.ravel(), err.ravel(), _GAMMA_ATOL)
    if not worst > tol:
        return
    size = "unknown" if math.isinf(worst) else f"{100 * worst:.3g}%"
    warn_approximation(
        f"{curve.label}: the estimated relative error of ReRo gamma = 1 - f(kappa) "
        f"is {size} at kappa = {float(k.ravel()[i]):.6g} (gamma "
        f"{float(value.ravel()[i]):.6g}, estimated error {float(err.ravel()[i]):.3g}"
        f"), above warn_rel_error = {tol:g}. rero.gamma_bounds of an "
        "accountants.Numerical curve gives a certified bracket."
    )


#: Errors of gamma below this are round-off (never warned about).
_GAMMA_ATOL = 1e-12


def gamma_error(
    curve: PrivacyCurve, kappa: ArrayLike, *, symmetric: bool = False
) -> Any:
    r"""Estimated absolute error of :func:`gamma` of ``curve`` at ``kappa``: the
    trade-off's error estimate at :math:`\kappa` (:meth:`PrivacyCurve.
    tradeoff_error`, carried from the profile's through the duality, Dong et
    al. 2019, Prop. 2.12), or the half-width of :func:`gamma_bounds` for a
    certified curve.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve.
        ValueError: ``kappa`` outside (0, 1).
        NotImplementedError: the method estimates no error (BerryEsseen, RDP).
    """
    if not isinstance(curve, PrivacyCurve):
        raise TypeError(f"curve must be a PrivacyCurve. Found {type(curve).__name__}.")
    k = _check_kappa(kappa)
    symmetric = check_bool("symmetric", symmetric)
    if curve.certified:
        lo, hi = gamma_bounds(curve, k, symmetric=symmetric)
        return scalar_or_array(0.5 * (np.asarray(hi) - np.asarray(lo)))
    _, err = _curve_gamma(curve, k, symmetric)
    if err is None:
        raise NotImplementedError(
            f"gamma_error: {curve.label} gives no error estimate. rero.gamma_bounds "
            "of an accountants.Numerical curve gives a certified bracket."
        )
    return scalar_or_array(err)


def _tradeoff_gamma(f: Any, k: FloatArray, symmetric: bool) -> FloatArray:

    if symmetric:
        f = T.symmetrize(f)
    flat = k.ravel()
    one_minus = getattr(f, "_one_minus", None)
    if one_minus is not None:
        # Tail-stable 1 - f where the trade-off has one (e.g. G_mu at tiny kappa).
        out = np.asarray(one_minus(flat), dtype=np.float64)
    else:  # pragma: no cover - every TradeOff has _one_minus
        out = 1.0 - np.asarray(f(flat), dtype=np.float64)
    return _finite(out, type(f).__name__).reshape(k.shape)


def gamma(source: Source, kappa: ArrayLike, *, symmetric: bool = False) -> Any:
    r"""The ReRo bound :math:`\gamma = 1 - f(\kappa)` (Kaissis et al. 2023, Thm 1).

    Args:
        source: One of

            * a :class:`~symfdp.curve.PrivacyCurve` from any accountant: the
              raw trade-off of its first pair (module docstring);
            * a :class:`~symfdp.tradeoff.TradeOff` (e.g. ``T.Gaussian(mu)``),
              evaluated in its tail-stable form :math:`1 - f`;
            * a :class:`~symfdp.mechanisms.Mechanism` (one step) with a closed-form
              trade-off; a subsampled mechanism with ``pair="both"`` uses its add
              pair (with ``symmetric=True``, its symmetrised curve);
            * any callable ``alpha -> beta`` (vectorised over ``alpha``).
        kappa: Prior(s) :math:`\kappa \in (0, 1)`, scalar or array.
        symmetric: Use the symmetrised, convexified curve
            :math:`\min\{f, f^{-1}\}^{**}` (over both pairs of a ``"both"``
            curve) instead of the add pair, as in the paper's Fig. 1e. The
            result is never below the raw add-pair value.

    Returns:
        :math:`\gamma \in [\kappa, 1]` with the shape of ``kappa`` (a float for a
        scalar). Values of an approximate curve above :math:`1 - \alpha` are
        clipped to it (so :math:`\gamma \ge \kappa`).

    Raises:
        ValueError: ``kappa`` outside (0, 1), or the source returns NaN/inf.
        TypeError: ``source`` is none of the above.

    Example:
        >>> from symfdp import tradeoff as T
        >>> round(gamma(T.Gaussian(1.0), 0.1), 6)
        0.389144
    """

    k = _check_kappa(kappa)
    symmetric = check_bool("symmetric", symmetric)
    if isinstance(source, PrivacyCurve):
        out, err = _curve_gamma(source, k, symmetric)
        _warn_gamma_error(source, k, out, err)
    elif isinstance(source, TradeOff):
        out = _tradeoff_gamma(source, k, symmetric)
    elif isinstance(source, Mechanism):
        m = _with_relation(source, "both" if symmetric else "add")
        beta = _finite(m.tradeoff(k.ravel()), type(m).__name__).reshape(k.shape)
        out = 1.0 - np.clip(beta, 0.0, 1.0 - k)
    elif callable(source):
        if symmetric:
            raise ValueError(
                "symmetric=True needs a PrivacyCurve, a TradeOff or a Mechanism (a "
                "plain callable has no inverse); wrap it in symfdp.tradeoff.Tabulated."
            )
        beta = _finite(source(k), "source (the trade-off callable)")
        beta = np.broadcast_to(beta, k.shape)
        out = 1.0 - np.clip(beta, 0.0, 1.0 - k)
    else:
        raise TypeError(
            "source must be a PrivacyCurve, a TradeOff, a Mechanism or a callable "
            f"alpha -> beta. Found {type(source).__name__}."
        )
    return scalar_or_array(np.clip(out, k, 1.0))


def gamma_bounds(
    curve: PrivacyCurve, kappa: ArrayLike, *, symmetric: bool = False
) -> tuple[Any, Any]:
    r"""Certified ``(lower, upper)`` bounds on :math:`\gamma = 1 - f(\kappa)`.

    From the certified trade-off bracket of a ``Numerical`` or ``Exact`` curve:
    :math:`\gamma_{lo} = 1 - f_{hi}(\kappa)`, :math:`\gamma_{hi} = 1 -
    f_{lo}(\kappa)`, for the raw add pair or, with ``symmetric=True``, for
    ``curve.tradeoff_bounds``.

    Raises:
        TypeError: ``curve`` is not a PrivacyCurve.
        NotImplementedError: the curve is not certified.
        ValueError: ``kappa`` outside (0, 1).
    """
    if not isinstance(curve, PrivacyCurve):
        raise TypeError(f"curve must be a PrivacyCurve. Found {type(curve).__name__}.")
    if not curve.certified:
        raise NotImplementedError(
            f"gamma_bounds needs a certified curve; {curve.method} gives an "
            "approximation. Use accountants.Numerical() or accountants.Exact()."
        )
    k = _check_kappa(kappa)
    symmetric = check_bool("symmetric", symmetric)
    flat = k.ravel()
    raw_lo = []
    raw_hi = []
    for found in curve.pair_answers(Query.TRADEOFF, flat, first_only=not symmetric):
        f_lo, f_hi = found.bracket()
        raw_lo.append(1.0 - np.clip(f_hi, 0.0, 1.0 - flat))
        raw_hi.append(1.0 - np.clip(f_lo, 0.0, 1.0 - flat))
    lo, hi = np.max(raw_lo, axis=0), np.max(raw_hi, axis=0)
    if symmetric and not curve.symmetric:
        f_lo, f_hi = curve.tradeoff_bounds(flat)
        lo = np.maximum(lo, 1.0 - np.asarray(f_hi, np.float64))
        hi = np.maximum(hi, 1.0 - np.asarray(f_lo, np.float64))
    lo = np.clip(_finite(lo, curve.method), flat, 1.0)
    hi = np.clip(_finite(hi, curve.method), lo, 1.0)
    return scalar_or_array(lo.reshape(k.shape)), scalar_or_array(hi.reshape(k.shape))


def gamma_from_eps_delta(eps: ArrayLike, delta: ArrayLike, kappa: ArrayLike) -> Any:
    r"""The :math:`(\varepsilon, \delta)` route: :math:`\gamma \le
    \min\{e^\varepsilon\kappa + \delta, 1\}` (Kaissis et al. 2023, Thm 1),
    broadcast, in log space.

    Args:
        eps: :math:`\varepsilon \ge 0` (``inf`` allowed: the bound is 1).
        delta: :math:`\delta \in [0, 1]`.
        kappa: Prior :math:`\kappa \in (0, 1)`.

    Example:
        >>> round(gamma_from_eps_delta(1.0, 1e-5, 0.1), 6)
        0.271838
    """
    e = check_array("eps", eps, 0.0, math.inf, allow_inf=True)
    d = check_array("delta", delta, 0.0, 1.0)
    k = _check_kappa(kappa)
    e, d, k = np.broadcast_arrays(e, d, k)
    log_term = np.minimum(e + np.log(k), 0.0)
    return scalar_or_array(np.minimum(np.exp(log_term) + d, 1.0))


def add_pair_curve(
    mechanism: Mechanism | Sequence[tuple[Mechanism, int]],
    n: int | None = None,
    accountant: Any = None,
) -> PrivacyCurve:
    r"""Compose the *add one* pair of ``mechanism`` (Kaissis et al. 2023, Cor. 3).

    Subsampled mechanisms are switched to ``pair="add"`` (:math:`(N(0,\sigma^2),
    (1-p)N(0,\sigma^2) + pN(\Delta_2,\sigma^2))` for the SGM, Remark 1);
    symmetric mechanisms are unchanged.

    Args:
        mechanism: A mechanism (with ``n``) or a list of ``(mechanism, n_i)``.
        n: Number of compositions for a single mechanism.
        accountant: Any accountant; ``None`` uses ``Numerical()`` (certified).
            The paper's fast method is ``Edgeworth(order=4)``.
    """

    components = normalize_composition(mechanism, n)
    add = [(_to_add(m), k) for m, k in components]
    acc = (
        A.Numerical()
        if accountant is None
        else check_instance("accountant", accountant, A.Accountant)
    )
    curve: PrivacyCurve = acc.compose(add)
    return curve


def _to_add(m: Mechanism) -> Mechanism:
    with_pair: Callable[[str], Mechanism] | None = getattr(m, "with_pair", None)
    if with_pair is None or m.is_symmetric:
        return m
    return with_pair("add")
