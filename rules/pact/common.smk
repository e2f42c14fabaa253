# PACT study: config shortcuts, input functions and target lists (no rules).

PACT = config["pact"]
PACT_MODELS = PACT["models"]
# main models first, then comparison-only models (Figure 4, appendices B.3/B.8)
PACT_BEHAVIOUR_MODELS = list(dict.fromkeys(PACT_MODELS + PACT["comparison_models"]))
PACT_SOURCES = ["normad", "cultureatlas"]


def pact_construction_model():
    return PACT["construction_model"] or PACT_MODELS[0]


def pact_construction_weights(wildcards):
    return model_dir(pact_construction_model())


def pact_source_file(source):
    return PACT["sources"][source]["path"]


def pact_normad_file(wildcards):
    return pact_source_file("normad")


def pact_cultureatlas_file(wildcards):
    return pact_source_file("cultureatlas")


def pact_construct_input(wildcards):
    if wildcards.source == "normad":
        return "results/pact/ingest/normad.tsv"
    return "results/pact/construct/cultureatlas_filtered.tsv"


def pact_behaviour_shards(wildcards):
    return expand(
        "results/pact/behaviour/{model}/shard_{shard}.tsv",
        model=PACT_BEHAVIOUR_MODELS,
        shard=shard_ids(PACT["behaviour"]["shards"]),
    )


def pact_prolific_export(wildcards):
    return (
        PACT["human"]["prolific_export"]
        or "resources/demo/generated/pact/prolific_export_synthetic.csv"
    )


def pact_surveys(wildcards):
    return expand("results/pact/alignment/{model}/survey.tsv", model=PACT_MODELS)


PACT_FIGURES = {
    n: f"results/pact/figures/figure{n}.png" for n in ("3", "4", "5", "6", "7")
}
PACT_APPENDIX_FIGURES = {
    "15": "results/pact/figures/figure15.png",
    "16": "results/pact/figures/figure16.png",
    "region_heatmap": "results/pact/figures/appendix_b2_region_heatmap.png",
}
PACT_TABLES = [
    "results/pact/ingest/normad_summary.tsv",
    "results/pact/construct/construction_counts.tsv",
    "results/pact/construct/cultureatlas_filter_counts.tsv",
    "results/pact/analysis/rates_by_factor.tsv",
    "results/pact/analysis/chi_square.tsv",
    "results/pact/human/filters.tsv",
    "results/pact/alignment/position_audit.tsv",
    "results/pact/alignment/metrics.tsv",
    "results/pact/alignment/persona_effects.tsv",
    "results/pact/alignment/persona_country_effects.tsv",
    "results/pact/analysis/region_pair_rates.tsv",
    "results/pact/analysis/preference_bins.tsv",
    "results/pact/analysis/preference_strength_by_country.tsv",
    "results/pact/regression/human_drop1.tsv",
    "results/pact/regression/model_drop1.tsv",
    "results/pact/annotation/agreement.tsv",
]

STUDY_TARGETS["pact"] = (
    list(PACT_FIGURES.values()) + list(PACT_APPENDIX_FIGURES.values()) + PACT_TABLES
)
