# CulturalPersonas' model-free real-data table (config/real-data.yaml): counts of the published
# release, read by the real-data claims (rules/real_data/).  Logic: src/cultalign/personas/real_data.py.


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
