r"""Noise calibration: the noise multiplier that reaches a privacy target.

Every composed quantity used here (:math:`\varepsilon(\delta)`, the GDP parameter
:math:`\mu`, a reconstruction bound :math:`\gamma`) is non-increasing in
:math:`\sigma`, so the calibrated :math:`\sigma` is the root of
``target_fn(curve(sigma)) = target`` in :math:`\log\sigma` (Brent's method on an
explicit bracket; a target outside it raises ``ValueError``).

With ``accountant=None`` a fast ``first_stage`` (``Auto()``) locates the root and
``Numerical()`` solves again on a narrow bracket around it (``Numerical`` throughout
where the first stage fails); any other accountant runs the whole search.

The result is publishable: with a certified accountant the certified upper bound
(of ``epsilon_bounds(delta)`` or of :math:`\mu^*`) meets the target,
``upper(sigma) <= target``, within ``rtol`` (relative) of the smallest such
:math:`\sigma`; with an approximation the point estimate does.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, Final, cast

import numpy as np
from scipy import optimize

from symfdp._validation import check_choice, check_instance, check_int, check_real
from symfdp._warnings import ApproximationWarning
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms.base import Mechanism, Pair

#: Names accepted for ``mechanism`` (a callable ``sigma -> Mechanism`` also works).
MECHANISMS: Final = ("subsampled-gaussian", "gaussian")
PAIRS: Final = ("add", "remove", "both")
#: Default search bracket for sigma.
SIGMA_BRACKET: Final = (0.1, 100.0)
#: Half-width (relative) of the first refinement bracket of the two-stage search.
_REFINE_WIDTH: Final = 0.05

TargetFn = Callable[[PrivacyCurve], float]


def mechanism_factory(
    mechanism: str | Callable[[float], Mechanism], p: float, pair: str
) -> Callable[[float], Mechanism]:
    """``sigma -> Mechanism`` for a mechanism name of :data:`MECHANISMS` (or the
    callable itself), at sampling probability ``p`` and adjacency ``pair``."""
    from symfdp import mechanisms as M

    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    check_choice("pair", pair, PAIRS)
    if callable(mechanism):

        def checked(sigma: float) -> Mechanism:
            return cast(
                Mechanism,
                check_instance("mechanism(sigma)", mechanism(sigma), Mechanism),
            )

        return checked
    name = check_choice("mechanism", mechanism, MECHANISMS)
    if name == "gaussian":
        if p != 1.0:
            raise ValueError(
                "p must be 1 for mechanism='gaussian' (it has no subsampling); use "
                f"mechanism='subsampled-gaussian' for p < 1. Found {p:g}."
            )
        return lambda sigma: M.Gaussian(sigma=sigma)
    adjacency = cast(Pair, pair)  # checked against PAIRS above
    return lambda sigma: M.SubsampledGaussian(p=p, sigma=sigma).with_pair(adjacency)


def _check_bracket(bracket: Any) -> tuple[float, float]:
    try:
        lo, hi = bracket
    except (TypeError, ValueError) as exc:
        raise TypeError("sigma_bracket must be a pair (lo, hi).") from exc
    lo = check_real("sigma_bracket[0]", lo, 0.0, math.inf, lo_open=True)
    hi = check_real("sigma_bracket[1]", hi, lo, math.inf, lo_open=True)
    return lo, hi


def _solve(
    value: Callable[[float], float],
    target: float,
    lo: float,
    hi: float,
    rtol: float,
    what: str,
) -> float:
    """Root of ``value(sigma) = target`` for a non-increasing ``value`` on
    ``[lo, hi]``, in ``log sigma``."""
    v_lo, v_hi = value(lo), value(hi)
    if v_lo < v_hi:
        raise ValueError(
            f"{what} increases with sigma between {lo:g} ({v_lo:.6g}) and {hi:g} "
            f"({v_hi:.6g}); the privacy target is not monotone in the noise here."
        )
    if target > v_lo:
        raise ValueError(
            f"the target {what} = {target:g} is unreachable in sigma_bracket "
            f"[{lo:g}, {hi:g}]: even sigma = {lo:g} gives {what} = {v_lo:.6g}; "
            "lower the bracket's lower end."
        )
    if target < v_hi:
        raise ValueError(
            f"the target {what} = {target:g} is unreachable in sigma_bracket "
            f"[{lo:g}, {hi:g}]: sigma = {hi:g} still gives {what} = {v_hi:.6g}; "
            "raise the bracket's upper end."
        )
    if v_lo == target:
        return lo
    root, res = optimize.brentq(
        lambda x: value(math.exp(x)) - target,
        math.log(lo),
        math.log(hi),
        xtol=rtol,
        rtol=1e-15,
        full_output=True,
    )
    if not res.converged:  # pragma: no cover - brentq raises first
        raise RuntimeError(f"noise calibration did not converge: {res.flag}.")
    return _feasible(value, target, root, math.log(hi), rtol)


#: Largest number of steps of ``rtol`` taken to reach the side meeting the target.
_FEASIBLE_STEPS: Final = 16


def _feasible(
    value: Callable[[float], float], target: float, x: float, x_hi: float, rtol: float
) -> float:
    """The first ``sigma = exp(x + k rtol)``, ``k = 0, 1, ...``, with
    ``value(sigma) <= target``."""
    for k in range(_FEASIBLE_STEPS):
        sigma = math.exp(min(x + k * rtol, x_hi))
        if value(sigma) <= target:
            return sigma
    return math.exp(x_hi)


def _refine(
    value: Callable[[float], float],
    target: float,
    guess: float,
    outer: tuple[float, float],
    rtol: float,
    what: str,
) -> float:
    """Solve again around ``guess``: widen ``guess * (1 -+ w)`` until bracketing."""
    w = _REFINE_WIDTH
    lo, hi = max(guess * (1 - w), outer[0]), min(guess * (1 + w), outer[1])
    while True:
        v_lo, v_hi = value(lo), value(hi)
        ok_lo = v_lo >= target or lo <= outer[0]
        ok_hi = v_hi <= target or hi >= outer[1]
        if ok_lo and ok_hi:
            return _solve(value, target, lo, hi, rtol, what)
        if not ok_lo:
            lo = max(lo / 2, outer[0])
        if not ok_hi:
            hi = min(hi * 2, outer[1])


def noise_for(
    target_fn: TargetFn,
    target: float,
    p: float,
    n: int,
    accountant: Any = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    pair: str = "both",
    *,
    sigma_bracket: tuple[float, float] = SIGMA_BRACKET,
    rtol: float = 1e-6,
    what: str = "privacy value",
    first_stage: Any = None,
) -> float:
    r"""The noise multiplier :math:`\sigma` with ``target_fn(curve) <= target``,
    within ``rtol`` (relative) of the root of ``target_fn(curve) == target``.

    Args:
        target_fn: ``curve -> float`` of the ``n``-fold composition of
            ``mechanism(sigma)``, non-increasing in :math:`\sigma`.
        target: The value to reach.
        p: Sampling probability in (0, 1] (1 for ``mechanism="gaussian"``).
        n: Number of compositions, >= 1.
        accountant: An accountant instance; ``None`` for the two-stage search.
        mechanism: ``"subsampled-gaussian"`` (default), ``"gaussian"``, or a
            callable ``sigma -> Mechanism``.
        pair: Adjacency of the subsampled mechanism: ``"add"``, ``"remove"`` or
            ``"both"``.
        sigma_bracket: ``(lo, hi)``, the search range of :math:`\sigma`.
        rtol: Relative tolerance on :math:`\sigma`.
        what: Name of the quantity, for error messages.
        first_stage: With ``accountant=None``, the locating accountant
            (default ``Auto()``).

    Raises:
        ValueError: bad arguments, or ``target`` is not reached inside
            ``sigma_bracket`` (the message says which end to move).
    """
    from symfdp import accountants as A

    target = check_real("target", target, allow_inf=False)
    n = check_int("n", n, lo=1)
    rtol = check_real("rtol", rtol, 0.0, 0.1, lo_open=True)
    bracket = _check_bracket(sigma_bracket)
    if not callable(target_fn):
        raise TypeError(f"target_fn must be callable. Found {target_fn!r}.")
    for name, acc in (("accountant", accountant), ("first_stage", first_stage)):
        if acc is not None:
            check_instance(name, acc, A.Accountant)
    make = mechanism_factory(mechanism, p, pair)  # validates p and pair

    def value_with(acc: Any) -> Callable[[float], float]:
        def value(sigma: float) -> float:
            v = target_fn(acc.compose(make(sigma), n))
            return check_real("target_fn(curve)", v, allow_inf=True)

        return value

    if accountant is not None:
        return _solve(value_with(accountant), target, *bracket, rtol, what)
    exact = value_with(A.Numerical())
    try:
        with warnings.catch_warnings():
            # Only locates the root: its validity warnings would be noise.
            warnings.simplefilter("ignore", ApproximationWarning)
            fast = value_with(A.Auto() if first_stage is None else first_stage)
            guess = _solve(fast, target, *bracket, 1e-4, what)
    except (ValueError, FloatingPointError):
        # The first stage left its valid range: Numerical throughout.
        return _solve(exact, target, *bracket, rtol, what)
    return _refine(exact, target, guess, bracket, rtol, what)


def sigma_for_epsilon(
    target_eps: float,
    delta: float,
    p: float,
    n: int,
    accountant: Any = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    pair: str = "both",
    **kwargs: Any,
) -> float:
    r"""The smallest :math:`\sigma` (within ``rtol``) whose ``n``-fold
    composition has :func:`epsilon_upper` at most ``target_eps``.

    Args:
        target_eps: Target :math:`\varepsilon > 0`.
        delta: :math:`\delta \in (0, 1)`.
        p, n, accountant, mechanism, pair: As in :func:`noise_for`.
        **kwargs: As in :func:`noise_for`.

    Example:
        >>> from symfdp import accountants as A
        >>> s = sigma_for_epsilon(1.0, 1e-5, p=1.0, n=1, accountant=A.Exact(),
        ...                       mechanism="gaussian")
        >>> round(s, 4)
        3.7306
    """
    target_eps = check_real("target_eps", target_eps, 0.0, math.inf, lo_open=True)
    delta = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    return noise_for(
        lambda curve: epsilon_upper(curve, delta),
        target_eps,
        p,
        n,
        accountant,
        mechanism,
        pair,
        what="epsilon (target_eps)",
        **kwargs,
    )


def epsilon_upper(curve: PrivacyCurve, delta: float) -> float:
    r"""The publishable :math:`\varepsilon(\delta)` of ``curve``: the upper end of
    the certified bracket for a certified curve, the point estimate otherwise."""
    _check_curve(curve)
    delta = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
    if curve.certified:
        return float(curve.epsilon_bounds(delta)[1])
    return float(curve.epsilon(delta))


def _check_curve(curve: Any) -> None:
    check_instance("curve", curve, PrivacyCurve)


def mu_upper(curve: PrivacyCurve) -> float:
    r"""The publishable GDP parameter of ``curve``: ``curve.info["mu"]`` when
    reported, the upper end of the certified :math:`\mu^*` bracket for a certified
    curve, :func:`curve_mu` otherwise."""
    from symfdp import tradeoff as T
    from symfdp.tradeoff.interpret import mu_star_at

    _check_curve(curve)
    mu = curve.info.get("mu")
    if mu is not None:
        return float(mu)
    if curve.certified:
        lower = T.fixed_point(lambda x: np.asarray(curve.tradeoff_bounds(x)[0]))
        return float(mu_star_at(lower))
    return curve_mu(curve)


def curve_mu(curve: PrivacyCurve) -> float:
    r"""The GDP parameter of a curve: ``curve.info["mu"]`` when reported, else
    :math:`\mu^* = \Phi^{-1}(1-\alpha^*) - \Phi^{-1}(\alpha^*)` at the trade-off's
    fixed point :math:`\alpha^*` (Zheng et al. 2020, Sec. 4)."""
    _check_curve(curve)
    mu = curve.info.get("mu")
    if mu is not None:
        return float(mu)
    return float(curve.mu_star_gamma()[0])


def sigma_for_mu(
    target_mu: float,
    p: float,
    n: int,
    accountant: Any = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    pair: str = "both",
    **kwargs: Any,
) -> float:
    r"""The smallest :math:`\sigma` (within ``rtol``) whose ``n``-fold
    composition has :func:`mu_upper` at most ``target_mu``.

    Args:
        target_mu: Target :math:`\mu > 0`.
        p, n, accountant, mechanism, pair: As in :func:`noise_for`.
        **kwargs: As in :func:`noise_for`.
    """
    target_mu = check_real("target_mu", target_mu, 0.0, math.inf, lo_open=True)
    return noise_for(
        mu_upper,
        target_mu,
        p,
        n,
        accountant,
        mechanism,
        pair,
        what="mu (target_mu)",
        **kwargs,
    )
