"""A named target plans only what its table or figure needs (dry runs with --forceall, so the
plan is the target's whole input graph whatever the checkout already holds)."""

from __future__ import annotations

import pytest

from workflow import ROOT, planned_jobs, rules_of

pytestmark = pytest.mark.slow

MODEL_RULES = {"prepare_model_gguf", "personas_mcs", "personas_oeg", "pact_behaviour", "pact_construct", "pact_judge",
               "monopolet_answers", "monopolet_transcribe"}
PACT_HUMAN = {"pact_demo_prolific", "pact_ingest_prolific", "pact_survey", "pact_alignment"}


@pytest.mark.parametrize("target,absent,present", [
    # Table 1 compares countries on the human data alone: no model, no generated benchmark
    ("personas_table1", MODEL_RULES | {"personas_metrics", "personas_questions", "personas_index"},
     {"personas_human_scores", "personas_human_tables"}),
    # Table 3 (type-token ratio of OEG answers): no MCS scoring
    ("personas_table3", {"personas_mcs", "personas_metrics"},
     {"personas_oeg", "personas_oeg_tables"}),
    # Figure 3 (model behaviour): no human study, no alignment
    ("pact_figure3", PACT_HUMAN | {"pact_plot_figure6", "pact_plot_figure7"},
     {"pact_behaviour", "pact_behaviour_analysis", "pact_plot_figure3"}),
    # the B.2 heatmap (model behaviour by region): no human study
    ("pact_region_heatmap", PACT_HUMAN | {"pact_appendix_figures"}, {"pact_plot_region_heatmap"}),
])
def test_named_target_plans_only_its_inputs(target, absent, present):
    rules = rules_of(planned_jobs(ROOT, "--forceall", target))
    assert not rules & absent, f"{target} plans {sorted(rules & absent)}"
    assert present <= rules, f"{target} lacks {sorted(present - rules)}: {sorted(rules)}"
