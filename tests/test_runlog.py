"""cultalign.runlog: what a Snakemake run did, read from its log (the rehearsal's summary)."""

from __future__ import annotations

from pathlib import Path

from cultalign.runlog import main, parse_log, summary

ROOT = Path(__file__).resolve().parents[1]

# Lines as Snakemake 9.27 with the SLURM executor writes them (shape taken from a rehearsal log).
LOG = """\
[Tue Dec  1 12:24:00 2026]
rule smoke_generate:
    output: results/smoke/generate_smoke.tsv
    jobid: 1
    resources: tmpdir=<TBD>, mem_mb=4000
Job 1 has been submitted with SLURM jobid 108 (log: x/108.log).
[Tue Dec  1 12:24:05 2026]
localrule monopolet_gather_sections:
    input: a.tsv
    jobid: 9
[Tue Dec  1 12:24:06 2026]
Finished jobid: 9 (Rule: monopolet_gather_sections)
rule pact_construct:
    jobid: 47
    reason: Missing output files: results/pact/construct/normad.tsv
    wildcards: source=normad
Job 47 has been submitted with SLURM jobid 110 (log: x/110.log).
rule pact_expand:
    jobid: 48
[Tue Dec  1 12:24:21 2026]
Finished jobid: 1 (Rule: smoke_generate)
Error in rule pact_construct:
[Tue Dec  1 12:25:00 2026]
"""


def test_parse_log_jobs_sbatch_and_failures():
    run = parse_log(LOG)
    assert {j.jobid: j.rule for j in run.jobs.values()} == {
        1: "smoke_generate", 9: "monopolet_gather_sections", 47: "pact_construct", 48: "pact_expand"}
    assert run.jobs[1].slurm_id == 108 and run.jobs[1].finished
    assert run.jobs[9].local and run.jobs[9].slurm_id is None
    assert not run.jobs[47].finished
    assert run.jobs[47].wildcards == "source=normad" and run.jobs[1].wildcards == ""
    assert run.rules_run() == {"smoke_generate", "monopolet_gather_sections"}
    assert run.failed_rules == ["pact_construct"]
    assert run.wall_s == 60
    # pact_expand started without sbatch and Snakemake did not log it as local: reported
    assert [j.rule for j in run.not_through_sbatch()] == ["pact_expand"]
    assert run.local_rules() == {"monopolet_gather_sections"}
    text = summary(run)
    assert "jobs finished: 2 of 4 started; through sbatch: 2; rules run: 2; wall time: 60 s" in text
    assert "failed: pact_construct" in text and "ran without sbatch: pact_expand" in text



def test_stand_ins_name_the_added_model(capsys, monkeypatch):
    """The summary's stand-ins of a run with an added model (my_model.name) list it in each study's role."""
    monkeypatch.chdir(ROOT)
    assert main(["/dev/null", "--configfile", "config/my-model.yaml"]) == 0
    out = capsys.readouterr().out
    assert "pact.models[1]: my-model <- vllm: resources/models/my-model" in out
    assert "monopolet.answer_models[1]: my-model <- vllm: resources/models/my-model" in out
