"""The SLURM tests' queue guard (tests/test_slurm.py::wait_for_empty_queue), with a fake squeue
listing: it waits while another run's jobs hold the one-node test cluster and fails naming them
when they do not leave in time (a CI run once timed out behind a rehearsal of another checkout)."""

from __future__ import annotations

import subprocess

import pytest

import test_slurm


def _fake_squeue(*listings):
    """A fake of test_slurm.queued_jobs: the given listings in turn, then the last one for ever."""
    calls = iter(listings)
    return lambda: next(calls, listings[-1])


def test_waits_until_the_queue_empties(monkeypatch):
    fake = _fake_squeue(["315 rehearsal RUNNING 1:02"], ["315 rehearsal RUNNING 1:12"], [])
    reads = []
    monkeypatch.setattr(test_slurm, "queued_jobs", lambda: reads.append(1) or fake())
    test_slurm.wait_for_empty_queue(max_wait_s=5, poll_s=0.01)
    assert len(reads) == 3  # returned only once the listing was empty


def test_fails_naming_the_jobs_that_stay(monkeypatch):
    monkeypatch.setattr(test_slurm, "queued_jobs", _fake_squeue(["412 pact_behaviour PENDING 0:00"]))
    busy = r"still busy \(or unreadable\) after 0.05 s.*412 pact_behaviour PENDING"
    with pytest.raises(pytest.fail.Exception, match=busy):
        test_slurm.wait_for_empty_queue(max_wait_s=0.05, poll_s=0.01)


def test_a_failing_squeue_is_not_an_empty_queue(monkeypatch):
    """squeue exits non-zero (slurmctld down): the listing says so, and the guard fails naming it
    instead of letting the test submit into a cluster it cannot see."""
    failed = subprocess.CompletedProcess(["squeue"], 1, "", "slurm_load_jobs error: Unable to contact slurm controller")
    monkeypatch.setattr(test_slurm, "_run", lambda cmd, timeout=30, **kw: failed)
    listing = test_slurm.queued_jobs()
    assert listing == ["(squeue failed, exit 1: slurm_load_jobs error: Unable to contact slurm controller)"]
    with pytest.raises(pytest.fail.Exception, match=r"squeue failed, exit 1"):
        test_slurm.wait_for_empty_queue(max_wait_s=0.05, poll_s=0.01)


def test_every_slurm_test_but_the_rehearsal_is_in_test_slurm():
    """README command 2 runs the slow tests in two workers, a test file per worker
    (``--dist loadfile``): SLURM tests of two files could run at once on the one test node, and
    one of them restarts the cluster."""
    from pathlib import Path

    tests, mark = Path(__file__).parent, "pytest.mark." + "slurm"
    where = sorted(str(p.relative_to(tests)) for p in tests.rglob("test_*.py") if mark in p.read_text())
    assert where == ["test_rehearsal.py", "test_slurm.py"], where
