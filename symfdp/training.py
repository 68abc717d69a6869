r"""A stateful privacy accountant for training loops (DP-SGD).

Each DP-SGD step with Poisson sampling is the subsampled Gaussian mechanism
:math:`C_p(G_{1/\sigma})` (Dong et al. 2019, Thm 5.1, NoisySGD), ``sample_rate``
:math:`p`, ``noise_multiplier`` :math:`\sigma`; a run is the composition of its
steps, run-length encoded by distinct setting::

    acc = symfdp.TrainingAccountant()          # method="numerical": certified
    for batch in loader:
        ...
        acc.step(noise_multiplier=1.1, sample_rate=256 / 60_000)
    acc.get_epsilon(delta=1e-5), acc.get_epsilon_bounds(delta=1e-5)

The default method, ``numerical``, is certified (:meth:`~TrainingAccountant.
get_epsilon_bounds` brackets the exact value); ``saddlepoint`` is fast but
asymptotic and warns where few samples are expected. Also here: :data:`METHODS`,
:func:`make_accountant` and :func:`mu_star` (from :mod:`symfdp.runs`, shared with
``symfdp account`` and sweeps); :meth:`TrainingAccountant.runs` gives the run as
typed :class:`~symfdp.runs.Run` records.

Batches picked otherwise than by Poisson sampling are accounted with
``TrainingAccountant(sampler=...)`` (a :mod:`symfdp.samplers` record, e.g.
``RandomAllocation(steps=235)`` or ``Shuffle(batch_size=256, population=60_000)``):
each step is then the Gaussian mechanism inside that sampler, and the answers
carry the sampler's guarantee (:attr:`TrainingAccountant.guarantee`: two-sided,
upper or lower bound).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from typing import Any, Final

from symfdp._validation import (
    MAX_COMPOSITIONS,
    check_choice,
    check_int,
    check_real,
)
from symfdp._warnings import warn_pair_deprecated
from symfdp.adjacency import ADJACENCIES as ADJACENCIES
from symfdp.adjacency import DEFAULT_ADJACENCY as _DEFAULT
from symfdp.adjacency import PAIRS as PAIRS
from symfdp.adjacency import Adjacency
from symfdp.curve import PrivacyCurve
from symfdp.mechanisms import Gaussian
from symfdp.runs.build import build_mechanism
from symfdp.runs.methods import DEFAULT_METHOD as DEFAULT_METHOD
from symfdp.runs.methods import GUARANTEES as GUARANTEES
from symfdp.runs.methods import METHOD_DEFAULTS as METHOD_DEFAULTS
from symfdp.runs.methods import METHODS as METHODS
from symfdp.runs.methods import make_accountant as make_accountant
from symfdp.runs.methods import normalize_method as normalize_method
from symfdp.runs.run import Run
from symfdp.runs.summary import mu_star as mu_star
from symfdp.samplers import (
    Guarantee,
    SampledPrivacy,
    Sampler,
    account_sampler,
    sampler_classes,
)

#: The relation of a run when none is given.
DEFAULT_ADJACENCY: Final = _DEFAULT.value
#: Format tag and version of :meth:`TrainingAccountant.state_dict` (v1 loads).
STATE_FORMAT: Final = "symfdp.TrainingAccountant"
STATE_VERSION: Final = 3
#: The keys of a saved state (load_state_dict refuses any other).
_STATE_KEYS = frozenset(
    {"format", "version", "method", "adjacency", "options", "history", "sampler"}
)
_STATE_KEYS_V2 = _STATE_KEYS - {"sampler"}
_STATE_KEYS_V1 = _STATE_KEYS_V2 - {"adjacency"} | {"pair"}


def _sampler_state(sampler: Sampler | None) -> dict[str, Any] | None:
    """A sampler record as JSON data: its class name and fields."""
    if sampler is None:
        return None
    return {"type": type(sampler).__name__, **dataclasses.asdict(sampler)}  # type: ignore[call-overload, unused-ignore]


def _sampler_from_state(data: Any) -> Sampler | None:
    """The record :func:`_sampler_state` saved."""
    if data is None:
        return None
    classes = {cls.__name__: cls for cls in sampler_classes()}
    if not isinstance(data, dict) or data.get("type") not in classes:
        raise ValueError(
            f"state['sampler'] must be None or {{'type': one of {sorted(classes)}, "
            f"...fields}}. Found {data!r}."
        )
    fields = {k: v for k, v in data.items() if k != "type"}
    return classes[data["type"]](**fields)


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    for key, value in options.items():
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            raise TypeError(
                f"option {key}={value!r} must be JSON-serialisable (a number, "
                "string, bool, None or a list of those) so that state_dict() can "
                "save it."
            ) from None
        if json.loads(text) != value:
            raise TypeError(
                f"option {key}={value!r} does not survive a JSON round trip; pass "
                "plain Python numbers, strings or lists."
            )
    return dict(options)


class TrainingAccountant:
    r"""Privacy accountant for a training loop (DP-SGD with Poisson sampling).

    Args:
        method: A key of :data:`METHODS`; ``"numerical"`` (default, certified),
            ``"exact"`` only for ``sample_rate = 1``.
        pair: Deprecated: ``"both"``, ``"add"`` or ``"remove"`` for ``adjacency``.
        adjacency: ``"add_or_remove"`` (default; the larger of the two
            directions), ``"add"``, ``"remove"`` or ``"replace_one"`` (as
            dp-accounting's ``NeighboringRelation``).
        sampler: How the batches are picked (a :mod:`symfdp.samplers` record);
            None for Poisson sampling at each step's ``sample_rate``. With a
            sampler, :meth:`step` takes no ``sample_rate`` (the record holds
            it) and the relation is the sampler's own.
        **options: JSON-serialisable options of the accountant (``order=3``).

    A run with settings :math:`(\sigma_k, p_k)` used :math:`n_k` times is the
    composition of ``SubsampledGaussian(sigma_k, p_k)`` under ``adjacency``
    (Dong et al. 2019, Thm 5.1).

    Example:
        >>> acc = TrainingAccountant()
        >>> acc.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=1000)
        >>> round(acc.get_epsilon(delta=1e-5), 4)
        1.8283
        >>> [round(e, 4) for e in acc.get_epsilon_bounds(delta=1e-5)]
        [1.8281, 1.8285]
        >>> acc.history
        ((1.0, 0.01, 1000),)
    """

    def __init__(
        self,
        method: str = DEFAULT_METHOD,
        pair: str | None = None,
        *,
        adjacency: str | None = None,
        sampler: Sampler | None = None,
        **options: Any,
    ) -> None:
        if sampler is not None and not isinstance(sampler, Sampler):
            raise TypeError(
                f"sampler must be a symfdp.samplers record or None. Found {sampler!r}."
            )
        if sampler is not None and (adjacency is not None or pair is not None):
            raise ValueError(
                "adjacency is the sampler's own; give sampler= or adjacency=, not both."
            )
        self._sampler = sampler
        if pair is not None:
            check_choice("pair", pair, PAIRS)
            if adjacency is not None:
                raise ValueError(
                    "give adjacency only (pair is its deprecated spelling)."
                )
            warn_pair_deprecated("TrainingAccountant", pair)
            adjacency = Adjacency.from_pair(pair).value
        self._configure(
            method, DEFAULT_ADJACENCY if adjacency is None else adjacency, options
        )
        self._history: list[list[Any]] = []
        self._counts: dict[tuple[float, float], int] = {}

    def _configure(self, method: Any, adjacency: Any, options: dict[str, Any]) -> None:
        name = normalize_method(method)
        check_choice("adjacency", adjacency, ADJACENCIES)
        options = _check_options(options)
        self._accountant = make_accountant(name, **options)
        self._method, self._adjacency, self._options = name, str(adjacency), options
        self._curve: PrivacyCurve | None = None
        self._sampled: SampledPrivacy | None = None
        self._mechanisms: dict[tuple[float, float], Any] = {}

    # ------------------------------------------------------------ recording
    def step(
        self,
        *,
        noise_multiplier: float,
        sample_rate: float | None = None,
        num_steps: int = 1,
    ) -> None:
        """Record ``num_steps`` steps with the given noise multiplier and sample rate.

        Args:
            noise_multiplier: :math:`\\sigma > 0`, noise standard deviation over the
                clipping norm.
            sample_rate: Poisson sampling probability in (0, 1] (batch size over
                dataset size); required without a sampler, refused with one.
            num_steps: Number of steps taken with these settings, >= 1.

        Raises:
            ValueError / TypeError: a value outside its range (nothing recorded).
        """
        sigma = check_real(
            "noise_multiplier", noise_multiplier, 0.0, math.inf, lo_open=True
        )
        if self._sampler is None:
            if sample_rate is None:
                raise TypeError(
                    "sample_rate is required (Poisson sampling): a real number in "
                    "(0, 1]. Found None."
                )
            p = check_real("sample_rate", sample_rate, 0.0, 1.0, lo_open=True)
        elif sample_rate is not None:
            raise ValueError(
                f"sample_rate belongs to the sampler ({self._sampler!r}); leave it out."
            )
        else:
            p = math.nan  # the sampler's
        k = check_int("num_steps", num_steps, lo=1)
        if self.steps + k > MAX_COMPOSITIONS:
            raise ValueError(
                f"num_steps would bring the run to {self.steps + k:.4g} steps, more "
                f"than {MAX_COMPOSITIONS} (2**53), the most any accountant serves."
            )
        last = self._history[-1] if self._history else None
        if last is not None and last[0] == sigma and _same(last[1], p):
            last[2] += k
        else:
            self._history.append([sigma, p, k])
        key = (sigma, p) if self._sampler is None else (sigma, 0.0)
        self._counts[key] = self._counts.get(key, 0) + k
        self._curve = None
        self._sampled = None

    @property
    def history(self) -> tuple[tuple[float, float, int], ...]:
        """``((noise_multiplier, sample_rate, num_steps), ...)``, in order
        (``sample_rate`` None with a sampler)."""
        if self._sampler is not None:
            return tuple((s, None, k) for s, _, k in self._history)  # type: ignore[misc]
        return tuple((s, p, k) for s, p, k in self._history)

    @property
    def steps(self) -> int:
        """Total number of steps recorded."""
        return sum(self._counts.values())

    @property
    def method(self) -> str:
        """The accountant's name (a key of :data:`METHODS`)."""
        return self._method

    @property
    def adjacency(self) -> str:
        """The neighbouring relation (a value of :data:`ADJACENCIES`)."""
        return self._adjacency

    @property
    def sampler(self) -> Sampler | None:
        """The batch sampler (None: Poisson sampling at each step's rate)."""
        return self._sampler

    @property
    def guarantee(self) -> Guarantee:
        """How far the answers go: two-sided without a sampler, else the
        sampler's (:class:`~symfdp.samplers.Guarantee`)."""
        if self._sampler is None:
            return Guarantee.TWO_SIDED
        return self._sampler.guarantee

    @property
    def pair(self) -> str:
        """The relation in the deprecated ``pair`` spelling."""
        return Adjacency(self._adjacency).pair

    # ------------------------------------------------------------ answers
    def curve(self) -> PrivacyCurve | None:
        """The composed :class:`~symfdp.curve.PrivacyCurve` of the run so far
        (``None`` before the first step); cached until the history changes."""
        if not self._counts:
            return None
        if self._sampler is not None:
            curve = self.sampled().curve  # type: ignore[union-attr]
            return curve if isinstance(curve, PrivacyCurve) else None
        if self._curve is None:
            self._curve = self._accountant.compose(self._components())
        return self._curve

    def sampled(self) -> SampledPrivacy | None:
        """The run inside its sampler (None without a sampler or a step).

        One noise multiplier: :func:`~symfdp.samplers.account_sampler`. Several:
        the samplers whose steps compose (not random allocation or shuffling)
        compose each setting's pairs.

        Raises:
            ValueError: several noise multipliers with an epoch sampler, or a
                run that is no whole number of epochs.
        """
        if self._sampler is None or not self._counts:
            return None
        if self._sampled is None:
            settings = [(sigma, k) for (sigma, _), k in self._counts.items()]
            if len(settings) == 1:
                sigma, k = settings[0]
                self._sampled = account_sampler(
                    Gaussian(sigma=sigma),
                    self._sampler,
                    steps=k,
                    accountant=self._accountant,
                )
            else:
                self._sampled = self._mixed(settings)
        return self._sampled

    def _mixed(self, settings: list[tuple[float, int]]) -> SampledPrivacy:
        sampler = self._sampler
        assert sampler is not None  # the caller's condition
        parts: list[tuple[Any, int]] = []
        relation = None
        for sigma, k in settings:
            plan = sampler.composition(Gaussian(sigma=sigma), k)
            if plan is None:
                raise ValueError(
                    f"{sampler.name} is accounted per run of one noise multiplier; "
                    f"this run used {len(settings)}."
                )
            parts.extend(plan[0])
            relation = plan[1]
        curve = self._accountant.compose(parts, adjacency=relation)
        return SampledPrivacy(sampler, self._method, curve, bool(curve.certified))

    def runs(self) -> tuple[Run, ...]:
        """The run so far as typed records: one :class:`~symfdp.runs.Run` per
        distinct setting, with its number of steps, in order of first use.

        Raises:
            ValueError: the accountant has a sampler (its run is no Poisson run).
        """
        if self._sampler is not None:
            raise ValueError(
                f"runs() describes Poisson runs; this accountant samples by "
                f"{self._sampler!r} (ask sampled())."
            )
        return tuple(
            Run(
                mechanism="subsampled-gaussian",
                sigma=sigma,
                sample_rate=p,
                steps=k,
                adjacency=Adjacency(self._adjacency),
            )
            for (sigma, p), k in self._counts.items()
        )

    def _components(self) -> list[tuple[Any, int]]:
        out = []
        for key, run in zip(self._counts, self.runs(), strict=True):
            m = self._mechanisms.get(key)
            if m is None:
                m = self._mechanisms[key] = build_mechanism(run)
            out.append((m, run.steps))
        return out

    def get_epsilon(self, delta: float) -> float:
        r""":math:`\varepsilon(\delta)` of the run (0 before the first step); for
        ``numerical`` the centre of the :meth:`get_epsilon_bounds` bracket."""
        delta = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        sampled = self.sampled()
        if sampled is not None:
            return float(sampled.epsilon(delta))
        curve = self.curve()
        return 0.0 if curve is None else float(curve.epsilon(delta))

    def get_epsilon_bounds(self, delta: float) -> tuple[float, float]:
        """Certified ``(lower, upper)`` bounds on epsilon(delta); certified methods
        (``numerical``, ``exact``) only."""
        delta = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        self._require_certified("get_epsilon_bounds")
        sampled = self.sampled()
        if sampled is not None:
            lo, hi = sampled.epsilon_bounds(delta)
            return float(lo), float(hi)
        curve = self.curve()
        if curve is None:
            return 0.0, 0.0
        lo, hi = curve.epsilon_bounds(delta)
        return float(lo), float(hi)

    def get_delta(self, eps: float) -> float:
        r"""The privacy profile :math:`\delta(\varepsilon)` of the run (0 before the
        first step)."""
        eps = check_real("eps", eps, 0.0, math.inf)
        sampled = self.sampled()
        if sampled is not None and sampled.certified:
            lo, hi = sampled.pair_delta_bounds(eps)
            return float(lo if sampled.guarantee is Guarantee.LOWER else hi)
        curve = self.curve()
        return 0.0 if curve is None else float(curve.delta(eps))

    def get_mu(self) -> float:
        r"""The GDP parameter :math:`\mu^*` of the run (:func:`mu_star`); 0 before
        the first step.

        Raises:
            ValueError: the sampler's answer is no composed curve (random
                allocation, shuffling).
        """
        curve = self.curve()
        if curve is None and self.sampled() is not None:
            raise ValueError(
                f"mu* needs a composed curve; {self._sampler!r} is answered by its "
                "own certified bounds (get_epsilon_bounds)."
            )
        return 0.0 if curve is None else float(mu_star(curve))

    def _require_certified(self, what: str) -> None:
        if GUARANTEES[self._method] != "certified":
            raise ValueError(
                f"{what} needs a certified method ('numerical' or 'exact'); this "
                f"accountant uses method={self._method!r}."
            )

    # ------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume, as JSON-serialisable data (floats
        round-trip exactly): version 2 for Poisson runs, version 3 (with the
        sampler record) otherwise."""
        state: dict[str, Any] = {
            "format": STATE_FORMAT,
            "version": 2,
            "method": self._method,
            "adjacency": self._adjacency,
            "options": copy.deepcopy(self._options),
            "history": [[s, p, k] for s, p, k in self._history],
        }
        if self._sampler is not None:  # version 3: a sampler and no rates
            state["version"] = STATE_VERSION
            state["history"] = [[s, None, k] for s, _, k in self._history]
            state["sampler"] = _sampler_state(self._sampler)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Replace this accountant's method, options and history by ``state``
        (from :meth:`state_dict`). Validated first; on error nothing changes.

        Raises:
            ValueError / TypeError: ``state`` is malformed (the message says where).
        """
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict. Found {type(state).__name__}.")
        if state.get("format") != STATE_FORMAT:
            raise ValueError(
                f"state['format'] must be {STATE_FORMAT!r}. "
                f"Found {state.get('format')!r}."
            )
        version = state.get("version")
        if type(version) is not int or version not in (1, 2, STATE_VERSION):
            raise ValueError(
                f"state['version'] must be {STATE_VERSION} (or 2, 1). "
                f"Found {state.get('version')!r}."
            )
        keys = {1: _STATE_KEYS_V1, 2: _STATE_KEYS_V2}.get(version, _STATE_KEYS)
        unknown = set(state) - keys
        if unknown:
            raise ValueError(
                f"state has unknown keys {sorted(map(str, unknown))}; a state of "
                f"version {version} has exactly {sorted(keys)}."
            )
        missing = keys - {"format", "version"} - set(state)
        if missing:
            raise ValueError(
                f"state of version {version} is missing {sorted(missing)}."
            )
        if version == 1:  # {"pair": "both"|"add"|"remove"}
            pair = state["pair"]
            if not isinstance(pair, str) or pair not in PAIRS:
                raise ValueError(
                    f"state['pair'] must be one of {PAIRS}. Found {pair!r}."
                )
            adjacency = Adjacency.from_pair(pair).value
        else:
            adjacency = state["adjacency"]
        options = state["options"]
        if not isinstance(options, dict):
            raise TypeError("state['options'] must be a dict.")
        history = state["history"]
        if not isinstance(history, list):
            raise TypeError("state['history'] must be a list.")
        sampler = _sampler_from_state(state.get("sampler"))
        fresh = (
            TrainingAccountant(state["method"], adjacency=adjacency, **options)
            if sampler is None
            else TrainingAccountant(state["method"], sampler=sampler, **options)
        )
        for i, entry in enumerate(history):
            if not isinstance(entry, (list, tuple)) or len(entry) != 3:
                raise ValueError(
                    f"state['history'][{i}] must be [noise_multiplier, sample_rate, "
                    f"num_steps]. Found {entry!r}."
                )
            try:
                if type(entry[2]) is not int:  # a saved count is an int (JSON too)
                    raise TypeError(
                        "num_steps must be an int in a saved state. "
                        f"Found {entry[2]!r}."
                    )
                fresh.step(
                    noise_multiplier=entry[0], sample_rate=entry[1], num_steps=entry[2]
                )
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"state['history'][{i}]: {exc}") from None
        self.__dict__.update(fresh.__dict__)

    @classmethod
    def from_state_dict(cls, state: dict[str, Any]) -> TrainingAccountant:
        """A new accountant restored from :meth:`state_dict` output."""
        acc = cls()
        acc.load_state_dict(state)
        return acc

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self._options.items())
        how = (
            f"adjacency={self._adjacency!r}"
            if self._sampler is None
            else f"sampler={self._sampler!r}"
        )
        return (
            f"TrainingAccountant(method={self._method!r}, {how}{opts}; "
            f"{self.steps} steps in {len(self._history)} runs)"
        )


def _same(a: float, b: float) -> bool:
    """Equal rates (NaN, the sampler's rate, equals itself)."""
    return a == b or (math.isnan(a) and math.isnan(b))
