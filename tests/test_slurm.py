"""Snakemake through a real SLURM cluster (sbatch + sacct) on localhost.

Needs the single-node test cluster of ``setup/slurm_cluster.sh`` (slurmctld,
slurmd, slurmdbd with MariaDB, one fake GPU GRES backed by /dev/null);
``setup/run-tests.sh`` starts it before pytest. Every test skips with the
reason when ``sbatch`` is missing or the cluster is not up.

- test_slurm_toy_workflow: a self-contained 2-rule workflow through the test
  profile; the GPU rule must go through sbatch with gres/gpu accounted, the
  localrule must not be submitted.
- test_slurm_hpc_profile_toy: the same toy workflow through the real HPC
  profile ``slurm/profile.yaml`` (conda swapped out: none here).
- test_slurm_smoke_generate: the real workflow's ``smoke_generate`` rule
  (real model, gpu=1) on a copy of the working tree, through the test profile.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from core.test_error_tail import FAILING_SCRIPT, SNAKEFILE

from conftest import copy_worktree

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
TEST_PROFILE = "tests/slurm/profile"
TEST_ACCOUNT = "cultalign"  # the account setup/slurm_cluster.sh creates and the test profile names
HPC_PROFILE = ROOT / "slurm" / "profile.yaml"
SMOKE_TARGET = "results/smoke/generate_smoke.tsv"
RUN_TIMEOUT_S = 600  # whole snakemake run, enforced with `timeout -k`
# The test cluster has one node: jobs another run left in the queue hold it, and a test's own
# job would wait behind them until the test's timeout.  Tests wait this long for an empty queue.
QUEUE_WAIT_S = int(os.environ.get("SLURM_TEST_QUEUE_WAIT_S", "1800"))


# ---------------------------------------------------------------- helpers ---

def _run(cmd, timeout=30, **kw):
    return subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout, **kw)


def _cluster_problem() -> str | None:
    """None when sbatch/sinfo/sacct work and the node is usable, else why not."""
    for tool in ("sbatch", "sinfo", "sacct"):
        if shutil.which(tool) is None:
            return f"`{tool}` not on PATH (start the test cluster: bash setup/slurm_cluster.sh)"
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "snakemake-executor-plugin-slurm is not installed in this Python"
    try:
        info = _run(["sinfo", "-h", "-N", "-o", "%T"], timeout=20)
    except subprocess.TimeoutExpired:
        return "sinfo timed out: slurmctld not answering (bash setup/slurm_cluster.sh)"
    if info.returncode != 0:
        return (f"SLURM cluster not up (sinfo: {info.stderr.strip()}); "
                "run bash setup/slurm_cluster.sh")
    states = info.stdout.split()
    if not any(s.rstrip("*~#") in ("idle", "mixed", "allocated") for s in states):
        return f"no usable SLURM node (states: {states}); run bash setup/slurm_cluster.sh"
    try:
        acct = _run(["sacct", "-n", "-X", "-S", "now-1minute"], timeout=20)
    except subprocess.TimeoutExpired:
        return "sacct timed out: slurmdbd not answering (bash setup/slurm_cluster.sh)"
    if acct.returncode != 0:
        return f"sacct does not work (no slurmdbd?): {acct.stderr.strip()}"
    return None


def queued_jobs() -> list[str]:
    """The jobs in the test cluster's queue (id, name, state, elapsed), one line each; called before a
    test submits anything, so every job listed belongs to another run.  A failed ``squeue`` is one
    entry saying so, not an empty queue: the guard then waits as for a busy queue and names it."""
    try:
        out = _run(["squeue", "-h", "-o", "%i %j %T %M"], timeout=20)
    except subprocess.TimeoutExpired:
        return ["(squeue timed out after 20 s)"]
    if out.returncode != 0:
        return [f"(squeue failed, exit {out.returncode}: {out.stderr.strip()[:200]})"]
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def poll_queue(done, max_wait_s: float, poll_s: float, jobs: list[str] | None = None) -> list[str]:
    """Read the queue every ``poll_s`` until ``done(queue lines)`` or ``max_wait_s``; the last reading.
    ``jobs``: a reading the caller already has (it is not taken again)."""
    deadline = time.monotonic() + max_wait_s
    jobs = queued_jobs() if jobs is None else jobs
    while not done(jobs) and time.monotonic() < deadline:
        time.sleep(poll_s)
        jobs = queued_jobs()
    return jobs


def wait_for_empty_queue(max_wait_s: int = QUEUE_WAIT_S, poll_s: float = 10.0) -> None:
    """Wait until no job is queued or running on the test cluster, at most ``max_wait_s``; then fail
    naming the jobs (another run's jobs on the one node, not this test's fault to wait out silently)."""
    jobs = queued_jobs()
    if jobs:
        print(f"[slurm] waiting for {len(jobs)} job(s) of another run to leave the queue: {jobs[:5]}")
        jobs = poll_queue(lambda q: not q, max_wait_s, poll_s, jobs)
    if jobs:
        pytest.fail(f"the test cluster's queue is still busy (or unreadable) after {max_wait_s} s, with jobs "
                    f"this test did not submit (another run on the same cluster?): {jobs[:10]}", pytrace=False)


@pytest.fixture(scope="module")
def slurm_cluster():
    problem = _cluster_problem()
    if problem:
        pytest.skip(problem)
    wait_for_empty_queue()


def _env() -> dict[str, str]:
    """Environment for snakemake: this venv first, no SLURM job context."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    return env


def _snakemake(workdir: Path, *args: str, timeout: int = RUN_TIMEOUT_S):
    """Run snakemake (this interpreter) in workdir under `timeout -k`; log to workdir."""
    cmd = ["timeout", "-k", "15", str(timeout), sys.executable, "-m", "snakemake", *args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, check=False, cwd=workdir, env=_env(), capture_output=True,
                          text=True, timeout=timeout + 60)
    elapsed = time.monotonic() - t0
    out = proc.stdout + proc.stderr
    (workdir / "snakemake-run.log").write_text(out)
    return proc.returncode, out, elapsed


def _failure_report(workdir: Path, out: str) -> str:
    parts = [out[-6000:]]
    for log in sorted((workdir / ".snakemake" / "slurm_logs").rglob("*.log")):
        parts.append(f"----- {log}\n{log.read_text(errors='replace')[-2000:]}")
    return "\n".join(parts)


def _submitted(out: str) -> tuple[str, dict[str, str]]:
    """(run UUID, {slurm job id: rule}) from snakemake's output."""
    m = re.search(r"SLURM run ID: ([0-9a-f-]{36})", out)
    assert m, "no 'SLURM run ID' in snakemake output"
    jobs = {}
    for jid, rule in re.findall(
        r"submitted with SLURM jobid (\d+) \(log: [^)]*/slurm_logs/rule_([^/]+)/", out
    ):
        jobs[jid] = rule
    return m.group(1), jobs


def _sacct_jobs(run_uuid: str, expect: set[str], wait_s: float = 30) -> dict[str, dict]:
    """sacct rows (allocations only) whose job name is the snakemake run UUID."""
    fields = ["JobID", "JobName", "State", "Comment", "AllocTRES", "ReqTRES", "Partition",
              "Account", "AllocCPUS"]
    deadline = time.monotonic() + wait_s
    while True:
        res = _run(["sacct", "-n", "-P", "-X", "-S", "now-1day", "--name", run_uuid,
                    "-o", ",".join(fields)])
        assert res.returncode == 0, f"sacct failed: {res.stderr}"
        rows = {}
        for line in res.stdout.splitlines():
            vals = line.split("|")
            if len(vals) == len(fields):
                rows[vals[0]] = dict(zip(fields, vals))
        if expect <= set(rows) or time.monotonic() > deadline:
            return rows
        time.sleep(1)


TOY_SNAKEFILE = r"""
localrules: all, summarize

rule all:
    input: "results/summary.txt"

rule cpu_step:
    output: "results/cpu.txt"
    shell: "echo slurm_job=$SLURM_JOB_ID partition=$SLURM_JOB_PARTITION > {output}"

rule gpu_step:
    output: "results/gpu.txt"
    resources: gpu=1
    shell: "echo slurm_job=$SLURM_JOB_ID cuda=${{CUDA_VISIBLE_DEVICES:-none}} > {output}"

rule summarize:
    input: "results/gpu.txt", "results/cpu.txt"
    output: "results/summary.txt"
    shell: "cat {input[0]} > {output}; echo local_job=${{SLURM_JOB_ID:-none}} >> {output}"
"""


def _check_toy_run(workdir: Path, rc: int, out: str, account: str | None):
    assert rc == 0, _failure_report(workdir, out)
    lines = (workdir / "results" / "summary.txt").read_text().split()
    gpu_line = dict(x.split("=", 1) for x in lines[:2])
    assert gpu_line["slurm_job"].isdigit(), lines  # ran inside a SLURM job
    assert lines[2] == "local_job=none", lines  # localrule ran in the snakemake process

    run_uuid, submitted = _submitted(out)
    # two sbatch submissions, the GPU and the CPU rule; the localrules never went to SLURM
    assert sorted(submitted.values()) == ["cpu_step", "gpu_step"], submitted
    by_rule = {rule: jid for jid, rule in submitted.items()}
    jid = by_rule["gpu_step"]
    assert gpu_line["slurm_job"] == jid
    rows = _sacct_jobs(run_uuid, set(submitted))
    assert set(rows) == set(submitted), rows
    # the profile's partition config sends the CPU job to debug (no rule names a partition)
    assert rows[by_rule["cpu_step"]]["Partition"] == "debug", rows
    assert "partition=debug" in (workdir / "results" / "cpu.txt").read_text()
    row = rows[jid]
    assert row["State"] == "COMPLETED", row
    assert row["Comment"] == "rule_gpu_step", row
    assert "gres/gpu=1" in row["AllocTRES"] or "gres/gpu=1" in row["ReqTRES"], row
    assert row["Partition"] == "gpu", row  # GPU job routed to the GPU partition
    if account:
        assert row["Account"] == account, row


# ------------------------------------------------------------------ tests ---

def test_slurm_toy_workflow(slurm_cluster, tmp_path):
    """2-rule toy workflow through tests/slurm/profile: GPU rule via sbatch, localrule not."""
    (tmp_path / "Snakefile").write_text(TOY_SNAKEFILE)
    profile = tmp_path / TEST_PROFILE
    profile.parent.mkdir(parents=True)
    shutil.copytree(ROOT / TEST_PROFILE, profile)

    rc, out, elapsed = _snakemake(tmp_path, "--profile", TEST_PROFILE, timeout=300)
    print(f"toy workflow via test profile: {elapsed:.1f}s")
    _check_toy_run(tmp_path, rc, out, account=TEST_ACCOUNT)


def test_slurm_hpc_profile_toy(slurm_cluster, tmp_path):
    """The real HPC profile slurm/profile.yaml submits and tracks jobs on a cluster.

    Its partition/account placeholders ("") fall back to the cluster's default
    partition and the plugin's account guess. Overridden on the command line
    only: conda (none here; env-modules is a no-op for rules without
    `envmodules:`) and the waits (latency, first status check).
    """
    (tmp_path / "Snakefile").write_text(TOY_SNAKEFILE)
    (tmp_path / "slurm").mkdir()
    shutil.copy2(HPC_PROFILE, tmp_path / "slurm" / "profile.yaml")

    # the site's partition names of slurm/partitions.yaml do not exist here: the test cluster's file
    shutil.copytree(ROOT / TEST_PROFILE, tmp_path / TEST_PROFILE)
    rc, out, elapsed = _snakemake(
        tmp_path, "--profile", "slurm", "--sdm", "env-modules", "--latency-wait", "5",
        "--slurm-partition-config", f"{TEST_PROFILE}/partitions.yaml",
        "--retries", "0", "--slurm-init-seconds-before-status-checks", "2", timeout=300,
    )
    print(f"toy workflow via HPC profile: {elapsed:.1f}s")
    _check_toy_run(tmp_path, rc, out, account=None)


def test_slurm_smoke_generate(slurm_cluster, smollm2_dir, tmp_path):
    """The workflow's smoke_generate (real model, gpu=1) through sbatch + sacct."""
    work = copy_worktree(tmp_path / "work")
    assert (work / "rules" / "models.smk").is_file()
    # ask for a GPU like the paper-scale config does (the embedded default says gpu: 0)
    ncpu = min(2, os.cpu_count() or 1)
    (work / "slurm_test_config.yaml").write_text(
        f"resources: {{gpu: 1, mem_mb: 4000, runtime: 30, cpus: {ncpu}}}\n"
    )

    rc, out, elapsed = _snakemake(
        work, "--profile", TEST_PROFILE, "--configfile", "slurm_test_config.yaml",
        "--allowed-rules", "smoke_generate", "--", SMOKE_TARGET,
    )
    print(f"smoke_generate via SLURM: {elapsed:.1f}s")
    assert rc == 0, _failure_report(work, out)
    target = work / SMOKE_TARGET
    assert target.is_file() and target.stat().st_size > 0

    run_uuid, submitted = _submitted(out)
    assert sorted(submitted.values()) == ["smoke_generate"], submitted
    rows = _sacct_jobs(run_uuid, set(submitted))
    assert set(rows) == set(submitted), rows
    for row in rows.values():
        assert row["State"] == "COMPLETED", row
        assert row["Comment"] == "rule_smoke_generate", row
        assert "gres/gpu=1" in row["AllocTRES"], row
        assert row["Partition"] == "gpu", row
        # the rule's threads (config resources.cpus) became --cpus-per-task
        assert row["AllocCPUS"] == str(ncpu), row


def test_slurm_jobs_run_on_the_cpus_they_were_allocated(slurm_cluster, tmp_path):
    """Two 1-CPU jobs at once each run on their own CPU (TaskPlugin=task/affinity, as a site's cgroup
    cpuset does): an engine that pins its threads (vLLM's CPU binding) pins them to its job's CPU,
    not every job's to CPU 0."""
    ncpu = len(os.sched_getaffinity(0))
    if ncpu < 2:
        pytest.skip("the node has one CPU: two jobs cannot run side by side")
    probe = "import os, time; print(sorted(os.sched_getaffinity(0))); time.sleep(4)"
    procs = [subprocess.Popen(
        ["sbatch", "--wait", "--parsable", "-A", TEST_ACCOUNT, "-c", "1", "--mem=200", "-t", "2",
         "-o", str(tmp_path / f"probe{i}.out"), "--wrap", f"{sys.executable} -c '{probe}'"],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    cpus = [(tmp_path / f"probe{i}.out").read_text().strip() for i in range(2)]
    assert all(len(json.loads(c)) == 1 for c in cpus), cpus  # one CPU each, what -c 1 allocated
    assert cpus[0] != cpus[1], f"both jobs ran on CPU {cpus[0]}: jobs are not bound to their allocation"


def test_cluster_start_cancels_the_jobs_of_a_previous_boot(slurm_cluster, tmp_path):
    """A job slurmctld recovers from its saved state when it starts anew (after a reboot, or on a
    restored snapshot of the machine) belongs to a run that is gone; ``setup/slurm_cluster.sh``
    cancels it and names it, so the next run's jobs do not wait behind it.  A CI run once waited its
    whole queue guard (1800 s) on two such jobs.  The daemons are stopped (slurmctld saves its state
    on the way down) and started again around a running job."""
    script = ROOT / "setup" / "slurm_cluster.sh"
    sub = _run(["sbatch", "--parsable", "-A", TEST_ACCOUNT, "-c", "1", "--mem=100", "-t", "10",
                "-J", "previous-boot", "-o", str(tmp_path / "job.out"), "--wrap", "sleep 300"])
    assert sub.returncode == 0, sub.stderr
    job = sub.stdout.strip().split(";")[0]
    try:
        running = f"{job} previous-boot RUNNING"
        jobs = poll_queue(lambda q: running in " ".join(q), 60, 1)
        assert running in " ".join(jobs), jobs
        stop = _run(["bash", str(script), "stop"], timeout=120)
        assert stop.returncode == 0, stop.stderr
        start = _run(["bash", str(script), "start"], timeout=300)
        assert start.returncode == 0, start.stderr
        assert "cancelling 1 job(s) recovered from before slurmctld started" in start.stderr, start.stderr
        assert re.search(rf"\b{job} previous-boot RUNNING\b", start.stderr), start.stderr
        assert queued_jobs() == []
        state = _run(["sacct", "-n", "-X", "-P", "-j", job, "-o", "State"]).stdout.split()
        assert state and state[0].startswith("CANCELLED"), state
        # a second start, with slurmctld running, cancels nothing
        again = _run(["bash", str(script), "start"], timeout=300)
        assert again.returncode == 0 and "cancelling" not in again.stderr, again.stderr
    finally:
        _run(["bash", str(script), "start"], timeout=300)
        _run(["scancel", job])


def test_failed_slurm_job_cause_on_terminal(slurm_cluster, tmp_path):
    """The failing job of tests/core/test_error_tail.py through the SLURM test profile (sbatch, sacct)
    together with the workflow profile: the terminal shows the cause from the rule log (and from the
    SLURM job log)."""
    wait_for_empty_queue()  # beside the module fixture's: the test before this one ends by cancelling a job
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    (tmp_path / "fail.py").write_text(FAILING_SCRIPT)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.tsv").write_text("x\n1\n")
    shutil.copytree(ROOT / "profiles", tmp_path / "profiles")
    shutil.copytree(ROOT / "tests" / "slurm" / "profile", tmp_path / "tests" / "slurm" / "profile")
    env = {**_env(), "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "snakemake", "--profile", "tests/slurm/profile"], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=600)
    terminal = out.stdout + out.stderr
    assert out.returncode != 0
    assert "Using profiles tests/slurm/profile and workflow specific profile profiles/default" in terminal
    cause = "ERROR ValueError: in/a.tsv, row 3, field 'score': expected a number, got 'abc'"
    assert "Logfile logs/fail_b.log:" in terminal and cause in terminal, terminal[-3000:]
