"""A failed job's cause reaches the terminal and ends its log (issue 13, item 1)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cultalign.core.job import error_lines

ROOT = Path(__file__).resolve().parents[2]

FAILING_SCRIPT = """\
from cultalign.core.job import Job

job = Job(snakemake)
job.log.info("loading %s", job.input[0])
print("a progress line that is not the cause")
raise ValueError(f"{job.input[0]}, row 3, field 'score': expected a number, got 'abc'")
"""

SNAKEFILE = """\
rule all:
    input: "out/b.txt"

rule fail:
    input: "in/a.tsv"
    output: "out/{x}.txt"
    log: "logs/fail_{x}.log"
    script: "fail.py"
"""


def test_error_lines_format():
    assert error_lines(ValueError("bad\nsecond")) == ["ERROR ValueError: bad", "    second"]
    assert error_lines(KeyError("k")) == ["ERROR KeyError: 'k'"]


@pytest.mark.parametrize("argv", [[], ["--profile", "tests/slurm/profile"], ["--profile", "slurm"]])
def test_workflow_profile_sets_show_failed_logs_alone_and_with_a_global_profile(argv):
    """profiles/default/ is read on plain runs and together with --profile (parsed as Snakemake
    parses its command line, from the repository root)."""
    code = ("import sys; from snakemake.cli import parse_args; "
            "_, a = parse_args(sys.argv[1:]); print(a.show_failed_logs, a.executor)")
    out = subprocess.run([sys.executable, "-c", code, *argv, "-n"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "workflow specific profile profiles/default" in out.stderr
    show, executor = out.stdout.split()
    assert show == "True"
    assert executor == ("slurm" if argv else "None")


def test_failed_job_cause_on_terminal_and_last_in_log(tmp_path):
    """A real Snakemake run of a failing script job, with only the repository's workflow profile
    (copied beside the Snakefile): the terminal shows ERROR <Type>: <message>, and the log ends with it."""
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    (tmp_path / "fail.py").write_text(FAILING_SCRIPT)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.tsv").write_text("x\n1\n")
    shutil.copytree(ROOT / "profiles", tmp_path / "profiles")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1"], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode != 0
    cause = "ERROR ValueError: in/a.tsv, row 3, field 'score': expected a number, got 'abc'"
    terminal = out.stdout + out.stderr
    assert "workflow specific profile profiles/default" in terminal
    # echoed by the job itself (with rule, wildcards and log path) and again through show-failed-logs
    assert f"[fail x=b; log logs/fail_b.log] {cause}" in terminal
    assert terminal.count(cause) >= 2
    log_lines = (tmp_path / "logs" / "fail_b.log").read_text().splitlines()
    assert log_lines[-1] == cause
    assert any(line.startswith("Traceback") for line in log_lines)


