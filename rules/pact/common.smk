# PACT study: config shortcuts, param and input functions, target lists (no rules).

PACT = config["pact"]
PACT_MODELS = PACT["models"]
# main models first, then comparison-only models (Figure 4, appendices B.3/B.8)
PACT_BEHAVIOUR_MODELS = list(dict.fromkeys(PACT_MODELS + PACT["comparison_models"]))
PACT_SOURCES = ["normad", "cultureatlas"]
PACT_DEMO_PROLIFIC = "resources/demo/generated/pact/prolific_export_synthetic.csv"


def pact_construction_model():
    return PACT["construction_model"] or PACT_MODELS[0]


def pact_construction_weights(wildcards):
    return model_dir(pact_construction_model())


def pact_judge_model():
    """The full-dataset LLM judge (appendix A.5): `pact.judge_model`, else the construction model."""
    return PACT["judge_model"] or pact_construction_model()


def pact_judge_weights(wildcards):
    return model_dir(pact_judge_model())


def pact_sampling(section):
    """Param function: the decoding keys (temperature, top_p, max_new_tokens) of config
    `section` that it has, each through conf (cultalign.models.SamplingParams.from_config).
    """
    node = config
    for part in section.split("."):
        node = node[part]
    keys = sorted(k for k in ("temperature", "top_p", "max_new_tokens") if k in node)
    parts = {k: conf(f"{section}.{k}") for k in keys}

    def param(wildcards):
        return {k: value(wildcards) for k, value in parts.items()}

    param.__name__ = f"pact_sampling_{section.replace('.', '_')}"
    return param


def pact_model_kinds(wildcards):
    """Param function: the `kind` (instruct / base) of every model of the behaviour benchmark."""
    return {m: MODELS[m]["kind"] for m in sorted(PACT_BEHAVIOUR_MODELS)}


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
    """Every behaviour shard table, per model in shard order (the order pact_gather_behaviour keeps)."""
    return expand(
        "results/pact/behaviour/{model}/shard_{shard}.tsv",
        model=PACT_BEHAVIOUR_MODELS,
        shard=shard_ids(PACT["behaviour"]["shards"]),
    )


def pact_prolific_export(wildcards):
    """The real Prolific export, else the SYNTHETIC demo export (rule pact_demo_prolific)."""
    return PACT["human"]["prolific_export"] or PACT_DEMO_PROLIFIC


def pact_surveys(wildcards):
    return expand("results/pact/alignment/{model}/survey.tsv", model=PACT_MODELS)


PACT_FIGURES = {
    n: f"results/pact/figures/figure{n}.png" for n in ("3", "4", "5", "6", "7")
}
PACT_APPENDIX_FIGURES = {
    "15": "results/pact/figures/figure15.png",
    "16": "results/pact/figures/figure16.png",
    "region_heatmap": "results/pact/figures/appendix_b2_region_heatmap.png",
    "12": "results/pact/figures/figure12.png",
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
    "results/pact/analysis/rates_per_model_tables.tsv",
    "results/pact/regression/human_drop1.tsv",
    "results/pact/regression/model_drop1.tsv",
    "results/pact/annotation/agreement.tsv",
    "results/pact/analysis/pair_rates.tsv",
    "results/pact/human/relation_rates.tsv",
    "results/pact/human/agreement_cells.tsv",
]
