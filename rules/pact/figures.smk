# PACT figures: Figures 3-7 of the paper and the appendix figures.


# Figures 3-7: one rule each, so that a figure needs only its own tables (Figure 3
# the model behaviour, not the human study).  Named inputs per figure:
PACT_FIGURE_INPUTS = {
    "3": {"by_model_config": "results/pact/analysis/rates_by_model_configuration.tsv"},
    "4": {
        "by_model_kind": "results/pact/analysis/rates_by_model_kind.tsv",
        "model_pairs": "results/pact/analysis/model_pairs.tsv",
    },
    "5": {
        "demographics": "results/pact/analysis/figure5_demographic_effects.tsv",
        "regions": "results/pact/analysis/region_effects.tsv",
    },
    "6": {
        "gaps": "results/pact/human/norm_personal_gap.tsv",
        "agreement": "results/pact/human/agreement.tsv",
    },
    "7": {
        "alignment": "results/pact/alignment/summary.tsv",
        "gaps": "results/pact/human/norm_personal_gap.tsv",
    },
}
# report entry of each figure: place in the main text, what it shows
PACT_FIGURE_REPORT = {
    "3": (1, "Allow-preference rate by model and configuration"),
    "4": (2, "Base vs instruct behaviour"),
    "5": (3, "Demographic and regional effects"),
    "6": (4, "Human study results"),
    "7": (5, "Human-model alignment"),
}
# the models each figure shows (its display names are the figure's param model_names):
# the behaviour figures every behaviour model, Figure 6 the human study alone
PACT_FIGURE_MODELS = {
    "3": PACT_BEHAVIOUR_MODELS,
    "4": PACT_BEHAVIOUR_MODELS,
    "5": PACT_BEHAVIOUR_MODELS,
    "6": [],
    "7": PACT_MODELS,
}
# config values a figure reads (only that figure reruns when they change)
PACT_FIGURE_PARAMS = {
    "7": {"figure7_setting": conf("pact.alignment.figure7_setting")},
}


for _n, _inputs in PACT_FIGURE_INPUTS.items():

    rule:
        name:
            f"pact_plot_figure{_n}"
        input:
            **_inputs,
        output:
            figure=paper_report(
                PACT_FIGURES[_n],
                caption=f"../../report/pact/figure{_n}.rst",
                category="PACT",
                section=REPORT_MAIN,
                no=PACT_FIGURE_REPORT[_n][0],
                paper=f"Figure {_n}",
                shows=PACT_FIGURE_REPORT[_n][1],
            ),
        log:
            f"logs/pact/figure{_n}.log",
        localrule: True
        conda:
            "../../envs/stats.yaml"
        resources:
            mem_mb=attempt_scaled(2000),
            runtime=attempt_scaled(10),
        params:
            **PACT_FIGURE_PARAMS.get(_n, {}),
            number=_n,
            model_names=model_display_names(PACT_FIGURE_MODELS[_n]),
        script:
            "../../scripts/pact/figures.py"


rule pact_appendix_figures:
    """Appendix figures 15 and 16 (persona vs no persona, F.4)."""
    input:
        persona="results/pact/alignment/persona_effects.tsv",
        persona_country="results/pact/alignment/persona_country_effects.tsv",
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
    log:
        "logs/pact/appendix_figures.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        model_names=model_display_names(PACT_MODELS),
    script:
        "../../scripts/pact/appendix_figures.py"


rule pact_plot_region_heatmap:
    """Appendix B.2 heatmap from the model behaviour alone (no human study)."""
    input:
        region_pairs="results/pact/analysis/region_pair_rates.tsv",
    output:
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
        "logs/pact/region_heatmap.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        model_names=model_display_names(PACT_BEHAVIOUR_MODELS),
    script:
        "../../scripts/pact/region_heatmap.py"


rule pact_plot_figure12:
    """Appendix B.4 Figure 12: age and gender effects per model and source, actor and receiver."""
    input:
        effects="results/pact/analysis/figure12_demographic_effects.tsv",
    output:
        figure=paper_report(
            PACT_APPENDIX_FIGURES["12"],
            caption="../../report/pact/figure12.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=17,
            paper="Figure 12 (appendix B.4)",
            shows="Age and gender effects per model and source",
        ),
    log:
        "logs/pact/figure12.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        model_names=model_display_names(PACT_MODELS),
    script:
        "../../scripts/pact/figure12.py"
