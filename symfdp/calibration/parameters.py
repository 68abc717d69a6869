r"""The run parameter a calibration moves: the noise multiplier, the sample rate
or the number of steps, each searched in a coordinate :math:`x` in which the
risk increases (:math:`x = -\log\sigma`, :math:`\log p`, :math:`\log n`).

The closed-form start inverts the GDP limit of noisy SGD,
:math:`\mu = p\sqrt{n(e^{1/\sigma^2} - 1)}` (Dong et al. 2019, Cor. 5.4 with
Bu et al.'s :math:`\chi^2` form; :func:`symfdp.functionals.noisy_sgd_mu_exp`),
and for :math:`p = 1` the exact Gaussian composition :math:`\mu = \sqrt n/\sigma`
(Dong et al. 2019, Cor. 3.3).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from symfdp.mechanisms.base import Mechanism


class Parameter(str, enum.Enum):
    """What a calibration solves for."""

    SIGMA = "sigma"
    SAMPLE_RATE = "sample_rate"
    STEPS = "steps"


#: The searched domain of each parameter. Below sigma = 0.05 the privacy loss
#: exceeds the range the certified accountant discretises (eps(1e-5) > 1e3 for
#: one step); above 1e4 its grid grows slowly; p below 1e-9 and n above 1e9 are
#: far outside any training run.
LIMITS: Final = {
    Parameter.SIGMA: (0.05, 1e4),
    Parameter.SAMPLE_RATE: (1e-9, 1.0),
    Parameter.STEPS: (1.0, 1e9),
}


@dataclass(frozen=True)
class Setting:
    """A run: ``n`` steps of ``make(sigma, p)``.

    Attributes:
        sigma: Noise multiplier.
        p: Sample rate in (0, 1].
        n: Number of steps.
        make: ``(sigma, p) -> Mechanism``.
    """

    sigma: float
    p: float
    n: int
    make: Callable[[float, float], Mechanism]

    def value(self, parameter: Parameter) -> float:
        """The value of ``parameter`` in this run."""
        if parameter is Parameter.SIGMA:
            return self.sigma
        return self.p if parameter is Parameter.SAMPLE_RATE else float(self.n)

    def at(self, parameter: Parameter, x: float) -> Setting:
        """The run with ``parameter`` at coordinate ``x`` (see :func:`coordinate`)."""
        if parameter is Parameter.SIGMA:
            return replace(self, sigma=math.exp(-x))
        if parameter is Parameter.SAMPLE_RATE:
            return replace(self, p=min(math.exp(x), 1.0))
        return replace(self, n=max(round(math.exp(x)), 1))

    def mechanism(self) -> Mechanism:
        """The mechanism of one step."""
        return self.make(self.sigma, self.p)

    def gdp_mu(self) -> float:
        r"""The GDP parameter of this run's limit (module docstring)."""
        if self.p == 1.0:
            return math.sqrt(self.n) / self.sigma
        inverse_square = 1.0 / (self.sigma * self.sigma)
        return self.p * math.sqrt(self.n * math.expm1(min(inverse_square, 700.0)))

    def gdp_value(self, parameter: Parameter, mu: float) -> float:
        r"""The value of ``parameter`` at which the GDP limit of this run is
        :math:`G_\mu` (module docstring; an approximation used as a start)."""
        sigma, p, n = self.sigma, self.p, self.n
        if parameter is Parameter.SIGMA:
            if p == 1.0:
                return math.sqrt(n) / mu
            # e^{1/sigma^2} - 1 = mu^2 / (p^2 n)
            return 1.0 / math.sqrt(math.log1p((mu / p) ** 2 / n))
        inverse_square = 1.0 / (sigma * sigma)
        chi2 = n * (inverse_square if p == 1.0 else math.expm1(inverse_square))
        if chi2 == 0.0:
            return math.inf
        if parameter is Parameter.SAMPLE_RATE:
            return mu / math.sqrt(chi2)
        return (mu / p) ** 2 / (chi2 / n)


def coordinate(parameter: Parameter, value: float) -> float:
    """The search coordinate of ``value`` (risk increases with it)."""
    x = math.log(value)
    return -x if parameter is Parameter.SIGMA else x


def coordinate_limits(
    parameter: Parameter, limits: tuple[float, float]
) -> tuple[float, float]:
    """``(lo, hi)`` of the coordinate for the parameter range ``limits``."""
    a, b = coordinate(parameter, limits[0]), coordinate(parameter, limits[1])
    return min(a, b), max(a, b)


def snap(parameter: Parameter) -> Callable[[float], float] | None:
    """Rounds a coordinate onto the parameter's grid (integers for steps)."""
    if parameter is not Parameter.STEPS:
        return None
    return lambda x: math.log(max(round(math.exp(x)), 1))
