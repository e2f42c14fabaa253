"""Reruns follow every change, and only the jobs it affects: after the small
test config ran end to end, one monopolet config key and one monopolet package
module are changed and a dry run must plan exactly the jobs that use them (and
those downstream of them)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from workflow import PARAMS_CHANGED, SMALL_CONFIG, planned_jobs, rules_of

pytestmark = pytest.mark.slow

# downstream of the matching tables: their gather, the agreement tables and the figures made from them
# the default model's card reads the matching (SAA/EAA); the model-output page waits for the tables
CARD = {"model_card", "model_outputs"}
AFTER_MATCHING = {"monopolet_gather", "monopolet_agreement", "monopolet_plot_figure5", "monopolet_plot_figure8",
                  "monopolet_annotation_samples", "all"} | CARD


def _override(tmp_path: Path, monopolet: dict) -> str:
    p = tmp_path / "override.yaml"
    p.write_text(yaml.safe_dump({"monopolet": monopolet}))
    return str(p)


def test_judge_token_limit_reruns_exactly_the_matching(small_run, tmp_path):
    jobs = planned_jobs(small_run, "--configfile", SMALL_CONFIG,
                        _override(tmp_path, {"judge": {"max_new_tokens": 200}}))
    assert rules_of(jobs, PARAMS_CHANGED) == {"monopolet_match"}
    assert rules_of(jobs) == {"monopolet_match"} | AFTER_MATCHING
    assert {j.wildcards for j in jobs if j.rule == "monopolet_gather"} == {
        "stage=matching, name=smollm2-135m-instruct_vs_panel"}


def test_restating_a_default_plans_nothing(small_run, tmp_path):
    jobs = planned_jobs(small_run, "--configfile", SMALL_CONFIG,
                        _override(tmp_path, {"judge": {"max_new_tokens": 224, "prefilter": {"top_k": 1}}}))
    assert jobs == []


def test_answer_temperature_param_is_per_model(small_run, tmp_path):
    # another model's temperature leaves this model's answers alone; its own reruns them
    other = planned_jobs(small_run, "--configfile", SMALL_CONFIG,
                         _override(tmp_path, {"answers": {"temperature_by_model": {"other-model": 0.5}}}))
    assert "monopolet_answers" not in rules_of(other)
    own = planned_jobs(small_run, "--configfile", SMALL_CONFIG,
                       _override(tmp_path, {"answers": {"temperature_by_model": {"smollm2-135m-instruct": 0.5}}}))
    assert rules_of(own, PARAMS_CHANGED) == {"monopolet_answers"}


# module -> (rules whose scripts import it: params changed, every rule that would run)
MODULE_EDITS = {
    # agreement (SAA/EAA) imports it; Figure 8 too, but it reruns anyway as its input is remade
    # (and the EAA grid of Figure 9)
    "metrics.py": ({"monopolet_agreement", "monopolet_eaa_grid", "model_card"},
                   {"monopolet_agreement", "monopolet_eaa_grid", "monopolet_plot_figure5", "monopolet_plot_figure8",
                    "all"} | CARD),
    # every figure, nothing upstream of them
    "figures.py": ({"monopolet_plot_figure5", "monopolet_plot_figure6", "monopolet_plot_figure7",
                    "monopolet_plot_figure8", "monopolet_eaa_grid", "monopolet_topic_map"},
                   {"monopolet_plot_figure5", "monopolet_plot_figure6", "monopolet_plot_figure7",
                    "monopolet_plot_figure8", "monopolet_eaa_grid", "monopolet_topic_map", "all"}),
}


@pytest.mark.parametrize("module", sorted(MODULE_EDITS))
def test_package_module_edit_reruns_exactly_its_users(small_run, module):
    path = small_run / "src" / "cultalign" / "monopolet" / module
    text = path.read_text()
    try:
        path.write_text(text + "# edited\n")
        jobs = planned_jobs(small_run, "--configfile", SMALL_CONFIG)
    finally:
        path.write_text(text)
    changed, planned = MODULE_EDITS[module]
    assert rules_of(jobs, PARAMS_CHANGED) == changed
    assert rules_of(jobs) == planned
