"""The workflow's own run lock (cultalign.core.runlock): a second run in the directory is refused,
naming the first; a run killed with kill -9 leaves no stale lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_the_workflow_takes_the_lock_when_it_starts_jobs():
    smk = (Path(__file__).resolve().parents[2] / "rules" / "common.smk").read_text()
    assert "onstart:\n    hold_run_lock()" in smk


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
