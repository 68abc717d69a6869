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
the noise scale over the sensitivity bound :math:`C`; replacement moves the
query by :math:`2C`, dp-accounting's ``REPLACE`` at ``q = 1``):

* ``GaussianDpEvent(nm)``: ``Gaussian(mu=1/nm)``; replace-one ``mu=2/nm``.
* ``LaplaceDpEvent(nm)``: ``Laplace(mu=1/nm)``; replace-one ``mu=2/nm``.
* ``DiscreteLaplaceDpEvent(a, s)``: ``DiscreteLaplace(a, s)``; replace-one
  sensitivity ``2s``.
* ``RandomizedResponseDpEvent(p, k)`` (replace-one only):
  ``RandomizedResponse`` with ``e^eps = k/p - k + 1``.
* ``MixtureOfGaussiansDpEvent`` (add-or-remove only): both directions of
  :func:`~symfdp.mechanisms.mixture_of_gaussians`.
* ``PoissonSampledDpEvent(q, e)``: ``SubsampledGaussian`` (its replace-one pair
  under replace-one), ``SubsampledLaplace``, or ``PoissonSubsampled`` of another
  symmetric pair (discrete Laplace); only Gaussian under replace-one.
* ``TruncatedSubsampledGaussianDpEvent``:
  :func:`~symfdp.mechanisms.truncated_subsampled_gaussian`.
* ``SampledWithoutReplacementDpEvent`` (replace-one only):
  ``SampledWithoutReplacement``.
* ``SampledWithReplacementDpEvent`` (replace-one only; Gaussian, Laplace or
  discrete Laplace inside): :func:`~symfdp.mechanisms.sampled_with_replacement`.
* ``SelfComposedDpEvent(e, k)``: ``e`` counted ``k`` times;
  ``ComposedDpEvent``: the concatenation; ``NoOpDpEvent``: nothing.

Nested Poisson sampling multiplies the probabilities. A zero noise parameter
or a ``NonPrivateDpEvent`` is non-private; a sampling probability 0, a count 0,
one bucket, noise parameter 1, sensitivity 0 or a batch of 0 contribute
nothing. Every other event type raises :class:`UnsupportedEventError` naming
the type and the reason (:data:`REFUSALS`: zCDP and repeat-and-select state
Renyi bounds only; tree aggregation needs ``REPLACE_SPECIAL``). dp-accounting
0.6 has no ``EpsilonDelta``, ``DiscreteGaussian`` or ``RandomAllocation`` event
(the mechanisms exist: :class:`~symfdp.mechanisms.EpsilonDelta`,
:class:`~symfdp.mechanisms.DiscreteGaussian`, :mod:`symfdp.samplers`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from symfdp import mechanisms as M
from symfdp._validation import check_int
from symfdp.mechanisms.base import Mechanism
from symfdp.mechanisms.mixture_of_gaussians import mixture_of_gaussians
from symfdp.mechanisms.sampled_with_replacement import sampled_with_replacement
from symfdp.mechanisms.truncated_poisson import truncated_subsampled_gaussian

#: The neighbouring relations, as dp-accounting's ``NeighboringRelation``
#: ``ADD_OR_REMOVE_ONE`` and ``REPLACE_ONE``.
ADJACENCIES: Final = ("add_or_remove", "replace_one")

Composition = list[tuple[Mechanism, int]]


class UnsupportedEventError(TypeError, ValueError):
    """A ``DpEvent`` (or a part of it) that symfdp cannot account (a
    ``ValueError``, and a ``TypeError`` as before).

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


def composition_of_event(
    event: Any, n: Any = None, adjacency: Any = "add_or_remove"
) -> Composition:
    """``compose(event, n, adjacency=)``'s composition: :func:`from_dp_event`
    under ``adjacency`` with every count multiplied by ``n`` (default 1).

    Raises:
        ValueError: the event costs no privacy (there is no curve to compute),
            besides the errors of :func:`from_dp_event`.
    """
    k = 1 if n is None else check_int("n", n, lo=1)
    comp = from_dp_event(event, adjacency)
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

    handler = _HANDLERS.get(type(event).__name__)
    if handler is not None and isinstance(event, getattr(de, type(event).__name__)):
        return handler(event, adjacency)
    raise UnsupportedEventError(event, refusal_reason(type(event)))


def refusal_reason(cls: type) -> str:
    """Why symfdp states no dominating pair for the event class ``cls`` (one of
    :data:`REFUSALS`, or a generic reason for a type it does not know)."""
    reason = REFUSALS.get(cls.__name__)
    if reason is not None:
        return reason
    return (
        "symfdp knows no dominating pair for this event type; it serves "
        + ", ".join(sorted(served_event_names()))
        + "."
    )


def served_event_names() -> frozenset[str]:
    """Names of the dp-accounting event classes ``from_dp_event`` reads."""
    return frozenset(_HANDLERS) | frozenset(_STRUCTURAL)


#: Event types read by :func:`_walk` itself (composition and no-ops).
_STRUCTURAL: Final = (
    "ComposedDpEvent",
    "NoOpDpEvent",
    "NonPrivateDpEvent",
    "SelfComposedDpEvent",
)

#: Why the other event types of dp-accounting 0.6 are refused.
REFUSALS: Final[dict[str, str]] = {
    "DpEvent": "the abstract base class describes no mechanism.",
    "UnsupportedDpEvent": "it describes no mechanism.",
    "ZCDpEvent": (
        "a zCDP guarantee bounds Renyi divergences only and states no "
        "dominating pair (account it with dp_accounting.rdp.RdpAccountant)."
    ),
    "RepeatAndSelectDpEvent": (
        "the privacy of repeat-and-select (Papernot & Steinke 2022) is known as "
        "a Renyi-DP bound only, not as a dominating pair (account it with "
        "dp_accounting.rdp.RdpAccountant)."
    ),
    "SingleEpochTreeAggregationDpEvent": (
        "tree aggregation is accounted under dp-accounting's REPLACE_SPECIAL "
        "relation, which symfdp does not model (account it with "
        "dp_accounting.rdp.RdpAccountant)."
    ),
}


def _factor(adjacency: str) -> float:
    """Replacement moves the query by twice the sensitivity bound."""
    return 2.0 if adjacency == "replace_one" else 1.0


def _additive(event: Any, adjacency: str) -> Any:
    from dp_accounting import dp_event as de

    nm = _noise(event)
    if nm == 0.0:
        return _NON_PRIVATE
    if nm == math.inf:
        return None
    cls = M.Gaussian if isinstance(event, de.GaussianDpEvent) else M.Laplace
    return cls(mu=_factor(adjacency) / nm)


def _discrete_laplace(event: Any, adjacency: str) -> Any:

    a = _noise(event, "noise_parameter")
    s = _param(
        event, "sensitivity", lambda: check_int("sensitivity", event.sensitivity, lo=0)
    )
    if a == 0.0 and s > 0:
        return _NON_PRIVATE
    if s == 0 or a == math.inf:
        return None
    return M.DiscreteLaplace(a=a, sensitivity=int(_factor(adjacency)) * s)


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
    # dp-accounting: the input w.p. 1 - p, else uniform over k buckets, so
    # e^eps = (1 - p + p/k)/(p/k) = k/p - k + 1 (2/p - 1 for two buckets).
    eps = math.log1p(k * (1.0 - p) / p)
    if k == 2:
        return M.PureDP(eps=eps)
    return M.RandomizedResponse(eps=eps, k=k)


def _mixture_of_gaussians(event: Any, adjacency: str) -> Any:

    if adjacency != "add_or_remove":
        raise UnsupportedEventError(
            event,
            "the mixture-of-Gaussians pair is defined for adjacency="
            "'add_or_remove' only (as in dp-accounting).",
        )
    sd = _noise(event, "standard_deviation")
    sens = list(event.sensitivities)
    probs = list(event.sampling_probs)
    if sd == math.inf:
        return None
    if sd == 0.0:
        nonzero = any(c != 0 and p != 0 for c, p in zip(sens, probs, strict=False))
        return _NON_PRIVATE if nonzero else None
    pair = _param(
        event,
        "sensitivities/sampling_probs",
        lambda: mixture_of_gaussians(sd, sens, probs),
    )
    if pair is None:
        return None
    return M.with_adjacency(pair, "add_or_remove")


def _truncated_subsampled_gaussian(event: Any, adjacency: str) -> Any:

    n = _param(
        event,
        "dataset_size",
        lambda: check_int("dataset_size", event.dataset_size, lo=0),
    )
    b = _param(
        event,
        "truncated_batch_size",
        lambda: check_int("truncated_batch_size", event.truncated_batch_size, lo=0),
    )
    q = _probability(event, "sampling_probability")
    nm = _noise(event)
    if q == 0.0 or n == 0 or b == 0 or nm == math.inf:
        return None
    if nm == 0.0:
        return _NON_PRIVATE
    return truncated_subsampled_gaussian(n, q, b, nm, adjacency)


def _batch_sizes(event: Any) -> tuple[int, int]:
    n = _param(
        event,
        "source_dataset_size",
        lambda: check_int("source_dataset_size", event.source_dataset_size, lo=1),
    )
    m = _param(
        event, "sample_size", lambda: check_int("sample_size", event.sample_size, lo=0)
    )
    return m, n


def _fixed_batch_base(event: Any, adjacency: str, how: str) -> Any:
    """The base mechanism of a fixed-size batch event (replace-one only)."""
    if adjacency != "replace_one":
        raise UnsupportedEventError(
            event,
            f"a fixed-size batch drawn {how} replacement is defined for "
            "adjacency='replace_one' (the batch size does not change; as "
            "dp-accounting's RdpAccountant).",
        )
    return _single(event.event, adjacency)


def _sampled_without_replacement(event: Any, adjacency: str) -> Any:

    base = _fixed_batch_base(event, adjacency, "without")
    m, n = _batch_sizes(event)
    if m > n:
        raise ValueError(
            "SampledWithoutReplacementDpEvent.sample_size must lie in "
            f"[0, source_dataset_size={n}]. Found {m}."
        )
    if m == 0 or base is None:
        return None
    if base is _NON_PRIVATE or m == n:
        return base
    if len(base.pairs) != 1:
        raise UnsupportedEventError(
            event, f"the sampled mechanism {base!r} is not one symmetric pair."
        )
    return M.SampledWithoutReplacement(base, batch_size=m, dataset_size=n)


def _group_event(event: Any, k: int) -> Any:
    """The leaf ``event`` with ``k`` times its sensitivity (a record counted
    ``k`` times); refuses events without a sensitivity to scale."""
    from dp_accounting import dp_event as de

    if isinstance(event, (de.GaussianDpEvent, de.LaplaceDpEvent)):
        return type(event)(event.noise_multiplier / k)
    if isinstance(event, de.DiscreteLaplaceDpEvent):
        return de.DiscreteLaplaceDpEvent(event.noise_parameter, event.sensitivity * k)
    raise UnsupportedEventError(
        event,
        "sampling with replacement is served for Gaussian, Laplace and discrete "
        "Laplace events (a copy counted k times is a group of size k).",
    )


def _sampled_with_replacement(event: Any, adjacency: str) -> Any:

    base = _fixed_batch_base(event, adjacency, "with")
    m, n = _batch_sizes(event)
    if m == 0 or base is None:
        return None
    if base is _NON_PRIVATE:
        return base
    _group_event(event.event, 1)  # raises for events without a sensitivity

    def group_pair(k: int) -> Any:
        return _single(_group_event(event.event, k), adjacency)

    return sampled_with_replacement(group_pair, m, n)


def _probability(event: Any, name: str) -> float:
    q = _noise(event, name)
    if q > 1.0:
        raise ValueError(
            f"{type(event).__name__}.{name} must lie in [0, 1]. Found {q!r}."
        )
    return q


def _poisson(event: Any, adjacency: str) -> Any:
    from dp_accounting import dp_event as de

    # Nested Poisson sampling keeps each record with the product probability.
    q = _probability(event, "sampling_probability")
    inner = event.event
    while isinstance(inner, de.PoissonSampledDpEvent):
        q *= _probability(inner, "sampling_probability")
        inner = inner.event
    if q == 0.0:
        return None
    base = _single(inner, adjacency)
    if q == 1.0 or base is None or base is _NON_PRIVATE:
        return base
    if isinstance(inner, de.GaussianDpEvent):
        sg = M.SubsampledGaussian(p=q, mu=base.mu / _factor(adjacency))
        return M.with_adjacency(sg, adjacency)
    if adjacency == "replace_one":
        raise UnsupportedEventError(
            event,
            "Poisson sampling under adjacency='replace_one' is served for a "
            "GaussianDpEvent only.",
        )
    if isinstance(inner, de.LaplaceDpEvent):
        return M.SubsampledLaplace(p=q, mu=base.mu)
    if len(base.pairs) == 1 and base.is_symmetric:
        return M.PoissonSubsampled(base, p=q)
    raise UnsupportedEventError(
        event,
        "the sampled event must describe one symmetric dominating pair "
        f"(Gaussian, Laplace, discrete Laplace). Found {type(inner).__name__}.",
    )


#: The leaf event types served, by class name.
_HANDLERS: Final[dict[str, Callable[[Any, str], Any]]] = {
    "GaussianDpEvent": _additive,
    "LaplaceDpEvent": _additive,
    "DiscreteLaplaceDpEvent": _discrete_laplace,
    "RandomizedResponseDpEvent": _randomized_response,
    "MixtureOfGaussiansDpEvent": _mixture_of_gaussians,
    "TruncatedSubsampledGaussianDpEvent": _truncated_subsampled_gaussian,
    "SampledWithoutReplacementDpEvent": _sampled_without_replacement,
    "SampledWithReplacementDpEvent": _sampled_with_replacement,
    "PoissonSampledDpEvent": _poisson,
}
