# PACT construction (section 3, appendix A): CultureAtlas filter, preference
# generation, rewrite and LLM-judge validation, expansion to instances, and the
# agreement of the human validation annotations.


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
        runtime=model_runtime,
        gpu=gpu_of_model(pact_construction_model()),
    params:
        llm=llm_of(pact_construction_model()),
        sampling=pact_sampling("pact.construct.filter"),
        max_rows=conf("pact.construct.filter_max_rows"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/filter_cultureatlas.py"


rule pact_construct:
    """Preference generation and scenario rewrite of one source by the construction model."""
    input:
        table=pact_construct_input,
        weights=pact_construction_weights,
    output:
        table="results/pact/construct/{source}_rewritten.tsv",
    log:
        "logs/pact/construct/{source}.log",
    benchmark:
        "benchmarks/pact/construct/{source}.tsv"
    wildcard_constraints:
        source=regex_of(PACT_SOURCES),
    conda:
        env_of_model(pact_construction_model())
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(pact_construction_model()),
        runtime=model_runtime,
        gpu=gpu_of_model(pact_construction_model()),
    params:
        llm=llm_of(pact_construction_model()),
        max_scenarios_per_source=conf("pact.construct.max_scenarios_per_source"),
        preference=pact_sampling("pact.construct.preference"),
        rewrite=pact_sampling("pact.construct.rewrite"),
        max_field_chars=conf("pact.construct.max_field_chars"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/construct.py"


rule pact_judge:
    """LLM-judge validation of one source's items by the judge model (appendix A.5)."""
    input:
        table="results/pact/construct/{source}_rewritten.tsv",
        weights=pact_judge_weights,
    output:
        table="results/pact/construct/{source}_validated.tsv",
        counts="results/pact/construct/{source}_validation_counts.tsv",
    log:
        "logs/pact/judge/{source}.log",
    benchmark:
        "benchmarks/pact/judge/{source}.tsv"
    wildcard_constraints:
        source=regex_of(PACT_SOURCES),
    conda:
        env_of_model(pact_judge_model())
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(pact_judge_model()),
        runtime=model_runtime,
        gpu=gpu_of_model(pact_judge_model()),
    params:
        llm=llm_of(pact_judge_model()),
        judge=pact_sampling("pact.construct.judge"),
        judge_action=conf("pact.construct.judge_action"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/judge.py"


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
        counts="results/pact/construct/construction_counts.tsv",
        counts_page=paper_report(
            "results/pact/construct/construction_counts.html",
            caption="../../report/pact/construction_counts.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=3,
            paper="Appendix A.5",
            shows="Construction and expansion counts",
        ),
    log:
        "logs/pact/expand.log",
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(8000),
        runtime=attempt_scaled(30),
    params:
        combinations_per_scenario=conf("pact.expansion.combinations_per_scenario"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/expand.py"


rule pact_annotation_agreement:
    """Observed agreement, PABAK / Brennan-Prediger, Gwet's AC1, positive agreement, Cohen's kappa (table 2)."""
    input:
        table=PACT["annotations"],
    output:
        table="results/pact/annotation/agreement.tsv",
        table_page=paper_report(
            "results/pact/annotation/agreement.html",
            caption="../../report/pact/annotation_agreement.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=2,
            paper="Table 2 (appendix A.4)",
            shows="Annotation agreement on generated instances",
        ),
    log:
        "logs/pact/annotation_agreement.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/pact/annotation_agreement.py"
