"""An Opacus accountant backed by :class:`~symfdp.TrainingAccountant`.

:class:`OpacusAccountant` implements Opacus's ``IAccountant`` interface
(``step``, ``get_epsilon``, ``len``, ``mechanism``, ``state_dict``, an
assignable ``history``), so symfdp's certified numerical accountant (or any
other method) answers::

    from opacus import PrivacyEngine
    from symfdp.interop.opacus import register

    register()                                  # once: accountant="symfdp"
    engine = PrivacyEngine(accountant="symfdp")
    model, optimizer, loader = engine.make_private(...)
    ...                                         # train
    engine.get_epsilon(delta=1e-5)              # certified upper bound

Each step is the Poisson-subsampled Gaussian under add/remove adjacency (as in
Opacus's own accountants). With a certified method and ``pessimistic=True``
(default) ``get_epsilon`` is the upper end of the certified bracket. The class
does not import Opacus or PyTorch; :func:`register` imports Opacus
(``pip install symfdp[opacus]``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, Final

from symfdp._validation import check_bool, check_real
from symfdp.training import GUARANTEES, TrainingAccountant

#: The name under which :func:`register` registers the accountant with Opacus
#: (``PrivacyEngine(accountant=MECHANISM)``).
MECHANISM: Final = "symfdp"


class OpacusAccountant:
    """Opacus ``IAccountant`` interface over :class:`~symfdp.TrainingAccountant`.

    Args:
        method: A method of :data:`symfdp.training.METHODS` (default
            ``"numerical"``, certified).
        pessimistic: With a certified method, report the upper end of the
            certified bracket (default) instead of its centre.
        **options: Passed to the accountant (see :class:`~symfdp.TrainingAccountant`).

    Attributes:
        history: Opacus's run-length-encoded list of ``(noise_multiplier,
            sample_rate, num_steps)``; assignable, as Opacus's
            ``get_noise_multiplier`` does.
    """

    def __init__(
        self, method: str = "numerical", *, pessimistic: bool = True, **options: Any
    ) -> None:
        self._pessimistic = check_bool("pessimistic", pessimistic)
        self._acc = TrainingAccountant(method, **options)

    @classmethod
    def mechanism(cls) -> str:
        """The accounting mechanism's name, :data:`MECHANISM`."""
        return MECHANISM

    @property
    def accountant(self) -> TrainingAccountant:
        """The :class:`~symfdp.TrainingAccountant` that does the accounting."""
        return self._acc

    @property
    def history(self) -> list[tuple[float, float, int]]:
        return [tuple(h) for h in self._acc.history]  # type: ignore[misc]  # tuple() drops arity

    @history.setter
    def history(self, value: Iterable[Any]) -> None:
        state = self._acc.state_dict()
        state["history"] = [list(entry) for entry in value]
        self._acc = TrainingAccountant.from_state_dict(state)

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step (Opacus calls this after every optimiser step)."""
        self._acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate)

    def __len__(self) -> int:
        """Number of steps recorded."""
        return self._acc.steps

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        r""":math:`\varepsilon(\delta)` of the run so far (0 before the first step):
        the certified upper bound for a certified method with
        ``pessimistic=True``, else the method's estimate. Extra arguments of
        other Opacus accountants (``alphas``, ``eps_error``) are ignored."""
        delta = check_real("delta", delta, 0.0, 1.0, lo_open=True, hi_open=True)
        if self._pessimistic and GUARANTEES[self._acc.method] == "certified":
            return self._acc.get_epsilon_bounds(delta)[1]
        return self._acc.get_epsilon(delta)

    def get_optimizer_hook_fn(self, sample_rate: float) -> Callable[[Any], None]:
        """The hook Opacus attaches to its ``DPOptimizer``: one :meth:`step` per
        optimiser step with the optimiser's noise multiplier and
        ``sample_rate * accumulated_iterations`` (as Opacus's own accountants)."""
        sample_rate = check_real("sample_rate", sample_rate, 0.0, 1.0, lo_open=True)

        def hook_fn(optim: Any) -> None:
            self.step(
                noise_multiplier=optim.noise_multiplier,
                sample_rate=sample_rate * optim.accumulated_iterations,
            )

        return hook_fn

    def state_dict(self, destination: Any = None) -> Any:
        """Opacus's checkpoint state (``history``, ``mechanism``) plus
        ``symfdp``, the :meth:`~symfdp.TrainingAccountant.state_dict` that
        restores the method and its options."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = self.history
        destination["mechanism"] = self.mechanism()
        destination["symfdp"] = self._acc.state_dict()
        return destination

    def load_state_dict(self, state_dict: Any) -> None:
        """Restore from :meth:`state_dict` (validated as Opacus does).

        Raises:
            ValueError: empty state, missing keys, another mechanism.
        """
        if not state_dict:
            raise ValueError(
                "state dict is either None or empty and hence cannot be loaded "
                "into the accountant."
            )
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict does not have the key `{key}`.")
        if state_dict["mechanism"] != self.mechanism():
            raise ValueError(
                f"state_dict of {state_dict['mechanism']!r} cannot be loaded into an "
                f"accountant with mechanism {self.mechanism()!r}."
            )
        if "symfdp" in state_dict:
            self._acc = TrainingAccountant.from_state_dict(state_dict["symfdp"])
        else:
            self.history = state_dict["history"]

    def __repr__(self) -> str:
        return f"OpacusAccountant({self._acc!r}, pessimistic={self._pessimistic})"


def register(force: bool = True) -> None:
    """Register :class:`OpacusAccountant` with Opacus as ``"symfdp"``, so that
    ``PrivacyEngine(accountant="symfdp")`` and ``make_private_with_epsilon``
    (which builds accountants by name) use it. Needs Opacus."""
    from opacus.accountants.registry import register_accountant

    register_accountant(MECHANISM, OpacusAccountant, force=check_bool("force", force))
