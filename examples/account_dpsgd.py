"""Account a DP-SGD training run with ``symfdp.TrainingAccountant``.

The accountant sits in the training loop like an Opacus-style accountant: one
``step(noise_multiplier=..., sample_rate=...)`` per optimiser step, any number of
distinct settings, and a certified bracket on epsilon(delta) whenever you want to
report (the default method, ``numerical``; publish the upper end). Its state is
plain JSON, so a checkpointed run resumes without losing a step. At the end, a
saddle-point estimate of the same run is read next to its error estimate and the
certified bracket: fast, but not a bound.

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
    acc = symfdp.TrainingAccountant()  # method="numerical": certified brackets
    print(f"{'epoch':>5} {'steps':>6} {'eps >=':>8} {'eps <=':>8} {'mu*':>7}")
    for epoch in range(EPOCHS):
        for _ in range(STEPS_PER_EPOCH):
            # ... forward pass, per-example clipping, noise, optimiser step ...
            acc.step(noise_multiplier=noise_multiplier(epoch), sample_rate=SAMPLE_RATE)
        if (epoch + 1) % 5 == 0:
            lo, hi = acc.get_epsilon_bounds(DELTA)
            mu = acc.get_mu()
            print(f"{epoch + 1:>5} {acc.steps:>6} {lo:>8.4f} {hi:>8.4f} {mu:>7.4f}")
    print("history (noise_multiplier, sample_rate, steps):", acc.history)

    # Checkpoint and resume: the state is JSON and restores every float exactly.
    text = json.dumps(acc.state_dict())
    resumed = symfdp.TrainingAccountant.from_state_dict(json.loads(text))
    assert resumed.get_epsilon_bounds(DELTA) == acc.get_epsilon_bounds(DELTA)
    print(f"state_dict: {len(text)} bytes of JSON; resumed epsilon is identical")

    # What to publish: the upper end of the certified bracket, rounded up.
    lo, hi = acc.get_epsilon_bounds(DELTA)
    print(f"certified epsilon in [{lo:.4f}, {hi:.4f}] (numerical)")
    print(f"publish: ({math.ceil(hi * 1e4) / 1e4}, {DELTA:g})-DP")
    if not hi - lo <= 1e-3 * hi:
        raise SystemExit("the certified bracket should be tight to 1e-3 here")

    # The same run by the saddle-point method: an asymptotic estimate with its own
    # error estimate (not a bound), read next to the bracket. With about one
    # expected sample per step it leaves its valid range here: it warns, and its
    # error estimate is inf (it cannot tell).
    fast = symfdp.TrainingAccountant.from_state_dict(
        {**json.loads(text), "method": "saddlepoint"}
    )
    curve = fast.curve()
    assert curve is not None  # the run has steps
    eps, err = curve.epsilon(DELTA), curve.epsilon_error(DELTA)
    where = "inside" if lo <= eps <= hi else "outside"
    print(f"saddle-point estimate {eps:.4f} +- {err:.2g} ({where} the bracket)")


if __name__ == "__main__":
    main()
