"""What a Snakemake run did, read from its log: the jobs it ran, where, and how long it took.

The paper-scale rehearsal (``setup/rehearsal.sh``) ends with this summary, and its test
checks it: every job of the run finished, every job Snakemake did not run on the submit host
went through ``sbatch``, and every rule of the paper DAG ran.  Which jobs ran on the submit
host is Snakemake's own word (``localrule NAME:`` in the log, from the rules' ``localrule:
True``); the rule files are not scanned again here, because rules are also defined in loops
(``name: f"..."``) and under conditions, which a scan of ``rule NAME:`` lines misses.  It
also says which stand-in served each model role of the configuration.

    python -m cultalign.runlog .snakemake/log/<run>.snakemake.log \\
        --configfile config/paper.yaml config/rehearsal.yaml

Parses the lines Snakemake 9 writes to ``.snakemake/log/*.snakemake.log``::

    rule NAME: / localrule NAME:      a job starts (followed by "    jobid: N")
    Job N has been submitted with SLURM jobid S (log: ...)
    Finished jobid: N (Rule: NAME)
    Error in rule NAME:
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

_START = re.compile(r"^(local)?(?:rule|checkpoint) (\w+):\s*$")
_JOBID = re.compile(r"^\s+jobid: (\d+)\s*$")
_WILDCARDS = re.compile(r"^\s+wildcards: (.*?)\s*$")
_SUBMIT = re.compile(r"^Job (\d+) has been submitted with SLURM jobid (\d+)")
_FINISH = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)")
_ERROR = re.compile(r"^Error in rule (\w+):")
_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]\s*$")


@dataclass
class JobRecord:
    jobid: int
    rule: str
    local: bool
    slurm_id: int | None = None
    finished: bool = False
    wildcards: str = ""  # as the job block writes them ("model=x, shard=000"); "" without wildcards


@dataclass
class RunLog:
    jobs: dict[int, JobRecord] = field(default_factory=dict)
    failed_rules: list[str] = field(default_factory=list)
    first: datetime | None = None
    last: datetime | None = None

    @property
    def wall_s(self) -> float | None:
        return (self.last - self.first).total_seconds() if self.first and self.last else None

    def finished(self) -> list[JobRecord]:
        return [j for j in self.jobs.values() if j.finished]

    def rules_run(self) -> set[str]:
        return {j.rule for j in self.finished()}

    def submitted(self) -> list[JobRecord]:
        return [j for j in self.jobs.values() if j.slurm_id is not None]

    def not_through_sbatch(self) -> list[JobRecord]:
        """Jobs Snakemake did not log as local that have no SLURM job id."""
        return [j for j in self.jobs.values() if not j.local and j.slurm_id is None and j.rule != "all"]

    def local_rules(self) -> set[str]:
        """The rules whose jobs Snakemake ran on the submit host."""
        return {j.rule for j in self.jobs.values() if j.local}


def parse_log(text: str) -> RunLog:
    run = RunLog()
    pending: tuple[str, bool] | None = None  # the rule of the job block being read
    current: JobRecord | None = None  # the job of that block, once its jobid is read
    for line in text.splitlines():
        if m := _STAMP.match(line):
            t = datetime.strptime(" ".join(m.group(1).split()), "%a %b %d %H:%M:%S %Y")
            run.first = run.first or t
            run.last = t
        elif m := _START.match(line):
            pending, current = (m.group(2), bool(m.group(1))), None
        elif (m := _JOBID.match(line)) and pending:
            jobid = int(m.group(1))
            current = run.jobs.setdefault(jobid, JobRecord(jobid, pending[0], pending[1]))
            pending = None
        elif (m := _WILDCARDS.match(line)) and current:
            current.wildcards = m.group(1)
        elif m := _SUBMIT.match(line):
            job = run.jobs.get(int(m.group(1)))
            if job:
                job.slurm_id = int(m.group(2))
        elif m := _FINISH.match(line):
            jobid = int(m.group(1))
            job = run.jobs.setdefault(jobid, JobRecord(jobid, m.group(2), False))
            job.finished = True
        elif m := _ERROR.match(line):
            run.failed_rules.append(m.group(1))
    return run


def stand_ins(config: dict, schema: dict) -> list[tuple[str, str, str]]:
    """(config key of a model role, model name, what serves it) for every model a study names."""
    from cultalign.config import iter_model_refs

    rows = []
    for key, name in iter_model_refs(schema, config):
        m = config["models"].get(name, {})
        if m.get("backend") == "openai":
            served = f"OpenAI-compatible API at {m.get('base_url')}"
        else:
            served = f"{m.get('backend')}: {m.get('path') or m.get('hub_id')}"
        rows.append((key, name, served))
    return rows


def summary(run: RunLog) -> str:
    wall = f"{run.wall_s:.0f} s" if run.wall_s is not None else "unknown"
    lines = [
        f"jobs finished: {len(run.finished())} of {len(run.jobs)} started; "
        f"through sbatch: {len(run.submitted())}; rules run: {len(run.rules_run())}; wall time: {wall}",
    ]
    if run.failed_rules:
        lines.append(f"failed: {', '.join(sorted(set(run.failed_rules)))}")
    stray = run.not_through_sbatch()
    if stray:
        lines.append("ran without sbatch: " + ", ".join(sorted({j.rule for j in stray})))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", help="a .snakemake/log/*.snakemake.log file")
    ap.add_argument("--configfile", nargs="*", default=[], help="config files layered on config/config.yaml")
    args = ap.parse_args(argv)
    run = parse_log(Path(args.log).read_text())
    print(summary(run))
    if args.configfile:
        from cultalign.config import load_config, load_schema

        from cultalign.my_model import apply_my_model

        cfg = load_config("config/config.yaml", *args.configfile)
        apply_my_model(cfg, base=".")  # an added model (my_model.name) in the studies' lists, as the workflow has it
        print("stand-ins by model role:")
        for key, name, served in stand_ins(cfg, load_schema()):
            print(f"  {key}: {name} <- {served}")
    return 0 if not run.failed_rules else 1


if __name__ == "__main__":
    sys.exit(main())
