# PACT study (issue 3): Borah, Augenstein, Mihalcea 2026, "Whose Norms?".
# sources -> ingest -> construct (LLM) -> expand -> behaviour (LLM) -> analyses
# human study (Prolific export, synthetic in the demo) -> alignment (LLM) -> R regressions
# -> figures 3-7, tables, claims.  Logic: src/cultalign/pact/.


include: "common.smk"


wildcard_constraints:
    source="normad|cultureatlas",


rule pact_ingest_normad:
    """Validate NormAd-ETI; rows, countries, gold-label counts (appendix A.1)."""
    input:
        data=pact_normad_file,
    output:
        table="results/pact/ingest/normad.tsv",
        summary=report(
            "results/pact/ingest/normad_summary.tsv",
            caption="../../report/pact/normad_summary.rst",
            category="PACT",
        ),
        per_country="results/pact/ingest/normad_per_country.tsv",
    log:
        "logs/pact/ingest_normad.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/ingest_normad.py"


rule pact_ingest_cultureatlas:
    """Validate CultureAtlas rows (assertion with positive and negative samples)."""
    input:
        data=pact_cultureatlas_file,
    output:
        table="results/pact/ingest/cultureatlas.tsv",
        summary="results/pact/ingest/cultureatlas_summary.tsv",
    log:
        "logs/pact/ingest_cultureatlas.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/ingest_cultureatlas.py"


rule pact_filter_cultureatlas:
    """LLM filter of factual / non-social / non-actionable CultureAtlas rows (10,875 -> 4,007)."""
    input:
        table="results/pact/ingest/cultureatlas.tsv",
        weights=pact_construction_weights,
    output:
        table="results/pact/construct/cultureatlas_filtered.tsv",
        counts="results/pact/construct/cultureatlas_filter_counts.tsv",
    log:
        "logs/pact/filter_cultureatlas.log",
    benchmark:
        "benchmarks/pact/filter_cultureatlas.tsv"
    conda:
        env_of_model(pact_construction_model())
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(pact_construction_model()),
        runtime=config["resources"]["runtime"],
        gpu=gpu_of_model(pact_construction_model()),
    params:
        model=pact_construction_model(),
    script:
        "../../scripts/pact/filter_cultureatlas.py"


rule pact_construct:
    """Preference generation, scenario rewrite and LLM-judge validation of one source."""
    input:
        table=pact_construct_input,
        weights=pact_construction_weights,
    output:
        table="results/pact/construct/{source}_validated.tsv",
        counts="results/pact/construct/{source}_validation_counts.tsv",
    log:
        "logs/pact/construct/{source}.log",
    benchmark:
        "benchmarks/pact/construct/{source}.tsv"
    conda:
        env_of_model(pact_construction_model())
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(pact_construction_model()),
        runtime=config["resources"]["runtime"],
        gpu=gpu_of_model(pact_construction_model()),
    params:
        model=pact_construction_model(),
    script:
        "../../scripts/pact/construct.py"


rule pact_expand:
    """48 instances per scenario: relation (same/close/far) x 16 age/gender combinations."""
    input:
        validated=expand(
            "results/pact/construct/{source}_validated.tsv", source=PACT_SOURCES
        ),
        source_counts=[
            "results/pact/ingest/normad_summary.tsv",
            "results/pact/construct/cultureatlas_filter_counts.tsv",
        ],
    output:
        instances="results/pact/construct/instances.tsv",
        counts=report(
            "results/pact/construct/construction_counts.tsv",
            caption="../../report/pact/construction_counts.rst",
            category="PACT",
        ),
    log:
        "logs/pact/expand.log",
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=8000,
        runtime=30,
    script:
        "../../scripts/pact/expand.py"


rule pact_behaviour:
    """Decisions of one model on one shard of the instance x condition prompts (generation + log-probs)."""
    input:
        instances="results/pact/construct/instances.tsv",
        weights=model_weights,
    output:
        table="results/pact/behaviour/{model}/shard_{shard}.tsv",
    log:
        "logs/pact/behaviour/{model}/shard_{shard}.log",
    benchmark:
        "benchmarks/pact/behaviour/{model}/shard_{shard}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    script:
        "../../scripts/pact/behaviour.py"


rule pact_gather_behaviour:
    """All shards and models in one decision table."""
    input:
        shards=pact_behaviour_shards,
    output:
        table="results/pact/behaviour/decisions.tsv",
    log:
        "logs/pact/gather_behaviour.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=4000,
        runtime=10,
    script:
        "../../scripts/pact/gather_behaviour.py"


rule pact_behaviour_analysis:
    """Section 4 / appendix B: rates with bootstrap CIs, chi-square + Cramer's V, demographic and region effects."""
    input:
        table="results/pact/behaviour/decisions.tsv",
    output:
        rates=report(
            "results/pact/analysis/rates_by_factor.tsv",
            caption="../../report/pact/rates_by_factor.rst",
            category="PACT",
        ),
        by_model_config="results/pact/analysis/rates_by_model_configuration.tsv",
        by_model_kind="results/pact/analysis/rates_by_model_kind.tsv",
        model_pairs="results/pact/analysis/model_pairs.tsv",
        by_model="results/pact/analysis/rates_by_model.tsv",
        chi_square=report(
            "results/pact/analysis/chi_square.tsv",
            caption="../../report/pact/chi_square.rst",
            category="PACT",
        ),
        demographics="results/pact/analysis/demographic_effects.tsv",
        regions="results/pact/analysis/region_effects.tsv",
        region_pairs="results/pact/analysis/region_pair_rates.tsv",
        preference_bins=report(
            "results/pact/analysis/preference_bins.tsv",
            caption="../../report/pact/preference_bins.rst",
            category="PACT",
        ),
        strength_by_country="results/pact/analysis/preference_strength_by_country.tsv",
    log:
        "logs/pact/behaviour_analysis.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../../scripts/pact/behaviour_analysis.py"


rule pact_synthetic_prolific:
    """SYNTHETIC Prolific-format export (seeded) for the demo human study."""
    input:
        validated="results/pact/construct/normad_validated.tsv",
    output:
        export="resources/demo/generated/pact/prolific_export_synthetic.csv",
    log:
        "logs/pact/synthetic_prolific.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/pact/synthetic_prolific.py"


rule pact_ingest_prolific:
    """Quality filters (consent, completion, id, attention, duplicates, bot flag) and salted-hash ids."""
    input:
        export=pact_prolific_export,
    output:
        responses="results/pact/human/responses.tsv",
        filters=report(
            "results/pact/human/filters.tsv",
            caption="../../report/pact/filters.rst",
            category="PACT",
        ),
    log:
        "logs/pact/ingest_prolific.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/ingest_prolific.py"


rule pact_human_analysis:
    """Norm-personal gap per participant country and agreement by relation and demographic group."""
    input:
        responses="results/pact/human/responses.tsv",
    output:
        gaps="results/pact/human/norm_personal_gap.tsv",
        agreement="results/pact/human/agreement.tsv",
    log:
        "logs/pact/human_analysis.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/human_analysis.py"


rule pact_survey:
    """The human survey items asked to one model: no persona / persona, prompt formats, option-position audit."""
    input:
        responses="results/pact/human/responses.tsv",
        validated="results/pact/construct/normad_validated.tsv",
        weights=model_weights,
    output:
        table="results/pact/alignment/{model}/survey.tsv",
    log:
        "logs/pact/survey/{model}.log",
    benchmark:
        "benchmarks/pact/survey/{model}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    script:
        "../../scripts/pact/survey.py"


rule pact_alignment:
    """Majority alignment, item-level MAE, aggregate-rate gap, signed culture gap, uncertainty correlation."""
    input:
        responses="results/pact/human/responses.tsv",
        surveys=pact_surveys,
    output:
        metrics=report(
            "results/pact/alignment/metrics.tsv",
            caption="../../report/pact/alignment_metrics.rst",
            category="PACT",
        ),
        summary="results/pact/alignment/summary.tsv",
        audit=report(
            "results/pact/alignment/position_audit.tsv",
            caption="../../report/pact/position_audit.rst",
            category="PACT",
        ),
        model_gap="results/pact/alignment/model_norm_personal_gap.tsv",
        persona="results/pact/alignment/persona_effects.tsv",
        persona_country="results/pact/alignment/persona_country_effects.tsv",
    log:
        "logs/pact/alignment.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/alignment.py"


rule pact_regressions:
    """Item fixed-effects logistic regressions in R (glm binomial, drop1 Chisq, BH q) for humans and models."""
    input:
        responses="results/pact/human/responses.tsv",
        surveys=pact_surveys,
    output:
        human=report(
            "results/pact/regression/human_drop1.tsv",
            caption="../../report/pact/human_drop1.rst",
            category="PACT",
        ),
        models=report(
            "results/pact/regression/model_drop1.tsv",
            caption="../../report/pact/model_drop1.rst",
            category="PACT",
        ),
    log:
        "logs/pact/regressions.log",
    conda:
        "../../envs/r.yaml"
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../../scripts/pact/regressions.py"


rule pact_annotation_agreement:
    """Observed agreement, PABAK / Brennan-Prediger, Gwet's AC1, positive agreement, Cohen's kappa (table 2)."""
    input:
        table=PACT["annotations"],
    output:
        table=report(
            "results/pact/annotation/agreement.tsv",
            caption="../../report/pact/annotation_agreement.rst",
            category="PACT",
        ),
    log:
        "logs/pact/annotation_agreement.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/pact/annotation_agreement.py"


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
        fig3=report(
            PACT_FIGURES["3"], caption="../../report/pact/figure3.rst", category="PACT"
        ),
        fig4=report(
            PACT_FIGURES["4"], caption="../../report/pact/figure4.rst", category="PACT"
        ),
        fig5=report(
            PACT_FIGURES["5"], caption="../../report/pact/figure5.rst", category="PACT"
        ),
        fig6=report(
            PACT_FIGURES["6"], caption="../../report/pact/figure6.rst", category="PACT"
        ),
        fig7=report(
            PACT_FIGURES["7"], caption="../../report/pact/figure7.rst", category="PACT"
        ),
    log:
        "logs/pact/figures.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/figures.py"


rule pact_appendix_figures:
    """Appendix figures: 15 and 16 (persona vs no persona, F.4) and the B.2 region heatmap."""
    input:
        persona="results/pact/alignment/persona_effects.tsv",
        persona_country="results/pact/alignment/persona_country_effects.tsv",
        region_pairs="results/pact/analysis/region_pair_rates.tsv",
    output:
        fig15=report(
            PACT_APPENDIX_FIGURES["15"],
            caption="../../report/pact/figure15.rst",
            category="PACT",
        ),
        fig16=report(
            PACT_APPENDIX_FIGURES["16"],
            caption="../../report/pact/figure16.rst",
            category="PACT",
        ),
        region_heatmap=report(
            PACT_APPENDIX_FIGURES["region_heatmap"],
            caption="../../report/pact/region_heatmap.rst",
            category="PACT",
        ),
    log:
        "logs/pact/appendix_figures.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/pact/appendix_figures.py"


rule pact_construction:
    """Section 3 / appendix A: source counts, filter, validation and expansion counts."""
    input:
        "results/pact/ingest/normad_summary.tsv",
        "results/pact/construct/cultureatlas_filter_counts.tsv",
        "results/pact/construct/construction_counts.tsv",
        "results/pact/annotation/agreement.tsv",
    localrule: True


rule pact_figure3:
    input:
        PACT_FIGURES["3"],
        "results/pact/analysis/rates_by_factor.tsv",
        "results/pact/analysis/chi_square.tsv",
    localrule: True


rule pact_figure4:
    input:
        PACT_FIGURES["4"],
    localrule: True


rule pact_figure5:
    input:
        PACT_FIGURES["5"],
    localrule: True


rule pact_figure6:
    input:
        PACT_FIGURES["6"],
        "results/pact/human/filters.tsv",
    localrule: True


rule pact_figure7:
    input:
        PACT_FIGURES["7"],
        "results/pact/alignment/metrics.tsv",
        "results/pact/alignment/position_audit.tsv",
        "results/pact/alignment/model_norm_personal_gap.tsv",
    localrule: True


rule pact_regression_tables:
    input:
        "results/pact/regression/human_drop1.tsv",
        "results/pact/regression/model_drop1.tsv",
    localrule: True


rule pact_figure15:
    input:
        PACT_APPENDIX_FIGURES["15"],
        "results/pact/alignment/persona_effects.tsv",
    localrule: True


rule pact_figure16:
    input:
        PACT_APPENDIX_FIGURES["16"],
        "results/pact/alignment/persona_country_effects.tsv",
    localrule: True


rule pact_region_heatmap:
    input:
        PACT_APPENDIX_FIGURES["region_heatmap"],
        "results/pact/analysis/region_pair_rates.tsv",
    localrule: True


rule pact_preference_bins:
    input:
        "results/pact/analysis/preference_bins.tsv",
        "results/pact/analysis/preference_strength_by_country.tsv",
    localrule: True
