# Claims scorecard and report.


report: "../report/workflow.rst"


rule claims:
    """Paper value vs reproduced value for every number in config/claims.yaml."""
    input:
        claims=config["claims"],
        results=claims_inputs,
        text_vs_code="results/text_vs_code.tsv",
    output:
        scorecard="results/claims.csv",
        scorecard_page=paper_report(
            "results/claims.html",
            caption="../report/claims.rst",
            category="Claims scorecard",
            section="Claims",
            no=1,
            paper="All three papers",
            shows="Paper value vs reproduced value",
        ),
        consistency="results/claims_consistency.csv",
        facts="results/claims_facts.csv",
        errata="results/claims_errata.csv",
        errata_page=paper_report(
            "results/claims_errata.html",
            caption="../report/claims_errata.rst",
            category="Claims scorecard",
            section="Claims",
            no=6,
            paper="All three papers",
            shows="Every finding about the papers once: its checks, both readings, what the workflow does",
        ),
        checks="results/claims_checks.csv",
        summary="results/claims_summary.csv",
        summary_page=paper_report(
            "results/claims_summary.html",
            caption="../report/claims_summary.rst",
            category="Claims scorecard",
            section="Claims",
            no=0,
            paper="All three papers",
            shows="Distinct facts per status and consistency checks per kind",
        ),
        consistency_page=paper_report(
            "results/claims_consistency.html",
            caption="../report/claims_consistency.rst",
            category="Claims scorecard",
            section="Claims",
            no=2,
            paper="All three papers",
            shows="Consistency checks of the papers' own numbers",
        ),
    log:
        "logs/report/claims.log",
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        studies=conf("studies"),
        scale=conf("scale"),
        needs_set=claim_needs_set,
    script:
        "../scripts/report/claims.py"


rule model_outputs:
    """Model outputs behind each table (sidecars): length-stopped, empty, cut, reasoning tokens."""
    input:
        study_results,
    output:
        table="results/model_outputs.tsv",
        page=paper_report(
            "results/model_outputs.html",
            caption="../report/model_outputs.rst",
            category="Claims scorecard",
            section="Model outputs",
            no=3,
            paper="All three papers",
            shows="Length-stopped, empty and cut model outputs per table",
        ),
    log:
        "logs/report/model_outputs.log",
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../scripts/report/model_outputs.py"


rule text_vs_code:
    """Where a paper's text and its authors' released code disagree: both readings, the default, values."""
    input:
        entries=text_vs_code_entries,
        results=text_vs_code_results,
    output:
        table="results/text_vs_code.tsv",
        page=paper_report(
            "results/text_vs_code.html",
            caption="../report/text_vs_code.rst",
            category="Claims scorecard",
            section="Paper text and the authors' code",
            no=7,
            paper="All three papers",
            shows="Where the papers' text and the authors' released code disagree, and what the workflow computes",
        ),
    log:
        "logs/report/text_vs_code.log",
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        studies=conf("studies"),
    script:
        "../scripts/report/text_vs_code.py"
