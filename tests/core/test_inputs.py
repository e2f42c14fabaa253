"""External inputs: listing with config keys, the `synthetic` mark, its checks and how it travels
(job sidecars, claims); the paper config's dry runs name the key of a missing input."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from cultalign.claims import SYNTHETIC_STATUS, evaluate, load_claims
from cultalign.config import ConfigError, load_config, load_schema
from cultalign.core.provenance import read_sidecar, sidecar_path
from cultalign.core.tables import write_table
from cultalign.inputs import (
    check_synthetic_marks,
    external_inputs,
    marked_synthetic,
    synthetic_keys_of,
    synthetic_paths,
    to_tsv,
)

ROOT = Path(__file__).resolve().parents[2]
SMK = [sys.executable, "-m", "snakemake"]


@pytest.fixture(scope="module")
def schema():
    return load_schema()


@pytest.fixture(scope="module")
def paper(schema):
    return load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml", schema=schema)


@pytest.fixture(scope="module")
def demo(schema):
    return load_config(ROOT / "config" / "config.yaml", schema=schema)


def _by_key(config, schema):
    return {i.key: i for i in external_inputs(config, schema, ROOT)}


def test_marks_cover_the_keys_below():
    marks = ["personas.corpus", "pact.annotations"]
    assert marked_synthetic("personas.corpus.folders.usa", marks)
    assert marked_synthetic("pact.annotations", marks)
    assert not marked_synthetic("pact.annotations_extra", marks)
    assert not marked_synthetic("personas.corpusx", marks)
    assert marked_synthetic("personas.instruments[2]", ["personas.instruments"])


def test_paper_inputs_are_listed_with_source_revision_and_mark(paper, schema):
    inputs = _by_key(paper, schema)
    normad = inputs["pact.sources.normad.path"]
    assert normad.kind == "download" and normad.made_by == "download_file"
    assert normad.revision == "cb5d80d" and "cb5d80d" in normad.url and not normad.synthetic
    assert inputs["pact.sources.cultureatlas.path"].made_by == ""  # no URL: nothing makes it
    assert inputs["personas.instruments.bfi44.path"].sha256.startswith("e233a8f2")
    # the embedding model has a producer: download_model_hub, at a revision
    jina = inputs["monopolet.embeddings.path"]
    assert jina.path == "resources/models/jina-embeddings-v3" and jina.made_by == "download_model_hub"
    assert jina.url.endswith("jinaai/jina-embeddings-v3") and jina.revision
    assert inputs["models.llama-3.1-8b-instruct"].made_by == "download_model_hub"
    assert inputs["models.gpt-4o"].kind == "api"
    # the user's corpus folders, one per run country
    corpus = [k for k in inputs if k.startswith("personas.corpus.folders.")]
    assert len(corpus) == len(paper["personas"]["run_countries"])
    # what paper.yaml marks synthetic, and nothing else
    marked = {k for k, i in inputs.items() if i.synthetic}
    assert marked == {"pact.annotations", "pact.human.prolific_export", "monopolet.manifest", "monopolet.audio_dir",
                      "monopolet.demo_scripts"}
    # demo instruments merged in from config.yaml but not run are not inputs
    assert not any(k.startswith("personas.instruments.demo-") for k in inputs)
    header = to_tsv(list(inputs.values())).splitlines()[0].split("\t")
    assert header == ["key", "kind", "path", "url", "revision", "sha256", "made_by", "present", "synthetic", "note"]


def test_every_demo_input_is_marked_synthetic(demo, schema):
    inputs = _by_key(demo, schema)
    for key in ("pact.sources.normad.path", "pact.annotations", "pact.human.prolific_export",
                "personas.human.files", "personas.corpus.folders.japan", "monopolet.manifest",
                "monopolet.audio_dir"):
        assert inputs[key].synthetic, key
    assert not inputs["claims"].synthetic
    check_synthetic_marks(demo, schema, ROOT)  # the default config passes


def test_paper_input_not_provided_fails_naming_its_key_unless_marked(paper, schema):
    cfg = copy.deepcopy(paper)
    cfg["synthetic_inputs"] = [k for k in cfg["synthetic_inputs"] if k != "pact.annotations"]
    with pytest.raises(ConfigError, match=r"config key 'pact.annotations': resources/demo/pact/annotations_demo"):
        check_synthetic_marks(cfg, schema, ROOT)
    cfg["synthetic_inputs"] = [k for k in cfg["synthetic_inputs"] if k != "pact.human.prolific_export"]
    with pytest.raises(ConfigError, match=r"pact.human.prolific_export.*pact_demo_prolific"):
        check_synthetic_marks(cfg, schema, ROOT)
    # marked: parses; provided: parses without the mark
    cfg["synthetic_inputs"] += ["pact.annotations", "pact.human.prolific_export"]
    check_synthetic_marks(cfg, schema, ROOT)
    cfg["synthetic_inputs"].remove("pact.annotations")
    cfg["pact"]["annotations"] = "config/claims.yaml"  # any file outside resources/demo counts as provided
    check_synthetic_marks(cfg, schema, ROOT)


def test_synthetic_paths_map_job_inputs_to_keys(demo, schema):
    marked = synthetic_paths(external_inputs(demo, schema, ROOT))
    got = synthetic_keys_of(["resources/demo/generated/personas/corpus/japan/japan_demo.pdf",
                             "resources/demo/pact/normad_demo.csv", "results/pact/x.tsv"], marked)
    assert got == ["pact.sources.normad.path", "personas.corpus.folders.japan"]
    assert synthetic_keys_of(["resources/demo/generated/personas/corpus/japanese/x.pdf"], marked) == []


def _fake(tmp_path, inputs, outputs, synthetic=()):
    from conftest import FakeSnakemake

    return FakeSnakemake(tmp_path, outputs, inputs, params={"code": "c0de", "synthetic_inputs": list(synthetic)})


def test_synthetic_mark_travels_through_job_sidecars(tmp_path, restore_streams):
    from cultalign.core.job import Job

    real, raw = tmp_path / "real.tsv", tmp_path / "raw.tsv"
    write_table(pd.DataFrame({"a": [1]}), real, job={"rule": "r"})
    assert read_sidecar(real)["synthetic"] is False
    # a job reading a synthetic external input (its param) marks its table
    step1 = tmp_path / "step1.tsv"
    Job(_fake(tmp_path, [raw], [step1], synthetic=["pact.annotations"])).write_table(
        pd.DataFrame({"a": [1]}), step1)
    assert read_sidecar(step1)["synthetic_inputs"] == ["pact.annotations"]
    # a job downstream of it inherits the mark through the input's sidecar, mixed with a real table
    step2 = tmp_path / "step2.tsv"
    job = Job(_fake(tmp_path, [step1, real], [step2]))
    job.write_table(pd.DataFrame({"a": [1]}), step2, extra={"synthetic": False})  # extra cannot unset it
    rec = read_sidecar(step2)
    assert rec["synthetic"] is True and rec["synthetic_inputs"] == ["pact.annotations"]
    assert "synthetic_inputs" not in rec["params"]
    # a job on real tables only is not synthetic
    step3 = tmp_path / "step3.tsv"
    Job(_fake(tmp_path, [real], [step3])).sidecar(step3)
    assert json.loads(sidecar_path(step3).read_text())["synthetic"] is False


def test_claim_over_a_synthetic_table_is_not_computable(tmp_path):
    table = tmp_path / "filters.tsv"
    write_table(pd.DataFrame({"filter": ["scenarios"], "remaining": [63]}), table,
                job={"rule": "pact_ingest_prolific", "synthetic_inputs": ["pact.human.prolific_export"]})
    real = tmp_path / "real.tsv"
    write_table(pd.DataFrame({"filter": ["scenarios"], "remaining": [63]}), real, job={"rule": "r"})
    entry = {"paper": "pact", "place": "5.1", "statement": "63 unique scenarios", "value": 63, "column": "remaining",
             "where": {"filter": "scenarios"}, "scale": "paper", "tolerance": 0, "unit": "count", "basis": "exact"}
    p = tmp_path / "claims.yaml"
    p.write_text(yaml.safe_dump({"columns": {"filters.tsv:remaining": "count", "real.tsv:remaining": "count"},
                                 "claims": [{"id": "syn", "result": "filters.tsv", **entry},
                                            {"id": "real", "result": "real.tsv", **entry}]}))
    t = evaluate(load_claims(p), ["pact"], scale="paper", base=tmp_path).set_index("id")
    assert t.loc["syn", "status"] == SYNTHETIC_STATUS == "not computable: synthetic input"
    assert "pact.human.prolific_export" in t.loc["syn", "reason"]
    assert t.loc["syn", "reproduced_value"] == 63  # still shown
    assert t.loc["real", "status"] == "reproduced"


# -- the workflow: parse / DAG errors name the key; preflight lists the inputs -------------------


def _smk(*args, cwd=ROOT):
    """``snakemake <args>`` (targets before --configfile, which takes every file after it); the
    output as ``.text`` (stdout and stderr)."""
    out = subprocess.run(SMK + list(args), cwd=cwd, capture_output=True, text=True, timeout=300)
    out.text = out.stdout + out.stderr
    return out


@pytest.mark.slow
def test_paper_dry_run_names_the_key_of_a_missing_input(tmp_path):
    from workflow import paper_stand_ins

    # a paper input that is not provided and not marked synthetic: the parse fails naming the key
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    unmarked = tmp_path / "unmarked.yaml"
    unmarked.write_text(yaml.safe_dump(
        {"synthetic_inputs": [k for k in paper["synthetic_inputs"] if k != "pact.human.prolific_export"]}))
    out = _smk("pact_figure6", "-n", "--configfile", "config/paper.yaml", str(unmarked))
    assert out.returncode != 0 and "config key 'pact.human.prolific_export'" in out.text, out.text[-2000:]
    # the corpus folders of the paper config are the user's: the DAG of a target that needs one fails naming
    # the key and the folder
    out = _smk("results/personas/index/usa", "-n", "--configfile", "config/paper.yaml")
    assert out.returncode != 0, out.text[-2000:]
    assert "config key 'personas.corpus.folders.usa': folder resources/personas/corpus/usa" in out.text
    # CultureAtlas has no download URL: a PACT target fails naming the downloads key
    out = _smk("pact_figure3", "-n", "--configfile", "config/paper.yaml")
    assert out.returncode != 0, out.text[-2000:]
    assert "config key 'downloads.cultureatlas/cultureatlas_positive.json' has no url" in out.text
    assert "pact.sources.cultureatlas.path" in out.text
    # the stand-ins marked synthetic: the whole paper DAG builds, jina made by download_model_hub
    out = _smk("-n", "--configfile", "config/paper.yaml", paper_stand_ins(tmp_path))
    assert out.returncode == 0, out.text[-3000:]
    assert "output: resources/models/jina-embeddings-v3" in out.text


@pytest.mark.slow
def test_preflight_lists_the_paper_inputs(tmp_path):
    from conftest import copy_worktree

    work = copy_worktree(tmp_path / "work")
    out = _smk("preflight", "--cores", "1", "--configfile", "config/paper.yaml", cwd=work)
    assert out.returncode == 0, out.text[-3000:]
    table = pd.read_csv(work / "results" / "preflight.tsv", sep="\t", keep_default_na=False).set_index("key")
    assert {"pact.sources.normad.path", "personas.corpus.folders.usa", "monopolet.embeddings.path",
            "models.gpt-oss-120b", "pact.human.prolific_export"} <= set(table.index)
    assert table.loc["personas.corpus.folders.usa", "present"] == False  # noqa: E712 (a pandas bool)
    assert table.loc["pact.human.prolific_export", "synthetic"] == True  # noqa: E712
    assert "monopolet.embeddings.path\tmodel\tresources/models/jina-embeddings-v3" in out.stdout  # printed
    assert read_sidecar(work / "results" / "preflight.tsv")["counts"]["inputs"] == len(table)


def test_stand_in_paths_are_where_the_demo_rules_write():
    """cultalign.inputs maps the stand-ins' paths to config keys: they must be the demo rules' outputs."""
    import re

    from cultalign.inputs import stand_ins

    paths = {key: path for key, _, path, _ in stand_ins()}
    pact = (ROOT / "rules" / "pact" / "common.smk").read_text()
    assert re.search(r'^PACT_DEMO_PROLIFIC = "(.+)"$', pact, re.M).group(1) == paths["pact.human.prolific_export"]
    personas = (ROOT / "rules" / "personas" / "common.smk").read_text()
    demo = re.search(r'^PERSONAS_DEMO = "(.+)"$', personas, re.M).group(1)
    assert paths["personas.human.files"] == f"{demo}/human"
    assert 'f"{PERSONAS_DEMO}/human/{{form}}_SYNTHETIC.dat"' in (ROOT / "rules" / "personas" / "demo.smk").read_text()
    assert 'f"{PERSONAS_DEMO}/corpus/{{country}}/{{country}}_demo.pdf"' in (
        ROOT / "rules" / "personas" / "demo.smk").read_text()


def test_cli_prints_the_preflight_table(capsys):
    from cultalign.inputs import main

    assert main([str(ROOT / "config" / "paper.yaml")]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("key\tkind\tpath") and any(r.startswith("personas.corpus.folders.usa\t") for r in rows)
