# personas: MCS and OEG evaluation, distances, tables and figures.


rule personas_mcs:
    """Multiple-choice selection: option log-probabilities (shuffled options) -> sampled trait scores,
    every instrument and priming condition of one country in one job (one model load).
    """
    input:
        unpack(personas_mcs_inputs),
    output:
        itemprobs=expand(
            "results/personas/mcs/{{model}}/{instrument}/{{country}}_{priming}.items.tsv",
            instrument=PERSONAS_INSTRUMENTS,
            priming=PERSONAS_PRIMING,
        ),
        samples=expand(
            "results/personas/mcs/{{model}}/{instrument}/{{country}}_{priming}.samples.tsv",
            instrument=PERSONAS_INSTRUMENTS,
            priming=PERSONAS_PRIMING,
        ),
    log:
        "logs/personas/mcs/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/mcs/{model}/{country}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        seed=conf("seed"),
        jobs=[[i, p] for i in PERSONAS_INSTRUMENTS for p in PERSONAS_PRIMING],
        country_name=personas_country_conf("name"),
        priming_norms=conf("personas.priming_norms"),
        priming_n_norms=conf("personas.priming_n_norms"),
        release_code=personas_country_conf("release_code"),
        score=personas_mcs_score,
        normalise=conf("personas.mcs.normalise"),
        max_samples=conf("personas.mcs.max_samples"),
    script:
        "../../scripts/personas/mcs.py"


rule personas_oeg:
    """Open-ended generation -> embedding similarity -> calibrated Likert distribution -> samples,
    every contextual instrument and priming condition of one country in one job."""
    input:
        unpack(personas_oeg_inputs),
    output:
        responses=expand(
            "results/personas/oeg/{{model}}/{instrument}/{{country}}_{priming}.responses.tsv",
            instrument=PERSONAS_OEG_INSTRUMENTS,
            priming=PERSONAS_PRIMING,
        ),
        samples=expand(
            "results/personas/oeg/{{model}}/{instrument}/{{country}}_{priming}.samples.tsv",
            instrument=PERSONAS_OEG_INSTRUMENTS,
            priming=PERSONAS_PRIMING,
        ),
    log:
        "logs/personas/oeg/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/oeg/{model}/{country}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        seed=conf("seed"),
        jobs=[[i, p] for i in PERSONAS_OEG_INSTRUMENTS for p in PERSONAS_PRIMING],
        country_name=personas_country_conf("name"),
        priming_norms=conf("personas.priming_norms"),
        priming_n_norms=conf("personas.priming_n_norms"),
        release_code=personas_country_conf("release_code"),
        oeg=conf("personas.oeg"),
        mapping=conf("personas.oeg_mapping"),
        embedding_model=conf("personas.corpus.embedding_model"),
        max_samples=conf("personas.mcs.max_samples"),
    script:
        "../../scripts/personas/oeg.py"


rule personas_metrics:
    """W and KS per country x trait x instrument x model x priming, and the paper's tables."""
    input:
        mcs=personas_mcs_samples(),
        oeg=personas_oeg_outputs(),
        human=PERSONAS_HUMAN,
    output:
        [f"results/personas/tables/{t}.tsv" for t in PERSONAS_TABLES],
        [
            personas_report(f"results/personas/tables/{t}.html", t)
            for t in PERSONAS_TABLES
        ],
    log:
        "logs/personas/metrics.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        tables=PERSONAS_TABLES,
        oeg_scores=conf("personas.annotations.oeg_scores"),
        validation=conf("personas.annotations.validation"),
        human_source=conf("personas.human.source"),
        mcs_excluded=conf("personas.mcs.exclude"),
    script:
        "../../scripts/personas/metrics.py"


rule personas_plots:
    """Figures 3, 5, 6, 10, 11 and 12."""
    input:
        distances="results/personas/tables/distances.tsv",
        priming="results/personas/tables/priming_ablation.tsv",
    output:
        [
            personas_report(f"results/personas/figures/{f}.png", f)
            for f in PERSONAS_FIGURES
        ],
    log:
        "logs/personas/plots.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        model_names=model_display_names(PERSONAS_MODELS),
        figures=PERSONAS_FIGURES,
    script:
        "../../scripts/personas/plots.py"


rule personas_trait_native:
    """TRAIT's own scoring of the TRAIT-format instruments' MCS items (Table 5 baseline)."""
    input:
        personas_trait_item_files,
    output:
        table="results/personas/tables/trait_native_scores.tsv",
        table_page=paper_report(
            "results/personas/tables/trait_native_scores.html",
            caption="../../report/personas/trait_native_scores.rst",
            category="CulturalPersonas",
            section=REPORT_APPENDIX,
            no=1,
            paper="Table 5 (TRAIT baseline)",
            shows="TRAIT's own scoring",
        ),
    log:
        "logs/personas/trait_native.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        files=personas_trait_items(),
    script:
        "../../scripts/personas/trait_native.py"


rule personas_human_tables:
    """Paper Table 1 (pairwise country distances, KS) from the human data alone."""
    input:
        human=PERSONAS_HUMAN,
    output:
        [f"results/personas/tables/{t}.tsv" for t in PERSONAS_HUMAN_TABLES],
        [
            personas_report(f"results/personas/tables/{t}.html", t)
            for t in PERSONAS_HUMAN_TABLES
        ],
    log:
        "logs/personas/human_tables.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        tables=PERSONAS_HUMAN_TABLES,
        countries=personas_value(list(PERSONAS_CFG["countries"])),
        human_source=conf("personas.human.source"),
    script:
        "../../scripts/personas/human_tables.py"


rule personas_oeg_tables:
    """Paper Table 3 (type-token ratio) from the OEG answers alone."""
    input:
        oeg=personas_oeg_outputs(),
    output:
        [f"results/personas/tables/{t}.tsv" for t in PERSONAS_OEG_TABLES],
        [
            personas_report(f"results/personas/tables/{t}.html", t)
            for t in PERSONAS_OEG_TABLES
        ],
    log:
        "logs/personas/oeg_tables.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        tables=PERSONAS_OEG_TABLES,
        ttr_sentences=conf("personas.ttr_sentences"),
    script:
        "../../scripts/personas/oeg_tables.py"
