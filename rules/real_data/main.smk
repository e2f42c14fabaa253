# Real-data claims: model-free tables from the real inputs named by config `real_data.*` and
# `personas.release.path` (config/real-data.yaml points them at ../shared/data), and the claims
# that read them.  Target: results/real_data/claims.csv (rule real_data_claims).  Logic:
# src/cultalign/real_data.py.


include: "common.smk"


rule real_data_normad:
    """NormAd-ETI size and gold labels from its per-country label table, and the PACT expansion of its scenarios."""
    input:
        table=real_data_input("real_data.normad_labels"),
    output:
        "results/pact/real_data/normad_labels.tsv",
    log:
        "logs/real_data/normad.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/real_data/normad.py"


rule real_data_pact_site:
    """The PACT authors' released figure data as a long table, with the derived numbers the paper's prose states."""
    input:
        data=real_data_input("real_data.pact_site_data"),
    output:
        "results/pact/real_data/site_data.tsv",
    log:
        "logs/real_data/pact_site.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/real_data/pact_site.py"


rule real_data_personas_release:
    """Counts of the CulturalPersonas release: questions, scenarios, norms, baseline items per trait (Table 5)."""
    input:
        release=real_data_personas_release,
    output:
        "results/personas/real_data/release_counts.tsv",
    log:
        "logs/real_data/personas_release.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        countries=conf("personas.countries"),
    script:
        "../../scripts/real_data/personas_release.py"


rule real_data_ipip_items:
    """Items per Big Five domain of independent copies of the IPIP-NEO-120 and -300 item lists (Table 5)."""
    input:
        folder=real_data_input("real_data.ipip_items"),
    output:
        "results/personas/real_data/ipip_item_counts.tsv",
    log:
        "logs/real_data/ipip_items.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/real_data/ipip_items.py"


rule real_data_personas_repro:
    """The number of Japan ground-truth rows the KS statistics of a public CulturalPersonas reproduction imply."""
    input:
        folder=real_data_input("real_data.culturalpersonas_repro"),
    output:
        "results/personas/real_data/repro_japan.tsv",
    log:
        "logs/real_data/personas_repro.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/real_data/personas_repro.py"


rule real_data_claims:
    """The real-data claims and the papers' consistency checks only (no model rule runs)."""
    input:
        claims=config["claims"],
        results=real_data_claim_files,
        derived=real_data_derived_checks,
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
            shows="The papers' own inconsistencies and what the workflow does about each",
        ),
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
