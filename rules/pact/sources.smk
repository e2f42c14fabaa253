# PACT sources: NormAd-ETI and CultureAtlas, validated and counted.


rule pact_ingest_normad:
    """Validate NormAd-ETI; rows, countries, gold-label counts (appendix A.1)."""
    input:
        data=pact_normad_file,
    output:
        table="results/pact/ingest/normad.tsv",
        summary="results/pact/ingest/normad_summary.tsv",
        summary_page=paper_report(
            "results/pact/ingest/normad_summary.html",
            caption="../../report/pact/normad_summary.rst",
            category="PACT",
            section=REPORT_APPENDIX,
            no=1,
            paper="Appendix A.1",
            shows="NormAd-ETI ingestion counts",
        ),
        per_country="results/pact/ingest/normad_per_country.tsv",
    log:
        "logs/pact/ingest_normad.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    script:
        "../../scripts/pact/ingest_normad.py"


rule pact_ingest_cultureatlas:
    """Validate CultureAtlas rows (assertion with positive and negative samples)."""
    input:
        data=pact_cultureatlas_file,
    output:
        table="results/pact/ingest/cultureatlas.tsv",
        summary="results/pact/ingest/cultureatlas_summary.tsv",
    log:
        "logs/pact/ingest_cultureatlas.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    script:
        "../../scripts/pact/ingest_cultureatlas.py"
