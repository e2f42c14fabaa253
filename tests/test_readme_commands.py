"""The README's commands, run as written: every line of its fenced ``bash`` blocks.

A Snakemake command whose real run is short (``QUICK`` targets) runs for real in a copy of the
checkout; any other Snakemake command runs as a dry run (``-n`` appended) in the checkout, which
plans its DAG and so catches a command Snakemake cannot parse (e.g. a target written after
``--configfile``, which takes several values and reads the target as a config file).  Only the
commands of ``NOT_RUN`` are left out, each with its reason; a command that matches no entry runs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

# command prefix -> why it is not run by this test
NOT_RUN = {
    "bash setup/run-embedded.sh": "installs system packages and the venv, then runs all three studies "
                                  "(about ten minutes); the slow tests run them end to end on tests/config/small.yaml",
    "bash setup/run-tests.sh": "installs what the tests need and runs the whole test suite, this file included",
    "bash setup/rehearsal.sh": "starts a local SLURM cluster and runs the paper DAG on stand-in models (an hour "
                               "or more; run by setup/run-tests.sh)",
    "pip install ": "installs packages into the user's environment",
    "$EDITOR ": "opens an editor",
    "snakemake --profile slurm ": "needs a SLURM site: slurm/profile.yaml submits by sbatch and builds each rule's "
                                  "conda env (CI has no conda), and the paper inputs a user supplies (corpus PDFs, "
                                  "CultureAtlas); the paper DAG on SLURM is the rehearsal's test",
}
# targets whose real run takes seconds: run for real (in a copy of the checkout), not dry
QUICK = {"preflight"}


def readme_commands() -> list[tuple[int, str]]:
    """(line in README.md, command without its comment) for every command line of a ``bash`` block."""
    out, in_block = [], False
    for no, line in enumerate(README.read_text().splitlines(), start=1):
        if line.startswith("```"):
            in_block = line.strip() == "```bash" and not in_block
            continue
        command = re.sub(r"(^|\s+)#.*$", "", line).strip()
        if in_block and command:
            out.append((no, command))
    return out


def not_run_reason(command: str) -> str | None:
    return next((why for prefix, why in NOT_RUN.items() if command.startswith(prefix)), None)


def _params():
    for no, command in readme_commands():
        why = not_run_reason(command)
        marks = [pytest.mark.skip(reason=f"README line {no}: {why}")] if why else []
        yield pytest.param(command, id=f"line{no}", marks=marks)


def _env() -> dict[str, str]:
    """The user's shell after the README's install step: `snakemake` on PATH (this Python's)."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def _release_missing(command: str) -> str | None:
    """The release configs point at the user's copy of the CulturalPersonas release (not in a checkout)."""
    for cfg in re.findall(r"config/personas-release[\w-]*\.yaml", command):
        path = (yaml.safe_load((ROOT / cfg).read_text()) or {}).get("personas", {}).get("release", {}).get("path")
        if path and not (ROOT / path).is_dir():
            return f"{cfg} points personas.release.path at {path}, the user's copy of the release (absent here)"
    return None


def test_readme_has_commands_and_every_not_run_entry_is_used():
    commands = [c for _, c in readme_commands()]
    assert any("preflight" in c for c in commands), commands
    unused = [p for p in NOT_RUN if not any(c.startswith(p) for c in commands)]
    assert not unused, f"NOT_RUN entries that match no README command: {unused}"


@pytest.fixture(scope="module")
def checkout_copy(tmp_path_factory) -> Path:
    from conftest import copy_worktree

    return copy_worktree(tmp_path_factory.mktemp("readme") / "work")


@pytest.mark.parametrize("command", _params())
def test_readme_command_runs_as_written(command, request):
    argv = shlex.split(command)
    is_snakemake = Path(argv[0]).name == "snakemake"
    quick = is_snakemake and bool(QUICK & set(argv))
    if why := _release_missing(command):
        pytest.skip(why)
    if is_snakemake and not quick:
        cwd, line = ROOT, f"{command} -n"
    else:
        cwd, line = request.getfixturevalue("checkout_copy"), command
    if argv[0].startswith(".venv/") and not (cwd / argv[0]).exists():
        pytest.skip(f"{argv[0]} does not exist in this checkout (made by setup/run-embedded.sh)")
    out = subprocess.run(["bash", "-c", line], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600)
    terminal = out.stdout + out.stderr
    assert out.returncode == 0, f"`{line}` in {cwd} exited {out.returncode}:\n{terminal[-4000:]}"
    assert "Traceback (most recent call last)" not in terminal, terminal[-4000:]
    if quick and "preflight" in argv:
        assert (cwd / "results" / "preflight.tsv").stat().st_size > 0
