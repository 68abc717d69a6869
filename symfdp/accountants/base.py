"""The accountant interface: ``compose(mechanism, n)`` -> :class:`PrivacyCurve`.

Every accountant reduces a (possibly heterogeneous) composition to one or two
composed dominating pairs (add/remove adjacency: the all-"add" and the all-"remove"
composition) and returns a :class:`~symfdp.curve.PrivacyCurve`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, final

import numpy as np

from symfdp._gc import cyclic_gc_paused
from symfdp._validation import MAX_COMPOSITIONS, check_choice, check_int, check_real
from symfdp.accountants._blatant import BlatantPair, split_blatant
from symfdp.accountants._cumulant_sums import summed_cumulants
from symfdp.accountants._exact_pairs import IDENTITY_PAIR
from symfdp.curve import BoundedLossPair, PairCurve, PrivacyCurve
from symfdp.interop.dp_events import composition_of_event, is_dp_event
from symfdp.mechanisms.adjacency import ADJACENCIES, with_adjacency
from symfdp.mechanisms.base import Mechanism

#: A normalised composition: distinct pair mechanisms with their counts.
Components = tuple[tuple[Mechanism, int], ...]


def normalize_composition(
    mechanism: Mechanism | Sequence[tuple[Mechanism, int]], n: int | None
) -> Components:
    """Validate ``compose``'s arguments and merge repeated mechanisms.

    Accepts ``(mechanism, n)``, a sequence of ``(mechanism, n_i)`` (``n`` None) or
    a dp-accounting ``DpEvent`` (:func:`symfdp.interop.from_dp_event`).

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
    """Split a composition into one composition of pairs per direction (a
    single-pair mechanism takes part in every direction)."""
    pairs = [m.pairs for m, _ in components]
    width = max(map(len, pairs))
    counts = [n for _, n in components]
    if all(len(ms) == width for ms in pairs):  # one pass per direction
        return tuple(
            tuple(zip(column, counts, strict=True))
            for column in zip(*pairs, strict=True)
        )
    return tuple(
        tuple((ms[min(k, len(ms) - 1)], n) for ms, n in zip(pairs, counts, strict=True))
        for k in range(width)
    )


def loss_range(components: Components) -> tuple[float, float]:
    """``(a, b)``: the range of the composed loss, the sums of the supports
    (a family's supports in one pass where its type has
    ``_plrv_supports_many``)."""
    by_type: dict[type, list[int]] = {}
    for i, (m, _) in enumerate(components):
        by_type.setdefault(type(m), []).append(i)
    ends = np.empty((len(components), 2))
    for kind, idx in by_type.items():
        many = getattr(kind, "_plrv_supports_many", None)
        members = [components[i][0] for i in idx]
        ends[idx] = (
            many(members)
            if many is not None and len(idx) > 1
            else [m.plrv_support() for m in members]
        )
    counts = np.array([n for _, n in components], dtype=np.float64)
    with np.errstate(invalid="ignore"):
        lo = math.fsum(counts * ends[:, 0])
        hi = math.fsum(counts * ends[:, 1])
    return (lo if not math.isnan(lo) else -math.inf), (
        hi if not math.isnan(hi) else math.inf
    )


def lattice_span(components: Components) -> float | None:
    """The largest lattice span of the components' losses when every loss is a
    lattice variable (:meth:`~symfdp.mechanisms.Mechanism.loss_lattice`), else
    None: a continuous component smooths the sum."""
    spans = [m.loss_lattice() for m, _ in components]
    if not spans or any(h is None for h in spans):
        return None
    return max(h for h in spans if h is not None)


def lattice_origin(components: Components, span: float | None) -> float | None:
    """A point of the lattice of span ``span`` carrying the composed loss (the
    sum of each component's smallest atom, times its count) when every
    component is a finite law on that lattice
    (:meth:`~symfdp.mechanisms.Mechanism.finite_loss_law`), else None."""
    if span is None:
        return None
    origin = 0.0
    for m, n in components:
        law = m.finite_loss_law()
        if law is None:
            return None
        l = law[0]
        k = (l - l[0]) / span
        if np.any(np.abs(k - np.round(k)) > 1e-9 * np.maximum(1.0, np.abs(k))):
            return None
        origin = math.fmod(origin + n * math.fmod(float(l[0]), span), span)
    return origin


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


@dataclass(frozen=True)
class Composed:
    """The pair curves of a composition, as an accountant's template builds them.

    Attributes:
        pairs: One pair curve per direction to cover (or one for all).
        symmetric: Whether the first pair's trade-off needs no symmetrisation.
    """

    pairs: tuple[PairCurve, ...]
    symmetric: bool


def is_identity(components: Components, order: int = 2) -> bool:
    r"""Whether the composed loss has no variance in every direction: it is then
    a.s. 0 and the curve is :math:`\mathrm{Id}`; ``order`` (>= 2) cumulants are
    computed (cached) per mechanism."""
    return all(
        summed_cumulants(d, order, "Q")[1] <= 0.0
        or summed_cumulants(d, order, "P")[1] <= 0.0
        for d in pair_compositions(components)
    )


class Accountant(ABC):
    r"""Base class: the template :meth:`compose` and its hooks.

    A subclass implements :meth:`compose_pair` (the curve of one direction) and
    may extend :meth:`describe` (what was asked) and :meth:`summary` (what was
    found), which make the curve's ``info``. The template handles a loss without
    variance (:math:`\mathrm{Id}`), the loss-support range
    (:class:`~symfdp.curve.BoundedLossPair`) and float64 overflow (``ValueError``).

    Args:
        warn_rel_error: Approximations warn once per query when the error
            estimate exceeds this fraction of an answer; ``None`` never.
    """

    method: ClassVar[str]
    #: Registry name (default: the class name in lower case).
    name: ClassVar[str]
    #: ``"certified"`` (a bracket), ``"bound"`` (one-sided) or ``"estimate"``.
    guarantee: ClassVar[str]
    #: Options that choosing the accountant by its registry name implies.
    name_options: ClassVar[dict[str, Any]] = {}
    warn_rel_error: float | None = DEFAULT_WARN_REL_ERROR
    #: Whether the curves carry certified bounds.
    certified: ClassVar[bool] = False
    #: Whether leaving the loss-support range is an error (warned) or slack.
    warns_out_of_range: ClassVar[bool] = True
    #: Whether a direction whose composed loss has no variance gets the exact
    #: Id curve instead of :meth:`compose_pair`.
    identity_without_variance: ClassVar[bool] = True
    #: Whether blatant outcomes (``EpsilonDelta``) are composed exactly around it.
    splits_blatant: ClassVar[bool] = True
    #: The cumulant order the method computes (the identity check reuses it).
    cumulant_order: int = 2

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

    @final
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
            mechanism: A mechanism (with ``n``), a list of ``(mechanism, n_i)``
                pairs, or a dp-accounting ``DpEvent`` (see
                :func:`normalize_composition`).
            n: The number of compositions of a single mechanism.
            adjacency: ``"add_or_remove"``, ``"replace_one"``, ``"add"`` or
                ``"remove"``; None keeps each mechanism's own pairs.

        Returns:
            A :class:`~symfdp.curve.PrivacyCurve`.
        """
        with cyclic_gc_paused():
            if is_dp_event(mechanism):  # the relation is applied to its mechanisms
                relation = "add_or_remove" if adjacency is None else adjacency
                mechanism, n = composition_of_event(mechanism, n, relation), None
                adjacency = None
            components = normalize_composition(apply_adjacency(mechanism, adjacency), n)
            return self._curve(components)

    def _curve(self, components: Components) -> PrivacyCurve:
        """The curve of a normalised composition (overridden by methods that
        answer from whole curves, e.g. ``Auto``)."""
        try:
            composed = self._compose(components)
        except (OverflowError, FloatingPointError) as exc:
            names = ", ".join(f"{m!r} x {n}" for m, n in components)
            raise ValueError(
                f"{self.method}: the composition of {names} leaves the float64 "
                f"range ({type(exc).__name__}: {exc}); its parameters are too "
                "extreme for this accountant (accountants.Exact gives closed forms "
                "for Gaussian and pure-DP compositions)."
            ) from exc
        info = {**self.describe(components), **self.summary(composed.pairs)}
        return self._privacy_curve(composed, info)

    def _privacy_curve(self, composed: Composed, info: dict[str, Any]) -> PrivacyCurve:
        return PrivacyCurve(
            pairs=composed.pairs,
            method=self.method,
            symmetric=composed.symmetric,
            certified=self.certified,
            info=info,
            warn_rel_error=self.warn_rel_error,
        )

    def _compose(self, components: Components) -> Composed:
        """One pair per direction (the first only when every mechanism is
        symmetric), each clipped into its loss range (:meth:`_bounded`)."""
        symmetric = all(m.is_symmetric for m, _ in components)
        directions = pair_compositions(components)
        if symmetric:
            directions = directions[:1]
        pairs = tuple(self._bounded(self._pair(c), c) for c in directions)
        return Composed(pairs, symmetric and len(pairs) == 1)

    def _pair(self, components: Components) -> PairCurve:
        r""":meth:`compose_pair`, :math:`\mathrm{Id}` for a loss without variance,
        blatant outcomes composed around it (:mod:`symfdp.accountants._blatant`),
        the finite part clipped into its own loss range with its lattice error
        (:meth:`_bounded`)."""
        if self.splits_blatant:
            finite, keep = split_blatant(components)
            if keep < 1.0:
                return BlatantPair(self._bounded(self._pair(finite), finite), keep)
        if self.identity_without_variance and self._is_identity(components):
            return IDENTITY_PAIR
        return self.compose_pair(components)

    def _is_identity(self, components: Components) -> bool:
        """:func:`is_identity` at :attr:`cumulant_order` (a method that has the
        variance from its own quantities may answer from those)."""
        return is_identity(components, self.cumulant_order)

    def _bounded(self, pair: PairCurve, components: Components) -> PairCurve:
        """``pair`` clipped into the range its loss support allows
        (:class:`~symfdp.curve.BoundedLossPair`); certified pairs as they are.
        A pair composed of ``components`` that keeps their :func:`loss_range`
        as ``support`` (SaddlePoint, Contour) lends it."""
        if self.certified:
            return pair
        support = pair.support
        lo, hi = loss_range(components) if support is None else support
        if lo == -math.inf and hi == math.inf:
            return pair
        span = lattice_span(components)
        return BoundedLossPair(
            pair,
            lo,
            hi,
            report=self.warns_out_of_range,
            lattice_span=span,
            lattice_origin=lattice_origin(components, span),
        )

    @abstractmethod
    def compose_pair(self, components: Components) -> PairCurve:
        """The curve of one direction: a composition of single dominating pairs
        (of every direction at once for a :class:`OnePairAccountant`)."""

    def describe(self, components: Components) -> dict[str, Any]:
        """What the accountant was asked: ``n`` and ``composition`` (extend)."""
        return {
            "n": sum(k for _, k in components),
            "composition": [(repr(m), k) for m, k in components],
        }

    def summary(self, pairs: tuple[PairCurve, ...]) -> dict[str, Any]:
        """What the pairs found: ``pairs``, a copy of each pair's ``info``."""
        return {"pairs": [dict(p.info) for p in pairs]}


class OnePairAccountant(Accountant):
    """An accountant whose :meth:`compose_pair` receives every direction and
    returns one symmetric pair (GDP-type methods, RDP), clipped to
    :math:`[-B^*, B^*]` when ``clips_to_loss_bound``."""

    #: Whether the pair is clipped into :math:`[-B^*, B^*]`.
    clips_to_loss_bound: ClassVar[bool] = True
    splits_blatant: ClassVar[bool] = False

    def _compose(self, components: Components) -> Composed:
        pair = self._pair(components)
        bound = symmetric_loss_bound(components) if self.clips_to_loss_bound else None
        span = lattice_span(components)
        # A symmetric law's lattice is its own reflection: one origin serves.
        symmetric = all(m.is_symmetric for m, _ in components)
        origin = lattice_origin(components, span) if symmetric else None
        if (bound is not None and bound < math.inf) or span is not None:
            reach = math.inf if bound is None else bound
            pair = BoundedLossPair(
                pair,
                -reach,
                reach,
                report=self.warns_out_of_range,
                lattice_span=span,
                lattice_origin=origin,
            )
        return Composed((pair,), True)

    def summary(self, pairs: tuple[PairCurve, ...]) -> dict[str, Any]:
        """The pair's own ``info``."""
        return dict(pairs[0].info)
