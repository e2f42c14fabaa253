# personas: configuration shortcuts, param functions, input functions and target lists (no rules).

PERSONAS_CFG = config["personas"]
PERSONAS_COUNTRIES = PERSONAS_CFG["run_countries"]
PERSONAS_MODELS = PERSONAS_CFG["models"]
# the models evaluated with MCS: personas.models less personas.mcs.exclude (each with its reason)
PERSONAS_MCS_MODELS = [
    m for m in PERSONAS_MODELS if m not in PERSONAS_CFG["mcs"]["exclude"]
]
PERSONAS_PRIMING = PERSONAS_CFG["priming"]
PERSONAS_BASELINES = PERSONAS_CFG["run_instruments"]
PERSONAS_INSTRUMENTS = PERSONAS_BASELINES + ["cp"]
PERSONAS_OEG_INSTRUMENTS = [
    i for i in PERSONAS_BASELINES if PERSONAS_CFG["instruments"][i]["oeg"]
] + ["cp"]
PERSONAS_TRAIT_INSTRUMENTS = [
    i for i in PERSONAS_BASELINES if PERSONAS_CFG["instruments"][i]["format"] == "trait"
]
PERSONAS_FORMS = PERSONAS_CFG["human"]["forms"]
PERSONAS_GEN = PERSONAS_CFG["generator_model"]
PERSONAS_HUMAN = (
    f"results/personas/human/{PERSONAS_CFG['human']['ground_truth_form']}_scores.tsv"
)
# synthetic demo inputs (rules/personas/demo.smk)
PERSONAS_DEMO = "resources/demo/generated/personas"
# real-data run on the published release (rules/personas/release.smk)
PERSONAS_REL = PERSONAS_CFG["release_eval"]
PERSONAS_REL_COUNTRIES = PERSONAS_REL["countries"]


wildcard_constraints:
    country=regex_of(list(PERSONAS_CFG["countries"])),
    priming="primed|unprimed",
    instrument=regex_of(list(PERSONAS_CFG["instruments"]) + ["cp"]),
    form="ipip120|ipip300",


# -- params --------------------------------------------------------------------
# Narrow, order-stable config values for rules (rules/common.smk: conf) that
# depend on a wildcard or pick one field of the `personas.countries` entries.


def personas_mcs_score(wildcards):
    """Param function: the MCS scoring mode of the rule's {model} (personas.mcs.score_by_model, else score)."""
    from cultalign.personas.evaluate import mcs_mode

    return mcs_mode(PERSONAS_CFG["mcs"], wildcards.model)


def personas_value(value):
    """Param function giving a fixed value (mappings with sorted keys)."""
    value = canonical(value)

    def param(wildcards):
        return value

    return param


def personas_country_conf(field):
    """Param function: `personas.countries.<{country}>.<field>`."""

    def param(wildcards):
        return canonical(PERSONAS_CFG["countries"][wildcards.country][field])

    param.__name__ = f"personas_country_{field}"
    return param


def personas_instrument_conf(field):
    """Param function: `personas.instruments.<{instrument}>.<field>`."""

    def param(wildcards):
        return canonical(PERSONAS_CFG["instruments"][wildcards.instrument][field])

    param.__name__ = f"personas_instrument_{field}"
    return param


def personas_countries_field(field, ids):
    """Param function: {country id: `personas.countries.<id>.<field>`} for the ids `ids`."""
    return personas_value({c: PERSONAS_CFG["countries"][c][field] for c in ids})


def personas_pairs(key):
    """Param function: the entries of the mapping at config `key` as [name, value] pairs, in the
    config's order (for outputs whose rows or random draws follow that order; a config file that
    restates entries keeps their places)."""
    value = config
    for part in key.split("."):
        value = value[part]
    return personas_value([[k, v] for k, v in value.items()])


def personas_embedder(wildcards):
    """The hosted embedding model of the retrieval (`personas.corpus.embedding_api_model`) as a model
    param (its `models` entry and the request cache), or None: the local `embedding_model`.
    """
    name = PERSONAS_CFG["corpus"]["embedding_api_model"]
    return llm_of(name)(wildcards) if name else None


def personas_bfi_key(wildcards):
    """`personas.bfi_key` for an instrument in BFI format (the only loader that reads it), else None."""
    if PERSONAS_CFG["instruments"][wildcards.instrument]["format"] == "bfi":
        return PERSONAS_CFG["bfi_key"]
    return None


def personas_cp_release_code(wildcards):
    """The release code of {country} when cp items come from the release, else None."""
    if PERSONAS_CFG["cp_source"] == "release":
        return PERSONAS_CFG["countries"][wildcards.country]["release_code"]
    return None


def personas_form_country_width(wildcards):
    """`personas.human.country_width.<{form}>` (None: Johnson's layout)."""
    return PERSONAS_CFG["human"]["country_width"].get(wildcards.form)


# -- input functions -------------------------------------------------------------


def personas_corpus_pdfs(wildcards):
    """PDFs of a country: the user's folder, else the rendered demo text."""
    folder = PERSONAS_CFG["corpus"]["folders"].get(wildcards.country)
    if folder:
        key = f"personas.corpus.folders.{wildcards.country}"
        return input_folder_files(key, folder, "*.pdf")
    return [f"{PERSONAS_DEMO}/corpus/{wildcards.country}/{wildcards.country}_demo.pdf"]


def personas_demo_text(wildcards):
    return f"{PERSONAS_CFG['corpus']['demo_dir']}/{wildcards.country}.txt"


def personas_release_dir():
    path = PERSONAS_CFG["release"]["path"]
    if not path:
        raise ValueError(
            "personas.release.path is not set: the external release is not configured"
        )
    return path


def personas_release_paths(codes, norms=False, baselines=()):
    """The release files a job reads (questions, answers and scenarios of the file `codes`, the norms
    JSON, `baselines`) under personas.release.path.  Files that rule download_file makes (config
    `downloads`: the paper's pinned release) are tracked one by one; a local copy is checked first
    (a missing folder or file fails naming the config key)."""
    from cultalign.personas.release import release_files
    from cultalign.personas.release_eval import check_release

    root = PERSONAS_CFG["release"]["path"]
    if not root:
        check_release(root, list(codes), list(baselines))  # fails naming the config key
    root = root.rstrip("/")
    files = [f"{root}/{f}" for f in release_files(codes, norms, baselines)]
    made = {f"resources/downloads/{k}" for k in config["downloads"]}
    if not all(f in made for f in files):
        check_release(root, list(codes), list(baselines))
    return files


def personas_country_codes(ids):
    return [PERSONAS_CFG["countries"][c]["release_code"] for c in ids]


def personas_release_input(wildcards):
    """The audit's release files: every configured country's, the norms JSON and the baselines."""
    from cultalign.personas.release import RELEASE_BASELINES

    return personas_release_paths(
        personas_country_codes(PERSONAS_CFG["countries"]), True, RELEASE_BASELINES
    )


def personas_instrument_file(wildcards):
    return PERSONAS_CFG["instruments"][wildcards.instrument]["path"]


def personas_cp_inputs(wildcards):
    if PERSONAS_CFG["cp_source"] == "release":
        return {
            "release": personas_release_paths(
                personas_country_codes([wildcards.country])
            )
        }
    return {
        "questions": f"results/personas/generated/{PERSONAS_GEN}/questions/{wildcards.country}.tsv"
    }


def personas_country_items(wildcards, instruments):
    return [
        (
            f"results/personas/instruments/cp/{wildcards.country}.tsv"
            if i == "cp"
            else f"results/personas/instruments/{i}.tsv"
        )
        for i in instruments
    ]


def personas_eval_inputs(wildcards):
    if PERSONAS_CFG["priming_norms"] == "release":
        norms = personas_release_paths(personas_country_codes([wildcards.country]))
    else:
        norms = (
            f"results/personas/generated/{PERSONAS_GEN}/norms/{wildcards.country}.tsv"
        )
    return {
        "human": PERSONAS_HUMAN,
        "weights": model_dir(wildcards.model),
        "norms": norms,
    }


def personas_mcs_inputs(wildcards):
    d = personas_eval_inputs(wildcards)
    d["itemtables"] = personas_country_items(wildcards, PERSONAS_INSTRUMENTS)
    return d


def personas_oeg_inputs(wildcards):
    d = personas_eval_inputs(wildcards)
    d["itemtables"] = personas_country_items(wildcards, PERSONAS_OEG_INSTRUMENTS)
    return d


def personas_human_raw(wildcards):
    if PERSONAS_CFG["human"]["source"] == "synthetic":
        return f"{PERSONAS_DEMO}/human/{wildcards.form}_SYNTHETIC.dat"
    return PERSONAS_CFG["human"]["files"][wildcards.form]


def personas_human_key(wildcards):
    return PERSONAS_CFG["human"]["key120" if wildcards.form == "ipip120" else "key300"]


def personas_mcs_samples():
    return expand(
        "results/personas/mcs/{model}/{instrument}/{country}_{priming}.samples.tsv",
        model=PERSONAS_MCS_MODELS,
        instrument=PERSONAS_INSTRUMENTS,
        country=PERSONAS_COUNTRIES,
        priming=PERSONAS_PRIMING,
    )


def personas_oeg_outputs():
    return expand(
        "results/personas/oeg/{model}/{instrument}/{country}_{priming}.responses.tsv",
        model=PERSONAS_MODELS,
        instrument=PERSONAS_OEG_INSTRUMENTS,
        country=PERSONAS_COUNTRIES,
        priming=PERSONAS_PRIMING,
    )


def personas_generated(kind):
    """Input function: the generated `kind` table (norms, scenarios, questions) of every run country."""

    def inputs(wildcards):
        return expand(
            "results/personas/generated/{model}/{kind}/{country}.tsv",
            model=wildcards.model,
            kind=kind,
            country=PERSONAS_COUNTRIES,
        )

    return inputs


def personas_trait_items():
    """MCS item files of the TRAIT-format instruments, as (model, path) pairs."""
    return [
        (m, f"results/personas/mcs/{m}/{i}/{c}_{p}.items.tsv")
        for m in PERSONAS_MCS_MODELS
        for i in PERSONAS_TRAIT_INSTRUMENTS
        for c in PERSONAS_COUNTRIES
        for p in PERSONAS_PRIMING
    ]


def personas_trait_item_files(wildcards):
    return [path for _, path in personas_trait_items()]


def personas_release_checked(wildcards):
    """The release folder, after checking it holds every file the run reads (fails naming the config key)."""
    files = [b["file"] for b in PERSONAS_REL["baselines"].values()]
    return personas_release_paths(
        personas_country_codes(PERSONAS_REL_COUNTRIES), True, files
    )


def personas_release_eval_inputs(wildcards):
    return {
        "itemtable": f"results/personas/release/items/{wildcards.country}.tsv",
        "release": personas_release_checked(wildcards),
        "weights": model_dir(wildcards.model),
    }


def personas_release_outputs(kind):
    return expand(
        "results/personas/release/{model}/{kind}/{country}.{part}",
        model=PERSONAS_MCS_MODELS if kind == "mcs" else PERSONAS_MODELS,
        kind=kind,
        country=PERSONAS_REL_COUNTRIES,
        part=["tsv", "cells.tsv", "job.json"],
    )


def personas_release_summary_inputs(wildcards):
    return {
        "mcs": personas_release_outputs("mcs"),
        "oeg": personas_release_outputs("oeg"),
    }


# -- targets ---------------------------------------------------------------------

PERSONAS_TABLES = [
    "distances",
    "table2_gains",
    "table6_mcs_trait_gains",
    "table7_oeg_trait_gains",
    "priming_ablation",
    "valid_counts",
    "oeg_calibration",
    "oeg_human_correlation",
    "annotation_agreement",
]
# tables of the human data alone, made without any model job (personas_human_tables)
PERSONAS_HUMAN_TABLES = ["table1_human_pairwise"]
# tables of the OEG answers alone, made without the MCS jobs (personas_oeg_tables)
PERSONAS_OEG_TABLES = ["table3_ttr"]
PERSONAS_FIGURES = ["figure3", "figure5", "figure6", "figure10", "figure11", "figure12"]
# Report entry of each table and figure (paper_report, rules/common.smk): section, place in
# the paper's order, the paper's table/figure, what it shows.
PERSONAS_REPORT = {
    "table1_human_pairwise": (
        REPORT_MAIN,
        1,
        "Table 1",
        "Pairwise country distances, human data",
    ),
    "annotation_agreement": (REPORT_MAIN, 2, "Figure 2", "Inter-annotator agreement"),
    "figure3": (REPORT_MAIN, 3, "Figure 3", "MCS W and KS per instrument and country"),
    "table2_gains": (
        REPORT_MAIN,
        4,
        "Table 2",
        "Relative gains in W of CulturalPersonas",
    ),
    "oeg_human_correlation": (
        REPORT_MAIN,
        5,
        "Figure 4",
        "OEG scores vs human annotations",
    ),
    "table3_ttr": (REPORT_MAIN, 6, "Table 3", "Type-token ratio of OEG responses"),
    "figure5": (REPORT_MAIN, 7, "Figure 5", "MCS W per trait and model"),
    "figure6": (REPORT_MAIN, 8, "Figure 6", "Priming gain for the first country"),
    "priming_ablation": (REPORT_MAIN, 9, "Figures 6 and 12 (data)", "Priming ablation"),
    "figure10": (REPORT_APPENDIX, 2, "Figure 10", "MCS W per model"),
    "figure11": (REPORT_APPENDIX, 3, "Figure 11", "OEG W per model"),
    "table6_mcs_trait_gains": (
        REPORT_APPENDIX,
        4,
        "Table 6",
        "Gains in W per trait, MCS",
    ),
    "table7_oeg_trait_gains": (
        REPORT_APPENDIX,
        5,
        "Table 7",
        "Gains in W per trait, OEG",
    ),
    "figure12": (REPORT_APPENDIX, 6, "Figure 12", "Priming gain per country and model"),
    "distances": (REPORT_CHECKS, 1, "Section 4.4 (data)", "W and KS per cell"),
    "oeg_calibration": (
        REPORT_CHECKS,
        3,
        "Section 4.3.2 (check)",
        "OEG mapping calibration",
    ),
    "valid_counts": (
        REPORT_CHECKS,
        4,
        "Section 4.3 (check)",
        "Valid and invalid answers",
    ),
}


def personas_report(path, name):
    section, no, paper, shows = PERSONAS_REPORT[name]
    return paper_report(
        path,
        caption=f"../../report/personas/{name}.rst",
        category="CulturalPersonas",
        section=section,
        no=no,
        paper=paper,
        shows=shows,
    )


# the generated data's audit when the evaluation reads generated data (cp_source or priming_norms
# generated); the generation rules stay available as targets either way
PERSONAS_GENERATES = "generated" in (
    PERSONAS_CFG["cp_source"],
    PERSONAS_CFG["priming_norms"],
)
PERSONAS_AUDITS = (
    [f"results/personas/audit/generated_{PERSONAS_GEN}/summary.tsv"]
    if PERSONAS_GENERATES
    else []
) + (
    ["results/personas/audit/release/summary.tsv"]
    if PERSONAS_CFG["release"]["path"]
    else []
)


def real_data_personas_release(wildcards):
    """Input function: the CulturalPersonas release files the counts read (every configured country,
    the norms JSON, the baselines), downloaded or in a local copy (rules/personas/common.smk).
    """
    from cultalign.personas.release import RELEASE_BASELINES

    real_data_input("personas.release.path")(wildcards)  # unset: fails naming the key
    return personas_release_paths(
        personas_country_codes(PERSONAS_CFG["countries"]),
        True,
        [*RELEASE_BASELINES, "datasets/baselines/big5chat.csv"],
    )
