r"""The loss-range repair: a pair curve clipped into the range its composed loss
allows (:class:`BoundedLossPair`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from symfdp.curve.answer import Answer, FloatArray, PairCurve, Query, Repair
from symfdp.curve.tradeoff_error import tradeoff_errors
from symfdp.numeric.tabulate import alpha_grid
from symfdp.pld.profile import loss_range_profile_limits, loss_range_tradeoff_floor

#: Departures from the range below this are round-off (not reported).
_TOL = 1e-12


class BoundedLossPair(PairCurve):
    r"""A pair curve repaired into the range its composed loss allows.

    When the composed privacy loss :math:`T` lies in :math:`[a, b]` under Q (the
    sums of the components' supports), then for every real :math:`\varepsilon`

    .. math::  (1 - e^{\varepsilon - a})_+ \le \delta(\varepsilon)
               = E_Q[(1 - e^{\varepsilon - T})_+] \le (1 - e^{\varepsilon - b})_+,

    so :math:`\varepsilon(\delta) \in [a + \log(1 - \delta), b + \log(1 -
    \delta)]` (and :math:`\ge 0`) and :math:`f(\alpha) \ge \max\{1 -
    e^{b}\alpha, e^{a}(1 - \alpha)\}` (Dong et al. 2019, Prop. 2.4 at
    :math:`\varepsilon = b`). Values outside are clipped, recorded as a
    :class:`~symfdp.curve.answer.Repair` when ``report`` (approximations; for
    bounds, leaving the range is slack). Brackets are clipped alike.

    A loss on a lattice of span :math:`h` (``lattice_span``,
    :meth:`~symfdp.mechanisms.Mechanism.loss_lattice`) has a profile that a
    smooth approximation misses by :math:`h^2 |\tilde B_2(\theta)|/2\,
    f_Q(\varepsilon)` (at most :math:`\tfrac{h^2}{12} f_Q(\varepsilon)`, the
    bound used when the lattice's origin ``lattice_origin`` is unknown;
    :math:`\theta` the offset of :math:`\varepsilon` in its cell, see
    :meth:`~symfdp.mechanisms.Mechanism.loss_lattice`) whatever the number of
    compositions, :math:`f_Q =
    \delta'' - \delta'` the density of the composed loss under Q (Zheng et
    al. 2020, Lemma 5.1: :math:`\delta' = -e^{\varepsilon}
    P_P(L > \varepsilon)`), read off the approximation by central differences
    at :math:`\pm h/4`. It adds to the error estimate of delta; the bound
    (:math:`\theta` unknown) over :math:`|\delta'|` (at most :math:`h`) to the
    estimate of epsilon; the bound at the supporting :math:`\varepsilon^*(\alpha)`
    to the estimate of the trade-off: :math:`f(\alpha) = \sup_\varepsilon [1 -
    \delta(\varepsilon) - e^\varepsilon\alpha]` moves by at most the largest
    error of the profile near :math:`\varepsilon^*`, and a lattice law's
    profile takes every offset :math:`\theta` of the cell there (its trade-off
    is the chord between the Neyman--Pearson points of neighbouring lattice
    thresholds, while the smooth curve bends between them).

    An approximation's trade-off without its own estimate gets the profile's
    carried through the duality (:mod:`~symfdp.curve.tradeoff_error`). A
    clipped answer's estimate is the distance the clip moved it plus the
    analytic estimate, at most the width of the range (:func:`clipped_error`):
    an answer that left the range shows the approximation that far off there.

    Other attributes (diagnostics) are the wrapped pair's.
    """

    def __init__(
        self,
        pair: PairCurve,
        lo: float,
        hi: float,
        *,
        report: bool = True,
        lattice_span: float | None = None,
        lattice_origin: float | None = None,
    ) -> None:
        self.inner = pair
        self.loss_range = (float(lo), float(hi))
        self.report = report
        self.lattice_span = lattice_span
        self.lattice_origin = lattice_origin

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"BoundedLossPair({self.inner!r}, loss_range={self.loss_range})"

    @property
    def info(self) -> Mapping[str, Any]:  # type: ignore[override]
        return self.inner.info

    @property
    def support(self) -> tuple[float, float] | None:  # type: ignore[override]
        return self.loss_range

    @property
    def estimates_error(self) -> bool:
        return self.inner.estimates_error

    def answer(self, query: Query, points: FloatArray) -> Answer:
        if query is Query.DELTA:
            return self._delta(points)
        if query is Query.EPSILON:
            return self._epsilon(points)
        return self._tradeoff(points)

    # ------------------------------------------------------------ queries
    def _repair(
        self, query: Query, thing: str, at: FloatArray, raw: FloatArray, out: FloatArray
    ) -> tuple[Repair, ...]:
        if not self.report:
            return ()
        moved = np.abs(out - raw)
        k = int(np.argmax(moved))
        a, b = self.loss_range
        what = (
            f"{thing} left the range allowed by the composed privacy loss, which "
            f"lies in [{a:.6g}, {b:.6g}]; clipped into it (too few compositions "
            "for a loss of bounded support)"
        )
        return (Repair(query, what, float(at[k]), float(moved[k])),)

    def _delta(self, e: FloatArray) -> Answer:
        found = self.inner.answer(Query.DELTA, e)
        floor, top = loss_range_profile_limits(e, self.loss_range)
        raw = found.values
        out = np.minimum(np.maximum(raw, floor), top)
        repairs = found.repairs
        if (raw > top + _TOL).any() or (raw < floor - _TOL).any():
            repairs += self._repair(Query.DELTA, "delta(eps)", e, raw, out)
        err = found.errors
        if self.lattice_span is not None and err is not None:
            lattice, _ = self._lattice_floor(e, raw)
            err = _within(out, err + lattice, found.lower, found.upper)
        if err is not None:
            err = clipped_error(raw, out, err, floor, top)
        return Answer(
            out,
            err,
            _clip(found.lower, floor, top),
            _clip(found.upper, floor, top),
            repairs,
        )

    def _lattice_floor(
        self, e: FloatArray, delta: FloatArray, *, at_offset: bool = True
    ) -> tuple[FloatArray, FloatArray]:
        r"""The lattice error floor of :math:`\delta` at ``e`` (see the class),
        with the slope :math:`|\delta'|` there; ``delta`` is the inner pair's
        profile at ``e``."""
        h = float(self.lattice_span or 0.0)
        s = h / 4.0
        near = self.inner.answer(Query.DELTA, np.concatenate((e - s, e + s)))
        down, up = near.values[: e.size], near.values[e.size :]
        slope = np.abs(up - down) / (2.0 * s)
        curvature = (up - 2.0 * delta + down) / (s * s)
        density = np.maximum(curvature + slope, 0.0)
        factor = self._bernoulli_factor(e) if at_offset else 1.0 / 12.0
        return h * h * factor * density, slope

    def _bernoulli_factor(self, e: FloatArray) -> FloatArray:
        r""":math:`\max(|\tilde B_2(\theta)|/2, 1/96)` at the offset :math:`\theta`
        of ``e`` in its lattice cell when the lattice's origin is known (the
        floor stands for the next Euler--Maclaurin terms near the zeros of
        :math:`\tilde B_2`), else its largest value :math:`1/12`."""
        if self.lattice_origin is None or not self.lattice_span:
            return np.full(e.shape, 1.0 / 12.0)
        h = float(self.lattice_span)
        theta = np.mod((e - self.lattice_origin) / h, 1.0)
        b2 = theta * theta - theta + 1.0 / 6.0
        out: FloatArray = np.maximum(np.abs(b2) / 2.0, 1.0 / 96.0)
        return out

    def _epsilon(self, d: FloatArray) -> Answer:
        found = self.inner.answer(Query.EPSILON, d)
        a, b = self.loss_range
        raw = found.values
        out = raw
        repairs = found.repairs
        keep = np.log1p(-d) if (a > -np.inf or b < np.inf) else None
        floor: FloatArray | None = None
        cap: FloatArray | None = None
        if keep is not None and b < np.inf:
            cap = b + keep
            out = np.minimum(out, cap)
            # eps >= 0 by definition: a cap below 0 is no violation at eps = 0.
            top = np.maximum(cap, 0.0)
            if (raw > top + _TOL * np.maximum(np.abs(top), 1.0)).any():
                repairs += self._repair(Query.EPSILON, "epsilon(delta)", d, raw, out)
        if keep is not None and a > -np.inf:
            floor = np.maximum(a + keep, 0.0)
        out = np.maximum(out, 0.0 if floor is None else floor)
        err = found.errors
        if self.lattice_span is not None and err is not None:
            lattice = self._lattice_epsilon_floor(out)
            err = _within(out, err + lattice, found.lower, found.upper)
        if err is not None:
            low = np.zeros(d.shape) if floor is None else floor
            err = clipped_error(raw, out, err, low, cap)
        if found.lower is None and found.upper is None:
            return Answer(out, err, repairs=repairs)
        zero = np.zeros(d.shape)
        low = zero if floor is None else floor
        return Answer(
            out,
            err,
            _clip(found.lower, low, cap),
            _clip(found.upper, low, cap),
            repairs,
        )

    def _lattice_epsilon_floor(self, eps: FloatArray) -> FloatArray:
        """The lattice floor of delta at ``eps`` over the slope there (at most
        the span ``h``: the profile is off by at most one lattice cell)."""
        h = float(self.lattice_span or 0.0)
        at = self.inner.answer(Query.DELTA, eps).values
        # The answer's offset in its cell is as uncertain as the answer: the
        # largest factor.
        floor, slope = self._lattice_floor(eps, at, at_offset=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            width = np.where(slope > 0, floor / slope, h)
        out: FloatArray = np.minimum(np.nan_to_num(width, nan=h), h)
        return out

    def _tradeoff_floor(self, x: FloatArray) -> FloatArray:
        """The least trade-off the loss range allows at ``x`` (the class)."""
        return np.minimum(loss_range_tradeoff_floor(x, self.loss_range), 1.0 - x)

    def _floored_tradeoff(self, x: FloatArray) -> FloatArray:
        """The inner trade-off raised to the floor (values only)."""
        out: FloatArray = np.maximum(
            self.inner.answer(Query.TRADEOFF, x).values, self._tradeoff_floor(x)
        )
        return out

    def _profile_errors_near(self, e: FloatArray) -> FloatArray | None:
        """The inner profile's estimate at ``e`` plus the lattice term with the
        largest factor of the cell (for the trade-off, see the class)."""
        found = self.inner.answer(Query.DELTA, e)
        if found.errors is None or self.lattice_span is None:
            return found.errors
        floor, _ = self._lattice_floor(e, found.values, at_offset=False)
        out: FloatArray = found.errors + floor
        return out

    def _lattice_near(self, e: FloatArray) -> FloatArray:
        """The lattice term of :meth:`_profile_errors_near` alone."""
        at = self.inner.answer(Query.DELTA, e).values
        return self._lattice_floor(e, at, at_offset=False)[0]

    def _tradeoff(self, x: FloatArray) -> Answer:
        found = self.inner.answer(Query.TRADEOFF, x)
        floor = self._tradeoff_floor(x)
        raw = found.values
        out = np.maximum(raw, floor)
        repairs = found.repairs
        if np.any(raw < floor - _TOL):
            repairs += self._repair(Query.TRADEOFF, "the trade-off", x, raw, out)
        err = found.errors
        # On the alpha grid (the tabulation from which a curve of several pairs
        # forms its symmetrised trade-off, estimated from the maximum profile)
        # the duality's estimate is not formed.
        tabulation = x is alpha_grid()
        if (
            self.inner.estimates_error
            and (err is None or self.lattice_span)
            and not tabulation
        ):
            # The profile's estimate through the duality, or (the pair gave its
            # own) the lattice term alone.
            near = self._profile_errors_near if err is None else self._lattice_near
            dual = tradeoff_errors(x, self._floored_tradeoff, near, symmetric=False)
            err = dual if err is None or dual is None else err + dual
        if err is not None:
            err = clipped_error(raw, out, err, floor, 1.0 - x)
        return Answer(
            out,
            err,
            _clip(found.lower, floor, None),
            _clip(found.upper, floor, None),
            repairs,
        )


def clipped_error(
    raw: FloatArray,
    out: FloatArray,
    errors: FloatArray,
    lo: FloatArray,
    hi: FloatArray | None,
) -> FloatArray:
    r"""The error estimate of an answer ``raw`` clipped into its valid range
    ``[lo, hi]`` (``hi`` None: unbounded) as ``out``: the distance the clip
    moved it plus the analytic estimate ``errors``, at most the width of the
    range (no answer inside it is further from the truth, which lies there too);
    ``errors`` where nothing moved, ``inf`` where ``errors`` is (unknown)."""
    moved = np.abs(out - raw)
    total = errors + moved
    if hi is not None:
        with np.errstate(invalid="ignore"):
            capped = np.minimum(total, np.maximum(hi - lo, 0.0))
        # An unknown estimate stays unknown (the method cannot tell).
        total = np.where(np.isinf(errors), errors, capped)
    return np.asarray(total, np.float64)


def _within(
    value: FloatArray,
    err: FloatArray,
    lo: FloatArray | None,
    hi: FloatArray | None,
) -> FloatArray:
    """``err`` at most the distance from ``value`` to the far end of the
    inner pair's bracket ``[lo, hi]`` when it gives both sides (a term added to
    an estimate cannot move the truth out of a bracket that holds it)."""
    if lo is None or hi is None:
        return err
    out: FloatArray = np.minimum(err, np.maximum(value - lo, hi - value))
    return out


def _clip(
    side: FloatArray | None, lo: FloatArray, hi: FloatArray | None
) -> FloatArray | None:
    """A bracket side clipped into ``[lo, hi]`` (None stays None)."""
    if side is None:
        return None
    out = np.maximum(side, lo)
    return out if hi is None else np.minimum(out, hi)
