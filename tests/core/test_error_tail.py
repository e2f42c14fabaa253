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




INPUT_ERROR_SCRIPTS = {
    # a truncated PDF of the user's corpus folder (read through langchain and pypdf)
    "pdf": ("from cultalign.core.job import Job\n"
            "from cultalign.retrieval.corpus import load_pdf_files\n"
            "job = Job(snakemake)\n"
            "load_pdf_files(list(job.input))\n"),
    # a damaged recording of the user's audio folder (read through PyAV)
    "audio": ("from cultalign.core.job import Job\n"
              "from cultalign.audio.transcribe import probe_audio\n"
              "job = Job(snakemake)\n"
              "probe_audio(job.input[0])\n"),
    # a truncated demo PDF beside the sidecar its rule wrote (Job reads its inputs' sidecars)
    "demo": "from cultalign.core.job import Job\njob = Job(snakemake)\n",
}


def _damaged_input(kind: str, folder: Path) -> tuple[str, str, str, str]:
    """A damaged file of ``kind`` in ``folder``: its path relative to the workflow, its config key,
    and how the cause line starts and ends."""
    folder.mkdir(parents=True)
    if kind in ("pdf", "demo"):
        from cultalign.core.provenance import write_sidecar
        from cultalign.personas.corpus import demo_pdf

        src = next((ROOT / "resources" / "demo" / "personas" / "corpus").glob("*.txt"))
        demo_pdf(src, folder / "a.pdf", "japan")
        rel, key = f"{folder.name}/a.pdf", "personas.corpus.folders.japan"
        if kind == "demo":
            write_sidecar(folder / "a.pdf", job={"rule": "personas_demo_pdf"}, extra={"synthetic": True})
        (folder / "a.pdf").write_bytes((folder / "a.pdf").read_bytes()[:1500])
        if kind == "demo":
            return rel, key, f"ERROR StaleSidecarError: {rel} does not match what rule personas_demo_pdf wrote", \
                f"`snakemake --cores 1 --force {rel}` (and the run's --configfile options)"
        return rel, key, f"ERROR InputError: {rel}: ", f"(file set by config key '{key}')"
    import numpy as np
    import soundfile as sf

    sf.write(folder / "ep01.wav", np.zeros(16000, dtype="float32"), 16000)
    (folder / "ep01.wav").write_bytes((folder / "ep01.wav").read_bytes()[:40])
    rel, key = f"{folder.name}/ep01.wav", "monopolet.audio_dir"
    return rel, key, f"ERROR InputError: {rel}: ", f"(file set by config key '{key}')"


@pytest.mark.parametrize("kind", sorted(INPUT_ERROR_SCRIPTS))
def test_input_error_one_line_on_terminal_traceback_in_a_file_beside_the_log(tmp_path, kind):
    """A real Snakemake run whose job meets a damaged input file: the terminal (which shows the rule
    log, show-failed-logs) gets the one line naming file and config key and no traceback through the
    library; the traceback is kept beside the log, which names that file."""
    rel, key, starts, ends = _damaged_input(kind, tmp_path / "user_files")
    (tmp_path / "Snakefile").write_text(
        "rule read:\n"
        f"    input: {rel!r}\n"
        "    output: 'out.txt'\n"
        "    log: 'logs/read.log'\n"
        f"    params: input_keys={{'user_files': {key!r}}}\n"
        "    script: 'read.py'\n")
    (tmp_path / "read.py").write_text(INPUT_ERROR_SCRIPTS[kind])
    shutil.copytree(ROOT / "profiles", tmp_path / "profiles")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1"], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode != 0
    terminal = out.stdout + out.stderr
    cause = next((line for line in (tmp_path / "logs" / "read.log").read_text().splitlines()[-1:]), "")
    assert cause.startswith(starts) and cause.endswith(ends), cause
    assert cause in terminal, terminal[-3000:]
    assert "Traceback" not in terminal and "File \"" not in terminal, terminal[-3000:]
    assert "logs/read.log.traceback" in terminal
    kept = (tmp_path / "logs" / "read.log.traceback").read_text()
    assert kept.startswith("Traceback") and {"pdf": "pypdf", "audio": "av", "demo": "read_sidecar"}[kind] in kept
