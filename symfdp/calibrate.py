r"""Calibration: the noise multiplier, sample rate or number of steps that meets
a privacy target.

Targets (:mod:`symfdp.calibration.targets`): :math:`\varepsilon(\delta)`
(:func:`epsilon_target`), :math:`\delta(\varepsilon)` (:func:`delta_target`),
the GDP summary :math:`\mu^*` (:func:`mu_target`), or any measure with a
certified bracket (:meth:`Target.from_measure`). Every one is monotone in the
parameter, so the answer is the riskiest value (smallest :math:`\sigma`,
largest :math:`p` or :math:`n`) whose *publishable* value meets the target:
with the default certified accountant, the certified bracket's riskier end
never overshoots the target, and lies within ``rtol`` (relative) of it where
the parameter's domain and grid allow.

The search (:mod:`symfdp.calibration.search`) needs no range: a closed-form GDP
start (Dong et al. 2019), secant steps of an analytic accountant, and one or two
certified compositions at the end, each counted in the :class:`Calibration`
record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final, cast

from symfdp._validation import (
    check_callable,
    check_choice,
    check_instance,
    check_int,
    check_real,
)
from symfdp.accountants.base import Accountant
from symfdp.calibration.parameters import LIMITS, Parameter, Setting
from symfdp.calibration.search import (
    APPROACH,
    FALLBACK,
    OnEvaluation,
    calibrate_parameter,
)
from symfdp.calibration.search import Calibration as Calibration
from symfdp.calibration.targets import Bracket, Target, mu_bracket
from symfdp.calibration.targets import delta_target as delta_target
from symfdp.calibration.targets import epsilon_target as epsilon_target
from symfdp.calibration.targets import mu_target as mu_target
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms.base import Mechanism, Pair
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.subsampled_gaussian import SubsampledGaussian

#: Names accepted for ``mechanism`` (a callable ``sigma -> Mechanism`` also works).
MECHANISMS: Final = ("subsampled-gaussian", "gaussian")
PAIRS: Final = ("add", "remove", "both")
#: The searched range of sigma when none is given.
SIGMA_BRACKET: Final = LIMITS[Parameter.SIGMA]
#: Default relative tolerance on the target value.
RTOL: Final = 1e-3
PARAMETERS: Final = tuple(p.value for p in Parameter)

TargetFn = Callable[[PrivacyCurve], float]


def mechanism_factory(
    mechanism: str | Callable[[float], Mechanism], p: float, pair: str
) -> Callable[[float], Mechanism]:
    """``sigma -> Mechanism`` for a mechanism name of :data:`MECHANISMS` (or the
    callable itself), at sampling probability ``p`` and adjacency ``pair``."""
    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    make = _maker(mechanism, pair, p)
    return lambda sigma: make(sigma, p)


def _maker(
    mechanism: str | Callable[[float], Mechanism], pair: str, p: float | None
) -> Callable[[float, float], Mechanism]:
    """``(sigma, p) -> Mechanism``; ``p`` is checked against the mechanism
    (None: it is being calibrated)."""
    check_choice("pair", pair, PAIRS)
    if callable(mechanism):
        if p is None:
            raise ValueError(
                "mechanism must be a name to calibrate the sample rate: a "
                "callable sigma -> Mechanism has no p."
            )
        user = mechanism

        def checked(sigma: float, _p: float) -> Mechanism:
            return cast(
                Mechanism, check_instance("mechanism(sigma)", user(sigma), Mechanism)
            )

        return checked
    name = check_choice("mechanism", mechanism, MECHANISMS)
    if name == "gaussian":
        if p != 1.0:
            found = "a calibrated p" if p is None else f"{p:g}"
            raise ValueError(
                "p must be 1 for mechanism='gaussian' (it has no subsampling); use "
                f"mechanism='subsampled-gaussian' for p < 1. Found {found}."
            )
        return lambda sigma, _p: Gaussian(sigma=sigma)
    adjacency = cast(Pair, pair)  # checked against PAIRS above
    return lambda sigma, q: SubsampledGaussian(p=q, sigma=sigma).with_pair(adjacency)


def _check_limits(
    name: str, limits: Any, domain: tuple[float, float]
) -> tuple[float, float]:
    try:
        lo, hi = limits
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a pair (lo, hi).") from exc
    lo = check_real(f"{name}[0]", lo, 0.0, math.inf, lo_open=True)
    hi = check_real(f"{name}[1]", hi, lo, math.inf, lo_open=True)
    if lo < domain[0] or hi > domain[1]:
        raise ValueError(
            f"{name} must lie within [{domain[0]:g}, {domain[1]:g}], where the "
            f"certified accountant is reliable. Found ({lo:g}, {hi:g})."
        )
    return lo, hi


def _check_accountants(
    accountant: Any, approach: Any, name: str = "approach"
) -> tuple[Accountant, ...]:
    if accountant is not None:
        check_instance("accountant", accountant, Accountant)
    if approach is None:
        return APPROACH
    if isinstance(approach, Accountant):
        return (approach,)
    if not isinstance(approach, (tuple, list)):
        raise TypeError(
            f"{name} must be an accountant or a sequence of them. Found {approach!r}."
        )
    for k, acc in enumerate(approach):
        check_instance(f"{name}[{k}]", acc, Accountant)
    return tuple(approach)


def calibrate(
    target: Target,
    parameter: str = "sigma",
    *,
    sigma: float | None = None,
    p: float | None = None,
    n: int | None = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    pair: str = "both",
    accountant: Accountant | None = None,
    approach: Accountant | Sequence[Accountant] | None = None,
    limits: tuple[float, float] | None = None,
    rtol: float = RTOL,
    on_evaluation: OnEvaluation | None = None,
) -> Calibration:
    r"""The riskiest ``parameter`` value whose run meets ``target``.

    Args:
        target: A :class:`Target` (:func:`epsilon_target`, :func:`delta_target`,
            :func:`mu_target`, :meth:`Target.from_measure`).
        parameter: ``"sigma"`` (smallest noise multiplier), ``"sample_rate"``
            (largest sample rate, at most 1) or ``"steps"`` (largest number of
            steps).
        sigma: Noise multiplier (> 0), unless calibrated.
        p: Sample rate in (0, 1] (default 1), unless calibrated.
        n: Number of steps (>= 1), unless calibrated.
        mechanism: ``"subsampled-gaussian"`` (default), ``"gaussian"`` (p = 1),
            or a callable ``sigma -> Mechanism`` (sigma calibration only).
        pair: Adjacency of the subsampled mechanism: ``"add"``, ``"remove"``
            or ``"both"``.
        accountant: The accountant whose answer must meet the target (default
            ``Numerical()``, certified); an approximation is searched directly.
        approach: Analytic accountants for the approach (default
            :data:`~symfdp.calibration.search.APPROACH`, with the coarse
            certified :data:`~symfdp.calibration.search.FALLBACK` where none is
            accurate enough; ``()`` for none).
        limits: ``(lo, hi)``: the searched range of the parameter (default
            :data:`~symfdp.calibration.parameters.LIMITS`, no need to set it).
        rtol: Relative tolerance on the target value, in (0, 0.1].
        on_evaluation: ``(stage, parameter value, target value)`` after every
            composition (for progress lines).

    Returns:
        A :class:`Calibration`: the value, the target's bracket there, the final
        curve, and how many compositions each stage spent.

    Raises:
        ValueError: bad arguments (naming the parameter), or the target is out
            of reach in the parameter's range (naming it and the range's end).

    Example:
        >>> from symfdp import accountants as A
        >>> c = calibrate(epsilon_target(1.0, 1e-5), "sigma", p=1.0, n=1,
        ...               mechanism="gaussian", accountant=A.Exact(), rtol=1e-9)
        >>> round(c.value, 4)
        3.7306
    """
    check_instance("target", target, Target)
    which = Parameter(check_choice("parameter", parameter, PARAMETERS))
    rtol = check_real("rtol", rtol, 0.0, 0.1, lo_open=True)
    given = {"sigma": sigma, "p": p, "n": n}
    moved = {Parameter.SIGMA: "sigma", Parameter.SAMPLE_RATE: "p", Parameter.STEPS: "n"}
    if given[moved[which]] is not None:
        raise ValueError(
            f"{moved[which]} is the answer of a {which.value} calibration: leave "
            f"it out. Found {given[moved[which]]!r}."
        )
    # A given sigma lies where the certified accountant is reliable.
    sigma_ = 1.0 if sigma is None else check_real("sigma", sigma, *SIGMA_BRACKET)
    if sigma is None and which is not Parameter.SIGMA:
        raise ValueError(f"sigma is required to calibrate {which.value}.")
    if n is None and which is not Parameter.STEPS:
        raise ValueError(f"n is required to calibrate {which.value}.")
    n_ = 1 if n is None else check_int("n", n, lo=1)
    p_ = 1.0 if p is None else check_real("p", p, 0.0, 1.0, lo_open=True)
    make = _maker(mechanism, pair, None if which is Parameter.SAMPLE_RATE else p_)
    domain = LIMITS[which]
    bounds = domain if limits is None else _check_limits("limits", limits, domain)
    candidates = _check_accountants(accountant, approach)
    if on_evaluation is not None:
        check_callable("on_evaluation", on_evaluation)
    return calibrate_parameter(
        target,
        which,
        Setting(sigma_, p_, n_, make),
        limits=bounds,
        accountant=accountant,
        approach=candidates,
        rtol=rtol,
        on_evaluation=on_evaluation,
    )


def noise_for(
    target_fn: TargetFn,
    target: float,
    p: float,
    n: int,
    accountant: Any = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    pair: str = "both",
    *,
    sigma_bracket: tuple[float, float] | None = None,
    rtol: float = RTOL,
    what: str = "privacy value",
    first_stage: Any = None,
) -> float:
    r"""The smallest noise multiplier :math:`\sigma` with ``target_fn(curve) <=
    target``, within ``rtol`` (relative) of ``target`` (:func:`calibrate` with a
    target whose publishable value is ``target_fn(curve)``).

    Args:
        target_fn: ``curve -> float`` of the ``n``-fold composition of
            ``mechanism(sigma)``, non-increasing in :math:`\sigma`.
        target: The value to reach (nonzero).
        p: Sampling probability in (0, 1] (1 for ``mechanism="gaussian"``).
        n: Number of compositions, >= 1.
        accountant: The final accountant (default ``Numerical()``).
        mechanism: ``"subsampled-gaussian"`` (default), ``"gaussian"``, or a
            callable ``sigma -> Mechanism``.
        pair: Adjacency of the subsampled mechanism.
        sigma_bracket: ``(lo, hi)``, the searched range of :math:`\sigma`
            (default :data:`SIGMA_BRACKET`; no need to set it).
        rtol: Relative tolerance on ``target``, in (0, 0.1].
        what: Name of the quantity, for error messages.
        first_stage: The analytic accountant of the approach (default
            :data:`~symfdp.calibration.search.APPROACH`).

    Raises:
        ValueError: bad arguments, or ``target`` is out of reach in
            ``sigma_bracket`` (the message names the end).
    """
    check_callable("target_fn", target_fn)
    target = check_real("target", target)
    if target == 0:
        raise ValueError("target must be nonzero (the tolerance is relative).")

    def evaluate(curve: PrivacyCurve) -> Bracket:
        value = check_real("target_fn(curve)", target_fn(curve), allow_inf=True)
        return Bracket(value, value, value, 0.0, curve.certified)

    return _sigma_for(
        Target(what, target, evaluate, field_name="target"),
        p,
        n,
        accountant,
        mechanism,
        pair,
        sigma_bracket=sigma_bracket,
        rtol=rtol,
        first_stage=first_stage,
    )


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
    r"""The smallest :math:`\sigma` whose ``n``-fold composition has
    :func:`epsilon_upper` at most ``target_eps``, within ``rtol`` of it.

    Args:
        target_eps: Target :math:`\varepsilon > 0`.
        delta: :math:`\delta \in (0, 1)`.
        p, n, accountant, mechanism, pair: As in :func:`noise_for`.
        **kwargs: ``sigma_bracket``, ``rtol``, ``first_stage`` as in
            :func:`noise_for`.

    Example:
        >>> from symfdp import accountants as A
        >>> s = sigma_for_epsilon(1.0, 1e-5, p=1.0, n=1, accountant=A.Exact(),
        ...                       mechanism="gaussian", rtol=1e-9)
        >>> round(s, 4)
        3.7306
    """
    target = epsilon_target(target_eps, delta)
    return _sigma_for(target, p, n, accountant, mechanism, pair, **kwargs)


def sigma_for_mu(
    target_mu: float,
    p: float,
    n: int,
    accountant: Any = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    pair: str = "both",
    **kwargs: Any,
) -> float:
    r"""The smallest :math:`\sigma` whose ``n``-fold composition has
    :func:`mu_upper` at most ``target_mu``, within ``rtol`` of it.

    Args:
        target_mu: Target :math:`\mu > 0`.
        p, n, accountant, mechanism, pair: As in :func:`noise_for`.
        **kwargs: ``sigma_bracket``, ``rtol``, ``first_stage`` as in
            :func:`noise_for`.
    """
    return _sigma_for(mu_target(target_mu), p, n, accountant, mechanism, pair, **kwargs)


def _sigma_for(
    target: Target,
    p: float,
    n: int,
    accountant: Any,
    mechanism: str | Callable[[float], Mechanism],
    pair: str,
    *,
    sigma_bracket: tuple[float, float] | None = None,
    rtol: float = RTOL,
    first_stage: Any = None,
) -> float:
    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    n = check_int("n", n, lo=1)
    rtol = check_real("rtol", rtol, 0.0, 0.1, lo_open=True)
    bounds = (
        SIGMA_BRACKET
        if sigma_bracket is None
        else _check_limits("sigma_bracket", sigma_bracket, (0.0, math.inf))
    )
    candidates = _check_accountants(accountant, first_stage, "first_stage")
    make = _maker(mechanism, pair, p)
    try:
        found = calibrate_parameter(
            target,
            Parameter.SIGMA,
            Setting(1.0, p, n, make),
            limits=bounds,
            accountant=accountant,
            approach=candidates,
            fallback=FALLBACK if candidates else None,
            rtol=rtol,
        )
    except ValueError as exc:
        raise ValueError(
            str(exc).replace(" sigma in [", " sigma in sigma_bracket [")
        ) from None
    return found.value


def epsilon_upper(curve: PrivacyCurve, delta: float) -> float:
    r"""The publishable :math:`\varepsilon(\delta)` of ``curve``: the upper end of
    the certified bracket for a certified curve, the point estimate otherwise."""
    check_instance("curve", curve, PrivacyCurve)
    target = epsilon_target(1.0, delta)
    return target.published(target.evaluate(curve))


def mu_upper(curve: PrivacyCurve) -> float:
    r"""The publishable GDP parameter of ``curve``: ``curve.info["mu"]`` when
    reported, the upper end of the certified :math:`\mu^*` bracket for a
    certified curve, :func:`curve_mu` otherwise."""
    check_instance("curve", curve, PrivacyCurve)
    bracket = mu_bracket(curve)
    return bracket.upper if bracket.certified else bracket.estimate


def curve_mu(curve: PrivacyCurve) -> float:
    r"""The GDP parameter of a curve: ``curve.info["mu"]`` when reported, else
    :math:`\mu^* = \Phi^{-1}(1-\alpha^*) - \Phi^{-1}(\alpha^*)` at the trade-off's
    fixed point :math:`\alpha^*` (Zheng et al. 2020, Sec. 4)."""
    check_instance("curve", curve, PrivacyCurve)
    return mu_bracket(curve).estimate
