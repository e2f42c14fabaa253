# PACT human-model alignment (section 5.3, appendices D and F): the survey items
# asked to the models, alignment metrics, and the R regressions.


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
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        prompt_formats=conf("pact.alignment.prompt_formats"),
        max_personas_per_item=conf("pact.alignment.max_personas_per_item"),
        position_audit_items=conf("pact.alignment.position_audit_items"),
        sampling=pact_sampling("pact.alignment"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/survey.py"


rule pact_alignment:
    """Majority alignment, item-level MAE, aggregate-rate gap, signed culture gap, uncertainty correlation."""
    input:
        responses="results/pact/human/responses.tsv",
        surveys=pact_surveys,
    output:
        metrics="results/pact/alignment/metrics.tsv",
        metrics_page=paper_report(
            "results/pact/alignment/metrics.html",
            caption="../../report/pact/alignment_metrics.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=12,
            paper="Tables 22-23 (appendix F)",
            shows="Human-model alignment metrics",
        ),
        summary="results/pact/alignment/summary.tsv",
        audit="results/pact/alignment/position_audit.tsv",
        audit_page=paper_report(
            "results/pact/alignment/position_audit.html",
            caption="../../report/pact/position_audit.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=15,
            paper="Table 24 (appendix F.6)",
            shows="Option-position audit",
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
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        prompt_formats=conf("pact.alignment.prompt_formats"),
        item_unit=conf("pact.alignment.item_unit"),
    script:
        "../../scripts/pact/alignment.py"


rule pact_regressions:
    """Logistic regressions in R (glmer binomial with a scenario random intercept, drop-one LR tests, BH q) for humans and models."""
    input:
        responses="results/pact/human/responses.tsv",
        surveys=pact_surveys,
    output:
        human="results/pact/regression/human_drop1.tsv",
        human_page=paper_report(
            "results/pact/regression/human_drop1.html",
            caption="../../report/pact/human_drop1.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=10,
            paper="Table 16 (appendix D)",
            shows="Drop-one deviance analysis, humans",
        ),
        models="results/pact/regression/model_drop1.tsv",
        models_page=paper_report(
            "results/pact/regression/model_drop1.html",
            caption="../../report/pact/model_drop1.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=11,
            paper="Table 17 (appendix D)",
            shows="Drop-one deviance analysis, models",
        ),
    log:
        "logs/pact/regressions.log",
    conda:
        "../../envs/r.yaml"
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        human_terms=conf("pact.regression.human_terms"),
        model_terms=conf("pact.regression.model_terms"),
        random_effects=conf("pact.regression.random_effects"),
        nested=conf("pact.regression.nested"),
        no_persona_level=conf("pact.regression.no_persona_level"),
    script:
        "../../scripts/pact/regressions.py"
