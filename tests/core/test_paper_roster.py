"""config/paper.yaml: every model a study names is declared there; model jobs get its GPUs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cultalign.config import load_config, model_gpus, model_mem_mb

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "config" / "paper.yaml"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


@pytest.fixture(scope="module")
def paper():
    return load_config(ROOT / "config" / "config.yaml", PAPER)


@pytest.fixture(scope="module")
def paper_own_models():
    """Models declared in config/paper.yaml itself (the merged config also holds config.yaml's)."""
    return yaml.safe_load(PAPER.read_text())["models"]


def study_model_refs(cfg: dict) -> dict[str, list[str]]:
    """Every place a study names a model: config key -> names."""
    pact, personas, mono = cfg["pact"], cfg["personas"], cfg["monopolet"]
    refs = {
        "pact.models": list(pact["models"]),
        "pact.comparison_models": list(pact["comparison_models"]),
        "pact.model_pairs": [m for p in pact["model_pairs"] for m in (p["a"], p["b"])],
        "personas.models": list(personas["models"]),
        "personas.generator_model": [personas["generator_model"]],
        "monopolet.mapping.model": [mono["mapping"]["model"]],
        "monopolet.dilemma.model": [mono["dilemma"]["model"]],
        "monopolet.extraction.model": [mono["extraction"]["model"]],
        "monopolet.judge.model": [mono["judge"]["model"]],
        "monopolet.answer_models": list(mono["answer_models"]),
    }
    if pact["construction_model"]:
        refs["pact.construction_model"] = [pact["construction_model"]]
    if pact.get("judge_model"):
        refs["pact.judge_model"] = [pact["judge_model"]]
    return refs


def test_every_study_model_is_declared_in_paper_yaml(paper, paper_own_models):
    missing = [f"{key}: {name}" for key, names in study_model_refs(paper).items()
               for name in names if name not in paper_own_models]
    assert not missing, f"named by a study, not under models: in config/paper.yaml: {missing}"
    # no study runs the embedded default's CPU model at paper scale
    assert "smollm2-135m-instruct" not in {n for names in study_model_refs(paper).values() for n in names}


def test_paper_roster_entries_are_complete(paper_own_models):
    problems = []
    for name, m in paper_own_models.items():
        if m["backend"] == "vllm":
            if m.get("source") != "hub" or not re.fullmatch(r"[\w.-]+/[\w.-]+", m.get("hub_id") or ""):
                problems.append(f"{name}: vLLM model needs source hub and an org/name hub_id")
            if not m.get("revision") or not m.get("path"):
                problems.append(f"{name}: vLLM model needs revision and path")
            if m.get("kind") == "base" and m.get("chat_template") != "plain":
                problems.append(f"{name}: base model without the plain prompt template")
        elif m["backend"] == "openai":
            if m.get("source") != "api" or not m.get("api_key_env") or m.get("path"):
                problems.append(f"{name}: API model needs source api, api_key_env and no path")
        else:
            problems.append(f"{name}: backend {m['backend']!r} at paper scale")
    assert not problems, problems


def test_pact_evaluates_base_and_large_counterparts(paper):
    models = paper["models"]
    main, extra = paper["pact"]["models"], paper["pact"]["comparison_models"]
    # section 4: the six instruction-tuned models; base / larger ones only in the comparisons
    assert len(main) == 6 and not any(models[n].get("kind") == "base" for n in main)
    assert sum(models[n].get("kind") == "base" for n in extra) >= 4  # section 4.2: base counterparts
    assert any(models[n].get("tensor_parallel_size", 1) > 1 for n in extra)  # appendix B.8: >= 24B counterparts
    pairs = paper["pact"]["model_pairs"]
    for p in pairs:
        if p["comparison"] == "base_instruct":
            assert models[p["a"]].get("kind") == "base" and p["b"] in main, p
        else:
            assert p["a"] in main and p["b"] in extra, p
    assert {p["comparison"] for p in pairs} == {"base_instruct", "small_large"}


def test_model_gpus_follow_tensor_parallel_size_and_api_gets_none(paper):
    gpus_per_job = paper["resources"]["gpu"]
    assert gpus_per_job == 1
    seen_tp = False
    for name, m in paper["models"].items():
        got = model_gpus(m, gpus_per_job)
        if m["backend"] == "openai":
            assert got == 0, name
        elif m["backend"] == "vllm":
            assert got == m["tensor_parallel_size"], name
            seen_tp |= m["tensor_parallel_size"] > 1
        else:
            assert got == gpus_per_job, name
        assert model_mem_mb(m, paper["resources"]) == paper["resources"]["mem_mb"] * max(1, got), name
    assert seen_tp, "the paper roster has no tensor-parallel model"


def test_model_gpus_rules():
    vllm4 = {"backend": "vllm", "tensor_parallel_size": 4}
    assert model_gpus(vllm4, 1) == 4
    assert model_gpus(vllm4, 0) == 0  # a run without GPUs (vLLM CPU build)
    assert model_gpus({"backend": "vllm", "tensor_parallel_size": 2, "pipeline_parallel_size": 2}, 1) == 4
    assert model_gpus({"backend": "openai"}, 1) == 0
    assert model_gpus({"backend": "transformers"}, 3) == 3
    assert model_mem_mb(vllm4, {"gpu": 1, "mem_mb": 1000}) == 4000
    assert model_mem_mb({"backend": "openai"}, {"gpu": 1, "mem_mb": 1000}) == 1000


def test_model_rules_take_gpus_from_the_model():
    """Every rule that runs a model (its conda env follows the model) asks for that model's GPUs and memory."""
    bad = []
    for smk in sorted((ROOT / "rules").rglob("*.smk")):
        for block in re.split(r"\n(?=rule \w+:)", smk.read_text()):
            m = re.match(r"rule (\w+):", block)
            if not m or not re.search(r"conda:\s*\n\s*(model_env|env_of_model\()", block):
                continue
            if not re.search(r"\bgpu=(model_gpu|gpu_of_model\()", block):
                bad.append(f"{smk.name}:{m.group(1)} gpu")
            if not re.search(r"\bmem_mb=(model_mem|mem_of_model\()", block):
                bad.append(f"{smk.name}:{m.group(1)} mem_mb")
    assert not bad, f"model rules without per-model resources: {bad}"


@pytest.mark.slow
def test_paper_dry_run_gives_tensor_parallel_jobs_their_gpus(paper, tmp_path):
    """Through Snakemake: the resources of one behaviour shard per model kind in the paper DAG."""
    models = paper["models"]
    evaluated = paper["pact"]["models"] + paper["pact"]["comparison_models"]
    pick = {
        "tp": next(n for n in evaluated if models[n].get("tensor_parallel_size", 1) > 1),
        "one": next(n for n in evaluated
                    if models[n]["backend"] == "vllm" and models[n].get("tensor_parallel_size", 1) == 1),
        "api": next(n for n in evaluated if models[n]["backend"] == "openai"),
    }
    targets = [f"results/pact/behaviour/{n}/shard_000.tsv" for n in pick.values()]
    from workflow import paper_stand_ins  # CultureAtlas has no download URL: a marked stand-in

    out = subprocess.run([str(SNAKEMAKE), *targets, "-n", "--forceall", "--cores", "1",
                          "--configfile", "config/paper.yaml", paper_stand_ins(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    res = {}
    for block in re.split(r"\n(?=rule \w+:)", out.stdout + out.stderr):
        w = re.search(r"wildcards: model=([^,\n]+)", block)
        r = re.search(r"resources: (.*)", block)
        if block.startswith("rule pact_behaviour:") and w and r:
            kv = dict(item.split("=", 1) for item in r.group(1).split(", "))
            res[w.group(1)] = (int(kv["gpu"]), int(kv["mem_mb"]))
    mem = paper["resources"]["mem_mb"]
    tp = models[pick["tp"]]["tensor_parallel_size"]
    assert res[pick["tp"]] == (tp, mem * tp)
    assert res[pick["one"]] == (1, mem)
    assert res[pick["api"]] == (0, mem)


def _rule_blocks():
    for smk in sorted((ROOT / "rules").rglob("*.smk")):
        for block in re.split(r"\n(?=\s*rule \w+:)", smk.read_text()):
            m = re.match(r"\s*rule (\w+):", block)
            if m:
                yield f"{smk.relative_to(ROOT)}:{m.group(1)}", m.group(1), block


def test_placement_and_resources():
    """Rules that need the network run where the network is; heavy aggregation runs on compute
    nodes; every job's memory and time grow with the attempt; weights and downloads are protected."""
    blocks = {rule: (where, block) for where, rule, block in _rule_blocks()}
    for rule in ("download_file", "download_model_hub", "monopolet_whisper_convert"):
        where, block = blocks[rule]
        assert "localrule: True" in block, f"{where} fetches from the network: make it a localrule"
        assert "protected(" in block, f"{where} output must be protected()"
    for rule in ("pact_gather_behaviour", "pact_behaviour_analysis"):
        where, block = blocks[rule]
        assert "localrule: True" not in block, f"{where} aggregates millions of decisions: not on the login node"
    fixed = [where for where, block in blocks.values()
             if re.search(r"\b(mem_mb|runtime)=\d", block)]
    assert not fixed, f"resources that do not grow with the attempt: {fixed}"
