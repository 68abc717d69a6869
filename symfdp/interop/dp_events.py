"""dp-accounting ``DpEvent`` descriptions as symfdp compositions.

:func:`from_dp_event` turns a dp-accounting event tree (also used by TF
Privacy and JAX Privacy) into the composition ``[(Mechanism, n), ...]`` that
every symfdp accountant composes::

    import dp_accounting as dpa
    import symfdp
    from symfdp import accountants as A

    step = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1))
    event = dpa.SelfComposedDpEvent(step, 1000)
    curve = A.Numerical().compose(symfdp.from_dp_event(event))
    # equivalently: A.Numerical().compose(event)

Events and the dominating pairs they become (``nm`` is the noise multiplier,
the noise scale over the sensitivity bound :math:`C`):

==================================  ==========================  ======================
event                               ``"add_or_remove"``         ``"replace_one"``
==================================  ==========================  ======================
``GaussianDpEvent(nm)``             ``Gaussian(mu=1/nm)``       ``Gaussian(mu=2/nm)``
``LaplaceDpEvent(nm)``              ``Laplace(mu=1/nm)``        ``Laplace(mu=2/nm)``
``PoissonSampledDpEvent(q, G)``     ``SubsampledGaussian``      only ``q = 1``
``PoissonSampledDpEvent(q, L)``     ``SubsampledLaplace``       only ``q = 1``
``RandomizedResponseDpEvent(p,2)``  not defined                 ``PureDP(log(2/p-1))``
``SelfComposedDpEvent(e, k)``       ``e`` counted ``k`` times   the same
``ComposedDpEvent([e1, ...])``      the concatenation           the same
``NoOpDpEvent()``                   nothing                     nothing
==================================  ==========================  ======================

Replacement moves the sum by at most :math:`2C` (dp-accounting's ``REPLACE``
at ``q = 1``: twice the sensitivity). Nested Poisson sampling multiplies the
probabilities. A zero noise multiplier or a ``NonPrivateDpEvent`` is
non-private; a sampling probability 0, a count 0, one bucket or noise
parameter 1 contribute nothing. Every other event type raises
:class:`UnsupportedEventError` (e.g. ``DiscreteLaplaceDpEvent``, sampling with
or without replacement, tree aggregation, zCDP, Poisson sampling of anything
but a Gaussian or Laplace event or under ``"replace_one"``)."""

from __future__ import annotations

import math
from typing import Any, Final

from symfdp import mechanisms as M
from symfdp._validation import check_int
from symfdp.mechanisms.base import Mechanism

#: The neighbouring relations, as dp-accounting's ``NeighboringRelation``
#: ``ADD_OR_REMOVE_ONE`` and ``REPLACE_ONE``.
ADJACENCIES: Final = ("add_or_remove", "replace_one")

Composition = list[tuple[Mechanism, int]]


class UnsupportedEventError(TypeError):
    """A ``DpEvent`` (or a part of it) that symfdp cannot account.

    Attributes:
        event: The offending (sub)event.
    """

    def __init__(self, event: Any, reason: str) -> None:
        self.event = event
        super().__init__(f"{type(event).__name__} is not supported: {reason}")


class NonPrivateEventError(ValueError):
    """The event describes a non-private computation (epsilon is infinite)."""


def check_adjacency(adjacency: Any, param: str = "adjacency") -> str:
    """``adjacency`` as one of :data:`ADJACENCIES` (dp-accounting's
    ``ADD_OR_REMOVE_ONE`` / ``REPLACE_ONE`` accepted); ``param`` names it in messages.

    Raises:
        TypeError / ValueError: anything else (``REPLACE_SPECIAL`` included).
    """
    name = getattr(adjacency, "name", adjacency)
    if isinstance(name, str):
        name = {
            "ADD_OR_REMOVE_ONE": "add_or_remove",
            "REPLACE_ONE": "replace_one",
        }.get(name, name)
    if not isinstance(name, str):
        raise TypeError(
            f"{param} must be one of {ADJACENCIES} (or a dp_accounting "
            f"NeighboringRelation). Found {adjacency!r}."
        )
    if name not in ADJACENCIES:
        raise ValueError(
            f"{param} must be one of {ADJACENCIES} (or NeighboringRelation."
            f"ADD_OR_REMOVE_ONE / REPLACE_ONE). Found {adjacency!r}."
        )
    return name


def is_dp_event(obj: Any) -> bool:
    """Whether ``obj`` is a dp-accounting ``DpEvent`` (without importing it)."""
    return any(
        c.__name__ == "DpEvent" and c.__module__.startswith("dp_accounting")
        for c in type(obj).__mro__
    )


def from_dp_event(event: Any, adjacency: Any = "add_or_remove") -> Composition:
    """The symfdp composition described by a dp-accounting ``DpEvent``.

    Args:
        event: A ``dp_accounting.DpEvent`` (events served: module docstring).
        adjacency: ``"add_or_remove"`` (default, dp-accounting's
            ``ADD_OR_REMOVE_ONE``) or ``"replace_one"``, or the enum values.

    Returns:
        A list of ``(Mechanism, n)`` pairs for ``Accountant.compose``, equal
        mechanisms merged; empty when the event costs no privacy.

    Raises:
        UnsupportedEventError (a TypeError): ``event`` is not a DpEvent, or it
            contains an event type or parameters symfdp does not serve.
        NonPrivateEventError (a ValueError): the event is not private.
        ValueError: a parameter outside its range, naming the event.
    """
    adjacency = check_adjacency(adjacency)
    if not is_dp_event(event):
        raise UnsupportedEventError(event, "event must be a dp_accounting DpEvent.")
    out: dict[Mechanism, int] = {}
    if _walk(event, 1, adjacency, out):
        raise NonPrivateEventError(
            f"{event!r} is not private (a NonPrivateDpEvent or a noise parameter "
            "of 0): epsilon(delta) is infinite for every delta < 1."
        )
    return list(out.items())


def composition_of_event(event: Any, n: Any = None) -> Composition:
    """``compose(event, n)``'s composition: :func:`from_dp_event` (add/remove
    adjacency) with every count multiplied by ``n`` (default 1).

    Raises:
        ValueError: the event costs no privacy (there is no curve to compute),
            besides the errors of :func:`from_dp_event`.
    """
    k = 1 if n is None else check_int("n", n, lo=1)
    comp = from_dp_event(event)
    if not comp:
        raise ValueError(
            f"{event!r} costs no privacy (only no-op parts): there is no "
            "composition to account."
        )
    return [(m, c * k) for m, c in comp]


def _walk(event: Any, count: int, adjacency: str, out: dict[Mechanism, int]) -> bool:
    """Add the mechanisms of ``event`` (``count`` times) to ``out``; return
    whether a non-private part was met (the whole tree is checked, also for
    ``count = 0``)."""
    from dp_accounting import dp_event as de

    if isinstance(event, de.NoOpDpEvent):
        return False
    if isinstance(event, de.NonPrivateDpEvent):
        return count > 0
    if isinstance(event, de.SelfComposedDpEvent):
        k = _param(event, "count", lambda: check_int("count", event.count, lo=0))
        return _walk(event.event, count * k, adjacency, out)
    if isinstance(event, de.ComposedDpEvent):
        private = [_walk(e, count, adjacency, out) for e in event.events]
        return any(private)
    mechanism = _single(event, adjacency)
    if mechanism is None:
        return False
    if mechanism is _NON_PRIVATE:
        return count > 0
    if count > 0:
        out[mechanism] = out.get(mechanism, 0) + count
    return False


#: Marker for a non-private single event.
_NON_PRIVATE: Final[Any] = object()


def _param(event: Any, name: str, check: Any) -> Any:
    try:
        return check()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{type(event).__name__}.{name}: {exc}") from None


def _noise(event: Any, name: str = "noise_multiplier") -> float:
    value = getattr(event, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{type(event).__name__}.{name} must be a real number. Found {value!r}."
        )
    if not value >= 0.0:
        raise ValueError(
            f"{type(event).__name__}.{name} must lie in [0, inf]. Found {value!r}."
        )
    return float(value)


def _single(event: Any, adjacency: str) -> Any:
    """The mechanism of one leaf event, None (no cost) or ``_NON_PRIVATE``."""
    from dp_accounting import dp_event as de

    factor = 2.0 if adjacency == "replace_one" else 1.0
    if isinstance(event, (de.GaussianDpEvent, de.LaplaceDpEvent)):
        nm = _noise(event)
        if nm == 0.0:
            return _NON_PRIVATE
        if nm == math.inf:
            return None
        cls = M.Gaussian if isinstance(event, de.GaussianDpEvent) else M.Laplace
        return cls(mu=factor / nm)
    if isinstance(event, de.RandomizedResponseDpEvent):
        return _randomized_response(event, adjacency)
    if isinstance(event, de.PoissonSampledDpEvent):
        return _poisson(event, adjacency)
    if isinstance(event, de.UnsupportedDpEvent):
        raise UnsupportedEventError(event, "it describes no mechanism.")
    raise UnsupportedEventError(
        event,
        "symfdp serves Gaussian, Laplace, PoissonSampled (of Gaussian or "
        "Laplace), RandomizedResponse (two buckets, replace_one), SelfComposed, "
        "Composed, NoOp and NonPrivate events.",
    )


def _randomized_response(event: Any, adjacency: str) -> Any:

    if adjacency != "replace_one":
        raise UnsupportedEventError(
            event,
            "randomised response is defined for adjacency='replace_one' only "
            "(as in dp-accounting).",
        )
    k = _param(
        event, "num_buckets", lambda: check_int("num_buckets", event.num_buckets)
    )
    p = _noise(event, "noise_parameter")
    if p > 1.0:
        raise ValueError(
            f"RandomizedResponseDpEvent.noise_parameter must lie in [0, 1]. "
            f"Found {p!r}."
        )
    if k == 1 or p == 1.0:
        return None
    if p == 0.0:
        return _NON_PRIVATE
    if k != 2:
        raise UnsupportedEventError(
            event, f"only two buckets are served (num_buckets={k})."
        )
    # P(keep) = 1 - p/2, P(flip) = p/2: e^eps = (1 - p/2)/(p/2) = 2/p - 1.
    return M.PureDP(eps=math.log(2.0 / p - 1.0))


def _poisson(event: Any, adjacency: str) -> Any:

    q = _noise(event, "sampling_probability")
    if q > 1.0:
        raise ValueError(
            "PoissonSampledDpEvent.sampling_probability must lie in [0, 1]. "
            f"Found {q!r}."
        )
    if q == 0.0:
        return None
    base = _single(event.event, adjacency)
    if q == 1.0 or base is None or base is _NON_PRIVATE:
        return base
    if adjacency == "replace_one":
        raise UnsupportedEventError(
            event, "Poisson sampling is served for adjacency='add_or_remove' only."
        )
    if isinstance(base, M.Gaussian):
        return M.SubsampledGaussian(p=q, mu=base.mu)
    if isinstance(base, M.Laplace):
        return M.SubsampledLaplace(p=q, mu=base.mu)
    if isinstance(base, (M.SubsampledGaussian, M.SubsampledLaplace)):
        # Sampling with q then p keeps each record with probability q p.
        return type(base)(p=q * base.p, mu=base.mu)
    raise UnsupportedEventError(
        event,
        "the sampled event must be a GaussianDpEvent or a LaplaceDpEvent. "
        f"Found {type(event.event).__name__}.",
    )
