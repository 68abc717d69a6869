r"""Noise calibration for a target ReRo bound.

The noise multiplier :math:`\sigma` of an ``n``-fold (subsampled) Gaussian
mechanism whose add-pair :math:`\gamma = 1 - f(\kappa)` equals a target
(Kaissis et al. 2023, Thm 1 and Cor. 2-3); :math:`\gamma` decreases in
:math:`\sigma`, so :func:`symfdp.calibrate.noise_for` finds the root in
:math:`\log\sigma`. The Gaussian (``p = 1``, no accountant) inverts Cor. 2 in
closed form; otherwise ``accountant=None`` searches with ``Edgeworth(order=4)``
(the paper's method), then ``Numerical()`` (certified) near that root."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from scipy import special

from symfdp import accountants as A
from symfdp._validation import check_bool, check_int, check_real
from symfdp.calibrate import SIGMA_BRACKET, noise_for
from symfdp.mechanisms.base import Mechanism
from symfdp.rero.bounds import gamma


def sigma_for_gamma(
    target_gamma: float,
    kappa: float,
    p: float = 1.0,
    n: int = 1,
    accountant: Any = None,
    mechanism: str | Callable[[float], Mechanism] = "subsampled-gaussian",
    *,
    symmetric: bool = False,
    sigma_bracket: tuple[float, float] = SIGMA_BRACKET,
    rtol: float = 1e-6,
) -> float:
    r"""The noise multiplier :math:`\sigma` whose ReRo bound at ``kappa`` is
    ``target_gamma``.

    Args:
        target_gamma: Target :math:`\gamma \in (\kappa, 1)` (every mechanism has
            :math:`\gamma \ge \kappa`, with equality only for infinite noise).
        kappa: Prior :math:`\kappa \in (0, 1)`.
        p: Sampling probability in (0, 1].
        n: Number of compositions, >= 1.
        accountant: An accountant, or ``None`` (closed form for the Gaussian
            mechanism, else Edgeworth(4) then Numerical; module docstring).
        mechanism: ``"subsampled-gaussian"`` (default), ``"gaussian"`` or a
            callable ``sigma -> Mechanism`` (it should describe the add pair,
            or both pairs with ``symmetric=True``).
        symmetric: Calibrate the symmetrised curve's :math:`\gamma` (both pairs,
            as in the paper's Fig. 1e) instead of the add pair's.
        sigma_bracket: ``(lo, hi)``, the search range of :math:`\sigma`.
        rtol: Relative tolerance on :math:`\sigma`.

    Raises:
        ValueError: bad arguments, or the target is not reached inside
            ``sigma_bracket``.

    Example:
        >>> round(sigma_for_gamma(0.389144, 0.1, mechanism="gaussian"), 4)
        1.0
    """

    kappa = check_real("kappa", kappa, 0.0, 1.0, lo_open=True, hi_open=True)
    target = check_real(
        "target_gamma", target_gamma, kappa, 1.0, lo_open=True, hi_open=True
    )
    p = check_real("p", p, 0.0, 1.0, lo_open=True)
    n = check_int("n", n, lo=1)
    symmetric = check_bool("symmetric", symmetric)
    gaussian = mechanism == "gaussian" or (
        mechanism == "subsampled-gaussian" and p == 1.0
    )
    if gaussian and (accountant is None or isinstance(accountant, A.Exact)):
        # Kaissis et al. (2023), Cor. 2: gamma = Phi(Phi^{-1}(kappa) + sqrt(N)/sigma).
        mu_total = float(special.ndtri(target) - special.ndtri(kappa))
        sigma = math.sqrt(n) / mu_total
        lo, hi = sigma_bracket
        if not lo <= sigma <= hi:
            raise ValueError(
                f"the target gamma = {target:g} needs sigma = {sigma:.6g}, outside "
                f"sigma_bracket [{lo:g}, {hi:g}]."
            )
        return sigma
    pair = "both" if symmetric else "add"

    def target_fn(curve: Any) -> float:
        return float(gamma(curve, kappa, symmetric=symmetric))

    return noise_for(
        target_fn,
        target,
        p,
        n,
        accountant,
        mechanism,
        pair,
        sigma_bracket=sigma_bracket,
        rtol=rtol,
        what="gamma",
        # The paper's method; its cost is independent of n.
        first_stage=A.Edgeworth(order=4),
    )
