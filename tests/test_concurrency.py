"""Concurrent and interrupted runs: the disk cache and the results writer.

Scenarios (each with real processes):

* two processes compiling the same derivations into one empty cache directory at
  the same moment, over several rounds: both succeed with identical
  fingerprints, every entry is valid and no temporary file is left;
* a process killed (SIGKILL) while writing a cache entry, at the two points a
  kill can hit (inside the write, and between the write and the rename), and
  the states such a kill could leave (truncated, empty or tampered entries next
  to stale temporary files): a later run trusts none of it and rebuilds;
* two ``symfdp reproduce`` processes writing into one results directory at once,
  on the same experiment and on different ones: both exit 0, every result
  directory is complete and matches its manifest, and ``REPORT.md`` is whole and
  lists every experiment;
* a ``symfdp reproduce`` killed in the middle of a run (the whole process
  group during ``compute``, the worker alone, or the writer between moving the
  old result away and installing the new one): nothing it leaves is trusted by
  a later run, which recomputes.

The kills are made deterministic without hooks in the library: the child
process replaces ``os.replace`` or ``json.dump`` by a function that kills the
process at the chosen point, or a toy experiment signals that it is inside
``compute`` and waits to be killed.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from symfdp.numeric import disk_cache
from symfdp.reproduce.discovery import load_module
from symfdp.reproduce.runner import OUTPUT_FILES, is_current, spec_hash

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGKILL") or sys.platform == "win32",
    reason="needs POSIX signals",
)

#: Rounds of the simultaneous-compile scenario.
ROUNDS = 3
#: Derivations compiled by each child (small orders: a cold derivation takes
#: about a second).
DERIVATIONS = (("edgeworth_cdf", 2), ("edgeworth_pdf", 2), ("cornish_fisher", 2))
#: Seconds a child may take before the test gives up on it.
TIMEOUT = 240


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SYMFDP_NO_CACHE"}
    env.update(SYMFDP_PROGRESS="0", MPLBACKEND="Agg", **extra)
    return env


def _wait_for(path: Path, procs: list[subprocess.Popen[str]]) -> None:
    """Wait until ``path`` exists (failing if a child died first)."""
    deadline = time.monotonic() + TIMEOUT
    while not path.exists():
        for p in procs:
            if p.poll() is not None:
                out, err = p.communicate()
                pytest.fail(f"child exited with {p.returncode} early:\n{out}\n{err}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {path}")
        time.sleep(0.01)


# ---------------------------------------------------------------------------
# Disk cache of compiled expressions

COMPILE_CHILD = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from symfdp.numeric.compile import evaluator   # imported before the barrier
    Path(sys.argv[1]).touch()                        # ready
    while not os.path.exists(sys.argv[2]):           # go
        time.sleep(0.001)
    names = {names!r}
    print(" ".join(evaluator(n, k).fingerprint for n, k in names))
    print("sympy" in sys.modules)
    """
).format(names=DERIVATIONS)


def _start_compilers(cache: Path, tmp: Path, count: int) -> list[subprocess.Popen[str]]:
    """Start ``count`` compiling children and release them at the same moment."""
    tmp.mkdir(parents=True, exist_ok=True)
    go = tmp / "go"
    ready = [tmp / f"ready-{i}" for i in range(count)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", COMPILE_CHILD, str(r), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(SYMFDP_CACHE_DIR=str(cache)),
        )
        for r in ready
    ]
    for r in ready:
        _wait_for(r, procs)
    go.touch()
    return procs


def _finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    outs = [p.communicate(timeout=TIMEOUT) for p in procs]
    return [(p.returncode, o, e) for p, (o, e) in zip(procs, outs, strict=True)]


def _entries(cache: Path) -> list[Path]:
    folder = cache / "evaluators"
    return sorted(folder.iterdir()) if folder.exists() else []


def _assert_valid_entries(cache: Path, fingerprints: list[str]) -> None:
    """One valid JSON entry per derivation, nothing else (no temporary files)."""
    files = _entries(cache)
    assert [f.suffix for f in files] == [".json"] * len(DERIVATIONS), files
    found = set()
    for f in files:
        record = json.loads(f.read_text())
        assert record["checksum"] == disk_cache.checksum(record)
        assert record["fingerprint"] == disk_cache.sha256(record["srepr"])
        found.add(record["fingerprint"])
    assert found == set(fingerprints)


def test_simultaneous_compiles_into_one_empty_cache(tmp_path: Path) -> None:
    reference: list[str] | None = None
    for round_ in range(ROUNDS):
        cache = tmp_path / f"cache-{round_}"
        results = _finish(_start_compilers(cache, tmp_path / f"r{round_}", 2))
        assert [rc for rc, _, _ in results] == [0, 0], results
        lines = [out.split("\n") for _, out, _ in results]
        assert lines[0][0] == lines[1][0], lines  # identical fingerprints
        fingerprints = lines[0][0].split()
        if reference is not None:
            assert fingerprints == reference  # and identical across rounds
        reference = fingerprints
        _assert_valid_entries(cache, fingerprints)
    # A warm process trusts the entries: it loads them without deriving (SymPy
    # is never imported).
    warm = _finish(_start_compilers(cache, tmp_path / "warm", 1))
    assert warm[0][0] == 0, warm
    out = warm[0][1].split("\n")
    assert out[0].split() == reference and out[1] == "False"


KILL_CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    from symfdp.numeric import disk_cache

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    if sys.argv[1] == "before-rename":
        # The entry is written and synced to its temporary file; the kill comes
        # before the rename that would publish it.
        disk_cache.os.replace = die
    else:
        # The kill comes in the middle of writing the temporary file.
        def half_dump(obj, fh, **kwargs):
            text = json.dumps(obj, **kwargs)
            fh.write(text[: len(text) // 2])
            fh.flush()
            die()
        disk_cache.json.dump = half_dump
    from symfdp.numeric.compile import evaluator
    evaluator("edgeworth_cdf", 2)
    print("not killed")
    """
)


@pytest.mark.parametrize("point", ["mid-write", "before-rename"])
def test_cache_write_killed_leaves_nothing_trusted(tmp_path: Path, point: str) -> None:
    cache = tmp_path / "cache"
    killed = subprocess.run(
        [sys.executable, "-c", KILL_CHILD, point],
        capture_output=True,
        text=True,
        env=_env(SYMFDP_CACHE_DIR=str(cache)),
        timeout=TIMEOUT,
    )
    assert killed.returncode == -signal.SIGKILL, killed
    left = _entries(cache)
    # What the kill left: one temporary file, never the entry itself.
    assert len(left) == 1 and left[0].name.startswith(".") and left[0].suffix == ".tmp"
    if point == "mid-write":
        with pytest.raises(json.JSONDecodeError):
            json.loads(left[0].read_text())
    # A later run ignores it, derives and publishes a valid entry.
    later = _finish(_start_compilers(cache, tmp_path / "later", 1))
    assert later[0][0] == 0, later
    fingerprints = later[0][1].split("\n")[0].split()
    assert later[0][1].split("\n")[1] == "True"  # derived, not loaded
    entries = [f for f in _entries(cache) if f.suffix == ".json"]
    assert len(entries) == len(DERIVATIONS)
    for f in entries:
        record = json.loads(f.read_text())
        assert record["checksum"] == disk_cache.checksum(record)
        assert record["fingerprint"] in fingerprints
    assert left[0].exists()  # the stale temporary file is left alone, unread


def test_states_a_kill_could_leave_are_not_trusted(tmp_path: Path) -> None:
    """Entries damaged in every way an interrupted write or a bad disk can damage
    them, next to stale temporary files: the later run rebuilds all of them."""
    clean = tmp_path / "clean"
    first = _finish(_start_compilers(clean, tmp_path / "c", 1))
    assert first[0][0] == 0, first
    reference = first[0][1].split("\n")[0].split()
    entries = [f for f in _entries(clean) if f.suffix == ".json"]
    text = entries[0].read_text()
    damaged = {
        "truncated": text[: len(text) // 3],
        "empty": "",
        "tampered": text.replace('"order": 2', '"order": 3', 1),
        "not-an-object": "[1, 2, 3]",
    }
    for kind, content in damaged.items():
        cache = tmp_path / kind
        folder = cache / "evaluators"
        folder.mkdir(parents=True)
        for f in entries:
            (folder / f.name).write_text(content)
            (folder / f".{f.stem}.abc123.tmp").write_text(text[:100])
        later = _finish(_start_compilers(cache, tmp_path / f"l-{kind}", 1))
        assert later[0][0] == 0, later
        out = later[0][1].split("\n")
        assert out[0].split() == reference and out[1] == "True", kind
        assert "rebuilding" in later[0][2], kind
        for f in entries:
            record = json.loads((folder / f.name).read_text())
            assert record["checksum"] == disk_cache.checksum(record), kind


# ---------------------------------------------------------------------------
# symfdp reproduce into one results directory

TOY = textwrap.dedent(
    """
    import os, signal, time
    from pathlib import Path
    import numpy as np
    import matplotlib.pyplot as plt
    from symfdp.reproduce import Result, Spec, claim_close

    SPEC = Spec(id="{sid}", title="toy {sid}", source="nowhere",
                params={{"k": 50}}, quick={{"k": 5}})

    def compute(params):
        marker = os.environ.get("TOY_MARKER")
        if marker:
            Path(marker + "-" + SPEC.id).write_text(str(os.getpid()))
        if os.environ.get("TOY_SELF_KILL") == SPEC.id:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(float(os.environ.get("TOY_SLEEP", "0")))
        x = np.arange(params["k"], dtype=float)
        return Result({{"data": {{"x": x, "y": x ** 2}}}},
                      (claim_close("sum", "sum of x", 1225.0, float(x.sum()),
                                   atol=0.5),))

    def plot(tables, params):
        fig, ax = plt.subplots()
        ax.plot(tables["data"]["x"], tables["data"]["y"])
        return fig
    """
)
IDS = ("toy-a", "toy-b")


@pytest.fixture
def toy_dir(tmp_path: Path) -> Path:
    exp = tmp_path / "experiments"
    exp.mkdir()
    for sid in IDS:
        (exp / f"{sid.replace('-', '_')}.py").write_text(TOY.format(sid=sid))
    (exp / "matplotlibrc").write_text("backend: agg\ntext.usetex: False\n")
    return exp


def _reproduce(
    toy_dir: Path, out: Path, *args: str, **env: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "symfdp", "reproduce", *args, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(SYMFDP_EXPERIMENTS_DIR=str(toy_dir), **env),
        start_new_session=True,  # its own process group (for the kill tests)
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _assert_complete(toy_dir: Path, out: Path, sid: str) -> dict:
    """The result directory is complete and agrees with its manifest."""
    folder = out / sid
    for name in OUTPUT_FILES:
        assert (folder / name).is_file(), (sid, name)
    manifest = json.loads((folder / "manifest.json").read_text())
    module = load_module(toy_dir / f"{sid.replace('-', '_')}.py")
    assert manifest["spec_hash"] == spec_hash(module, manifest["quick"])
    files = manifest["files"]
    assert set(files) == {p.name for p in folder.iterdir()} - {"manifest.json"}
    for name, digest in files.items():
        assert _sha256(folder / name) == digest, (sid, name)
    claims = json.loads((folder / "claims.json").read_text())
    assert [c["verdict"] for c in claims] == ["PASS"]
    assert is_current(folder, manifest["spec_hash"])
    return manifest


def _assert_report(out: Path, ids: tuple[str, ...]) -> None:
    text = (out / "REPORT.md").read_text()
    assert text.startswith("# symfdp reproduction report\n") and text.endswith("\n")
    for sid in ids:
        assert f"| [{sid}]({sid}/figure.png) | sum of x | 1225 |" in text, sid
        assert f"- **{sid}** — toy {sid}" in text, sid


def _assert_no_leftovers(out: Path) -> None:
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("targets", [("toy-a", "toy-a"), ("toy-a", "toy-b")])
def test_two_reproduce_processes_at_once(
    toy_dir: Path, tmp_path: Path, targets: tuple[str, str]
) -> None:
    """Both runs overlap in ``compute`` (each sleeps 1 s) and finish together."""
    out = tmp_path / "results"
    for round_ in range(2):
        procs = [
            _reproduce(toy_dir, out, sid, "--jobs", "1", "--force", TOY_SLEEP="1")
            for sid in targets
        ]
        results = _finish(procs)
        assert [rc for rc, _, _ in results] == [0, 0], (round_, results)
        for sid in set(targets):
            _assert_complete(toy_dir, out, sid)
        _assert_report(out, tuple(sorted(set(targets))))
        _assert_no_leftovers(out)


def test_reproduce_killed_during_compute_is_not_trusted(
    toy_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    marker = tmp_path / "inside"
    proc = _reproduce(
        toy_dir, out, "toy-a", "--jobs", "1", TOY_SLEEP="600", TOY_MARKER=str(marker)
    )
    _wait_for(Path(f"{marker}-toy-a"), [proc])
    os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its worker
    proc.communicate(timeout=TIMEOUT)
    assert not (out / "toy-a").exists()
    # All the kill leaves is the private temporary directory, which no run reads.
    left = [p.name for p in out.iterdir()]
    assert all(name.startswith(".toy-a.tmp-") for name in left), left
    later = _finish([_reproduce(toy_dir, out, "toy-a", "--jobs", "1")])
    assert later[0][0] == 0, later
    assert "toy-a" in later[0][1] and " ran " in later[0][1]
    _assert_complete(toy_dir, out, "toy-a")
    # Killing a forced re-run leaves the earlier complete result as it was.
    before = _sha256(out / "toy-a" / "manifest.json")
    proc = _reproduce(
        toy_dir,
        out,
        "toy-a",
        "--jobs",
        "1",
        "--force",
        TOY_SLEEP="600",
        TOY_MARKER=str(tmp_path / "again"),
    )
    _wait_for(tmp_path / "again-toy-a", [proc])
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=TIMEOUT)
    assert _sha256(out / "toy-a" / "manifest.json") == before
    _assert_complete(toy_dir, out, "toy-a")


def test_worker_killed_is_reported_as_an_error(toy_dir: Path, tmp_path: Path) -> None:
    """The worker of one experiment dies (as under the OOM killer): the run goes
    on with the others, reports the death and writes no result for it."""
    out = tmp_path / "results"
    run = _finish(
        [_reproduce(toy_dir, out, *IDS, "--jobs", "1", TOY_SELF_KILL="toy-a")]
    )
    rc, _, stderr = run[0]
    assert rc == 1, run
    assert "Traceback" not in stderr.split("failed:")[0], stderr
    assert not (out / "toy-a").exists()
    _assert_complete(toy_dir, out, "toy-b")
    report = (out / "REPORT.md").read_text()
    assert "- **toy-a**:" in report and "1 experiment error(s)" in report


WRITER_CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from symfdp.reproduce import runner

    calls = []
    real_replace = os.replace

    def replace(src, dst):
        calls.append((src, dst))
        if len(calls) == int(sys.argv[3]):
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)

    runner.os.replace = replace
    outcome = runner.run_experiment(Path(sys.argv[1]), Path(sys.argv[2]), force=True)
    print(outcome.status, outcome.error)
    """
)


@pytest.mark.parametrize(
    ("existing", "kill_at"),
    [(False, 1), (True, 1), (True, 2)],
    ids=["new-before-install", "old-moved-away", "old-gone-before-install"],
)
def test_writer_killed_while_moving_results(
    toy_dir: Path, tmp_path: Path, existing: bool, kill_at: int
) -> None:
    """The writer dies at the ``kill_at``-th rename of ``_move_into_place``: with
    no earlier result, before installing the new one; with one, before or after
    moving it away. A later run recomputes unless a complete result is there."""
    out = tmp_path / "results"
    module_path = toy_dir / "toy_a.py"
    if existing:
        first = _finish([_reproduce(toy_dir, out, "toy-a", "--jobs", "1")])
        assert first[0][0] == 0, first
    killed = subprocess.run(
        [sys.executable, "-c", WRITER_CHILD, str(module_path), str(out), str(kill_at)],
        capture_output=True,
        text=True,
        env=_env(SYMFDP_EXPERIMENTS_DIR=str(toy_dir)),
        timeout=TIMEOUT,
    )
    assert killed.returncode == -signal.SIGKILL, killed
    digest = spec_hash(load_module(module_path), False)
    trusted = is_current(out / "toy-a", digest)
    # Only an intact earlier result may still be trusted (it is complete).
    assert trusted == (existing and kill_at == 1)
    if trusted:
        _assert_complete(toy_dir, out, "toy-a")
    later = _finish([_reproduce(toy_dir, out, "toy-a", "--jobs", "1")])
    assert later[0][0] == 0, later
    assert (" skipped " if trusted else " ran ") in later[0][1]
    _assert_complete(toy_dir, out, "toy-a")


def test_damaged_result_is_recomputed(toy_dir: Path, tmp_path: Path) -> None:
    """A result directory whose files no longer match its manifest (a truncated
    table, a missing figure, a manifest cut short) is not trusted."""
    out = tmp_path / "results"
    damages = {
        "data.csv": lambda p: p.write_text(p.read_text()[:20]),
        "figure.png": lambda p: p.unlink(),
        "manifest.json": lambda p: p.write_text(p.read_text()[:50]),
        "claims.json": lambda p: p.write_text("[]"),
    }
    for name, damage in damages.items():
        first = _finish([_reproduce(toy_dir, out, "toy-a", "--jobs", "1")])
        assert first[0][0] == 0, first
        damage(out / "toy-a" / name)
        later = _finish([_reproduce(toy_dir, out, "toy-a", "--jobs", "1")])
        assert later[0][0] == 0, later
        assert " ran " in later[0][1], name
        _assert_complete(toy_dir, out, "toy-a")
