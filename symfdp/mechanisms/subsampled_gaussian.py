r"""The Poisson-subsampled Gaussian mechanism (DP-SGD).

Add pair :math:`P = N(0,1)`, :math:`Q = (1-p) N(0,1) + p N(\mu,1)`,
:math:`\mu = 1/\sigma`, trade-off :math:`p G_\mu + (1-p)\mathrm{Id}` (Zheng et
al. 2020, Lemma C.1; Kaissis et al. 2023, Sec. 2, "add one"); the remove pair is
its swap (CF-S2 of the saddle-point slides, with corrected weights: finding
``alghamdi2022-cfs2-pair``). Adds to :class:`PoissonSubsampled` a quadrature
rule in :math:`x` and the cumulants of :mod:`symfdp.mechanisms._gaussian_mixture`."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import NDArray
from scipy import special

from symfdp.mechanisms import _logmix as lm
from symfdp.mechanisms._complex_mgf import (
    GaussianLogMGF,
    LogMGF,
    SubsampledGaussianLogMGF,
)
from symfdp.mechanisms._gaussian_mixture import (
    GRID_HALF_WIDTH,
    subsampled_gaussian_cumulants,
    x_grid,
    x_grid_steps,
)
from symfdp.mechanisms._gaussian_mixture_batch import (
    subsampled_gaussian_cumulants_many,
)
from symfdp.mechanisms.base import (
    FloatArray,
    Mechanism,
    Pair,
    Param,
    PLRVQuadrature,
    Under,
)
from symfdp.mechanisms.gaussian import Gaussian
from symfdp.mechanisms.subsampled import PoissonSubsampled
from symfdp.mechanisms.user_defined import from_log_likelihood_ratio

#: Default quadrature rule: moments up to this order and |t| up to this value.
_RULE_ORDER = 12
#: Largest tilted rule (nodes): about 100 MB of work arrays per CGF call.
MAX_RULE_POINTS = 2**22


#: Add-pair cumulants of the batched pass by ``(mu, p, under)``, shared by the
#: add and remove pairs of every mechanism of that setting (read-only arrays).
_ADD_CUMULANTS: dict[tuple[float, float, str], FloatArray] = {}
#: Entries kept in :data:`_ADD_CUMULANTS` (emptied when full).
_ADD_CUMULANTS_SIZE = 1 << 16


#: :meth:`SubsampledGaussian._pq_constants` of an entry not served.
_UNSERVED = (0.5, 0.5, -math.log(2.0), -math.log(2.0), 1.0, 0.0, 0.0, 0.0)


def _remember_rows(keys: list[tuple[float, float, str]], rows: FloatArray) -> None:
    """Keep the read-only ``rows`` under ``keys`` in :data:`_ADD_CUMULANTS`
    (emptied first when they would not fit)."""
    if len(_ADD_CUMULANTS) + len(keys) > _ADD_CUMULANTS_SIZE:
        _ADD_CUMULANTS.clear()
    _ADD_CUMULANTS.update(zip(keys, rows, strict=True))


@dataclass(frozen=True, init=False, repr=False)
class SubsampledGaussian(PoissonSubsampled, base_family=Gaussian):
    """Poisson-subsampled Gaussian mechanism; give ``sigma`` or ``mu``.

    Args:
        p: Sampling probability, ``0 < p <= 1``.
        sigma: Noise multiplier at unit sensitivity, ``sigma > 0`` (``mu = 1/sigma``).
        mu: Effect size of one step, ``mu >= 0``.
        pair: Deprecated (``DeprecationWarning``): give the relation to
            ``compose(..., adjacency=)``. ``"add"``, ``"remove"`` or ``"both"``
            (the default, add-or-remove). For ``"both"`` the
            PLRV methods describe the add pair; ``tradeoff`` and
            ``privacy_profile`` describe the mechanism (see
            :class:`PoissonSubsampled`).

    Example:
        >>> m = SubsampledGaussian(sigma=1.0, p=0.01)
        >>> m.cumulants(2, under="P").round(8).tolist()
        [-8.189e-05, 0.00016009]
    """

    name: ClassVar[str] = "subsampled-gaussian"
    PARAMS: ClassVar[dict[str, Param]] = {
        "p": Param("sampling probability", (0.0, 1.0), (1e-4, 1.0), lo_open=True),
        "sigma": Param(
            "noise multiplier (unit sensitivity)", (0.0, math.inf), (0.3, 20.0), True
        ),
    }

    def __init__(
        self,
        p: float,
        sigma: float | None = None,
        mu: float | None = None,
        pair: Pair | None = None,
    ) -> None:
        if sigma is None and mu is None:
            raise ValueError("SubsampledGaussian needs sigma or mu.")
        if sigma is not None and mu is not None:
            raise ValueError("give SubsampledGaussian either sigma or mu, not both.")
        base = (
            Gaussian(sigma=sigma) if sigma is not None else Gaussian(mu=cast(float, mu))
        )
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "pair", pair)
        object.__setattr__(self, "_cache", {})
        self.__post_init__()

    @classmethod
    def _from_base(cls, base: Mechanism, p: float) -> Mechanism:
        return cls(p=p, mu=cast(Gaussian, base).mu)

    @property
    def mu(self) -> float:
        """Effect size ``1/sigma`` of one step."""
        return float(cast(Gaussian, self.base).mu)

    @property
    def sigma(self) -> float:
        """Noise multiplier ``1/mu`` (``inf`` for ``mu = 0``)."""
        return 1.0 / self.mu if self.mu > 0 else math.inf

    def _add_quadrature(self) -> PLRVQuadrature:
        grid = x_grid(self.mu, 2 * self.mu, (_RULE_ORDER + 1) * self.mu)
        y = self.mu * grid.x - self.mu**2 / 2
        return PLRVQuadrature(lm.log_mix(y, self.p), grid.log_w)

    def _base_rule(self) -> tuple[FloatArray, FloatArray]:
        grid = x_grid(self.mu, 2 * self.mu, (_RULE_ORDER + 1) * self.mu)
        return self.mu * grid.x - self.mu**2 / 2, grid.log_w

    def _tilted_base_rule(self, s: FloatArray) -> tuple[FloatArray, FloatArray]:
        r"""Trapezoid rule in :math:`x` following the add-pair P-law tilted by
        every entry of ``s``.

        The tilted log-density :math:`g(x) = s\,\ell(y) - x^2/2` has its mode at
        most :math:`s\mu` to the right for :math:`s > 0`; for :math:`s < 0` it is
        concave with :math:`g'' \le -1` and mode :math:`|x^*| < |s|\mu\sigma(-\mu^2/2)`
        (:math:`\sigma` the logistic weight), which bounds the grid's left end.

        Raises:
            QuadratureLimitError: the rule would exceed :data:`MAX_RULE_POINTS`.
        """
        s_lo = float(np.min(s, initial=0.0))
        s_hi = float(np.max(s, initial=1.0))
        mu = self.mu
        reach = float(special.expit(math.log(self.p) - self._log_q - mu * mu / 2))
        lo_shift = mu + max(-s_lo, 0.0) * mu * reach
        grid = x_grid(
            mu, lo_shift, max(s_hi, 1.0) * mu, -s_lo, max_points=MAX_RULE_POINTS
        )
        return mu * grid.x - mu * mu / 2, grid.log_w

    @staticmethod
    def _tilted_base_rules(
        mu: FloatArray, p: FloatArray, s_lo: FloatArray, s_hi: FloatArray
    ) -> tuple[FloatArray, FloatArray, NDArray[np.intp]] | None:
        r""":meth:`_tilted_base_rule` of many settings ``(mu, p)`` (``mu > 0``,
        ``p < 1``) for the tilts ``[s_lo, s_hi]`` each (``s_lo <= 0``,
        ``s_hi >= 1``): base losses and log-weights, one row each, padded with
        ``(0, -inf)``, and the rows' sizes; None when a rule would exceed
        :data:`MAX_RULE_POINTS` (left to :meth:`_tilted_base_rule`)."""
        reach = special.expit(np.log(p) - np.log1p(-p) - mu * mu / 2)
        lo_shift = mu + np.maximum(-s_lo, 0.0) * mu * reach
        hi_shift = np.maximum(s_hi, 1.0) * mu
        h = x_grid_steps(mu, -s_lo)
        first = np.floor((-GRID_HALF_WIDTH - lo_shift) / h)
        last = np.ceil((mu + GRID_HALF_WIDTH + hi_shift) / h)
        sizes = (last - first + 1).astype(np.intp)
        if not np.all(np.isfinite(last - first)) or sizes.max() > MAX_RULE_POINTS:
            return None
        j = np.arange(int(sizes.max()))
        pad = j[None, :] >= sizes[:, None]
        x = (first[:, None] + j[None, :]) * h[:, None]
        log_w = -0.5 * x * x - 0.5 * math.log(2 * math.pi) + np.log(h)[:, None]
        base = mu[:, None] * x - (mu * mu / 2)[:, None]
        base[pad] = 0.0
        log_w[pad] = -np.inf
        return base, log_w, sizes

    def _add_cumulants(self, order: int, under: Under) -> FloatArray:
        """High-precision add-pair cumulants (see ``_gaussian_mixture``).

        Always the one-setting route: a mechanism's answer does not depend on
        what other compositions computed before (the batched pass of
        :meth:`_cumulants_many`, which may differ in the last bits, fills only
        the caches of its own composition's mechanisms)."""
        if self.mu == 0.0:
            return np.zeros(order)
        kappa, _ = subsampled_gaussian_cumulants(self.mu, self.p, order, under)
        return kappa

    @classmethod
    def _plrv_supports_many(cls, mechanisms: Sequence[Mechanism]) -> FloatArray:
        r""":meth:`plrv_support` of many settings, rows ``(lo, hi)``: the base
        loss is unbounded, so :math:`(\log(1 - p), \infty)` for the add pair
        (:math:`-\infty` at ``p = 1``) and its negative, swapped, for the
        remove pair."""
        sg = cast(Sequence[SubsampledGaussian], mechanisms)
        p = np.array([m.p for m in sg])
        with np.errstate(divide="ignore"):
            lo = np.where(p == 1.0, -np.inf, np.log1p(-p))
        ends = np.stack([lo, np.full(p.shape, np.inf)], axis=1)
        remove = np.array([m.pair == "remove" for m in sg])
        ends[remove] = -ends[remove, ::-1]
        return ends

    @classmethod
    def _cumulants_many(
        cls, mechanisms: Sequence[Mechanism], order: int, under: Under
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        r"""Cumulants :math:`\kappa_1..\kappa_{order}` under ``under`` of many
        settings, the add-pair ones missing from the shared cache in one NumPy
        pass (:mod:`~symfdp.mechanisms._gaussian_mixture_batch`). Returns
        ``(rows, served)``: rows of the mechanisms served (``p < 1``,
        ``mu > 0``); the others are left to :meth:`cumulants`."""
        setting = np.array(
            [
                (cast(Gaussian, m.base).mu, m.p, m.pair == "remove")
                if isinstance(m, SubsampledGaussian)
                else (0.0, 1.0, 0.0)
                for m in mechanisms
            ],
            dtype=np.float64,
        ).reshape(-1, 3)
        remove = setting[:, 2] == 1.0
        served = (setting[:, 0] > 0.0) & (setting[:, 1] < 1.0)
        # The add pair's law: the remove pair's P is the add pair's Q.
        add_q = remove != (under == "Q")
        rows = np.zeros((len(mechanisms), order))
        idx = np.flatnonzero(served)
        if idx.size == 0:
            return rows, served
        law = ("P", "Q")
        get = _ADD_CUMULANTS.get
        hits = [
            get((mu, p, law[q]))
            for mu, p, q in zip(
                setting[idx, 0].tolist(),
                setting[idx, 1].tolist(),
                add_q[idx].tolist(),
                strict=True,
            )
        ]
        missing = [i for i, h in enumerate(hits) if h is None or h.size < order]
        if missing:
            # Both laws of each missing setting (the other direction asks for
            # the other law): one grid and one log_mix for the two.
            mu_p, where = np.unique(
                setting[idx[missing], :2], axis=0, return_inverse=True
            )
            kappa = subsampled_gaussian_cumulants_many(
                mu_p[:, 0], mu_p[:, 1], order, law
            )
            kappa.setflags(write=False)
            settings = mu_p.tolist()
            for j, name in enumerate(law):
                _remember_rows([(mu, p, name) for mu, p in settings], kappa[j])
            picked = kappa[add_q[idx[missing]].astype(np.intp), where.reshape(-1)]
            for i, row in zip(missing, picked, strict=True):
                hits[i] = row
        # Each mechanism of this composition keeps its row (its later queries,
        # e.g. the numerical accountant's grid, need no second pass).
        for i, q, row in zip(idx.tolist(), add_q[idx].tolist(), hits, strict=True):
            cast(SubsampledGaussian, mechanisms[i])._cache[("cumulants", law[q])] = row
        rows[idx] = np.stack([h[:order] for h in hits])  # type: ignore[index]
        rows[remove & served] *= (-1.0) ** np.arange(1, order + 1)
        return rows, served

    @classmethod
    def _plrv_pq_many(
        cls,
        mechanisms: Sequence[Mechanism],
        l: FloatArray,
        owner: NDArray[np.intp],
        *,
        sf: NDArray[np.bool_],
        inclusive: NDArray[np.bool_],
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
        r""":meth:`plrv_cdf_pq` (where ``sf[j]``: :meth:`plrv_sf_pq`) of
        ``mechanisms[owner[j]]`` at ``l[j]``, for all entries in one NumPy pass
        (the same operations and values as one mechanism at a time; the
        laws served are continuous, so ``inclusive`` does not matter). Returns ``(P, Q,
        served)``: entries of mechanisms not served (``p = 1``, ``mu = 0``, or
        another type) hold no values."""
        served = [
            isinstance(m, SubsampledGaussian) and m.mu > 0.0 and m.p < 1.0
            for m in mechanisms
        ]
        consts = [
            cast(SubsampledGaussian, m)._pq_constants() if ok else _UNSERVED
            for m, ok in zip(mechanisms, served, strict=True)
        ]
        p, keep, log_q, log_p, mu, mean_p, mean_q, pair = (
            np.array(col)[owner] for col in zip(*consts, strict=True)
        )
        # The remove pair's functions are the add pair's other ones at -l,
        # P and Q swapped (PoissonSubsampled._pq).
        remove = pair == 1.0
        s = np.where(remove, -l, l)
        y = lm.log_mix_inverse_rows(s, p, log_q, log_p)
        sign = np.where(remove != sf, -1.0, 1.0)
        base_p = special.ndtr(sign * ((y - mean_p) / mu))
        base_q = special.ndtr(sign * ((y - mean_q) / mu))
        add_q = keep * base_p + p * base_q
        return (
            np.where(remove, add_q, base_p),
            np.where(remove, base_p, add_q),
            np.array(served, dtype=bool),
        )

    def _pq_constants(self) -> tuple[float, ...]:
        """The constants of :meth:`_plrv_pq_many`, as the one-mechanism
        functions compute them: ``p``, ``1 - p``, ``log(1 - p)``, ``log p``,
        ``mu``, the means of the base loss under P and Q, and whether the pair
        is the remove pair (kept in the mechanism's cache)."""
        hit: tuple[float, ...] | None = self._cache.get("pq_constants")
        if hit is None:
            mu = self.mu
            hit = (
                self.p,
                self._q,
                self._log_q,
                math.log(self.p),
                mu,
                -(mu**2) / 2,
                mu**2 / 2,
                float(self.pair == "remove"),
            )
            self._cache["pq_constants"] = hit
        return hit

    def complex_log_mgf(self) -> LogMGF | None:
        """:class:`~symfdp.mechanisms._complex_mgf.SubsampledGaussianLogMGF` of
        the add (remove) pair; the Gaussian's at ``p = 1``; None at ``mu = 0``."""
        if self.mu <= 0:
            return None
        if self.p == 1.0:
            return GaussianLogMGF(self.mu)
        sign = -1 if self.pair == "remove" else 1
        return SubsampledGaussianLogMGF(self.mu, self.p, sign)

    def replace_one(self) -> Mechanism:
        r"""The dominating pair under replace-one neighbours,

        .. math::  P = (1-p) N(0,1) + p N(\mu,1), \qquad
                   Q = (1-p) N(0,1) + p N(-\mu,1),

        symmetric under :math:`x \mapsto -x` (dp-accounting's ``REPLACE`` adjacency
        of a Poisson-sampled Gaussian; at ``p = 1`` the Gaussian with effect size
        :math:`2\mu`), composed by quadrature
        (:func:`~symfdp.mechanisms.from_log_likelihood_ratio`, masses to ~1e-12)."""
        if self.mu == 0.0 or self.p == 1.0:
            return Gaussian(mu=2.0 * self.mu)
        args = (self._log_q, math.log(self.p), self.mu)
        return from_log_likelihood_ratio(
            functools.partial(_replace_one_llr, *args),
            functools.partial(_log_mixture, *args[:2], args[2]),
            log_density=True,
            symmetric=True,
            name=f"replace-one SubsampledGaussian(p={self.p!r}, sigma={self.sigma!r})",
        )

    def __repr__(self) -> str:
        return (
            f"SubsampledGaussian(p={self.p!r}, sigma={self.sigma!r}, "
            f"pair={self.pair!r})"
        )


def _log_mixture(log_keep: float, log_p: float, shift: float, x: Any) -> FloatArray:
    r""":math:`\log((1-p)\varphi(x) + p\varphi(x - shift))`."""
    xs = np.asarray(x, dtype=np.float64)
    return np.logaddexp(log_keep - xs * xs / 2, log_p - (xs - shift) ** 2 / 2) - (
        0.5 * math.log(2 * math.pi)
    )


def _replace_one_llr(log_keep: float, log_p: float, mu: float, x: Any) -> FloatArray:
    r""":math:`L = \log q/p` of the replace-one pair (see ``replace_one``)."""
    return _log_mixture(log_keep, log_p, -mu, x) - _log_mixture(log_keep, log_p, mu, x)
