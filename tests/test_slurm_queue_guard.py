"""The SLURM tests' queue guard (tests/test_slurm.py::wait_for_empty_queue), with a fake squeue
listing: it waits while another run's jobs hold the one-node test cluster and fails naming them
when they do not leave in time (a CI run once timed out behind a rehearsal of another checkout)."""

from __future__ import annotations

import pytest

import test_slurm


def _fake_squeue(listings):
    """A fake of test_slurm.foreign_jobs: returns the given listings in turn, then the last one."""
    calls = iter(listings)
    last = [listings[-1]]

    def fake():
        last[0] = next(calls, last[0])
        return last[0]
    return fake


def test_waits_until_the_queue_empties(monkeypatch):
    fake = _fake_squeue([["315 rehearsal RUNNING 1:02"], ["315 rehearsal RUNNING 1:12"], []])
    monkeypatch.setattr(test_slurm, "foreign_jobs", fake)
    test_slurm.wait_for_empty_queue(max_wait_s=5, poll_s=0.01)


def test_fails_naming_the_jobs_that_stay(monkeypatch):
    monkeypatch.setattr(test_slurm, "foreign_jobs", _fake_squeue([["412 pact_behaviour PENDING 0:00"]]))
    with pytest.raises(pytest.fail.Exception, match=r"412 pact_behaviour PENDING.*|still busy.*412"):
        test_slurm.wait_for_empty_queue(max_wait_s=0.05, poll_s=0.01)
