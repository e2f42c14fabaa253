# PACT's model-free real-data tables (config/real-data.yaml): NormAd-ETI's gold labels and the
# authors' released figure data, read by the real-data claims (rules/real_data/).  Logic:
# src/cultalign/pact/real_data.py.


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
        "../../scripts/pact/real_data_normad.py"


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
        "../../scripts/pact/real_data_site.py"
