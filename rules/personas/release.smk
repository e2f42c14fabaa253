# personas: the real-data run - MCS and OEG on the published CulturalPersonas release
# (all six countries) and its BFI / IPIP / Big5Chat baselines, with run cost (wall time,
# tokens, rates) and valid-option mass.  Target personas_release_eval (rules/personas/targets.smk).
# Not part of CI:  snakemake personas_release_eval --cores 2 --configfile config/personas-release.yaml


rule personas_release_items:
    """Released questions of a country and the baseline instruments as items (seeded subsample or full)."""
    input:
        release=personas_release_checked,
    output:
        "results/personas/release/items/{country}.tsv",
    log:
        "logs/personas/release/items/{country}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        seed=conf("seed"),
        release_code=personas_country_conf("release_code"),
        subsample=conf("personas.release_eval.subsample"),
        baselines=personas_pairs("personas.release_eval.baselines"),
        bfi_key=conf("personas.bfi_key"),
    script:
        "../../scripts/personas/release_items.py"


rule personas_release_mcs:
    """MCS on the release: full option log-probabilities, recorded shuffles, valid-option mass, tokens."""
    input:
        unpack(personas_release_eval_inputs),
    output:
        scores="results/personas/release/{model}/mcs/{country}.tsv",
        cells="results/personas/release/{model}/mcs/{country}.cells.tsv",
        job="results/personas/release/{model}/mcs/{country}.job.json",
    log:
        "logs/personas/release/mcs/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/release/mcs/{model}/{country}.tsv"
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
        country_name=personas_country_conf("name"),
        primings=conf("personas.release_eval.priming"),
        priming_n_norms=conf("personas.priming_n_norms"),
        release_code=personas_country_conf("release_code"),
        score=personas_mcs_score,
        normalise=conf("personas.mcs.normalise"),
        subsample=conf("personas.release_eval.subsample"),
    script:
        "../../scripts/personas/release_mcs.py"


rule personas_release_oeg:
    """OEG on the release's contextual instruments: answers, calibrated embedding mapping, tokens."""
    input:
        unpack(personas_release_eval_inputs),
    output:
        responses="results/personas/release/{model}/oeg/{country}.tsv",
        cells="results/personas/release/{model}/oeg/{country}.cells.tsv",
        job="results/personas/release/{model}/oeg/{country}.job.json",
    log:
        "logs/personas/release/oeg/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/release/oeg/{model}/{country}.tsv"
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
        country_name=personas_country_conf("name"),
        primings=conf("personas.release_eval.priming"),
        priming_n_norms=conf("personas.priming_n_norms"),
        release_code=personas_country_conf("release_code"),
        oeg=conf("personas.oeg"),
        calibration_items=conf("personas.release_eval.calibration_items"),
        mapping=conf("personas.oeg_mapping"),
        embedding_model=conf("personas.corpus.embedding_model"),
        subsample=conf("personas.release_eval.subsample"),
    script:
        "../../scripts/personas/release_oeg.py"


rule personas_release_summary:
    """Trait scores per country x instrument, and the run summary (time, tokens, rates, mass, invalid)."""
    input:
        unpack(personas_release_summary_inputs),
    output:
        traits="results/personas/release/trait_scores.tsv",
        traits_page=paper_report(
            "results/personas/release/trait_scores.html",
            caption="../../report/personas/release_run.rst",
            category="CulturalPersonas (release run)",
            section=REPORT_MAIN,
            no=1,
            paper="Section 6",
            shows="Trait scores on the published release",
        ),
        cells="results/personas/release/run_summary.tsv",
        cells_page=paper_report(
            "results/personas/release/run_summary.html",
            caption="../../report/personas/release_run.rst",
            category="CulturalPersonas (release run)",
            section=REPORT_MAIN,
            no=2,
            paper="Section 6",
            shows="Release run per cell",
        ),
        totals="results/personas/release/run_totals.tsv",
        totals_page=paper_report(
            "results/personas/release/run_totals.html",
            caption="../../report/personas/release_run.rst",
            category="CulturalPersonas (release run)",
            section=REPORT_MAIN,
            no=3,
            paper="Section 6",
            shows="Release run totals",
        ),
    log:
        "logs/personas/release/summary.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        subsample=conf("personas.release_eval.subsample"),
    script:
        "../../scripts/personas/release_summary.py"
