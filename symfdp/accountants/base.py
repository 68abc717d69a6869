"""The accountant interface: ``compose(mechanism, n)`` -> :class:`PrivacyCurve`.

Accountants *compute*; mechanisms *describe*. Every accountant reduces a
(possibly heterogeneous) composition to one or two composed dominating pairs and
returns a :class:`~symfdp.curve.PrivacyCurve`. For add/remove adjacency the
neighbouring relation is fixed for the whole run, so the composition is covered
by the all-"add" pair and the all-"remove" pair; symmetric mechanisms take part
in both unchanged.
"""

from __future__ import annotations

import functools
import inspect
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from symfdp._validation import MAX_COMPOSITIONS, check_int, check_real
from symfdp.curve import BoundedLossPair, PairCurve, PrivacyCurve
from symfdp.interop.dp_events import composition_of_event, is_dp_event
from symfdp.mechanisms.base import Mechanism

#: A normalised composition: distinct pair mechanisms with their counts.
Components = tuple[tuple[Mechanism, int], ...]


def normalize_composition(
    mechanism: Mechanism | Sequence[tuple[Mechanism, int]], n: int | None
) -> Components:
    """Validate ``compose``'s arguments and merge repeated mechanisms.

    Accepts ``(mechanism, n)`` or a sequence of ``(mechanism, n_i)`` pairs (then
    ``n`` must be None), or a dp-accounting ``DpEvent`` (with an optional ``n``,
    see :func:`symfdp.interop.from_dp_event`). Equal mechanisms (frozen
    dataclasses) are merged and their counts added.

    Raises:
        TypeError: an entry is not a Mechanism.
        ValueError: a count is not an integer >= 1, or ``n`` is given twice.
    """
    if is_dp_event(mechanism):  # a dp-accounting DpEvent (symfdp.interop)
        mechanism, n = composition_of_event(mechanism, n), None
    if isinstance(mechanism, Mechanism):
        if n is None:
            raise ValueError("n (the number of compositions) is required.")
        items: list[tuple[Any, ...]] = [(mechanism, n)]
    elif isinstance(mechanism, (str, bytes, dict)) or not isinstance(
        mechanism, Iterable
    ):
        raise TypeError(
            "mechanism must be a Mechanism (with n) or a list of (Mechanism, n) "
            f"pairs. Found {type(mechanism).__name__}."
        )
    else:
        if n is not None:
            raise ValueError(
                "n must be None when mechanism is a list of (Mechanism, n) pairs: "
                "give either compose(mechanism, n) or compose([(m1, n1), ...]), "
                "not both."
            )
        items = []
        for i, item in enumerate(mechanism):
            try:
                pair = tuple(item)
            except TypeError:
                raise TypeError(
                    f"mechanism[{i}] must be a (Mechanism, n) pair. "
                    f"Found {type(item).__name__}."
                ) from None
            if len(pair) != 2:
                raise ValueError(
                    f"mechanism[{i}] must be a (Mechanism, n) pair. Found {item!r}."
                )
            items.append(pair)
        if not items:
            raise ValueError(
                "mechanism is an empty composition; give at least one "
                "(Mechanism, n) pair."
            )
    merged: dict[Mechanism, int] = {}
    for i, (m, k) in enumerate(items):
        if not isinstance(m, Mechanism):
            raise TypeError(
                f"mechanism[{i}][0] must be a Mechanism. Found {type(m).__name__}."
            )
        merged[m] = merged.get(m, 0) + check_int("n", k, lo=1)
    total = sum(merged.values())
    if total > MAX_COMPOSITIONS:
        raise ValueError(
            f"n must total at most {MAX_COMPOSITIONS} (2**53) compositions. "
            f"Found {total:.4g}."
        )
    return tuple(merged.items())


def pair_compositions(components: Components) -> tuple[Components, ...]:
    """Split a composition into one composition of pairs per direction.

    A mechanism with ``pairs == (add, remove)`` contributes ``add`` to the first
    and ``remove`` to the second direction; one with a single pair contributes
    it to every direction.
    """
    width = max(len(m.pairs) for m, _ in components)
    return tuple(
        tuple((m.pairs[min(k, len(m.pairs) - 1)], n) for m, n in components)
        for k in range(width)
    )


def loss_range(components: Components) -> tuple[float, float]:
    """``(a, b)``: the range of the composed loss, the sums of the supports."""
    lo = math.fsum(n * m.plrv_support()[0] for m, n in components)
    hi = math.fsum(n * m.plrv_support()[1] for m, n in components)
    return (lo if not math.isnan(lo) else -math.inf), (
        hi if not math.isnan(hi) else math.inf
    )


def lattice_span(components: Components) -> float | None:
    """The largest lattice span of the components' losses when every loss is a
    lattice variable (:attr:`~symfdp.mechanisms.Mechanism.loss_lattice_span`),
    else None: a continuous component smooths the sum."""
    spans = [m.loss_lattice_span for m, _ in components]
    if not spans or any(h is None for h in spans):
        return None
    return max(h for h in spans if h is not None)


def symmetric_loss_bound(components: Components) -> float:
    r""":math:`B^* = \max_k \max(b_k, -a_k)` over the directions: a symmetrised
    curve of the composition is :math:`f_{B^*,0}`-DP (see
    :class:`~symfdp.curve.BoundedLossPair`)."""
    out = 0.0
    for c in pair_compositions(components):
        a, b = loss_range(c)
        out = max(out, b, -a)
    return out


#: Default ``warn_rel_error`` of the approximations: warn above 5% estimated error.
DEFAULT_WARN_REL_ERROR = 0.05


def check_warn_rel_error(value: float | None) -> float | None:
    """Validate ``warn_rel_error``: ``None`` (never warn) or a finite number > 0."""
    if value is None:
        return None
    return check_real("warn_rel_error", value, 0.0, math.inf, lo_open=True)


def apply_adjacency(
    mechanism: Mechanism | Sequence[tuple[Mechanism, int]], adjacency: str | None
) -> Any:
    """``mechanism`` (or each mechanism of a composition list) under the
    neighbouring relation ``adjacency`` (:func:`symfdp.mechanisms.with_adjacency`);
    unchanged for ``None``. Anything else is left to ``compose``'s validation."""
    if adjacency is None:
        return mechanism
    from symfdp._validation import check_choice
    from symfdp.mechanisms.adjacency import ADJACENCIES, with_adjacency

    check_choice("adjacency", adjacency, ADJACENCIES)
    if isinstance(mechanism, Mechanism):
        return with_adjacency(mechanism, adjacency)
    if isinstance(mechanism, (str, bytes, dict)) or not isinstance(mechanism, Iterable):
        return mechanism
    out: list[Any] = []
    for item in mechanism:
        try:
            m, k = item
        except (TypeError, ValueError):
            out.append(item)
            continue
        out.append(
            (with_adjacency(m, adjacency), k) if isinstance(m, Mechanism) else item
        )
    return out


def _accepting_adjacency(compose: Any) -> Any:
    """Wrap an accountant's ``compose(mechanism, n)`` so that it also takes the
    keyword ``adjacency`` (applied to the mechanisms before composing)."""

    @functools.wraps(compose)
    def wrapper(
        self: Any, mechanism: Any, n: int | None = None, *, adjacency: str | None = None
    ) -> Any:
        return compose(self, apply_adjacency(mechanism, adjacency), n)

    sig = inspect.signature(compose)
    params = list(sig.parameters.values())
    params.append(
        inspect.Parameter("adjacency", inspect.Parameter.KEYWORD_ONLY, default=None)
    )
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


class Accountant(ABC):
    """Base class: subclasses implement :meth:`compose_pair`.

    Args:
        warn_rel_error: Approximations warn (:class:`~symfdp.ApproximationWarning`,
            once per query) when the error estimate of an answer exceeds this
            fraction of it; ``None`` never warns. Certified methods ignore it.
    """

    method: ClassVar[str]
    #: Registry name (``TrainingAccountant(method=)``, ``symfdp account
    #: --method``): the class name in lower case unless the class sets it.
    name: ClassVar[str]
    #: What an answer is: ``"certified"`` (a bracket containing the exact value),
    #: ``"bound"`` (rigorous, one-sided) or ``"estimate"``; taken from
    #: ``certified`` unless the class sets it (:mod:`symfdp.accountants.registry`).
    guarantee: ClassVar[str]
    #: Options that choosing the accountant by its registry name implies.
    name_options: ClassVar[dict[str, Any]] = {}
    warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR

    def __init__(
        self, *, warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR
    ) -> None:
        self.warn_rel_error = check_warn_rel_error(warn_rel_error)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__.lower()
        if getattr(cls, "guarantee", None) is None:
            certified = getattr(cls, "certified", False) is True
            cls.guarantee = "certified" if certified else "estimate"
        # Every accountant's own compose takes the relation too.
        if "compose" in cls.__dict__:
            cls.compose = _accepting_adjacency(cls.__dict__["compose"])  # type: ignore[method-assign]

    def compose(
        self,
        mechanism: Mechanism | Sequence[tuple[Mechanism, int]],
        n: int | None = None,
        *,
        adjacency: str | None = None,
    ) -> PrivacyCurve:
        """Privacy of ``n``-fold composition of ``mechanism``, or of the
        heterogeneous composition ``[(m1, n1), (m2, n2), ...]``.

        Args:
            adjacency: The neighbouring relation, ``"add_or_remove"``,
                ``"replace_one"``, ``"add"`` or ``"remove"``
                (:func:`symfdp.mechanisms.with_adjacency`); None keeps each
                mechanism's own pairs (its ``pair=``).

        Returns:
            A :class:`~symfdp.curve.PrivacyCurve`.
        """
        mechanism = apply_adjacency(mechanism, adjacency)
        components = normalize_composition(mechanism, n)
        symmetric = all(m.is_symmetric for m, _ in components)
        directions = pair_compositions(components)
        if symmetric:
            directions = directions[:1]
        pairs = tuple(self._bounded(self._compose_checked(c), c) for c in directions)
        return PrivacyCurve(
            pairs=pairs,
            method=self.method,
            symmetric=symmetric and len(pairs) == 1,
            certified=self.certified,
            info=self.describe(components),
            warn_rel_error=self.warn_rel_error,
        )

    def _compose_checked(self, components: Components) -> PairCurve:
        """:meth:`compose_pair`, with float64 overflow (parameters near the float
        limit, e.g. ``mu = 1e308``) reported as a ``ValueError`` naming the
        mechanisms instead of an ``OverflowError`` / ``FloatingPointError``.
        Blatant outcomes (``EpsilonDelta``) are composed exactly around it
        (:mod:`symfdp.accountants._blatant`)."""
        from symfdp.accountants._blatant import BlatantPair, split_blatant

        finite, keep = split_blatant(components)
        if keep < 1.0:
            return BlatantPair(self._compose_checked(finite), keep)
        try:
            return self.compose_pair(components)
        except (OverflowError, FloatingPointError) as exc:
            names = ", ".join(f"{m!r} x {n}" for m, n in components)
            raise ValueError(
                f"{self.method}: the composition of {names} leaves the float64 "
                f"range ({type(exc).__name__}: {exc}); its parameters are too "
                "extreme for this accountant (accountants.Exact gives closed forms "
                "for Gaussian and pure-DP compositions)."
            ) from exc

    #: Whether the curves carry certified bounds.
    certified: ClassVar[bool] = False
    #: Whether leaving the range allowed by the loss's support is an error of the
    #: method (warned) or the looseness of a bound (silently tightened).
    warns_out_of_range: ClassVar[bool] = True

    def _bounded(self, pair: PairCurve, components: Components) -> PairCurve:
        """``pair`` clipped into the range its loss support allows
        (:class:`~symfdp.curve.BoundedLossPair`); certified pairs as they are."""
        if self.certified:
            return pair
        lo, hi = loss_range(components)
        if lo == -math.inf and hi == math.inf:
            return pair
        return BoundedLossPair(
            pair,
            lo,
            hi,
            self.method,
            self.warns_out_of_range,
            lattice_span=lattice_span(components),
        )

    @abstractmethod
    def compose_pair(self, components: Components) -> PairCurve:
        """Privacy of the composition of single dominating pairs."""

    def describe(self, components: Components) -> dict[str, Any]:
        """Diagnostics stored in ``PrivacyCurve.info`` (override to add): ``n``
        and ``composition``, the ``(repr(mechanism), n_i)`` pairs."""
        return {
            "n": sum(k for _, k in components),
            "composition": [(repr(m), k) for m, k in components],
        }
