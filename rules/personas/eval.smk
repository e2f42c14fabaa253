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
            instrument=P_INSTRUMENTS,
            priming=P_PRIMING,
        ),
        samples=expand(
            "results/personas/mcs/{{model}}/{instrument}/{{country}}_{priming}.samples.tsv",
            instrument=P_INSTRUMENTS,
            priming=P_PRIMING,
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
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    params:
        jobs=[(i, p) for i in P_INSTRUMENTS for p in P_PRIMING],
        cfg=PCFG,
        seed=config["seed"],
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
            instrument=P_OEG_INSTRUMENTS,
            priming=P_PRIMING,
        ),
        samples=expand(
            "results/personas/oeg/{{model}}/{instrument}/{{country}}_{priming}.samples.tsv",
            instrument=P_OEG_INSTRUMENTS,
            priming=P_PRIMING,
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
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    params:
        jobs=[(i, p) for i in P_OEG_INSTRUMENTS for p in P_PRIMING],
        cfg=PCFG,
        seed=config["seed"],
    script:
        "../../scripts/personas/oeg.py"


rule personas_metrics:
    """W and KS per country x trait x instrument x model x priming, and the paper's tables."""
    input:
        mcs=personas_mcs_samples(),
        oeg=personas_oeg_outputs(),
        human=f"results/personas/human/{PCFG['human']['ground_truth_form']}_scores.tsv",
    output:
        [
            report(
                f"results/personas/tables/{t}.tsv",
                caption=f"../../report/personas/{t}.rst",
                category="CulturalPersonas",
            )
            for t in P_TABLES
        ],
    log:
        "logs/personas/metrics.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        cfg=PCFG,
        tables=P_TABLES,
        seed=config["seed"],
    script:
        "../../scripts/personas/metrics.py"


rule personas_plots:
    """Figures 3, 5, 6, 10, 11 and 12."""
    input:
        distances="results/personas/tables/distances.tsv",
        priming="results/personas/tables/priming_ablation.tsv",
    output:
        [
            report(
                f"results/personas/figures/{f}.png",
                caption=f"../../report/personas/{f}.rst",
                category="CulturalPersonas",
            )
            for f in P_FIGURES
        ],
    log:
        "logs/personas/plots.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        figures=P_FIGURES,
    script:
        "../../scripts/personas/plots.py"


rule personas_trait_native:
    """TRAIT's own scoring of the TRAIT-format instruments' MCS items (Table 5 baseline)."""
    input:
        personas_trait_item_files,
    output:
        report(
            "results/personas/tables/trait_native_scores.tsv",
            caption="../../report/personas/trait_native_scores.rst",
            category="CulturalPersonas",
        ),
    log:
        "logs/personas/trait_native.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        files=personas_trait_items(),
    script:
        "../../scripts/personas/trait_native.py"
