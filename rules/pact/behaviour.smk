# PACT model behaviour (section 4, appendix B): decisions of every model on the
# instance x condition prompts, in shards, gathered and analysed.


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
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        configurations=conf("pact.behaviour.configurations"),
        demo_ablations=conf("pact.behaviour.demo_ablations"),
        system_prompts=conf("pact.behaviour.system_prompts"),
        sampling=pact_sampling("pact.behaviour"),
        logprob=conf("pact.behaviour.logprob"),
        shards=conf("pact.behaviour.shards"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/behaviour.py"


rule pact_gather_behaviour:
    """All shards and models in one decision table (per model, the shards in shard order)."""
    input:
        shards=pact_behaviour_shards,
    output:
        table="results/pact/behaviour/decisions.tsv",
    log:
        "logs/pact/gather_behaviour.log",
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(16000),
        runtime=attempt_scaled(60),
    params:
        model_kinds=pact_model_kinds,
    script:
        "../../scripts/pact/gather_behaviour.py"


rule pact_behaviour_analysis:
    """Section 4 / appendix B: rates with bootstrap CIs, chi-square + Cramer's V, demographic and region effects."""
    input:
        table="results/pact/behaviour/decisions.tsv",
    output:
        rates="results/pact/analysis/rates_by_factor.tsv",
        rates_page=paper_report(
            "results/pact/analysis/rates_by_factor.html",
            caption="../../report/pact/rates_by_factor.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=4,
            paper="Tables 5-14 (appendix B)",
            shows="Allow-preference rates by factor, pooled",
        ),
        by_model_config="results/pact/analysis/rates_by_model_configuration.tsv",
        by_model_kind="results/pact/analysis/rates_by_model_kind.tsv",
        model_pairs="results/pact/analysis/model_pairs.tsv",
        by_model="results/pact/analysis/rates_by_model.tsv",
        chi_square="results/pact/analysis/chi_square.tsv",
        chi_square_page=paper_report(
            "results/pact/analysis/chi_square.html",
            caption="../../report/pact/chi_square.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=8,
            paper="Table 13 (appendix B.9)",
            shows="Chi-square tests and Cramer's V per factor",
        ),
        demographics="results/pact/analysis/demographic_effects.tsv",
        figure5_demographics="results/pact/analysis/figure5_demographic_effects.tsv",
        figure12_demographics="results/pact/analysis/figure12_demographic_effects.tsv",
        figure12_directions="results/pact/analysis/figure12_direction_shares.tsv",
        pair_rates="results/pact/analysis/pair_rates.tsv",
        pair_rates_page=paper_report(
            "results/pact/analysis/pair_rates.html",
            caption="../../report/pact/pair_rates.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=16,
            paper="Table 6 (appendix B.4)",
            shows="Allow-preference rates by actor-receiver age and gender pair, per model",
        ),
        regions="results/pact/analysis/region_effects.tsv",
        region_pairs="results/pact/analysis/region_pair_rates.tsv",
        preference_bins="results/pact/analysis/preference_bins.tsv",
        preference_bins_page=paper_report(
            "results/pact/analysis/preference_bins.html",
            caption="../../report/pact/preference_bins.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=7,
            paper="Tables 9-10 (appendix B.7)",
            shows="Allow-preference rates by preference bin",
        ),
        strength_by_country="results/pact/analysis/preference_strength_by_country.tsv",
        per_model="results/pact/analysis/rates_per_model_tables.tsv",
        per_model_page=paper_report(
            "results/pact/analysis/rates_per_model_tables.html",
            caption="../../report/pact/rates_per_model_tables.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=5,
            paper="Tables 5, 7, 8, 14 (appendix B)",
            shows="Allow-preference rates per model",
        ),
    log:
        "logs/pact/behaviour_analysis.log",
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(16000),
        runtime=attempt_scaled(60),
    params:
        models=conf("pact.models"),
        model_pairs=conf("pact.model_pairs"),
        bootstrap=conf("pact.behaviour.bootstrap"),
        significance=conf("pact.behaviour.significance"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/behaviour_analysis.py"
