# Danish norms study ("Naturalistic measure of social norms alignment", Sara og
# Monopolet): rule files in the order every study uses.


include: "common.smk"
include: "audio.smk"
include: "text.smk"
include: "report.smk"


STUDY_TARGETS["monopolet"] = [
    "results/monopolet/figures/figure5_agreement.png",
    "results/monopolet/figures/figure6_word_counts.png",
    "results/monopolet/figures/figure7_response_stats.png",
    "results/monopolet/figures/figure8_topic_scores.png",
    "results/monopolet/tables/dataset_stats.tsv",
    "results/monopolet/tables/agreement.tsv",
    "results/monopolet/tables/annotation_agreement.tsv",
    "results/monopolet/tables/audio_quality.tsv",
]
