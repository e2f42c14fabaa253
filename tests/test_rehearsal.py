"""The paper-scale rehearsal in CI: the paper DAG run to the end through the local SLURM.

``setup/rehearsal.sh --ci`` layers ``config/rehearsal-ci.yaml`` on the paper config and the
rehearsal's stand-ins (``config/rehearsal.yaml``): every rule of the paper DAG, one model per
role and backend kind, vLLM models on the CPU build of vLLM, API models on ``vllm serve``
behind the provider gate.  The test runs it in a copy of the checkout (beside a link to
``../shared``, which the rehearsal reads real data from) and checks, from Snakemake's own log:

- the run ends with exit 0 and no failed job;
- every job Snakemake did not run locally went through ``sbatch``, and so did every job of the
  rules that call a model;
- the rules that ran are every rule of the paper DAG except those that need the network
  (whose outputs the rehearsal takes from local packages);
- the API stand-ins of the reasoning families spent hidden reasoning tokens at the provider gate,
  counted in every table of theirs (``results/model_outputs.tsv``);
- it prints jobs, wall time and the stand-in that served each model role (``-s`` shows it;
  the figures of a run are in docs/benchmarks.md);
- its second pass adds a model through the my-model path (config/my-model.yaml with the stand-in
  of config/rehearsal-my-model.yaml, target ``model_card``): that pass runs the added model's jobs
  only, each through ``sbatch``, and builds its card, whose page names the stand-in.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import SHARED_DATA, copy_worktree, ensure_default_model
from cultalign.core.tables import read_tsv
from cultalign.runlog import parse_log, summary
from my_model.test_model_card_plan import OWN_RULES
from test_slurm import _cluster_problem, wait_for_empty_queue
from tests.core.test_rehearsal_config import NETWORK_RULES
from workflow import logs_with_logging_errors, model_rules, paper_stand_ins, planned_jobs, rules_of

pytestmark = [pytest.mark.slurm, pytest.mark.slow, pytest.mark.rehearsal]

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 3600


def test_rehearsal_ci_cut_runs_every_paper_rule_through_slurm(tmp_path):
    problem = _cluster_problem()
    if problem:
        pytest.skip(problem)
    if not SHARED_DATA.is_dir():
        pytest.skip(f"the rehearsal reads real data from ../shared/data: not present at {SHARED_DATA}")
    vllm_python = ROOT / ".venv-vllm" / "bin" / "python"
    if not vllm_python.exists():
        pytest.skip("no .venv-vllm (bash setup/vllm_cpu_venv.sh makes it)")
    wait_for_empty_queue()
    ensure_default_model()
    work = copy_worktree(tmp_path / "work")
    (tmp_path / "shared").symlink_to(SHARED_DATA.parent)
    for venv in (".venv", ".venv-vllm"):
        (work / venv).symlink_to(ROOT / venv)

    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE")}
    env.update(REHEARSAL_NO_SETUP="1")
    out = subprocess.run(["timeout", "-k", "30", str(TIMEOUT_S), "bash", "setup/rehearsal.sh", "--ci"],
                         cwd=work, env=env, capture_output=True, text=True)
    # the log of each pass, as setup/rehearsal.sh names it
    logs = dict(re.findall(r"^\[rehearsal\] (paper DAG|my-model) log: (\S+)$", out.stdout, re.M))
    assert "paper DAG" in logs, f"no Snakemake log; exit {out.returncode}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    run = parse_log((work / logs["paper DAG"]).read_text())
    print("\n[rehearsal --ci]\n" + summary(run))
    print(out.stdout[out.stdout.find("[rehearsal] snakemake ended"):])
    assert out.returncode == 0 and not run.failed_rules, (
        f"exit {out.returncode}; failed rules {run.failed_rules}\n{out.stdout[-6000:]}\n{out.stderr[-3000:]}")

    stray = run.not_through_sbatch()
    assert not stray, f"jobs Snakemake did not run locally that did not go through sbatch: {stray}"
    # the rules that call a model run on compute nodes: every job of them went through sbatch
    models = model_rules() & run.rules_run()
    assert models, "no rule that calls a model ran"
    assert not models & run.local_rules(), sorted(models & run.local_rules())
    assert models <= {j.rule for j in run.submitted()}, sorted(models - {j.rule for j in run.submitted()})
    assert all(j.finished for j in run.jobs.values()), [j for j in run.jobs.values() if not j.finished]
    bad_logs = logs_with_logging_errors(work)
    assert not bad_logs, f"rule logs with a log call that failed to format: {bad_logs}"
    # the provider gate made each reasoning family spend hidden tokens before it wrote (setup/rehearsal.sh):
    # reported in usage, recorded per request and counted in every table of such a model
    counts = read_tsv(work / "results" / "model_outputs.tsv")
    reasoning = counts[counts["family"].isin(["gpt-5", "gemini"]) & (counts["outputs"] > 0)]
    assert len(reasoning) and (reasoning["reasoning_tokens"] >= 48 * reasoning["outputs"]).all(), counts.to_string()

    # the paper DAG as a user with every input would get it (placeholders where a checkout has none)
    paper = rules_of(planned_jobs(ROOT, "--configfile", "config/paper.yaml", paper_stand_ins(tmp_path),
                                  "--forceall"))
    missing = paper - NETWORK_RULES - {"all"} - run.rules_run()
    assert not missing, f"paper rules the rehearsal did not run: {sorted(missing)}"

    # the my-model pass: the added model's jobs only (its weights are the rehearsal's), through sbatch
    assert "my-model" in logs, out.stdout[-3000:]
    mine = parse_log((work / logs["my-model"]).read_text())
    print("[rehearsal --ci, my-model pass]\n" + summary(mine))
    assert not mine.failed_rules and all(j.finished for j in mine.jobs.values()), summary(mine)
    assert mine.rules_run() == OWN_RULES - {"prepare_model_gguf"}, sorted(mine.rules_run() ^ OWN_RULES)
    assert all("my-model" in j.wildcards for j in mine.jobs.values() if j.rule != "model_card"), \
        [(j.rule, j.wildcards) for j in mine.jobs.values() if "my-model" not in j.wildcards]
    assert not mine.not_through_sbatch(), mine.not_through_sbatch()
    own_model_jobs = [j for j in mine.jobs.values() if j.rule in model_rules()]
    assert own_model_jobs and all(j.slurm_id is not None for j in own_model_jobs), own_model_jobs
    # its card: every study, this run's rows the added model's, the page naming the stand-in
    card = work / "results" / "model_card" / "my-model"
    rows = read_tsv(card / "card.tsv")
    this_run = rows[rows["source"] == "this run"]
    assert set(this_run["study"]) == {"pact", "personas", "monopolet"} and (this_run["model"] == "my-model").all()
    page = (card / "model_card.html").read_text()
    assert "Model card: my-model" in page and "Skipped" not in page
    for shown in ("<td>backend</td><td>transformers</td>",
                  "<td>path</td><td>resources/models/smollm2-135m-instruct</td>",
                  "<td>hub_id</td><td>HuggingFaceTB/SmolLM2-135M-Instruct</td>"):
        assert shown in page, shown
    assert "my-model <- transformers: resources/models/smollm2-135m-instruct" in out.stdout
