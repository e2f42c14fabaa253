# personas: configuration shortcuts and input functions (no rules here).

PCFG = config["personas"]
P_COUNTRIES = PCFG["run_countries"]
P_MODELS = PCFG["models"]
P_PRIMING = PCFG["priming"]
P_BASELINES = PCFG["run_instruments"]
P_INSTRUMENTS = P_BASELINES + ["cp"]
P_OEG_INSTRUMENTS = [i for i in P_BASELINES if PCFG["instruments"][i]["oeg"]] + ["cp"]
P_FORMS = PCFG["human"]["forms"]
P_GEN = PCFG["generator_model"]


wildcard_constraints:
    country=regex_of(list(PCFG["countries"])),
    priming="primed|unprimed",
    instrument=regex_of(list(PCFG["instruments"]) + ["cp"]),
    form="ipip120|ipip300",


def personas_corpus_pdfs(wildcards):
    """PDFs of a country: the user's folder, else the rendered demo text."""
    folder = PCFG["corpus"]["folders"].get(wildcards.country)
    if folder:
        return sorted(str(p) for p in Path(folder).glob("*.pdf"))
    return [f"results/personas/corpus/{wildcards.country}/{wildcards.country}_demo.pdf"]


def personas_demo_text(wildcards):
    return f"{PCFG['corpus']['demo_dir']}/{wildcards.country}.txt"


def personas_release_dir():
    path = PCFG["release"]["path"]
    if not path:
        raise ValueError(
            "personas.release.path is not set: the external release is not configured"
        )
    return path


def personas_release_input(wildcards):
    return personas_release_dir()


def personas_instrument_file(wildcards):
    return PCFG["instruments"][wildcards.instrument]["path"]


def personas_cp_inputs(wildcards):
    if PCFG["cp_source"] == "release":
        return {"release": personas_release_dir()}
    return {
        "questions": f"results/personas/generated/{P_GEN}/questions/{wildcards.country}.tsv"
    }


def personas_priming_inputs(wildcards):
    if PCFG["priming_norms"] == "release":
        return {"norms": personas_release_dir()}
    return {
        "norms": f"results/personas/generated/{P_GEN}/norms/{wildcards.country}.tsv"
    }


def personas_items(wildcards):
    if wildcards.instrument == "cp":
        return f"results/personas/instruments/cp/{wildcards.country}.tsv"
    return f"results/personas/instruments/{wildcards.instrument}.tsv"


def personas_country_items(wildcards, instruments):
    return [
        (
            f"results/personas/instruments/cp/{wildcards.country}.tsv"
            if i == "cp"
            else f"results/personas/instruments/{i}.tsv"
        )
        for i in instruments
    ]


def personas_mcs_inputs(wildcards):
    d = personas_eval_inputs(wildcards)
    d["itemtables"] = personas_country_items(wildcards, P_INSTRUMENTS)
    return d


def personas_oeg_inputs(wildcards):
    d = personas_eval_inputs(wildcards)
    d["itemtables"] = personas_country_items(wildcards, P_OEG_INSTRUMENTS)
    return d


def personas_eval_inputs(wildcards):
    d = {
        "human": f"results/personas/human/{PCFG['human']['ground_truth_form']}_scores.tsv",
        "weights": model_dir(wildcards.model),
    }
    d.update(personas_priming_inputs(wildcards))
    return d


def personas_human_raw(wildcards):
    src = PCFG["human"]["source"]
    if src == "synthetic":
        return f"results/personas/human/raw/{wildcards.form}_SYNTHETIC.dat"
    return PCFG["human"]["files"][wildcards.form]


def personas_human_key(wildcards):
    return PCFG["human"]["key120" if wildcards.form == "ipip120" else "key300"]


def personas_mcs_samples():
    return expand(
        "results/personas/mcs/{model}/{instrument}/{country}_{priming}.samples.tsv",
        model=P_MODELS,
        instrument=P_INSTRUMENTS,
        country=P_COUNTRIES,
        priming=P_PRIMING,
    )


def personas_oeg_outputs():
    return expand(
        "results/personas/oeg/{model}/{instrument}/{country}_{priming}.responses.tsv",
        model=P_MODELS,
        instrument=P_OEG_INSTRUMENTS,
        country=P_COUNTRIES,
        priming=P_PRIMING,
    )


def personas_generated_questions(wildcards):
    return expand(
        "results/personas/generated/{model}/questions/{country}.tsv",
        model=wildcards.model,
        country=P_COUNTRIES,
    )


def personas_generated_norms(wildcards):
    return expand(
        "results/personas/generated/{model}/norms/{country}.tsv",
        model=wildcards.model,
        country=P_COUNTRIES,
    )


def personas_generated_scenarios(wildcards):
    return expand(
        "results/personas/generated/{model}/scenarios/{country}.tsv",
        model=wildcards.model,
        country=P_COUNTRIES,
    )


P_TABLES = [
    "distances",
    "table1_human_pairwise",
    "table2_gains",
    "table6_mcs_trait_gains",
    "table7_oeg_trait_gains",
    "table3_ttr",
    "priming_ablation",
    "valid_counts",
    "oeg_calibration",
    "oeg_human_correlation",
    "annotation_agreement",
]
P_FIGURES = [
    "fig3_mcs_alignment",
    "fig5_trait_model",
    "fig6_priming",
    "fig10_mcs_models",
    "fig11_oeg_models",
    "fig12_priming_all",
]


# real-data run on the published release (rules/personas_release.smk)
P_REL = PCFG["release_eval"]
P_REL_COUNTRIES = P_REL["countries"]


def personas_release_checked(wildcards):
    """The release folder, after checking it holds every file the run reads (fails naming the config key)."""
    from cultalign.personas.release_eval import check_release

    codes = [PCFG["countries"][c]["release_code"] for c in P_REL_COUNTRIES]
    files = [b["file"] for b in P_REL["baselines"].values()]
    return str(check_release(PCFG["release"]["path"], codes, files))


def personas_release_eval_inputs(wildcards):
    return {
        "itemtable": f"results/personas/release/items/{wildcards.country}.tsv",
        "release": personas_release_checked(wildcards),
        "weights": model_dir(wildcards.model),
    }


def personas_release_outputs(kind):
    return expand(
        "results/personas/release/{model}/{kind}/{country}.{part}",
        model=P_MODELS,
        kind=kind,
        country=P_REL_COUNTRIES,
        part=["tsv", "cells.tsv", "job.json"],
    )


def personas_release_summary_inputs(wildcards):
    return {
        "mcs": personas_release_outputs("mcs"),
        "oeg": personas_release_outputs("oeg"),
    }


P_TRAIT_INSTRUMENTS = [
    i for i in P_BASELINES if PCFG["instruments"][i].get("format") == "trait"
]


def personas_trait_items():
    """MCS item files of the TRAIT-format instruments, as (model, path) pairs."""
    return [
        (m, f"results/personas/mcs/{m}/{i}/{c}_{p}.items.tsv")
        for m in P_MODELS
        for i in P_TRAIT_INSTRUMENTS
        for c in P_COUNTRIES
        for p in P_PRIMING
    ]


def personas_trait_item_files(wildcards):
    return [path for _, path in personas_trait_items()]
