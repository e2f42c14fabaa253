"""Reruns follow changes exactly: one PACT config key, one PACT package module (on the small run)."""

from __future__ import annotations

import pytest

from workflow import PARAMS_CHANGED, SMALL_CONFIG, planned_jobs, rules_of

pytestmark = pytest.mark.slow

# the CIs of Figure 3 and the section 4 tables: the analysis, the figures and claims that read them
# (Figure 3 reads the CIs; Figures 4 and 5 and the B.2 heatmap read other tables of the same
# analysis job, as do Figure 12 and the B.2 heatmap; Figures 6, 7, 15 and 16 read the human study and the
# alignment only); the default model's card takes the bootstrap as its own param (its CIs) and the
# model-output page waits for the tables
BOOTSTRAP_RERUNS = {"pact_behaviour_analysis", "pact_plot_figure3", "pact_plot_figure4", "pact_plot_figure5",
                    "pact_plot_figure12", "pact_plot_region_heatmap", "claims", "model_card", "model_outputs", "all"}
FIGURE_RULES = {f"pact_plot_figure{n}" for n in range(3, 8)} | {"pact_appendix_figures", "pact_plot_region_heatmap",
                                                                 "pact_plot_figure12"}


def _dry_run_with(work, name: str, text: str):
    override = work / name
    override.write_text(text)
    try:
        return planned_jobs(work, "--configfile", SMALL_CONFIG, name)
    finally:
        override.unlink()


def test_bootstrap_change_reruns_the_behaviour_analysis_and_what_reads_it(small_run):
    jobs = _dry_run_with(small_run, "pact_bootstrap.yaml", "pact:\n  behaviour:\n    bootstrap: 50\n")
    assert rules_of(jobs, PARAMS_CHANGED) == {"pact_behaviour_analysis", "model_card"}
    assert rules_of(jobs) == BOOTSTRAP_RERUNS


def test_restating_the_effective_values_plans_nothing(small_run):
    # the embedded default's values of the behaviour section, keys in another order
    same = "pact:\n  behaviour:\n    top_p: 0.9\n    bootstrap: 200\n    temperature: 0.3\n    max_new_tokens: 12\n"
    assert _dry_run_with(small_run, "pact_same.yaml", same) == []


def test_figures_module_edit_reruns_exactly_the_figure_rules(small_run):
    module = small_run / "src" / "cultalign" / "pact" / "figures.py"
    before = module.read_bytes()
    try:
        module.write_bytes(before + b"# edited by a test\n")
        jobs = planned_jobs(small_run, "--configfile", SMALL_CONFIG)
    finally:
        module.write_bytes(before)
    assert rules_of(jobs, PARAMS_CHANGED) == FIGURE_RULES
    assert rules_of(jobs) == FIGURE_RULES | {"all"}
