"""A ``dp_accounting.PrivacyAccountant`` backed by a symfdp accountant.

:class:`SymfdpAccountant` answers dp-accounting's interface (TF Privacy, JAX
Privacy, the calibration helpers) with any symfdp accountant, the certified
:class:`~symfdp.accountants.Numerical` by default::

    import dp_accounting as dpa
    from symfdp.interop.dp_accounting import SymfdpAccountant

    acc = SymfdpAccountant()                   # ADD_OR_REMOVE_ONE, Numerical
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), 1000)
    acc.get_epsilon(1e-5)                      # certified upper bound
    acc.get_epsilon_bounds(1e-5)               # the certified bracket

Events become mechanisms by :func:`symfdp.interop.from_dp_event` (its table);
``supports(event)`` is true exactly when that succeeds; ``REPLACE_SPECIAL`` is
not served. With a certified accountant and ``pessimistic=True`` (default)
``get_epsilon``/``get_delta`` return the upper end of the certified bracket
(like dp-accounting's pessimistic PLD estimate), else the estimate. As in
dp-accounting: no event gives 0, a non-private one ``epsilon = inf`` and
``delta = 1``, ``get_epsilon(1) = 0``, and ``get_epsilon(0)`` is the largest
privacy loss. Needs ``pip install symfdp[dp-accounting]``."""

from __future__ import annotations

import math
from typing import Any

from dp_accounting import dp_event, privacy_accountant

from symfdp._validation import check_bool, check_int, check_real
from symfdp.accountants.base import (
    Accountant,
    normalize_composition,
    symmetric_loss_bound,
)
from symfdp.curve import PrivacyCurve
from symfdp.interop.dp_events import (
    UnsupportedEventError,
    _walk,
    check_adjacency,
)
from symfdp.mechanisms.base import Mechanism
from symfdp.training import make_accountant

NeighboringRelation = privacy_accountant.NeighboringRelation
_RELATIONS = {
    "add_or_remove": NeighboringRelation.ADD_OR_REMOVE_ONE,
    "replace_one": NeighboringRelation.REPLACE_ONE,
}


# dp-accounting ships no type information: its base class is Any to mypy.
class SymfdpAccountant(privacy_accountant.PrivacyAccountant):  # type: ignore[misc]
    """dp-accounting's ``PrivacyAccountant`` interface over a symfdp accountant.

    Args:
        neighboring_relation: ``NeighboringRelation.ADD_OR_REMOVE_ONE`` (default)
            or ``REPLACE_ONE`` (also ``"add_or_remove"`` / ``"replace_one"``).
        accountant: A symfdp :class:`~symfdp.accountants.Accountant` instance or a
            method name of :data:`symfdp.training.METHODS` (default
            ``"numerical"``, certified).
        pessimistic: For a certified accountant, answer with the upper end of the
            certified bracket (default) instead of its centre.

    Raises:
        ValueError / TypeError: an unknown relation or accountant.
    """

    def __init__(
        self,
        neighboring_relation: Any = NeighboringRelation.ADD_OR_REMOVE_ONE,
        accountant: Accountant | str = "numerical",
        *,
        pessimistic: bool = True,
    ) -> None:
        adjacency = check_adjacency(neighboring_relation, "neighboring_relation")
        if isinstance(accountant, str):
            try:
                accountant = make_accountant(accountant)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"accountant: {exc}") from None
        elif not isinstance(accountant, Accountant):
            raise TypeError(
                "accountant must be a symfdp Accountant or a method name. "
                f"Found {type(accountant).__name__}."
            )
        super().__init__(_RELATIONS[adjacency])
        self._adjacency = adjacency
        self._accountant = accountant
        self._pessimistic = check_bool("pessimistic", pessimistic)
        self._counts: dict[Mechanism, int] = {}
        self._non_private = False
        self._curve: PrivacyCurve | None = None

    @property
    def accountant(self) -> Accountant:
        """The symfdp accountant that composes."""
        return self._accountant

    @property
    def composition(self) -> list[tuple[Mechanism, int]]:
        """The composition so far, ``[(Mechanism, n), ...]`` (empty if none)."""
        return list(self._counts.items())

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> SymfdpAccountant:
        """Account ``count`` applications of ``event`` (dp-accounting's
        ``compose``: raises ``UnsupportedEventError`` naming the subevent).

        Raises:
            ValueError: ``count`` is not an integer >= 1.
        """
        check_int("count", count, lo=1)
        super().compose(event, count)
        return self

    def _maybe_compose(
        self, event: dp_event.DpEvent, count: int, do_compose: bool
    ) -> privacy_accountant.PrivacyAccountant.CompositionErrorDetails | None:
        found: dict[Mechanism, int] = {}
        try:
            non_private = _walk(event, count, self._adjacency, found)
        except UnsupportedEventError as exc:
            return self.CompositionErrorDetails(
                invalid_event=exc.event, error_message=str(exc)
            )
        except (TypeError, ValueError) as exc:
            return self.CompositionErrorDetails(
                invalid_event=event, error_message=str(exc)
            )
        if do_compose:
            for m, k in found.items():
                self._counts[m] = self._counts.get(m, 0) + k
            self._non_private = self._non_private or non_private
            if found:
                self._curve = None
        return None

    def curve(self) -> PrivacyCurve | None:
        """The composed :class:`~symfdp.curve.PrivacyCurve` (None before any
        private event or after a non-private one); cached until the next event."""
        if self._non_private or not self._counts:
            return None
        if self._curve is None:
            self._curve = self._accountant.compose(self.composition)
        return self._curve

    def _use_upper(self, curve: PrivacyCurve) -> bool:
        return self._pessimistic and curve.certified

    def get_epsilon(self, target_delta: float) -> float:
        r""":math:`\varepsilon(\delta)` of the composition so far (module docstring).

        Args:
            target_delta: :math:`\delta \in [0, 1]`.
        """
        d = check_real("target_delta", target_delta, 0.0, 1.0)
        if self._non_private:
            return math.inf
        curve = self.curve()
        if curve is None or d == 1.0:
            return 0.0
        if d == 0.0:
            # delta(eps) = 0 from the largest loss on: the support's upper end.
            comps = normalize_composition(self.composition, None)
            return float(symmetric_loss_bound(comps))
        if self._use_upper(curve):
            return float(curve.epsilon_bounds(d)[1])
        return float(curve.epsilon(d))

    def get_epsilon_bounds(self, target_delta: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` bounds on epsilon(target_delta), for a
        certified accountant; ``target_delta`` in (0, 1)."""
        d = check_real("target_delta", target_delta, 0.0, 1.0, lo_open=True)
        if self._non_private:
            return math.inf, math.inf
        curve = self.curve()
        if curve is None or d == 1.0:
            return 0.0, 0.0
        lo, hi = curve.epsilon_bounds(d)
        return float(lo), float(hi)

    def get_delta(self, target_epsilon: float) -> float:
        r""":math:`\delta(\varepsilon)` of the composition so far (module docstring).

        Args:
            target_epsilon: Real :math:`\varepsilon`, ``inf`` allowed.
        """
        e = check_real("target_epsilon", target_epsilon, allow_inf=True)
        if self._non_private:
            return 1.0
        curve = self.curve()
        if curve is None:
            return max(0.0, 1.0 - math.exp(e))  # the identity's profile
        if self._use_upper(curve):
            return float(curve.delta_bounds(e)[1])
        return float(curve.delta(e))

    def __repr__(self) -> str:
        return (
            f"SymfdpAccountant({self.neighboring_relation.name}, "
            f"accountant={self._accountant!r}, pessimistic={self._pessimistic}; "
            f"{sum(self._counts.values())} mechanisms)"
        )
