# Your own model beside the papers' models (config/my-model.yaml, cultalign.my_model and
# cultalign.model_card): the target model_card runs the jobs of my_model.name only and writes its
# card; my_model_gpu_hours estimates their cost first.

from cultalign.model_card import figure_names
from cultalign.my_model import ROLE_LISTS

# {study: why the card leaves it out}; the studies it runs (of those the card has measures for,
# cultalign.my_model.ROLE_LISTS: a study added to the registry joins the card there)
MY_MODEL_SKIPS = card_skips(config, MY_MODEL, base=workflow.basedir)
MY_MODEL_STUDIES = [s for s in STUDIES if s in ROLE_LISTS and s not in MY_MODEL_SKIPS]
MY_MODEL_DIR = f"results/model_card/{MY_MODEL}"
MY_MODEL_FIGURES = figure_names(MY_MODEL_STUDIES)
# the card's page, which the default target builds (the default model's card in the embedded default)
MY_MODEL_CARD = f"{MY_MODEL_DIR}/model_card.html"
# the PACT authors' figure data as a table (rule real_data_pact_site)
MY_MODEL_SITE_DATA = "results/pact/real_data/site_data.tsv"
# the models the card's figures name: the model and the models of the studies it runs (the
# papers' models, whose published values stand beside it)
MY_MODEL_SHOWN = [MY_MODEL] + [
    m
    for study in MY_MODEL_STUDIES
    for m in config[ROLE_LISTS[study][0]][ROLE_LISTS[study][1]]
    if m in MODELS
]


def model_card_inputs(wildcards):
    """Input function of model_card: the model's own result tables of each study it runs, and the
    model-free tables they are compared with (human data)."""
    out = {"claims": config["claims"]}
    if "pact" in MY_MODEL_STUDIES and (config.get("real_data") or {}).get(
        "pact_site_data"
    ):
        # the published values the paper shows only in its figures (claims' value_from)
        out["pact_site_data"] = MY_MODEL_SITE_DATA
    if "pact" in MY_MODEL_STUDIES:
        out["pact_shards"] = expand(
            "results/pact/behaviour/{model}/shard_{shard}.tsv",
            model=MY_MODEL,
            shard=shard_ids(PACT["behaviour"]["shards"]),
        )
        out["pact_survey"] = f"results/pact/alignment/{MY_MODEL}/survey.tsv"
        out["pact_responses"] = "results/pact/human/responses.tsv"
    if "personas" in MY_MODEL_STUDIES:
        out["personas_mcs"] = expand(
            "results/personas/mcs/{model}/{instrument}/{country}_{priming}.samples.tsv",
            model=MY_MODEL,
            instrument=PERSONAS_INSTRUMENTS,
            country=PERSONAS_COUNTRIES,
            priming=PERSONAS_PRIMING,
        )
        out["personas_oeg"] = expand(
            "results/personas/oeg/{model}/{instrument}/{country}_{priming}.responses.tsv",
            model=MY_MODEL,
            instrument=PERSONAS_OEG_INSTRUMENTS,
            country=PERSONAS_COUNTRIES,
            priming=PERSONAS_PRIMING,
        )
        out["personas_human"] = PERSONAS_HUMAN
    if "monopolet" in MY_MODEL_STUDIES:
        out["monopolet_matching"] = (
            f"results/monopolet/matching/{MY_MODEL}_vs_panel.tsv"
        )
        out["monopolet_solutions"] = f"results/monopolet/solutions/{MY_MODEL}.tsv"
        out["monopolet_panel"] = "results/monopolet/solutions/panel.tsv"
    return out


def model_card_spec():
    """Param of model_card: the model's `models` entry (its display name only labels figures)."""
    return canonical(MODELS[MY_MODEL])
