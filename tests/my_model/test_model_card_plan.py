"""Your own model plans only its own jobs: with the workflow's jobs done, the target model_card plans the
jobs that depend on the added model and the card; adding a second model afterwards plans only the
second model's jobs (dry runs in a copy of the checkout, the done jobs marked with --touch)."""

from __future__ import annotations

import pytest
import yaml

from conftest import copy_worktree
from workflow import mark_done, planned_jobs, rules_of

pytestmark = pytest.mark.slow

# the rules that run a model of a study's model list ({model} / {agent} / {comparison} wildcard), the
# gathering of its Danish-norms shards, its weights, and the card
OWN_RULES = {"prepare_model_gguf", "pact_behaviour", "pact_survey", "personas_mcs", "personas_oeg",
             "monopolet_answers", "monopolet_solutions", "monopolet_match", "monopolet_gather", "model_card"}


def _my_model(work, name):
    """A config file that declares ``name`` (the default model's weights under another name) as my_model."""
    spec = yaml.safe_load((work / "config" / "config.yaml").read_text())["models"]["smollm2-135m-instruct"]
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"models": {name: {**spec, "path": f"resources/models/{name}"}},
                                    "my_model": {"name": name}}))
    return str(path)


def test_added_model_plans_only_its_own_jobs_and_a_second_only_its_own(tmp_path):
    work = copy_worktree(tmp_path / "work", link_models=False)
    mark_done(work)  # the embedded default's whole DAG, its card included
    assert planned_jobs(work) == []

    first = _my_model(work, "mine-a")
    jobs = planned_jobs(work, "model_card", "--configfile", first)
    assert rules_of(jobs) == OWN_RULES, sorted(rules_of(jobs) ^ OWN_RULES)
    # every job is the added model's: its wildcards name it, or it is the card
    assert all("mine-a" in j.wildcards for j in jobs if j.rule != "model_card"), \
        [(j.rule, j.wildcards) for j in jobs if "mine-a" not in j.wildcards]
    assert not [j for j in jobs if "smollm2" in j.wildcards]
    mark_done(work, "model_card", "--configfile", first)
    assert planned_jobs(work, "model_card", "--configfile", first) == []

    second = _my_model(work, "mine-b")
    jobs = planned_jobs(work, "model_card", "--configfile", second)
    assert rules_of(jobs) == OWN_RULES
    assert all("mine-b" in j.wildcards for j in jobs if j.rule != "model_card")
    # the first model's card is still up to date
    assert planned_jobs(work, "model_card", "--configfile", first) == []


def test_rehearsal_added_model_plans_only_its_own_jobs(tmp_path):
    """The rehearsal's my-model pass (setup/rehearsal.sh, CI's cut): after the paper DAG, model_card with the
    template and its stand-in plans the stand-in's jobs and the card only, and leaves the paper DAG done."""
    from conftest import SHARED_DATA
    from tests.core.test_rehearsal_config import CI_CUT, CONFIGS, MY_MODEL

    if not SHARED_DATA.is_dir():
        pytest.skip(f"the rehearsal reads real data from ../shared/data: not present at {SHARED_DATA}")
    work = copy_worktree(tmp_path / "work")
    (tmp_path / "shared").symlink_to(SHARED_DATA.parent)
    paper = ("--configfile", *CONFIGS, *CI_CUT)
    mark_done(work, *paper)  # the paper DAG's run, its default model's card included
    assert planned_jobs(work, *paper) == []

    mine = ("model_card", "--configfile", *CONFIGS, *CI_CUT, *MY_MODEL)
    jobs = planned_jobs(work, *mine)
    # the stand-in's weights are the folder the paper DAG's stand-ins use: made already
    assert rules_of(jobs) == OWN_RULES - {"prepare_model_gguf"}, sorted(rules_of(jobs) ^ OWN_RULES)
    assert all("my-model" in j.wildcards for j in jobs if j.rule != "model_card"), \
        [(j.rule, j.wildcards) for j in jobs if "my-model" not in j.wildcards]
    print(f"\n[rehearsal, CI cut] my-model pass: {len(jobs)} jobs")
    mark_done(work, *mine)
    assert planned_jobs(work, *mine) == []
    assert planned_jobs(work, *paper) == []  # the paper DAG's results stay up to date
