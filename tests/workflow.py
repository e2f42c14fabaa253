"""Running the workflow from tests: a copy of the checkout, Snakemake in a
subprocess, and the jobs a dry run would execute, with their reasons.

The small test config (``tests/config/small.yaml``, layered on the embedded
default) runs every study end to end on one country, one instrument and one
episode; the session fixture ``small_run`` (conftest) runs it once, and tests
that need a finished workflow (end to end, warm rerun, rerun triggers) use it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SMK = [sys.executable, "-m", "snakemake"]
ROOT = Path(__file__).resolve().parents[1]
SMALL_CONFIG = "tests/config/small.yaml"


def snakemake(work: Path, *args: str, timeout: float = 3000, env: dict | None = None) -> subprocess.CompletedProcess:
    """``snakemake <args>`` in ``work`` (in environment ``env``, else this process's); output captured as text."""
    return subprocess.run(SMK + list(args), cwd=work, capture_output=True, text=True, timeout=timeout, env=env)


@dataclass
class PlannedJob:
    rule: str
    wildcards: str = ""
    reasons: list[str] = field(default_factory=list)


_RULE = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):\s*$")
_FIELD = re.compile(r"^\s+(\w+): (.*)$")


def planned_jobs(work: Path, *args: str, timeout: float = 600, env: dict | None = None) -> list[PlannedJob]:
    """The jobs ``snakemake -n <args>`` would run, each with its rule, wildcards and reasons."""
    out = snakemake(work, "-n", "--cores", "1", *args, timeout=timeout, env=env)
    if out.returncode != 0:
        raise AssertionError(f"dry run failed:\n{out.stderr[-4000:]}")
    jobs: list[PlannedJob] = []
    for line in (out.stdout + out.stderr).splitlines():
        m = _RULE.match(line)
        if m:
            jobs.append(PlannedJob(m.group(1)))
            continue
        f = _FIELD.match(line)
        if f and jobs:
            if f.group(1) == "reason":
                jobs[-1].reasons = [r.strip() for r in f.group(2).split(";")]
            elif f.group(1) == "wildcards":
                jobs[-1].wildcards = f.group(2)
    return jobs


def rules_of(jobs: list[PlannedJob], reason: str | None = None) -> set[str]:
    """Rules of ``jobs`` (only those with a reason starting with ``reason``)."""
    return {j.rule for j in jobs if reason is None or any(r.startswith(reason) for r in j.reasons)}


def model_rules() -> set[str]:
    """Rules with an `llm` param (they call a model), read from the rule files (every model rule is a
    top-level ``rule NAME:``)."""
    out = set()
    for f in (ROOT / "rules").rglob("*.smk"):
        for m in re.finditer(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", f.read_text(), re.S | re.M):
            if re.search(r"^\s+llm=", m.group(2), re.M):
                out.add(m.group(1))
    return out


PARAMS_CHANGED = "Params have changed since last execution"


def paper_stand_ins(tmp_path: Path) -> str:
    """A config file to layer on config/paper.yaml (``--configfile config/paper.yaml <this>``) that
    supplies, as inputs marked SYNTHETIC, what a paper run needs and a checkout lacks: a CultureAtlas
    file (the release has no download URL) and a corpus folder per country with one placeholder PDF.
    Enough for dry runs of the whole paper DAG; the jobs would not run on the placeholders."""
    import yaml

    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    folders = {}
    for country in paper["personas"]["run_countries"]:
        folder = tmp_path / "corpus" / country
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{country}_placeholder.pdf").write_bytes(b"%PDF-1.4\n% placeholder for dry runs\n")
        folders[country] = str(folder)
    over = {
        "synthetic_inputs": paper["synthetic_inputs"] + ["pact.sources.cultureatlas", "personas.corpus"],
        "pact": {"sources": {"cultureatlas": {"path": "resources/demo/pact/cultureatlas_demo.json"}}},
        "personas": {"corpus": {"folders": folders}},
    }
    path = tmp_path / "paper_stand_ins.yaml"
    path.write_text(yaml.safe_dump(over))
    return str(path)


LOGGING_ERROR = "--- Logging error ---"  # what Python's logging prints when a record cannot be formatted


def logs_with_logging_errors(work: Path) -> list[str]:
    """The rule logs under ``work/logs`` in which a log call failed to format (Python's logging
    prints a traceback and goes on, so the job still succeeds and the message is lost)."""
    return sorted(str(p.relative_to(work)) for p in (work / "logs").rglob("*.log")
                  if LOGGING_ERROR in p.read_text(errors="replace"))


def _directory_outputs() -> list[re.Pattern]:
    """Patterns of the outputs that rules declare as directory() (read from the rule files)."""
    pats = []
    for f in (ROOT / "rules").rglob("*.smk"):
        for m in re.finditer(r'directory\(\s*"([^"]+)"', f.read_text()):
            parts = re.split(r"(\{\w+\})", m.group(1))
            pats.append(re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "$"))
    return pats


def mark_done(work: Path, *args: str, timeout: float = 600) -> None:
    """Make the jobs of ``snakemake <args>`` count as done without running them, for dry runs of what a
    later change plans: each missing output becomes an empty file (a folder where its rule declares
    directory()), then ``--touch`` records every job's metadata (params, code), as a run would.  The
    files are empty placeholders: no job could read them."""
    out = snakemake(work, "--cores", "1", "--summary", *args, timeout=timeout)
    if out.returncode != 0:
        raise AssertionError(f"summary failed:\n{out.stderr[-4000:]}")
    folders = _directory_outputs()
    missing = [cols[0] for cols in (line.split("\t") for line in out.stdout.splitlines()[1:])
               if len(cols) >= 5 and cols[4] == "missing"]
    # and what the summary leaves out (benchmark files): the missing outputs a dry run names
    missing += [f.strip() for j in planned_jobs(work, *args, timeout=timeout) for r in j.reasons
                if r.startswith("Missing output files:") for f in r.split(":", 1)[1].split(",")]
    for rel in missing:
        path = work / rel
        if any(p.search(rel) for p in folders):
            path.mkdir(parents=True, exist_ok=True)
        elif not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
    out = snakemake(work, "--cores", "1", "--touch", *args, timeout=timeout)
    if out.returncode != 0:
        raise AssertionError(f"--touch failed:\n{out.stderr[-4000:]}")


def job_params(work: Path, *configfiles: str, targets: tuple[str, ...] = ("all",),
               timeout: float = 600) -> dict[tuple[str, str], list[str]]:
    """Each job of the whole DAG of ``targets`` (as ``--forceall`` plans it) with its params as
    Snakemake records them to decide "Params have changed" (sorted ``repr``s, the params that
    derive from input files left out): {(rule, wildcards): params}.  The Snakefile is parsed as
    in a dry run (no run lock, no job runs); ``configfiles`` are layered as ``--configfile``."""
    import json

    out = subprocess.run([sys.executable, __file__, json.dumps({"configfiles": list(configfiles),
                                                                "targets": list(targets)})],
                         cwd=work, capture_output=True, text=True, timeout=timeout)
    line = next((x for x in out.stdout.splitlines() if x.startswith("JOBS=")), None)
    if out.returncode != 0 or line is None:
        raise AssertionError(f"planning the DAG failed:\n{out.stderr[-4000:]}")
    return {(j["rule"], j["wildcards"]): j["params"] for j in json.loads(line.removeprefix("JOBS="))}


def params_changed(before: dict, after: dict) -> set[str]:
    """Rules of the jobs of both ``job_params`` results whose recorded params differ."""
    return {rule for (rule, wc), p in after.items() if (rule, wc) in before and before[rule, wc] != p}


def _dump_job_params(request: str) -> None:
    """``job_params`` in its own process: Snakemake's API, the DAG built as a dry run builds it."""
    import json

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (ConfigSettings, DAGSettings, DeploymentSettings, OutputSettings,
                                          Quietness, ResourceSettings, StorageSettings, WorkflowSettings)

    req = json.loads(request)
    with SnakemakeApi(OutputSettings(dryrun=True, quiet={Quietness.ALL})) as api:
        wf = api.workflow(resource_settings=ResourceSettings(cores=1),
                          config_settings=ConfigSettings(configfiles=[Path(f) for f in req["configfiles"]]),
                          storage_settings=StorageSettings(), workflow_settings=WorkflowSettings(),
                          deployment_settings=DeploymentSettings(), snakefile=Path("Snakefile"), workdir=Path.cwd())
        wf.dag(DAGSettings(targets=set(req["targets"]), forceall=True))
        w = wf._workflow
        w._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True)
        w._build_dag()
        jobs = [{"rule": j.rule.name, "wildcards": ",".join(f"{k}={v}" for k, v in j.wildcards.items()),
                 "params": w.persistence._params(j)} for j in w.dag.jobs]
    print("JOBS=" + json.dumps(jobs))


if __name__ == "__main__":
    _dump_job_params(sys.argv[1])
