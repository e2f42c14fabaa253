# PACT figures: Figures 3-7 of the paper and the appendix figures.


rule pact_figures:
    """Figures 3-7 of the paper."""
    input:
        by_model_config="results/pact/analysis/rates_by_model_configuration.tsv",
        by_model_kind="results/pact/analysis/rates_by_model_kind.tsv",
        model_pairs="results/pact/analysis/model_pairs.tsv",
        demographics="results/pact/analysis/demographic_effects.tsv",
        regions="results/pact/analysis/region_effects.tsv",
        gaps="results/pact/human/norm_personal_gap.tsv",
        agreement="results/pact/human/agreement.tsv",
        alignment="results/pact/alignment/summary.tsv",
    output:
        fig3=paper_report(
            PACT_FIGURES["3"],
            caption="../../report/pact/figure3.rst",
            category="PACT",
            section=REPORT_MAIN,
            no=1,
            paper="Figure 3",
            shows="Allow-preference rate by model and configuration",
        ),
        fig4=paper_report(
            PACT_FIGURES["4"],
            caption="../../report/pact/figure4.rst",
            category="PACT",
            section=REPORT_MAIN,
            no=2,
            paper="Figure 4",
            shows="Base vs instruct behaviour",
        ),
        fig5=paper_report(
            PACT_FIGURES["5"],
            caption="../../report/pact/figure5.rst",
            category="PACT",
            section=REPORT_MAIN,
            no=3,
            paper="Figure 5",
            shows="Demographic and regional effects",
        ),
        fig6=paper_report(
            PACT_FIGURES["6"],
            caption="../../report/pact/figure6.rst",
            category="PACT",
            section=REPORT_MAIN,
            no=4,
            paper="Figure 6",
            shows="Human study results",
        ),
        fig7=paper_report(
            PACT_FIGURES["7"],
            caption="../../report/pact/figure7.rst",
            category="PACT",
            section=REPORT_MAIN,
            no=5,
            paper="Figure 7",
            shows="Human-model alignment",
        ),
    log:
        "logs/pact/figures.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        model_names=model_display_names(),
        figure7_setting=conf("pact.alignment.figure7_setting"),
    script:
        "../../scripts/pact/figures.py"


rule pact_appendix_figures:
    """Appendix figures: 15 and 16 (persona vs no persona, F.4) and the B.2 region heatmap."""
    input:
        persona="results/pact/alignment/persona_effects.tsv",
        persona_country="results/pact/alignment/persona_country_effects.tsv",
        region_pairs="results/pact/analysis/region_pair_rates.tsv",
    output:
        fig15=paper_report(
            PACT_APPENDIX_FIGURES["15"],
            caption="../../report/pact/figure15.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=13,
            paper="Figure 15 (appendix F.4)",
            shows="Persona vs no-persona findings",
        ),
        fig16=paper_report(
            PACT_APPENDIX_FIGURES["16"],
            caption="../../report/pact/figure16.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=14,
            paper="Figure 16 (appendix F.4)",
            shows="Persona vs no-persona MAE by country",
        ),
        region_heatmap=paper_report(
            PACT_APPENDIX_FIGURES["region_heatmap"],
            caption="../../report/pact/region_heatmap.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=6,
            paper="Appendix B.2",
            shows="Actor region x receiver region heatmap",
        ),
    log:
        "logs/pact/appendix_figures.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        model_names=model_display_names(),
    script:
        "../../scripts/pact/appendix_figures.py"
