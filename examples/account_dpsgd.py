"""Account a DP-SGD training run with ``symfdp.TrainingAccountant``.

The accountant sits in the training loop like an Opacus-style accountant: one
``step(noise_multiplier=..., sample_rate=...)`` per optimiser step, any number of
distinct settings, ``get_epsilon(delta)`` whenever you want to report. Its state is
plain JSON, so a checkpointed run resumes without losing a step.

Run: ``python examples/account_dpsgd.py`` (a few seconds).
"""

from __future__ import annotations

import json
import math

import symfdp

DATASET_SIZE, BATCH_SIZE, EPOCHS, DELTA = 60_000, 256, 20, 1e-5
SAMPLE_RATE = BATCH_SIZE / DATASET_SIZE  # Poisson sampling with this expected batch
STEPS_PER_EPOCH = math.ceil(DATASET_SIZE / BATCH_SIZE)


def noise_multiplier(epoch: int) -> float:
    """A noise schedule: more noise while the model warms up."""
    return 1.5 if epoch < 5 else 1.1


def main() -> None:
    acc = symfdp.TrainingAccountant(method="saddlepoint")
    print(f"{'epoch':>5} {'steps':>6} {'epsilon':>9} {'mu*':>7}")
    for epoch in range(EPOCHS):
        for _ in range(STEPS_PER_EPOCH):
            # ... forward pass, per-example clipping, noise, optimiser step ...
            acc.step(noise_multiplier=noise_multiplier(epoch), sample_rate=SAMPLE_RATE)
        if (epoch + 1) % 5 == 0:
            eps, mu = acc.get_epsilon(DELTA), acc.get_mu()
            print(f"{epoch + 1:>5} {acc.steps:>6} {eps:>9.4f} {mu:>7.4f}")
    print("history (noise_multiplier, sample_rate, steps):", acc.history)

    # Checkpoint and resume: the state is JSON and restores every float exactly.
    text = json.dumps(acc.state_dict())
    resumed = symfdp.TrainingAccountant.from_state_dict(json.loads(text))
    assert resumed.get_epsilon(DELTA) == acc.get_epsilon(DELTA)
    print(f"state_dict: {len(text)} bytes of JSON; resumed epsilon is identical")

    # The same run, accounted by the certified numerical method: publish its upper
    # end. The saddle-point estimate is asymptotic; its error depends on the regime.
    certified = symfdp.TrainingAccountant.from_state_dict(
        {**json.loads(text), "method": "numerical"}
    )
    lo, hi = certified.get_epsilon_bounds(DELTA)
    eps = acc.get_epsilon(DELTA)
    print(f"certified epsilon in [{lo:.4f}, {hi:.4f}] (numerical)")
    gap = 100 * (eps / hi - 1)
    print(f"saddle-point estimate {eps:.4f} ({gap:+.1f}% vs the upper end)")
    if not hi - lo <= 1e-3 * hi:
        raise SystemExit("the certified bracket should be tight to 1e-3 here")


if __name__ == "__main__":
    main()
