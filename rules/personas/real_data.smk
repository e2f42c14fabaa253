# CulturalPersonas' model-free real-data tables (config/real-data.yaml): counts of the published
# release, of independent IPIP-NEO item lists and of a public reproduction's Japan rows, read by
# the real-data claims (rules/real_data/).  Logic: src/cultalign/personas/real_data.py.


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
        "../../scripts/personas/real_data_release.py"


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
        "../../scripts/personas/real_data_ipip_items.py"


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
        "../../scripts/personas/real_data_repro.py"
