# Real-data claims: the claims that read the model-free tables each study's real-data rules
# (rules/<study>/real_data.smk) make from the real inputs named by config `real_data.*` and
# `personas.release.path` (config/real-data.yaml points them at ../shared/data).  Target:
# results/real_data/claims.csv (rule real_data_claims).


include: "common.smk"


rule real_data_claims:
    """The real-data claims and the papers' consistency checks only (no model rule runs)."""
    input:
        claims=config["claims"],
        results=real_data_claim_files,
        derived=real_data_derived_checks,
        statements=real_data_statement_checks,
        text_vs_code="results/real_data/text_vs_code.tsv",
        inventory=config["claims_inventory"],
    output:
        scorecard="results/real_data/claims.csv",
        scorecard_page=paper_report(
            "results/real_data/claims.html",
            caption="../../report/claims.rst",
            category="Claims scorecard",
            section="Claims on real inputs",
            no=3,
            paper="All three papers",
            shows="Paper value vs value computed from the real data in ../shared/data",
        ),
        consistency="results/real_data/claims_consistency.csv",
        facts="results/real_data/claims_facts.csv",
        errata="results/real_data/claims_errata.csv",
        errata_page=paper_report(
            "results/real_data/claims_errata.html",
            caption="../../report/claims_errata.rst",
            category="Claims scorecard",
            section="Claims on real inputs",
            no=6,
            paper="All three papers",
            shows="Every finding about the papers once: its checks, both readings, what the workflow does",
        ),
        checks="results/real_data/claims_checks.csv",
        summary="results/real_data/claims_summary.csv",
        summary_page=paper_report(
            "results/real_data/claims_summary.html",
            caption="../../report/claims_summary.rst",
            category="Claims scorecard",
            section="Claims on real inputs",
            no=2,
            paper="All three papers",
            shows="Distinct facts per status and consistency checks per kind",
        ),
    log:
        "logs/real_data/claims.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        studies=conf("studies"),
        scale=conf("scale"),
        needs_set=claim_needs_set,
        only_real_data=True,
    script:
        "../../scripts/report/claims.py"


rule claims_inventory:
    """Every number the papers' texts state, with the claims that check it or the reason it has none."""
    input:
        texts=real_data_input("real_data.paper_texts"),
        inventory=config["claims_inventory"],
        claims=config["claims"],
    output:
        numbers="results/real_data/claims_inventory.tsv",
        derived="results/real_data/claims_derived.tsv",
        summary="results/real_data/claims_inventory_summary.tsv",
        summary_page=paper_report(
            "results/real_data/claims_inventory_summary.html",
            caption="../../report/claims_inventory.rst",
            category="Claims scorecard",
            section="Claims on real inputs",
            no=4,
            paper="All three papers",
            shows="Every number the papers state: checked by a claim, or the reason it has none",
        ),
    log:
        "logs/real_data/claims_inventory.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/real_data/claims_inventory.py"


rule claims_statements:
    """The papers' statements in words (orderings, extremes, group labels, counts in words, caption vs
    text, external datasets) checked against the tables and data they are about."""
    input:
        texts=real_data_input("real_data.paper_texts"),
        lexicon=config["claims_statements"],
        tables=real_data_statement_tables,
    output:
        table="results/real_data/claims_statements.tsv",
        page=paper_report(
            "results/real_data/claims_statements.html",
            caption="../../report/claims_statements.rst",
            category="Claims scorecard",
            section="Claims on real inputs",
            no=5,
            paper="All three papers",
            shows="Statements in words checked against their tables and data, by rule",
        ),
    log:
        "logs/real_data/claims_statements.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/real_data/claims_statements.py"


rule real_data_text_vs_code:
    """The disagreements of paper text and authors' code, with the values the real-data run makes."""
    input:
        entries=text_vs_code_entries,
        results=real_data_text_vs_code_results,
    output:
        table="results/real_data/text_vs_code.tsv",
    log:
        "logs/real_data/text_vs_code.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        studies=conf("studies"),
    script:
        "../../scripts/report/text_vs_code.py"
