"""Every experiment runs in --quick mode and all of its claims hold.

One test per module of ``experiments/``; a claim explained by an error in the
source (``FAIL (source)``) is allowed, an unexplained ``FAIL`` is not. Claims whose
verdict rests on measured run times (``timed``) are run and recorded, not asserted:
the tests never assert timings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from symfdp.reproduce.discovery import discover
from symfdp.reproduce.paths import experiments_dir
from symfdp.reproduce.runner import OUTPUT_FILES, run_experiment

EXPERIMENTS = discover(experiments_dir())


def test_registry_is_consistent() -> None:
    assert EXPERIMENTS, "no experiments found"
    for sid, path in EXPERIMENTS.items():
        assert path.stem == sid.replace("-", "_").replace(".", "_")


@pytest.mark.parametrize("sid", sorted(EXPERIMENTS))
def test_experiment_quick(sid: str, tmp_path: Path) -> None:
    outcome = run_experiment(EXPERIMENTS[sid], tmp_path, quick=True, force=True)
    assert outcome.status == "ran", outcome.error
    for name in OUTPUT_FILES:
        assert (tmp_path / sid / name).stat().st_size > 0
    assert outcome.claims, f"{sid} checks no claim"
    failed = [
        f"{c['id']}: {c['ours']} vs {c['published']}"
        for c in outcome.failed_claims
        if not c["timed"]
    ]
    assert not failed, f"{sid}: " + "; ".join(failed)
