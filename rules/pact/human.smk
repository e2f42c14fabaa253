# PACT human study (section 5, appendices C-D): the Prolific export (SYNTHETIC
# in the demo) through the quality filters, then the norm-personal gap and agreement.


rule pact_ingest_prolific:
    """Quality filters (consent, completion, id, attention, duplicates, bot flag) and salted-hash ids."""
    input:
        export=pact_prolific_export,
    output:
        responses="results/pact/human/responses.tsv",
        filters="results/pact/human/filters.tsv",
        filters_page=paper_report(
            "results/pact/human/filters.html",
            caption="../../report/pact/filters.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=9,
            paper="Appendix C",
            shows="Human-study quality filters",
        ),
    log:
        "logs/pact/ingest_prolific.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        attention_answer=conf("pact.human.attention_answer"),
        id_salt=conf("pact.human.id_salt"),
        id_salt_env=conf("pact.human.id_salt_env"),
        prolific_export=conf("pact.human.prolific_export"),
        younger_below_age=conf("pact.human.younger_below_age"),
    script:
        "../../scripts/pact/ingest_prolific.py"


rule pact_human_analysis:
    """Norm-personal gap per participant country and agreement by relation and demographic group."""
    input:
        responses="results/pact/human/responses.tsv",
    output:
        gaps="results/pact/human/norm_personal_gap.tsv",
        agreement="results/pact/human/agreement.tsv",
        cells="results/pact/human/agreement_cells.tsv",
        cells_page=paper_report(
            "results/pact/human/agreement_cells.html",
            caption="../../report/pact/agreement_cells.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=19,
            paper="Section 5.2 (agreement)",
            shows="Human agreement per scenario and demographic group",
        ),
        relation="results/pact/human/relation_rates.tsv",
        relation_page=paper_report(
            "results/pact/human/relation_rates.html",
            caption="../../report/pact/relation_rates.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=18,
            paper="Table 28 (appendix G.2)",
            shows="Human culture-following and agreement by country relation",
        ),
    log:
        "logs/pact/human_analysis.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        min_group_size=conf("pact.human.min_group_size"),
        agreement_cell=conf("pact.human.agreement_cell"),
    script:
        "../../scripts/pact/human_analysis.py"
