"""Reruns follow changes exactly: a personas config key reruns the jobs that read it (and what depends
on them), restating config values plans nothing, and a package module edit reruns the rules whose
scripts import it.  Dry runs in the copy where the small test config ran (fixture small_run)."""

from pathlib import Path

import pytest
from workflow import PARAMS_CHANGED, SMALL_CONFIG, planned_jobs, rules_of

pytestmark = pytest.mark.slow

# downstream of a changed MCS/OEG job: the tables, TRAIT's own scores, figures, claims
# the default model's card reads the MCS and OEG tables; the model-output page waits for the tables
CARD = {"model_card", "model_outputs"}
EVAL_DOWNSTREAM = {"personas_metrics", "personas_trait_native", "personas_plots", "claims", "all"} | CARD
# Table 3 (rule personas_oeg_tables) reads the OEG answers only
OEG_DOWNSTREAM = EVAL_DOWNSTREAM | {"personas_oeg_tables"}


def _plan(work: Path, tmp_path: Path, override: str | None = None):
    args = ["--configfile", SMALL_CONFIG]
    if override is not None:
        path = tmp_path / "override.yaml"
        path.write_text(override)
        args.append(str(path))
    return planned_jobs(work, *args)


def test_mcs_max_samples_reruns_mcs_and_oeg(small_run, tmp_path):
    # personas.mcs.max_samples caps the simulated respondents of both MCS and OEG
    jobs = _plan(small_run, tmp_path, "personas:\n  mcs:\n    max_samples: 50\n")
    assert rules_of(jobs, PARAMS_CHANGED) == {"personas_mcs", "personas_oeg"}
    assert rules_of(jobs) == {"personas_mcs", "personas_oeg"} | OEG_DOWNSTREAM


@pytest.mark.parametrize("override", [
    # a default restated in an override file
    "personas:\n  release_eval:\n    subsample: 20\n",
    "personas:\n  mcs:\n    max_samples: 100\n    score: text\n",
    # a mapping restated in another key order (params hold mappings with sorted keys)
    "personas:\n  generation:\n    max_chars: {answer: 60, question: 100, scenario: 200, norm: 150}\n",
])
def test_restated_config_plans_nothing(small_run, tmp_path, override):
    assert _plan(small_run, tmp_path, override) == []


@pytest.mark.parametrize("module, changed, planned", [
    # the scripts of Tables 1 and 3 import the module too
    ("metrics.py", {"personas_metrics", "personas_human_tables", "personas_oeg_tables", "model_card"},
     {"personas_metrics", "personas_human_tables", "personas_oeg_tables", "personas_plots", "claims", "all"} | CARD),
    # generation code: the norms rerun (scenarios and questions are planned for their new input
    # first, which Snakemake reports instead), and everything built on the generated questions
    ("generate.py", {"personas_norms"},
     {"personas_norms", "personas_scenarios", "personas_questions", "personas_cp_items", "personas_export_release",
      "personas_audit_generated", "personas_mcs", "personas_oeg"} | OEG_DOWNSTREAM),
])
def test_package_module_edit_reruns_its_rules(small_run, tmp_path, module, changed, planned):
    path = small_run / "src" / "cultalign" / "personas" / module
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\n# an edit\n")
        jobs = _plan(small_run, tmp_path)
    finally:
        path.write_bytes(original)
    assert rules_of(jobs, PARAMS_CHANGED) == changed
    assert rules_of(jobs) == planned
    assert _plan(small_run, tmp_path) == []
