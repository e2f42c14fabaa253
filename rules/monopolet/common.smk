# monopolet study: "Naturalistic measure of social norms alignment" (Sara og
# Monopolet).  Episodes (audio + manifest) -> transcripts with speakers ->
# dilemma sections -> full dilemmas -> panel and model solutions -> LLM-judge
# matching -> SAA/EAA, response statistics, topics, annotation agreement ->
# Figures 5-8, Table 1 and claims.  Config shortcuts, input functions and
# target lists; no rules.  The manifest is read here, while the Snakefile is
# parsed: its episodes are the {episode} wildcard values.
from cultalign.monopolet.answers import (
    answer_temperature as monopolet_answer_temperature,
)
from cultalign.monopolet.episodes import load_manifest as monopolet_load_manifest

MONOPOLET = config["monopolet"]
MONOPOLET_ON = "monopolet" in STUDIES
MONOPOLET_EP_TABLE = (
    monopolet_load_manifest(MONOPOLET["manifest"])[0] if MONOPOLET_ON else None
)
MONOPOLET_EPISODES = MONOPOLET_EP_TABLE["episode_id"].tolist() if MONOPOLET_ON else []
MONOPOLET_ANSWER_MODELS = MONOPOLET["answer_models"]
MONOPOLET_AGENTS = ["panel"] + MONOPOLET_ANSWER_MODELS
MONOPOLET_COMPARISONS = MONOPOLET["comparisons"] or [
    f"{m}_vs_panel" for m in MONOPOLET_ANSWER_MODELS
]
# model stages, sharded ({shard}) and gathered by rule monopolet_gather
MONOPOLET_STAGES = ["dilemmas", "answers", "solutions", "matching"]
MONOPOLET_WHISPER = MONOPOLET["whisper"]
MONOPOLET_AUDIO_DIR = str(Path(MONOPOLET["audio_dir"]))
MONOPOLET_WHISPER_DIR = (
    MONOPOLET_WHISPER["path"]
    if MONOPOLET_WHISPER["source"] == "local"
    else f"resources/models/whisper/{MONOPOLET_WHISPER['name']}"
)
# the model of each role (model names are checked against `models:` with the
# config, schema mark x-model-ref)
MONOPOLET_MAPPING_MODEL = MONOPOLET["mapping"]["model"]
MONOPOLET_DILEMMA_MODEL = MONOPOLET["dilemma"]["model"]
MONOPOLET_EXTRACTION_MODEL = MONOPOLET["extraction"]["model"]
MONOPOLET_JUDGE_MODEL = MONOPOLET["judge"]["model"]
MONOPOLET_NAMING_MODEL = MONOPOLET["topics"]["naming"]["model"]


def monopolet_check_comparisons():
    """Each agent a comparison names is the panel or an answer model."""
    for c in MONOPOLET_COMPARISONS:
        cand, ref = c.split("_vs_")
        for a in (cand, ref):
            if a not in MONOPOLET_AGENTS:
                raise ValueError(
                    f"monopolet.comparisons: {c!r} names agent {a!r}; agents: {MONOPOLET_AGENTS}"
                )


def monopolet_check_annotation_samples():
    """The A.1 items every annotator shares fit in each annotator's items."""
    a = MONOPOLET["annotation_samples"]
    if a["mapping_overlap"] > a["mapping_per_annotator"]:
        raise ValueError(
            f"monopolet.annotation_samples.mapping_overlap: {a['mapping_overlap']} shared items exceed "
            f"mapping_per_annotator {a['mapping_per_annotator']}"
        )


if MONOPOLET_ON:
    monopolet_check_comparisons()
    monopolet_check_annotation_samples()


def monopolet_audio(wildcards):
    row = MONOPOLET_EP_TABLE.set_index("episode_id").loc[wildcards.episode]
    return f"{MONOPOLET['audio_dir']}/{row['audio']}"


def monopolet_all_audio(wildcards):
    return [f"{MONOPOLET['audio_dir']}/{a}" for a in MONOPOLET_EP_TABLE["audio"]]


def monopolet_num_speakers(wildcards):
    """Param function: guests + host from the manifest, or None (unknown)."""
    if not MONOPOLET["diarization"]["speakers_from_manifest"]:
        return None
    row = MONOPOLET_EP_TABLE.set_index("episode_id").loc[wildcards.episode]
    return int(row["n_guests"]) + 1


def monopolet_demo_script(wildcards):
    return f"{MONOPOLET['demo_scripts']}/{wildcards.episode}.txt"


def monopolet_mapping_weights(wildcards):
    return model_dir(MONOPOLET_MAPPING_MODEL)


def monopolet_dilemma_weights(wildcards):
    return model_dir(MONOPOLET_DILEMMA_MODEL)


def monopolet_extraction_weights(wildcards):
    return model_dir(MONOPOLET_EXTRACTION_MODEL)


def monopolet_judge_weights(wildcards):
    return model_dir(MONOPOLET_JUDGE_MODEL)


def monopolet_naming_weights(wildcards):
    return model_dir(MONOPOLET_NAMING_MODEL)


def monopolet_answer_settings(wildcards):
    """Param: the decoding of answer model {model}, narrow (another model's temperature does not
    rerun it): max_new_tokens and its temperature (temperature_by_model, else the global one;
    null = the serving stack's default, cultalign.monopolet.answers.answer_setup)."""
    a = MONOPOLET["answers"]
    return canonical(
        {
            "max_new_tokens": a["max_new_tokens"],
            "temperature": monopolet_answer_temperature(a, wildcards.model),
        }
    )


def monopolet_episode_files(pattern):
    return [pattern.format(episode=e) for e in MONOPOLET_EPISODES]


def monopolet_segments(wildcards):
    return monopolet_episode_files(
        "results/monopolet/transcripts/{episode}.segments.tsv"
    )


def monopolet_section_files(wildcards):
    return monopolet_episode_files("results/monopolet/sections/{episode}.tsv")


def monopolet_gather_inputs(wildcards):
    """The shard tables of {stage}/{name}, in shard order."""
    return [
        f"results/monopolet/{wildcards.stage}/shards/{wildcards.name}/{s}.tsv"
        for s in shard_ids(MONOPOLET["shards"])
    ]


def monopolet_agent_responses(wildcards):
    """Panel solutions come from the transcript sections, a model's from its answers."""
    if wildcards.agent == "panel":
        return "results/monopolet/sections/sections.tsv"
    return f"results/monopolet/answers/{wildcards.agent}.tsv"


def monopolet_comparison_solutions(wildcards):
    cand, ref = wildcards.comparison.split("_vs_")
    return {
        "cand": f"results/monopolet/solutions/{cand}.tsv",
        "ref": f"results/monopolet/solutions/{ref}.tsv",
    }


def monopolet_chunk_files(wildcards):
    return monopolet_episode_files("results/monopolet/sections/{episode}.chunks.tsv")


def monopolet_matchings(wildcards):
    return [f"results/monopolet/matching/{c}.tsv" for c in MONOPOLET_COMPARISONS]


def monopolet_answer_tables(wildcards):
    return [f"results/monopolet/answers/{m}.tsv" for m in MONOPOLET_ANSWER_MODELS]


def monopolet_demo_turns(wildcards):
    """The turns the SYNTHETIC demo episodes were spoken with (none for real audio)."""
    if not MONOPOLET["demo_scripts"]:
        return []
    return monopolet_episode_files(f"{MONOPOLET_AUDIO_DIR}/{{episode}}.turns.tsv")


def monopolet_turns(wildcards):
    return monopolet_episode_files("results/monopolet/diarization/{episode}.turns.tsv")


def monopolet_annotation(kind):
    path = MONOPOLET["annotations"][kind]
    return [path] if path else []


def monopolet_annotation_inputs(wildcards):
    return (
        monopolet_annotation("mapping")
        + monopolet_annotation("matching")
        + monopolet_annotation("dilemmas")
    )


wildcard_constraints:
    episode=regex_of(MONOPOLET_EPISODES),
    agent=regex_of(MONOPOLET_AGENTS),
    comparison=regex_of(MONOPOLET_COMPARISONS),
    stage=regex_of(MONOPOLET_STAGES),
    whisper=regex_of([MONOPOLET_WHISPER["name"]]),
