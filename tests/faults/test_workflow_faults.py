"""Fault injection on real Snakemake runs of a small target (tests/config/small.yaml):
two concurrent runs in one directory, kill -9 of a model job, kill -9 of Snakemake.

Target: the NormAd construction of PACT (ingest, then one model job that makes
two model calls, preference and rewrite, each committed to the request cache as it finishes).  The
first run of the module (concurrency test) is uninterrupted and is the
reference: after each fault the rerun must finish with tables byte-identical
to it, and without redoing a model call that had completed (counted from the
sidecars' request counters and the cache files).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import child_env, copy_worktree, ensure_default_model
from workflow import SMALL_CONFIG

pytestmark = pytest.mark.slow

TARGET = "results/pact/construct/normad_rewritten.tsv"
UP_TO_DATE = "results/pact/ingest/normad_per_country.tsv"  # made by the first job of TARGET
MODEL_JOB_LOG = "logs/pact/construct/normad.log"
CACHE = "resources/cache/requests"
WRITER = "pact_construct_source-normad.sqlite"
CALLS = 2  # model calls of the job (sidecar "requests" of the uninterrupted run)


def smk_cmd(*args):
    return [sys.executable, "-m", "snakemake", *args, "--cores", "2", "--configfile", SMALL_CONFIG]


def start(work: Path, name: str, *args: str) -> subprocess.Popen:
    out = open(work / f"{name}.out", "w")
    return subprocess.Popen(smk_cmd(*args), cwd=work, stdout=out, stderr=subprocess.STDOUT, env=child_env(),
                            start_new_session=True)


def run(work: Path, name: str, *args: str, timeout: float = 400) -> tuple[int, str]:
    p = start(work, name, *args)
    try:
        rc = p.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        raise
    return rc, (work / f"{name}.out").read_text()


def wait_for(cond, timeout: float = 300, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def cache_file(work: Path) -> Path | None:
    hits = list((work / CACHE).glob(f"*/{WRITER}"))
    return hits[0] if hits else None


def committed(work: Path) -> int:
    """Model calls of the job committed to its cache file so far."""
    f = cache_file(work)
    if f is None:
        return 0
    try:
        con = sqlite3.connect(f"file:{f}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def tables(work: Path) -> dict[str, bytes]:
    return {str(p.relative_to(work)): p.read_bytes() for p in sorted((work / "results").rglob("*.tsv"))}


def requests_of(work: Path) -> dict:
    from cultalign.core.provenance import read_sidecar

    return read_sidecar(work / TARGET)["requests"]


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (through /proc)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def job_processes(snakemake_pid: int) -> list[int]:
    """The model job's script processes (python running the rule's script)."""
    pids = []
    for p in descendants(snakemake_pid):
        try:
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "construct" in cmd and "python" in cmd:
            pids.append(p)
    return pids


@pytest.fixture(scope="module")
def cold_copy(tmp_path_factory):
    ensure_default_model()

    def make(name):
        return copy_worktree(tmp_path_factory.mktemp(name) / "work")

    return make


@pytest.fixture(scope="module")
def reference(cold_copy):
    """Run A, uninterrupted, on a cold cache; while its model job runs, run C of a target that is up
    to date and run B of the same target start in the same directory.  (Had run C reached
    Snakemake and ended with "Nothing to be done", Snakemake 9.27.1 would have dropped every lock,
    run A's too.)"""
    work = cold_copy("reference")
    a = start(work, "run_a", TARGET)
    wait_for(lambda: (work / MODEL_JOB_LOG).exists() or a.poll() is not None, what="the model job of run A")
    assert a.poll() is None, (work / "run_a.out").read_text()[-3000:]
    rc_c, out_c = run(work, "run_c", UP_TO_DATE)
    locks_left = (work / ".snakemake" / "locks").exists()
    rc_b, out_b = run(work, "run_b", TARGET)
    a_busy_when_b_ended = a.poll() is None
    rc_a = a.wait(400)
    return {"work": work, "pid_a": a.pid, "rc_a": rc_a, "out_a": (work / "run_a.out").read_text(),
            "rc_b": rc_b, "out_b": out_b, "rc_c": rc_c, "out_c": out_c, "locks_left": locks_left,
            "a_busy": a_busy_when_b_ended,
            "tables": tables(work), "requests": requests_of(work), "rows": committed(work)}


def test_fault_concurrent_runs_second_refused_never_same_job_twice(reference):
    r = reference
    assert r["rc_a"] == 0, r["out_a"][-3000:]
    assert r["a_busy"], "run A ended before run B: its model job must outlast two Snakemake start-ups"
    # runs C and B are refused by the workflow's own lock while the Snakefile is parsed, naming run A,
    # before Snakemake's lock (whose message advises --unlock); they run nothing
    for rc, out in ((r["rc_c"], r["out_c"]), (r["rc_b"], r["out_b"])):
        assert rc != 0
        assert "another Snakemake run is executing jobs" in out and f"(pid {r['pid_a']} on " in out
        assert "Do NOT run `snakemake --unlock` now" in out and "LockException" not in out
        assert "Nothing to be done" not in out and "localrule" not in out and "Finished jobid" not in out
    assert r["locks_left"]  # run C never reached Snakemake: run A's locks stayed
    # run A ran the model job once: three calls, none from the cache
    assert r["out_a"].count("localrule pact_construct:") == 1
    assert r["requests"]["model_requests"] == CALLS and r["requests"]["cache_hits"] == 0 and r["rows"] == CALLS
    assert TARGET in r["tables"]


def test_fault_kill9_model_job_rerun_identical_no_call_redone(reference, cold_copy):
    work = cold_copy("kill_job")
    p = start(work, "run_1", TARGET)
    wait_for(lambda: committed(work) >= 1 or p.poll() is not None, what="the first committed model call")
    pids = job_processes(p.pid)
    assert pids, "no job process left to kill: the model job ended before its first call was seen committed"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    done = committed(work)
    rc1 = p.wait(300)
    out1 = (work / "run_1.out").read_text()
    assert rc1 != 0 and "Error in rule pact_construct" in out1
    assert not (work / TARGET).exists()  # Snakemake removed the job's outputs
    assert not list((work / "results" / "pact" / "construct").glob("*.provenance.json"))
    rc2, out2 = run(work, "run_2", TARGET)
    assert rc2 == 0, out2[-3000:]
    assert tables(work) == reference["tables"]  # byte-identical to the uninterrupted run
    req = requests_of(work)
    assert req["cache_hits"] >= done >= 1
    assert req["cache_hits"] + req["model_requests"] == CALLS  # completed calls served, none redone
    assert committed(work) == CALLS


def test_fault_kill9_snakemake_orphan_job_rerun_identical(reference, cold_copy):
    work = cold_copy("kill_snakemake")
    p = start(work, "run_1", TARGET)
    wait_for(lambda: committed(work) >= 1 or p.poll() is not None, what="the first committed model call")
    orphans = job_processes(p.pid)
    os.kill(p.pid, signal.SIGKILL)  # Snakemake only: its job lives on as an orphan
    p.wait(30)
    done = committed(work)
    assert orphans and any(Path(f"/proc/{o}").exists() for o in orphans)
    # the user's rerun: Snakemake's own stale lock first
    rc2, out2 = run(work, "run_2", TARGET)
    assert rc2 != 0 and "LockException" in out2 and "--unlock" in out2
    # the run lock died with Snakemake: the workflow says that the lock left is stale
    assert "left from a run that was killed" in out2 and "`snakemake --unlock` is safe now" in out2
    rc3, out3 = run(work, "unlock", "--unlock")
    assert rc3 == 0
    rc4, out4 = run(work, "run_4", TARGET, "--rerun-incomplete")
    assert rc4 == 0, out4[-3000:]
    assert not any(Path(f"/proc/{o}").exists() for o in orphans)  # the orphan finished first
    assert tables(work) == reference["tables"]
    req = requests_of(work)
    # the rerun's job waited for the orphan and found every call it made in the cache
    assert req["model_requests"] == 0 and req["cache_hits"] == CALLS >= done
    assert committed(work) == CALLS
    # Whether the rerun's job had to wait depends on timing: the orphan may finish its last calls
    # before that job opens the cache (seen on a loaded machine: nothing to wait for, and still no
    # call redone); when it did wait, it went on once the orphan was done.
    log = (work / MODEL_JOB_LOG).read_text()
    if "waiting for it to finish" in log:
        assert "the other writer finished" in log
