"""config/rehearsal.yaml keeps the paper DAG: every rule, model role and model limit.

The rehearsal (setup/rehearsal.sh) runs the paper configuration with stand-in
models through the local SLURM.  These checks hold the rehearsal config to
what it promises, without running it: the same models under the same names
with the same backend kind and limits, the same model roles, and a DAG with
every rule of the paper DAG except those that need the network.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cultalign.config import load_config
from tests.core.test_paper_roster import study_model_refs
from workflow import paper_stand_ins, planned_jobs, rules_of

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ("config/paper.yaml", "config/rehearsal.yaml")
CI_CUT = ("config/rehearsal-ci.yaml",)  # CI's cut of the rehearsal (tests/test_rehearsal.py runs it)
# Limits a stand-in keeps: what the job asks of the scheduler and what the
# model accepts.  `extra` may add engine settings for the CPU stand-in.
KEPT = ("backend", "max_context", "batch_size", "tensor_parallel_size", "kind", "chat_template", "api_key_env",
        "family")
# Rules of the paper DAG that reach the network: the rehearsal has none, and
# gives their outputs from local packages instead (prepare_model_gguf, whisper
# from PyPI parts)
NETWORK_RULES = {"download_file", "download_model_hub", "monopolet_whisper_convert"}


@pytest.fixture(scope="module")
def configs():
    paper = load_config(ROOT / "config" / "config.yaml", ROOT / CONFIGS[0])
    rehearsal = load_config(ROOT / "config" / "config.yaml", *(ROOT / c for c in CONFIGS))
    return paper, rehearsal


def test_every_paper_model_keeps_its_kind_and_limits(configs):
    paper, rehearsal = configs
    changed = [f"{name}.{k}: {m.get(k)!r} -> {rehearsal['models'][name].get(k)!r}"
               for name, m in paper["models"].items() for k in KEPT
               if m.get(k) != rehearsal["models"][name].get(k)]
    assert not changed, changed
    for name, m in rehearsal["models"].items():
        if m["backend"] == "vllm":
            # the CPU stand-in engine runs on one process; the job still asks for the paper's GPUs
            assert m["path"] == "resources/models/smollm2-135m-instruct", name
        elif m["backend"] == "openai":
            assert m["base_url"].startswith("http://127.0.0.1:"), name


def test_same_model_roles(configs):
    paper, rehearsal = configs
    assert study_model_refs(rehearsal) == study_model_refs(paper)


def test_ci_cut_keeps_one_model_per_role_and_backend_kind(configs):
    """config/rehearsal-ci.yaml: each role names paper models only, and keeps one model of each
    backend kind (and, for the comparison models, of each model kind) the paper gives it."""
    paper, _ = configs
    cut = load_config(ROOT / "config" / "config.yaml", *(ROOT / c for c in CONFIGS + CI_CUT))

    def kinds(cfg, names):
        return {(cfg["models"][n]["backend"], cfg["models"][n].get("kind")) for n in names}

    paper_refs, cut_refs = study_model_refs(paper), study_model_refs(cut)
    assert paper_refs.keys() == cut_refs.keys()
    for role, names in cut_refs.items():
        assert set(names) <= set(paper_refs[role]), role
        assert kinds(cut, names) == kinds(paper, paper_refs[role]), role
    assert {p["comparison"] for p in cut["pact"]["model_pairs"]} == {
        p["comparison"] for p in paper["pact"]["model_pairs"]}


@pytest.mark.slow
@pytest.mark.parametrize("cut", [(), CI_CUT], ids=["rehearsal", "ci-cut"])
def test_rehearsal_dag_has_every_paper_rule_but_the_network_ones(tmp_path, cut):
    # the paper DAG as a user with every input would get it (placeholders where a checkout has none)
    paper = rules_of(planned_jobs(ROOT, "--configfile", CONFIGS[0], paper_stand_ins(tmp_path), "--forceall"))
    rehearsal_jobs = planned_jobs(ROOT, "--configfile", *CONFIGS, *cut, "--forceall")
    rehearsal = rules_of(rehearsal_jobs)
    missing = paper - rehearsal - NETWORK_RULES
    assert not missing, f"paper rules the rehearsal DAG lacks: {sorted(missing)}"
    assert NETWORK_RULES <= paper
    print(f"\n[rehearsal] {len(rehearsal_jobs)} jobs, {len(rehearsal)} rules; paper DAG {len(paper)} rules; "
          f"only in the rehearsal: {sorted(rehearsal - paper)}")


# The rehearsal's second pass (setup/rehearsal.sh): a model added through the my-model path
MY_MODEL = ("config/my-model.yaml", "config/rehearsal-my-model.yaml")


def test_my_model_pass_adds_the_stand_in_to_every_study():
    """setup/rehearsal.sh's second pass layers the template and its stand-in on the rehearsal's configs and
    builds model_card; the stand-in joins each study's model list, with the weights the rehearsal prepares."""
    from cultalign.my_model import apply_my_model, card_skips

    script = (ROOT / "setup" / "rehearsal.sh").read_text()
    assert 'MINE=("${CONFIGS[@]}" ' + " ".join(MY_MODEL) + ")" in script
    assert re.search(r"snakemake --keep-going model_card --profile tests/slurm/profile \\\n\s+--configfile \"\$\{MINE",
                     script)
    for cut in ((), CI_CUT):
        cfg = load_config(ROOT / "config" / "config.yaml", *(ROOT / c for c in CONFIGS + cut + MY_MODEL))
        assert card_skips(cfg) == {}
        assert apply_my_model(cfg) == "my-model"
        assert "my-model" in cfg["pact"]["models"] and "my-model" in cfg["personas"]["models"]
        assert "my-model" in cfg["monopolet"]["answer_models"]
        # the roles that default to the first model of a list keep theirs
        assert cfg["pact"]["models"][0] != "my-model"
        mine, standin = cfg["models"]["my-model"], cfg["models"]["llama-3.1-8b-instruct"]
        assert mine["backend"] == "transformers" and mine["source"] == "local"
        assert (mine["path"], mine["hub_id"], mine["revision"]) == (
            standin["path"], standin["hub_id"], standin["revision"])  # prepared before the paper DAG runs
        assert mine["threads"] <= cfg["resources"]["cpus"]
