# monopolet: named targets, one per paper table or figure, and the study's
# final targets (rule all).


rule monopolet_figure3:
    """Paper Figure 3: topic map of the dilemmas and the topic distribution."""
    input:
        "results/monopolet/figures/figure3.png",
        "results/monopolet/topics/topic_map.tsv",
        "results/monopolet/topics/topic_names.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_figure5:
    """Paper Figure 5: EAA, SAA and AVG per model."""
    input:
        "results/monopolet/figures/figure5.png",
        "results/monopolet/tables/agreement.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_figure6:
    """Paper Figure 6: words per answer."""
    input:
        "results/monopolet/figures/figure6.png",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_figure7:
    """Paper Figure 7: entities per word in the answers."""
    input:
        "results/monopolet/figures/figure7.png",
        "results/monopolet/tables/response_stats.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_figure8:
    """Paper Figure 8: weighted AVG per model and topic."""
    input:
        "results/monopolet/figures/figure8.png",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_figure9:
    """Paper appendix D Figure 9: EAA over the intersection ratio, stance agreement and output length."""
    input:
        "results/monopolet/figures/figure9.png",
        "results/monopolet/tables/eaa_grid.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_annotation_samples_export:
    """Paper appendix A: the samples annotators label (A.1 Table 2, A.2 Table 3, A.3 Table 4, A.4)."""
    input:
        "results/monopolet/annotation/mapping_sample.tsv",
        "results/monopolet/annotation/dilemmas_sample.tsv",
        "results/monopolet/annotation/solutions_sample.tsv",
        "results/monopolet/annotation/matching_sample.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_table1:
    """Paper Table 1: dataset statistics."""
    input:
        "results/monopolet/tables/dataset_stats.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


rule monopolet_validation:
    """Paper Appendix A (Tables 2-4, A.4): annotation agreement."""
    input:
        "results/monopolet/tables/annotation_agreement.tsv",
    localrule: True
    conda:
        "../../envs/stats.yaml"


STUDY_TARGETS["monopolet"] = [
    "results/monopolet/figures/figure3.png",
    "results/monopolet/figures/figure5.png",
    "results/monopolet/figures/figure6.png",
    "results/monopolet/figures/figure7.png",
    "results/monopolet/figures/figure8.png",
    "results/monopolet/figures/figure9.png",
    "results/monopolet/tables/dataset_stats.tsv",
    "results/monopolet/tables/agreement.tsv",
    "results/monopolet/tables/annotation_agreement.tsv",
    "results/monopolet/annotation/dilemmas_sample.tsv",
    "results/monopolet/tables/audio_quality.tsv",
]
