# PACT targets: one named rule per paper table or figure, and the study's final targets.

STUDY_TARGETS["pact"] = (
    list(PACT_FIGURES.values()) + list(PACT_APPENDIX_FIGURES.values()) + PACT_TABLES
)


rule pact_construction:
    """Section 3 / appendix A: source counts, filter, validation and expansion counts, annotation agreement."""
    input:
        "results/pact/ingest/normad_summary.tsv",
        "results/pact/construct/cultureatlas_filter_counts.tsv",
        "results/pact/construct/construction_counts.tsv",
        "results/pact/annotation/agreement.tsv",
    localrule: True


rule pact_figure3:
    """Figure 3 with the rates by factor and the chi-square tests (section 4)."""
    input:
        PACT_FIGURES["3"],
        "results/pact/analysis/rates_by_factor.tsv",
        "results/pact/analysis/chi_square.tsv",
    localrule: True


rule pact_per_model_tables:
    """Tables 5, 7, 8 and 14 and the appendix B.8 configuration rates, per model."""
    input:
        "results/pact/analysis/rates_per_model_tables.tsv",
    localrule: True


rule pact_figure4:
    """Figure 4: base vs instruct and small vs large models."""
    input:
        PACT_FIGURES["4"],
    localrule: True


rule pact_figure5:
    """Figure 5: demographic and regional effects."""
    input:
        PACT_FIGURES["5"],
    localrule: True


rule pact_figure6:
    """Figure 6 with the human-study filter counts."""
    input:
        PACT_FIGURES["6"],
        "results/pact/human/filters.tsv",
    localrule: True


rule pact_figure7:
    """Figure 7 with the alignment metrics, the position audit and the models' norm-personal gap."""
    input:
        PACT_FIGURES["7"],
        "results/pact/alignment/metrics.tsv",
        "results/pact/alignment/position_audit.tsv",
        "results/pact/alignment/model_norm_personal_gap.tsv",
    localrule: True


rule pact_figures:
    """Figures 3-7 of the paper."""
    input:
        list(PACT_FIGURES.values()),
    localrule: True


rule pact_regression_tables:
    """Appendix D tables 16-17: drop-one regressions for humans and models."""
    input:
        "results/pact/regression/human_drop1.tsv",
        "results/pact/regression/model_drop1.tsv",
    localrule: True


rule pact_figure15:
    """Appendix figure 15: persona vs no persona per model."""
    input:
        PACT_APPENDIX_FIGURES["15"],
        "results/pact/alignment/persona_effects.tsv",
    localrule: True


rule pact_figure16:
    """Appendix figure 16: persona vs no persona per persona country."""
    input:
        PACT_APPENDIX_FIGURES["16"],
        "results/pact/alignment/persona_country_effects.tsv",
    localrule: True


rule pact_region_heatmap:
    """Appendix B.2: actor region x receiver region heatmap."""
    input:
        PACT_APPENDIX_FIGURES["region_heatmap"],
        "results/pact/analysis/region_pair_rates.tsv",
    localrule: True


rule pact_preference_bins:
    """Appendix B.7 tables 9-11: preference strength and theme bins."""
    input:
        "results/pact/analysis/preference_bins.tsv",
        "results/pact/analysis/preference_strength_by_country.tsv",
    localrule: True


rule pact_table6:
    """Appendix B.4 Table 6: allow-preference rates by actor-receiver age and gender pair, per model."""
    input:
        "results/pact/analysis/pair_rates.tsv",
    localrule: True


rule pact_figure12:
    """Appendix B.4 Figure 12: age and gender effects per model and source."""
    input:
        PACT_APPENDIX_FIGURES["12"],
        "results/pact/analysis/figure12_demographic_effects.tsv",
        "results/pact/analysis/figure12_direction_shares.tsv",
    localrule: True


rule pact_table13:
    """Appendix B.9 Table 13: chi-square and Cramer's V (with the scenario-type row) and the demographic contrasts."""
    input:
        "results/pact/analysis/chi_square.tsv",
        "results/pact/analysis/demographic_effects.tsv",
    localrule: True


rule pact_table28:
    """Appendix G.2 Table 28: human culture-following rate and agreement by country relation."""
    input:
        "results/pact/human/relation_rates.tsv",
    localrule: True


rule pact_human_agreement:
    """Section 5.2: human agreement per scenario and demographic group."""
    input:
        "results/pact/human/agreement_cells.tsv",
        "results/pact/human/agreement.tsv",
    localrule: True
