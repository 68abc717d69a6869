"""The Opacus accountant: the ``IAccountant`` interface, then real training.

The first tests call the interface as Opacus does (no Opacus needed); the last
ones train a tiny model on the CPU with the real Opacus ``PrivacyEngine`` and
compare with Opacus's own RDP accountant on the same history (RDP is an upper
bound on the exact epsilon, so the certified upper bound must lie below it).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from symfdp import TrainingAccountant
from symfdp.interop.opacus import OpacusAccountant

# Opacus's own warnings (insecure RNG for experiments, backward hooks on inputs
# without gradients) are not under test.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Secure RNG turned off:UserWarning"),
    pytest.mark.filterwarnings("ignore:Full backward hook:UserWarning"),
]


def test_interface_as_opacus_calls_it() -> None:
    acc = OpacusAccountant()
    assert acc.mechanism() == OpacusAccountant.mechanism() == "symfdp"
    assert len(acc) == 0 and acc.get_epsilon(1e-5) == 0.0
    hook = acc.get_optimizer_hook_fn(sample_rate=0.01)
    optim = SimpleNamespace(noise_multiplier=1.0, accumulated_iterations=1)
    for _ in range(3):
        hook(optim)
    optim.accumulated_iterations = 2  # gradient accumulation doubles the rate
    hook(optim)
    assert len(acc) == 4
    assert acc.history == [(1.0, 0.01, 3), (1.0, 0.02, 1)]
    ref = TrainingAccountant()
    ref.step(noise_multiplier=1.0, sample_rate=0.01, num_steps=3)
    ref.step(noise_multiplier=1.0, sample_rate=0.02)
    assert acc.get_epsilon(1e-5) == ref.get_epsilon_bounds(1e-5)[1]
    centre = OpacusAccountant(pessimistic=False)
    centre.history = acc.history
    assert centre.get_epsilon(1e-5) == ref.get_epsilon(1e-5)


def test_history_is_assignable_and_state_round_trips() -> None:
    # Opacus's get_noise_multiplier assigns history = [(sigma, q, steps)].
    acc = OpacusAccountant(method="saddlepoint")
    acc.history = [(1.1, 0.05, 2000)]  # n p = 100: within its valid range
    assert len(acc) == 2000
    state = json.loads(json.dumps(acc.state_dict()))
    assert state["mechanism"] == "symfdp"
    other = OpacusAccountant()
    other.load_state_dict(state)
    assert other.accountant.method == "saddlepoint"
    assert other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    # Opacus's own state (history and mechanism only) keeps this method.
    plain = OpacusAccountant()
    plain.load_state_dict({"history": [[1.1, 0.05, 2000]], "mechanism": "symfdp"})
    assert plain.history == [(1.1, 0.05, 2000)]
    for bad, match in [
        ({}, "empty"),
        ({"mechanism": "symfdp"}, "history"),
        ({"history": [], "mechanism": "rdp"}, "mechanism"),
    ]:
        with pytest.raises(ValueError, match=match):
            plain.load_state_dict(bad)
    with pytest.raises(ValueError, match="noise_multiplier"):
        plain.history = [(-1.0, 0.01, 3)]
    assert plain.history == [(1.1, 0.05, 2000)]  # unchanged


# ------------------------------------------------------------ real Opacus
def _train(engine, steps: int, *, noise_multiplier: float = 1.0):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x = torch.randn(256, 4)
    y = (x[:, 0] > 0).long()
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x, y), batch_size=16
    )
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer, loader = engine.make_private(
        module=model,
        optimizer=optimizer,
        data_loader=loader,
        noise_multiplier=noise_multiplier,
        max_grad_norm=1.0,
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    done = 0
    while done < steps:
        for xb, yb in loader:
            if done == steps:
                break
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
            done += 1
    return loader


def test_privacy_engine_trains_with_symfdp() -> None:
    pytest.importorskip("torch")
    opacus = pytest.importorskip("opacus")
    from opacus.accountants import RDPAccountant

    from symfdp.interop.opacus import register

    register()
    engine = opacus.PrivacyEngine(accountant="symfdp")
    assert isinstance(engine.accountant, OpacusAccountant)
    _train(engine, 12)
    acc = engine.accountant
    assert len(acc) == 12
    ((sigma, rate, steps),) = acc.history
    assert (sigma, rate, steps) == (1.0, 1 / 16, 12)
    eps = engine.get_epsilon(delta=1e-5)
    lo, hi = acc.accountant.get_epsilon_bounds(1e-5)
    assert lo <= eps == hi
    rdp = RDPAccountant()
    rdp.history = list(acc.history)
    assert eps < rdp.get_epsilon(delta=1e-5)
    # a checkpoint's accountant state restores the same answer
    restored = OpacusAccountant()
    restored.load_state_dict(acc.state_dict())
    assert restored.get_epsilon(1e-5) == eps


def test_make_private_with_epsilon_calibrates_with_symfdp() -> None:
    torch = pytest.importorskip("torch")
    opacus = pytest.importorskip("opacus")
    from symfdp.interop.opacus import register

    register()
    engine = opacus.PrivacyEngine(accountant="symfdp")
    x = torch.randn(64, 4)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x, torch.zeros(64).long()), batch_size=8
    )
    model = torch.nn.Linear(4, 2)
    _, optimizer, _ = engine.make_private_with_epsilon(
        module=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        data_loader=loader,
        target_epsilon=2.0,
        target_delta=1e-5,
        epochs=2,
        max_grad_norm=1.0,
    )
    check = OpacusAccountant()
    check.history = [(optimizer.noise_multiplier, 1 / 8, 16)]
    # Opacus's bisection stops within its epsilon_tolerance 0.01 below target
    assert 1.99 - 0.01 <= check.get_epsilon(1e-5) <= 2.0
