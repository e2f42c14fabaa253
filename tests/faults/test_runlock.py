"""The workflow's own run lock (cultalign.core.runlock): a second run in the directory is refused,
naming the first, before Snakemake's lock (whose message advises --unlock) is reached; --unlock is
refused during a live run and called safe after a killed one; a run killed with kill -9 leaves no
stale lock."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import child_env, copy_worktree
from cultalign.core import runlock

HOLDER = """
import sys, time
from cultalign.core.runlock import hold_run_lock
hold_run_lock(sys.argv[1])
print("held", flush=True)
time.sleep(60)
"""


def test_fault_second_run_refused_then_free_after_kill9(tmp_path, monkeypatch):
    monkeypatch.setattr(runlock, "_held", {})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    first = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], env=env, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert first.stdout.readline().strip() == "held"
        with pytest.raises(runlock.RunLockError, match=rf"another Snakemake run .* \(pid {first.pid} on "):
            runlock.hold_run_lock(tmp_path)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    path = runlock.hold_run_lock(tmp_path)  # the kernel released the killed run's lock
    assert path == (tmp_path / ".snakemake" / "cultalign-run.lock").resolve()
    assert runlock.hold_run_lock(tmp_path) == path  # taking it again in the same process is a no-op


SMOKE = "results/smoke/generate_smoke.tsv"


@pytest.fixture
def work(tmp_path):
    """A copy of the checkout (no model folders: no command below runs a job)."""
    return copy_worktree(tmp_path / "work", link_models=False)


@pytest.fixture
def first_run(work):
    """A live first run: the workflow's run lock held by another process, which wrote its pid, host,
    start and command, and Snakemake's lock files of that run on the smoke target."""
    env = {**child_env(), "PYTHONPATH": str(work / "src")}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(work)], env=env, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    locks = _snakemake_locks(work)
    yield holder, locks
    holder.send_signal(signal.SIGKILL)
    holder.wait()


def _snakemake_locks(work: Path) -> Path:
    locks = work / ".snakemake" / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    for kind in ("input", "output"):
        (locks / f"0.{kind}.lock").write_text(f"{SMOKE}\n{work / SMOKE}\n")
    return locks


def _smk(work: Path, *args: str) -> tuple[int, str]:
    out = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", *args], cwd=work, capture_output=True,
                         text=True, timeout=300, env=child_env())
    return out.returncode, out.stdout + out.stderr


def test_fault_second_run_refused_at_parse_naming_the_first_not_by_snakemakes_lock(work, first_run):
    holder, _ = first_run
    rc, out = _smk(work, SMOKE)
    assert rc != 0
    assert "another Snakemake run is executing jobs" in out and f"(pid {holder.pid} on " in out
    assert re.search(r"started 20\d\d-\d\d-\d\dT[0-9:]+Z: -c " + re.escape(str(work)), out)  # start, command
    assert "Do NOT run `snakemake --unlock` now" in out and "`--unlock` is right only when" in out
    assert "LockException" not in out  # Snakemake's lock, whose message advises --unlock, is never reached


def test_fault_unlock_during_a_live_run_is_refused(work, first_run):
    holder, locks = first_run
    rc, out = _smk(work, "--unlock")
    assert rc != 0 and f"(pid {holder.pid} on " in out
    assert sorted(p.name for p in locks.iterdir()) == ["0.input.lock", "0.output.lock"]  # the live run's, kept


def test_dry_run_during_a_live_run_plans_and_names_the_run(work, first_run):
    holder, _ = first_run
    rc, out = _smk(work, "-n", SMOKE)
    assert rc == 0, out[-3000:]
    assert f"NOTE: a run is executing jobs in this directory (pid {holder.pid} on " in out


def test_fault_stale_snakemake_lock_after_a_killed_run_says_unlock_is_safe(work):
    _snakemake_locks(work)  # left by a run killed with kill -9; the kernel freed the run lock
    rc, out = _smk(work, SMOKE)
    assert rc != 0 and "LockException" in out  # Snakemake's own refusal
    assert "left from a run that was killed" in out and "`snakemake --unlock` is safe now" in out
    rc, out = _smk(work, "--unlock")
    assert rc == 0 and not (work / ".snakemake" / "locks").exists()


def _no_flock(fd, op):
    import errno

    raise OSError(errno.ENOLCK, "No locks available")


def test_fault_filesystem_without_flock_warns_and_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runlock, "_held", {})
    monkeypatch.setattr(runlock.fcntl, "flock", _no_flock)
    runlock.hold_run_lock(tmp_path)
    err = capsys.readouterr().err
    assert "cannot lock" in err and "No locks available" in err and "one run at a time" in err


def test_fault_cache_on_filesystem_without_flock_warns_and_works(tmp_path, monkeypatch, caplog):
    import logging

    from cultalign.models import cache as cache_mod

    monkeypatch.setattr(cache_mod.fcntl, "flock", _no_flock)
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    c = cache_mod.RequestCache(tmp_path, "m", writer="w")
    c.put_many([("k", "score", {}, {"logprobs": [-1.0], "token_counts": [1]})])
    assert c.get("k") == {"logprobs": [-1.0], "token_counts": [1]}
    c.close()
    assert any("cannot lock" in r.getMessage() and "w.sqlite" in r.getMessage() for r in caplog.records)
