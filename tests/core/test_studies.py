"""The registry of studies (cultalign.studies): an unregistered study or a module that lacks a hook
fails naming it, every registered study has its files, and a fourth study registered from a folder
outside the package is seen by preflight, planning, the scoring check and the claims."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from cultalign import studies
from cultalign.claims import claim_result_files, evaluate, load_claims
from cultalign.config import ConfigError, load_config, load_schema
from cultalign.inputs import check_synthetic_marks, external_inputs
from cultalign.planning import Tokens, plan
from cultalign.scoring_check import check_scoring, scoring_uses

from .test_planning import FakeTokenizer

ROOT = Path(__file__).resolve().parents[2]


def test_an_unregistered_study_in_config_fails_naming_it():
    with pytest.raises(ConfigError, match=r"config key 'studies': 'foo' is not a registered study "
                                          r"\(registered: pact, personas, monopolet\)"):
        studies.check_studies({"studies": ["pact", "foo"]})
    studies.check_studies({"studies": ["pact", "personas", "monopolet"]})
    # the generic code refuses it too, instead of leaving it out
    with pytest.raises(studies.StudyError, match="'foo' is not a registered study"):
        scoring_uses({"studies": ["foo"]})


def test_a_study_module_that_lacks_a_hook_is_named(tmp_path, monkeypatch):
    pkg = tmp_path / "halfdone_study"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "study.py").write_text("def plan(cfg, sizes, tk):\n    return []\n\nSTAND_INS = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(studies.STUDIES, "halfdone", "halfdone_study.study")
    with pytest.raises(studies.StudyError) as e:
        studies.study("halfdone")
    msg = str(e.value)
    assert "study 'halfdone' (module halfdone_study.study" in msg
    missing = msg.split("lacks the hook(s) ")[1].split(":")[0].split(", ")
    assert missing == ["scoring_uses", "scoring_problems", "external_inputs", "input_active", "model_inputs",
                       "hub_folders", "REAL_DATA_TABLES"]


@pytest.mark.parametrize("name", list(studies.STUDIES))
def test_every_registered_study_has_its_files(name):
    """The checklist of docs/architecture.md (Adding a study), for the studies of the package."""
    mod = studies.study(name)
    assert (ROOT / "config" / "schema" / f"{name}.yaml").is_file()
    assert f'include: "rules/{name}/main.smk"' in (ROOT / "Snakefile").read_text()
    real_data = ROOT / "rules" / name / "real_data.smk"
    outputs = set()
    if real_data.exists():
        assert 'include: "real_data.smk"' in (ROOT / "rules" / name / "main.smk").read_text()
        outputs = set(re.findall(r'^        "(results/[^"]+)",$', real_data.read_text(), re.M))
    assert set(mod.REAL_DATA_TABLES) == outputs
    assert all(t.startswith(f"results/{name}/real_data/") for t in mod.REAL_DATA_TABLES)


# -- a fourth study from a folder outside the package -----------------------------------------

STUDY_PY = '''
"""A minimal study: one rule (museum_rate) that scores each exhibit label Yes/No with a model."""
from cultalign.inputs import _get
from cultalign.planning import Work
from cultalign.scoring_check import ScoringUse
from cultalign.studies import (every_input_active, no_external_inputs, no_hub_folders, no_model_inputs,
                               no_scoring_problems)

STAND_INS = [("museum.labels", lambda c: not _get(c, "museum.labels"),
              "resources/demo/generated/museum/labels_synthetic.tsv",
              "null: rule museum_demo_labels writes SYNTHETIC exhibit labels")]
REAL_DATA_TABLES = ()


def plan(cfg, sizes, tk):
    m = cfg["museum"]
    n = int(sizes.get("labels", m["n_labels"]))
    return [Work("museum", "museum_rate", m["model"], 1, n,
                 tk.chat("Is this exhibit label respectful? A mask.") + tk.options(["Yes", "No"]), 0,
                 f"{n} labels")]


def scoring_uses(config):
    m = (config.get("museum") or {}).get("model")
    if m:
        yield ScoringUse("museum_rate", "museum.model", m, ("Yes", "No"))


scoring_problems = no_scoring_problems
external_inputs = no_external_inputs
input_active = every_input_active
model_inputs = no_model_inputs
hub_folders = no_hub_folders
'''

SCHEMA_YAML = '''
type: object
description: A minimal study of exhibit labels.
default: {}
additionalProperties: false
properties:
  model:
    type: string
    x-model-ref: true
    description: The model that rates the labels.
    default: smollm2-135m-instruct
  n_labels:
    type: integer
    description: Labels rated.
    default: 3
  labels:
    type: [string, "null"]
    description: Exhibit labels (TSV); null = the SYNTHETIC stand-in.
    default: null
  catalogue:
    type: string
    description: The museum catalogue (CSV).
    default: resources/demo/pact/normad_demo.csv
    x-input-file: true
'''

RULES_SMK = '''
MUSEUM_DEMO_LABELS = "resources/demo/generated/museum/labels_synthetic.tsv"


rule museum_demo_labels:
    output:
        MUSEUM_DEMO_LABELS,
    log:
        "logs/museum/demo_labels.log",
    conda:
        "../../envs/stats.yaml"
    script:
        "../../scripts/museum/demo_labels.py"


rule museum_rate:
    input:
        labels=config["museum"]["labels"] or MUSEUM_DEMO_LABELS,
        catalogue=config["museum"]["catalogue"],
    output:
        "results/museum/rates.tsv",
    log:
        "logs/museum/rate.log",
    conda:
        "../../envs/stats.yaml"
    params:
        model=conf("museum.model"),
    script:
        "../../scripts/museum/rate.py"
'''

CLAIMS = {
    "columns": {"results/museum/rates.tsv:value": "fraction"},
    "claims": [{"id": "museum.respectful", "paper": "museum", "place": "Table 1", "statement": "62% respectful",
                "value": 62, "unit": "percent", "basis": "rounding", "result": "results/museum/rates.tsv",
                "column": "value", "where": {"quantity": "respectful_share"}, "scale": "any"}]}


@pytest.fixture
def museum(tmp_path, monkeypatch):
    """The study `museum` in a folder outside the package: its module (registered by its line in
    the registry) and its schema beside the workflow's."""
    pkg = tmp_path / "museum_study"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "study.py").write_text(STUDY_PY)
    schema_dir = tmp_path / "schema"
    shutil.copytree(ROOT / "config" / "schema", schema_dir)
    (schema_dir / "museum.yaml").write_text(SCHEMA_YAML)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(studies.STUDIES, "museum", "museum_study.study")  # the registry line
    (tmp_path / "museum.yaml").write_text(yaml.safe_dump({
        "studies": ["pact", "personas", "monopolet", "museum"],
        "models": {"no-scores": {"source": "api", "hub_id": "example/no-scores", "scoring": "none",
                                 "api_key_env": "EXAMPLE_KEY"}},
        "planning": {"params_b": {"smollm2-135m-instruct": 0.135}},
        "museum": {"n_labels": 7}}))
    yield tmp_path
    sys.modules.pop("museum_study.study", None)
    sys.modules.pop("museum_study", None)
    studies._load.cache_clear()


def _config(museum, **museum_keys):
    schema = load_schema(museum / "schema")
    cfg = load_config(ROOT / "config" / "config.yaml", museum / "museum.yaml", schema=schema)
    cfg["museum"].update(museum_keys)
    return cfg, schema


def test_a_fourth_study_is_seen_by_preflight_planning_scoring_and_claims(museum):
    studies.check_studies({"studies": ["pact", "museum"]})
    cfg, schema = _config(museum)
    assert cfg["museum"] == {"model": "smollm2-135m-instruct", "n_labels": 7, "labels": None,
                             "catalogue": "resources/demo/pact/normad_demo.csv"}  # schema defaults filled

    # preflight: its input file and its stand-in, which must be marked synthetic
    rows = {i.key: i for i in external_inputs(cfg, schema, ROOT)}
    assert rows["museum.catalogue"].present and rows["museum.catalogue"].standin  # the project's demo file
    assert rows["museum.labels"].made_by == "(workflow stand-in)"
    with pytest.raises(ConfigError, match=r"config key 'museum.catalogue'") as e:
        check_synthetic_marks(cfg, schema, ROOT)
    assert "config key 'museum.labels': resources/demo/generated/museum/labels_synthetic.tsv" in str(e.value)
    cfg["synthetic_inputs"] = [*cfg["synthetic_inputs"], "museum"]
    check_synthetic_marks(cfg, schema, ROOT)
    # left out of `studies`, its inputs are not read
    assert not any(k.startswith("museum.") for k in
                   (i.key for i in external_inputs({**cfg, "studies": ["pact"]}, schema, ROOT)))

    # planning: its rule, model and requests
    df = plan(cfg, Tokens(FakeTokenizer()))
    row = df[df.study == "museum"].set_index("rule").loc["museum_rate"]
    assert (row["model"], row["requests"], row["basis"]) == ("smollm2-135m-instruct", 7, "7 labels")
    planning = {**cfg, "planning": {**cfg["planning"], "input_sizes": {"museum": {"labels": 40}}}}
    assert plan(planning, Tokens(FakeTokenizer())).set_index("study").loc["museum", "requests"] == 40

    # the scoring check: its use, and a model that cannot score fails naming the rule and the key
    assert [u for u in scoring_uses(cfg) if u.rule == "museum_rate"][0].labels == ("Yes", "No")
    assert check_scoring(cfg)["smollm2-135m-instruct"] == "full"
    bad, _ = _config(museum, model="no-scores")
    with pytest.raises(ConfigError, match=r"rule museum_rate: model 'no-scores' is asked to score options by "
                                          r"config key 'museum.model'"):
        check_scoring(bad)

    # the claims: a claim of the study reads its table
    (museum / "results" / "museum").mkdir(parents=True)
    pd.DataFrame({"quantity": ["respectful_share"], "value": [0.62]}).to_csv(
        museum / "results" / "museum" / "rates.tsv", sep="\t", index=False)
    (museum / "claims.yaml").write_text(yaml.safe_dump(CLAIMS))
    claims = load_claims(museum / "claims.yaml")
    assert claim_result_files(claims, cfg["studies"]) == ["results/museum/rates.tsv"]
    card = evaluate(claims, cfg["studies"], scale="demo", base=museum).set_index("id").loc["museum.respectful"]
    assert card["status"] == "reproduced", card["reason"]
    assert card["reproduced_value"] == pytest.approx(62)


@pytest.mark.slow
def test_a_fourth_study_runs_in_the_workflow(tmp_path):
    """The checklist of docs/architecture.md (Adding a study) on a copy of the checkout, the study's
    module in a folder outside it: a dry run fails naming its unmarked stand-in, and with the mark
    plans its rules for the claims scorecard."""
    from conftest import child_env, copy_worktree
    from workflow import planned_jobs, snakemake

    work = copy_worktree(tmp_path / "work")
    ext = tmp_path / "ext" / "museum_study"
    ext.mkdir(parents=True)
    (ext / "__init__.py").write_text("")
    (ext / "study.py").write_text(STUDY_PY)
    registry = work / "src" / "cultalign" / "studies.py"
    line = '    "monopolet": "cultalign.monopolet.study",\n'
    registry.write_text(registry.read_text().replace(line, line + '    "museum": "museum_study.study",\n'))
    (work / "config" / "schema" / "museum.yaml").write_text(SCHEMA_YAML)
    (work / "rules" / "museum").mkdir()
    (work / "rules" / "museum" / "main.smk").write_text(RULES_SMK)
    (work / "scripts" / "museum").mkdir()
    for script in ("rate.py", "demo_labels.py"):  # planned, never run
        (work / "scripts" / "museum" / script).write_text("from cultalign.core.job import Job\n")
    snakefile = work / "Snakefile"
    include = 'include: "rules/monopolet/main.smk"\n'
    snakefile.write_text(snakefile.read_text().replace(include, include + 'include: "rules/museum/main.smk"\n'))
    (work / "museum_claims.yaml").write_text(yaml.safe_dump(CLAIMS))
    base = yaml.safe_load((work / "config" / "config.yaml").read_text())
    layer = {"studies": [*base["studies"], "museum"], "claims": "museum_claims.yaml"}
    (work / "museum.yaml").write_text(yaml.safe_dump(layer))
    (work / "museum_marked.yaml").write_text(yaml.safe_dump(
        {**layer, "synthetic_inputs": [*base["synthetic_inputs"], "museum"]}))
    env = child_env(PYTHONPATH=str(ext.parent))

    out = snakemake(work, "-n", "--cores", "1", "results/claims.csv", "--configfile", "museum.yaml", env=env)
    assert out.returncode != 0, out.stdout[-2000:]
    stand_in = "config key 'museum.labels': resources/demo/generated/museum/labels_synthetic.tsv"
    assert stand_in in out.stdout + out.stderr, out.stdout[-3000:]
    jobs = {j.rule for j in planned_jobs(work, "results/claims.csv", "--configfile", "museum_marked.yaml",
                                         env=env)}
    assert {"museum_demo_labels", "museum_rate", "claims"} <= jobs
